//! The scalar semantics of elementwise ops in `arith` and `math`: one entry per op and
//! element type, making the reference interpreter's choices
//! (`runtime/src/reference/elementwise.rs`, `convert.rs`) where StableHLO leaves them
//! open:
//!
//! - bf16 and f16 compute in f32 and round to their type after every op;
//! - integer `divide` by zero gives -1, `remainder` by zero the dividend, `MIN / -1`
//!   wraps to `MIN`; shifts by out-of-range amounts give 0 (or the sign fill); integer
//!   `power` with a negative exponent gives 0 except for bases 1 and -1;
//! - float `maximum`/`minimum` are IEEE-754 `maximum`/`minimum` (NaN wins, -0 < +0);
//!   `sign` keeps ±0 and NaN; `rsqrt` is `1 / sqrt(x)`; `logistic` is `1 / (1 + exp(-x))`;
//! - `compare` under TOTALORDER orders the bit patterns (IEEE `totalOrder`); on i1,
//!   SIGNED reads `true` as -1;
//! - float to int truncates toward zero and saturates, NaN gives 0; number to bool is
//!   `x != 0` (NaN gives true).
//!
//! A `None` entry means the op is not defined on the type (the caller names the op).

use shardc_ir::{BinaryOp, ComparisonDirection, ComparisonType, DType, UnaryOp};
use std::collections::BTreeSet;

/// How a kernel computes math functions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mode {
    /// f32 functions through MLIR's polynomial approximations (with the guards here).
    pub(crate) approximate: bool,
    /// Functions LLVM has no exact lowering for (`expm1`, `log1p`, `cbrt`: MLIR lowers
    /// the first two as `exp(x) - 1` and `log(1 + x)`) call libm (CPU only).
    pub(crate) libm: bool,
    /// For a GPU: float `remainder` without `frem` (which MLIR sends to libdevice).
    pub(crate) gpu: bool,
}

/// Lines of a region body being built, with SSA names from the emitter's counter, and
/// the libm functions it calls.
pub(crate) struct Body<'a> {
    pub(crate) lines: Vec<String>,
    next: &'a mut usize,
    pub(crate) externs: &'a mut BTreeSet<String>,
}

impl<'a> Body<'a> {
    pub(crate) fn new(next: &'a mut usize, externs: &'a mut BTreeSet<String>) -> Body<'a> {
        Body {
            lines: Vec::new(),
            next,
            externs,
        }
    }

    /// A call of libm's `name` (one float argument of type `c`).
    fn libm(&mut self, name: &str, c: DType, x: &str) -> String {
        let symbol = if c == DType::F32 {
            format!("{name}f")
        } else {
            name.to_string()
        };
        self.externs
            .insert(format!("func.func private @{symbol}({c}) -> {c}"));
        self.op(format!("func.call @{symbol}({x}) : ({c}) -> {c}"))
    }

    /// A fresh SSA name.
    pub(crate) fn fresh(&mut self) -> String {
        let n = format!("%v{}", *self.next);
        *self.next += 1;
        n
    }

    /// `%new = rhs`; returns `%new`.
    pub(crate) fn op(&mut self, rhs: impl AsRef<str>) -> String {
        let n = self.fresh();
        self.lines.push(format!("{n} = {}", rhs.as_ref()));
        n
    }

    /// A float constant of type `ty` (f32, f64, bf16, f16; as stored), bit-exact.
    pub(crate) fn float(&mut self, v: f64, ty: DType) -> String {
        self.op(format!(
            "arith.constant {} : {}",
            float_hex(v, ty),
            storage(ty)
        ))
    }

    /// An integer constant of type `ty` (i1, i32, i64, index).
    pub(crate) fn int(&mut self, v: i64, ty: &str) -> String {
        match ty {
            // A bool attribute is typed i1 already.
            "i1" => self.op(format!("arith.constant {}", v != 0)),
            _ => self.op(format!("arith.constant {v} : {ty}")),
        }
    }

    pub(crate) fn index(&mut self, v: i64) -> String {
        self.int(v, "index")
    }
}

/// The bits of `v` in float type `ty` as MLIR's hexadecimal float literal.
pub(crate) fn float_hex(v: f64, ty: DType) -> String {
    match ty {
        DType::F32 => format!("0x{:08X}", (v as f32).to_bits()),
        DType::F64 => format!("0x{:016X}", v.to_bits()),
        DType::BF16 => format!("0x{:04X}", half::bf16::from_f64(v).to_bits()),
        DType::F16 => format!("0x{:04X}", half::f16::from_f64(v).to_bits()),
        other => unreachable!("float_hex of {other}"),
    }
}

/// The element type kernels store `dt` as: bf16 as its bits, in i16 (so LLVM never
/// sees a bf16 value: on x86 with AVX512-BF16 it rounds bf16 through
/// `vcvtneps2bf16`, which flushes subnormals to zero); every other type as itself.
/// Unsigned integers are MLIR's signless integers of their width (`ui32` as `i32`); the ops
/// chosen for them say how the bits are read (`arith.divui`, `arith.cmpi ult`, ...).
pub(crate) fn storage(dt: DType) -> &'static str {
    match dt {
        DType::BF16 | DType::U16 => "i16",
        DType::U8 => "i8",
        DType::U32 => "i32",
        DType::U64 => "i64",
        other => other.name(),
    }
}

/// An integer element `x` of type `dt` as an `index` (unsigned types zero-extended).
pub(crate) fn to_index(b: &mut Body, x: &str, dt: DType) -> String {
    let cast = if dt.is_unsigned() {
        "arith.index_castui"
    } else {
        "arith.index_cast"
    };
    b.op(format!("{cast} {x} : {} to index", storage(dt)))
}

/// The type float arithmetic on `dt` is done in.
fn compute(dt: DType) -> DType {
    match dt {
        DType::BF16 | DType::F16 => DType::F32,
        other => other,
    }
}

/// `x` of float type `dt` (as stored) in its compute type.
pub(crate) fn widen(b: &mut Body, x: &str, dt: DType) -> String {
    match dt {
        // bf16 is the high half of an f32: exact.
        DType::BF16 => {
            let i = b.op(format!("arith.extui {x} : i16 to i32"));
            let sixteen = b.int(16, "i32");
            let i = b.op(format!("arith.shli {i}, {sixteen} : i32"));
            b.op(format!("arith.bitcast {i} : i32 to f32"))
        }
        DType::F16 => b.op(format!("arith.extf {x} : f16 to f32")),
        _ => x.to_string(),
    }
}

/// A compute-type result rounded to float type `dt` (as stored).
pub(crate) fn narrow(b: &mut Body, x: &str, dt: DType) -> String {
    if compute(dt) == dt {
        x.to_string()
    } else {
        f32_to_16(b, x, dt)
    }
}

fn bits(dt: DType) -> i64 {
    dt.bit_width() as i64
}

/// The smallest value of integer type `dt`, as the bits MLIR's constant of its storage
/// type takes (0 for unsigned types).
fn int_min(dt: DType) -> i64 {
    if dt.is_unsigned() {
        0
    } else {
        i64::MIN >> (64 - bits(dt))
    }
}

/// The largest value of integer type `dt`, as the bits of its storage type (all ones,
/// i.e. -1, for unsigned types).
fn int_max(dt: DType) -> i64 {
    if dt.is_unsigned() {
        -1
    } else {
        i64::MAX >> (64 - bits(dt))
    }
}

/// A unary elementwise op on one element `x` of type `dt`; the result has type `dt`
/// (`is_finite` gives i1).
pub(crate) fn unary(b: &mut Body, mode: Mode, op: UnaryOp, dt: DType, x: &str) -> Option<String> {
    use UnaryOp::*;
    if dt.is_float() {
        let c = compute(dt);
        let w = widen(b, x, dt);
        let approximated = mode.approximate && c == DType::F32;
        if approximated {
            let r = match op {
                Sine | Cosine | Tan => Some(trig(b, op, &w)),
                Cbrt => {
                    // The approximation gives NaN at ±inf.
                    let r = b.op(format!("math.cbrt {w} : f32"));
                    let a = b.op(format!("math.absf {w} : f32"));
                    let inf = b.float(f64::INFINITY, DType::F32);
                    let is_inf = b.op(format!("arith.cmpf oeq, {a}, {inf} : f32"));
                    Some(b.op(format!("arith.select {is_inf}, {w}, {r} : f32")))
                }
                _ => None,
            };
            if let Some(r) = r {
                return Some(narrow(b, &r, dt));
            }
        }
        if mode.libm && !approximated {
            let name = match op {
                ExponentialMinusOne => Some("expm1"),
                LogPlusOne => Some("log1p"),
                Cbrt => Some("cbrt"),
                _ => None,
            };
            if let Some(name) = name {
                let r = b.libm(name, c, &w);
                return Some(narrow(b, &r, dt));
            }
        }
        let r = match op {
            Negate => b.op(format!("arith.negf {w} : {c}")),
            Exponential => b.op(format!("math.exp {w} : {c}")),
            ExponentialMinusOne => b.op(format!("math.expm1 {w} : {c}")),
            Log => b.op(format!("math.log {w} : {c}")),
            LogPlusOne => b.op(format!("math.log1p {w} : {c}")),
            Tanh => b.op(format!("math.tanh {w} : {c}")),
            Sqrt => b.op(format!("math.sqrt {w} : {c}")),
            Rsqrt => {
                let s = b.op(format!("math.sqrt {w} : {c}"));
                let one = b.float(1.0, c);
                b.op(format!("arith.divf {one}, {s} : {c}"))
            }
            Cbrt => b.op(format!("math.cbrt {w} : {c}")),
            Abs => b.op(format!("math.absf {w} : {c}")),
            Logistic => {
                let n = b.op(format!("arith.negf {w} : {c}"));
                let e = b.op(format!("math.exp {n} : {c}"));
                let one = b.float(1.0, c);
                let d = b.op(format!("arith.addf {one}, {e} : {c}"));
                b.op(format!("arith.divf {one}, {d} : {c}"))
            }
            Sine => b.op(format!("math.sin {w} : {c}")),
            Cosine => b.op(format!("math.cos {w} : {c}")),
            Tan => b.op(format!("math.tan {w} : {c}")),
            Floor => b.op(format!("math.floor {w} : {c}")),
            Ceil => b.op(format!("math.ceil {w} : {c}")),
            Sign => {
                let zero = b.float(0.0, c);
                let one = b.float(1.0, c);
                let minus = b.float(-1.0, c);
                let lt = b.op(format!("arith.cmpf olt, {w}, {zero} : {c}"));
                let gt = b.op(format!("arith.cmpf ogt, {w}, {zero} : {c}"));
                let t = b.op(format!("arith.select {gt}, {one}, {w} : {c}"));
                b.op(format!("arith.select {lt}, {minus}, {t} : {c}"))
            }
            RoundNearestEven => b.op(format!("math.roundeven {w} : {c}")),
            RoundNearestAfz => b.op(format!("math.round {w} : {c}")),
            IsFinite => {
                let a = b.op(format!("math.absf {w} : {c}"));
                let inf = b.float(f64::INFINITY, c);
                return Some(b.op(format!("arith.cmpf one, {a}, {inf} : {c}")));
            }
            Not | Popcnt | CountLeadingZeros => return None,
        };
        return Some(narrow(b, &r, dt));
    }
    if dt.is_int() {
        let t = storage(dt);
        return Some(match op {
            Negate => {
                let z = b.int(0, t);
                b.op(format!("arith.subi {z}, {x} : {t}"))
            }
            Abs if dt.is_unsigned() => x.to_string(),
            Abs => b.op(format!("math.absi {x} : {t}")),
            Sign if dt.is_unsigned() => {
                let z = b.int(0, t);
                let p = b.op(format!("arith.cmpi ne, {x}, {z} : {t}"));
                b.op(format!("arith.extui {p} : i1 to {t}"))
            }
            Sign => {
                let z = b.int(0, t);
                let p = b.op(format!("arith.cmpi sgt, {x}, {z} : {t}"));
                let n = b.op(format!("arith.cmpi slt, {x}, {z} : {t}"));
                let p = b.op(format!("arith.extui {p} : i1 to {t}"));
                let n = b.op(format!("arith.extui {n} : i1 to {t}"));
                b.op(format!("arith.subi {p}, {n} : {t}"))
            }
            Not => {
                let ones = b.int(-1, t);
                b.op(format!("arith.xori {x}, {ones} : {t}"))
            }
            Popcnt => b.op(format!("math.ctpop {x} : {t}")),
            CountLeadingZeros => b.op(format!("math.ctlz {x} : {t}")),
            _ => return None,
        });
    }
    match op {
        Not => {
            let t = b.int(1, "i1");
            Some(b.op(format!("arith.xori {x}, {t} : i1")))
        }
        _ => None,
    }
}

/// `2/pi` in 28-bit pieces: `TWO_OVER_PI[i]` holds bits `28i+1 ..= 28i+28` below the
/// binary point, so the product of an f32 (24 significant bits) and a piece has at most
/// 52 and is exact in f64. Eight pieces reach 2^-224: for the largest f32 (2^128), the
/// first bit left out weighs 2^-96 of a quadrant.
const TWO_OVER_PI: [f64; 8] = [
    0.6366197690367699,
    3.3308114738561656e-09,
    2.276010047810136e-18,
    2.5268260189002822e-26,
    1.6682867657019525e-34,
    1.158871328288855e-43,
    7.053959174404295e-52,
    8.910067885731021e-60,
];

/// Below this `|x|`, `x = r + k pi/2` by Cody and Waite (`pi/2` in two f64 parts: the
/// error `k 2^-107` stays far below an f32 ulp of the smallest `r` an f32 reaches);
/// above it, by the exact products with [`TWO_OVER_PI`] (Payne and Hanek's idea).
const CODY_WAITE_LIMIT: f64 = 131072.0;

/// `sin`, `cos` or `tan` of an f32 `x`, as libm's `sinf` & co. compute them: reduced in
/// f64 to `r` in `[-pi/4, pi/4]` and a quadrant `k mod 4`, the series of `sin r` and
/// `cos r` summed in f64 (truncation below 2^-45 relative), rounded once to f32. Exact
/// near zero (`sin x = x`), near multiples of `pi/2` and for every finite `x` up to
/// 3.4e38, where MLIR's f32 approximation lost the sign of tiny inputs (`sin(-3e-30)`
/// gave `6e-8`, so `jnp.sinc` gave `-2e22`) and gave `sin(1e30) = 0`.
fn trig(b: &mut Body, op: UnaryOp, x: &str) -> String {
    const HALF_PI_HI: f64 = std::f64::consts::FRAC_PI_2;
    // pi/2 - HALF_PI_HI, the next 53 bits.
    const HALF_PI_LO: f64 = 6.123233995736766e-17;
    let f = DType::F64;
    let d = b.op(format!("arith.extf {x} : f32 to f64"));
    // `v mod 4` in [0, 4), exact: `v - 4 floor(v / 4)`.
    let mod4 = |b: &mut Body, v: &str| {
        let quarter = b.float(0.25, f);
        let four = b.float(4.0, f);
        let q = b.op(format!("arith.mulf {v}, {quarter} : f64"));
        let q = b.op(format!("math.floor {q} : f64"));
        let q = b.op(format!("arith.mulf {q}, {four} : f64"));
        b.op(format!("arith.subf {v}, {q} : f64"))
    };
    // Small |x|: k = round(x 2/pi), r = x - k pi/2 with two FMAs.
    let two_over_pi = b.float(std::f64::consts::FRAC_2_PI, f);
    let t = b.op(format!("arith.mulf {d}, {two_over_pi} : f64"));
    let k_small = b.op(format!("math.roundeven {t} : f64"));
    let nk = b.op(format!("arith.negf {k_small} : f64"));
    let hi = b.float(HALF_PI_HI, f);
    let lo = b.float(HALF_PI_LO, f);
    let r = b.op(format!("math.fma {nk}, {hi}, {d} : f64"));
    let r_small = b.op(format!("math.fma {nk}, {lo}, {r} : f64"));
    // Large |x|: x 2/pi mod 4 as the sum of the exact products, each taken mod 4.
    let mut acc = b.float(0.0, f);
    for piece in TWO_OVER_PI {
        let c = b.float(piece, f);
        let p = b.op(format!("arith.mulf {d}, {c} : f64"));
        let m = mod4(b, &p);
        acc = b.op(format!("arith.addf {acc}, {m} : f64"));
    }
    let acc = mod4(b, &acc);
    let k_large = b.op(format!("math.roundeven {acc} : f64"));
    let frac = b.op(format!("arith.subf {acc}, {k_large} : f64"));
    let half_pi = b.float(HALF_PI_HI, f);
    let r_large = b.op(format!("arith.mulf {frac}, {half_pi} : f64"));
    let a = b.op(format!("math.absf {d} : f64"));
    let limit = b.float(CODY_WAITE_LIMIT, f);
    let small = b.op(format!("arith.cmpf olt, {a}, {limit} : f64"));
    let r = b.op(format!("arith.select {small}, {r_small}, {r_large} : f64"));
    let k = b.op(format!("arith.select {small}, {k_small}, {k_large} : f64"));
    let q = mod4(b, &k);
    let is = |b: &mut Body, v: f64| {
        let c = b.float(v, f);
        b.op(format!("arith.cmpf oeq, {q}, {c} : f64"))
    };
    let (q1, q2, q3) = (is(b, 1.0), is(b, 2.0), is(b, 3.0));
    // sin r = r + r z (-1/3! + z (1/5! - ...)), cos r = 1 - z/2 + z^2 (1/4! - ...), z = r^2.
    let z = b.op(format!("arith.mulf {r}, {r} : f64"));
    let horner = |b: &mut Body, coefficients: &[f64]| {
        let mut h = b.float(coefficients[0], f);
        for &c in &coefficients[1..] {
            let c = b.float(c, f);
            h = b.op(format!("math.fma {h}, {z}, {c} : f64"));
        }
        h
    };
    let factorial = |n: u32| (1..=n).map(f64::from).product::<f64>();
    let sign = |n: u32| if n.is_multiple_of(2) { 1.0 } else { -1.0 };
    // Highest power first.
    let sin_c: Vec<f64> = (1..=6)
        .rev()
        .map(|i| sign(i) / factorial(2 * i + 1))
        .collect();
    let cos_c: Vec<f64> = (2..=7).rev().map(|i| sign(i) / factorial(2 * i)).collect();
    let ps = horner(b, &sin_c);
    let rz = b.op(format!("arith.mulf {r}, {z} : f64"));
    let s = b.op(format!("math.fma {rz}, {ps}, {r} : f64"));
    let pc = horner(b, &cos_c);
    let zz = b.op(format!("arith.mulf {z}, {z} : f64"));
    let half = b.float(-0.5, f);
    let one = b.float(1.0, f);
    let c = b.op(format!("math.fma {z}, {half}, {one} : f64"));
    let c = b.op(format!("math.fma {zz}, {pc}, {c} : f64"));
    let ns = b.op(format!("arith.negf {s} : f64"));
    let nc = b.op(format!("arith.negf {c} : f64"));
    // By quadrant 0, 1, 2, 3: sin = s, c, -s, -c; cos = c, -s, -c, s.
    let pick = |b: &mut Body, v: [&str; 4]| {
        let r = b.op(format!("arith.select {q1}, {}, {} : f64", v[1], v[0]));
        let r = b.op(format!("arith.select {q2}, {}, {r} : f64", v[2]));
        b.op(format!("arith.select {q3}, {}, {r} : f64", v[3]))
    };
    let sin = |b: &mut Body| pick(b, [&s, &c, &ns, &nc]);
    let cos = |b: &mut Body| pick(b, [&c, &ns, &nc, &s]);
    let v = match op {
        UnaryOp::Sine => sin(b),
        UnaryOp::Cosine => cos(b),
        _ => {
            let (sv, cv) = (sin(b), cos(b));
            b.op(format!("arith.divf {sv}, {cv} : f64"))
        }
    };
    let v = b.op(format!("arith.truncf {v} : f64 to f32"));
    // NaN for infinities and NaN, chosen here: inside, the reduction's floors and
    // compares of a NaN could be folded by LLVM to anything once it knows the input
    // (-O3 gave sin(-inf) = 0 on a constant; found by `both_tiers_compute_the_same_bits`).
    let a = b.op(format!("math.absf {x} : f32"));
    let inf = b.float(f64::INFINITY, DType::F32);
    let finite = b.op(format!("arith.cmpf one, {a}, {inf} : f32"));
    let nan = b.op(format!("arith.subf {x}, {x} : f32"));
    b.op(format!("arith.select {finite}, {v}, {nan} : f32"))
}

/// `atan2(y, x)` with C99's signed zeros and infinities around the approximation
/// (which gives NaN at `(0, 0)`).
fn atan2(b: &mut Body, c: DType, y: &str, x: &str) -> String {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let r = b.op(format!("math.atan2 {y}, {x} : {c}"));
    let zero = b.float(0.0, c);
    let one = b.float(1.0, c);
    let inf = b.float(f64::INFINITY, c);
    let k = |b: &mut Body, v: f64| b.float(v, c);
    let signed = |b: &mut Body, v: &str| b.op(format!("math.copysign {v}, {y} : {c}"));
    let (pi, half, quarter, three) = (
        k(b, PI),
        k(b, FRAC_PI_2),
        k(b, FRAC_PI_4),
        k(b, 3.0 * FRAC_PI_4),
    );
    let (pi, half, quarter, three) = (
        signed(b, &pi),
        signed(b, &half),
        signed(b, &quarter),
        signed(b, &three),
    );
    let sx = b.op(format!("math.copysign {one}, {x} : {c}"));
    let x_neg = b.op(format!("arith.cmpf olt, {sx}, {zero} : {c}"));
    let y_zero = b.op(format!("arith.cmpf oeq, {y}, {zero} : {c}"));
    let x_zero = b.op(format!("arith.cmpf oeq, {x}, {zero} : {c}"));
    let ay = b.op(format!("math.absf {y} : {c}"));
    let ax = b.op(format!("math.absf {x} : {c}"));
    let y_inf = b.op(format!("arith.cmpf oeq, {ay}, {inf} : {c}"));
    let x_inf = b.op(format!("arith.cmpf oeq, {ax}, {inf} : {c}"));
    // x = ±inf, y finite: ±0 (x = +inf) or ±pi (x = -inf).
    let y_zero_signed = signed(b, &zero);
    let at_inf = b.op(format!("arith.select {x_neg}, {pi}, {y_zero_signed} : {c}"));
    let r = b.op(format!("arith.select {x_inf}, {at_inf}, {r} : {c}"));
    // y = ±inf: ±pi/2, or ±pi/4 / ±3pi/4 when x is infinite too.
    let both = b.op(format!("arith.select {x_neg}, {three}, {quarter} : {c}"));
    let at_y_inf = b.op(format!("arith.select {x_inf}, {both}, {half} : {c}"));
    let r = b.op(format!("arith.select {y_inf}, {at_y_inf}, {r} : {c}"));
    // x = ±0, y nonzero: ±pi/2.
    let r = b.op(format!("arith.select {x_zero}, {half}, {r} : {c}"));
    // y = ±0: ±0 (x positive or +0) or ±pi (x negative or -0).
    let at_y_zero = b.op(format!("arith.select {x_neg}, {pi}, {y} : {c}"));
    let r = b.op(format!("arith.select {y_zero}, {at_y_zero}, {r} : {c}"));
    // NaN in, NaN out.
    let unordered = b.op(format!("arith.cmpf uno, {y}, {x} : {c}"));
    let nan = b.float(f64::NAN, c);
    b.op(format!("arith.select {unordered}, {nan}, {r} : {c}"))
}

/// A binary elementwise op on elements of type `dt`.
pub(crate) fn binary(
    b: &mut Body,
    mode: Mode,
    op: BinaryOp,
    dt: DType,
    x: &str,
    y: &str,
) -> Option<String> {
    use BinaryOp::*;
    if dt.is_float() {
        let c = compute(dt);
        if mode.gpu && op == Remainder {
            let (wx, wy) = (widen(b, x, dt), widen(b, y, dt));
            let r = gpu_remainder(b, c, &wx, &wy);
            return Some(narrow(b, &r, dt));
        }
        if mode.approximate && c == DType::F32 && matches!(op, Power | Atan2) {
            let (wx, wy) = (widen(b, x, dt), widen(b, y, dt));
            let r = if op == Power {
                float_power(b, c, &wx, &wy)
            } else {
                atan2(b, c, &wx, &wy)
            };
            return Some(narrow(b, &r, dt));
        }
        let name = match op {
            Add => "arith.addf",
            Subtract => "arith.subf",
            Multiply => "arith.mulf",
            Divide => "arith.divf",
            // C's fmod: the dividend's sign, a truncated quotient (LLVM's frem).
            Remainder => "arith.remf",
            Maximum => "arith.maximumf",
            Minimum => "arith.minimumf",
            Power => "math.powf",
            Atan2 => "math.atan2",
            And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => return None,
        };
        let (wx, wy) = (widen(b, x, dt), widen(b, y, dt));
        let r = b.op(format!("{name} {wx}, {wy} : {c}"));
        return Some(narrow(b, &r, dt));
    }
    if dt.is_int() {
        let t = storage(dt);
        let unsigned = dt.is_unsigned();
        let simple = |name: &str, b: &mut Body| b.op(format!("{name} {x}, {y} : {t}"));
        return Some(match op {
            Add => simple("arith.addi", b),
            Subtract => simple("arith.subi", b),
            Multiply => simple("arith.muli", b),
            Maximum if unsigned => simple("arith.maxui", b),
            Minimum if unsigned => simple("arith.minui", b),
            Maximum => simple("arith.maxsi", b),
            Minimum => simple("arith.minsi", b),
            And => simple("arith.andi", b),
            Or => simple("arith.ori", b),
            Xor => simple("arith.xori", b),
            Divide | Remainder => int_divide(b, op == Divide, dt, x, y),
            Power => int_power(b, dt, x, y),
            ShiftLeft | ShiftRightLogical => {
                let width = b.int(bits(dt), t);
                let big = b.op(format!("arith.cmpi uge, {y}, {width} : {t}"));
                let name = if op == ShiftLeft {
                    "arith.shli"
                } else {
                    "arith.shrui"
                };
                let s = b.op(format!("{name} {x}, {y} : {t}"));
                let z = b.int(0, t);
                b.op(format!("arith.select {big}, {z}, {s} : {t}"))
            }
            ShiftRightArithmetic => {
                let last = b.int(bits(dt) - 1, t);
                let n = b.op(format!("arith.minui {y}, {last} : {t}"));
                b.op(format!("arith.shrsi {x}, {n} : {t}"))
            }
            Atan2 => return None,
        });
    }
    // i1: add, maximum and or are OR; multiply, minimum and and are AND.
    let name = match op {
        Add | Maximum | Or => "arith.ori",
        Multiply | Minimum | And => "arith.andi",
        Xor => "arith.xori",
        _ => return None,
    };
    Some(b.op(format!("{name} {x}, {y} : i1")))
}

/// `fmod(x, y)` as `x - trunc(x / y) y` (one fused multiply-add) with the result moved
/// into `(-|y|, |y|)` with `x`'s sign: exact while `|x / y| < 2^24` (f32); a GPU has no
/// `frem` instruction (MLIR calls libdevice's `fmodf`).
fn gpu_remainder(b: &mut Body, c: DType, x: &str, y: &str) -> String {
    let q = b.op(format!("arith.divf {x}, {y} : {c}"));
    let t = b.op(format!("math.trunc {q} : {c}"));
    let nt = b.op(format!("arith.negf {t} : {c}"));
    let r = b.op(format!("math.fma {nt}, {y}, {x} : {c}"));
    let ay = b.op(format!("math.absf {y} : {c}"));
    // The rounded quotient may be one too large or too small.
    let ar = b.op(format!("math.absf {r} : {c}"));
    let zero = b.float(0.0, c);
    let sx = b.op(format!("math.copysign {ay}, {x} : {c}"));
    let over = b.op(format!("arith.cmpf oge, {ar}, {ay} : {c}"));
    let down = b.op(format!("arith.subf {r}, {sx} : {c}"));
    let r = b.op(format!("arith.select {over}, {down}, {r} : {c}"));
    let xr = b.op(format!("arith.mulf {r}, {x} : {c}"));
    let wrong_sign = b.op(format!("arith.cmpf olt, {xr}, {zero} : {c}"));
    let up = b.op(format!("arith.addf {r}, {sx} : {c}"));
    let r = b.op(format!("arith.select {wrong_sign}, {up}, {r} : {c}"));
    // fmod keeps x's sign on a zero result; infinities and NaN as C says.
    let r = b.op(format!("math.copysign {r}, {x} : {c}"));
    let inf = b.float(f64::INFINITY, c);
    let ax = b.op(format!("math.absf {x} : {c}"));
    let x_inf = b.op(format!("arith.cmpf oeq, {ax}, {inf} : {c}"));
    let y_zero = b.op(format!("arith.cmpf oeq, {y}, {zero} : {c}"));
    let bad = b.op(format!("arith.ori {x_inf}, {y_zero} : i1"));
    let nan = b.float(f64::NAN, c);
    let r = b.op(format!("arith.select {bad}, {nan}, {r} : {c}"));
    let y_inf = b.op(format!("arith.cmpf oeq, {ay}, {inf} : {c}"));
    let x_finite = b.op(format!("arith.cmpf one, {ax}, {inf} : {c}"));
    let keep = b.op(format!("arith.andi {y_inf}, {x_finite} : i1"));
    b.op(format!("arith.select {keep}, {x}, {r} : {c}"))
}

/// Integer division or remainder with XLA's answers where LLVM's would be undefined.
fn int_divide(b: &mut Body, divide: bool, dt: DType, x: &str, y: &str) -> String {
    let t = storage(dt);
    let zero = b.int(0, t);
    let one = b.int(1, t);
    let minus_one = b.int(-1, t);
    let by_zero = b.op(format!("arith.cmpi eq, {y}, {zero} : {t}"));
    if dt.is_unsigned() {
        // No overflow; x / 0 is all ones, x % 0 is x.
        let safe = b.op(format!("arith.select {by_zero}, {one}, {y} : {t}"));
        return if divide {
            let q = b.op(format!("arith.divui {x}, {safe} : {t}"));
            b.op(format!("arith.select {by_zero}, {minus_one}, {q} : {t}"))
        } else {
            let r = b.op(format!("arith.remui {x}, {safe} : {t}"));
            b.op(format!("arith.select {by_zero}, {x}, {r} : {t}"))
        };
    }
    let min = b.int(int_min(dt), t);
    let is_min = b.op(format!("arith.cmpi eq, {x}, {min} : {t}"));
    let by_minus_one = b.op(format!("arith.cmpi eq, {y}, {minus_one} : {t}"));
    let overflow = b.op(format!("arith.andi {is_min}, {by_minus_one} : i1"));
    let bad = b.op(format!("arith.ori {by_zero}, {overflow} : i1"));
    let safe = b.op(format!("arith.select {bad}, {one}, {y} : {t}"));
    if divide {
        // MIN / -1 wraps to MIN (= x); x / 0 is -1.
        let q = b.op(format!("arith.divsi {x}, {safe} : {t}"));
        let q = b.op(format!("arith.select {overflow}, {x}, {q} : {t}"));
        b.op(format!("arith.select {by_zero}, {minus_one}, {q} : {t}"))
    } else {
        // MIN % -1 is 0 (= MIN % 1); x % 0 is x.
        let r = b.op(format!("arith.remsi {x}, {safe} : {t}"));
        b.op(format!("arith.select {by_zero}, {x}, {r} : {t}"))
    }
}

/// Integer power by squaring over every exponent bit, wrapping; negative exponents give
/// 0 except for bases 1 (gives 1) and -1 (gives ±1 by the exponent's parity).
fn int_power(b: &mut Body, dt: DType, base: &str, exp: &str) -> String {
    let t = storage(dt);
    let zero = b.int(0, t);
    let one = b.int(1, t);
    let minus_one = b.int(-1, t);
    let mut result = one.clone();
    let mut square = base.to_string();
    let mut e = exp.to_string();
    for _ in 0..bits(dt) {
        let bit = b.op(format!("arith.andi {e}, {one} : {t}"));
        let set = b.op(format!("arith.cmpi ne, {bit}, {zero} : {t}"));
        let product = b.op(format!("arith.muli {result}, {square} : {t}"));
        result = b.op(format!("arith.select {set}, {product}, {result} : {t}"));
        square = b.op(format!("arith.muli {square}, {square} : {t}"));
        e = b.op(format!("arith.shrui {e}, {one} : {t}"));
    }
    if dt.is_unsigned() {
        return result;
    }
    let negative = b.op(format!("arith.cmpi slt, {exp}, {zero} : {t}"));
    let odd = b.op(format!("arith.andi {exp}, {one} : {t}"));
    let odd = b.op(format!("arith.cmpi ne, {odd}, {zero} : {t}"));
    let parity = b.op(format!("arith.select {odd}, {minus_one}, {one} : {t}"));
    let is_one = b.op(format!("arith.cmpi eq, {base}, {one} : {t}"));
    let is_minus_one = b.op(format!("arith.cmpi eq, {base}, {minus_one} : {t}"));
    let neg = b.op(format!(
        "arith.select {is_minus_one}, {parity}, {zero} : {t}"
    ));
    let neg = b.op(format!("arith.select {is_one}, {one}, {neg} : {t}"));
    b.op(format!("arith.select {negative}, {neg}, {result} : {t}"))
}

/// `compare` of two elements of type `dt`; gives i1.
pub(crate) fn compare(
    b: &mut Body,
    dir: ComparisonDirection,
    ty: Option<ComparisonType>,
    dt: DType,
    x: &str,
    y: &str,
) -> Option<String> {
    use ComparisonDirection::*;
    let default = if dt.is_float() {
        ComparisonType::Float
    } else if dt.is_signed_int() {
        ComparisonType::Signed
    } else {
        ComparisonType::Unsigned
    };
    let st = storage(dt);
    let signed = |d| match d {
        Eq => "eq",
        Ne => "ne",
        Ge => "sge",
        Gt => "sgt",
        Le => "sle",
        Lt => "slt",
    };
    match (ty.unwrap_or(default), dt.is_float()) {
        (ComparisonType::Float, true) => {
            // Ordered predicates, except NE which is true for an unordered pair.
            let p = match dir {
                Eq => "oeq",
                Ne => "une",
                Ge => "oge",
                Gt => "ogt",
                Le => "ole",
                Lt => "olt",
            };
            let c = compute(dt);
            let (wx, wy) = (widen(b, x, dt), widen(b, y, dt));
            Some(b.op(format!("arith.cmpf {p}, {wx}, {wy} : {c}")))
        }
        (ComparisonType::TotalOrder, true) => {
            // totalOrder: the bits as a signed integer, the magnitude bits flipped for
            // negative values.
            let it = format!("i{}", dt.bit_width());
            let key = |b: &mut Body, v: &str| {
                let i = if dt == DType::BF16 {
                    v.to_string()
                } else {
                    b.op(format!("arith.bitcast {v} : {dt} to {it}"))
                };
                let shift = b.int(bits(dt) - 1, &it);
                let sign = b.op(format!("arith.shrsi {i}, {shift} : {it}"));
                let one = b.int(1, &it);
                let mask = b.op(format!("arith.shrui {sign}, {one} : {it}"));
                b.op(format!("arith.xori {i}, {mask} : {it}"))
            };
            let (kx, ky) = (key(b, x), key(b, y));
            Some(b.op(format!("arith.cmpi {}, {kx}, {ky} : {it}", signed(dir))))
        }
        (ComparisonType::Signed, false) => {
            Some(b.op(format!("arith.cmpi {}, {x}, {y} : {st}", signed(dir))))
        }
        (ComparisonType::Unsigned, false) => {
            let p = match dir {
                Eq => "eq",
                Ne => "ne",
                Ge => "uge",
                Gt => "ugt",
                Le => "ule",
                Lt => "ult",
            };
            Some(b.op(format!("arith.cmpi {p}, {x}, {y} : {st}")))
        }
        _ => None,
    }
}

/// `select(pred, on_true, on_false)` of elements of type `dt`.
pub(crate) fn select(b: &mut Body, dt: DType, p: &str, t: &str, f: &str) -> String {
    b.op(format!("arith.select {p}, {t}, {f} : {}", storage(dt)))
}

/// `clamp(lo, x, hi) = minimum(maximum(x, lo), hi)`.
pub(crate) fn clamp(
    b: &mut Body,
    mode: Mode,
    dt: DType,
    lo: &str,
    x: &str,
    hi: &str,
) -> Option<String> {
    let raised = binary(b, mode, BinaryOp::Maximum, dt, x, lo)?;
    binary(b, mode, BinaryOp::Minimum, dt, &raised, hi)
}

/// `pow(x, y)` as `exp(y log|x|)` (so it takes the approximations of exp and log),
/// with C99's special cases: `pow(x, ±0) = 1`, `pow(1, y) = 1`, `pow(-1, ±inf) = 1`,
/// a negative base to an odd integer negates, to a non-integer gives NaN; zeros and
/// infinities follow from `log` and `exp` (`pow(±0, y < 0) = inf`, ...).
fn float_power(b: &mut Body, c: DType, x: &str, y: &str) -> String {
    let one = b.float(1.0, c);
    let two = b.float(2.0, c);
    let inf = b.float(f64::INFINITY, c);
    let zero = b.float(0.0, c);
    let nan = b.float(f64::NAN, c);
    let ax = b.op(format!("math.absf {x} : {c}"));
    let lx = b.op(format!("math.log {ax} : {c}"));
    let z = b.op(format!("arith.mulf {y}, {lx} : {c}"));
    let r = b.op(format!("math.exp {z} : {c}"));
    // y's integer-ness and parity (finite y only).
    let ay = b.op(format!("math.absf {y} : {c}"));
    let finite_y = b.op(format!("arith.cmpf one, {ay}, {inf} : {c}"));
    let fl = b.op(format!("math.floor {y} : {c}"));
    let integral = b.op(format!("arith.cmpf oeq, {fl}, {y} : {c}"));
    // y - 2 floor(y / 2) is 1 exactly for odd integers (and y / 2 is exact).
    let half = b.float(0.5, c);
    let h = b.op(format!("arith.mulf {y}, {half} : {c}"));
    let h = b.op(format!("math.floor {h} : {c}"));
    let h = b.op(format!("arith.mulf {h}, {two} : {c}"));
    let rem = b.op(format!("arith.subf {y}, {h} : {c}"));
    let odd = b.op(format!("arith.cmpf oeq, {rem}, {one} : {c}"));
    // The sign bit of x (so -0 counts as negative).
    let sign = b.op(format!("math.copysign {one}, {x} : {c}"));
    let negative = b.op(format!("arith.cmpf olt, {sign}, {zero} : {c}"));
    let flip = b.op(format!("arith.andi {negative}, {odd} : i1"));
    let neg_r = b.op(format!("arith.negf {r} : {c}"));
    let r = b.op(format!("arith.select {flip}, {neg_r}, {r} : {c}"));
    // A finite negative base to a finite non-integer: NaN.
    let below = b.op(format!("arith.cmpf olt, {x}, {zero} : {c}"));
    let neg_inf = b.op(format!("arith.negf {inf} : {c}"));
    let finite_x = b.op(format!("arith.cmpf ogt, {x}, {neg_inf} : {c}"));
    let t = b.int(1, "i1");
    let fraction = b.op(format!("arith.xori {integral}, {t} : i1"));
    let bad = b.op(format!("arith.andi {below}, {finite_x} : i1"));
    let bad = b.op(format!("arith.andi {bad}, {finite_y} : i1"));
    let bad = b.op(format!("arith.andi {bad}, {fraction} : i1"));
    let r = b.op(format!("arith.select {bad}, {nan}, {r} : {c}"));
    // pow(1, y) = 1; pow(-1, ±inf) = 1; pow(x, ±0) = 1.
    let x_one = b.op(format!("arith.cmpf oeq, {x}, {one} : {c}"));
    let minus_one = b.float(-1.0, c);
    let x_minus_one = b.op(format!("arith.cmpf oeq, {x}, {minus_one} : {c}"));
    let y_inf = b.op(format!("arith.cmpf oeq, {ay}, {inf} : {c}"));
    let unit = b.op(format!("arith.andi {x_minus_one}, {y_inf} : i1"));
    let unit = b.op(format!("arith.ori {unit}, {x_one} : i1"));
    let y_zero = b.op(format!("arith.cmpf oeq, {y}, {zero} : {c}"));
    let unit = b.op(format!("arith.ori {unit}, {y_zero} : i1"));
    b.op(format!("arith.select {unit}, {one}, {r} : {c}"))
}

/// An f64 rounded to f32 toward zero, its last bit set when inexact ("round to odd").
fn round_to_odd_f32(b: &mut Body, x: &str) -> String {
    let r = b.op(format!("arith.truncf {x} : f64 to f32"));
    let back = b.op(format!("arith.extf {r} : f32 to f64"));
    let inexact = b.op(format!("arith.cmpf one, {back}, {x} : f64"));
    let ar = b.op(format!("math.absf {back} : f64"));
    let ax = b.op(format!("math.absf {x} : f64"));
    let above = b.op(format!("arith.cmpf ogt, {ar}, {ax} : f64"));
    let bits = b.op(format!("arith.bitcast {r} : f32 to i32"));
    let one = b.int(1, "i32");
    // Rounded away from zero: step back one unit (toward zero) in magnitude.
    let down = b.op(format!("arith.subi {bits}, {one} : i32"));
    let toward_zero = b.op(format!("arith.select {above}, {down}, {bits} : i32"));
    let odd = b.op(format!("arith.ori {toward_zero}, {one} : i32"));
    let bits = b.op(format!("arith.select {inexact}, {odd}, {bits} : i32"));
    b.op(format!("arith.bitcast {bits} : i32 to f32"))
}

/// An f32 rounded to bf16 or f16 (to nearest, ties to even), as stored. bf16 by its
/// bits (see [`storage`]); NaNs stay NaN (quiet), as the `half` crate rounds.
pub(crate) fn f32_to_16(b: &mut Body, x: &str, to: DType) -> String {
    if to != DType::BF16 {
        return b.op(format!("arith.truncf {x} : f32 to {to}"));
    }
    let bits = b.op(format!("arith.bitcast {x} : f32 to i32"));
    let k = |b: &mut Body, v: i64| b.int(v, "i32");
    let (c16, one, bias, abs_mask, inf, quiet) = (
        k(b, 16),
        k(b, 1),
        k(b, 0x7FFF),
        k(b, 0x7FFF_FFFF),
        k(b, 0x7F80_0000),
        k(b, 0x0040_0000),
    );
    // Round to nearest even: add 0x7FFF plus the lowest kept bit, then drop 16 bits.
    let high = b.op(format!("arith.shrui {bits}, {c16} : i32"));
    let lsb = b.op(format!("arith.andi {high}, {one} : i32"));
    let add = b.op(format!("arith.addi {bias}, {lsb} : i32"));
    let rounded = b.op(format!("arith.addi {bits}, {add} : i32"));
    let magnitude = b.op(format!("arith.andi {bits}, {abs_mask} : i32"));
    let nan = b.op(format!("arith.cmpi ugt, {magnitude}, {inf} : i32"));
    let quieted = b.op(format!("arith.ori {bits}, {quiet} : i32"));
    let r = b.op(format!("arith.select {nan}, {quieted}, {rounded} : i32"));
    let r = b.op(format!("arith.shrui {r}, {c16} : i32"));
    b.op(format!("arith.trunci {r} : i32 to i16"))
}

/// `convert` of an element of type `from` to type `to`, rounding once.
pub(crate) fn convert(b: &mut Body, from: DType, to: DType, x: &str) -> String {
    if from == to {
        return x.to_string();
    }
    match (from.is_float(), from.is_int(), to.is_float(), to.is_int()) {
        // float -> float
        (true, _, true, _) => {
            if from.bit_width() == 16 && to != DType::F64 {
                // bf16/f16 -> f32 (exact), then rounded once if narrower.
                let w = widen(b, x, from);
                convert(b, DType::F32, to, &w)
            } else if from.bit_width() == 16 {
                // bf16/f16 -> f64 through f32 (both exact).
                let w = widen(b, x, from);
                b.op(format!("arith.extf {w} : f32 to {to}"))
            } else if from.bit_width() < to.bit_width() {
                b.op(format!("arith.extf {x} : {from} to {to}"))
            } else if from == DType::F64 && to.bit_width() == 16 {
                // Through f32 rounded to odd, then to nearest even: one correct
                // rounding (f32 has more than two extra bits), with no libcall
                // (LLVM's f64 -> bf16 calls compiler-rt's __truncdfbf2).
                let f = round_to_odd_f32(b, x);
                f32_to_16(b, &f, to)
            } else if from == DType::F32 {
                f32_to_16(b, x, to)
            } else {
                b.op(format!("arith.truncf {x} : {from} to {to}"))
            }
        }
        // float -> int: truncate toward zero, saturate, NaN -> 0.
        (true, _, _, true) => {
            let c = compute(from);
            let w = widen(b, x, from);
            let t = storage(to);
            let (low, high) = if to.is_unsigned() {
                (0.0, 2f64.powi(to.bit_width() as i32))
            } else {
                let half = 2f64.powi(to.bit_width() as i32 - 1);
                (-half, half)
            };
            let lo = b.float(low, c);
            let hi = b.float(high, c);
            let ge = b.op(format!("arith.cmpf oge, {w}, {lo} : {c}"));
            let lt = b.op(format!("arith.cmpf olt, {w}, {hi} : {c}"));
            let inside = b.op(format!("arith.andi {ge}, {lt} : i1"));
            let zero = b.float(0.0, c);
            let safe = b.op(format!("arith.select {inside}, {w}, {zero} : {c}"));
            let cast = if to.is_unsigned() {
                "arith.fptoui"
            } else {
                "arith.fptosi"
            };
            let i = b.op(format!("{cast} {safe} : {c} to {t}"));
            let above = b.op(format!("arith.cmpf oge, {w}, {hi} : {c}"));
            let max = b.int(int_max(to), t);
            let i = b.op(format!("arith.select {above}, {max}, {i} : {t}"));
            let below = b.op(format!("arith.cmpf olt, {w}, {lo} : {c}"));
            let min = b.int(int_min(to), t);
            b.op(format!("arith.select {below}, {min}, {i} : {t}"))
        }
        // float -> bool: x != 0 (NaN gives true).
        (true, _, false, false) => {
            let c = compute(from);
            let w = widen(b, x, from);
            let zero = b.float(0.0, c);
            b.op(format!("arith.cmpf une, {w}, {zero} : {c}"))
        }
        // int -> float (unsigned types read as unsigned); to bf16/f16 through f64 (exact
        // for 32 bits and less), as the reference rounds.
        (_, true, true, _) => {
            let cast = if from.is_unsigned() {
                "arith.uitofp"
            } else {
                "arith.sitofp"
            };
            let f = storage(from);
            if to.bit_width() == 16 {
                let d = b.op(format!("{cast} {x} : {f} to f64"));
                convert(b, DType::F64, to, &d)
            } else {
                b.op(format!("{cast} {x} : {f} to {to}"))
            }
        }
        // int -> int: wrap (a wider type sign- or zero-extends as the source reads).
        (_, true, _, true) => {
            let (f, t) = (storage(from), storage(to));
            if from.bit_width() < to.bit_width() {
                let ext = if from.is_unsigned() {
                    "arith.extui"
                } else {
                    "arith.extsi"
                };
                b.op(format!("{ext} {x} : {f} to {t}"))
            } else if from.bit_width() > to.bit_width() {
                b.op(format!("arith.trunci {x} : {f} to {t}"))
            } else {
                x.to_string()
            }
        }
        // int -> bool
        (_, true, false, false) => {
            let f = storage(from);
            let zero = b.int(0, f);
            b.op(format!("arith.cmpi ne, {x}, {zero} : {f}"))
        }
        // bool -> float / int: 0 or 1.
        (false, false, true, _) if to == DType::BF16 => {
            let f = b.op(format!("arith.uitofp {x} : i1 to f32"));
            f32_to_16(b, &f, to)
        }
        (false, false, true, _) => b.op(format!("arith.uitofp {x} : i1 to {to}")),
        (false, false, _, true) => b.op(format!("arith.extui {x} : i1 to {}", storage(to))),
        (false, false, false, false) => x.to_string(),
    }
}

/// `bitcast_convert` of an element of type `from` to `to`, of the same width: the bits
/// kept (bf16 is stored as its bits already).
pub(crate) fn bitcast(b: &mut Body, from: DType, to: DType, x: &str) -> String {
    let (f, t) = (storage(from), storage(to));
    if f == t {
        x.to_string()
    } else {
        b.op(format!("arith.bitcast {x} : {f} to {t}"))
    }
}
