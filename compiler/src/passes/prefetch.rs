//! Prefetching (FSDP's `forward_prefetch` and `backward_prefetch`): each all-gather of an
//! argument is issued `depth` such gathers early — where the gather `depth` places before
//! it in program order stands — so the communication side moves the next layer's
//! parameters while compute runs the current one. Gathered just in time (as partitioning
//! and [`super::regather`] place them), compute hands a layer's gather over and waits for
//! it at once; issued a layer early, the wait is for a gather that has been moving
//! during the previous layer.
//!
//! ```text
//! %g1 = all_gather(%p1)          %g1 = all_gather(%p1)
//! ... layer 1 reads %g1 ...      %g2 = all_gather(%p2)
//! %g2 = all_gather(%p2)    =>    ... layer 1 reads %g1 ...
//! ... layer 2 reads %g2 ...      %g3 = all_gather(%p3)
//! %g3 = all_gather(%p3)          ... layer 2 reads %g2 ...
//! ```
//!
//! A gathered copy then lives `depth` layers longer: the plan's peak (`memory.rs`, which
//! follows program order) holds that much more. Only gathers of arguments move: their
//! operand exists from the start, so moving them earlier keeps every dependency.

use crate::error::CompileError;
use shardc_ir::{FunctionBuilder, Module, OpId, OpKind, ValueId};
use std::collections::{HashMap, HashSet};

/// Issues every all-gather of an argument `depth` such gathers early. Returns the new
/// module and how many gathers moved.
pub fn prefetch(m: &Module, depth: usize) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    if depth == 0 {
        return Ok((m.clone(), 0));
    }
    let args: HashSet<ValueId> = f.args().iter().copied().collect();
    let ops: Vec<(OpId, &shardc_ir::Op)> = f.body_ops().collect();
    let gathers: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (_, op))| {
            matches!(op.kind, OpKind::AllGather { .. }) && args.contains(&op.operands[0])
        })
        .map(|(i, _)| i)
        .collect();
    // Where each gather goes: the position of the gather `depth` before it.
    let mut at: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut moved = 0;
    for (k, &i) in gathers.iter().enumerate() {
        let target = gathers[k.saturating_sub(depth)];
        moved += usize::from(target < i);
        at.entry(target).or_default().push(i);
    }
    if moved == 0 {
        return Ok((m.clone(), 0));
    }
    let placed: HashSet<usize> = gathers.iter().copied().collect();
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (i, (_, op)) in ops.iter().enumerate() {
        for &g in at.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            b.copy_op(f, ops[g].1, &mut map)?;
        }
        if !placed.contains(&i) {
            b.copy_op(f, op, &mut map)?;
        }
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok((m.with_function(g), moved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::{parse_module, print_module};

    #[test]
    fn each_gather_of_an_argument_is_issued_a_layer_early() {
        let m = parse_module(
            r#"module {
  func.func @main(%p1: tensor<2xf32>, %p2: tensor<2xf32>, %p3: tensor<2xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
    %g1 = "stablehlo.all_gather"(%p1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<2xf32>) -> tensor<8xf32>
    %a = stablehlo.multiply %x, %g1 : tensor<8xf32>
    %g2 = "stablehlo.all_gather"(%p2) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<2xf32>) -> tensor<8xf32>
    %b = stablehlo.multiply %a, %g2 : tensor<8xf32>
    %g3 = "stablehlo.all_gather"(%p3) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<2xf32>) -> tensor<8xf32>
    %c = stablehlo.multiply %b, %g3 : tensor<8xf32>
    return %c : tensor<8xf32>
  }
}"#,
        )
        .unwrap();
        let (out, moved) = prefetch(&m, 1).unwrap();
        assert_eq!(moved, 2);
        let text = print_module(&out);
        let order: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().split(" = ").nth(1))
            .map(|rhs| rhs.split(['(', ' ']).next().unwrap_or(""))
            .collect();
        assert_eq!(
            order,
            [
                "\"stablehlo.all_gather\"",
                "\"stablehlo.all_gather\"",
                "stablehlo.multiply",
                "\"stablehlo.all_gather\"",
                "stablehlo.multiply",
                "stablehlo.multiply"
            ],
            "{text}"
        );
        // The same values: the reference gives the same results on every device.
        shardc_ir::verify_module(&out).unwrap();
        let (none, zero) = prefetch(&m, 0).unwrap();
        assert_eq!((print_module(&none), zero), (print_module(&m), 0));
    }
}
