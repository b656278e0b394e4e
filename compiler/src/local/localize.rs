//! What running an op on every device's pieces needs beyond its sharding rule: per-op
//! knowledge the partitioner consults, kept in one table.
//!
//! - [`allows`]: factor assignments the rule permits but the local op cannot honour
//!   (a reduce whose init is not its reducer's identity would add the init once per
//!   device; a gather splits one collapsed, indexed operand dimension at most, whose
//!   indices `offset.rs` offsets and masks; a reshape or gather cannot cut a result
//!   dimension its operands do not share).
//! - [`local_kind`]: attributes that name global sizes, rewritten for the local pieces
//!   (a slice's limits, a gather's slice sizes, a rotation's shift along a split
//!   dimension).

use crate::sharding::layout::FactorAxes;
use shardc_ir::rules::{Combiner, FactorKind, OpRule};
use shardc_ir::{BinaryOp, Function, Literal, Op, OpKind, Scalar, TensorType};

/// Whether the first element of `lit` is the identity of a combiner: what a device that
/// holds nothing contributes.
pub(crate) fn is_identity(c: Combiner, lit: &Literal) -> bool {
    if lit.elements.is_empty() {
        return false;
    }
    let dtype = lit.ty.dtype;
    let (bits, width) = (lit.elements.bits(0), dtype.bit_width());
    let ones = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    // The bit patterns of the smallest and largest integers of the type.
    let (min, max) = if dtype.is_unsigned() {
        (0, ones)
    } else {
        (1u64 << (width - 1), ones >> 1)
    };
    match (c, lit.get(0)) {
        (Combiner::Sum, s) => s.as_f64() == 0.0,
        (Combiner::Product, s) => s.as_f64() == 1.0,
        (Combiner::Max, Scalar::Float(v)) => v == f64::NEG_INFINITY,
        (Combiner::Min, Scalar::Float(v)) => v == f64::INFINITY,
        (Combiner::Max, Scalar::Int(_)) => bits == min,
        (Combiner::Min, Scalar::Int(_)) => bits == max,
        (Combiner::And, s) => s.as_bool(),
        (Combiner::Or, s) => !s.as_bool(),
        _ => false,
    }
}

/// Whether `op` can run on every device's pieces under `fa` (already legal for its rule).
pub fn allows(f: &Function, op: &Op, rule: &OpRule, fa: &FactorAxes) -> bool {
    if cuts_nothing(&op.kind) && result_only_split(rule, fa) {
        return false;
    }
    let sharded_reduction = rule
        .factor_ids()
        .any(|id| matches!(rule.kind(id), FactorKind::Reduction(_)) && !fa.of(id).is_empty());
    if !sharded_reduction {
        return true;
    }
    let combiner = rule.factor_ids().find_map(|id| rule.kind(id).combiner());
    let all_identity = |values: &[shardc_ir::ValueId]| {
        values
            .iter()
            .all(|&v| combiner.is_some_and(|c| holds_identity(f, v, c)))
    };
    match &op.kind {
        OpKind::Reduce { .. } => all_identity(&op.operands[op.operands.len() / 2..]),
        // Each device scatters its own updates into the inputs: the inputs must add
        // nothing to the combination (the zeros a gather's gradient starts from).
        OpKind::Scatter(_) => all_identity(&op.operands[..op.results.len()]),
        OpKind::Gather(dims) => crate::local::offset::allows(dims, rule, fa),
        _ => true,
    }
}

/// Whether `v` is a constant, or a broadcast of one, every element of which is the
/// combiner's identity.
pub(crate) fn holds_identity(f: &Function, v: shardc_ir::ValueId, c: Combiner) -> bool {
    let Some(op) = f.defining_op(v).map(|o| f.op(o)) else {
        return false;
    };
    match &op.kind {
        OpKind::Constant(lit) => (lit.is_splat() || lit.elements.len() == 1) && is_identity(c, lit),
        OpKind::BroadcastInDim { .. } => holds_identity(f, op.operands[0], c),
        _ => false,
    }
}

/// Ops that cannot produce a block of a result dimension of their own: a reshape (`2x3 ->
/// 3x2`, whose result factors are in no operand) or a gather's partially sliced offset
/// dimension computes a whole dimension from its operand, never a part of it. The rule
/// lets any device produce any part (the factor passes through), so such a dimension is
/// produced whole and then sliced, by resharding.
fn cuts_nothing(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Reshape | OpKind::Gather(_))
}

/// Whether `fa` splits a factor that appears in the results only.
fn result_only_split(rule: &OpRule, fa: &FactorAxes) -> bool {
    let in_operands = |id| {
        rule.operands
            .iter()
            .any(|m| m.iter().any(|factors| factors.contains(&id)))
    };
    rule.factor_ids()
        .any(|id| !fa.of(id).is_empty() && !in_operands(id))
}

/// Ops whose elements depend on where they sit in the whole tensor (a constant's data,
/// an iota's indices, the counter-based random op's global element index, the bits an
/// `rng_bit_generator` draws in order): a device cannot
/// compute its piece from local pieces alone, so the partitioner computes them whole and
/// keeps each device's block.
pub fn computed_whole(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Constant(_)
            | OpKind::Iota { .. }
            | OpKind::Random { .. }
            | OpKind::RngBitGenerator { .. }
    )
}

/// Ops that are the identity on local pieces: a sharding constraint has done its work once
/// propagation has read it, and the per-device program passes its operand through; a
/// rotation by nothing (what [`local_kind`] makes of a rotation by whole blocks: the
/// blocks move by collective permute, `rotate.rs`).
pub fn is_identity_locally(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::ShardingConstraint(_) | OpKind::Rotate { shift: 0, .. }
    )
}

/// The op kind to run on local pieces of the given types (global types alongside).
pub fn local_kind(kind: &OpKind, global: &[TensorType], local: &[TensorType]) -> OpKind {
    match kind {
        OpKind::Slice {
            start,
            limit,
            strides,
        } => {
            // Only unsliced dimensions can be split (slicing is a permutation factor), so a
            // split dimension spans its whole local piece.
            let mut limit = limit.clone();
            for (d, l) in limit.iter_mut().enumerate() {
                if local[0].shape[d] != global[0].shape[d] {
                    *l = local[0].shape[d];
                }
            }
            OpKind::Slice {
                start: start.clone(),
                limit,
                strides: strides.clone(),
            }
        }
        OpKind::Gather(g) => {
            // A split offset dimension is gathered whole from the local piece.
            let mut g = g.clone();
            for d in 0..g.slice_sizes.len() {
                if local[0].shape[d] != global[0].shape[d] && g.slice_sizes[d] == global[0].shape[d]
                {
                    g.slice_sizes[d] = local[0].shape[d];
                }
            }
            OpKind::Gather(g)
        }
        OpKind::DynamicSlice { sizes } => {
            // Only dimensions taken whole can be split (the rule): those are whole locally.
            let mut sizes = sizes.clone();
            for (d, s) in sizes.iter_mut().enumerate() {
                if local[0].shape[d] != global[0].shape[d] {
                    *s = local[0].shape[d];
                }
            }
            OpKind::DynamicSlice { sizes }
        }
        OpKind::Rotate { dimension, shift } => {
            // A split rotated dimension is rotated by whole blocks (the rule allows no
            // other split), which move between devices: nothing moves within a piece.
            let split = local[0].shape[*dimension] != global[0].shape[*dimension];
            OpKind::Rotate {
                dimension: *dimension,
                shift: if split { 0 } else { *shift },
            }
        }
        other => other.clone(),
    }
}

/// The binary op that combines partial pieces.
pub fn combining_op(c: Combiner) -> Option<BinaryOp> {
    match c {
        Combiner::Sum => Some(BinaryOp::Add),
        Combiner::Max => Some(BinaryOp::Maximum),
        Combiner::Min => Some(BinaryOp::Minimum),
        Combiner::Product => Some(BinaryOp::Multiply),
        Combiner::And => Some(BinaryOp::And),
        Combiner::Or => Some(BinaryOp::Or),
        Combiner::Body => None,
    }
}
