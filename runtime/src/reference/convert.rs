//! `stablehlo.convert`: every element type to every other.
//!
//! Each source element is read as an exact number ([`Num`]) and written in the target
//! type, rounding once:
//! - float → float rounds to nearest, ties to even (directly, also from f64 to bf16/f16);
//! - float → int truncates toward zero and saturates at the type's bounds; NaN gives 0
//!   (the spec leaves out-of-range values TBD; this is XLA's CPU behaviour);
//! - int → float rounds to nearest, ties to even; int → int wraps (two's complement);
//! - bool → number gives 0 or 1; number → bool is `x != 0` (so NaN gives true).

use super::native::{FloatStorage, Int, Native, slice_of, with_native};
use super::{InterpError, Site};
use half::{bf16, f16};
use shardc_ir::{Literal, TensorType};

/// An element as an exact number: every float dtype is exact in `f64`, every integer in
/// `i64` (a `ui64` above `i64::MAX` as `u64`).
#[derive(Copy, Clone, Debug)]
pub(crate) enum Num {
    Float(f64),
    Int(i64),
    /// A `ui64` above `i64::MAX`.
    UInt(u64),
    Bool(bool),
}

/// How an element type reads as and is written from a [`Num`].
pub(crate) trait Convert: Native {
    fn to_num(self) -> Num;
    fn from_num(n: Num) -> Self;
}

macro_rules! float_convert {
    ($t:ty) => {
        impl Convert for $t {
            fn to_num(self) -> Num {
                Num::Float(FloatStorage::to_f64(self))
            }
            fn from_num(n: Num) -> Self {
                match n {
                    Num::Float(x) => <$t as FloatStorage>::from_f64(x),
                    Num::Int(i) => <$t as FloatStorage>::from_i64(i),
                    // Above 2^63: u64 -> f64 rounds (to nearest), then once more for
                    // narrower types; exact enough for what such values are (bit patterns).
                    Num::UInt(u) => <$t as FloatStorage>::from_f64(u as f64),
                    Num::Bool(b) => <$t as FloatStorage>::from_i64(b as i64),
                }
            }
        }
    };
}

float_convert!(f32);
float_convert!(f64);
float_convert!(bf16);
float_convert!(f16);

macro_rules! int_convert {
    ($t:ty) => {
        impl Convert for $t {
            fn to_num(self) -> Num {
                // Every integer is exact as an i64 but a ui64 above i64::MAX, which is
                // read as an exact u64 converted once.
                match i64::try_from(self) {
                    Ok(i) => Num::Int(i),
                    Err(_) => Num::UInt(self as u64),
                }
            }
            fn from_num(n: Num) -> Self {
                match n {
                    // Rust's float-to-int `as` truncates toward zero, saturates, NaN -> 0.
                    Num::Float(x) => x as $t,
                    Num::Int(i) => <$t as Int>::from_i64_wrapping(i),
                    Num::UInt(u) => u as $t,
                    Num::Bool(b) => b as $t,
                }
            }
        }
    };
}

int_convert!(i8);
int_convert!(i16);
int_convert!(i32);
int_convert!(i64);
int_convert!(u8);
int_convert!(u16);
int_convert!(u32);
int_convert!(u64);

impl Convert for bool {
    fn to_num(self) -> Num {
        Num::Bool(self)
    }
    fn from_num(n: Num) -> bool {
        match n {
            Num::Float(x) => x != 0.0,
            Num::Int(i) => i != 0,
            Num::UInt(u) => u != 0,
            Num::Bool(b) => b,
        }
    }
}

pub(crate) fn convert(x: &Literal, out: &TensorType) -> Literal {
    let elements = with_native!(x.ty.dtype, S => {
        let xs = slice_of::<S>(&x.elements);
        with_native!(out.dtype, D => D::wrap(xs.iter().map(|&v| D::from_num(v.to_num())).collect()))
    });
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `stablehlo.bitcast_convert`: the operand's bytes, little endian and row major, read as
/// the result type. Between widths the narrow elements of one wide element are its bytes
/// from the least significant up (as XLA's CPU backend lays them out).
pub(crate) fn bitcast(site: &Site, x: &Literal, out: &TensorType) -> Result<Literal, InterpError> {
    Literal::from_le_bytes(out, &x.to_le_bytes()).map_err(|e| {
        site.invalid(
            format!("cannot reinterpret {} as {out}: {e}", x.ty),
            "give bitcast_convert a result of the operand's bit count",
        )
    })
}
