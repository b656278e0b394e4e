//! Inlining: replaces every `func.call` in the entry function by the callee's body, so
//! propagation sees one function (calls have no sharding rule of their own).

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
        let mut inner: HashMap<ValueId, ValueId> = g
            .args()
            .iter()
            .copied()
            .zip(op.operands.iter().map(|v| map[v]))
            .collect();
        copy_body(m, g, b, &mut inner, depth + 1)?;
        for (r, gr) in op.results.iter().zip(g.results()) {
            map.insert(*r, inner[gr]);
        }
    }
    Ok(())
}
