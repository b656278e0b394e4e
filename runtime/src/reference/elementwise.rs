//! Elementwise ops: the unary and binary families, `compare`, `select` and `clamp`.
//!
//! The semantics of each op on each element type is a table entry of [`Lane`]: a function
//! of the compute type (`fn(f32) -> f32` for `stablehlo.exponential` on f32, bf16 and f16;
//! `fn(f64) -> f64` on f64; wrapping integer functions on i32/i64; boolean ones on i1).
//! The kernels are written once, generic over the lane, and loop over plain slices.
//! A missing table entry is the error "op not defined on this element type".
//!
//! Choices where StableHLO's spec is silent or loose (they follow XLA on CPU):
//! - integer `divide` by zero gives -1 and `remainder` by zero gives the dividend;
//!   `MIN / -1` wraps to `MIN` and `MIN % -1` is 0;
//! - `shift_left` and `shift_right_logical` by an amount outside `[0, bits)` (read as
//!   unsigned) give 0, `shift_right_arithmetic` gives the sign fill (0 or -1);
//! - integer `power` with a negative exponent gives 0, except for bases 1 (gives 1) and
//!   -1 (gives ±1 by the exponent's parity); it wraps on overflow;
//! - `sign` of ±0.0 is that zero (the spec's pseudo-code compares with FLOAT semantics,
//!   under which +0.0 == -0.0; the reference interpreter and XLA keep the zero's sign);
//! - `maximum`/`minimum` on floats are IEEE-754 `maximum`/`minimum`: a NaN operand gives
//!   NaN, and -0.0 < +0.0;
//! - `rsqrt` is `1 / sqrt(x)` and `logistic` is `1 / (1 + exp(-x))` in the compute type;
//! - `compare` with `TOTALORDER` orders floats by IEEE-754 `totalOrder` for every
//!   direction (so `-0.0 < +0.0` and a NaN equals a NaN with the same bits); on `i1`,
//!   `SIGNED` reads `true` as -1.

use super::native::{Float, FloatStorage, Int, Native, slice_of, with_native};
use super::{InterpError, Site};
use half::{bf16, f16};
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, Elements, Literal, TensorType, UnaryOp,
};
use std::cmp::Ordering;

/// Per-element-type tables of elementwise semantics.
pub(crate) trait Lane: Native {
    /// A unary table entry.
    type Un: Copy;
    /// A binary table entry.
    type Bin: Copy;
    fn unary(op: UnaryOp) -> Option<Self::Un>;
    fn apply_unary(f: Self::Un, x: Self) -> Self;
    /// Unary ops that give `i1` (`is_finite`).
    fn predicate(op: UnaryOp) -> Option<fn(Self) -> bool>;
    fn binary(op: BinaryOp) -> Option<Self::Bin>;
    fn apply_binary(f: Self::Bin, x: Self, y: Self) -> Self;
    /// The order `compare` uses under a comparison type; `None` for an unordered pair
    /// (a NaN under FLOAT).
    fn comparator(ty: ComparisonType) -> Option<fn(Self, Self) -> Option<Ordering>>;
    /// The comparison type when `compare` gives none.
    const DEFAULT_COMPARE: ComparisonType;
}

fn float_unary<C: Float>(op: UnaryOp) -> Option<fn(C) -> C> {
    use UnaryOp::*;
    Some(match op {
        Negate => |x: C| -x,
        Exponential => C::exp,
        ExponentialMinusOne => C::exp_m1,
        Log => C::ln,
        LogPlusOne => C::ln_1p,
        Tanh => C::tanh,
        Sqrt => C::sqrt,
        Rsqrt => |x: C| C::ONE / x.sqrt(),
        Cbrt => C::cbrt,
        Abs => C::abs,
        Logistic => |x: C| C::ONE / (C::ONE + (-x).exp()),
        Sine => C::sin,
        Cosine => C::cos,
        Tan => C::tan,
        Floor => C::floor,
        Ceil => C::ceil,
        Sign => float_sign,
        RoundNearestEven => C::round_ties_even,
        RoundNearestAfz => C::round,
        Not | IsFinite => return None,
    })
}

fn float_sign<C: Float>(x: C) -> C {
    if x.is_nan() || x == C::ZERO {
        x
    } else if x < C::ZERO {
        -C::ONE
    } else {
        C::ONE
    }
}

fn float_binary<C: Float>(op: BinaryOp) -> Option<fn(C, C) -> C> {
    use BinaryOp::*;
    Some(match op {
        Add => |x: C, y: C| x + y,
        Subtract => |x: C, y: C| x - y,
        Multiply => |x: C, y: C| x * y,
        Divide => |x: C, y: C| x / y,
        // Rust's float `%` is C's fmod: the sign of the dividend, truncated quotient.
        Remainder => |x: C, y: C| x % y,
        Maximum => float_maximum,
        Minimum => float_minimum,
        Power => C::powf,
        Atan2 => C::atan2,
        And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => return None,
    })
}

/// IEEE-754 `maximum`: NaN if either operand is NaN, and -0.0 < +0.0.
fn float_maximum<C: Float>(x: C, y: C) -> C {
    if x.is_nan() {
        x
    } else if y.is_nan() {
        y
    } else if x > y {
        x
    } else if y > x || x.is_sign_negative() {
        y
    } else {
        x
    }
}

/// IEEE-754 `minimum`: NaN if either operand is NaN, and -0.0 < +0.0.
fn float_minimum<C: Float>(x: C, y: C) -> C {
    if x.is_nan() {
        x
    } else if y.is_nan() {
        y
    } else if x < y {
        x
    } else if y < x || !x.is_sign_negative() {
        y
    } else {
        x
    }
}

fn float_comparator<S: FloatStorage>(ty: ComparisonType) -> Option<fn(S, S) -> Option<Ordering>> {
    match ty {
        ComparisonType::Float => Some(|x: S, y: S| x.widen().partial_cmp(&y.widen())),
        ComparisonType::TotalOrder => Some(|x: S, y: S| Some(x.widen().total_cmp(&y.widen()))),
        ComparisonType::Signed | ComparisonType::Unsigned => None,
    }
}

macro_rules! float_lane {
    ($t:ty) => {
        impl Lane for $t {
            type Un = fn(<$t as FloatStorage>::C) -> <$t as FloatStorage>::C;
            type Bin =
                fn(<$t as FloatStorage>::C, <$t as FloatStorage>::C) -> <$t as FloatStorage>::C;
            const DEFAULT_COMPARE: ComparisonType = ComparisonType::Float;
            fn unary(op: UnaryOp) -> Option<Self::Un> {
                float_unary(op)
            }
            #[inline]
            fn apply_unary(f: Self::Un, x: Self) -> Self {
                Self::narrow(f(x.widen()))
            }
            fn predicate(op: UnaryOp) -> Option<fn(Self) -> bool> {
                match op {
                    UnaryOp::IsFinite => Some(|x: Self| x.widen().is_finite()),
                    _ => None,
                }
            }
            fn binary(op: BinaryOp) -> Option<Self::Bin> {
                float_binary(op)
            }
            #[inline]
            fn apply_binary(f: Self::Bin, x: Self, y: Self) -> Self {
                Self::narrow(f(x.widen(), y.widen()))
            }
            fn comparator(ty: ComparisonType) -> Option<fn(Self, Self) -> Option<Ordering>> {
                float_comparator::<$t>(ty)
            }
        }
    };
}

float_lane!(f32);
float_lane!(f64);
float_lane!(bf16);
float_lane!(f16);

fn int_unary<I: Int>(op: UnaryOp) -> Option<fn(I) -> I> {
    Some(match op {
        UnaryOp::Negate => I::wrapping_neg,
        UnaryOp::Abs => I::wrapping_abs,
        UnaryOp::Sign => I::signum,
        UnaryOp::Not => I::not,
        _ => return None,
    })
}

fn int_binary<I: Int>(op: BinaryOp) -> Option<fn(I, I) -> I> {
    use BinaryOp::*;
    Some(match op {
        Add => I::wrapping_add,
        Subtract => I::wrapping_sub,
        Multiply => I::wrapping_mul,
        Divide => |x: I, y: I| {
            if y == I::ZERO {
                I::MINUS_ONE
            } else {
                x.wrapping_div(y)
            }
        },
        Remainder => |x: I, y: I| if y == I::ZERO { x } else { x.wrapping_rem(y) },
        Maximum => |x: I, y: I| x.max(y),
        Minimum => |x: I, y: I| x.min(y),
        Power => int_power,
        And => I::and,
        Or => I::or,
        Xor => I::xor,
        ShiftLeft => |x: I, n: I| {
            if n.to_unsigned() >= I::BITS as u64 {
                I::ZERO
            } else {
                x.shl(n.to_unsigned() as u32)
            }
        },
        ShiftRightLogical => |x: I, n: I| {
            if n.to_unsigned() >= I::BITS as u64 {
                I::ZERO
            } else {
                x.shr_logical(n.to_unsigned() as u32)
            }
        },
        ShiftRightArithmetic => {
            |x: I, n: I| x.shr_arithmetic((n.to_unsigned().min(I::BITS as u64 - 1)) as u32)
        }
        Atan2 => return None,
    })
}

/// Integer power by squaring, wrapping; negative exponents as XLA defines them.
fn int_power<I: Int>(base: I, exp: I) -> I {
    if exp < I::ZERO {
        return if base == I::ONE {
            I::ONE
        } else if base == I::MINUS_ONE {
            if exp.to_unsigned() & 1 == 0 {
                I::ONE
            } else {
                I::MINUS_ONE
            }
        } else {
            I::ZERO
        };
    }
    let (mut result, mut b, mut e) = (I::ONE, base, exp.to_unsigned());
    while e != 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    result
}

fn int_comparator<I: Int>(ty: ComparisonType) -> Option<fn(I, I) -> Option<Ordering>> {
    match ty {
        ComparisonType::Signed => Some(|x: I, y: I| Some(x.cmp(&y))),
        ComparisonType::Unsigned => Some(|x: I, y: I| Some(x.to_unsigned().cmp(&y.to_unsigned()))),
        ComparisonType::Float | ComparisonType::TotalOrder => None,
    }
}

macro_rules! int_lane {
    ($t:ty) => {
        impl Lane for $t {
            type Un = fn($t) -> $t;
            type Bin = fn($t, $t) -> $t;
            const DEFAULT_COMPARE: ComparisonType = ComparisonType::Signed;
            fn unary(op: UnaryOp) -> Option<Self::Un> {
                int_unary(op)
            }
            #[inline]
            fn apply_unary(f: Self::Un, x: Self) -> Self {
                f(x)
            }
            fn predicate(_: UnaryOp) -> Option<fn(Self) -> bool> {
                None
            }
            fn binary(op: BinaryOp) -> Option<Self::Bin> {
                int_binary(op)
            }
            #[inline]
            fn apply_binary(f: Self::Bin, x: Self, y: Self) -> Self {
                f(x, y)
            }
            fn comparator(ty: ComparisonType) -> Option<fn(Self, Self) -> Option<Ordering>> {
                int_comparator::<$t>(ty)
            }
        }
    };
}

int_lane!(i32);
int_lane!(i64);

impl Lane for bool {
    type Un = fn(bool) -> bool;
    type Bin = fn(bool, bool) -> bool;
    const DEFAULT_COMPARE: ComparisonType = ComparisonType::Unsigned;
    fn unary(op: UnaryOp) -> Option<Self::Un> {
        match op {
            UnaryOp::Not => Some(|x: bool| !x),
            _ => None,
        }
    }
    fn apply_unary(f: Self::Un, x: bool) -> bool {
        f(x)
    }
    fn predicate(_: UnaryOp) -> Option<fn(bool) -> bool> {
        None
    }
    fn binary(op: BinaryOp) -> Option<Self::Bin> {
        use BinaryOp::*;
        Some(match op {
            // StableHLO: add, maximum and or are logical OR; multiply, minimum and and
            // are logical AND on i1.
            Add | Maximum | Or => |x: bool, y: bool| x | y,
            Multiply | Minimum | And => |x: bool, y: bool| x & y,
            Xor => |x: bool, y: bool| x ^ y,
            _ => return None,
        })
    }
    fn apply_binary(f: Self::Bin, x: bool, y: bool) -> bool {
        f(x, y)
    }
    fn comparator(ty: ComparisonType) -> Option<fn(bool, bool) -> Option<Ordering>> {
        match ty {
            ComparisonType::Unsigned => Some(|x: bool, y: bool| Some(x.cmp(&y))),
            // As a signed 1-bit integer, true is -1.
            ComparisonType::Signed => Some(|x: bool, y: bool| Some(y.cmp(&x))),
            ComparisonType::Float | ComparisonType::TotalOrder => None,
        }
    }
}

/// What each comparison direction accepts of an ordering (`None`: unordered).
fn direction(dir: ComparisonDirection) -> fn(Option<Ordering>) -> bool {
    use ComparisonDirection::*;
    use Ordering::*;
    match dir {
        Eq => |o| o == Some(Equal),
        Ne => |o| o != Some(Equal),
        Ge => |o| matches!(o, Some(Greater | Equal)),
        Gt => |o| o == Some(Greater),
        Le => |o| matches!(o, Some(Less | Equal)),
        Lt => |o| o == Some(Less),
    }
}

/// The binary table entry of `op` as a function on storage values, for callers outside
/// this file (the reduce fast path): `None` where the op is not defined on `T`.
pub(crate) fn binary_fn<T: Lane>(op: BinaryOp) -> Option<impl Fn(T, T) -> T + Copy> {
    let f = T::binary(op)?;
    Some(move |x: T, y: T| T::apply_binary(f, x, y))
}

pub(crate) fn unary(
    site: &Site,
    op: UnaryOp,
    x: &Literal,
    out: &TensorType,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => unary_kernel::<T>(site, op, &x.elements)?);
    Ok(Literal {
        ty: out.clone(),
        elements,
    })
}

fn unary_kernel<T: Lane>(site: &Site, op: UnaryOp, x: &Elements) -> Result<Elements, InterpError> {
    let xs = slice_of::<T>(x);
    if let Some(f) = T::unary(op) {
        return Ok(T::wrap(xs.iter().map(|&x| T::apply_unary(f, x)).collect()));
    }
    if let Some(p) = T::predicate(op) {
        return Ok(Elements::I1(xs.iter().map(|&x| p(x)).collect()));
    }
    Err(site.unsupported(T::DTYPE, String::new()))
}

pub(crate) fn binary(
    site: &Site,
    op: BinaryOp,
    x: &Literal,
    y: &Literal,
) -> Result<Literal, InterpError> {
    let elements =
        with_native!(x.ty.dtype, T => binary_kernel::<T>(site, op, &x.elements, &y.elements)?);
    Ok(Literal {
        ty: x.ty.clone(),
        elements,
    })
}

fn binary_kernel<T: Lane>(
    site: &Site,
    op: BinaryOp,
    x: &Elements,
    y: &Elements,
) -> Result<Elements, InterpError> {
    let f = T::binary(op).ok_or_else(|| site.unsupported(T::DTYPE, String::new()))?;
    let (xs, ys) = (slice_of::<T>(x), slice_of::<T>(y));
    Ok(T::wrap(
        xs.iter()
            .zip(ys)
            .map(|(&x, &y)| T::apply_binary(f, x, y))
            .collect(),
    ))
}

pub(crate) fn compare(
    site: &Site,
    dir: ComparisonDirection,
    ty: Option<ComparisonType>,
    x: &Literal,
    y: &Literal,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => compare_kernel::<T>(site, dir, ty, &x.elements, &y.elements)?);
    Ok(Literal {
        ty: x.ty.with_dtype(shardc_ir::DType::I1),
        elements,
    })
}

fn compare_kernel<T: Lane>(
    site: &Site,
    dir: ComparisonDirection,
    ty: Option<ComparisonType>,
    x: &Elements,
    y: &Elements,
) -> Result<Elements, InterpError> {
    let ty = ty.unwrap_or(T::DEFAULT_COMPARE);
    let cmp = T::comparator(ty)
        .ok_or_else(|| site.unsupported(T::DTYPE, format!(" with compare_type {}", ty.name())))?;
    let accept = direction(dir);
    let (xs, ys) = (slice_of::<T>(x), slice_of::<T>(y));
    Ok(Elements::I1(
        xs.iter()
            .zip(ys)
            .map(|(&x, &y)| accept(cmp(x, y)))
            .collect(),
    ))
}

/// `select(pred, on_true, on_false)`, the predicate a scalar or of the operands' shape.
pub(crate) fn select(pred: &Literal, on_true: &Literal, on_false: &Literal) -> Literal {
    let p = slice_of::<bool>(&pred.elements);
    let elements = with_native!(on_true.ty.dtype, T => {
        let (t, f) = (slice_of::<T>(&on_true.elements), slice_of::<T>(&on_false.elements));
        let pick = |i: usize| if p[if p.len() == 1 { 0 } else { i }] { t[i] } else { f[i] };
        T::wrap((0..t.len()).map(pick).collect())
    });
    Literal {
        ty: on_true.ty.clone(),
        elements,
    }
}

/// `clamp(min, x, max) = minimum(maximum(x, min), max)`, each bound a scalar or of `x`'s
/// shape; NaNs propagate as in `maximum`/`minimum`.
pub(crate) fn clamp(
    site: &Site,
    lo: &Literal,
    x: &Literal,
    hi: &Literal,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => clamp_kernel::<T>(site, &lo.elements, &x.elements, &hi.elements)?);
    Ok(Literal {
        ty: x.ty.clone(),
        elements,
    })
}

fn clamp_kernel<T: Lane>(
    site: &Site,
    lo: &Elements,
    x: &Elements,
    hi: &Elements,
) -> Result<Elements, InterpError> {
    let unsupported = || site.unsupported(T::DTYPE, String::new());
    let max = T::binary(BinaryOp::Maximum).ok_or_else(unsupported)?;
    let min = T::binary(BinaryOp::Minimum).ok_or_else(unsupported)?;
    let (lo, xs, hi) = (slice_of::<T>(lo), slice_of::<T>(x), slice_of::<T>(hi));
    let at = |v: &[T], i: usize| v[if v.len() == 1 { 0 } else { i }];
    let one =
        |(i, &x): (usize, &T)| T::apply_binary(min, T::apply_binary(max, x, at(lo, i)), at(hi, i));
    Ok(T::wrap(xs.iter().enumerate().map(one).collect()))
}
