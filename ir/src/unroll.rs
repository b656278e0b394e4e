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
use crate::op::{BinaryOp, ComparisonDirection, Op, OpKind, UnaryOp};
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

/// The scalar integer constant `v` is, if it is one: a constant, or the sum, difference
/// or product of two (JAX writes a prompt's length plus an offset so, unfolded).
fn constant_int(f: &Function, v: ValueId) -> Option<i64> {
    f.ty(v)
        .dtype
        .is_int()
        .then(|| constant_scalar(f, v))
        .flatten()
}

/// The value of scalar `v` when compiling, of any integer or boolean type: a constant, its
/// broadcast to a scalar, or the sum, difference or product of two.
fn constant_scalar(f: &Function, v: ValueId) -> Option<i64> {
    let op = f.op(f.defining_op(v)?);
    let pair = || match op.operands.as_slice() {
        &[a, b] => Some((constant_scalar(f, a)?, constant_scalar(f, b)?)),
        _ => None,
    };
    match &op.kind {
        OpKind::Constant(lit) if lit.ty.num_elements() == 1 && !lit.ty.dtype.is_float() => {
            Some(lit.get(0).as_i64())
        }
        OpKind::BroadcastInDim { .. } if f.ty(v).num_elements() == 1 => {
            constant_scalar(f, *op.operands.first()?)
        }
        OpKind::Binary(BinaryOp::Add) => pair().and_then(|(a, b)| a.checked_add(b)),
        OpKind::Binary(BinaryOp::Subtract) => pair().and_then(|(a, b)| a.checked_sub(b)),
        OpKind::Binary(BinaryOp::Multiply) => pair().and_then(|(a, b)| a.checked_mul(b)),
        _ => None,
    }
}

/// The most trips loop `op` of `f` can make, when compiling: its trip count when known
/// ([`known_trip_count`]), else the limit of a counter among the conjuncts of its
/// condition — `!(k == c || all_done)`, as transformers' `generate` writes its decoding
/// loop, runs at most `c - start` times and fewer when it ends early.
pub fn trip_bound(f: &Function, op: &Op) -> Option<usize> {
    if let Some(n) = known_trip_count(f, op) {
        return Some(n);
    }
    let cond = f.block(*op.regions.first()?);
    let &[done] = cond.results.as_slice() else {
        return None;
    };
    let mut tests = Vec::new();
    conjuncts(f, done, true, &mut tests);
    tests
        .into_iter()
        .filter_map(|(k, limit)| {
            let k = cond.args.iter().position(|&a| a == k)?;
            counter_trips(f, op, k, constant_int(f, limit)?)
        })
        .min()
}

/// The counter tests `k < limit` (also written `limit > k`, `k != limit`, `!(k >= limit)`,
/// `!(k == limit)`) that `v` holds only when all hold (`holds`) or that its negation holds
/// only when all hold (`!holds`), as `(k, limit)`.
fn conjuncts(f: &Function, v: ValueId, holds: bool, out: &mut Vec<(ValueId, ValueId)>) {
    use ComparisonDirection::*;
    let Some(id) = f.defining_op(v) else {
        return;
    };
    let op = f.op(id);
    let is_false =
        |v: ValueId| f.ty(v).dtype == crate::DType::I1 && constant_scalar(f, v) == Some(0);
    match (&op.kind, op.operands.as_slice(), holds) {
        (OpKind::Unary(UnaryOp::Not), &[x], _) => conjuncts(f, x, !holds, out),
        (OpKind::Convert, &[x], _) if f.ty(x).dtype == f.ty(v).dtype => conjuncts(f, x, holds, out),
        (OpKind::Binary(BinaryOp::And), &[a, b], true)
        | (OpKind::Binary(BinaryOp::Or), &[a, b], false) => {
            conjuncts(f, a, holds, out);
            conjuncts(f, b, holds, out);
        }
        (OpKind::Compare { direction, .. }, &[x, y], _) => match (direction, holds) {
            // `x != false` is `x`.
            (Ne, _) if f.ty(x).dtype == crate::DType::I1 && is_false(y) => {
                conjuncts(f, x, holds, out)
            }
            (Lt, true) | (Ne, true) | (Ge, false) | (Eq, false) => out.push((x, y)),
            (Gt, true) => out.push((y, x)),
            _ => {}
        },
        _ => {}
    }
}

/// The trips of carried value `k` of loop `op` counted by one from a constant up to
/// `limit`, when the body steps it so.
fn counter_trips(f: &Function, op: &Op, k: usize, limit: i64) -> Option<usize> {
    let body = f.block(*op.regions.get(1)?);
    let start = constant_int(f, *op.written_operands().get(k)?)?;
    let next = f.op(f.defining_op(*body.results.get(k)?)?);
    let one = |v| constant_int(f, v) == Some(1);
    let steps_by_one = matches!(next.kind, OpKind::Binary(BinaryOp::Add))
        && match next.operands.as_slice() {
            &[x, y] => (x == body.args[k] && one(y)) || (y == body.args[k] && one(x)),
            _ => false,
        };
    steps_by_one.then(|| usize::try_from(limit.saturating_sub(start)).unwrap_or(0))
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
    let [cond, _body] = op.regions.as_slice() else {
        return Err(unknown());
    };
    let cond = f.block(*cond);
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
    // The body steps the counter by one, from a constant.
    let trips = counter_trips(f, op, k, limit).ok_or_else(unknown)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Module;

    /// The loop of `cond` (over `%i` from `start`, `%done`) stepping `%i` by one.
    fn loop_with(start: &str, cond: &str) -> Module {
        crate::text::parse_module(&format!(
            r#"func.func @main(%d: tensor<i1>) -> tensor<i32> {{
  %a = stablehlo.constant dense<3> : tensor<i32>
  %b = stablehlo.constant dense<2> : tensor<i32>
  %s = {start}
  %r:2 = stablehlo.while(%i = %s, %done = %d) : tensor<i32>, tensor<i1>
    cond {{
      %n = stablehlo.constant dense<12> : tensor<i32>
      %f = stablehlo.constant dense<false> : tensor<i1>
{cond}
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %done : tensor<i32>, tensor<i1>
    }}
  return %r#0 : tensor<i32>
}}"#
        ))
        .unwrap()
    }

    fn bounds(m: &Module) -> (Option<usize>, Option<usize>) {
        let f = m.entry().unwrap();
        let (_, op) = f.body_ops().find(|(_, o)| o.kind == OpKind::While).unwrap();
        (known_trip_count(f, op), trip_bound(f, op))
    }

    #[test]
    fn a_counter_among_a_conditions_conjuncts_bounds_its_trips() {
        // `i < 12` from 3 + 2: a known count, whatever arithmetic made its start.
        let plain = loop_with(
            "stablehlo.add %a, %b : tensor<i32>",
            "      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      stablehlo.return %p : tensor<i1>",
        );
        assert_eq!(bounds(&plain), (Some(7), Some(7)));
        // transformers' generate: `!((i == 12) != false || done)`: at most 12 - 5 trips.
        let generate = loop_with(
            "stablehlo.add %a, %b : tensor<i32>",
            "      %e = stablehlo.compare EQ, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      %x = stablehlo.compare NE, %e, %f : (tensor<i1>, tensor<i1>) -> tensor<i1>\n      %o = stablehlo.or %x, %done : tensor<i1>\n      %p = stablehlo.not %o : tensor<i1>\n      stablehlo.return %p : tensor<i1>",
        );
        assert_eq!(bounds(&generate), (None, Some(7)));
        // `i < 12 || done` bounds nothing: `done` alone keeps it going.
        let either = loop_with(
            "stablehlo.add %a, %b : tensor<i32>",
            "      %e = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      %p = stablehlo.or %e, %done : tensor<i1>\n      stablehlo.return %p : tensor<i1>",
        );
        assert_eq!(bounds(&either), (None, None));
        // `done && i < 12`: at most 7.
        let both = loop_with(
            "stablehlo.add %a, %b : tensor<i32>",
            "      %e = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      %p = stablehlo.and %done, %e : tensor<i1>\n      stablehlo.return %p : tensor<i1>",
        );
        assert_eq!(bounds(&both), (None, Some(7)));
    }
}
