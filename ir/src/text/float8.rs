//! Float8 values (`f8E4M3FN`, `f8E5M2`), read at the door as f32 holding float8 values
//! exactly, as XLA computes on them where the hardware has no float8 arithmetic: every op
//! computes in f32, and a result of a float8 type is rounded to it.
//!
//! Flax's `fp8_ops` and hand-written quantize-dequantize steps (`x.astype(float8)
//! .astype(f32)`) give programs whose float8 values live between two converts; the rest of
//! shardc sees floats only. A `convert` (or any computing op) to a float8 type is followed
//! by [`round`]; ops that only move values (`reshape`, `transpose`, `slice`, `select`,
//! loops, ...) keep them exact and are not rounded again. What is refused, naming the
//! value: a float8 argument or result of a function (its bytes would be read as float8,
//! and shardc holds them as f32), and `bitcast_convert` of float8 bits.

use super::chlo::Emit;
use super::parse::{FuncState, Parsed};
use crate::builder::FunctionBuilder;
use crate::error::IrError;
use crate::module::ValueId;
use crate::op::{ComparisonDirection, OpKind, UnaryOp};

/// A float8 format shardc reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Float8 {
    /// `f8E4M3FN`: 4 exponent bits (bias 7), 3 mantissa bits, no infinities (an exponent of
    /// all ones is finite but for one NaN pattern), largest finite 448.
    E4M3FN,
    /// `f8E5M2`: IEEE-like, 5 exponent bits (bias 15), 2 mantissa bits, infinities.
    E5M2,
}

/// The float8 types read, as the error for the others lists them.
pub(super) const READ: &str = "f8E4M3FN and f8E5M2";

impl Float8 {
    /// The MLIR spelling's format, or `None`.
    pub(super) fn from_name(s: &str) -> Option<Float8> {
        match s {
            "f8E4M3FN" => Some(Float8::E4M3FN),
            "f8E5M2" => Some(Float8::E5M2),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Float8::E4M3FN => "f8E4M3FN",
            Float8::E5M2 => "f8E5M2",
        }
    }

    /// `(exponent_bits, mantissa_bits)` of the IEEE-like format whose rounding of normal
    /// numbers is this one's: E4M3FN's top binade holds finite values where an IEEE 4-bit
    /// exponent would overflow, so its normal numbers round as with 5 exponent bits.
    fn normal_rounding(self) -> (u32, u32) {
        match self {
            Float8::E4M3FN => (5, 3),
            Float8::E5M2 => (5, 2),
        }
    }

    /// The exponent of the smallest normal number: below it, numbers are multiples of
    /// `2^(min_exponent - mantissa_bits)`.
    fn min_exponent(self) -> i32 {
        match self {
            Float8::E4M3FN => -6,
            Float8::E5M2 => -14,
        }
    }

    /// The largest finite value where overflowing gives NaN (no infinities), or `None`
    /// where it gives infinity (as IEEE rounding does).
    fn nan_above(self) -> Option<f64> {
        match self {
            Float8::E4M3FN => Some(448.0),
            Float8::E5M2 => None,
        }
    }
}

/// Whether an op computes values, so that a float8 result of it is rounded (`false` for
/// ops that only move or select values, which stay exact), or is refused (`Err` with the
/// reason).
pub(super) fn computes(kind: &OpKind) -> Result<bool, &'static str> {
    Ok(match kind {
        OpKind::BitcastConvert => {
            return Err(
                "reinterprets float8 bits, which shardc holds as f32 values; convert instead (`x.astype(jnp.float32)`)",
            );
        }
        OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::BroadcastInDim { .. }
        | OpKind::Slice { .. }
        | OpKind::DynamicSlice { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Concatenate { .. }
        | OpKind::Select
        | OpKind::Pad { .. }
        | OpKind::Reverse { .. }
        | OpKind::Gather(_)
        | OpKind::Constant(_)
        | OpKind::ShardingConstraint(_)
        | OpKind::OptimizationBarrier
        | OpKind::AllGather { .. }
        | OpKind::AllToAll { .. }
        | OpKind::CollectivePermute { .. }
        | OpKind::ShardSlice { .. }
        | OpKind::Rotate { .. }
        | OpKind::Unary(UnaryOp::Negate | UnaryOp::Abs) => false,
        // Ops with regions compute in them, where float8 results are rounded already.
        OpKind::While
        | OpKind::Case
        | OpKind::Reduce { .. }
        | OpKind::ReduceWindow(_)
        | OpKind::Scatter(_)
        | OpKind::SelectAndScatter(_)
        | OpKind::Sort { .. }
        | OpKind::ManualComputation { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. } => false,
        _ => true,
    })
}

/// `x` (f32 holding any value) rounded to the nearest value of `format` (ties to even),
/// as XLA's convert to it rounds: overflow gives infinity (E5M2) or NaN (E4M3FN), NaN
/// stays NaN, and subnormal numbers are kept.
pub(super) fn round(
    b: &mut FunctionBuilder,
    x: ValueId,
    format: Float8,
) -> Result<ValueId, IrError> {
    use ComparisonDirection::{Gt, Lt};
    let mut e = Emit::new(b, format!("\"convert to {}\"", format.name()));
    let (exponent, mantissa) = format.normal_rounding();
    let normal = e.reduce_precision(x, exponent, mantissa)?;
    // Below the smallest normal, the step is fixed: round x / step to an integer.
    let min = format.min_exponent();
    let magnitude = e.un(UnaryOp::Abs, x)?;
    let smallest_normal = e.c(x, f64::from(min).exp2());
    let small = e.cmp(Lt, magnitude, smallest_normal)?;
    let steps = f64::from(mantissa as i32 - min).exp2();
    let per_step = e.c(x, steps);
    let scaled = e.mul(x, per_step)?;
    let whole = e.un(UnaryOp::RoundNearestEven, scaled)?;
    let step = e.c(x, 1.0 / steps);
    let subnormal = e.mul(whole, step)?;
    let r = e.select(small, subnormal, normal)?;
    let Some(max) = format.nan_above() else {
        return Ok(r);
    };
    let size = e.un(UnaryOp::Abs, r)?;
    let limit = e.c(x, max);
    let over = e.cmp(Gt, size, limit)?;
    let nan = e.c(x, f64::NAN);
    e.select(over, nan, r)
}

/// Whether an op reads or writes float8 values: `written` holds, for each tensor type its
/// text wrote, its float8 format if it was one.
pub(super) fn involved(
    f: &FuncState,
    parsed: &Parsed,
    written: &[Option<(Float8, usize)>],
) -> bool {
    written.iter().any(Option::is_some)
        || parsed.operands.iter().any(|u| f.float8.contains_key(&u.id))
}
