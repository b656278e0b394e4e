//! Routing: each all-reduce, reduce-scatter and all-gather of the per-device program runs
//! as a flat ring or as the hierarchical algorithm over nodes (an all-reduce as
//! reduce-scatter inside each node, all-reduce across, all-gather inside; a reduce-scatter
//! inside then across; an all-gather across then inside), whichever the topology predicts
//! faster for its groups ([`Topology::all_reduce`], [`Topology::reduce_scatter`],
//! [`Topology::all_gather`]). The choice is written on the op ([`ROUTE`]:
//! `shardc.route = "hierarchical:4"`), which the runtime follows, and returned with both
//! predictions for `explain`.
//!
//! A collective is routed hierarchically only when every one of its groups has a
//! hierarchy (the same number of members, two or more, on each of two or more nodes) and
//! the hierarchy wins for the slowest group.

use crate::error::CompileError;
use serde::Serialize;
use shardc_ir::topology::{Algorithm, ROUTE, RouteChoice};
use shardc_ir::{Module, OpKind, Topology, quoted};

/// One collective's route: the op's result (`%12`), the values it moves
/// ([`Op::of`](shardc_ir::Op::of)) and both predictions for its slowest group.
#[derive(Clone, Debug, Serialize)]
pub struct Route {
    pub at: String,
    pub of: Vec<String>,
    /// Bytes of the buffer it is predicted by: an all-reduce's or reduce-scatter's
    /// operand, an all-gather's result.
    pub bytes: u64,
    pub choice: RouteChoice,
}

/// A topology's predictions for one collective kind: group, buffer bytes -> both times.
type Predict = fn(&Topology, &[usize], u64) -> RouteChoice;

/// Routes every all-reduce, reduce-scatter and all-gather of `m`'s entry function over
/// `topology`.
pub fn route(m: &Module, topology: &Topology) -> Result<(Module, Vec<Route>), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), Vec::new()));
    };
    let names = f.value_names();
    let mut g = f.clone();
    let mut routes = Vec::new();
    for (id, op) in f.body_ops() {
        let (Some(&operand), Some(&result)) = (op.operands.first(), op.results.first()) else {
            continue;
        };
        // Each kind's predictions, from the buffer it is measured by.
        let (groups, bytes, predict): (_, _, Predict) = match &op.kind {
            OpKind::AllReduce { groups } => (groups, f.ty(operand), Topology::all_reduce),
            OpKind::ReduceScatter { groups, .. } => {
                (groups, f.ty(operand), Topology::reduce_scatter)
            }
            OpKind::AllGather { groups, .. } => (groups, f.ty(result), Topology::all_gather),
            _ => continue,
        };
        let bytes = bytes.size_bytes() as u64;
        let choices: Vec<RouteChoice> = groups
            .0
            .iter()
            .map(|group| predict(topology, group, bytes))
            .collect();
        let slowest = |c: &RouteChoice| match c.algorithm {
            Algorithm::Ring => c.ring_s,
            Algorithm::Hierarchical { .. } => c.hierarchical_s.unwrap_or(c.ring_s),
        };
        let Some(worst) = choices
            .iter()
            .max_by(|a, b| slowest(a).total_cmp(&slowest(b)))
            .cloned()
        else {
            continue;
        };
        let everywhere = choices.iter().all(|c| c.hierarchical_s.is_some());
        let choice = if everywhere {
            worst
        } else {
            RouteChoice {
                algorithm: Algorithm::Ring,
                ..worst
            }
        };
        let attrs = &mut g.ops[id.index()].attrs;
        attrs.retain(|(k, _)| k != ROUTE);
        if let Some(value) = choice.algorithm.attribute() {
            attrs.push((ROUTE.to_string(), quoted(&value)));
        }
        routes.push(Route {
            at: names[result.index()].clone(),
            of: op.of(),
            bytes,
            choice,
        });
    }
    Ok((m.with_function(g), routes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;
    use shardc_ir::topology::LinkClass;

    fn all_reduce(groups: &str) -> Module {
        parse_module(&format!(
            r#"module {{
  func.func @main(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {{
    %0 = "stablehlo.all_reduce"(%x) <{{replica_groups = {groups}}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}) : (tensor<1048576xf32>) -> tensor<1048576xf32>
    return %0 : tensor<1048576xf32>
  }}
}}"#
        ))
        .unwrap()
    }

    fn topology(inter: f64, latency: f64) -> Topology {
        Topology::new(
            2,
            4,
            LinkClass::new(8e9, latency),
            LinkClass::new(inter, latency),
        )
        .unwrap()
    }

    fn routed(m: &Module, t: &Topology) -> (Algorithm, Route) {
        let (out, routes) = route(m, t).unwrap();
        let op = out.entry().unwrap().body_ops().next().unwrap().1.clone();
        (op.route().unwrap(), routes[0].clone())
    }

    #[test]
    fn a_slow_link_across_nodes_routes_an_all_reduce_over_both_nodes_hierarchically() {
        let all = all_reduce("dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>");
        let (algorithm, r) = routed(&all, &topology(1e9, 1e-6));
        assert_eq!(
            algorithm,
            Algorithm::Hierarchical {
                devices_per_node: 4
            }
        );
        assert_eq!(r.bytes, 4 << 20);
        assert!(
            r.choice.hierarchical_s.unwrap() < r.choice.ring_s / 2.0,
            "{r:?}"
        );
        // Links across nodes as fast as inside: both move 1.75 S per device, the hierarchy
        // in 8 messages, the ring in 14: with latency the hierarchy still wins, without
        // it they tie and the ring is kept.
        let (algorithm, r) = routed(&all, &topology(8e9, 1e-6));
        assert_ne!(algorithm, Algorithm::Ring);
        assert!(r.choice.hierarchical_s.unwrap() < r.choice.ring_s);
        let (algorithm, r) = routed(&all, &topology(8e9, 0.0));
        assert_eq!(algorithm, Algorithm::Ring);
        assert_eq!(r.choice.hierarchical_s, Some(r.choice.ring_s));
    }

    #[test]
    fn gathers_and_scatters_across_slow_nodes_are_routed_too() {
        let gather = parse_module(
            r#"module {
  func.func @main(%x: tensor<131072xf32>) -> tensor<1048576xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<131072xf32>) -> tensor<1048576xf32>
    return %0 : tensor<1048576xf32>
  }
}"#,
        )
        .unwrap();
        let (algorithm, r) = routed(&gather, &topology(1e9, 1e-6));
        assert_ne!(algorithm, Algorithm::Ring);
        assert_eq!(r.bytes, 4 << 20);
        assert!(
            r.choice.hierarchical_s.unwrap() < r.choice.ring_s / 2.0,
            "{r:?}"
        );
    }

    #[test]
    fn groups_inside_a_node_or_with_one_member_per_node_stay_rings() {
        let t = topology(1e9, 1e-6);
        // The rows of a 2x4 mesh: each group inside one node.
        let rows = all_reduce("dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>");
        let (algorithm, r) = routed(&rows, &t);
        assert_eq!(
            (algorithm, r.choice.hierarchical_s),
            (Algorithm::Ring, None)
        );
        // Its columns: one member per node, nothing to reduce inside a node first.
        let columns = all_reduce("dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>");
        assert_eq!(routed(&columns, &t).0, Algorithm::Ring);
    }
}
