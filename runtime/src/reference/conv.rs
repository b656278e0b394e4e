//! `stablehlo.convolution` as StableHLO defines it (dimension numbers anywhere, window
//! strides, padding, input and kernel dilation, reversal, feature and batch groups), and
//! `stablehlo.select_and_scatter` (the gradient of max pooling).
//!
//! Convolution sums each output element's products in `f64` (integers in wrapping `i64`)
//! over its group's input features, then the window in row-major order, and rounds once
//! to the result type: at least as accurate as XLA's CPU convolutions, which accumulate
//! in the element type.

use super::{Env, Interp, InterpError, Site};
use shardc_ir::{ConvDims, Elements, Literal, Scalar, TensorType, WindowDims};
use std::rc::Rc;

/// Steps a multi-index to the next position in row-major order.
fn advance(index: &mut [usize], shape: &[usize]) {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            return;
        }
        index[d] = 0;
    }
}

pub(crate) fn convolution(x: &Literal, k: &Literal, d: &ConvDims, out: &TensorType) -> Literal {
    let n = d.input_spatial.len();
    let (xs, ks) = (x.ty.strides(), k.ty.strides());
    let (g, bg) = (d.feature_group_count, d.batch_group_count);
    let cg = k.ty.shape[d.kernel_input_feature];
    let outs = out.shape[d.output_feature];
    let (per_group, per_batch_group) = (outs / g, outs / bg);
    let batch_per_group = x.ty.shape[d.input_batch] / bg;
    let window: Vec<usize> = d.kernel_spatial.iter().map(|&s| k.ty.shape[s]).collect();
    let integer = !x.ty.dtype.is_float();
    let (xf, kf) = (x.elements.to_f64_vec(), k.elements.to_f64_vec());
    let (xi, ki): (Vec<i64>, Vec<i64>) = if integer {
        (
            (0..x.elements.len())
                .map(|i| x.elements.get(i).as_i64())
                .collect(),
            (0..k.elements.len())
                .map(|i| k.elements.get(i).as_i64())
                .collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let total = out.num_elements();
    let mut floats = Vec::with_capacity(if integer { 0 } else { total });
    let mut ints = Vec::with_capacity(if integer { total } else { 0 });
    let mut o = vec![0usize; out.rank()];
    let mut w = vec![0usize; n];
    for _ in 0..total {
        let of = o[d.output_feature];
        let group = of / per_group.max(1);
        let batch = if bg > 1 {
            (of / per_batch_group.max(1)) * batch_per_group + o[d.output_batch]
        } else {
            o[d.output_batch]
        };
        let (mut accf, mut acci) = (0f64, 0i64);
        for ci in 0..cg {
            let c = group * cg + ci;
            let base_x = batch * xs[d.input_batch] + c * xs[d.input_feature];
            let base_k = ci * ks[d.kernel_input_feature] + of * ks[d.kernel_output_feature];
            w.fill(0);
            'window: for _ in 0..window.iter().product::<usize>() {
                let (mut xi_flat, mut ki_flat) = (base_x, base_k);
                for s in 0..n {
                    let pos = (o[d.output_spatial[s]] * d.window_strides[s]
                        + w[s] * d.rhs_dilation[s]) as i64
                        - d.padding[s].0;
                    let ld = d.lhs_dilation[s] as i64;
                    if pos < 0
                        || pos % ld != 0
                        || (pos / ld) as usize >= x.ty.shape[d.input_spatial[s]]
                    {
                        advance(&mut w, &window);
                        continue 'window;
                    }
                    xi_flat += (pos / ld) as usize * xs[d.input_spatial[s]];
                    let kp = if d.window_reversal[s] {
                        window[s] - 1 - w[s]
                    } else {
                        w[s]
                    };
                    ki_flat += kp * ks[d.kernel_spatial[s]];
                }
                if integer {
                    acci = acci.wrapping_add(xi[xi_flat].wrapping_mul(ki[ki_flat]));
                } else {
                    accf += xf[xi_flat] * kf[ki_flat];
                }
                advance(&mut w, &window);
            }
        }
        if integer {
            ints.push(Scalar::Int(acci));
        } else {
            floats.push(accf);
        }
        advance(&mut o, &out.shape);
    }
    let elements = if integer {
        Elements::from_scalars(out.dtype, &ints)
    } else {
        Elements::from_f64(out.dtype, &floats)
    };
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `select_and_scatter`: each window of the operand (padding never selected) selects one
/// element, keeping the current one while `select(current, next)` holds; the windows'
/// source elements are combined into the result (the init everywhere) with the scatter
/// region, windows in row-major order.
pub(crate) fn select_and_scatter(
    interp: &mut Interp,
    site: &Site,
    x: &Literal,
    source: &Literal,
    init: &Literal,
    w: &WindowDims,
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let (select, scatter) = (site.op.regions[0], site.op.regions[1]);
    let rank = x.ty.rank();
    let strides = x.ty.strides();
    let scalar = |l: &Literal, i: usize| {
        Rc::new(Literal {
            ty: TensorType::scalar(l.ty.dtype),
            elements: l.elements.gather(&[i]),
        })
    };
    let mut result = Literal {
        ty: x.ty.clone(),
        elements: init.elements.gather(&vec![0; x.ty.num_elements()]),
    };
    let mut s = vec![0usize; rank];
    let mut k = vec![0usize; rank];
    for si in 0..source.ty.num_elements() {
        let mut chosen: Option<usize> = None;
        k.fill(0);
        for _ in 0..w.window.iter().product::<usize>() {
            let mut flat = 0usize;
            let mut inside = true;
            for dd in 0..rank {
                let p = (s[dd] * w.strides[dd] + k[dd]) as i64 - w.padding[dd].0;
                if p < 0 || p as usize >= x.ty.shape[dd] {
                    inside = false;
                    break;
                }
                flat += p as usize * strides[dd];
            }
            if inside {
                chosen = Some(match chosen {
                    None => flat,
                    Some(cur) => {
                        let keep = interp.exec_block(
                            site.f,
                            select,
                            &[scalar(x, cur), scalar(x, flat)],
                            env,
                        )?;
                        if keep.first().is_some_and(|v| v.get(0).as_bool()) {
                            cur
                        } else {
                            flat
                        }
                    }
                });
            }
            advance(&mut k, &w.window);
        }
        if let Some(at) = chosen {
            let combined = interp.exec_block(
                site.f,
                scatter,
                &[scalar(&result, at), scalar(source, si)],
                env,
            )?;
            if let Some(v) = combined.first() {
                result.elements.copy_element(at, &v.elements, 0);
            }
        }
        advance(&mut s, &source.ty.shape);
    }
    Ok(vec![result])
}
