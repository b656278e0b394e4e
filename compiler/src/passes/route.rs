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
//!
//! The same pass compresses: an all-reduce of an f32 sum over exactly a mesh axis that
//! `Options::compress` names is marked [`COMPRESS`] (`shardc.compress = "int8:64"`) and
//! runs as the compressed algorithm (`runtime/src/backend/collective.rs`), whatever its
//! route; the bytes each device sends before and after go to `explain`.

use crate::error::CompileError;
use serde::Serialize;
use shardc_ir::compress::{COMPRESS, Compression};
use shardc_ir::topology::{Algorithm, ROUTE, RouteChoice};
use shardc_ir::{BinaryOp, DType, Function, Module, Op, OpKind, Topology, quoted};
use shardc_runtime::backend::collective::Exchange;

/// One collective's route: the op's result (`%12`), the values it moves
/// ([`Op::of`](shardc_ir::Op::of)) and both predictions for its slowest group.
#[derive(Clone, Debug, Serialize)]
pub struct Route {
    /// The collective's value in the per-device program (`%12`).
    pub at: String,
    /// The global values it moves, as `explain` names them.
    pub of: Vec<String>,
    /// Bytes of the buffer it is predicted by: an all-reduce's or reduce-scatter's
    /// operand, an all-gather's result.
    pub bytes: u64,
    /// Both algorithms' predictions, with a topology.
    pub choice: Option<RouteChoice>,
    /// How it is compressed, when it is.
    pub compressed: Option<Compressed>,
}

/// A compressed all-reduce: its compression and the bytes a device sends without and
/// with it (the mean over the devices, as run reports state it).
#[derive(Clone, Debug, Serialize)]
pub struct Compressed {
    /// How it is compressed.
    pub compression: Compression,
    /// Bytes a device would send uncompressed.
    pub bytes_before: u64,
    /// Bytes it sends.
    pub bytes_after: u64,
}

/// A topology's predictions for one collective kind: group, buffer bytes -> both times.
type Predict = fn(&Topology, &[usize], u64) -> RouteChoice;

/// Routes every all-reduce, reduce-scatter and all-gather of `m`'s entry function over
/// `topology` (when given), and compresses the all-reduces over the axes of `compress`.
pub fn route(
    m: &Module,
    topology: Option<&Topology>,
    compress: &[(String, Compression)],
) -> Result<(Module, Vec<Route>), CompileError> {
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
        let choice = topology.and_then(|t| slowest(&groups.0, |group| predict(t, group, bytes)));
        let compression = compression_for(m, f, op, compress);
        if choice.is_none() && compression.is_none() {
            continue;
        }
        let attrs = &mut g.ops[id.index()].attrs;
        attrs.retain(|(k, _)| k != ROUTE && k != COMPRESS);
        let mut compressed = None;
        if let Some(c) = compression {
            attrs.push((COMPRESS.to_string(), quoted(&c.attribute())));
            // What a device sends on average, as run reports and `explain` state it.
            let sent = |func: &Function| {
                let devices: Vec<usize> = groups.0.iter().flatten().copied().collect();
                Exchange::new(func, func.op(id), &names).map_or(0, |x| {
                    devices.iter().map(|&d| x.ring_bytes(d)).sum::<u64>()
                        / devices.len().max(1) as u64
                })
            };
            compressed = Some(Compressed {
                compression: c,
                bytes_before: sent(f),
                bytes_after: sent(&g),
            });
        } else if let Some(value) = choice.as_ref().and_then(|c| c.algorithm.attribute()) {
            g.ops[id.index()]
                .attrs
                .push((ROUTE.to_string(), quoted(&value)));
        }
        routes.push(Route {
            at: names[result.index()].clone(),
            of: op.of(),
            bytes,
            choice,
            compressed,
        });
    }
    Ok((m.with_function(g), routes))
}

/// The prediction of the slowest group, hierarchical only if every group has a hierarchy.
fn slowest(
    groups: &[Vec<usize>],
    predict: impl Fn(&[usize]) -> RouteChoice,
) -> Option<RouteChoice> {
    let choices: Vec<RouteChoice> = groups.iter().map(|g| predict(g)).collect();
    let time = |c: &RouteChoice| match c.algorithm {
        Algorithm::Ring => c.ring_s,
        Algorithm::Hierarchical { .. } => c.hierarchical_s.unwrap_or(c.ring_s),
    };
    let worst = choices
        .iter()
        .max_by(|a, b| time(a).total_cmp(&time(b)))
        .cloned()?;
    if choices.iter().all(|c| c.hierarchical_s.is_some()) {
        Some(worst)
    } else {
        Some(RouteChoice {
            algorithm: Algorithm::Ring,
            ..worst
        })
    }
}

/// The compression `compress` asks for an all-reduce: of an f32 sum over exactly one of
/// its axes (of `m`'s mesh), of more than a scalar (a loss or a norm stays exact).
fn compression_for(
    m: &Module,
    f: &Function,
    op: &Op,
    compress: &[(String, Compression)],
) -> Option<Compression> {
    let OpKind::AllReduce { groups } = &op.kind else {
        return None;
    };
    let ty = f.ty(*op.operands.first()?);
    if compress.is_empty() || ty.dtype != DType::F32 || ty.num_elements() < 2 {
        return None;
    }
    let sums = f
        .reducer_op(*op.regions.first()?)
        .is_ok_and(|r| matches!(r.kind, OpKind::Binary(BinaryOp::Add)));
    let mesh = m.meshes.first()?;
    let axes = crate::local::manual::varying_axes(mesh, &groups.0);
    let [axis] = axes.as_slice() else {
        return None;
    };
    compress
        .iter()
        .find(|(a, _)| a == axis)
        .filter(|_| sums)
        .map(|(_, c)| *c)
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
        let (out, routes) = route(m, Some(t), &[]).unwrap();
        let op = out.entry().unwrap().body_ops().next().unwrap().1.clone();
        let r = routes[0].clone();
        assert!(r.compressed.is_none());
        (op.route().unwrap(), r)
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
            r.choice.as_ref().unwrap().hierarchical_s.unwrap()
                < r.choice.as_ref().unwrap().ring_s / 2.0,
            "{r:?}"
        );
        // Links across nodes as fast as inside: both move 1.75 S per device, the hierarchy
        // in 8 messages, the ring in 14: with latency the hierarchy still wins, without
        // it they tie and the ring is kept.
        let (algorithm, r) = routed(&all, &topology(8e9, 1e-6));
        assert_ne!(algorithm, Algorithm::Ring);
        assert!(
            r.choice.as_ref().unwrap().hierarchical_s.unwrap() < r.choice.as_ref().unwrap().ring_s
        );
        let (algorithm, r) = routed(&all, &topology(8e9, 0.0));
        assert_eq!(algorithm, Algorithm::Ring);
        assert_eq!(
            r.choice.as_ref().unwrap().hierarchical_s,
            Some(r.choice.as_ref().unwrap().ring_s)
        );
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
            r.choice.as_ref().unwrap().hierarchical_s.unwrap()
                < r.choice.as_ref().unwrap().ring_s / 2.0,
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
            (algorithm, r.choice.as_ref().unwrap().hierarchical_s),
            (Algorithm::Ring, None)
        );
        // Its columns: one member per node, nothing to reduce inside a node first.
        let columns = all_reduce("dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>");
        assert_eq!(routed(&columns, &t).0, Algorithm::Ring);
    }
}
