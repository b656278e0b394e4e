//! Inlining: replaces every `func.call` in the entry function by the callee's body, so
//! propagation sees one function (calls have no sharding rule of their own). A callee's
//! argument and result shardings become sharding constraints on the call's operands and
//! results (as a jitted function called inside another one constrains its values in JAX).

use crate::error::CompileError;
use shardc_ir::{Function, FunctionBuilder, Module, OpKind, ValueId};
use std::collections::HashMap;

/// Calls nested deeper than this are taken for recursion, which StableHLO forbids.
const MAX_DEPTH: usize = 64;

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
    copy_body(m, f, &mut b, &mut map, 0)?;
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(Module {
        functions: vec![g],
        ..m.clone()
    })
}

fn copy_body(
    m: &Module,
    f: &Function,
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    depth: usize,
) -> Result<(), CompileError> {
    for (_, op) in f.body_ops() {
        let OpKind::Call { callee } = &op.kind else {
            b.copy_op(f, op, map)?;
            continue;
        };
        let g = m
            .function(callee)
            .ok_or_else(|| CompileError::Unsupported {
                what: format!("a call of @{callee}"),
                why: "the module does not define it".into(),
            })?;
        if depth >= MAX_DEPTH {
            return Err(CompileError::Unsupported {
                what: format!("calls nested {MAX_DEPTH} deep (at @{callee})"),
                why: "recursion is not allowed in StableHLO".into(),
            });
        }
        let mut inner: HashMap<ValueId, ValueId> = HashMap::new();
        for ((&a, attrs), v) in g.args().iter().zip(&g.arg_attrs).zip(&op.operands) {
            inner.insert(a, constrained(b, map[v], attrs.sharding.as_ref())?);
        }
        copy_body(m, g, b, &mut inner, depth + 1)?;
        for ((r, gr), attrs) in op.results.iter().zip(g.results()).zip(&g.result_attrs) {
            map.insert(*r, constrained(b, inner[gr], attrs.sharding.as_ref())?);
        }
    }
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
