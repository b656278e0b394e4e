//! Simplification: dead-op elimination and common-subexpression elimination. Every op is
//! pure (StableHLO ops have no side effects, and shardc's random op is a function of its
//! seed), so
//!
//! - an op none of whose results the function's results read, directly or through other
//!   ops, is removed;
//! - an op without regions that repeats an earlier one (same kind and attributes, same
//!   operands, same result types and shardings) is replaced by the earlier one's results;
//! - an `optimization_barrier` keeps only the operand/result pairs whose results are read.
//!
//! The body is rebuilt in order, so a function with nothing to remove keeps its ids.

use crate::error::CompileError;
use shardc_ir::{
    BlockId, Function, FunctionBuilder, Module, Op, OpId, OpKind, TensorType, ValueId,
};
use std::collections::HashMap;

/// The module with the dead and repeated ops of every function's body removed.
pub fn simplify(m: &Module) -> Result<Module, CompileError> {
    let functions = m
        .functions
        .iter()
        .map(|f| simplify_function(f, true))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Module {
        functions,
        ..m.clone()
    })
}

/// `f` with its dead ops removed (and nothing merged): what `passes::prune` leaves once
/// its empty values are constants.
pub(crate) fn remove_dead(f: &Function) -> Result<Function, CompileError> {
    simplify_function(f, false)
}

/// `f` with its dead ops removed and, with `merge`, its repeated ops merged.
fn simplify_function(f: &Function, merge: bool) -> Result<Function, CompileError> {
    let (keep, live) = live_ops(f);
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    // Ops already emitted, by their (new) operands: candidates an op may repeat.
    let mut seen: HashMap<Vec<ValueId>, Vec<OpId>> = HashMap::new();
    for (id, op) in f.body_ops() {
        if !keep[id.index()] {
            continue;
        }
        if op.kind == OpKind::OptimizationBarrier {
            // Only the pairs something reads: a value kept alive by nothing but the barrier
            // (a recomputation that turned out dead) is freed after its last real read.
            let kept: Vec<usize> = (0..op.results.len())
                .filter(|&k| live[op.results[k].index()])
                .collect();
            let operands: Vec<ValueId> = kept.iter().map(|&k| map[&op.operands[k]]).collect();
            let id = b.push(OpKind::OptimizationBarrier, &operands, None, Vec::new())?;
            let new = b.func().op(id).results.clone();
            let emitted = b.op_mut(id);
            emitted.attrs = op.attrs.clone();
            emitted.shardings = op
                .shardings
                .as_ref()
                .map(|s| kept.iter().map(|&k| s[k].clone()).collect());
            map.extend(kept.iter().map(|&k| op.results[k]).zip(new));
            continue;
        }
        let operands: Vec<ValueId> = op.operands.iter().map(|v| map[v]).collect();
        if merge && op.regions.is_empty() {
            let types: Vec<&TensorType> = op.results.iter().map(|&r| f.ty(r)).collect();
            let earlier = seen.get(&operands).and_then(|ids| {
                ids.iter()
                    .map(|&e| &b.func().ops[e.index()])
                    .find(|e| repeats(op, &types, e, b.func()))
            });
            if let Some(e) = earlier {
                map.extend(op.results.iter().copied().zip(e.results.iter().copied()));
                continue;
            }
        }
        b.copy_op(f, op, &mut map)?;
        let new = OpId::from_index(b.func().ops.len() - 1);
        seen.entry(operands).or_default().push(new);
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

/// Whether `op` (with result types `types`) computes what the emitted op `e` of `g` does;
/// their operands are known to be the same.
fn repeats(op: &Op, types: &[&TensorType], e: &Op, g: &Function) -> bool {
    e.regions.is_empty()
        && e.kind == op.kind
        && e.shardings == op.shardings
        && semantic_attrs(e).eq(semantic_attrs(op))
        && e.results.len() == types.len()
        && e.results.iter().zip(types).all(|(&r, t)| g.ty(r) == *t)
}

/// An op's attributes but its path and remat marks: two ops computing the same thing
/// from the same operands are one wherever they were traced (the first one's are kept).
fn semantic_attrs(op: &Op) -> impl Iterator<Item = &(String, String)> {
    op.attrs.iter().filter(|(k, _)| {
        ![shardc_ir::OP_PATH, shardc_ir::REMAT, shardc_ir::REMAT_NAME].contains(&k.as_str())
    })
}

/// Per op of `f`: whether the function's results read it; and per value. An
/// `optimization_barrier` reads only the operands whose results are read.
fn live_ops(f: &Function) -> (Vec<bool>, Vec<bool>) {
    let mut live = vec![false; f.values.len()];
    for r in f.results() {
        live[r.index()] = true;
    }
    let mut keep = vec![false; f.ops.len()];
    for &id in f.body().ops.iter().rev() {
        let op = f.op(id);
        if op.results.is_empty() || op.results.iter().any(|r| live[r.index()]) {
            keep[id.index()] = true;
            if op.kind == OpKind::OptimizationBarrier {
                for (v, r) in op.operands.iter().zip(&op.results) {
                    if live[r.index()] {
                        live[v.index()] = true;
                    }
                }
            } else {
                mark_reads(f, &op.operands, &op.regions, &mut live);
            }
        }
    }
    (keep, live)
}

/// Marks what a kept op reads: its operands, and whatever ops in its regions read.
fn mark_reads(f: &Function, operands: &[ValueId], regions: &[BlockId], live: &mut [bool]) {
    for v in operands {
        live[v.index()] = true;
    }
    for &r in regions {
        for &id in &f.block(r).ops {
            let op = f.op(id);
            mark_reads(f, &op.operands, &op.regions, live);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::{BinaryOp, DType, Literal, OpKind, Scalar, UnaryOp};

    fn names(f: &Function) -> Vec<String> {
        f.body_ops().map(|(_, op)| op.kind.name()).collect()
    }

    #[test]
    fn removes_dead_and_repeated_ops_and_keeps_the_rest() {
        let t = TensorType::new(DType::F32, [4]);
        let mut b = FunctionBuilder::new("main", &[t.clone(), t]);
        let (x, y) = (b.arg(0), b.arg(1));
        let dead = b.unary(UnaryOp::Exponential, x).unwrap();
        let _dead_too = b.binary(BinaryOp::Add, dead, y).unwrap();
        let s1 = b.binary(BinaryOp::Multiply, x, y).unwrap();
        let s2 = b.binary(BinaryOp::Multiply, x, y).unwrap();
        // Operands in the other order are another op (no commutativity assumed).
        let s3 = b.binary(BinaryOp::Multiply, y, x).unwrap();
        let c1 = b.constant(Literal::scalar(DType::F32, Scalar::Float(2.0)));
        let c2 = b.constant(Literal::scalar(DType::F32, Scalar::Float(2.0)));
        let c3 = b.constant(Literal::scalar(DType::F32, Scalar::Float(3.0)));
        let a = b.binary(BinaryOp::Add, s1, s2).unwrap();
        let a = b.binary(BinaryOp::Add, a, s3).unwrap();
        let k = b.binary(BinaryOp::Add, c1, c2).unwrap();
        let k = b.binary(BinaryOp::Add, k, c3).unwrap();
        let m = Module {
            functions: vec![b.finish(&[a, k])],
            ..Module::default()
        };
        let g = simplify(&m).unwrap();
        let f = &g.functions[0];
        assert_eq!(
            names(f),
            [
                "stablehlo.multiply",
                "stablehlo.multiply",
                "stablehlo.constant",
                "stablehlo.constant",
                "stablehlo.add",
                "stablehlo.add",
                "stablehlo.add",
                "stablehlo.add",
            ]
        );
        // The first sum adds one product to itself; the second, one constant to itself.
        let ops: Vec<&Op> = f.body_ops().map(|(_, op)| op).collect();
        assert_eq!(ops[4].operands, [ops[0].results[0], ops[0].results[0]]);
        assert_eq!(ops[6].operands, [ops[2].results[0], ops[2].results[0]]);
        assert!(matches!(ops[3].kind, OpKind::Constant(_)));
        // Nothing left to remove: the same function, ids included.
        assert_eq!(simplify(&g).unwrap(), g);
    }
}
