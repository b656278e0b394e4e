//! `stablehlo.reduce` in its general form: `N` inputs, `N` inits, any reducer body.
//!
//! Order: every result element starts from the inits and folds in the reduced positions
//! one at a time, in ascending row-major order of the reduced dimensions (taken in
//! increasing dimension number): `acc = body(acc..., x...)`. The result is the same as
//! running the body that way, bit for bit, whichever path computes it.
//!
//! Fast path: a body that is one binary op of its two arguments (`add`, `maximum`, ...,
//! in either order) on one input is folded with that op's table entry directly. Any other
//! body (argmax's compare/select pair, several inputs) runs through the interpreter once
//! per element.

use super::elementwise::{Lane, binary_fn};
use super::native::{Native, slice_of, with_native};
use super::{Env, Interp, InterpError, Site};
use shardc_ir::{BinaryOp, BlockId, Elements, Function, Literal, OpKind, TensorType};
use std::borrow::Cow;
use std::rc::Rc;

/// The reduce's layout: each input read as `[outputs, reduced]`, row-major.
struct Plan {
    /// Flat input indices in `[outputs, reduced]` order; `None` when the reduced
    /// dimensions are already the innermost ones.
    read: Option<Vec<usize>>,
    outputs: usize,
    reduced: usize,
}

fn plan(ty: &TensorType, dimensions: &[usize]) -> Plan {
    let kept: Vec<usize> = (0..ty.rank()).filter(|d| !dimensions.contains(d)).collect();
    let mut reduced_dims = dimensions.to_vec();
    reduced_dims.sort_unstable();
    let order: Vec<usize> = kept.iter().chain(&reduced_dims).copied().collect();
    let outputs = kept.iter().map(|&d| ty.shape[d]).product();
    let reduced = reduced_dims.iter().map(|&d| ty.shape[d]).product();
    let read = if order.iter().enumerate().all(|(i, &d)| i == d) {
        None
    } else {
        let strides = ty.strides();
        let shape: Vec<usize> = order.iter().map(|&d| ty.shape[d]).collect();
        let step: Vec<usize> = order.iter().map(|&d| strides[d]).collect();
        Some(super::layout::strided_indices(&shape, &step, 0))
    };
    Plan {
        read,
        outputs,
        reduced,
    }
}

/// If the body is `return op(arg0, arg1)` or `return op(arg1, arg0)` for one binary op,
/// that op and whether its operands are swapped (element first, accumulator second).
fn single_binary(f: &Function, body: BlockId) -> Option<(BinaryOp, bool)> {
    let block = f.block(body);
    let ([acc, x], [op_id], [result]) = (
        block.args.as_slice(),
        block.ops.as_slice(),
        block.results.as_slice(),
    ) else {
        return None;
    };
    let op = f.op(*op_id);
    let OpKind::Binary(b) = op.kind else {
        return None;
    };
    if op.results.as_slice() != [*result] || !op.regions.is_empty() {
        return None;
    }
    match op.operands.as_slice() {
        [l, r] if l == acc && r == x => Some((b, false)),
        [l, r] if l == x && r == acc => Some((b, true)),
        _ => None,
    }
}

pub(crate) fn reduce(
    interp: &mut Interp,
    site: &Site,
    operands: &[&Literal],
    dimensions: &[usize],
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let n = operands.len() / 2;
    let (inputs, inits) = operands.split_at(n);
    let body = site.op.regions[0];
    let out_types: Vec<TensorType> = site
        .op
        .results
        .iter()
        .map(|&r| site.f.ty(r).clone())
        .collect();
    let plan = plan(&inputs[0].ty, dimensions);
    if let (1, Some((op, swapped))) = (n, single_binary(site.f, body)) {
        let elements = with_native!(inputs[0].ty.dtype, T => {
            fold::<T>(site, op, swapped, &inputs[0].elements, inits[0], &plan)?
        });
        return Ok(vec![Literal {
            ty: out_types[0].clone(),
            elements,
        }]);
    }
    general(interp, site, inputs, inits, &plan, &out_types, env)
}

fn fold<T: Lane>(
    site: &Site,
    op: BinaryOp,
    swapped: bool,
    x: &Elements,
    init: &Literal,
    plan: &Plan,
) -> Result<Elements, InterpError> {
    let f = binary_fn::<T>(op).ok_or_else(|| site.unsupported_reducer(T::DTYPE, op))?;
    let xs = slice_of::<T>(x);
    let xs: Cow<[T]> = match &plan.read {
        Some(idx) => Cow::Owned(idx.iter().map(|&i| xs[i]).collect()),
        None => Cow::Borrowed(xs),
    };
    let init = slice_of::<T>(&init.elements)[0];
    let mut out = Vec::with_capacity(plan.outputs);
    for o in 0..plan.outputs {
        let row = &xs[o * plan.reduced..(o + 1) * plan.reduced];
        let acc = if swapped {
            row.iter().fold(init, |acc, &x| f(x, acc))
        } else {
            row.iter().fold(init, |acc, &x| f(acc, x))
        };
        out.push(acc);
    }
    Ok(T::wrap(out))
}

/// Runs the body once per reduced element.
fn general(
    interp: &mut Interp,
    site: &Site,
    inputs: &[&Literal],
    inits: &[&Literal],
    plan: &Plan,
    out_types: &[TensorType],
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let body = site.op.regions[0];
    let scalar = |x: &Literal, i: usize| {
        Rc::new(Literal {
            ty: TensorType::scalar(x.ty.dtype),
            elements: x.elements.gather(&[i]),
        })
    };
    let mut results: Vec<Vec<Rc<Literal>>> = vec![Vec::with_capacity(plan.outputs); inputs.len()];
    let mut args = Vec::with_capacity(2 * inputs.len());
    for o in 0..plan.outputs {
        let mut accs: Vec<Rc<Literal>> = inits.iter().map(|&init| Rc::new(init.clone())).collect();
        for r in 0..plan.reduced {
            let flat = o * plan.reduced + r;
            let i = plan.read.as_ref().map_or(flat, |idx| idx[flat]);
            args.clear();
            args.append(&mut accs);
            args.extend(inputs.iter().map(|x| scalar(x, i)));
            accs = interp.exec_block(site.f, body, &args, env)?;
        }
        for (result, acc) in results.iter_mut().zip(accs) {
            result.push(acc);
        }
    }
    Ok(results
        .into_iter()
        .zip(out_types)
        .map(|(scalars, ty)| Literal {
            ty: ty.clone(),
            elements: stack(ty, &scalars),
        })
        .collect())
}

/// One element from each scalar literal, in order.
fn stack(ty: &TensorType, scalars: &[Rc<Literal>]) -> Elements {
    with_native!(ty.dtype, T => T::wrap(scalars.iter().map(|s| slice_of::<T>(&s.elements)[0]).collect()))
}
