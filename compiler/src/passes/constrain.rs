//! Constraining: every per-op result sharding (`sdy.sharding` on an op) becomes an explicit
//! `sdy.sharding_constraint` on that result, so the op itself may run in any layout and
//! its value is then laid out as annotated (resharded if the op cannot produce it).
//! Consumers read the constrained value, as they would in JAX.

use crate::error::CompileError;
use shardc_ir::{Function, FunctionBuilder, Module, OpKind, ValueId};
use std::collections::HashMap;

/// The module with its entry function's op shardings turned into constraints.
pub fn constrain(m: &Module) -> Result<Module, CompileError> {
    let Some(f) = m.entry() else {
        return Ok(m.clone());
    };
    if f.body_ops().all(|(_, op)| op.shardings.is_none()) {
        return Ok(m.clone());
    }
    let g = constrain_function(f)?;
    Ok(m.with_function(g))
}

fn constrain_function(f: &Function) -> Result<Function, CompileError> {
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (_, op) in f.body_ops() {
        let results = b.copy_op(f, op, &mut map)?;
        let Some(shardings) = &op.shardings else {
            continue;
        };
        let last = shardc_ir::OpId::from_index(b.func().ops.len() - 1);
        b.op_mut(last).shardings = None;
        for ((&r, &new), s) in op.results.iter().zip(&results).zip(shardings) {
            let c = b.push1(OpKind::ShardingConstraint(s.clone()), &[new])?;
            map.insert(r, c);
        }
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}
