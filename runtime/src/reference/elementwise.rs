//! Elementwise ops: the unary and binary families, `compare`, `select` and `clamp`.
//!
//! The semantics of each op on each element type is an entry of a table below: a scalar
//! function of the compute type (`|x: f32| x.exp()` for `stablehlo.exponential` on f32,
//! bf16 and f16; the f64 function on f64; wrapping integer functions on i32/i64; boolean
//! ones on i1). A table is a macro that hands the chosen function to a *kernel* macro
//! (`map!`, `zip!`, `fold!`), so each kernel loop is compiled with the op's function
//! inlined: the per-op knowledge is written once, and the loops stay fast. A missing entry
//! (`None`) is the error "op not defined on this element type". [`Lane`] gathers the
//! tables of one element type for the kernels in this file and in `reduce.rs`.
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

use super::native::{Compute, Float, Int, Native, slice_of, with_native};
use super::{InterpError, Site};
use half::{bf16, f16};
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, Elements, Literal, TensorType, UnaryOp,
};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------------------
// Kernels: each takes the scalar function `$f` of the compute type and loops over slices.

/// `narrow(f(widen(x)))` for each `x`.
macro_rules! map {
    ($f:expr, $xs:ident, $t:ty) => {{
        let f = $f;
        $xs.iter()
            .map(|&x| <$t>::narrow(f(x.widen())))
            .collect::<Vec<$t>>()
    }};
}

/// `narrow(f(widen(x), widen(y)))` for each pair.
macro_rules! zip {
    ($f:expr, $xs:ident, $ys:ident, $t:ty) => {{
        let f = $f;
        $xs.iter()
            .zip($ys)
            .map(|(&x, &y)| <$t>::narrow(f(x.widen(), y.widen())))
            .collect::<Vec<$t>>()
    }};
}

/// Folds the elements of each output from `init` in order: `acc = narrow(f(acc, x))` (or
/// `f(x, acc)` when swapped), rounding to the dtype after every step. See [`FoldShape`].
macro_rules! fold {
    ($f:expr, $xs:ident, $shape:ident, $init:ident, $t:ty) => {{
        let f = $f;
        let FoldShape {
            outputs,
            reduced,
            columns,
            swapped,
        } = $shape;
        let step = move |acc: $t, x: $t| {
            if swapped {
                <$t>::narrow(f(x.widen(), acc.widen()))
            } else {
                <$t>::narrow(f(acc.widen(), x.widen()))
            }
        };
        if columns {
            let mut acc = vec![$init; outputs];
            for r in 0..reduced {
                for (a, &x) in acc.iter_mut().zip(&$xs[r * outputs..(r + 1) * outputs]) {
                    *a = step(*a, x);
                }
            }
            acc
        } else {
            (0..outputs)
                .map(|o| {
                    $xs[o * reduced..(o + 1) * reduced]
                        .iter()
                        .fold($init, |acc, &x| step(acc, x))
                })
                .collect::<Vec<$t>>()
        }
    }};
}

/// The layout a fold reads: `outputs` results of `reduced` elements each, stored as
/// `[outputs, reduced]` (rows) or, when `columns`, as `[reduced, outputs]`. Either way each
/// output folds its elements in ascending reduced position. `swapped` applies the op as
/// `op(x, acc)` instead of `op(acc, x)`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct FoldShape {
    pub(crate) outputs: usize,
    pub(crate) reduced: usize,
    pub(crate) columns: bool,
    pub(crate) swapped: bool,
}

// ---------------------------------------------------------------------------------------
// Tables: op -> scalar function of the compute type `$c`, handed to `$k!(f, args...)`.

macro_rules! float_unary {
    ($c:ty, $op:expr, $k:ident!($($a:tt)*)) => {{
        use UnaryOp::*;
        match $op {
            Negate => Some($k!(|x: $c| -x, $($a)*)),
            Exponential => Some($k!(<$c as Float>::exp, $($a)*)),
            ExponentialMinusOne => Some($k!(<$c as Float>::exp_m1, $($a)*)),
            Log => Some($k!(<$c as Float>::ln, $($a)*)),
            LogPlusOne => Some($k!(<$c as Float>::ln_1p, $($a)*)),
            Tanh => Some($k!(<$c as Float>::tanh, $($a)*)),
            Sqrt => Some($k!(<$c as Float>::sqrt, $($a)*)),
            Rsqrt => Some($k!(|x: $c| <$c as Float>::ONE / x.sqrt(), $($a)*)),
            Cbrt => Some($k!(<$c as Float>::cbrt, $($a)*)),
            Abs => Some($k!(<$c as Float>::abs, $($a)*)),
            Logistic => Some($k!(|x: $c| <$c as Float>::ONE / (<$c as Float>::ONE + (-x).exp()), $($a)*)),
            Sine => Some($k!(<$c as Float>::sin, $($a)*)),
            Cosine => Some($k!(<$c as Float>::cos, $($a)*)),
            Tan => Some($k!(<$c as Float>::tan, $($a)*)),
            Floor => Some($k!(<$c as Float>::floor, $($a)*)),
            Ceil => Some($k!(<$c as Float>::ceil, $($a)*)),
            Sign => Some($k!(float_sign::<$c>, $($a)*)),
            RoundNearestEven => Some($k!(<$c as Float>::round_ties_even, $($a)*)),
            RoundNearestAfz => Some($k!(<$c as Float>::round, $($a)*)),
            Not | IsFinite | Popcnt | CountLeadingZeros => None,
        }
    }};
}

macro_rules! float_binary {
    ($c:ty, $op:expr, $k:ident!($($a:tt)*)) => {{
        use BinaryOp::*;
        match $op {
            Add => Some($k!(|x: $c, y: $c| x + y, $($a)*)),
            Subtract => Some($k!(|x: $c, y: $c| x - y, $($a)*)),
            Multiply => Some($k!(|x: $c, y: $c| x * y, $($a)*)),
            Divide => Some($k!(|x: $c, y: $c| x / y, $($a)*)),
            // Rust's float `%` is C's fmod: the dividend's sign, a truncated quotient.
            Remainder => Some($k!(|x: $c, y: $c| x % y, $($a)*)),
            Maximum => Some($k!(float_maximum::<$c>, $($a)*)),
            Minimum => Some($k!(float_minimum::<$c>, $($a)*)),
            Power => Some($k!(<$c as Float>::powf, $($a)*)),
            Atan2 => Some($k!(<$c as Float>::atan2, $($a)*)),
            And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => None,
        }
    }};
}

macro_rules! int_unary {
    ($c:ty, $op:expr, $k:ident!($($a:tt)*)) => {{
        use UnaryOp::*;
        match $op {
            Negate => Some($k!(<$c as Int>::wrapping_neg, $($a)*)),
            Abs => Some($k!(<$c as Int>::wrapping_abs, $($a)*)),
            Sign => Some($k!(<$c as Int>::signum, $($a)*)),
            Not => Some($k!(<$c as Int>::not, $($a)*)),
            Popcnt => Some($k!(|x: $c| <$c as Int>::from_i64_wrapping(x.to_unsigned().count_ones() as i64), $($a)*)),
            CountLeadingZeros => Some($k!(|x: $c| <$c as Int>::from_i64_wrapping((x.to_unsigned().leading_zeros() - (64 - <$c as Int>::BITS)) as i64), $($a)*)),
            _ => None,
        }
    }};
}

macro_rules! int_binary {
    ($c:ty, $op:expr, $k:ident!($($a:tt)*)) => {{
        use BinaryOp::*;
        match $op {
            Add => Some($k!(<$c as Int>::wrapping_add, $($a)*)),
            Subtract => Some($k!(<$c as Int>::wrapping_sub, $($a)*)),
            Multiply => Some($k!(<$c as Int>::wrapping_mul, $($a)*)),
            Divide => Some($k!(|x: $c, y: $c| if y == 0 { <$c as Int>::MINUS_ONE } else { <$c as Int>::wrapping_div(x, y) }, $($a)*)),
            Remainder => Some($k!(|x: $c, y: $c| if y == 0 { x } else { <$c as Int>::wrapping_rem(x, y) }, $($a)*)),
            Maximum => Some($k!(|x: $c, y: $c| x.max(y), $($a)*)),
            Minimum => Some($k!(|x: $c, y: $c| x.min(y), $($a)*)),
            Power => Some($k!(int_power::<$c>, $($a)*)),
            And => Some($k!(|x: $c, y: $c| x & y, $($a)*)),
            Or => Some($k!(|x: $c, y: $c| x | y, $($a)*)),
            Xor => Some($k!(|x: $c, y: $c| x ^ y, $($a)*)),
            ShiftLeft => Some($k!(shift_left::<$c>, $($a)*)),
            ShiftRightLogical => Some($k!(shift_right_logical::<$c>, $($a)*)),
            ShiftRightArithmetic => Some($k!(shift_right_arithmetic::<$c>, $($a)*)),
            Atan2 => None,
        }
    }};
}

macro_rules! bool_unary {
    ($op:expr, $k:ident!($($a:tt)*)) => {{
        match $op {
            UnaryOp::Not => Some($k!(|x: bool| !x, $($a)*)),
            _ => None,
        }
    }};
}

macro_rules! bool_binary {
    ($op:expr, $k:ident!($($a:tt)*)) => {{
        use BinaryOp::*;
        match $op {
            // StableHLO: add, maximum and or are logical OR; multiply, minimum and and
            // are logical AND on i1.
            Add | Maximum | Or => Some($k!(|x: bool, y: bool| x | y, $($a)*)),
            Multiply | Minimum | And => Some($k!(|x: bool, y: bool| x & y, $($a)*)),
            Xor => Some($k!(|x: bool, y: bool| x ^ y, $($a)*)),
            _ => None,
        }
    }};
}

// ---------------------------------------------------------------------------------------
// Scalar functions the tables name.

fn float_sign<C: Float>(x: C) -> C {
    if x.is_nan() || x == C::ZERO {
        x
    } else if x < C::ZERO {
        -C::ONE
    } else {
        C::ONE
    }
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

fn shift_left<I: Int>(x: I, n: I) -> I {
    let n = n.to_unsigned();
    if n >= I::BITS as u64 {
        I::ZERO
    } else {
        x.shl(n as u32)
    }
}

fn shift_right_logical<I: Int>(x: I, n: I) -> I {
    let n = n.to_unsigned();
    if n >= I::BITS as u64 {
        I::ZERO
    } else {
        x.shr_logical(n as u32)
    }
}

fn shift_right_arithmetic<I: Int>(x: I, n: I) -> I {
    x.shr_arithmetic(n.to_unsigned().min(I::BITS as u64 - 1) as u32)
}

// ---------------------------------------------------------------------------------------
// Lanes: the tables of one element type.

/// The elementwise semantics of one element type, for the kernels.
pub(crate) trait Lane: Compute {
    /// The unary op applied to each element; `None` if it is not defined on this type.
    fn map(op: UnaryOp, xs: &[Self]) -> Option<Vec<Self>>;
    /// Unary ops that give `i1` (`is_finite`).
    fn predicate(op: UnaryOp, xs: &[Self]) -> Option<Vec<bool>>;
    /// The binary op applied to each pair.
    fn zip(op: BinaryOp, xs: &[Self], ys: &[Self]) -> Option<Vec<Self>>;
    /// The elements folded per output from `init` with the binary op (see [`FoldShape`]).
    fn fold(op: BinaryOp, xs: &[Self], shape: FoldShape, init: Self) -> Option<Vec<Self>>;
    /// The order `compare` uses under a comparison type; `None` for an unordered pair
    /// (a NaN under FLOAT).
    fn comparator(ty: ComparisonType) -> Option<fn(Self, Self) -> Option<Ordering>>;
    /// The comparison type when `compare` gives none.
    const DEFAULT_COMPARE: ComparisonType;
}

macro_rules! float_lane {
    ($t:ty) => {
        impl Lane for $t {
            const DEFAULT_COMPARE: ComparisonType = ComparisonType::Float;
            fn map(op: UnaryOp, xs: &[$t]) -> Option<Vec<$t>> {
                float_unary!(<$t as Compute>::C, op, map!(xs, $t))
            }
            fn predicate(op: UnaryOp, xs: &[$t]) -> Option<Vec<bool>> {
                match op {
                    UnaryOp::IsFinite => Some(xs.iter().map(|&x| x.widen().is_finite()).collect()),
                    _ => None,
                }
            }
            fn zip(op: BinaryOp, xs: &[$t], ys: &[$t]) -> Option<Vec<$t>> {
                float_binary!(<$t as Compute>::C, op, zip!(xs, ys, $t))
            }
            fn fold(op: BinaryOp, xs: &[$t], shape: FoldShape, init: $t) -> Option<Vec<$t>> {
                float_binary!(<$t as Compute>::C, op, fold!(xs, shape, init, $t))
            }
            fn comparator(ty: ComparisonType) -> Option<fn($t, $t) -> Option<Ordering>> {
                match ty {
                    ComparisonType::Float => Some(|x: $t, y: $t| x.widen().partial_cmp(&y.widen())),
                    ComparisonType::TotalOrder => {
                        Some(|x: $t, y: $t| Some(x.widen().total_cmp(&y.widen())))
                    }
                    ComparisonType::Signed | ComparisonType::Unsigned => None,
                }
            }
        }
    };
}

float_lane!(f32);
float_lane!(f64);
float_lane!(bf16);
float_lane!(f16);

macro_rules! int_lane {
    ($t:ty) => {
        impl Lane for $t {
            const DEFAULT_COMPARE: ComparisonType = if <$t as Int>::SIGNED {
                ComparisonType::Signed
            } else {
                ComparisonType::Unsigned
            };
            fn map(op: UnaryOp, xs: &[$t]) -> Option<Vec<$t>> {
                int_unary!($t, op, map!(xs, $t))
            }
            fn predicate(_: UnaryOp, _: &[$t]) -> Option<Vec<bool>> {
                None
            }
            fn zip(op: BinaryOp, xs: &[$t], ys: &[$t]) -> Option<Vec<$t>> {
                int_binary!($t, op, zip!(xs, ys, $t))
            }
            fn fold(op: BinaryOp, xs: &[$t], shape: FoldShape, init: $t) -> Option<Vec<$t>> {
                int_binary!($t, op, fold!(xs, shape, init, $t))
            }
            fn comparator(ty: ComparisonType) -> Option<fn($t, $t) -> Option<Ordering>> {
                match ty {
                    ComparisonType::Signed => {
                        Some(|x: $t, y: $t| Some(x.to_signed().cmp(&y.to_signed())))
                    }
                    ComparisonType::Unsigned => {
                        Some(|x: $t, y: $t| Some(x.to_unsigned().cmp(&y.to_unsigned())))
                    }
                    ComparisonType::Float | ComparisonType::TotalOrder => None,
                }
            }
        }
    };
}

int_lane!(i8);
int_lane!(i16);
int_lane!(i32);
int_lane!(i64);
int_lane!(u8);
int_lane!(u16);
int_lane!(u32);
int_lane!(u64);

impl Lane for bool {
    const DEFAULT_COMPARE: ComparisonType = ComparisonType::Unsigned;
    fn map(op: UnaryOp, xs: &[bool]) -> Option<Vec<bool>> {
        bool_unary!(op, map!(xs, bool))
    }
    fn predicate(_: UnaryOp, _: &[bool]) -> Option<Vec<bool>> {
        None
    }
    fn zip(op: BinaryOp, xs: &[bool], ys: &[bool]) -> Option<Vec<bool>> {
        bool_binary!(op, zip!(xs, ys, bool))
    }
    fn fold(op: BinaryOp, xs: &[bool], shape: FoldShape, init: bool) -> Option<Vec<bool>> {
        bool_binary!(op, fold!(xs, shape, init, bool))
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

// ---------------------------------------------------------------------------------------
// The ops.

pub(crate) fn unary(
    site: &Site,
    op: UnaryOp,
    x: &Literal,
    out: &TensorType,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => {
        let xs = slice_of::<T>(&x.elements);
        match (T::map(op, xs), T::predicate(op, xs)) {
            (Some(v), _) => T::wrap(v),
            (None, Some(p)) => Elements::I1(p),
            (None, None) => return Err(site.unsupported(T::DTYPE, String::new())),
        }
    });
    Ok(Literal {
        ty: out.clone(),
        elements,
    })
}

pub(crate) fn binary(
    site: &Site,
    op: BinaryOp,
    x: &Literal,
    y: &Literal,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => {
        let v = T::zip(op, slice_of::<T>(&x.elements), slice_of::<T>(&y.elements));
        T::wrap(v.ok_or_else(|| site.unsupported(T::DTYPE, String::new()))?)
    });
    Ok(Literal {
        ty: x.ty.clone(),
        elements,
    })
}

/// `op` on two element vectors of one dtype and length, pair by pair, exactly as
/// `stablehlo.<op>` computes it; `None` when the vectors differ in dtype or length or the
/// op is not defined on their dtype.
pub(crate) fn zip_elements(op: BinaryOp, x: &Elements, y: &Elements) -> Option<Elements> {
    if x.dtype() != y.dtype() || x.len() != y.len() {
        return None;
    }
    Some(with_native!(x.dtype(), T => T::wrap(T::zip(op, T::slice(x)?, T::slice(y)?)?)))
}

/// `op` folded over the same `segments` of each of `parts`, in the order given
/// (`((p0 ⊕ p1) ⊕ p2) ⊕ ...`, rounded to the dtype after every step, as [`zip_elements`]
/// computes each pair): the result holds the segments' elements one after the other.
/// Worked in tiles of a few thousand elements so the partial result stays in cache while
/// the parts stream through. `None` when the parts differ in dtype, a segment lies outside
/// a part, or the op is not defined on the dtype.
pub(crate) fn fold_segments(
    op: BinaryOp,
    parts: &[&Elements],
    segments: &[std::ops::Range<usize>],
) -> Option<Elements> {
    const TILE: usize = 4096;
    let first = parts.first()?;
    let len: usize = segments.iter().map(ExactSizeIterator::len).sum();
    Some(with_native!(first.dtype(), T => {
        let slices: Vec<&[T]> = parts.iter().map(|p| T::slice(p)).collect::<Option<_>>()?;
        if segments.iter().any(|r| slices.iter().any(|s| r.end > s.len())) {
            return None;
        }
        // The segments cut into tiles of at most TILE elements.
        let mut tiles: Vec<Vec<std::ops::Range<usize>>> = vec![Vec::new()];
        let mut filled = 0;
        for r in segments {
            let mut start = r.start;
            while start < r.end {
                if filled == TILE {
                    tiles.push(Vec::new());
                    filled = 0;
                }
                let end = r.end.min(start + TILE - filled);
                tiles.last_mut()?.push(start..end);
                filled += end - start;
                start = end;
            }
        }
        // A tile's ranges of one part, copied run by run (a `memcpy` each).
        let gather = |s: &[T], tile: &[std::ops::Range<usize>], into: &mut Vec<T>| {
            into.clear();
            for r in tile {
                into.extend_from_slice(&s[r.clone()]);
            }
        };
        let mut out: Vec<T> = Vec::with_capacity(len);
        let (mut acc, mut part) = (Vec::with_capacity(TILE), Vec::with_capacity(TILE));
        for tile in &tiles {
            gather(slices[0], tile, &mut acc);
            for s in &slices[1..] {
                gather(s, tile, &mut part);
                acc = T::zip(op, &acc, &part)?;
            }
            out.extend_from_slice(&acc);
        }
        T::wrap(out)
    }))
}

pub(crate) fn compare(
    site: &Site,
    dir: ComparisonDirection,
    ty: Option<ComparisonType>,
    x: &Literal,
    y: &Literal,
) -> Result<Literal, InterpError> {
    let elements = with_native!(x.ty.dtype, T => {
        let ty = ty.unwrap_or(T::DEFAULT_COMPARE);
        let detail = || format!(" with compare_type {}", ty.name());
        let cmp = T::comparator(ty).ok_or_else(|| site.unsupported(T::DTYPE, detail()))?;
        let accept = direction(dir);
        let (xs, ys) = (slice_of::<T>(&x.elements), slice_of::<T>(&y.elements));
        Elements::I1(xs.iter().zip(ys).map(|(&x, &y)| accept(cmp(x, y))).collect())
    });
    Ok(Literal {
        ty: x.ty.with_dtype(DType::I1),
        elements,
    })
}

/// Whether element `a` of `x` compares to element `b` of `y` as `compare` with `dir` and
/// `ty` says (`None` where `compare` would refuse the type, or the two differ in it): what
/// a sort's comparator of keys computes, without interpreting it for each pair.
pub(crate) fn element_order<'a>(
    dir: ComparisonDirection,
    ty: Option<ComparisonType>,
    x: &'a Literal,
    y: &'a Literal,
) -> Option<Box<dyn Fn(usize, usize) -> bool + 'a>> {
    if x.ty.dtype != y.ty.dtype {
        return None;
    }
    with_native!(x.ty.dtype, T => {
        let cmp = T::comparator(ty.unwrap_or(T::DEFAULT_COMPARE))?;
        let accept = direction(dir);
        let (xs, ys) = (slice_of::<T>(&x.elements), slice_of::<T>(&y.elements));
        Some(Box::new(move |a: usize, b: usize| accept(cmp(xs[a], ys[b]))))
    })
}

/// `select(pred, on_true, on_false)`, the predicate a scalar or of the operands' shape.
pub(crate) fn select(pred: &Literal, on_true: &Literal, on_false: &Literal) -> Literal {
    let p = slice_of::<bool>(&pred.elements);
    let elements = with_native!(on_true.ty.dtype, T => {
        let (t, f) = (slice_of::<T>(&on_true.elements), slice_of::<T>(&on_false.elements));
        match p {
            [p] => T::wrap(if *p { t.to_vec() } else { f.to_vec() }),
            _ => T::wrap(p.iter().zip(t.iter().zip(f)).map(|(&p, (&t, &f))| if p { t } else { f }).collect()),
        }
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
    let elements = with_native!(x.ty.dtype, T => {
        let xs = slice_of::<T>(&x.elements);
        let full = |b: &Literal| {
            let v = slice_of::<T>(&b.elements);
            if v.len() == xs.len() { v.to_vec() } else { vec![v[0]; xs.len()] }
        };
        let unsupported = || site.unsupported(T::DTYPE, String::new());
        let raised = T::zip(BinaryOp::Maximum, xs, &full(lo)).ok_or_else(unsupported)?;
        T::wrap(T::zip(BinaryOp::Minimum, &raised, &full(hi)).ok_or_else(unsupported)?)
    });
    Ok(Literal {
        ty: x.ty.clone(),
        elements,
    })
}
