//! Offsetting a gather's indices into the local block of a split indexed dimension: the
//! vocabulary-parallel embedding lookup (Megatron's `VocabParallelEmbedding`).
//!
//! A gather's collapsed, indexed operand dimension of slice size 1 (an embedding table's
//! vocabulary rows) is a reduction (sum) factor of its rule: split over axes `A` in blocks
//! of `b` rows, device `k` of `A` holds rows `k·b .. (k+1)·b`. Each device looks up the
//! rows it holds and contributes zeros for the others, so the results of the devices of
//! `A` add up to the global lookup, and the result is unreduced (partial sums) over `A`;
//! the partitioner completes it like any reduction (an all-reduce, or a reduce-scatter).
//!
//! On the local pieces, for the index component `i` that addresses the split dimension:
//!
//! ```text
//! i'   = clamp(0, i, n - 1) - axis_index(A) * b     (the global clamp of stablehlo.gather)
//! hit  = 0 <= i' && i' < b
//! out  = select(hit, gather(table piece, indices with i'), 0)
//! ```
//!
//! A miss's own lookup is clamped into the block by the local gather and discarded by the
//! select (a select, not a product, so no NaN of the table enters). One split indexed
//! dimension per gather: [`allows`] says when, and [`crate::local::localize::allows`] refuses
//! any other split of a gather's reduction factors.

use crate::error::CompileError;
use crate::sharding::layout::{FactorAxes, Layout};
use shardc_ir::rules::{FactorKind, OpRule, TensorRef};
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, FunctionBuilder, GatherDims, Literal,
    Mesh, Op, OpKind, Scalar, TensorType, ValueId,
};

/// Whether a gather can run with the reduction factors `fa` splits: exactly one is split,
/// and it is one collapsed dimension of slice size 1 that the index vector addresses.
pub fn allows(dims: &GatherDims, rule: &OpRule, fa: &FactorAxes) -> bool {
    let Some(table) = rule.tensor(TensorRef::Operand(0)) else {
        return false;
    };
    let mut split = None;
    for id in rule.factor_ids() {
        if !matches!(rule.kind(id), FactorKind::Reduction(_)) || fa.of(id).is_empty() {
            continue;
        }
        let Some(d) = table.iter().position(|factors| factors.contains(&id)) else {
            return false;
        };
        let indexed = dims.collapsed_slice_dims.contains(&d)
            && dims.slice_sizes.get(d) == Some(&1)
            && dims.start_index_map.contains(&d);
        if !indexed || split.replace(d).is_some() {
            return false;
        }
    }
    split.is_some()
}

/// The operand dimension of a gather that runs split along an indexed dimension (its
/// local table, `local[0]`, is smaller there than the global one): the op [`gather`]
/// emits. `None` for any other op or split.
pub fn indexed_split(kind: &OpKind, global: &[TensorType], local: &[TensorType]) -> Option<usize> {
    let OpKind::Gather(g) = kind else {
        return None;
    };
    let (global, local) = (global.first()?, local.first()?);
    g.collapsed_slice_dims
        .iter()
        .copied()
        .find(|&d| local.shape.get(d) != global.shape.get(d))
}

fn bug(what: String) -> CompileError {
    CompileError::internal("vocabulary-parallel gather", what)
}

/// Emits `op` (a gather, as `kind` on the local pieces `ins`) with its indices offset into
/// the local block of the split operand dimension `d`, and its misses zeroed. `layouts`
/// are the operands' layouts, `global` their global types, `out` the local result type.
#[allow(clippy::too_many_arguments)]
pub fn gather(
    b: &mut FunctionBuilder,
    mesh: &Mesh,
    op: &Op,
    kind: OpKind,
    ins: &[ValueId],
    layouts: &[Layout],
    global: &[TensorType],
    out: &TensorType,
    d: usize,
) -> Result<ValueId, CompileError> {
    let OpKind::Gather(dims) = &op.kind else {
        return Err(bug(format!("{} is not a gather", op.kind.name())));
    };
    let (table, indices) = match ins {
        [t, i] => (*t, *i),
        _ => return Err(bug("a gather takes a table and indices".into())),
    };
    let axes = layouts
        .first()
        .and_then(|l| l.dims.get(d))
        .filter(|a| !a.is_empty())
        .ok_or_else(|| bug(format!("operand dimension {d} of the gather is not split")))?;
    let n = global[0].shape[d];
    let block = b.ty(table).shape[d];
    let it = b.ty(indices).clone();
    let int = |v: usize| Scalar::Int(i64::try_from(v).unwrap_or(i64::MAX));
    let v = dims.index_vector_dim;
    let implicit = v == it.rank();
    let c = dims
        .start_index_map
        .iter()
        .position(|&m| m == d)
        .ok_or_else(|| bug(format!("operand dimension {d} is not indexed")))?;

    // The component addressing `d`: the indices themselves, or a slice of width 1 along
    // the index vector dimension.
    let comp = if implicit || it.shape[v] == 1 {
        indices
    } else {
        let mut start = vec![0; it.rank()];
        let mut limit = it.shape.clone();
        start[v] = c;
        limit[v] = c + 1;
        let strides = vec![1; it.rank()];
        b.push1(
            OpKind::Slice {
                start,
                limit,
                strides,
            },
            &[indices],
        )?
    };
    let ct = b.ty(comp).clone();
    let splat = |b: &mut FunctionBuilder, x: usize| b.constant(Literal::splat(ct.clone(), int(x)));
    let zero = splat(b, 0);
    let last = splat(b, n.saturating_sub(1));
    let clamped = b.push1(OpKind::Clamp, &[zero, comp, last])?;
    let groups = mesh
        .replica_groups(axes)
        .ok_or_else(|| bug(format!("axes {axes:?} are not all on mesh @{}", mesh.name)))?;
    let index = b.push1_typed(
        OpKind::AxisIndex { groups },
        &[],
        TensorType::scalar(DType::I64),
    )?;
    let size = b.constant(Literal::scalar(DType::I64, int(block)));
    let start = b.binary(BinaryOp::Multiply, index, size)?;
    let start = b.push1_typed(OpKind::Convert, &[start], TensorType::scalar(ct.dtype))?;
    let start = b.push1_typed(
        OpKind::BroadcastInDim { dims: vec![] },
        &[start],
        ct.clone(),
    )?;
    let local = b.binary(BinaryOp::Subtract, clamped, start)?;
    let signed = Some(ComparisonType::Signed);
    let cmp = |b: &mut FunctionBuilder, direction, x, y| {
        b.push1(
            OpKind::Compare {
                direction,
                compare_type: signed,
            },
            &[x, y],
        )
    };
    let above = cmp(b, ComparisonDirection::Ge, local, zero)?;
    let end = splat(b, block);
    let below = cmp(b, ComparisonDirection::Lt, local, end)?;
    let hit = b.binary(BinaryOp::And, above, below)?;

    // The indices with the component replaced.
    let local_indices = if comp == indices {
        local
    } else {
        let mut parts = Vec::new();
        let slice = |b: &mut FunctionBuilder, from: usize, to: usize| {
            let mut start = vec![0; it.rank()];
            let mut limit = it.shape.clone();
            start[v] = from;
            limit[v] = to;
            b.push1(
                OpKind::Slice {
                    start,
                    limit,
                    strides: vec![1; it.rank()],
                },
                &[indices],
            )
        };
        if c > 0 {
            parts.push(slice(b, 0, c)?);
        }
        parts.push(local);
        if c + 1 < it.shape[v] {
            parts.push(slice(b, c + 1, it.shape[v])?);
        }
        b.push1(OpKind::Concatenate { dimension: v }, &parts)?
    };
    let looked_up = b.push1_typed(kind, &[table, local_indices], out.clone())?;

    // `hit` over the result: its batch dimensions are the indices' (the index vector
    // dimension, of width 1 in `hit`, dropped), in order, at the result's non-offset
    // positions.
    let batch: Vec<usize> = (0..ct.rank()).filter(|&k| implicit || k != v).collect();
    let hit = if batch.len() == ct.rank() {
        hit
    } else {
        let shape: Vec<usize> = batch.iter().map(|&k| ct.shape[k]).collect();
        b.push1_typed(OpKind::Reshape, &[hit], TensorType::new(DType::I1, shape))?
    };
    let positions: Vec<usize> = (0..out.rank())
        .filter(|k| !dims.offset_dims.contains(k))
        .collect();
    let hit = b.push1_typed(
        OpKind::BroadcastInDim { dims: positions },
        &[hit],
        TensorType::new(DType::I1, out.shape.clone()),
    )?;
    let zero = if out.dtype == DType::I1 {
        Scalar::Bool(false)
    } else if out.dtype.is_int() {
        Scalar::Int(0)
    } else {
        Scalar::Float(0.0)
    };
    let zeros = b.constant(Literal::splat(out.clone(), zero));
    Ok(b.push1(OpKind::Select, &[hit, looked_up, zeros])?)
}
