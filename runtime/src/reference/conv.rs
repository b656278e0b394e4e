//! `stablehlo.convolution` as StableHLO defines it (dimension numbers anywhere, window
//! strides, padding, input and kernel dilation, reversal, feature and batch groups), and
//! `stablehlo.select_and_scatter` (the gradient of max pooling).
//!
//! Convolution sums each output element's products in `f64` (integers in wrapping `i64`)
//! over its group's input features, then the window in row-major order, and rounds once
//! to the result type: at least as accurate as XLA's CPU convolutions, which accumulate
//! in the element type.

use super::elementwise::Lane;
use super::native::{Native, slice_of, with_native};
use super::reduce::single_binary;
use super::{Env, Interp, InterpError, Site};
use shardc_ir::dtype::advance_row_major;
use shardc_ir::{
    ComparisonDirection, ComparisonType, ConvDims, Elements, Function, Literal, Op, OpKind, Scalar,
    TensorType, WindowDims,
};
use std::rc::Rc;

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
                        advance_row_major(&mut w, &window);
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
                advance_row_major(&mut w, &window);
            }
        }
        if integer {
            ints.push(Scalar::Int(acci));
        } else {
            floats.push(accf);
        }
        advance_row_major(&mut o, &out.shape);
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
    let chosen = selected(&x.ty, w, &source.ty, |cur, next| {
        let keep = interp.exec_block(site.f, select, &[scalar(x, cur), scalar(x, next)], env)?;
        Ok(keep.first().is_some_and(|v| v.get(0).as_bool()))
    })?;
    for (si, at) in chosen.into_iter().enumerate() {
        if let Some(at) = at {
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
    }
    Ok(vec![result])
}

/// The operand position each source element's window selects, in the source's row-major
/// order: the window's elements in row-major order (padding never selected), the current
/// one kept while `keep(current, next)` holds; `None` for a window wholly in padding.
fn selected<E>(
    x: &TensorType,
    w: &WindowDims,
    source: &TensorType,
    mut keep: impl FnMut(usize, usize) -> Result<bool, E>,
) -> Result<Vec<Option<usize>>, E> {
    let (rank, strides) = (x.rank(), x.strides());
    let windows: usize = w.window.iter().product();
    let mut out = Vec::with_capacity(source.num_elements());
    let mut s = vec![0usize; rank];
    let mut k = vec![0usize; rank];
    for _ in 0..source.num_elements() {
        let mut chosen: Option<usize> = None;
        k.fill(0);
        for _ in 0..windows {
            let mut flat = 0usize;
            let mut inside = true;
            for dd in 0..rank {
                let p = (s[dd] * w.strides[dd] + k[dd]) as i64 - w.padding[dd].0;
                if p < 0 || p as usize >= x.shape[dd] {
                    inside = false;
                    break;
                }
                flat += p as usize * strides[dd];
            }
            if inside {
                chosen = Some(match chosen {
                    Some(cur) if keep(cur, flat)? => cur,
                    _ => flat,
                });
            }
            advance_row_major(&mut k, &w.window);
        }
        out.push(chosen);
        advance_row_major(&mut s, &source.shape);
    }
    Ok(out)
}

/// A `select_and_scatter` whose select is one `compare` of its two arguments on floats
/// (max pooling's gradient: `GE`) and whose scatter is one binary op (`add`), written into
/// `out` (a buffer of the result's type, whatever it holds) with the interpreter's
/// selection and order, natively: the JIT's host kernels run it so, where the
/// interpreter runs both regions per element. `Ok(false)` (and `out` untouched) for any
/// other form.
pub fn select_and_scatter_into(
    f: &Function,
    op: &Op,
    inputs: &[&Literal],
    out: &mut Literal,
) -> Result<bool, InterpError> {
    let (OpKind::SelectAndScatter(w), [x, source, init], [select, scatter]) =
        (&op.kind, inputs, op.regions.as_slice())
    else {
        return Ok(false);
    };
    let Some(keep) = compare_of(f, *select) else {
        return Ok(false);
    };
    let Some((combine, swapped)) = single_binary(f, *scatter) else {
        return Ok(false);
    };
    if !x.ty.dtype.is_float() || out.ty != x.ty || out.is_splat() || source.ty.dtype != x.ty.dtype {
        return Ok(false);
    }
    let site = Site { f, op };
    let xs = x.to_dense().elements.to_f64_vec();
    let chosen = selected::<InterpError>(&x.ty, w, &source.ty, |cur, next| {
        Ok(keep(xs[cur], xs[next]))
    })?;
    let source = source.to_dense();
    with_native!(x.ty.dtype, T => {
        let Some(dest) = T::slice_mut(&mut out.elements) else {
            return Ok(false);
        };
        let Some(&first) = T::slice(&init.elements).and_then(|v| v.first()) else {
            return Ok(false);
        };
        dest.fill(first);
        for (&update, at) in slice_of::<T>(&source.elements).iter().zip(chosen) {
            if let Some(at) = at {
                let (a, b) = if swapped { (update, dest[at]) } else { (dest[at], update) };
                let r = T::zip(combine, &[a], &[b])
                    .ok_or_else(|| site.unsupported_reducer(T::DTYPE, combine))?;
                dest[at] = r[0];
            }
        }
    });
    Ok(true)
}

/// The comparison region `block` computes of its two arguments (current, next), when it
/// is one float `compare` of them.
fn compare_of(f: &Function, block: shardc_ir::BlockId) -> Option<fn(f64, f64) -> bool> {
    let b = f.block(block);
    let ([cur, next], [id], [result]) = (b.args.as_slice(), b.ops.as_slice(), b.results.as_slice())
    else {
        return None;
    };
    let c = f.op(*id);
    let OpKind::Compare {
        direction,
        compare_type: None | Some(ComparisonType::Float),
    } = c.kind
    else {
        return None;
    };
    if c.results.as_slice() != [*result] || c.operands.as_slice() != [*cur, *next] {
        return None;
    }
    Some(match direction {
        ComparisonDirection::Eq => |a, b| a == b,
        ComparisonDirection::Ne => |a, b| a != b,
        ComparisonDirection::Ge => |a, b| a >= b,
        ComparisonDirection::Gt => |a, b| a > b,
        ComparisonDirection::Le => |a, b| a <= b,
        ComparisonDirection::Lt => |a, b| a < b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::DType;
    use shardc_ir::text::parse_module;

    /// Max pooling's gradient (overlapping 3x3 windows, stride 2, padding, ties), and
    /// min pooling's, written natively give the interpreter's values.
    #[test]
    fn pooling_gradients_written_natively_equal_the_interpreter() {
        for direction in ["GE", "LT"] {
            let text = format!(
                r#"module {{
  func.func @main(%x: tensor<1x7x7x2xf32>, %s: tensor<1x4x4x2xf32>) -> tensor<1x7x7x2xf32> {{
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %r = "stablehlo.select_and_scatter"(%x, %s, %z) <{{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare {direction}, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }}, {{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }}) : (tensor<1x7x7x2xf32>, tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x7x7x2xf32>
    return %r : tensor<1x7x7x2xf32>
  }}
}}"#
            );
            let m = parse_module(&text).unwrap();
            // Rounded to quarters: many ties between a window's elements.
            let x = Literal::deterministic(&TensorType::new(DType::F32, [1, 7, 7, 2]), 0).unwrap();
            let x = Literal::from_f64(
                DType::F32,
                &[1, 7, 7, 2],
                &x.to_f64_vec()
                    .iter()
                    .map(|v| (v * 4.0).round() / 4.0)
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            let s = Literal::deterministic(&TensorType::new(DType::F32, [1, 4, 4, 2]), 1).unwrap();
            let want = super::super::run(&m, "main", &[x.clone(), s.clone()]).unwrap();
            let f = m.entry().unwrap();
            let op = f.body_ops().map(|(_, op)| op).nth(1).unwrap();
            let zero = Literal::scalar(DType::F32, Scalar::Float(0.0));
            let mut out = Literal::from_f64(DType::F32, &[1, 7, 7, 2], &[9.0; 98]).unwrap();
            assert!(select_and_scatter_into(f, op, &[&x, &s, &zero], &mut out).unwrap());
            assert_eq!(out, want[0], "{direction}");
        }
    }
}
