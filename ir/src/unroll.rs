//! Loops whose bodies communicate, unrolled.
//!
//! A per-device program runs as compute segments and per-device ops (collectives),
//! which devices take part in together; a `while` whose body holds a collective runs as
//! steps of that program (the runtime's `engine::Control`), every device going round
//! together. A loop of a few iterations (`shard_map` ring attention: a `fori_loop` of
//! `ppermute`s over 8 devices; a step's micro-batches) may rather run unrolled: its body
//! copied once per iteration, so that later passes see every collective (to prefetch or
//! bucket it). That needs its trip count when compiling, which JAX's `fori_loop` and
//! `scan` give: a counter starting at a constant, compared `<` a constant, stepped by 1.
//! Loops that do not communicate are left as they are.

use crate::builder::FunctionBuilder;
use crate::dtype::TensorType;
use crate::error::IrError;
use crate::module::{BlockId, Function, ValueId};
use crate::op::{BinaryOp, ComparisonDirection, Op, OpKind};
use std::collections::HashMap;

/// More iterations than this are refused (the body would be copied that often).
pub const MAX_UNROLL: usize = 4096;

/// Whether `f` has a loop (or branch) whose regions hold per-device ops.
pub fn has_communicating_loops(f: &Function) -> bool {
    f.ops
        .iter()
        .any(|op| matches!(op.kind, OpKind::While | OpKind::Case) && communicates(f, &op.regions))
}

/// Whether the ops of `regions` (or of regions nested in them) include a per-device op.
pub fn communicates(f: &Function, regions: &[BlockId]) -> bool {
    regions.iter().any(|&r| {
        f.block(r).ops.iter().any(|&id| {
            let op = f.op(id);
            op.kind.is_per_device() || communicates(f, &op.regions)
        })
    })
}

/// `f` with every loop whose body communicates and whose trip count is known and at
/// most `up_to` unrolled (nested ones too); the other loops stay loops. `f` itself when it
/// has no such loop.
pub fn unroll_communicating_loops(f: &Function, up_to: usize) -> Result<Function, IrError> {
    if !has_communicating_loops(f) {
        return Ok(f.clone());
    }
    unroll_where(f, up_to, &|_, op| communicates(f, &op.regions))
}

/// `f` with every loop whose trip count is known and at most `up_to` unrolled (nested
/// ones too), but those of `keep`, which stay loops, as do loops of unknown trips: how
/// shardc differentiates a loop (`lax.fori_loop`, `lax.scan`), its body's ops then
/// differentiated one iteration after the other.
pub fn unroll_loops_but(
    f: &Function,
    up_to: usize,
    keep: &std::collections::HashSet<crate::module::OpId>,
) -> Result<Function, IrError> {
    unroll_where(f, up_to, &|id, _| !keep.contains(&id))
}

/// `f` with the loops `unrolls` picks unrolled, where their trip counts are known and at
/// most `up_to`.
fn unroll_where(
    f: &Function,
    up_to: usize,
    unrolls: &dyn Fn(crate::module::OpId, &Op) -> bool,
) -> Result<Function, IrError> {
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    copy_ops(f, &f.body().ops, &mut b, &mut map, up_to, unrolls)?;
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

fn copy_ops(
    f: &Function,
    ops: &[crate::module::OpId],
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    up_to: usize,
    unrolls: &dyn Fn(crate::module::OpId, &Op) -> bool,
) -> Result<(), IrError> {
    for &id in ops {
        let op = f.op(id);
        let short = || known_trip_count(f, op).is_some_and(|t| t <= up_to);
        // A branch that communicates runs as steps (`engine::Control::Switch`).
        if op.kind != OpKind::While || !unrolls(id, op) || !short() {
            b.copy_op(f, op, map)?;
            continue;
        }
        let trips = trip_count(f, op)?;
        let [_, body] = op.regions.as_slice() else {
            return Err(refused(
                f,
                op,
                "it has no body".into(),
                "give the loop a body",
            ));
        };
        let mut carried: Vec<ValueId> = op.written_operands().iter().map(|v| map[v]).collect();
        let block = f.block(*body);
        for _ in 0..trips {
            for (&arg, &v) in block.args.iter().zip(&carried) {
                map.insert(arg, v);
            }
            copy_ops(f, &block.ops, b, map, up_to, unrolls)?;
            carried = block.results.iter().map(|r| map[r]).collect();
        }
        for (&r, &v) in op.results.iter().zip(&carried) {
            map.insert(r, v);
        }
    }
    Ok(())
}

fn refused(f: &Function, op: &Op, rule: String, fix: &str) -> IrError {
    let at = op
        .results
        .first()
        .map(|&r| format!("{} in @{}", f.value_names()[r.index()], f.name))
        .unwrap_or_else(|| format!("an op in @{}", f.name));
    IrError::InvalidOp {
        at,
        op: op.kind.name(),
        rule,
        fix: fix.to_string(),
    }
}

/// The scalar integer constant `v` is, if it is one.
fn constant_int(f: &Function, v: ValueId) -> Option<i64> {
    let op = f.op(f.defining_op(v)?);
    match &op.kind {
        OpKind::Constant(lit) if lit.ty.num_elements() == 1 && lit.ty.dtype.is_int() => {
            Some(lit.get(0).as_i64())
        }
        _ => None,
    }
}

/// A loop's trip count when compiling, if it has one that [`unroll_communicating_loops`]
/// can read (a `fori_loop` with constant bounds, a `scan`).
pub fn known_trip_count(f: &Function, op: &Op) -> Option<usize> {
    trip_count(f, op).ok()
}

/// A loop's trip count: carried value `k` starts at constant `a`, the condition is
/// `k < c` for a constant `c`, and the body returns `k + 1`.
fn trip_count(f: &Function, op: &Op) -> Result<usize, IrError> {
    let unknown = || {
        refused(
            f,
            op,
            "its body communicates, so it runs unrolled, which needs a trip count known when compiling (a counter from a constant, `counter < constant`, stepped by 1: lax.fori_loop with constant bounds, lax.scan)".into(),
            "give the loop constant bounds, or move the collectives out of it",
        )
    };
    let [cond, body] = op.regions.as_slice() else {
        return Err(unknown());
    };
    let (cond, body) = (f.block(*cond), f.block(*body));
    let [done] = cond.results.as_slice() else {
        return Err(unknown());
    };
    let cmp = f.op(f.defining_op(*done).ok_or_else(unknown)?);
    let (arg, limit) = match (&cmp.kind, cmp.operands.as_slice()) {
        (
            OpKind::Compare {
                direction: ComparisonDirection::Lt,
                ..
            },
            &[x, c],
        ) => (x, c),
        (
            OpKind::Compare {
                direction: ComparisonDirection::Gt,
                ..
            },
            &[c, x],
        ) => (x, c),
        _ => return Err(unknown()),
    };
    let k = cond
        .args
        .iter()
        .position(|&a| a == arg)
        .ok_or_else(unknown)?;
    let limit = constant_int(f, limit).ok_or_else(unknown)?;
    let start = op
        .written_operands()
        .get(k)
        .and_then(|&v| constant_int(f, v))
        .ok_or_else(unknown)?;
    // The body steps the counter by one.
    let next = f.op(f.defining_op(body.results[k]).ok_or_else(unknown)?);
    let steps_by_one = matches!(next.kind, OpKind::Binary(BinaryOp::Add))
        && match next.operands.as_slice() {
            &[x, y] => {
                let one = |v| constant_int(f, v) == Some(1);
                (x == body.args[k] && one(y)) || (y == body.args[k] && one(x))
            }
            _ => false,
        };
    if !steps_by_one {
        return Err(unknown());
    }
    let trips = usize::try_from(limit.saturating_sub(start)).unwrap_or(0);
    if trips > MAX_UNROLL {
        return Err(refused(
            f,
            op,
            format!(
                "its body communicates and runs unrolled, but it runs {trips} times (at most {MAX_UNROLL} are unrolled)"
            ),
            "run fewer iterations, or move the collectives out of the loop",
        ));
    }
    Ok(trips)
}

/// The function a region is: its block arguments and then `captured` (the values from
/// outside it that it reads, as its op lists them: none for a manual computation's body,
/// a loop's captured operands for its regions) as arguments, its ops, its returned values.
pub fn region_function(
    f: &Function,
    region: BlockId,
    name: &str,
    captured: &[ValueId],
) -> Result<Function, IrError> {
    let block = f.block(region);
    let args: Vec<ValueId> = block.args.iter().chain(captured).copied().collect();
    let types: Vec<TensorType> = args.iter().map(|&a| f.ty(a).clone()).collect();
    let mut b = FunctionBuilder::new(name, &types);
    let mut map: HashMap<ValueId, ValueId> = args.iter().copied().zip(b.args()).collect();
    for &id in &block.ops {
        b.copy_op(f, f.op(id), &mut map)?;
    }
    let results: Vec<ValueId> = block.results.iter().map(|r| map[r]).collect();
    Ok(b.finish(&results))
}
