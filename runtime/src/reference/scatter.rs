//! `stablehlo.scatter`, with the spec's full semantics (batching dimensions, the index
//! vector anywhere, several inputs), and XLA's choice where the spec leaves it open: an
//! update window that does not lie wholly inside the operand is skipped whole, and updates
//! apply in the updates' row-major order (so duplicates combine in that order).

use super::elementwise::Lane;
use super::gather::index_values;
use super::layout::flat_index;
use super::native::{Native, slice_of, with_native};
use super::reduce::single_binary;
use super::{Env, Interp, InterpError, Site};
use shardc_ir::{BinaryOp, BlockId, Function, Literal, Op, OpKind, ScatterDims, TensorType};
use std::rc::Rc;

/// `(result element, update element)` pairs, in the updates' row-major order, for every
/// update whose window lies inside the operand.
fn writes(
    operand: &TensorType,
    indices: &Literal,
    update: &TensorType,
    d: &ScatterDims,
    starts: &[i64],
) -> Vec<(usize, usize)> {
    let ivd = d.index_vector_dim;
    let idx_strides = indices.ty.strides();
    let ivd_stride = idx_strides.get(ivd).copied().unwrap_or(0);
    let index_batch_dims: Vec<usize> = (0..indices.ty.rank()).filter(|&k| k != ivd).collect();
    let update_scatter_dims: Vec<usize> = (0..update.rank())
        .filter(|k| !d.update_window_dims.contains(k))
        .collect();
    let window_operand_dims: Vec<usize> = (0..operand.rank())
        .filter(|k| !d.inserted_window_dims.contains(k) && !d.input_batching_dims.contains(k))
        .collect();
    // The window's extent in each operand dimension.
    let mut extent = vec![1usize; operand.rank()];
    for (&od, &ud) in window_operand_dims.iter().zip(&d.update_window_dims) {
        extent[od] = update.shape[ud];
    }
    // For each operand batching dimension, the batch position (among the indices' batch
    // dimensions) that gives its index.
    let batching_pos: Vec<Option<usize>> = d
        .scatter_indices_batching_dims
        .iter()
        .map(|id| index_batch_dims.iter().position(|k| k == id))
        .collect();
    let op_strides = operand.strides();
    let n = update.num_elements();
    let mut out = Vec::with_capacity(n);
    let mut uidx = vec![0usize; update.rank()];
    let mut start = vec![0i64; operand.rank()];
    for u in 0..n {
        // Where the update's index vector sits in the indices.
        let base: usize = update_scatter_dims
            .iter()
            .zip(&index_batch_dims)
            .map(|(&ud, &id)| uidx[ud] * idx_strides[id])
            .sum();
        start.fill(0);
        for (j, &od) in d.scatter_dims_to_operand_dims.iter().enumerate() {
            start[od] += starts[base + j * ivd_stride];
        }
        for (&od, p) in d.input_batching_dims.iter().zip(&batching_pos) {
            if let Some(p) = *p {
                start[od] += uidx[update_scatter_dims[p]] as i64;
            }
        }
        let inside = (0..operand.rank())
            .all(|k| start[k] >= 0 && start[k] as usize + extent[k] <= operand.shape[k]);
        if inside {
            let mut full: Vec<usize> = start.iter().map(|&s| s as usize).collect();
            for (&od, &ud) in window_operand_dims.iter().zip(&d.update_window_dims) {
                full[od] += uidx[ud];
            }
            out.push((flat_index(&full, &op_strides), u));
        }
        for k in (0..uidx.len()).rev() {
            uidx[k] += 1;
            if uidx[k] < update.shape[k] {
                break;
            }
            uidx[k] = 0;
        }
    }
    out
}

pub(crate) fn scatter(
    interp: &mut Interp,
    site: &Site,
    x: &[&Literal],
    d: &ScatterDims,
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let n = site.op.results.len();
    let (inputs, indices, updates) = (&x[..n], x[n], &x[n + 1..]);
    let starts = index_values(&indices.elements)
        .ok_or_else(|| site.unsupported(indices.ty.dtype, " as scatter indices".to_string()))?;
    let pairs = writes(&inputs[0].ty, indices, &updates[0].ty, d, &starts);
    let body = site.op.regions[0];
    if let (1, Some(how)) = (n, Combine::of(site.f, body)) {
        let mut out = inputs[0].to_dense();
        with_native!(out.ty.dtype, T => {
            let dtype = out.ty.dtype;
            let dest = T::slice_mut(&mut out.elements)
                .ok_or_else(|| site.unsupported(dtype, " as a scatter operand".to_string()))?;
            combine::<T>(site, how, dest, slice_of::<T>(&updates[0].to_dense().elements), &pairs)?
        });
        return Ok(vec![out]);
    }
    // A general update computation, run once per write on scalars.
    let mut out: Vec<Literal> = inputs.iter().map(|l| (*l).clone()).collect();
    let scalar = |l: &Literal, i: usize| {
        Rc::new(Literal {
            ty: TensorType::scalar(l.ty.dtype),
            elements: l.elements.gather(&[i]),
        })
    };
    let mut args = Vec::with_capacity(2 * n);
    for &(dest, src) in &pairs {
        args.clear();
        args.extend(out.iter().map(|l| scalar(l, dest)));
        args.extend(updates.iter().map(|l| scalar(l, src)));
        let new = interp.exec_block(site.f, body, &args, env)?;
        for (o, v) in out.iter_mut().zip(new) {
            o.elements.copy_element(dest, &v.elements, 0);
        }
    }
    Ok(out)
}

/// An update computation run natively: one binary op of the old value and the update
/// (`swapped`: the update first), or the update replacing the old value.
#[derive(Copy, Clone)]
enum Combine {
    Binary(BinaryOp, bool),
    Replace,
}

impl Combine {
    /// What region `body` computes, when it is one of the native kinds.
    fn of(f: &Function, body: BlockId) -> Option<Combine> {
        if let Some((op, swapped)) = single_binary(f, body) {
            return Some(Combine::Binary(op, swapped));
        }
        let b = f.block(body);
        match (b.args.as_slice(), b.ops.as_slice(), b.results.as_slice()) {
            ([_, update], [], [result]) if result == update => Some(Combine::Replace),
            _ => None,
        }
    }
}

/// `out[dest] = op(out[dest], update[src])` for every write, in order (`op(update, old)`
/// when the body applies its operands the other way round; the update itself when it
/// replaces).
fn combine<T: Lane>(
    site: &Site,
    how: Combine,
    out: &mut [T],
    up: &[T],
    pairs: &[(usize, usize)],
) -> Result<(), InterpError> {
    let Combine::Binary(op, swapped) = how else {
        for &(dest, src) in pairs {
            out[dest] = up[src];
        }
        return Ok(());
    };
    for &(dest, src) in pairs {
        let (a, b) = if swapped {
            (up[src], out[dest])
        } else {
            (out[dest], up[src])
        };
        let r = T::zip(op, &[a], &[b]).ok_or_else(|| site.unsupported_reducer(T::DTYPE, op))?;
        out[dest] = r[0];
    }
    Ok(())
}

/// A one-input `scatter` whose update computation is one binary op (scatter-add, -max,
/// ...) or replaces, written into `out` (a buffer of the result's type, whatever it
/// holds): the operand copied in, then every update combined in place. The JIT's host
/// kernels run scatters so, into a buffer of the device's pool, instead of through the
/// interpreter, which copies the operand twice into fresh memory. `Ok(false)` (and `out`
/// untouched) when the op is of another form, for the interpreter to run.
pub fn scatter_into(
    f: &Function,
    op: &Op,
    inputs: &[&Literal],
    out: &mut Literal,
) -> Result<bool, InterpError> {
    let [input, indices, update] = inputs else {
        return Ok(false);
    };
    if out.ty != input.ty || out.is_splat() || form(f, op, &update.ty).is_none() {
        return Ok(false);
    }
    let copied = with_native!(input.ty.dtype, T => {
        match (T::slice_mut(&mut out.elements), T::slice(&input.elements)) {
            (Some(dest), Some(from)) if from.len() == dest.len() => {
                dest.copy_from_slice(from);
                true
            }
            (Some(dest), Some(&[x])) => {
                dest.fill(x);
                true
            }
            _ => false,
        }
    });
    Ok(copied && scatter_onto(f, op, indices, update, out)?)
}

/// The dimensions and update of a one-input `scatter` whose update computation
/// [`Combine`] reads, of updates of the operand's element type.
fn form<'f>(
    f: &'f Function,
    op: &'f Op,
    update: &TensorType,
) -> Option<(&'f ScatterDims, Combine)> {
    let (OpKind::Scatter(d), [body], [x, _, _]) =
        (&op.kind, op.regions.as_slice(), op.operands.as_slice())
    else {
        return None;
    };
    (f.ty(*x).dtype == update.dtype).then_some(())?;
    Some((d, Combine::of(f, *body)?))
}

/// [`scatter_into`] where `out` already holds the scattered operand: only the updated
/// elements are written (an update in place: a loop's `x.at[i].set(v)` writes a row,
/// not the whole tensor). `Ok(false)`, with `out` untouched, where that form does not
/// apply.
pub fn scatter_onto(
    f: &Function,
    op: &Op,
    indices: &Literal,
    update: &Literal,
    out: &mut Literal,
) -> Result<bool, InterpError> {
    let Some((d, how)) = form(f, op, &update.ty).filter(|_| update.ty.dtype == out.ty.dtype) else {
        return Ok(false);
    };
    if out.is_splat() {
        *out = out.to_dense();
    }
    let site = Site { f, op };
    let starts = index_values(&indices.elements)
        .ok_or_else(|| site.unsupported(indices.ty.dtype, " as scatter indices".to_string()))?;
    let pairs = writes(&out.ty, indices, &update.ty, d, &starts);
    let update = update.to_dense();
    with_native!(out.ty.dtype, T => {
        let Some(dest) = T::slice_mut(&mut out.elements) else {
            return Ok(false);
        };
        combine::<T>(&site, how, dest, slice_of::<T>(&update.elements), &pairs)?;
    });
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::DType;
    use shardc_ir::text::parse_module;

    /// Written in place, a scatter-add with a repeated row and one out of range, and a
    /// replacing scatter, give the interpreter's bits; a buffer of stale data is
    /// overwritten whole; a general update computation is left to the interpreter.
    #[test]
    fn scatters_written_in_place_equal_the_interpreter() {
        let body = |ret: &str| {
            format!(
                r#"({{
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        {ret}
      }})"#
            )
        };
        let text = |body: String| {
            format!(
                r#"module {{
  func.func @main(%x: tensor<6x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>) -> tensor<6x3xf32> {{
    %r = "stablehlo.scatter"(%x, %i, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}}> {body} : (tensor<6x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    return %r : tensor<6x3xf32>
  }}
}}"#
            )
        };
        let x = Literal::deterministic(&TensorType::new(DType::F32, [6, 3]), 0).unwrap();
        let i = Literal::from_f64(DType::I32, &[4, 1], &[2.0, 5.0, 2.0, 9.0]).unwrap();
        let u = Literal::deterministic(&TensorType::new(DType::F32, [4, 3]), 1).unwrap();
        let cases = [
            (
                "add",
                body(
                    "%s = stablehlo.add %a, %b : tensor<f32>\n        stablehlo.return %s : tensor<f32>",
                ),
                true,
            ),
            ("replace", body("stablehlo.return %b : tensor<f32>"), true),
            (
                "general",
                body(
                    "%s = stablehlo.add %a, %b : tensor<f32>\n        %t = stablehlo.multiply %s, %s : tensor<f32>\n        stablehlo.return %t : tensor<f32>",
                ),
                false,
            ),
        ];
        for (name, body, native) in cases {
            let m = parse_module(&text(body)).unwrap();
            let f = m.entry().unwrap();
            let (_, op) = f.body_ops().next().unwrap();
            let want = super::super::run(&m, "main", &[x.clone(), i.clone(), u.clone()]).unwrap();
            let mut out = Literal::from_f64(DType::F32, &[6, 3], &[7.0; 18]).unwrap();
            let ran = scatter_into(f, op, &[&x, &i, &u], &mut out).unwrap();
            assert_eq!(ran, native, "{name}");
            if native {
                assert_eq!(out, want[0], "{name}");
            } else {
                assert_eq!(out.to_f64_vec(), vec![7.0; 18], "{name}: untouched");
            }
        }
    }
}
