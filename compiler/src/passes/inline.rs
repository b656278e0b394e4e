//! Inlining: replaces every `func.call` in the entry function by the callee's body, so
//! propagation sees one function (calls have no sharding rule of their own), also inside
//! the regions of loops and branches (JAX calls a loop body's function there). A callee's
//! argument and result shardings become sharding constraints on the call's operands and
//! results (as a jitted function called inside another one constrains its values in JAX).

use crate::error::CompileError;
use shardc_ir::{Function, FunctionBuilder, Module, Op, OpId, OpKind, TensorType, ValueId};
use std::collections::HashMap;

/// Calls nested deeper than this are refused (a limit on the program, not recursion:
/// a cycle of calls is found and named whatever its depth).
const MAX_DEPTH: usize = 1024;

/// The module with its entry function's calls inlined and the callees dropped.
pub fn inline(m: &Module) -> Result<Module, CompileError> {
    let f = m.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to compile".into(),
    })?;
    if !f.ops.iter().any(|o| matches!(o.kind, OpKind::Call { .. })) {
        return Ok(Module {
            functions: vec![f.clone()],
            ..m.clone()
        });
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
    Ok(Module {
        functions: vec![g],
        ..m.clone()
    })
}

/// Copies the ops `ops` of `f` into `b`, inlining calls (in regions too).
fn copy_ops(
    m: &Module,
    f: &Function,
    ops: &[OpId],
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    stack: &mut Vec<String>,
) -> Result<(), CompileError> {
    for &id in ops {
        let op = f.op(id);
        let OpKind::Call { callee } = &op.kind else {
            if op.regions.is_empty() {
                b.copy_op(f, op, map)?;
            } else {
                copy_region_op(m, f, op, b, map, stack)?;
            }
            continue;
        };
        let g = m
            .function(callee)
            .ok_or_else(|| CompileError::Unsupported {
                what: format!("a call of @{callee}"),
                why: "the module does not define it".into(),
            })?;
        if let Some(start) = stack.iter().position(|s| s == callee) {
            let cycle: Vec<String> = stack[start..]
                .iter()
                .chain([callee])
                .map(|s| format!("@{s}"))
                .collect();
            return Err(CompileError::Unsupported {
                what: format!("a recursive call: {}", cycle.join(" calls ")),
                why: "StableHLO has no recursion; write the repetition as a loop or unroll it"
                    .into(),
            });
        }
        if stack.len() >= MAX_DEPTH {
            return Err(CompileError::Unsupported {
                what: format!(
                    "calls nested {} deep (from @{} down to @{callee})",
                    stack.len(),
                    stack[0]
                ),
                why: format!(
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

/// Copies an op with regions, inlining the calls in its regions; a loop's or a case's
/// captured operands are listed anew from its copied regions.
fn copy_region_op(
    m: &Module,
    f: &Function,
    op: &Op,
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    stack: &mut Vec<String>,
) -> Result<(), CompileError> {
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
    sharding: Option<&shardc_ir::Sharding>,
) -> Result<ValueId, CompileError> {
    match sharding {
        Some(s) => Ok(b.push1(OpKind::ShardingConstraint(s.clone()), &[x])?),
        None => Ok(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    /// `@f0` calls `@f1` ... calls `@f{n-1}`, which negates; `last` names what the last
    /// one calls instead (a cycle), if anything.
    fn chain(n: usize, last: Option<&str>) -> String {
        let t = "tensor<4xf32>";
        let mut s = String::new();
        for i in 0..n {
            let vis = if i == 0 { "" } else { "private " };
            let body = match (i + 1 < n, last) {
                (true, _) => format!("%0 = func.call @f{}(%x) : ({t}) -> {t}", i + 1),
                (false, Some(c)) => format!("%0 = func.call @{c}(%x) : ({t}) -> {t}"),
                (false, None) => format!("%0 = stablehlo.negate %x : {t}"),
            };
            s.push_str(&format!(
                "func.func {vis}@f{i}(%x: {t}) -> {t} {{\n  {body}\n  return %0 : {t}\n}}\n"
            ));
        }
        s
    }

    #[test]
    fn a_deep_call_chain_inlines() {
        let m = parse_module(&chain(70, None)).unwrap();
        let out = inline(&m).unwrap();
        assert_eq!(out.functions.len(), 1);
        assert_eq!(out.functions[0].ops.len(), 1);
    }

    #[test]
    fn a_cycle_of_calls_is_named() {
        let m = parse_module(&chain(3, Some("f1")));
        // The verifier may refuse the cycle first; either way the cycle is named.
        let msg = match m {
            Err(e) => e.to_string(),
            Ok(m) => inline(&m).unwrap_err().to_string(),
        };
        assert!(msg.contains("@f1 calls @f2 calls @f1"), "{msg}");
    }
}
