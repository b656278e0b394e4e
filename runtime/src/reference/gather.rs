//! `stablehlo.gather`, with the spec's full semantics: batching dimensions on both sides,
//! `index_vector_dim` anywhere (or equal to the indices' rank for scalar indices), and
//! start indices clamped so each slice lies inside the operand
//! (`clamp(start, 0, dim - slice_size)`), so no index is ever out of bounds.

use super::layout::flat_index;
use super::{InterpError, Site};
use shardc_ir::dtype::advance_row_major;
use shardc_ir::{Elements, GatherDims, Literal, TensorType};

/// Checks the spec's constraints that the typing rule (`infer`) leaves to the verifier.
fn validate(
    site: &Site,
    operand: &TensorType,
    indices: &TensorType,
    g: &GatherDims,
) -> Result<(), InterpError> {
    let fix = "use the dimension numbers JAX emits for this gather";
    if !g.offset_dims.is_sorted() {
        return Err(site.invalid(
            format!("offset_dims {:?} must be sorted", g.offset_dims),
            fix,
        ));
    }
    for (i, &d) in g.start_indices_batching_dims.iter().enumerate() {
        if d >= indices.rank()
            || d == g.index_vector_dim
            || g.start_indices_batching_dims[..i].contains(&d)
        {
            return Err(site.invalid(
                format!(
                    "start_indices_batching_dims {:?} must be distinct dimensions of the indices ({indices}) other than index_vector_dim {}",
                    g.start_indices_batching_dims, g.index_vector_dim
                ),
                fix,
            ));
        }
        let o = g.operand_batching_dims[i];
        if operand.shape[o] != indices.shape[d] {
            return Err(site.invalid(
                format!(
                    "operand batching dimension {o} (size {}) is paired with indices dimension {d} (size {})",
                    operand.shape[o], indices.shape[d]
                ),
                "paired batching dimensions must have equal sizes",
            ));
        }
    }
    Ok(())
}

pub(crate) fn gather(
    site: &Site,
    operand: &Literal,
    indices: &Literal,
    g: &GatherDims,
    out: &TensorType,
) -> Result<Literal, InterpError> {
    validate(site, &operand.ty, &indices.ty, g)?;
    let starts = index_values(&indices.elements)
        .ok_or_else(|| site.unsupported(indices.ty.dtype, " as start indices".to_string()))?;
    let (op_shape, op_strides) = (&operand.ty.shape, operand.ty.strides());
    let idx_strides = indices.ty.strides();
    let ivd = g.index_vector_dim;
    // Indices dimension holding batch position k (every dimension but index_vector_dim).
    let idx_batch_dims: Vec<usize> = (0..indices.ty.rank()).filter(|&d| d != ivd).collect();
    let ivd_stride = idx_strides.get(ivd).copied().unwrap_or(0);
    let batch_dims: Vec<usize> = (0..out.rank())
        .filter(|d| !g.offset_dims.contains(d))
        .collect();
    // Operand dimension that offset k walks along (those neither collapsed nor batching).
    let offset_operand_dims: Vec<usize> = (0..operand.ty.rank())
        .filter(|d| !g.collapsed_slice_dims.contains(d) && !g.operand_batching_dims.contains(d))
        .collect();
    // For each operand batching dimension: which batch position gives its index.
    let batching_pos: Vec<usize> = g
        .start_indices_batching_dims
        .iter()
        .map(|&d| if d < ivd { d } else { d - 1 })
        .collect();

    let n = out.num_elements();
    let mut reads = Vec::with_capacity(n);
    let mut result_index = vec![0usize; out.rank()];
    let mut batch_index = vec![0usize; batch_dims.len()];
    let mut full = vec![0usize; operand.ty.rank()];
    for _ in 0..n {
        for (b, &d) in batch_index.iter_mut().zip(&batch_dims) {
            *b = result_index[d];
        }
        let base: usize = batch_index
            .iter()
            .zip(&idx_batch_dims)
            .map(|(&b, &d)| b * idx_strides[d])
            .sum();
        full.fill(0);
        for (j, &d) in g.start_index_map.iter().enumerate() {
            let start = starts[base + j * ivd_stride];
            let max_start = (op_shape[d] - g.slice_sizes[d]) as i64;
            full[d] += start.clamp(0, max_start) as usize;
        }
        for (&d, &p) in g.operand_batching_dims.iter().zip(&batching_pos) {
            full[d] += batch_index[p];
        }
        for (&d, &r) in offset_operand_dims.iter().zip(&g.offset_dims) {
            full[d] += result_index[r];
        }
        reads.push(flat_index(&full, &op_strides));
        advance_row_major(&mut result_index, &out.shape);
    }
    Ok(Literal {
        ty: out.clone(),
        elements: operand.elements.gather(&reads),
    })
}

/// Integer indices as `i64`, for clamping: a `ui64` above `i64::MAX` saturates (it clamps
/// to the largest start either way); `None` for non-integer elements.
pub(crate) fn index_values(e: &Elements) -> Option<Vec<i64>> {
    match e {
        Elements::U64(v) => Some(
            v.iter()
                .map(|&i| i64::try_from(i).unwrap_or(i64::MAX))
                .collect(),
        ),
        e if e.dtype().is_int() => Some((0..e.len()).map(|i| e.get(i).as_i64()).collect()),
        _ => None,
    }
}
