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
use half::{bf16, f16};
use shardc_ir::{Literal, TensorType};

/// An element as an exact number: every float dtype is exact in `f64`, every integer in
/// `i64`.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Num {
    Float(f64),
    Int(i64),
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
                Num::Int(Int::to_i64(self))
            }
            fn from_num(n: Num) -> Self {
                match n {
                    // Rust's float-to-int `as` truncates toward zero, saturates, NaN -> 0.
                    Num::Float(x) => x as $t,
                    Num::Int(i) => <$t as Int>::from_i64_wrapping(i),
                    Num::Bool(b) => b as $t,
                }
            }
        }
    };
}

int_convert!(i32);
int_convert!(i64);

impl Convert for bool {
    fn to_num(self) -> Num {
        Num::Bool(self)
    }
    fn from_num(n: Num) -> bool {
        match n {
            Num::Float(x) => x != 0.0,
            Num::Int(i) => i != 0,
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
