//! `stablehlo.scatter`, with the spec's full semantics (batching dimensions, the index
//! vector anywhere, several inputs), and XLA's choice where the spec leaves it open: an
//! update window that does not lie wholly inside the operand is skipped whole, and updates
//! apply in the updates' row-major order (so duplicates combine in that order).

use super::elementwise::Lane;
use super::gather::index_values;
use super::layout::flat_index;
use super::native::{slice_of, with_native};
use super::reduce::single_binary;
use super::{Env, Interp, InterpError, Site};
use shardc_ir::{BinaryOp, Literal, ScatterDims, TensorType};
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
    if let (1, Some((op, swapped))) = (n, single_binary(site.f, body)) {
        let elements = with_native!(inputs[0].ty.dtype, T => {
            combine::<T>(site, op, swapped, inputs[0], updates[0], &pairs)?
        });
        return Ok(vec![Literal {
            ty: inputs[0].ty.clone(),
            elements,
        }]);
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

/// `out[dest] = op(out[dest], update[src])` for every write, in order (`op(update, old)`
/// when the body applies its operands the other way round).
fn combine<T: Lane>(
    site: &Site,
    op: BinaryOp,
    swapped: bool,
    input: &Literal,
    update: &Literal,
    pairs: &[(usize, usize)],
) -> Result<shardc_ir::Elements, InterpError> {
    let mut out: Vec<T> = slice_of::<T>(&input.elements).to_vec();
    let up = slice_of::<T>(&update.elements);
    for &(dest, src) in pairs {
        let (a, b) = if swapped {
            (up[src], out[dest])
        } else {
            (out[dest], up[src])
        };
        let r = T::zip(op, &[a], &[b]).ok_or_else(|| site.unsupported_reducer(T::DTYPE, op))?;
        out[dest] = r[0];
    }
    Ok(T::wrap(out))
}
