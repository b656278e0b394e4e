//! Linearity: which ops can run on partial (unreduced) operands, and return a partial
//! result owing the same reduction. A table of per-op knowledge; propagation reads it to
//! add the collective-algebra rewrites
//!
//! ```text
//! all_reduce(x) + all_reduce(y) = all_reduce(x + y)        add, subtract: jointly linear
//! f(all_reduce(x))              = all_reduce(f(x))         f linear in x: negate, reshape,
//!                                                          transpose, broadcast, slice, convert,
//!                                                          dynamic_slice (complete offsets),
//!                                                          sharding_constraint
//! dus(all_reduce(x), all_reduce(u), i)                     dynamic_update_slice: jointly
//!                               = all_reduce(dus(x, u, i)) linear in operand and update
//! all_reduce(x) * y             = all_reduce(x * y)        multiply, dot_general: linear in
//!                                                          each operand, the other complete
//! all_reduce(x) / y             = all_reduce(x / y)        divide: linear in the dividend
//! ```
//!
//! Only sums distribute this way; partial maxima and minima are reduced before use.

use shardc_ir::{BinaryOp, Op, OpKind, UnaryOp};

/// How an op treats partial-sum operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Linearity {
    /// The op needs complete operands.
    None,
    /// Linear in each listed operand on its own, with the other operands complete.
    Each(Vec<usize>),
    /// Linear in the listed operands together: all partial over the same axes, the
    /// others complete.
    Joint(Vec<usize>),
}

/// The linearity of an op.
pub fn linearity(op: &Op) -> Linearity {
    match &op.kind {
        OpKind::Binary(BinaryOp::Add | BinaryOp::Subtract) | OpKind::Concatenate { .. } => {
            Linearity::Joint((0..op.operands.len()).collect())
        }
        // Writing a partial block into a partial tensor at complete offsets (a scan's
        // gradient accumulators).
        OpKind::DynamicUpdateSlice => Linearity::Joint(vec![0, 1]),
        OpKind::Unary(UnaryOp::Negate)
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::BroadcastInDim { .. }
        | OpKind::Slice { .. }
        | OpKind::Reverse { .. }
        | OpKind::Convert
        | OpKind::DynamicSlice { .. }
        // An identity: a constraint that leaves a value unreduced (JAX's
        // `out_sharding=P(..., unreduced={"x"})`) holds the partial sum as it is.
        | OpKind::ShardingConstraint(_) => Linearity::Each(vec![0]),
        OpKind::Binary(BinaryOp::Multiply) | OpKind::DotGeneral(_) => Linearity::Each(vec![0, 1]),
        // all_reduce(x) / y = all_reduce(x / y): a mean is a sum over a count.
        OpKind::Binary(BinaryOp::Divide) => Linearity::Each(vec![0]),
        _ => Linearity::None,
    }
}
