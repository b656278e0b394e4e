//! `stablehlo.reduce` in its general form: `N` inputs, `N` inits, any reducer body.
//!
//! Order: every result element starts from the inits and folds in the reduced positions
//! one at a time, in ascending row-major order of the reduced dimensions (taken in
//! increasing dimension number): `acc = body(acc..., x...)`. The result is the same as
//! running the body that way, bit for bit, whichever path computes it — except that the
//! fast path's accumulator for bf16 and f16 values is f32 (below).
//!
//! Fast path: a body that is one binary op of its two arguments (`add`, `maximum`, ...,
//! in either order) on one input is folded with that op's table entry directly. On
//! bf16 and f16 inputs it folds in f32 and rounds each result once, as XLA's CPU and GPU
//! backends do (so JAX's outputs of a raw half-precision `reduce` are matched; folding in
//! the element type, a bf16 sum stops growing at 2^8 times its terms). Any other
//! body (argmax's compare/select pair, several inputs) runs through the interpreter once
//! per element.

use super::convert::convert;
use super::elementwise::{FoldShape, Lane};
use super::native::{Native, slice_of, with_native};
use super::{Env, Interp, InterpError, Site};
use shardc_ir::{BinaryOp, BlockId, DType, Elements, Function, Literal, OpKind, TensorType};
use std::borrow::Cow;
use std::rc::Rc;

/// How the inputs' elements line up with (output, reduced position) pairs.
enum Layout {
    /// Stored as `[outputs, reduced]`: the reduced dimensions are the innermost.
    Rows,
    /// Stored as `[reduced, outputs]`: the reduced dimensions are the outermost.
    Columns,
    /// Neither: these flat indices read the input in `[outputs, reduced]` order.
    Gathered(Vec<usize>),
}

struct Plan {
    layout: Layout,
    outputs: usize,
    reduced: usize,
}

impl Plan {
    fn new(ty: &TensorType, dimensions: &[usize]) -> Plan {
        let kept: Vec<usize> = (0..ty.rank()).filter(|d| !dimensions.contains(d)).collect();
        let mut reduced_dims = dimensions.to_vec();
        reduced_dims.sort_unstable();
        let outputs = kept.iter().map(|&d| ty.shape[d]).product();
        let reduced = reduced_dims.iter().map(|&d| ty.shape[d]).product();
        let is_identity = |order: &[usize]| order.iter().enumerate().all(|(i, &d)| i == d);
        let rows: Vec<usize> = kept.iter().chain(&reduced_dims).copied().collect();
        let columns: Vec<usize> = reduced_dims.iter().chain(&kept).copied().collect();
        let layout = if is_identity(&rows) {
            Layout::Rows
        } else if is_identity(&columns) {
            Layout::Columns
        } else {
            let strides = ty.strides();
            let shape: Vec<usize> = rows.iter().map(|&d| ty.shape[d]).collect();
            let step: Vec<usize> = rows.iter().map(|&d| strides[d]).collect();
            Layout::Gathered(super::layout::strided_indices(&shape, &step, 0))
        };
        Plan {
            layout,
            outputs,
            reduced,
        }
    }

    /// The flat input index of reduced position `r` of output `o`.
    fn index(&self, o: usize, r: usize) -> usize {
        match &self.layout {
            Layout::Rows => o * self.reduced + r,
            Layout::Columns => r * self.outputs + o,
            Layout::Gathered(idx) => idx[o * self.reduced + r],
        }
    }
}

/// If the body is `return op(arg0, arg1)` or `return op(arg1, arg0)` for one binary op,
/// that op and whether its operands are swapped (element first, accumulator second).
pub fn single_binary(f: &Function, body: BlockId) -> Option<(BinaryOp, bool)> {
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
    let plan = Plan::new(&inputs[0].ty, dimensions);
    if let (1, Some((op, swapped))) = (n, single_binary(site.f, body)) {
        let folded = fold_literal(
            site,
            (op, swapped),
            inputs[0],
            inits[0],
            &plan,
            &out_types[0],
        );
        return Ok(vec![folded?]);
    }
    general(interp, site, inputs, inits, &plan, &out_types, env)
}

/// `x` folded by one binary op into a literal of type `out`. Half-precision values are
/// accumulated in f32 and each result rounded once, as XLA's CPU and GPU backends reduce
/// them (a bf16 running sum of 4,096 ones would stop at 256).
fn fold_literal(
    site: &Site,
    (op, swapped): (BinaryOp, bool),
    x: &Literal,
    init: &Literal,
    plan: &Plan,
    out: &TensorType,
) -> Result<Literal, InterpError> {
    if matches!(x.ty.dtype, DType::BF16 | DType::F16) {
        let wide = |l: &Literal| convert(l, &TensorType::new(DType::F32, l.ty.shape.clone()));
        let (x, init) = (wide(x), wide(init));
        let folded = Literal {
            ty: TensorType::new(DType::F32, out.shape.clone()),
            elements: fold::<f32>(site, op, swapped, &x.elements, &init, plan)?,
        };
        return Ok(convert(&folded, out));
    }
    let elements = with_native!(x.ty.dtype, T => {
        fold::<T>(site, op, swapped, &x.elements, init, plan)?
    });
    Ok(Literal {
        ty: out.clone(),
        elements,
    })
}

fn fold<T: Lane>(
    site: &Site,
    op: BinaryOp,
    swapped: bool,
    x: &Elements,
    init: &Literal,
    plan: &Plan,
) -> Result<Elements, InterpError> {
    let xs = slice_of::<T>(x);
    let xs: Cow<[T]> = match &plan.layout {
        Layout::Gathered(idx) => Cow::Owned(idx.iter().map(|&i| xs[i]).collect()),
        Layout::Rows | Layout::Columns => Cow::Borrowed(xs),
    };
    let shape = FoldShape {
        outputs: plan.outputs,
        reduced: plan.reduced,
        columns: matches!(plan.layout, Layout::Columns),
        swapped,
    };
    let init = slice_of::<T>(&init.elements)[0];
    let folded = T::fold(op, &xs, shape, init);
    Ok(T::wrap(
        folded.ok_or_else(|| site.unsupported_reducer(T::DTYPE, op))?,
    ))
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
            let i = plan.index(o, r);
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

/// `stablehlo.reduce_window` as StableHLO defines it: the input padded with the init
/// value (`padding`, and `base_dilations - 1` between elements), then every window of
/// the padded input reduced as `reduce` folds (the window's positions in row-major
/// order, from the init). It gathers each output's window into a row (padding reads the
/// init) and folds the rows.
pub(crate) fn reduce_window(
    interp: &mut Interp,
    site: &Site,
    x: &Literal,
    init: &Literal,
    w: &shardc_ir::WindowDims,
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let out_ty = site.f.ty(site.op.results[0]).clone();
    let shape = &x.ty.shape;
    let strides = x.ty.strides();
    let outputs = out_ty.num_elements();
    let reduced: usize = w.window.iter().product();
    let pad_index = x.ty.num_elements();
    let mut indices = Vec::with_capacity(outputs * reduced);
    let out_strides = out_ty.strides();
    let win_ty = TensorType::new(x.ty.dtype, w.window.clone());
    let win_strides = win_ty.strides();
    for o in 0..outputs {
        for k in 0..reduced {
            let mut flat = 0usize;
            let mut inside = true;
            for d in 0..shape.len() {
                let od = (o / out_strides[d]) % out_ty.shape[d].max(1);
                let kd = (k / win_strides[d]) % w.window[d];
                let p = (od * w.strides[d] + kd * w.window_dilations[d]) as i64 - w.padding[d].0;
                let bd = w.base_dilations[d] as i64;
                let extent = (shape[d] as i64 - 1) * bd + 1;
                if p < 0 || p >= extent || p % bd != 0 {
                    inside = false;
                    break;
                }
                flat += (p / bd) as usize * strides[d];
            }
            indices.push(if inside { flat } else { pad_index });
        }
    }
    let rows = with_native!(x.ty.dtype, T => {
        let mut v = slice_of::<T>(&x.elements).to_vec();
        v.push(slice_of::<T>(&init.to_dense().elements)[0]);
        T::wrap(indices.iter().map(|&i| v[i]).collect())
    });
    let gathered = Literal {
        ty: TensorType::new(x.ty.dtype, vec![outputs, reduced]),
        elements: rows,
    };
    let plan = Plan {
        layout: Layout::Rows,
        outputs,
        reduced,
    };
    let body = site.op.regions[0];
    if let Some(reducer) = single_binary(site.f, body) {
        return Ok(vec![fold_literal(
            site, reducer, &gathered, init, &plan, &out_ty,
        )?]);
    }
    general(interp, site, &[&gathered], &[init], &plan, &[out_ty], env)
}
