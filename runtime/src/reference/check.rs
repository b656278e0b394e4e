//! Checks a function or an op before it runs, so the kernels can trust shapes, dtypes and
//! attributes (and never index out of bounds): the arenas hold together, every op meets
//! its typing rule (`shardc_ir::infer`), reducers take and return the right scalars, and
//! calls match their callee's signature.

use super::{InterpError, Site};
use shardc_ir::{BlockId, Function, Literal, Module, Op, OpKind, TensorType, infer};

/// Every block, op and value id reachable from the body is in range, and no block is
/// reached twice (so walks over regions end).
pub(crate) fn check_structure(f: &Function) -> Result<(), InterpError> {
    if f.blocks.is_empty() {
        return Err(malformed(f, "it has no body block".to_string()));
    }
    let mut seen = vec![false; f.blocks.len()];
    seen[0] = true;
    check_block(f, Function::BODY, &mut seen)
}

/// The same for one op and its regions.
pub(crate) fn check_op_structure(f: &Function, op: &Op) -> Result<(), InterpError> {
    let mut seen = vec![false; f.blocks.len()];
    check_op_ids(f, op, &mut seen)
}

fn malformed(f: &Function, problem: String) -> InterpError {
    InterpError::MalformedFunction {
        func: f.name.clone(),
        problem,
    }
}

fn check_block(f: &Function, b: BlockId, seen: &mut [bool]) -> Result<(), InterpError> {
    let block = f.block(b);
    for &v in block.args.iter().chain(&block.results) {
        if v.index() >= f.values.len() {
            return Err(malformed(
                f,
                format!(
                    "block {b} uses value {v}, but there are {} values",
                    f.values.len()
                ),
            ));
        }
    }
    for &id in &block.ops {
        let Some(op) = f.ops.get(id.index()) else {
            return Err(malformed(
                f,
                format!("block {b} lists op {id}, but there are {} ops", f.ops.len()),
            ));
        };
        check_op_ids(f, op, seen)?;
    }
    Ok(())
}

fn check_op_ids(f: &Function, op: &Op, seen: &mut [bool]) -> Result<(), InterpError> {
    for &v in op.operands.iter().chain(&op.results) {
        if v.index() >= f.values.len() {
            return Err(malformed(
                f,
                format!(
                    "a {} op uses value {v}, but there are {} values",
                    op.kind.name(),
                    f.values.len()
                ),
            ));
        }
    }
    for &r in &op.regions {
        match seen.get_mut(r.index()) {
            None => {
                return Err(malformed(
                    f,
                    format!(
                        "a {} op has region {r}, but there are {} blocks",
                        op.kind.name(),
                        f.blocks.len()
                    ),
                ));
            }
            Some(true) => {
                return Err(malformed(
                    f,
                    format!(
                        "block {r} is reached twice (a {} op's region)",
                        op.kind.name()
                    ),
                ));
            }
            Some(s) => *s = true,
        }
        check_block(f, r, seen)?;
    }
    Ok(())
}

/// Checks a whole function's ops (its structure must be checked first).
pub(crate) fn check_function(m: &Module, f: &Function) -> Result<(), InterpError> {
    for (_, op) in f.body_ops() {
        check_op(m, f, op)?;
    }
    Ok(())
}

/// Checks one op, and the ops of its regions (its structure must be checked first).
pub(crate) fn check_op(m: &Module, f: &Function, op: &Op) -> Result<(), InterpError> {
    let site = Site { f, op };
    let operand_types: Vec<TensorType> = op.operands.iter().map(|&v| f.ty(v).clone()).collect();
    let result_types: Vec<TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
    infer::result_types(&op.kind, &operand_types, Some(&result_types))
        .map_err(|v| site.invalid(v.rule, v.fix))?;
    match &op.kind {
        OpKind::Reduce { .. } | OpKind::ReduceWindow(_) => {
            let [body] = op.regions.as_slice() else {
                return Err(site.invalid(
                    format!("needs exactly one reducer region, has {}", op.regions.len()),
                    "give one reducer",
                ));
            };
            check_reducer(&site, *body, &operand_types)?;
            for &id in &f.block(*body).ops {
                check_op(m, f, f.op(id))?;
            }
        }
        OpKind::Call { callee } => {
            let Some(g) = m.function(callee) else {
                return Err(InterpError::UnknownCallee {
                    at: site.at(),
                    callee: callee.clone(),
                });
            };
            if g.blocks.is_empty()
                || g.arg_types() != operand_types
                || g.result_types() != result_types
            {
                let show = |ts: &[TensorType]| {
                    ts.iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let callee_type = if g.blocks.is_empty() {
                    "no body".to_string()
                } else {
                    format!(
                        "type ({}) -> ({})",
                        show(&g.arg_types()),
                        show(&g.result_types())
                    )
                };
                return Err(site.invalid(
                    format!(
                        "the call has type ({}) -> ({}) but @{callee} has {callee_type}",
                        show(&operand_types),
                        show(&result_types)
                    ),
                    "match the callee's signature",
                ));
            }
        }
        OpKind::Constant(lit) => check_constant(&site, lit)?,
        OpKind::Scatter(_) => {
            let [body] = op.regions.as_slice() else {
                return Err(site.invalid(
                    format!(
                        "needs exactly one update computation, has {} region(s)",
                        op.regions.len()
                    ),
                    "give one update computation",
                ));
            };
            let n = op.results.len();
            let twice: Vec<TensorType> = operand_types[..n]
                .iter()
                .chain(&operand_types[..n])
                .cloned()
                .collect();
            check_reducer(&site, *body, &twice)?;
            for &id in &f.block(*body).ops {
                check_op(m, f, f.op(id))?;
            }
        }
        OpKind::SelectAndScatter(_) => {
            if op.regions.len() != 2 {
                return Err(site.invalid(
                    format!(
                        "needs a select and a scatter region, has {}",
                        op.regions.len()
                    ),
                    "give ({select}, {scatter})",
                ));
            }
            for &r in &op.regions {
                for &id in &f.block(r).ops {
                    check_op(m, f, f.op(id))?;
                }
            }
        }
        OpKind::Sort { .. } => {
            shardc_ir::verify::check_comparator(f, op).map_err(|v| site.invalid(v.rule, v.fix))?;
            for &id in &f.block(op.regions[0]).ops {
                check_op(m, f, f.op(id))?;
            }
        }
        OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. } => {
            let [body] = op.regions.as_slice() else {
                return Err(site.invalid(
                    format!("needs exactly one reducer region, has {}", op.regions.len()),
                    "give one reducer",
                ));
            };
            let s = TensorType::scalar(operand_types[0].dtype);
            check_reducer(&site, *body, &[s.clone(), s])?;
        }
        OpKind::ManualComputation { .. } => {
            shardc_ir::verify::check_manual_computation(m, f, op)
                .map_err(|v| site.invalid(v.rule, v.fix))?;
            for &id in &f.block(op.regions[0]).ops {
                check_op(m, f, f.op(id))?;
            }
        }
        OpKind::While | OpKind::Case => {
            shardc_ir::verify::check_control_flow(f, op)
                .map_err(|v| site.invalid(v.rule, v.fix))?;
            for &r in &op.regions {
                for &id in &f.block(r).ops {
                    check_op(m, f, f.op(id))?;
                }
            }
        }
        _ if !op.regions.is_empty() => {
            return Err(site.invalid(
                format!("takes no regions, but has {}", op.regions.len()),
                "remove the region",
            ));
        }
        _ => {}
    }
    Ok(())
}

fn check_constant(site: &Site, lit: &Literal) -> Result<(), InterpError> {
    let (n, len) = (lit.ty.num_elements(), lit.elements.len());
    if lit.elements.dtype() != lit.ty.dtype || (len != n && len != 1) {
        return Err(site.invalid(
            format!(
                "the constant holds {len} {} element(s) for {}",
                lit.elements.dtype(),
                lit.ty
            ),
            "give one element per position, or one for a splat, of the type's dtype",
        ));
    }
    Ok(())
}

/// The reducer takes `(acc_1..acc_N, x_1..x_N)` as scalars of the inputs' dtypes and
/// returns `N` such scalars.
fn check_reducer(
    site: &Site,
    body: BlockId,
    operand_types: &[TensorType],
) -> Result<(), InterpError> {
    let f = site.f;
    let n = operand_types.len() / 2;
    let scalars: Vec<TensorType> = operand_types[..n]
        .iter()
        .map(|t| TensorType::scalar(t.dtype))
        .collect();
    let want_args: Vec<TensorType> = scalars.iter().chain(&scalars).cloned().collect();
    let block = f.block(body);
    let args: Vec<TensorType> = block.args.iter().map(|&v| f.ty(v).clone()).collect();
    let results: Vec<TensorType> = block.results.iter().map(|&v| f.ty(v).clone()).collect();
    let show = |ts: &[TensorType]| {
        ts.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if args != want_args || results != scalars {
        return Err(site.invalid(
            format!(
                "the reducer has type ({}) -> ({}), but reducing these inputs needs ({}) -> ({})",
                show(&args),
                show(&results),
                show(&want_args),
                show(&scalars)
            ),
            "the reducer takes (accumulators..., elements...) as scalars and returns one scalar per input",
        ));
    }
    Ok(())
}

/// Checks a literal holds one element per position (or is a splat) of its own dtype.
pub(crate) fn check_literal(
    what: impl FnOnce() -> String,
    lit: &Literal,
) -> Result<(), InterpError> {
    let (n, len) = (lit.ty.num_elements(), lit.elements.len());
    if lit.elements.dtype() != lit.ty.dtype {
        return Err(InterpError::MalformedLiteral {
            what: what(),
            detail: format!(
                "its type is {} but its elements are {}",
                lit.ty,
                lit.elements.dtype()
            ),
        });
    }
    if len != n && len != 1 {
        return Err(InterpError::MalformedLiteral {
            what: what(),
            detail: format!("{} holds {n} element(s) but the literal has {len}", lit.ty),
        });
    }
    Ok(())
}
