//! Inlining: every `func.call` of a function replaced by the callee's body (also inside
//! the regions of loops and branches, where JAX calls a loop body's function), and every
//! `case` whose index is a constant by the branch it takes. A callee's
//! argument and result shardings become sharding constraints on the call's operands and
//! results (as a jitted function called inside another one constrains its values in JAX).
//! The compiler inlines before propagation (calls have no sharding rule); the reference
//! interpreter inlines a shard_map body before running it per device.

use crate::builder::FunctionBuilder;
use crate::dtype::TensorType;
use crate::error::IrError;
use crate::module::{Function, Module, OpId, ValueId};
use crate::op::{Op, OpKind};
use std::collections::HashMap;

/// Calls nested deeper than this are refused (a limit on the program, not recursion:
/// a cycle of calls is found and named whatever its depth).
const MAX_DEPTH: usize = 1024;

/// `f` with every call inlined (in regions too); `f` itself when it has none. `m` holds the
/// callees.
pub fn inline_calls(m: &Module, f: &Function) -> Result<Function, IrError> {
    if !f
        .ops
        .iter()
        .any(|o| matches!(o.kind, OpKind::Call { .. } | OpKind::Case))
    {
        return Ok(f.clone());
    }
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    copy_ops(
        m,
        f,
        &f.body().ops,
        &mut b,
        &mut map,
        &mut vec![f.name.clone()],
    )?;
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

/// Copies the ops `ops` of `f` into `b`, inlining calls (in regions too).
fn copy_ops(
    m: &Module,
    f: &Function,
    ops: &[OpId],
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    stack: &mut Vec<String>,
) -> Result<(), IrError> {
    for &id in ops {
        let op = f.op(id);
        if let Some(branch) = taken_branch(b, op, map) {
            // A case whose index is a constant: the branch it takes, inlined.
            let block = f.block(branch);
            copy_ops(m, f, &block.ops, b, map, stack)?;
            for (r, v) in op.results.iter().zip(&block.results) {
                map.insert(*r, map[v]);
            }
            continue;
        }
        let OpKind::Call { callee } = &op.kind else {
            if op.regions.is_empty() {
                b.copy_op(f, op, map)?;
            } else {
                copy_region_op(m, f, op, b, map, stack)?;
            }
            continue;
        };
        let g = m.function(callee).ok_or_else(|| IrError::UnknownFunction {
            at: format!("a call in @{}", f.name),
            callee: callee.clone(),
        })?;
        if let Some(start) = stack.iter().position(|s| s == callee) {
            let cycle: Vec<String> = stack[start..]
                .iter()
                .chain([callee])
                .map(|s| format!("@{s}"))
                .collect();
            return Err(IrError::InvalidFunction {
                at: format!("a recursive call: {}", cycle.join(" calls ")),
                rule: "StableHLO has no recursion; write the repetition as a loop or unroll it"
                    .into(),
            });
        }
        if stack.len() >= MAX_DEPTH {
            return Err(IrError::InvalidFunction {
                at: format!(
                    "calls nested {} deep (from @{} down to @{callee})",
                    stack.len(),
                    stack[0]
                ),
                rule: format!(
                    "shardc inlines calls nested at most {MAX_DEPTH} deep; flatten the call chain"
                ),
            });
        }
        let mut inner: HashMap<ValueId, ValueId> = HashMap::new();
        for ((&a, attrs), v) in g.args().iter().zip(&g.arg_attrs).zip(&op.operands) {
            inner.insert(a, constrained(b, map[v], attrs.sharding.as_ref())?);
        }
        stack.push(callee.clone());
        copy_ops(m, g, &g.body().ops, b, &mut inner, stack)?;
        stack.pop();
        for ((r, gr), attrs) in op.results.iter().zip(g.results()).zip(&g.result_attrs) {
            map.insert(*r, constrained(b, inner[gr], attrs.sharding.as_ref())?);
        }
    }
    Ok(())
}

/// The branch a `case` takes when its index is a constant (an out-of-range index takes the
/// last branch, as StableHLO's spec says): a multi-platform `jax.export` compiled for one
/// platform branches on its index, folded to a constant.
fn taken_branch(
    b: &FunctionBuilder,
    op: &Op,
    map: &HashMap<ValueId, ValueId>,
) -> Option<crate::module::BlockId> {
    if !matches!(op.kind, OpKind::Case) {
        return None;
    }
    let index = *map.get(op.operands.first()?)?;
    let def = b.func().defining_op(index)?;
    let OpKind::Constant(lit) = &b.func().op(def).kind else {
        return None;
    };
    if !lit.ty.shape.is_empty() {
        return None;
    }
    let i = lit.get(0).as_i64();
    let n = op.regions.len();
    let at = usize::try_from(i).ok().filter(|&i| i < n).unwrap_or(n - 1);
    op.regions.get(at).copied()
}

/// Copies an op with regions, inlining the calls in its regions; a loop's or a case's
/// captured operands are listed anew from its copied regions.
fn copy_region_op(
    m: &Module,
    f: &Function,
    op: &Op,
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    stack: &mut Vec<String>,
) -> Result<(), IrError> {
    let mut regions = Vec::with_capacity(op.regions.len());
    for &r in &op.regions {
        let block = f.block(r);
        let types: Vec<TensorType> = block.args.iter().map(|&a| f.ty(a).clone()).collect();
        let args = b.begin_block(&types);
        map.extend(block.args.iter().copied().zip(args));
        if let Err(e) = copy_ops(m, f, &block.ops, b, map, stack) {
            b.end_block(&[]);
            return Err(e);
        }
        let results: Vec<ValueId> = block.results.iter().map(|v| map[v]).collect();
        regions.push(b.end_block(&results));
    }
    let operands: Vec<ValueId> = op.written_operands().iter().map(|v| map[v]).collect();
    let types: Vec<TensorType> = op.results.iter().map(|&r| f.ty(r).clone()).collect();
    let id = b.push_region_op(op.kind.clone(), &operands, Some(&types), regions)?;
    let copied = b.op_mut(id);
    copied.shardings = op.shardings.clone();
    copied.attrs = op.attrs.clone();
    let new = copied.results.clone();
    map.extend(op.results.iter().copied().zip(new));
    Ok(())
}

/// `x`, constrained to `sharding` if there is one.
fn constrained(
    b: &mut FunctionBuilder,
    x: ValueId,
    sharding: Option<&crate::sharding::Sharding>,
) -> Result<ValueId, IrError> {
    match sharding {
        Some(s) => Ok(b.push1(OpKind::ShardingConstraint(s.clone()), &[x])?),
        None => Ok(x),
    }
}

/// The module as MLIR's verifier can read it with unregistered dialects: MLIR takes an
/// unregistered op with one region (a `sdy.manual_computation`, a `case` with one branch)
/// for a possible symbol table and then finds no callee for a `func.call` inside it, so
/// the entry function's calls are inlined when one sits there; the module as it is
/// otherwise.
pub fn for_mlir(m: &Module) -> Result<Module, IrError> {
    let Some(f) = m.entry() else {
        return Ok(m.clone());
    };
    let calls_in = |ops: &[OpId]| {
        ops.iter()
            .any(|&i| matches!(f.op(i).kind, OpKind::Call { .. }))
    };
    let hidden = f.ops.iter().any(|op| {
        op.regions.len() == 1
            && op.regions.iter().any(|&r| {
                let b = f.block(r);
                calls_in(&b.ops)
                    || b.ops
                        .iter()
                        .any(|&i| f.op(i).regions.iter().any(|&rr| calls_in(&f.block(rr).ops)))
            })
    });
    if !hidden {
        return Ok(m.clone());
    }
    Ok(m.with_function(inline_calls(m, f)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    /// `case` on index `i`: branch 0 negates, branch 1 doubles.
    fn on_constant(i: i32) -> Module {
        parse_module(&format!(
            r#"
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %i = stablehlo.constant dense<{i}> : tensor<i32>
  %0 = "stablehlo.case"(%i) ({{
    %n = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }}, {{
    %d = stablehlo.add %x, %x : tensor<4xf32>
    stablehlo.return %d : tensor<4xf32>
  }}) : (tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}}
"#
        ))
        .unwrap()
    }

    fn kinds(f: &Function) -> Vec<String> {
        f.body_ops().map(|(_, op)| op.kind.name()).collect()
    }

    #[test]
    fn a_case_on_a_constant_is_the_branch_it_takes() {
        for (i, op) in [
            (0, "stablehlo.negate"),
            (1, "stablehlo.add"),
            (7, "stablehlo.add"),
            (-1, "stablehlo.add"),
        ] {
            let m = on_constant(i);
            let g = inline_calls(&m, m.entry().unwrap()).unwrap();
            assert_eq!(kinds(&g), ["stablehlo.constant", op], "index {i}");
            crate::verify::verify_function(&m, &g).unwrap();
        }
    }
}
