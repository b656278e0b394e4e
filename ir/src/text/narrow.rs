//! Narrow element types, read at the door as a wider type holding their values exactly:
//! float8 (`f8E4M3FN`, `f8E5M2`) as f32, and 4-bit integers (`i4`, `ui4`) as i8 and u8.
//! Every op computes in the holding type, as XLA computes on them where the hardware has
//! no such arithmetic, and a result of a narrow type is brought back into it: float8
//! results are rounded to the format; 4-bit integer results wrap to their low 4 bits, and
//! a convert from a float saturates (as XLA converts floats to any integer type).
//!
//! Flax's `fp8_ops`, quantize-dequantize steps (`x.astype(float8).astype(f32)`) and int4
//! weight quantization give programs whose narrow values live between converts; the rest
//! of shardc sees floats and bytes only. A computing op whose result is narrow is followed
//! by [`narrow`]; ops that only move values (`reshape`, `transpose`, `slice`, `select`,
//! loops, ...) keep them exact and are not narrowed again. A public function's narrow
//! argument is passed in its holding type and narrowed on entry (an int4 argument is an
//! int8 whose low 4 bits are the value); its narrow results are given in the holding
//! type. `bitcast_convert` of narrow bits is refused, naming the value.

use super::chlo::Emit;
use super::parse::{FuncState, Parsed};
use crate::builder::FunctionBuilder;
use crate::dtype::DType;
use crate::error::IrError;
use crate::module::ValueId;
use crate::op::{BinaryOp, ComparisonDirection, OpKind, UnaryOp};

/// A narrow element type shardc reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Narrow {
    /// `f8E4M3FN`: 4 exponent bits (bias 7), 3 mantissa bits, no infinities (an exponent of
    /// all ones is finite but for one NaN pattern), largest finite 448.
    F8E4M3FN,
    /// `f8E5M2`: IEEE-like, 5 exponent bits (bias 15), 2 mantissa bits, infinities.
    F8E5M2,
    /// `i4`: two's complement, -8..=7.
    I4,
    /// `ui4`: 0..=15.
    U4,
}

/// The float8 types read, as the error for the others lists them.
pub(super) const FLOAT8_READ: &str = "f8E4M3FN and f8E5M2";

impl Narrow {
    /// The MLIR spelling's type, or `None`.
    pub(super) fn from_name(s: &str) -> Option<Narrow> {
        match s {
            "f8E4M3FN" => Some(Narrow::F8E4M3FN),
            "f8E5M2" => Some(Narrow::F8E5M2),
            "i4" => Some(Narrow::I4),
            "ui4" => Some(Narrow::U4),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Narrow::F8E4M3FN => "f8E4M3FN",
            Narrow::F8E5M2 => "f8E5M2",
            Narrow::I4 => "i4",
            Narrow::U4 => "ui4",
        }
    }

    /// The type that holds its values.
    pub(super) fn held_as(self) -> DType {
        match self {
            Narrow::F8E4M3FN | Narrow::F8E5M2 => DType::F32,
            Narrow::I4 => DType::I8,
            Narrow::U4 => DType::U8,
        }
    }

    /// `(exponent_bits, mantissa_bits)` of the IEEE-like format whose rounding of normal
    /// numbers is this float8's: E4M3FN's top binade holds finite values where an IEEE
    /// 4-bit exponent would overflow, so its normal numbers round as with 5 exponent bits.
    fn normal_rounding(self) -> (u32, u32) {
        match self {
            Narrow::F8E4M3FN => (5, 3),
            _ => (5, 2),
        }
    }

    /// The exponent of the smallest normal float8 number: below it, numbers are multiples
    /// of `2^(min_exponent - mantissa_bits)`.
    fn min_exponent(self) -> i32 {
        match self {
            Narrow::F8E4M3FN => -6,
            _ => -14,
        }
    }

    /// The largest finite float8 value where overflowing gives NaN (no infinities), or
    /// `None` where it gives infinity (as IEEE rounding does).
    fn nan_above(self) -> Option<f64> {
        match self {
            Narrow::F8E4M3FN => Some(448.0),
            _ => None,
        }
    }

    /// The range of a 4-bit integer type.
    fn int_range(self) -> (f64, f64) {
        match self {
            Narrow::I4 => (-8.0, 7.0),
            _ => (0.0, 15.0),
        }
    }
}

/// Whether an op computes values, so that a narrow result of it is narrowed (`false` for
/// ops that only move or select values, which stay exact), or is refused (`Err` with the
/// reason).
pub(super) fn computes(kind: &OpKind, narrow: Option<Narrow>) -> Result<bool, String> {
    let holding = narrow.map_or(DType::F32, Narrow::held_as);
    Ok(match kind {
        OpKind::BitcastConvert => {
            let name = narrow.map_or("narrow", Narrow::name);
            return Err(format!(
                "reinterprets the bits of {name} values, which shardc holds as {holding} values; convert instead (`x.astype(...)`)"
            ));
        }
        // Bits above the 4 are the sign's copies (i4) or zeros (ui4): these would read them.
        OpKind::Binary(BinaryOp::ShiftRightLogical) | OpKind::Unary(UnaryOp::Popcnt)
            if narrow == Some(Narrow::I4) =>
        {
            return Err(high_bits(narrow, holding));
        }
        OpKind::Unary(UnaryOp::CountLeadingZeros) if !holding.is_float() => {
            return Err(high_bits(narrow, holding));
        }
        // Negating a float is exact; negating the smallest integer wraps.
        OpKind::Unary(UnaryOp::Negate | UnaryOp::Abs) => !holding.is_float(),
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
        | OpKind::Rotate { .. } => false,
        // Ops with regions compute in them, where narrow results are narrowed already.
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

/// Why an op that reads the holding type's bits above a 4-bit integer's is refused.
fn high_bits(narrow: Option<Narrow>, holding: DType) -> String {
    let name = narrow.map_or("narrow", Narrow::name);
    let wide = if holding.is_unsigned() {
        "uint8"
    } else {
        "int8"
    };
    format!(
        "reads the bits above the 4 of {name} values, which shardc holds as {holding} values; compute it on {holding} (`x.astype(jnp.{wide})`) and convert back"
    )
}

/// `x` (held in `format`'s holding type, any value) brought into `format`, as XLA's
/// convert to it does: float8 rounds to the nearest value (ties to even; overflow gives
/// infinity for E5M2, NaN for E4M3FN; NaN stays NaN; subnormal numbers are kept); a 4-bit
/// integer wraps to its low 4 bits, or, where `from_float` (a convert of a float, which
/// saturates to the holding type already), saturates to its range.
pub(super) fn narrow(
    b: &mut FunctionBuilder,
    x: ValueId,
    format: Narrow,
    from_float: bool,
) -> Result<ValueId, IrError> {
    let mut e = Emit::new(b, format!("\"convert to {}\"", format.name()));
    match format {
        Narrow::F8E4M3FN | Narrow::F8E5M2 => round_float8(&mut e, x, format),
        Narrow::I4 | Narrow::U4 if from_float => {
            let (lo, hi) = format.int_range();
            let lo = e.c(x, lo);
            let hi = e.c(x, hi);
            let above = e.bin(BinaryOp::Maximum, x, lo)?;
            e.bin(BinaryOp::Minimum, above, hi)
        }
        Narrow::I4 => {
            // Sign-extend the low 4 bits of the 8: shift them to the top and back.
            let four = e.c(x, 4.0);
            let top = e.bin(BinaryOp::ShiftLeft, x, four)?;
            e.bin(BinaryOp::ShiftRightArithmetic, top, four)
        }
        Narrow::U4 => {
            let low = e.c(x, 15.0);
            e.bin(BinaryOp::And, x, low)
        }
    }
}

fn round_float8(e: &mut Emit<'_>, x: ValueId, format: Narrow) -> Result<ValueId, IrError> {
    use ComparisonDirection::{Gt, Lt};
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

/// Whether an op reads or writes narrow values: `written` holds, for each tensor type its
/// text wrote, its narrow type if it was one.
pub(super) fn involved(
    f: &FuncState,
    parsed: &Parsed,
    written: &[Option<(Narrow, usize)>],
) -> bool {
    written.iter().any(Option::is_some)
        || parsed.operands.iter().any(|u| f.narrow.contains_key(&u.id))
}
