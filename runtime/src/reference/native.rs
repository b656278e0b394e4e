//! The Rust types that hold each dtype's elements, and how each computes.
//!
//! [`Native`] ties a Rust type to its [`Elements`] variant so kernels can be written once,
//! generic over the element type, and dispatched with [`with_native!`]. Floats compute in
//! a [`Float`] type: `f32` in `f32`, `f64` in `f64`, and `bf16`/`f16` in `f32`, rounded
//! back to the dtype after every op ([`Compute::narrow`]), as XLA does on CPU.
//!
//! The correctly rounded conversions from `f64` and `i64` to `bf16`/`f16` live here too:
//! `half`'s own `from_f64` drops the low 32 bits of the `f64` before rounding (and on x86
//! with F16C rounds twice, through `f32`), so it misrounds values just above a tie.

use half::{bf16, f16};
use shardc_ir::{DType, Elements};
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// A Rust type that stores the elements of one dtype.
pub(crate) trait Native: Copy + PartialEq + Send + Sync + 'static {
    const DTYPE: DType;
    /// The elements as a slice of this type, if they are of [`Self::DTYPE`].
    fn slice(e: &Elements) -> Option<&[Self]>;
    /// The same, to write.
    fn slice_mut(e: &mut Elements) -> Option<&mut [Self]>;
    fn wrap(v: Vec<Self>) -> Elements;
}

macro_rules! native {
    ($t:ty, $variant:ident) => {
        impl Native for $t {
            const DTYPE: DType = DType::$variant;
            fn slice(e: &Elements) -> Option<&[Self]> {
                match e {
                    Elements::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(e: &mut Elements) -> Option<&mut [Self]> {
                match e {
                    Elements::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Elements {
                Elements::$variant(v)
            }
        }
    };
}

native!(f32, F32);
native!(f64, F64);
native!(bf16, BF16);
native!(f16, F16);
native!(i32, I32);
native!(i64, I64);
native!(bool, I1);
native!(i8, I8);
native!(i16, I16);
native!(u8, U8);
native!(u16, U16);
native!(u32, U32);
native!(u64, U64);

/// Runs `$body` with the type alias `$t` bound to the [`Native`] type of `$dtype`.
macro_rules! with_native {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            shardc_ir::DType::F32 => {
                type $t = f32;
                $body
            }
            shardc_ir::DType::F64 => {
                type $t = f64;
                $body
            }
            shardc_ir::DType::BF16 => {
                type $t = half::bf16;
                $body
            }
            shardc_ir::DType::F16 => {
                type $t = half::f16;
                $body
            }
            shardc_ir::DType::I32 => {
                type $t = i32;
                $body
            }
            shardc_ir::DType::I64 => {
                type $t = i64;
                $body
            }
            shardc_ir::DType::I1 => {
                type $t = bool;
                $body
            }
            shardc_ir::DType::I8 => {
                type $t = i8;
                $body
            }
            shardc_ir::DType::I16 => {
                type $t = i16;
                $body
            }
            shardc_ir::DType::U8 => {
                type $t = u8;
                $body
            }
            shardc_ir::DType::U16 => {
                type $t = u16;
                $body
            }
            shardc_ir::DType::U32 => {
                type $t = u32;
                $body
            }
            shardc_ir::DType::U64 => {
                type $t = u64;
                $body
            }
        }
    };
}
pub(crate) use with_native;

/// The elements as `&[T]`. Callers have checked the dtype (every operand's type is
/// checked against the op before a kernel runs), so a mismatch is an interpreter bug.
pub(crate) fn slice_of<T: Native>(e: &Elements) -> &[T] {
    T::slice(e)
        .unwrap_or_else(|| panic!("kernel expected {} elements, got {}", T::DTYPE, e.dtype()))
}

/// A float type arithmetic happens in (`f32` or `f64`), with the functions StableHLO's
/// elementwise ops need, each Rust's std function for that type.
pub(crate) trait Float:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + Send
    + Sync
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    fn exp(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn tanh(self) -> Self;
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn abs(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn round_ties_even(self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
}

macro_rules! float {
    ($t:ty) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn cbrt(self) -> Self {
                <$t>::cbrt(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn tan(self) -> Self {
                <$t>::tan(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn round(self) -> Self {
                <$t>::round(self)
            }
            fn round_ties_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
        }
    };
}

float!(f32);
float!(f64);

/// How a dtype computes: in `C` (f32 for bf16 and f16, the type itself otherwise), the
/// result rounded back to the dtype by [`Compute::narrow`].
pub(crate) trait Compute: Native {
    type C: Copy + Send + Sync + 'static;
    /// The exact value in the compute type.
    fn widen(self) -> Self::C;
    /// The compute-type value rounded to this dtype (to nearest, ties to even).
    fn narrow(c: Self::C) -> Self;
}

macro_rules! computes_as_itself {
    ($($t:ty),*) => {$(
        impl Compute for $t {
            type C = $t;
            #[inline(always)]
            fn widen(self) -> $t {
                self
            }
            #[inline(always)]
            fn narrow(c: $t) -> $t {
                c
            }
        }
    )*};
}

computes_as_itself!(f32, f64, i32, i64, bool, i8, i16, u8, u16, u32, u64);

macro_rules! computes_in_f32 {
    ($($t:ty),*) => {$(
        impl Compute for $t {
            type C = f32;
            #[inline(always)]
            fn widen(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn narrow(c: f32) -> $t {
                <$t>::from_f32(c)
            }
        }
    )*};
}

computes_in_f32!(bf16, f16);

/// A float dtype: its [`Float`] compute type, and correctly rounded conversions.
pub(crate) trait FloatStorage: Compute<C: Float> {
    /// An `f64` rounded to this dtype (to nearest, ties to even), in one rounding.
    fn from_f64(x: f64) -> Self;
    /// An `i64` rounded to this dtype (to nearest, ties to even), in one rounding.
    fn from_i64(x: i64) -> Self;
    /// The exact value as `f64`.
    fn to_f64(self) -> f64;
}

impl FloatStorage for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn from_i64(x: i64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl FloatStorage for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn from_i64(x: i64) -> f64 {
        x as f64
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl FloatStorage for bf16 {
    fn from_f64(x: f64) -> bf16 {
        bf16::from_f32(f64_to_f32_round_odd(x))
    }
    fn from_i64(x: i64) -> bf16 {
        bf16::from_f32(f64_to_f32_round_odd(i64_to_f64_round_odd(x)))
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
}

impl FloatStorage for f16 {
    fn from_f64(x: f64) -> f16 {
        f16::from_f32(f64_to_f32_round_odd(x))
    }
    fn from_i64(x: i64) -> f16 {
        f16::from_f32(f64_to_f32_round_odd(i64_to_f64_round_odd(x)))
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
}

/// `x` rounded to `f32` *to odd*: truncated toward zero, with the last bit set when that
/// lost anything. Rounding the result to nearest-even at a precision at least 2 bits
/// narrower (bf16: 8 bits, f16: 11 bits, against f32's 24) gives the correctly rounded
/// value of `x`, with no double-rounding error.
pub(crate) fn f64_to_f32_round_odd(x: f64) -> f32 {
    let y = x as f32;
    if x.is_nan() || y as f64 == x {
        return y;
    }
    let mut bits = y.to_bits();
    if (y as f64).abs() > x.abs() {
        // Rounded away from zero (possibly to infinity): step the magnitude back by one.
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `x` rounded to `f64` to odd (see [`f64_to_f32_round_odd`]); exact below 2^53.
pub(crate) fn i64_to_f64_round_odd(x: i64) -> f64 {
    let y = x as f64;
    let (xi, yi) = (x as i128, y as i128);
    if xi == yi {
        return y;
    }
    let mut bits = y.to_bits();
    if yi.abs() > xi.abs() {
        bits -= 1;
    }
    f64::from_bits(bits | 1)
}

/// Integers (`i8` .. `i64`, `ui8` .. `ui64`) with StableHLO's two's-complement
/// semantics: signed types order and divide as signed, unsigned ones as unsigned.
pub(crate) trait Int: Native + Ord {
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    /// All bits set: `-1` of a signed type, the largest value of an unsigned one.
    const MINUS_ONE: Self;
    const SIGNED: bool;
    fn wrapping_add(self, y: Self) -> Self;
    fn wrapping_sub(self, y: Self) -> Self;
    fn wrapping_mul(self, y: Self) -> Self;
    /// `self / y` (`y != 0`), wrapping at the signed minimum over -1.
    fn wrapping_div(self, y: Self) -> Self;
    /// `self % y` (`y != 0`), the dividend's sign.
    fn wrapping_rem(self, y: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    /// The absolute value (the identity on unsigned types).
    fn wrapping_abs(self) -> Self;
    /// -1, 0 or 1 (0 or 1 on unsigned types).
    fn signum(self) -> Self;
    fn not(self) -> Self;
    /// The bits read as unsigned, zero-extended (shift amounts, UNSIGNED compares).
    fn to_unsigned(self) -> u64;
    /// The bits read as signed, sign-extended (SIGNED compares of unsigned types).
    fn to_signed(self) -> i64;
    /// `self << n` for `n < BITS`.
    fn shl(self, n: u32) -> Self;
    /// Logical right shift for `n < BITS`.
    fn shr_logical(self, n: u32) -> Self;
    /// Arithmetic right shift (of the bits as signed) for `n < BITS`.
    fn shr_arithmetic(self, n: u32) -> Self;
    /// The low bits of `x` (two's-complement wrap).
    fn from_i64_wrapping(x: i64) -> Self;
}

macro_rules! int {
    ($t:ty, $u:ty, $s:ty, $signed:expr) => {
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MINUS_ONE: Self = (-1 as $s) as $t;
            const SIGNED: bool = $signed;
            fn wrapping_add(self, y: Self) -> Self {
                <$t>::wrapping_add(self, y)
            }
            fn wrapping_sub(self, y: Self) -> Self {
                <$t>::wrapping_sub(self, y)
            }
            fn wrapping_mul(self, y: Self) -> Self {
                <$t>::wrapping_mul(self, y)
            }
            fn wrapping_div(self, y: Self) -> Self {
                <$t>::wrapping_div(self, y)
            }
            fn wrapping_rem(self, y: Self) -> Self {
                <$t>::wrapping_rem(self, y)
            }
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            fn wrapping_abs(self) -> Self {
                if $signed {
                    (self as $s).wrapping_abs() as $t
                } else {
                    self
                }
            }
            fn signum(self) -> Self {
                if $signed {
                    (self as $s).signum() as $t
                } else {
                    (self != 0) as $t
                }
            }
            fn not(self) -> Self {
                !self
            }
            fn to_unsigned(self) -> u64 {
                self as $u as u64
            }
            fn to_signed(self) -> i64 {
                self as $s as i64
            }
            fn shl(self, n: u32) -> Self {
                self << n
            }
            fn shr_logical(self, n: u32) -> Self {
                ((self as $u) >> n) as $t
            }
            fn shr_arithmetic(self, n: u32) -> Self {
                ((self as $s) >> n) as $t
            }
            fn from_i64_wrapping(x: i64) -> Self {
                x as $t
            }
        }
    };
}

int!(i8, u8, i8, true);
int!(i16, u16, i16, true);
int!(i32, u32, i32, true);
int!(i64, u64, i64, true);
int!(u8, u8, i8, false);
int!(u16, u16, i16, false);
int!(u32, u32, i32, false);
int!(u64, u64, i64, false);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_to_bf16_rounds_once() {
        // 1 + 2^-8 is the tie between bf16 1.0 and 1 + 2^-7; a bit of 2^-40 above it must
        // round up. Dropping the f64's low 32 bits (as `half` does) would round down.
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(<bf16 as FloatStorage>::from_f64(x).to_bits(), 0x3F81);
        // The exact tie rounds to even.
        assert_eq!(
            <bf16 as FloatStorage>::from_f64(1.0 + 2f64.powi(-8)).to_bits(),
            0x3F80
        );
        assert_eq!(
            <bf16 as FloatStorage>::from_f64(1.0 + 3.0 * 2f64.powi(-8)).to_bits(),
            0x3F82
        );
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // f16 has 10 fraction bits: the tie above 1.0 is 1 + 2^-11.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-45);
        assert_eq!(<f16 as FloatStorage>::from_f64(x).to_bits(), 0x3C01);
        assert_eq!(
            <f16 as FloatStorage>::from_f64(1.0 + 2f64.powi(-11)).to_bits(),
            0x3C00
        );
        assert_eq!(
            <f16 as FloatStorage>::from_f64(65520.0).to_bits(),
            0x7C00,
            "rounds to infinity"
        );
        assert_eq!(<f16 as FloatStorage>::from_f64(65519.99).to_bits(), 0x7BFF);
        assert_eq!(<f16 as FloatStorage>::from_f64(1e300).to_bits(), 0x7C00);
        assert_eq!(<f16 as FloatStorage>::from_f64(-1e-300).to_bits(), 0x8000);
        assert_eq!(
            <f16 as FloatStorage>::from_f64(2f64.powi(-24)).to_bits(),
            0x0001
        );
        assert!(<f16 as FloatStorage>::from_f64(f64::NAN).is_nan());
    }

    #[test]
    fn i64_to_half_rounds_once() {
        // bf16 keeps 8 significant bits, so its ulp at 2^60 is 2^53 and the tie above 2^60
        // is 2^60 + 2^52; one more is above the tie and rounds up. (i64 -> f64 alone
        // would already round the +1 away, and then the tie would round down to even.)
        let x = (1i64 << 60) + (1i64 << 52) + 1;
        assert_eq!(
            <bf16 as FloatStorage>::from_i64(x).to_f64(),
            (2f64).powi(60) + (2f64).powi(53)
        );
        assert_eq!(
            <bf16 as FloatStorage>::from_i64(-x).to_f64(),
            -((2f64).powi(60) + (2f64).powi(53))
        );
        assert_eq!(<f16 as FloatStorage>::from_i64(2049).to_f64(), 2048.0);
        assert_eq!(<f16 as FloatStorage>::from_i64(2051).to_f64(), 2052.0);
        assert_eq!(<f16 as FloatStorage>::from_i64(i64::MIN).to_bits(), 0xFC00);
    }
}
