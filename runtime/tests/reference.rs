//! The reference interpreter against hand-computed values: every op, the float dtypes'
//! rounding, the random numbers, and the errors a user sees.
//!
//! Programs are built with `FunctionBuilder`; expected numbers are written out by hand
//! (or, for the random numbers, by an independent implementation noted beside them).

// Expected values are written out as decimals on purpose (not taken from `std::f64::consts`),
// some with every digit of their exact binary value.
#![allow(clippy::approx_constant, clippy::excessive_precision)]

use half::{bf16, f16};
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, Distribution, DotDims, Elements,
    Function, FunctionBuilder, GatherDims, Literal, Mesh, Module, OpKind, Sharding, TensorType,
    UnaryOp, Visibility, verify_module,
};
use shardc_runtime::reference::{self, random};
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Helpers

fn ty(d: DType, shape: &[usize]) -> TensorType {
    TensorType::new(d, shape)
}

fn lit(d: DType, shape: &[usize], e: Elements) -> Literal {
    assert_eq!(e.dtype(), d);
    Literal::new(ty(d, shape), e).expect("test literal")
}

fn f32s(shape: &[usize], v: &[f32]) -> Literal {
    lit(DType::F32, shape, Elements::F32(v.to_vec()))
}

fn f64s(shape: &[usize], v: &[f64]) -> Literal {
    lit(DType::F64, shape, Elements::F64(v.to_vec()))
}

fn bf16s(shape: &[usize], v: &[f32]) -> Literal {
    lit(
        DType::BF16,
        shape,
        Elements::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()),
    )
}

fn i32s(shape: &[usize], v: &[i32]) -> Literal {
    lit(DType::I32, shape, Elements::I32(v.to_vec()))
}

fn i64s(shape: &[usize], v: &[i64]) -> Literal {
    lit(DType::I64, shape, Elements::I64(v.to_vec()))
}

fn bools(shape: &[usize], v: &[bool]) -> Literal {
    lit(DType::I1, shape, Elements::I1(v.to_vec()))
}

fn module_of(functions: Vec<Function>) -> Module {
    Module {
        functions,
        ..Module::default()
    }
}

/// Runs `main(args...) = kind(args...)`, the result type stated when given.
fn eval(kind: OpKind, args: &[Literal], declared: Option<TensorType>) -> Literal {
    let types: Vec<TensorType> = args.iter().map(|a| a.ty.clone()).collect();
    let mut b = FunctionBuilder::new("main", &types);
    let operands = b.args();
    let r = match declared {
        Some(t) => b.push1_typed(kind, &operands, t),
        None => b.push1(kind, &operands),
    }
    .expect("the test op type-checks");
    let m = module_of(vec![b.finish(&[r])]);
    verify_module(&m).expect("the test module verifies");
    let mut results = reference::run(&m, "main", args).expect("the test program runs");
    assert_eq!(results.len(), 1);
    results.remove(0)
}

fn unary(op: UnaryOp, x: Literal) -> Literal {
    eval(OpKind::Unary(op), &[x], None)
}

fn binary(op: BinaryOp, x: Literal, y: Literal) -> Literal {
    eval(OpKind::Binary(op), &[x, y], None)
}

fn compare(
    dir: ComparisonDirection,
    ct: Option<ComparisonType>,
    x: Literal,
    y: Literal,
) -> Vec<bool> {
    match eval(
        OpKind::Compare {
            direction: dir,
            compare_type: ct,
        },
        &[x, y],
        None,
    )
    .elements
    {
        Elements::I1(v) => v,
        other => panic!("compare gave {other:?}"),
    }
}

/// The same float: equal bits, or both NaN (any payload).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Exact comparison of a float literal (widened to f64) with expected values; `-0.0` and
/// `0.0` differ, any NaN matches any NaN.
#[track_caller]
fn assert_exact(l: &Literal, expected: &[f64]) {
    let got = l.to_f64_vec();
    assert_eq!(
        got.len(),
        expected.len(),
        "got {got:?}, expected {expected:?}"
    );
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        assert!(
            same(g, e),
            "element {i}: got {g:?} ({:#x}), expected {e:?}; all: {got:?}",
            g.to_bits()
        );
    }
}

/// Comparison within a relative tolerance (absolute near zero); infinities and NaN exact.
#[track_caller]
fn assert_close(l: &Literal, expected: &[f64], rel: f64) {
    let got = l.to_f64_vec();
    assert_eq!(
        got.len(),
        expected.len(),
        "got {got:?}, expected {expected:?}"
    );
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() || e.is_infinite() {
            same(g, e)
        } else {
            (g - e).abs() <= rel * e.abs().max(1.0)
        };
        assert!(
            ok,
            "element {i}: got {g:?}, expected {e:?} (rel {rel}); all: {got:?}"
        );
    }
}

fn ints(l: &Literal) -> Vec<i64> {
    match &l.elements {
        Elements::I32(v) => v.iter().map(|&x| x as i64).collect(),
        Elements::I64(v) => v.clone(),
        other => panic!("expected integers, got {other:?}"),
    }
}

fn bools_of(l: &Literal) -> Vec<bool> {
    match &l.elements {
        Elements::I1(v) => v.clone(),
        other => panic!("expected i1, got {other:?}"),
    }
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

// ---------------------------------------------------------------------------------------
// Unary ops

#[test]
fn unary_exact_ops_f32() {
    use UnaryOp::*;
    let x = || f32s(&[6], &[-1.5, -0.0, 0.0, 2.5, -INF, NAN]);
    assert_exact(
        &unary(Negate, x()),
        &[1.5, 0.0, -0.0, -2.5, f64::INFINITY, f64::NAN],
    );
    assert_exact(
        &unary(Abs, x()),
        &[1.5, 0.0, 0.0, 2.5, f64::INFINITY, f64::NAN],
    );
    assert_exact(
        &unary(Floor, x()),
        &[-2.0, -0.0, 0.0, 2.0, f64::NEG_INFINITY, f64::NAN],
    );
    assert_exact(
        &unary(Ceil, x()),
        &[-1.0, -0.0, 0.0, 3.0, f64::NEG_INFINITY, f64::NAN],
    );
    assert_exact(&unary(Sign, x()), &[-1.0, -0.0, 0.0, 1.0, -1.0, f64::NAN]);
    let halves = || f32s(&[6], &[0.5, 1.5, 2.5, -0.5, -2.5, 2.4]);
    assert_exact(
        &unary(RoundNearestEven, halves()),
        &[0.0, 2.0, 2.0, -0.0, -2.0, 2.0],
    );
    assert_exact(
        &unary(RoundNearestAfz, halves()),
        &[1.0, 2.0, 3.0, -1.0, -3.0, 2.0],
    );
    let r = unary(IsFinite, f32s(&[4], &[1.0, INF, -INF, NAN]));
    assert_eq!(r.ty, ty(DType::I1, &[4]));
    assert_eq!(bools_of(&r), [true, false, false, false]);
    assert_exact(
        &unary(Sqrt, f32s(&[3], &[4.0, -1.0, -0.0])),
        &[2.0, f64::NAN, -0.0],
    );
    assert_exact(
        &unary(Rsqrt, f32s(&[3], &[0.25, 4.0, 0.0])),
        &[2.0, 0.5, f64::INFINITY],
    );
    assert_exact(&unary(Cbrt, f32s(&[2], &[27.0, -8.0])), &[3.0, -2.0]);
}

#[test]
fn unary_transcendental_ops_f32() {
    use UnaryOp::*;
    let e = std::f32::consts::E;
    let rel = 2e-7;
    assert_close(
        &unary(Exponential, f32s(&[5], &[0.0, 1.0, -INF, INF, -1.0])),
        &[1.0, 2.718_281_828, 0.0, f64::INFINITY, 0.367_879_441],
        rel,
    );
    // expm1 and log1p keep the precision of tiny arguments (exp(x) - 1 would give 0).
    assert_close(
        &unary(ExponentialMinusOne, f32s(&[3], &[0.0, 1e-10, 1.0])),
        &[0.0, 1e-10, 1.718_281_828],
        rel,
    );
    assert_eq!(
        unary(ExponentialMinusOne, f32s(&[1], &[1e-10])).to_f64_vec()[0],
        1e-10_f32 as f64
    );
    assert_close(
        &unary(Log, f32s(&[4], &[1.0, e, 0.0, -1.0])),
        &[0.0, 1.0, f64::NEG_INFINITY, f64::NAN],
        rel,
    );
    assert_close(
        &unary(LogPlusOne, f32s(&[3], &[0.0, 1e-10, -1.0])),
        &[0.0, 1e-10, f64::NEG_INFINITY],
        rel,
    );
    assert_close(
        &unary(Tanh, f32s(&[4], &[0.0, 1.0, INF, -20.0])),
        &[0.0, 0.761_594_156, 1.0, -1.0],
        rel,
    );
    assert_close(&unary(Sqrt, f32s(&[1], &[2.0])), &[1.414_213_562], rel);
    assert_close(&unary(Cbrt, f32s(&[1], &[0.001])), &[0.1], rel);
    assert_close(
        &unary(Logistic, f32s(&[4], &[0.0, 1.0, 100.0, -100.0])),
        &[0.5, 0.731_058_579, 1.0, 0.0],
        rel,
    );
    let pi = std::f32::consts::PI;
    assert_close(
        &unary(Sine, f32s(&[3], &[0.0, pi / 2.0, -pi / 2.0])),
        &[0.0, 1.0, -1.0],
        rel,
    );
    assert_close(&unary(Cosine, f32s(&[2], &[0.0, pi])), &[1.0, -1.0], rel);
    assert_close(&unary(Tan, f32s(&[2], &[0.0, pi / 4.0])), &[0.0, 1.0], rel);
}

#[test]
fn unary_f64_uses_f64_functions() {
    let r = unary(UnaryOp::Exponential, f64s(&[2], &[1.0, 0.5]));
    assert_close(&r, &[2.718_281_828_459_045, 1.648_721_270_700_128], 1e-15);
    let r = unary(UnaryOp::Tanh, f64s(&[1], &[0.5]));
    assert_close(&r, &[0.462_117_157_260_009_76], 1e-15);
}

#[test]
fn unary_integer_and_boolean_ops() {
    use UnaryOp::*;
    let x = || i32s(&[4], &[i32::MIN, -3, 0, 5]);
    assert_eq!(
        ints(&unary(Negate, x())),
        [i32::MIN as i64, 3, 0, -5],
        "MIN wraps to itself"
    );
    assert_eq!(
        ints(&unary(Abs, x())),
        [i32::MIN as i64, 3, 0, 5],
        "abs(MIN) wraps to MIN"
    );
    assert_eq!(ints(&unary(Sign, x())), [-1, -1, 0, 1]);
    assert_eq!(ints(&unary(Not, x())), [i32::MAX as i64, 2, -1, -6]);
    assert_eq!(ints(&unary(Negate, i64s(&[1], &[i64::MIN]))), [i64::MIN]);
    assert_eq!(ints(&unary(Popcnt, x())), [1, 31, 0, 2]);
    assert_eq!(ints(&unary(CountLeadingZeros, x())), [0, 0, 32, 29]);
    assert_eq!(
        ints(&unary(CountLeadingZeros, i64s(&[2], &[1, -1]))),
        [63, 0]
    );
    assert_eq!(
        bools_of(&unary(Not, bools(&[2], &[true, false]))),
        [false, true]
    );
}

// ---------------------------------------------------------------------------------------
// Binary ops

#[test]
fn binary_float_arithmetic() {
    use BinaryOp::*;
    let x = || f32s(&[4], &[1.5, -2.0, 1.0, 0.0]);
    let y = || f32s(&[4], &[0.25, 4.0, 0.0, 0.0]);
    assert_exact(&binary(Add, x(), y()), &[1.75, 2.0, 1.0, 0.0]);
    assert_exact(&binary(Subtract, x(), y()), &[1.25, -6.0, 1.0, 0.0]);
    assert_exact(&binary(Multiply, x(), y()), &[0.375, -8.0, 0.0, 0.0]);
    assert_exact(
        &binary(Divide, x(), y()),
        &[6.0, -0.5, f64::INFINITY, f64::NAN],
    );
    // The remainder takes the dividend's sign (fmod), not IEEE's round-to-nearest quotient.
    let r = binary(
        Remainder,
        f32s(&[4], &[5.5, -5.5, 5.5, 1.0]),
        f32s(&[4], &[2.0, 2.0, -2.0, 0.0]),
    );
    assert_exact(&r, &[1.5, -1.5, 1.5, f64::NAN]);
    let r = binary(
        Power,
        f32s(&[3], &[2.0, 4.0, -8.0]),
        f32s(&[3], &[10.0, 0.5, 1.0 / 3.0]),
    );
    assert_exact(&r, &[1024.0, 2.0, f64::NAN]);
    let r = binary(
        Atan2,
        f32s(&[4], &[1.0, 0.0, -0.0, 1.0]),
        f32s(&[4], &[1.0, -1.0, -1.0, 0.0]),
    );
    assert_close(
        &r,
        &[0.785_398_163, 3.141_592_654, -3.141_592_654, 1.570_796_327],
        2e-7,
    );
}

#[test]
fn maximum_and_minimum_propagate_nan_and_order_zeros() {
    let x = || f32s(&[5], &[NAN, 1.0, -0.0, 0.0, 1.0]);
    let y = || f32s(&[5], &[1.0, NAN, 0.0, -0.0, 2.0]);
    assert_exact(
        &binary(BinaryOp::Maximum, x(), y()),
        &[f64::NAN, f64::NAN, 0.0, 0.0, 2.0],
    );
    assert_exact(
        &binary(BinaryOp::Minimum, x(), y()),
        &[f64::NAN, f64::NAN, -0.0, -0.0, 1.0],
    );
    let r = binary(
        BinaryOp::Maximum,
        i32s(&[2], &[-3, 7]),
        i32s(&[2], &[2, -9]),
    );
    assert_eq!(ints(&r), [2, 7]);
    let r = binary(
        BinaryOp::Minimum,
        bools(&[2], &[true, true]),
        bools(&[2], &[false, true]),
    );
    assert_eq!(bools_of(&r), [false, true]);
}

#[test]
fn binary_integer_arithmetic_wraps_and_handles_zero_divisors() {
    use BinaryOp::*;
    let r = binary(Add, i32s(&[2], &[i32::MAX, -5]), i32s(&[2], &[1, 3]));
    assert_eq!(ints(&r), [i32::MIN as i64, -2]);
    let r = binary(Multiply, i32s(&[1], &[65536]), i32s(&[1], &[65536]));
    assert_eq!(ints(&r), [0], "2^32 wraps to 0");
    let r = binary(Subtract, i64s(&[1], &[i64::MIN]), i64s(&[1], &[1]));
    assert_eq!(ints(&r), [i64::MAX]);
    let x = || i32s(&[5], &[7, -7, 7, 7, i32::MIN]);
    let y = || i32s(&[5], &[2, 2, -2, 0, -1]);
    assert_eq!(
        ints(&binary(Divide, x(), y())),
        [3, -3, -3, -1, i32::MIN as i64],
        "x/0 = -1, MIN/-1 = MIN"
    );
    assert_eq!(
        ints(&binary(Remainder, x(), y())),
        [1, -1, 1, 7, 0],
        "x%0 = x, MIN%-1 = 0"
    );
    let r = binary(
        Power,
        i32s(&[7], &[2, 3, 2, 1, -1, -1, 2]),
        i32s(&[7], &[10, 0, -1, -5, -3, -4, 31]),
    );
    assert_eq!(
        ints(&r),
        [1024, 1, 0, 1, -1, 1, i32::MIN as i64],
        "negative exponents; 2^31 wraps"
    );
    let r = binary(Power, i64s(&[2], &[3, 3]), i64s(&[2], &[39, 40]));
    assert_eq!(
        ints(&r),
        [4_052_555_153_018_976_267, -6_289_078_614_652_622_815],
        "3^40 wraps"
    );
}

#[test]
fn bitwise_ops_and_shifts() {
    use BinaryOp::*;
    let x = || i32s(&[2], &[0b1100, -1]);
    let y = || i32s(&[2], &[0b1010, 0x0F]);
    assert_eq!(ints(&binary(And, x(), y())), [0b1000, 0x0F]);
    assert_eq!(ints(&binary(Or, x(), y())), [0b1110, -1]);
    assert_eq!(ints(&binary(Xor, x(), y())), [0b0110, -16]);
    let b = || bools(&[4], &[false, false, true, true]);
    let c = || bools(&[4], &[false, true, false, true]);
    assert_eq!(
        bools_of(&binary(And, b(), c())),
        [false, false, false, true]
    );
    assert_eq!(bools_of(&binary(Or, b(), c())), [false, true, true, true]);
    assert_eq!(bools_of(&binary(Xor, b(), c())), [false, true, true, false]);
    // Shift amounts outside [0, 32) give 0 (left, logical) or the sign fill (arithmetic).
    let x = || i32s(&[5], &[1, 1, 1, -8, 8]);
    let n = || i32s(&[5], &[31, 32, -1, 1, 40]);
    assert_eq!(
        ints(&binary(ShiftLeft, x(), n())),
        [i32::MIN as i64, 0, 0, -16, 0]
    );
    assert_eq!(
        ints(&binary(ShiftRightLogical, x(), n())),
        [0, 0, 0, 2_147_483_644, 0]
    );
    let r = binary(
        ShiftRightArithmetic,
        i32s(&[4], &[-8, -8, 8, -8]),
        i32s(&[4], &[1, 40, 40, -1]),
    );
    assert_eq!(ints(&r), [-4, -1, 0, -1]);
    let r = binary(
        ShiftRightLogical,
        i64s(&[2], &[-1, -1]),
        i64s(&[2], &[60, 64]),
    );
    assert_eq!(ints(&r), [15, 0]);
}

#[test]
fn boolean_add_and_multiply_are_or_and_and() {
    let p = || bools(&[4], &[false, false, true, true]);
    let q = || bools(&[4], &[false, true, false, true]);
    assert_eq!(
        bools_of(&binary(BinaryOp::Add, p(), q())),
        [false, true, true, true]
    );
    assert_eq!(
        bools_of(&binary(BinaryOp::Multiply, p(), q())),
        [false, false, false, true]
    );
    assert_eq!(
        bools_of(&binary(BinaryOp::Maximum, p(), q())),
        [false, true, true, true]
    );
}

// ---------------------------------------------------------------------------------------
// Compare

#[test]
fn compare_float_versus_totalorder() {
    use ComparisonDirection::*;
    let x = || f32s(&[5], &[NAN, -0.0, 1.0, NAN, 1.0]);
    let y = || f32s(&[5], &[NAN, 0.0, 2.0, 1.0, 1.0]);
    let float = Some(ComparisonType::Float);
    assert_eq!(
        compare(Eq, float, x(), y()),
        [false, true, false, false, true]
    );
    assert_eq!(
        compare(Ne, float, x(), y()),
        [true, false, true, true, false]
    );
    assert_eq!(
        compare(Lt, float, x(), y()),
        [false, false, true, false, false]
    );
    assert_eq!(
        compare(Le, float, x(), y()),
        [false, true, true, false, true]
    );
    assert_eq!(
        compare(Gt, float, x(), y()),
        [false, false, false, false, false]
    );
    assert_eq!(
        compare(Ge, float, x(), y()),
        [false, true, false, false, true]
    );
    // No compare_type on floats means FLOAT.
    assert_eq!(
        compare(Eq, None, x(), y()),
        [false, true, false, false, true]
    );
    // totalOrder: -0 < +0, and +NaN is above everything and equal to itself.
    let total = Some(ComparisonType::TotalOrder);
    assert_eq!(
        compare(Eq, total, x(), y()),
        [true, false, false, false, true]
    );
    assert_eq!(
        compare(Ne, total, x(), y()),
        [false, true, true, true, false]
    );
    assert_eq!(
        compare(Lt, total, x(), y()),
        [false, true, true, false, false]
    );
    assert_eq!(
        compare(Le, total, x(), y()),
        [true, true, true, false, true]
    );
    assert_eq!(
        compare(Gt, total, x(), y()),
        [false, false, false, true, false]
    );
    assert_eq!(
        compare(Ge, total, x(), y()),
        [true, false, false, true, true]
    );
    // -NaN is below -inf in totalOrder.
    let neg_nan = f32::from_bits(0xFFC0_0000);
    let r = compare(Lt, total, f32s(&[1], &[neg_nan]), f32s(&[1], &[-INF]));
    assert_eq!(r, [true]);
}

#[test]
fn compare_integers_signed_unsigned_and_booleans() {
    use ComparisonDirection::*;
    let x = || i32s(&[3], &[-1, 1, 5]);
    let y = || i32s(&[3], &[1, 2, 5]);
    assert_eq!(
        compare(Lt, None, x(), y()),
        [true, true, false],
        "SIGNED by default"
    );
    assert_eq!(
        compare(Lt, Some(ComparisonType::Signed), x(), y()),
        [true, true, false]
    );
    assert_eq!(
        compare(Lt, Some(ComparisonType::Unsigned), x(), y()),
        [false, true, false],
        "-1 is 0xffffffff"
    );
    assert_eq!(
        compare(Ge, Some(ComparisonType::Unsigned), x(), y()),
        [true, false, true]
    );
    assert_eq!(compare(Eq, None, x(), y()), [false, false, true]);
    assert_eq!(compare(Ne, None, x(), y()), [true, true, false]);
    let p = || bools(&[2], &[true, false]);
    let q = || bools(&[2], &[false, false]);
    assert_eq!(
        compare(Gt, None, p(), q()),
        [true, false],
        "UNSIGNED by default: true > false"
    );
    assert_eq!(
        compare(Gt, Some(ComparisonType::Signed), p(), q()),
        [false, false],
        "as signed i1, true is -1"
    );
    assert_eq!(
        compare(Lt, Some(ComparisonType::Signed), p(), q()),
        [true, false]
    );
}

// ---------------------------------------------------------------------------------------
// Select, clamp, convert, iota

#[test]
fn select_with_full_and_scalar_predicates() {
    let r = eval(
        OpKind::Select,
        &[
            bools(&[3], &[true, false, true]),
            f32s(&[3], &[1.0, 2.0, 3.0]),
            f32s(&[3], &[-1.0, -2.0, -3.0]),
        ],
        None,
    );
    assert_exact(&r, &[1.0, -2.0, 3.0]);
    let r = eval(
        OpKind::Select,
        &[
            bools(&[], &[false]),
            i32s(&[2], &[1, 2]),
            i32s(&[2], &[8, 9]),
        ],
        None,
    );
    assert_eq!(ints(&r), [8, 9]);
}

#[test]
fn clamp_with_scalar_and_full_bounds() {
    let r = eval(
        OpKind::Clamp,
        &[
            f32s(&[], &[0.0]),
            f32s(&[4], &[-1.0, 0.5, 2.0, NAN]),
            f32s(&[], &[1.0]),
        ],
        None,
    );
    assert_exact(&r, &[0.0, 0.5, 1.0, f64::NAN]);
    let r = eval(
        OpKind::Clamp,
        &[
            i32s(&[3], &[0, 10, -5]),
            i32s(&[3], &[-3, 4, 7]),
            i32s(&[3], &[2, 20, -1]),
        ],
        None,
    );
    assert_eq!(ints(&r), [0, 10, -1]);
}

#[test]
fn convert_edge_cases() {
    let to = |x: Literal, d: DType| {
        let shape = x.ty.shape.clone();
        eval(OpKind::Convert, &[x], Some(ty(d, &shape)))
    };
    // Float to int truncates toward zero, saturates, and maps NaN to 0.
    let r = to(
        f32s(&[7], &[2.7, -2.7, 3e9, -3e9, NAN, INF, -0.5]),
        DType::I32,
    );
    assert_eq!(
        ints(&r),
        [
            2,
            -2,
            i32::MAX as i64,
            i32::MIN as i64,
            0,
            i32::MAX as i64,
            0
        ]
    );
    // Int to float rounds to nearest even: 2^24 + 1 is a tie between 2^24 and 2^24 + 2.
    let r = to(i32s(&[3], &[16_777_217, 16_777_219, -7]), DType::F32);
    assert_exact(&r, &[16_777_216.0, 16_777_220.0, -7.0]);
    let r = to(i64s(&[1], &[(1 << 53) + 1]), DType::F64);
    assert_exact(&r, &[9_007_199_254_740_992.0]);
    // Int to int wraps.
    let r = to(i64s(&[3], &[(1 << 32) + 5, 1 << 31, -1]), DType::I32);
    assert_eq!(ints(&r), [5, i32::MIN as i64, -1]);
    // To bool: x != 0 (NaN is not 0); from bool: 0 or 1.
    let r = to(f32s(&[4], &[0.0, -0.0, NAN, 0.5]), DType::I1);
    assert_eq!(bools_of(&r), [false, false, true, true]);
    let r = to(bools(&[2], &[true, false]), DType::F32);
    assert_exact(&r, &[1.0, 0.0]);
    let r = to(bools(&[2], &[true, false]), DType::I64);
    assert_eq!(ints(&r), [1, 0]);
    // f64 to bf16 rounds once: 1 + 2^-8 + 2^-40 is just above the tie, so it rounds up.
    let r = to(
        f64s(
            &[2],
            &[1.0 + 2f64.powi(-8) + 2f64.powi(-40), 1.0 + 2f64.powi(-8)],
        ),
        DType::BF16,
    );
    assert_exact(&r, &[1.0078125, 1.0]);
    // f32 to f16 overflows to infinity; f32 to f64 is exact.
    let r = to(f32s(&[2], &[70000.0, -70000.0]), DType::F16);
    assert_exact(&r, &[f64::INFINITY, f64::NEG_INFINITY]);
    let r = to(f32s(&[1], &[0.1]), DType::F64);
    assert_exact(&r, &[0.100_000_001_490_116_12]);
    let r = to(f64s(&[1], &[0.1]), DType::F32);
    assert_exact(&r, &[0.100_000_001_490_116_12]);
}

#[test]
fn iota_counts_along_its_dimension() {
    let r = eval(
        OpKind::Iota { dimension: 1 },
        &[],
        Some(ty(DType::I32, &[2, 3])),
    );
    assert_eq!(ints(&r), [0, 1, 2, 0, 1, 2]);
    let r = eval(
        OpKind::Iota { dimension: 0 },
        &[],
        Some(ty(DType::F32, &[2, 3])),
    );
    assert_exact(&r, &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let r = eval(
        OpKind::Iota { dimension: 0 },
        &[],
        Some(ty(DType::BF16, &[3])),
    );
    assert_exact(&r, &[0.0, 1.0, 2.0]);
}

#[test]
fn constants_expand_splats() {
    let splat = Literal::splat(ty(DType::F32, &[2, 2]), shardc_ir::Scalar::Float(1.5));
    let r = eval(OpKind::Constant(splat), &[], None);
    assert!(!r.is_splat());
    assert_eq!(r.elements, Elements::F32(vec![1.5; 4]));
}

// ---------------------------------------------------------------------------------------
// Layout ops

#[test]
fn broadcast_in_dim_maps_and_expands_dimensions() {
    let r = eval(
        OpKind::BroadcastInDim { dims: vec![1] },
        &[i32s(&[3], &[1, 2, 3])],
        Some(ty(DType::I32, &[2, 3])),
    );
    assert_eq!(ints(&r), [1, 2, 3, 1, 2, 3]);
    let r = eval(
        OpKind::BroadcastInDim { dims: vec![0, 1] },
        &[i32s(&[2, 1], &[7, 8])],
        Some(ty(DType::I32, &[2, 3])),
    );
    assert_eq!(ints(&r), [7, 7, 7, 8, 8, 8]);
    let r = eval(
        OpKind::BroadcastInDim { dims: vec![] },
        &[i32s(&[], &[4])],
        Some(ty(DType::I32, &[2, 2])),
    );
    assert_eq!(ints(&r), [4, 4, 4, 4]);
    // Operand dimensions may land in any order: [2, 3] -> [3, 1, 2] with dims = [2, 0].
    let r = eval(
        OpKind::BroadcastInDim { dims: vec![2, 0] },
        &[i32s(&[2, 3], &[1, 2, 3, 4, 5, 6])],
        Some(ty(DType::I32, &[3, 1, 2])),
    );
    assert_eq!(ints(&r), [1, 4, 2, 5, 3, 6]);
}

#[test]
fn reshape_keeps_row_major_order() {
    let r = eval(
        OpKind::Reshape,
        &[i32s(&[2, 3], &[1, 2, 3, 4, 5, 6])],
        Some(ty(DType::I32, &[3, 2])),
    );
    assert_eq!(r.ty.shape, [3, 2]);
    assert_eq!(ints(&r), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn transpose_3d() {
    // x[i][j][k] = 12i + 4j + k, shape [2, 3, 4]; result[k][i][j] = x[i][j][k].
    let x: Vec<i32> = (0..24).collect();
    let r = eval(
        OpKind::Transpose {
            permutation: vec![2, 0, 1],
        },
        &[i32s(&[2, 3, 4], &x)],
        None,
    );
    assert_eq!(r.ty.shape, [4, 2, 3]);
    assert_eq!(
        ints(&r),
        [
            0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23
        ]
    );
}

#[test]
fn slice_with_strides() {
    // x = 0..15 as [3, 5]; rows 0 and 2, columns 1 and 3.
    let x: Vec<i32> = (0..15).collect();
    let kind = OpKind::Slice {
        start: vec![0, 1],
        limit: vec![3, 5],
        strides: vec![2, 2],
    };
    let r = eval(kind, &[i32s(&[3, 5], &x)], None);
    assert_eq!(r.ty.shape, [2, 2]);
    assert_eq!(ints(&r), [1, 3, 11, 13]);
    let kind = OpKind::Slice {
        start: vec![1, 2],
        limit: vec![3, 5],
        strides: vec![1, 3],
    };
    let r = eval(kind, &[i32s(&[3, 5], &x)], None);
    assert_eq!(ints(&r), [7, 12]);
}

#[test]
fn concatenate_along_inner_and_outer_dimensions() {
    let a = || f32s(&[2, 1], &[1.0, 2.0]);
    let b = || f32s(&[2, 2], &[3.0, 4.0, 5.0, 6.0]);
    let r = eval(OpKind::Concatenate { dimension: 1 }, &[a(), b()], None);
    assert_eq!(r.ty.shape, [2, 3]);
    assert_exact(&r, &[1.0, 3.0, 4.0, 2.0, 5.0, 6.0]);
    let r = eval(
        OpKind::Concatenate { dimension: 0 },
        &[b(), b(), f32s(&[1, 2], &[7.0, 8.0])],
        None,
    );
    assert_exact(&r, &[3.0, 4.0, 5.0, 6.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
}

#[test]
fn pad_with_negative_and_interior_padding() {
    // [[1,2,3],[4,5,6]]: dimension 0 gets one row before and one between rows; dimension 1
    // loses its first column and gains one at the end.
    let kind = OpKind::Pad {
        low: vec![1, -1],
        high: vec![0, 1],
        interior: vec![1, 0],
    };
    let r = eval(
        kind,
        &[i32s(&[2, 3], &[1, 2, 3, 4, 5, 6]), i32s(&[], &[0])],
        None,
    );
    assert_eq!(r.ty.shape, [4, 3]);
    assert_eq!(ints(&r), [0, 0, 0, 2, 3, 0, 0, 0, 0, 5, 6, 0]);
    // Interior padding, then cropping through it: [1,_,2,_,3,_,4,_,5] minus 2 in front and 1 behind.
    let kind = OpKind::Pad {
        low: vec![-2],
        high: vec![-1],
        interior: vec![1],
    };
    let r = eval(
        kind,
        &[f32s(&[5], &[1.0, 2.0, 3.0, 4.0, 5.0]), f32s(&[], &[-9.0])],
        None,
    );
    assert_exact(&r, &[2.0, -9.0, 3.0, -9.0, 4.0, -9.0]);
    // Cropping everything away but padding back.
    let kind = OpKind::Pad {
        low: vec![-3],
        high: vec![2],
        interior: vec![0],
    };
    let r = eval(kind, &[i32s(&[3], &[1, 2, 3]), i32s(&[], &[7])], None);
    assert_eq!(ints(&r), [7, 7]);
}

// ---------------------------------------------------------------------------------------
// dot_general

fn dot(lhs: Literal, rhs: Literal, dims: DotDims) -> Literal {
    eval(OpKind::DotGeneral(dims), &[lhs, rhs], None)
}

fn dims(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDims {
    DotDims {
        lhs_batch: lb.to_vec(),
        rhs_batch: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
        precision: vec![],
        algorithm: None,
    }
}

#[test]
fn dot_general_plain_matmul() {
    let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = f32s(&[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    let r = dot(a, b, dims(&[], &[], &[1], &[0]));
    assert_eq!(r.ty.shape, [2, 2]);
    assert_exact(&r, &[58.0, 64.0, 139.0, 154.0]);
    let r = dot(
        i32s(&[2, 2], &[1, 2, 3, 4]),
        i32s(&[2, 2], &[5, 6, 7, 8]),
        dims(&[], &[], &[1], &[0]),
    );
    assert_eq!(ints(&r), [19, 22, 43, 50]);
    // A vector dot product gives a scalar.
    let r = dot(
        f64s(&[3], &[1.0, 2.0, 3.0]),
        f64s(&[3], &[4.0, 5.0, 6.0]),
        dims(&[], &[], &[0], &[0]),
    );
    assert_eq!(r.ty.shape, Vec::<usize>::new());
    assert_exact(&r, &[32.0]);
}

#[test]
fn dot_general_contracting_dims_first() {
    // lhs is [K, M] (contract dim 0), rhs is [N, K] (contract dim 1): the same product as above.
    let a_t = f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let b_t = f32s(&[2, 3], &[7.0, 9.0, 11.0, 8.0, 10.0, 12.0]);
    let r = dot(a_t, b_t, dims(&[], &[], &[0], &[1]));
    assert_exact(&r, &[58.0, 64.0, 139.0, 154.0]);
}

#[test]
fn dot_general_batched() {
    // Batch dim first: [2, 1, 2] x [2, 2, 1] -> [2, 1, 1].
    let l = f32s(&[2, 1, 2], &[1.0, 2.0, 5.0, 6.0]);
    let r = f32s(&[2, 2, 1], &[3.0, 4.0, 7.0, 8.0]);
    let out = dot(l, r, dims(&[0], &[0], &[2], &[1]));
    assert_eq!(out.ty.shape, [2, 1, 1]);
    assert_exact(&out, &[11.0, 83.0]);
    // Batch dims elsewhere: lhs [K=3, B=2] (batch 1, contract 0), rhs [B=2, K=3] -> [2].
    let l = f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let r = f32s(&[2, 3], &[1.0, 1.0, 1.0, 1.0, 0.0, 2.0]);
    let out = dot(l, r, dims(&[1], &[0], &[0], &[1]));
    assert_eq!(out.ty.shape, [2]);
    assert_exact(&out, &[6.0, 16.0]);
    // Batch, free dims on both sides: [B=2, M=2, K=1] x [B=2, K=1, N=2] -> [2, 2, 2].
    let l = i32s(&[2, 2, 1], &[1, 2, 3, 4]);
    let r = i32s(&[2, 1, 2], &[10, 20, 30, 40]);
    let out = dot(l, r, dims(&[0], &[0], &[2], &[1]));
    assert_eq!(ints(&out), [10, 20, 20, 40, 90, 120, 120, 160]);
}

#[test]
fn dot_general_multiple_contracting_dims() {
    // lhs[m][a][b] = 1 + 4m + 2a + b; out[m][n] = sum over (a, b) of lhs[m][a][b] * rhs[a][b][n].
    let l = f32s(&[2, 2, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let r = f32s(
        &[2, 2, 3],
        &[1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0],
    );
    let out = dot(l, r, dims(&[], &[], &[1, 2], &[0, 1]));
    assert_eq!(out.ty.shape, [2, 3]);
    assert_exact(&out, &[4.0, 5.0, 7.0, 12.0, 13.0, 19.0]);
}

#[test]
fn dot_general_bf16_accumulates_in_f32() {
    // 1 + 2^-8 + 2^-8 is 1 + 2^-7, exact in f32 and in bf16; summing in bf16 would round
    // 1 + 2^-8 (a tie) down to 1 at the first step and give 1.
    let a = bf16s(&[1, 3], &[1.0, 2f32.powi(-8), 2f32.powi(-8)]);
    let b = bf16s(&[3, 1], &[1.0, 1.0, 1.0]);
    let r = dot(a, b, dims(&[], &[], &[1], &[0]));
    assert_eq!(r.ty.dtype, DType::BF16);
    assert_exact(&r, &[1.0078125]);
}

#[test]
fn dot_general_128_cubed_f32_is_fast() {
    let n = 128;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let (la, lb) = (f32s(&[n, n], &a), f32s(&[n, n], &b));
    let mut bld = FunctionBuilder::new("main", &[la.ty.clone(), lb.ty.clone()]);
    let r = bld
        .dot_general(bld.arg(0), bld.arg(1), dims(&[], &[], &[1], &[0]))
        .unwrap();
    let m = module_of(vec![bld.finish(&[r])]);
    let args = [la, lb];
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        out = Some(reference::run(&m, "main", &args).unwrap().remove(0));
        best = best.min(t.elapsed().as_secs_f64());
    }
    // Spot-check one element against a plain sum (small integers: exact in f32).
    let out = out.unwrap().to_f64_vec();
    let (i, j) = (37, 101);
    let want: f64 = (0..n)
        .map(|k| a[i * n + k] as f64 * b[k * n + j] as f64)
        .sum();
    assert_eq!(out[i * n + j], want);
    // Release builds must stay well under 10 ms; unoptimized test builds get a generous bound
    // that still catches an accidental per-element allocation or a quartic loop.
    let limit = if cfg!(debug_assertions) { 2.0 } else { 0.010 };
    assert!(
        best < limit,
        "128^3 f32 dot_general took {:.2} ms (limit {:.0} ms)",
        best * 1e3,
        limit * 1e3
    );
}

// ---------------------------------------------------------------------------------------
// reduce

/// Runs `reduce(x, init) applies op across dims`.
fn reduce(x: Literal, init: Literal, dims: &[usize], op: BinaryOp) -> Literal {
    let mut b = FunctionBuilder::new("main", &[x.ty.clone(), init.ty.clone()]);
    let r = b.reduce(b.arg(0), b.arg(1), dims, op).unwrap();
    let m = module_of(vec![b.finish(&[r])]);
    verify_module(&m).unwrap();
    reference::run(&m, "main", &[x, init]).unwrap().remove(0)
}

#[test]
fn reduce_sum_max_and_several_dimensions() {
    let x = || f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_exact(
        &reduce(x(), f32s(&[], &[0.0]), &[1], BinaryOp::Add),
        &[6.0, 15.0],
    );
    assert_exact(
        &reduce(x(), f32s(&[], &[-INF]), &[0], BinaryOp::Maximum),
        &[4.0, 5.0, 6.0],
    );
    assert_exact(
        &reduce(x(), f32s(&[], &[10.0]), &[0, 1], BinaryOp::Add),
        &[31.0],
    );
    // x[i][j][k] = 1 + 4i + 2j + k over dims {0, 2}: j=0 gives 1+2+5+6, j=1 gives 3+4+7+8.
    let x3 = i32s(&[2, 2, 2], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        ints(&reduce(x3, i32s(&[], &[0]), &[2, 0], BinaryOp::Add)),
        [14, 22]
    );
    let x3 = i32s(&[2, 2, 2], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        ints(&reduce(x3, i32s(&[], &[1]), &[1], BinaryOp::Multiply)),
        [3, 8, 35, 48]
    );
    // Reducing an empty dimension gives the init.
    assert_exact(
        &reduce(f32s(&[2, 0], &[]), f32s(&[], &[7.0]), &[1], BinaryOp::Add),
        &[7.0, 7.0],
    );
    // A NaN wins a maximum.
    assert_exact(
        &reduce(
            f32s(&[3], &[1.0, NAN, 3.0]),
            f32s(&[], &[-INF]),
            &[0],
            BinaryOp::Maximum,
        ),
        &[f64::NAN],
    );
}

#[test]
fn reduce_order_is_row_major_from_init() {
    // f32 addition is not associative: ((1e8 + 1) + 1) + ... stays 1e8 in f32 when folded
    // in order from the init, but the ones would survive if summed together first.
    let mut v = vec![1e8_f32];
    v.extend([1.0_f32; 8]);
    assert_exact(
        &reduce(f32s(&[9], &v), f32s(&[], &[0.0]), &[0], BinaryOp::Add),
        &[1e8],
    );
    // Subtract is not commutative: the body is acc - x, folded from the init: ((10 - 1) - 2) - 3.
    let r = reduce(
        i32s(&[3], &[1, 2, 3]),
        i32s(&[], &[10]),
        &[0],
        BinaryOp::Subtract,
    );
    assert_eq!(ints(&r), [4]);
}

/// A reducer body that adds through two ops (`add`, then `select` with a true
/// predicate), so the interpreter cannot take the single-op fast path.
fn reduce_add_general(x: &Literal, init: &Literal, dims: &[usize]) -> Literal {
    let s = TensorType::scalar(x.ty.dtype);
    let mut b = FunctionBuilder::new("main", &[x.ty.clone(), init.ty.clone()]);
    let acc = b.begin_block(&[s.clone(), s]);
    let sum = b.binary(BinaryOp::Add, acc[0], acc[1]).unwrap();
    let yes = b.constant(Literal::scalar(DType::I1, shardc_ir::Scalar::Bool(true)));
    let picked = b.push1(OpKind::Select, &[yes, sum, acc[0]]).unwrap();
    let body = b.end_block(&[picked]);
    let op = b
        .push(
            OpKind::Reduce {
                dimensions: dims.to_vec(),
            },
            &[b.arg(0), b.arg(1)],
            None,
            vec![body],
        )
        .unwrap();
    let r = b.func().ops[op.0 as usize].results[0];
    let m = module_of(vec![b.finish(&[r])]);
    verify_module(&m).unwrap();
    reference::run(&m, "main", &[x.clone(), init.clone()])
        .unwrap()
        .remove(0)
}

#[test]
fn reduce_fast_path_and_general_body_agree_bit_for_bit() {
    let v: Vec<f32> = (0..60)
        .map(|i| ((i * 37 % 17) as f32 - 8.3) * 1.7e3 + 1.0 / (i as f32 + 0.7))
        .collect();
    let x = f32s(&[3, 4, 5], &v);
    let init = f32s(&[], &[0.25]);
    // Reduced dimensions innermost, outermost, in between, split, and all.
    for dims in [
        vec![2],
        vec![1, 2],
        vec![0],
        vec![0, 1],
        vec![1],
        vec![0, 2],
        vec![1, 0, 2],
    ] {
        let fast = reduce(x.clone(), init.clone(), &dims, BinaryOp::Add);
        let slow = reduce_add_general(&x, &init, &dims);
        assert_eq!(fast, slow, "dims {dims:?}");
    }
    // bf16: the fast path accumulates in f32 and rounds once, as XLA does (1 + 3 * 2^-8 =
    // 1.01171875, a tie between bf16's 1.0078125 and 1.015625, rounds to even); a body
    // run op by op rounds after every step (each 2^-8 is half of bf16's spacing at 1, a
    // tie that rounds back to 1.0).
    let xb = bf16s(&[4], &[1.0, 2f32.powi(-8), 2f32.powi(-8), 2f32.powi(-8)]);
    let ib = bf16s(&[], &[0.0]);
    let fast = reduce(xb.clone(), ib.clone(), &[0], BinaryOp::Add);
    assert_exact(&fast, &[1.015625]);
    assert_exact(&reduce_add_general(&xb, &ib, &[0]), &[1.0]);
}

/// argmax over dimension 1 as JAX emits it: a two-input reduce (values, iota indices)
/// whose body keeps the larger value, a NaN, or on ties the smaller index.
fn argmax_module(shape: &[usize]) -> Module {
    let (xt, it) = (ty(DType::F32, shape), ty(DType::I32, shape));
    let (fs, is) = (
        TensorType::scalar(DType::F32),
        TensorType::scalar(DType::I32),
    );
    let mut b = FunctionBuilder::new("main", &[xt]);
    let idx = b
        .push1_typed(OpKind::Iota { dimension: 1 }, &[], it)
        .unwrap();
    let neg_inf = b.constant(f32s(&[], &[-INF]));
    let zero = b.constant(i32s(&[], &[0]));
    let a = b.begin_block(&[fs.clone(), is.clone(), fs, is]);
    let (av, ai, bv, bi) = (a[0], a[1], a[2], a[3]);
    let cmp = |b: &mut FunctionBuilder, d, x, y| {
        b.push1(
            OpKind::Compare {
                direction: d,
                compare_type: None,
            },
            &[x, y],
        )
        .unwrap()
    };
    let gt = cmp(&mut b, ComparisonDirection::Gt, av, bv);
    let nan = cmp(&mut b, ComparisonDirection::Ne, av, av);
    let gt_or_nan = b.binary(BinaryOp::Or, gt, nan).unwrap();
    let eq = cmp(&mut b, ComparisonDirection::Eq, av, bv);
    let lt = cmp(&mut b, ComparisonDirection::Lt, ai, bi);
    let tie = b.binary(BinaryOp::And, eq, lt).unwrap();
    let keep_a = b.binary(BinaryOp::Or, gt_or_nan, tie).unwrap();
    let v = b.push1(OpKind::Select, &[keep_a, av, bv]).unwrap();
    let i = b.push1(OpKind::Select, &[keep_a, ai, bi]).unwrap();
    let body = b.end_block(&[v, i]);
    let op = b
        .push(
            OpKind::Reduce {
                dimensions: vec![1],
            },
            &[b.arg(0), idx, neg_inf, zero],
            None,
            vec![body],
        )
        .unwrap();
    let results = b.func().ops[op.0 as usize].results.clone();
    let m = module_of(vec![b.finish(&results)]);
    verify_module(&m).unwrap();
    m
}

#[test]
fn reduce_argmax_with_a_general_body() {
    let m = argmax_module(&[3, 4]);
    let x = f32s(
        &[3, 4],
        &[3.0, 7.0, 7.0, 1.0, -2.0, -5.0, 0.0, 0.0, 1.0, NAN, 9.0, NAN],
    );
    let r = reference::run(&m, "main", &[x]).unwrap();
    assert_eq!(r.len(), 2);
    assert_exact(&r[0], &[7.0, 0.0, f64::NAN]);
    assert_eq!(
        ints(&r[1]),
        [1, 2, 1],
        "ties pick the smaller index; the first NaN wins"
    );
}

// ---------------------------------------------------------------------------------------
// gather

fn gather(operand: Literal, indices: Literal, g: GatherDims) -> Literal {
    eval(OpKind::Gather(g), &[operand, indices], None)
}

#[test]
fn gather_embedding_lookup_clamps_indices() {
    // Operand [V=4, D=3] holds 10v + d; indices [N=4, 1], the last two out of range.
    let table: Vec<f32> = (0..4)
        .flat_map(|v| (0..3).map(move |d| (10 * v + d) as f32))
        .collect();
    let g = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        slice_sizes: vec![1, 3],
        ..GatherDims::default()
    };
    let r = gather(f32s(&[4, 3], &table), i32s(&[4, 1], &[2, 0, 5, -1]), g);
    assert_eq!(r.ty.shape, [4, 3]);
    assert_exact(
        &r,
        &[
            20.0, 21.0, 22.0, 0.0, 1.0, 2.0, 30.0, 31.0, 32.0, 0.0, 1.0, 2.0,
        ],
    );
}

#[test]
fn gather_with_batching_dims() {
    // Operand [B=2, V=3, D=2] holds 100b + 10v + d; indices [B=2, N=2, 1].
    let operand: Vec<i64> = (0..2)
        .flat_map(|b| (0..3).flat_map(move |v| (0..2).map(move |d| 100 * b + 10 * v + d)))
        .collect();
    let g = GatherDims {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        start_index_map: vec![1],
        index_vector_dim: 2,
        slice_sizes: vec![1, 1, 2],
        indices_are_sorted: false,
    };
    let r = gather(
        i64s(&[2, 3, 2], &operand),
        i64s(&[2, 2, 1], &[2, 0, 1, 1]),
        g,
    );
    assert_eq!(r.ty.shape, [2, 2, 2]);
    assert_eq!(ints(&r), [20, 21, 0, 1, 110, 111, 110, 111]);
}

#[test]
fn gather_scalar_indices_and_clamped_windows() {
    let x = || i32s(&[5], &[10, 11, 12, 13, 14]);
    // index_vector_dim = rank(indices): each index is a scalar.
    let g = GatherDims {
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        slice_sizes: vec![1],
        ..GatherDims::default()
    };
    assert_eq!(ints(&gather(x(), i32s(&[3], &[4, 1, 0]), g)), [14, 11, 10]);
    // A window of 2 starting at 4 is clamped to start at 3.
    let g = GatherDims {
        offset_dims: vec![1],
        start_index_map: vec![0],
        index_vector_dim: 1,
        slice_sizes: vec![2],
        ..GatherDims::default()
    };
    assert_eq!(
        ints(&gather(x(), i32s(&[2, 1], &[4, 1]), g)),
        [13, 14, 11, 12]
    );
}

#[test]
fn gather_index_vector_first_with_two_components() {
    // Operand [3, 4] holds 10r + c. Indices [2, 2] with index_vector_dim 0: column k is
    // the start (r, c) of batch position k: (1, 0) and (2, 3); windows are 1 x 2, so the
    // second start's column is clamped to 4 - 2 = 2.
    let operand: Vec<i32> = (0..3)
        .flat_map(|r| (0..4).map(move |c| 10 * r + c))
        .collect();
    let g = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0, 1],
        index_vector_dim: 0,
        slice_sizes: vec![1, 2],
        ..GatherDims::default()
    };
    let r = gather(i32s(&[3, 4], &operand), i32s(&[2, 2], &[1, 2, 0, 3]), g);
    assert_eq!(r.ty.shape, [2, 2]);
    assert_eq!(ints(&r), [10, 11, 22, 23]);
}

// ---------------------------------------------------------------------------------------
// call, sharding_constraint

#[test]
fn call_runs_the_callee() {
    let t = ty(DType::F32, &[2]);
    let mut h = FunctionBuilder::new("double", std::slice::from_ref(&t));
    h.set_visibility(Visibility::Private);
    let d = h.binary(BinaryOp::Add, h.arg(0), h.arg(0)).unwrap();
    let helper = h.finish(&[d]);
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let c = b
        .push1_typed(
            OpKind::Call {
                callee: "double".into(),
            },
            &[b.arg(0)],
            t.clone(),
        )
        .unwrap();
    let c2 = b
        .push1_typed(
            OpKind::Call {
                callee: "double".into(),
            },
            &[c],
            t.clone(),
        )
        .unwrap();
    let p = b.binary(BinaryOp::Multiply, c2, b.arg(0)).unwrap();
    let m = module_of(vec![b.finish(&[p, c]), helper]);
    verify_module(&m).unwrap();
    let r = reference::run(&m, "main", &[f32s(&[2], &[1.5, -2.0])]).unwrap();
    assert_exact(&r[0], &[9.0, 16.0]);
    assert_exact(&r[1], &[3.0, -4.0]);
}

#[test]
fn sharding_constraint_is_the_identity() {
    let mesh = Mesh::new("mesh", &[("data", 2)]).unwrap();
    let t = ty(DType::F32, &[4, 2]);
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let s = b
        .push1(
            OpKind::ShardingConstraint(Sharding::split("mesh", &[&["data"], &[]])),
            &[b.arg(0)],
        )
        .unwrap();
    let m = Module {
        meshes: vec![mesh],
        functions: vec![b.finish(&[s])],
        ..Module::default()
    };
    verify_module(&m).unwrap();
    let x = f32s(&[4, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(
        reference::run(&m, "main", std::slice::from_ref(&x)).unwrap(),
        vec![x]
    );
}

// ---------------------------------------------------------------------------------------
// eval_op

#[test]
fn eval_op_evaluates_single_ops_like_run() {
    let m = argmax_module(&[2, 3]);
    let f = &m.functions[0];
    let reduce_op = f
        .ops
        .iter()
        .find(|o| matches!(o.kind, OpKind::Reduce { .. }))
        .unwrap();
    let inputs = [
        f32s(&[2, 3], &[0.5, 2.0, -1.0, 4.0, 4.0, 3.0]),
        i32s(&[2, 3], &[0, 1, 2, 0, 1, 2]),
        f32s(&[], &[-INF]),
        i32s(&[], &[0]),
    ];
    let r = reference::eval_op(&m, f, reduce_op, &inputs).unwrap();
    assert_exact(&r[0], &[2.0, 4.0]);
    assert_eq!(ints(&r[1]), [1, 0]);
    // Splat operand values are accepted.
    let iota_op = &f.ops[0];
    assert_eq!(
        ints(&reference::eval_op(&m, f, iota_op, &[]).unwrap()[0]),
        [0, 1, 2, 0, 1, 2]
    );
    let splat = Literal::splat(ty(DType::F32, &[2, 3]), shardc_ir::Scalar::Float(1.0));
    let inputs = [
        splat,
        i32s(&[2, 3], &[0, 1, 2, 0, 1, 2]),
        f32s(&[], &[-INF]),
        i32s(&[], &[0]),
    ];
    let r = reference::eval_op(&m, f, reduce_op, &inputs).unwrap();
    assert_eq!(ints(&r[1]), [0, 0]);
}

// ---------------------------------------------------------------------------------------
// Float dtypes round natively

fn add_twice(x: Literal, y: Literal) -> Literal {
    let mut b = FunctionBuilder::new("main", &[x.ty.clone(), y.ty.clone()]);
    let s = b.binary(BinaryOp::Add, b.arg(0), b.arg(1)).unwrap();
    let s2 = b.binary(BinaryOp::Add, s, b.arg(1)).unwrap();
    let m = module_of(vec![b.finish(&[s2])]);
    reference::run(&m, "main", &[x, y]).unwrap().remove(0)
}

#[test]
fn f32_rounds_as_f32_and_f64_as_f64() {
    // 1e8 + 1 is not representable in f32 (its ulp there is 8): it rounds back to 1e8.
    let r = binary(BinaryOp::Add, f32s(&[1], &[1e8]), f32s(&[1], &[1.0]));
    assert_exact(&r, &[1e8]);
    let r = binary(BinaryOp::Add, f64s(&[1], &[1e8]), f64s(&[1], &[1.0]));
    assert_exact(&r, &[100_000_001.0]);
    // 0.1 + 0.2 in f32 is the f32 nearest 0.3 (0.300000011920928955078125), in f64 it is not.
    let r = binary(BinaryOp::Add, f32s(&[1], &[0.1]), f32s(&[1], &[0.2]));
    assert_exact(&r, &[0.300_000_011_920_928_955_078_125]);
    let r = binary(BinaryOp::Add, f64s(&[1], &[0.1]), f64s(&[1], &[0.2]));
    assert_exact(
        &r,
        &[0.300_000_000_000_000_044_408_920_985_006_261_616_945_266_723_632_812_5],
    );
}

#[test]
fn bf16_and_f16_round_after_every_op() {
    // (1 + 2^-8) + 2^-8 in bf16: the first sum is a tie and rounds to 1, and so does the
    // second; rounding only at the end would give 1 + 2^-7.
    let r = add_twice(bf16s(&[1], &[1.0]), bf16s(&[1], &[2f32.powi(-8)]));
    assert_eq!(r.ty.dtype, DType::BF16);
    assert_exact(&r, &[1.0]);
    let h = |v: f32| lit(DType::F16, &[1], Elements::F16(vec![f16::from_f32(v)]));
    let r = add_twice(h(1.0), h(2f32.powi(-11)));
    assert_exact(&r, &[1.0]);
    // The same in f32 keeps both increments.
    let r = add_twice(f32s(&[1], &[1.0]), f32s(&[1], &[2f32.powi(-8)]));
    assert_exact(&r, &[1.0078125]);
    // Transcendentals in bf16 are the f32 function rounded to bf16: exp(1) = 2.71875.
    let r = unary(UnaryOp::Exponential, bf16s(&[1], &[1.0]));
    assert_exact(&r, &[2.71875]);
}

// ---------------------------------------------------------------------------------------
// shardc.random

fn random(dist: Distribution, dtype: DType, shape: &[usize], seed: i64) -> Literal {
    eval(
        OpKind::Random { distribution: dist },
        &[i64s(&[], &[seed])],
        Some(ty(dtype, shape)),
    )
}

#[test]
fn random_known_bits() {
    // Seed 42, indices 0..4, from an independent Python implementation of Philox-4x32-10
    // (checked against Random123's known answers): w0 of each element, and the values.
    let words: Vec<u32> = (0..4).map(|i| random::bits(42, i)[0]).collect();
    assert_eq!(words, [0x9ceaf053, 0xfcdb2127, 0xd36c0225, 0xbac70475]);
    let u = random(Distribution::Uniform, DType::F32, &[4], 42);
    assert_exact(
        &u,
        &[
            0.612_959_861_755_371_1,
            0.987_718_641_757_965_1,
            0.825_866_818_428_039_6,
            0.729_599_237_442_016_6,
        ],
    );
    let u = random(Distribution::Uniform, DType::F64, &[2], 42);
    assert_exact(&u, &[0.612_959_881_189_415_8, 0.987_718_650_914_510_5]);
    let z = random(Distribution::Normal, DType::F64, &[4], 42);
    assert_close(
        &z,
        &[
            0.886_497_505_901_441,
            -0.156_609_622_912_017_24,
            -0.494_100_512_669_746_14,
            -0.679_891_666_314_413_6,
        ],
        1e-14,
    );
    // A negative seed and an index above 2^32 use all the key and counter words.
    assert_eq!(
        random::bits(-7, (1 << 32) + 3),
        [0x9375cd9c, 0x5f426044, 0xc8395430, 0xada099ca]
    );
}

#[test]
fn random_uniform_range_and_mean() {
    let n = 100_000;
    for dtype in [DType::F32, DType::F64, DType::BF16, DType::F16] {
        let v = random(Distribution::Uniform, dtype, &[n], 7).to_f64_vec();
        assert!(
            v.iter().all(|&x| (0.0..1.0).contains(&x)),
            "{dtype}: a value outside [0, 1)"
        );
        let mean = v.iter().sum::<f64>() / n as f64;
        // The mean's standard deviation is sqrt(1/12 / n) = 0.0009; allow 5.5 of them.
        assert!((mean - 0.5).abs() < 0.005, "{dtype}: mean {mean}");
    }
}

#[test]
fn random_normal_mean_and_std() {
    let n = 100_000;
    for dtype in [DType::F32, DType::F64, DType::BF16] {
        let v = random(Distribution::Normal, dtype, &[n], 11).to_f64_vec();
        let mean = v.iter().sum::<f64>() / n as f64;
        let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        // Standard errors: 0.0032 for the mean and 0.0022 for the std; allow about 6 of them.
        assert!(mean.abs() < 0.02, "{dtype}: mean {mean}");
        assert!((std - 1.0).abs() < 0.015, "{dtype}: std {std}");
        assert!(v.iter().all(|x| x.is_finite()));
    }
}

#[test]
fn random_is_the_same_however_it_is_sharded() {
    let seed = 1234;
    for (dist, dtype) in [
        (Distribution::Uniform, DType::F32),
        (Distribution::Normal, DType::BF16),
    ] {
        let global = random(dist, dtype, &[8, 6], seed);
        // Every position equals the value computed from its global index alone.
        for i in 0..8u64 {
            for j in 0..6u64 {
                let one = random::elements_at(dist, dtype, seed, [i * 6 + j]).unwrap();
                assert_eq!(
                    one.bits(0),
                    global.elements.bits((i * 6 + j) as usize),
                    "({i}, {j})"
                );
            }
        }
        // A shard (columns 3..6 of rows 4..8, as on a 2x2 mesh) from its global indices
        // equals that block of the global tensor.
        let idx: Vec<u64> = (4..8)
            .flat_map(|i| (3..6).map(move |j| i * 6 + j))
            .collect();
        let shard = random::elements_at(dist, dtype, seed, idx.iter().copied()).unwrap();
        let block = global
            .elements
            .gather(&idx.iter().map(|&i| i as usize).collect::<Vec<_>>());
        assert_eq!(shard, block);
    }
    // Another seed gives other numbers.
    assert_ne!(
        random(Distribution::Uniform, DType::F32, &[8], 1),
        random(Distribution::Uniform, DType::F32, &[8], 2)
    );
}

// ---------------------------------------------------------------------------------------
// Errors

fn add_module() -> Module {
    let t = ty(DType::F32, &[2]);
    let mut b = FunctionBuilder::new("main", &[t.clone(), t]);
    let s = b.binary(BinaryOp::Add, b.arg(0), b.arg(1)).unwrap();
    module_of(vec![b.finish(&[s])])
}

#[test]
fn error_unknown_function() {
    let err = reference::run(&add_module(), "mian", &[]).unwrap_err();
    insta::assert_snapshot!(err, @"the module has no function @mian; it defines @main");
}

#[test]
fn error_wrong_argument_count() {
    let err = reference::run(&add_module(), "main", &[f32s(&[2], &[1.0, 2.0])]).unwrap_err();
    insta::assert_snapshot!(err, @"@main takes 2 argument(s) (tensor<2xf32>, tensor<2xf32>) but 1 were given; pass one literal per argument");
}

#[test]
fn error_wrong_argument_type() {
    let args = [f32s(&[2], &[1.0, 2.0]), f64s(&[3], &[1.0, 2.0, 3.0])];
    let err = reference::run(&add_module(), "main", &args).unwrap_err();
    insta::assert_snapshot!(err, @"argument 1 (%arg1) of @main has type tensor<3xf64>, but @main takes tensor<2xf32> there; pass a literal of type tensor<2xf32>");
}

#[test]
fn error_malformed_argument_literal() {
    let bad = Literal {
        ty: ty(DType::F32, &[2]),
        elements: Elements::F32(vec![1.0, 2.0, 3.0]),
    };
    let err = reference::run(&add_module(), "main", &[f32s(&[2], &[1.0, 2.0]), bad]).unwrap_err();
    insta::assert_snapshot!(err, @"argument 1 (%arg1) of @main is malformed: tensor<2xf32> holds 2 element(s) but the literal has 3; build it with `Literal::new`, which checks this");
}

#[test]
fn error_eval_op_operand_type() {
    let m = add_module();
    let f = &m.functions[0];
    let err = reference::eval_op(
        &m,
        f,
        &f.ops[0],
        &[f32s(&[2], &[1.0, 2.0]), i32s(&[2], &[1, 2])],
    )
    .unwrap_err();
    insta::assert_snapshot!(err, @"stablehlo.add defining %0 in @main: operand 1 (%arg1 in @main) has type tensor<2xf32>, but the value given for it has type tensor<2xi32>; pass the operand's value");
    let err = reference::eval_op(&m, f, &f.ops[0], &[]).unwrap_err();
    insta::assert_snapshot!(err, @"stablehlo.add defining %0 in @main: the op has 2 operand(s) but 0 value(s) were given; pass one value per operand");
}

#[test]
fn error_compare_type_that_does_not_fit_the_element_type() {
    let t = ty(DType::I32, &[2]);
    let mut b = FunctionBuilder::new("main", &[t.clone(), t]);
    let kind = OpKind::Compare {
        direction: ComparisonDirection::Lt,
        compare_type: Some(ComparisonType::Float),
    };
    let c = b.push1(kind, &[b.arg(0), b.arg(1)]).unwrap();
    let m = module_of(vec![b.finish(&[c])]);
    let err = reference::run(&m, "main", &[i32s(&[2], &[1, 2]), i32s(&[2], &[3, 4])]).unwrap_err();
    insta::assert_snapshot!(err, @"stablehlo.compare defining %0 in @main is not defined on element type i32 with compare_type FLOAT; convert the operands to a type it supports");
}

#[test]
fn error_unknown_callee_and_recursion() {
    let t = ty(DType::F32, &[2]);
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let c = b
        .push1_typed(
            OpKind::Call {
                callee: "helper".into(),
            },
            &[b.arg(0)],
            t.clone(),
        )
        .unwrap();
    let main = b.finish(&[c]);
    let err = reference::run(
        &module_of(vec![main.clone()]),
        "main",
        &[f32s(&[2], &[1.0, 2.0])],
    )
    .unwrap_err();
    insta::assert_snapshot!(err, @"%0 in @main calls @helper, which the module does not define; define `func.func private @helper` or fix the name");
    // A helper that calls itself.
    let mut h = FunctionBuilder::new("helper", std::slice::from_ref(&t));
    let c = h
        .push1_typed(
            OpKind::Call {
                callee: "helper".into(),
            },
            &[h.arg(0)],
            t,
        )
        .unwrap();
    let m = module_of(vec![main, h.finish(&[c])]);
    let err = reference::run(&m, "main", &[f32s(&[2], &[1.0, 2.0])]).unwrap_err();
    insta::assert_snapshot!(err, @"%0 in @helper calls @helper at call depth 64, the limit; StableHLO functions may not call themselves, directly or not");
}

#[test]
fn error_op_that_breaks_its_typing_rule() {
    // An unverified module whose add has operands of two types.
    let mut m = add_module();
    let f = &mut m.functions[0];
    let i = shardc_ir::ValueData {
        ty: ty(DType::I32, &[2]),
        def: f.values[1].def,
    };
    f.values[1] = i;
    let err =
        reference::run(&m, "main", &[f32s(&[2], &[1.0, 2.0]), i32s(&[2], &[1, 2])]).unwrap_err();
    insta::assert_snapshot!(err, @"stablehlo.add defining %0 in @main: both operands must have the same type, but got tensor<2xf32> and tensor<2xi32>; broadcast or convert the operands to one type first");
}

#[test]
fn error_malformed_function_does_not_panic() {
    let mut m = add_module();
    m.functions[0].ops[0].operands[1] = shardc_ir::ValueId(99);
    let err = reference::run(
        &m,
        "main",
        &[f32s(&[2], &[1.0, 2.0]), f32s(&[2], &[1.0, 2.0])],
    )
    .unwrap_err();
    insta::assert_snapshot!(err, @"@main is malformed: a stablehlo.add op uses value v99, but there are 3 values; build functions with `FunctionBuilder` or the parser");
}

#[test]
fn error_value_read_before_it_is_defined() {
    let t = ty(DType::F32, &[2]);
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let a = b.unary(UnaryOp::Negate, b.arg(0)).unwrap();
    let c = b.unary(UnaryOp::Negate, a).unwrap();
    let mut f = b.finish(&[c]);
    f.blocks[0].ops.reverse();
    let err = reference::run(&module_of(vec![f]), "main", &[f32s(&[2], &[1.0, 2.0])]).unwrap_err();
    insta::assert_snapshot!(err, @"stablehlo.negate defining %0 in @main reads %1 in @main, which has no value at this point; define values before their uses (a region may read only values defined before its op)");
}

// ---------------------------------------------------------------------------------------
// chlo, decomposed at the door

/// Each `chlo` function JAX emits, decomposed into StableHLO by the parser, against an
/// independent implementation (libm's erf/erfc, std's hyperbolic and inverse functions)
/// over its domain, in f32 and f64: f32 within a few ulp, f64 within 1e-14 relative.
/// `stablehlo.rng_bit_generator` with 64-bit bits, against what JAX (XLA's CPU backend,
/// `jax_enable_x64`) drew from the state `[7, 123456789]`: the 32-bit and narrow draws
/// are checked against JAX in the corpus (`lax_rng_bit_generator_fwd`).
#[test]
fn rng_bit_generator_draws_64_bits_as_xla_does() {
    let draw = |algorithm: &str| {
        let m = shardc_ir::text::parse_module(&format!(
            "func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>) {{
               %0, %1 = stablehlo.rng_bit_generator %s, algorithm = {algorithm} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)
               return %0, %1 : tensor<2xui64>, tensor<3xui64>
             }}"
        ))
        .unwrap();
        let state = Literal::new(
            TensorType::new(DType::U64, [2]),
            Elements::U64(vec![7, 123_456_789]),
        )
        .unwrap();
        let out = reference::run(&m, "main", &[state]).unwrap();
        let words = |l: &Literal| match &l.elements {
            Elements::U64(v) => v.clone(),
            other => panic!("ui64 expected, got {other:?}"),
        };
        (words(&out[0]), words(&out[1]))
    };
    assert_eq!(
        draw("PHILOX"),
        (
            vec![7, 123_456_791],
            vec![
                6_780_088_996_673_129_171,
                18_412_221_444_355_728_057,
                5_144_259_603_170_111_509
            ]
        )
    );
    assert_eq!(draw("DEFAULT"), draw("PHILOX"));
    assert_eq!(
        draw("THREE_FRY"),
        (
            vec![7, 123_456_792],
            vec![
                1_318_449_851_489_672_256,
                9_975_292_563_204_294_242,
                7_090_205_390_925_471_711
            ]
        )
    );
}

/// `chlo.next_after` and `stablehlo.reduce_precision` (decomposed into integer ops on
/// the bits) against Rust's own: `next_up`/`next_down`, and rounding to bf16 and f16.
#[test]
fn bit_level_decompositions_are_exact() {
    let run = |text: &str, args: &[Literal]| {
        let m = shardc_ir::text::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
        reference::run(&m, "main", args).unwrap().remove(0)
    };
    let xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        1.5,
        -2.75,
        1e-40,
        -1e-40,
        3.4e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.1,
        65504.0,
        65520.0,
        1e5,
        6.2e-5,
        1.00048828125,
        1.0009765625,
        1.00146484375,
    ];
    let ys: Vec<f32> = vec![
        1.0,
        -1.0,
        2.0,
        0.0,
        1.5,
        f32::INFINITY,
        0.0,
        0.0,
        f32::NEG_INFINITY,
        0.0,
        0.0,
        1.0,
        -5.0,
        1e9,
        0.0,
        1e5,
        1.0,
        2.0,
        0.0,
        1.0,
    ];
    let n = xs.len();
    let next = run(
        &format!(
            "func.func @main(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{
               %0 = chlo.next_after %x, %y : tensor<{n}xf32>, tensor<{n}xf32> -> tensor<{n}xf32>
               return %0 : tensor<{n}xf32>
             }}"
        ),
        &[f32s(&[n], &xs), f32s(&[n], &ys)],
    );
    let Elements::F32(got) = &next.elements else {
        panic!("f32 results")
    };
    for ((&x, &y), &g) in xs.iter().zip(&ys).zip(got) {
        let want = if x.is_nan() || y.is_nan() {
            f32::NAN
        } else if x == y {
            y
        } else if x < y {
            x.next_up()
        } else {
            x.next_down()
        };
        assert!(
            g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
            "next_after({x:e}, {y:e}) = {g:e}, want {want:e}"
        );
    }
    let to_bf16 = |x: f32| bf16::from_f32(x).to_f32();
    let to_f16 = |x: f32| f16::from_f32(x).to_f32();
    for (format, round, min_normal) in [
        // f32's own exponent range: subnormals stay (rounded), as in bf16.
        ("e8m7", &to_bf16 as &dyn Fn(f32) -> f32, 0.0),
        ("e5m10", &to_f16, 6.103_515_6e-5),
    ] {
        let got = run(
            &format!(
                "func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
                   %0 = stablehlo.reduce_precision %x, format = {format} : tensor<{n}xf32>
                   return %0 : tensor<{n}xf32>
                 }}"
            ),
            &[f32s(&[n], &xs)],
        )
        .to_f64_vec();
        // Rounded to the narrow type and back (nearest even, overflow to infinity); with a
        // narrower exponent, what would be subnormal there flushed to zero (XLA's).
        for (&x, &g) in xs.iter().zip(&got) {
            let g = g as f32;
            let w = round(x);
            let w = if w.abs() < min_normal {
                0.0f32.copysign(w)
            } else {
                w
            };
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "reduce_precision({x:e}, {format}) = {g:e}, want {w:e}"
            );
        }
    }
}

#[test]
fn chlo_decompositions_match_independent_implementations() {
    fn check(name: &str, dtype: &str, xs: &[f64], want: fn(f64) -> f64, tol: f64) {
        let n = xs.len();
        let t = format!("tensor<{n}x{dtype}>");
        let text = format!(
            "func.func @main(%x: {t}) -> {t} {{\n  %0 = chlo.{name} %x : {t} -> {t}\n  return %0 : {t}\n}}"
        );
        let m = shardc_ir::text::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let arg = if dtype == "f32" {
            f32s(&[n], &xs.iter().map(|&x| x as f32).collect::<Vec<_>>())
        } else {
            f64s(&[n], xs)
        };
        let got = reference::run(&m, "main", &[arg])
            .unwrap()
            .remove(0)
            .to_f64_vec();
        for (&x, &g) in xs.iter().zip(&got) {
            let x = if dtype == "f32" { x as f32 as f64 } else { x };
            let w = want(x);
            if w.is_nan() {
                assert!(g.is_nan(), "chlo.{name}({x}) in {dtype}: {g}, not NaN");
                continue;
            }
            if w.is_infinite() {
                assert_eq!(g, w, "chlo.{name}({x}) in {dtype}");
                continue;
            }
            let err = (g - w).abs()
                / w.abs()
                    .max(1e-30)
                    .max(if name == "erf_inv" { 1e-3 } else { 0.0 });
            assert!(
                err <= tol || (g - w).abs() <= tol,
                "chlo.{name}({x}) in {dtype}: {g} vs {w} (error {err:e})"
            );
        }
    }
    let grid = |lo: f64, hi: f64, n: usize| -> Vec<f64> {
        (0..n)
            .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
            .collect()
    };
    let wide = grid(-6.0, 6.0, 241);
    let unit = grid(-0.999, 0.999, 201);
    for (dtype, tol) in [("f32", 2e-6), ("f64", 1e-14)] {
        check("erf", dtype, &wide, libm::erf, tol);
        check(
            "erfc",
            dtype,
            &wide,
            libm::erfc,
            if dtype == "f32" { 4e-6 } else { 1e-13 },
        );
        check("sinh", dtype, &grid(-10.0, 10.0, 201), f64::sinh, tol * 2.0);
        // Near overflow (expm1 alone overflows past 88.7 in f32, sinh past 89.4) and
        // across |x| = 1, where the two formulas meet.
        let edge = [88.5, 89.0, 89.4, -89.0, 0.999, 1.0, 1.001, -1.001, 1e-30];
        check("sinh", dtype, &edge, f64::sinh, tol * 4.0);
        // acosh near 1 (log1p keeps its digits) and of the largest values (x^2 overflows).
        let far = [1.0, 1.0 + 1e-6, 1.5, 1e17, 1e19, 3.4e38, 1e300];
        let far = if dtype == "f32" { &far[..6] } else { &far[..] };
        check("acosh", dtype, far, f64::acosh, tol * 2.0);
        check("cosh", dtype, &grid(-10.0, 10.0, 201), f64::cosh, tol * 2.0);
        check("asin", dtype, &unit, f64::asin, tol * 2.0);
        check("acos", dtype, &unit, f64::acos, tol * 2.0);
        check("atan", dtype, &wide, f64::atan, tol);
        check("asinh", dtype, &wide, f64::asinh, tol * 2.0);
        check("acosh", dtype, &grid(1.0, 50.0, 99), f64::acosh, tol * 2.0);
        check("atanh", dtype, &unit, f64::atanh, tol * 4.0);
        check("square", dtype, &wide, |x| x * x, tol);
    }
    // erf_inv: the inverse of libm's erf, to the f32 polynomial's accuracy and to f64's
    // last bits (near +-1 too, where erf has no digits left: the reference inverts erfc
    // there), infinite at +-1, NaN beyond.
    let erf_inverse = |y: f64| {
        // Bisection on the independent erf and erfc: the inverse, however slowly.
        let (mut lo, mut hi) = (0.0f64, 30.0f64);
        let a = y.abs();
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            let below = if a > 0.5 {
                libm::erfc(mid) > 1.0 - a
            } else {
                libm::erf(mid) < a
            };
            if below { lo = mid } else { hi = mid }
        }
        (0.5 * (lo + hi)).copysign(y)
    };
    check("erf_inv", "f32", &unit, erf_inverse, 2e-5);
    let near_one = [
        0.9,
        0.99,
        0.999999,
        1.0 - 1e-12,
        -(1.0 - 1e-15),
        1e-300,
        -0.3,
    ];
    let f64_points: Vec<f64> = unit.iter().copied().chain(near_one).collect();
    check("erf_inv", "f64", &f64_points, erf_inverse, 1e-13);
    for dtype in ["f32", "f64"] {
        check("erf_inv", dtype, &[1.0, -1.0], |y| y * f64::INFINITY, 0.0);
        check("erf_inv", dtype, &[1.5, -2.0], |_| f64::NAN, 0.0);
    }
    // The gamma family against libm's lgamma and digamma by recurrence and its asymptotic
    // series, away from the poles; poles and infinities as XLA gives them.
    let gamma_grid: Vec<f64> = grid(-7.9, 40.0, 480)
        .into_iter()
        .filter(|x| (x - x.round()).abs() > 0.05 || *x > 0.5)
        .collect();
    let lgamma = |x: f64| libm::lgamma_r(x).0;
    let digamma = |mut x: f64| {
        // psi(x) = psi(x + 1) - 1/x up to 20, then the asymptotic series.
        let mut shift = 0.0;
        while x < 20.0 {
            shift -= 1.0 / x;
            x += 1.0;
        }
        let y = 1.0 / (x * x);
        shift + x.ln() - 0.5 / x - y * (1.0 / 12.0 - y * (1.0 / 120.0 - y / 252.0))
    };
    for (dtype, tol) in [("f32", 1e-5), ("f64", 1e-9)] {
        check("lgamma", dtype, &gamma_grid, lgamma, tol);
        check("digamma", dtype, &gamma_grid, digamma, tol.max(1e-8));
        check(
            "lgamma",
            dtype,
            &[0.0, -3.0, f64::INFINITY, f64::NEG_INFINITY],
            |_| f64::INFINITY,
            0.0,
        );
    }
    // bessel_i1e against I1's power series (positive terms: accurate wherever it does not
    // overflow) times exp(-|x|), across the split at |x| = 8 and out to 60; the asymptotic
    // series far out; i1e(+-inf) = +-0.
    let i1e = |x: f64| {
        let h = x.abs() / 2.0;
        let (mut term, mut sum) = (h, h);
        for k in 1..400 {
            term *= h * h / (k as f64 * (k + 1) as f64);
            sum += term;
            if term < sum * 1e-18 {
                break;
            }
        }
        x.signum() * sum * (-x.abs()).exp()
    };
    let asymptotic = |x: f64| {
        let z = x.abs();
        let r = 1.0 - 3.0 / (8.0 * z) - 15.0 / (128.0 * z * z) - 315.0 / (3072.0 * z * z * z);
        x.signum() * r / (2.0 * std::f64::consts::PI * z).sqrt()
    };
    let bessel_grid: Vec<f64> = grid(-60.0, 60.0, 481)
        .into_iter()
        .chain([7.999, 8.0, 8.001, -8.0, 1e-20, 0.0])
        .collect();
    for (dtype, tol) in [("f32", 2e-6), ("f64", 1e-12)] {
        check("bessel_i1e", dtype, &bessel_grid, i1e, tol);
        check(
            "bessel_i1e",
            dtype,
            &[1e6, -2.5e7],
            asymptotic,
            tol.max(1e-12),
        );
        check(
            "bessel_i1e",
            dtype,
            &[f64::INFINITY, f64::NEG_INFINITY],
            |_| 0.0,
            0.0,
        );
    }
}

#[test]
fn zeta_and_polygamma_match_direct_sums() {
    // Hurwitz zeta by direct summation in f64 (a million terms and the integral of the
    // rest), and polygamma from it; against chlo.zeta and chlo.polygamma in f32 and f64.
    fn direct_zeta(s: f64, q: f64) -> f64 {
        let n = 1_000_000;
        let head: f64 = (0..n).map(|k| (q + k as f64).powf(-s)).sum();
        let a = q + n as f64;
        head + a.powf(1.0 - s) / (s - 1.0) + 0.5 * a.powf(-s) + s / 12.0 * a.powf(-s - 1.0)
    }
    let cases: Vec<(f64, f64)> = [1.5f64, 2.0, 3.0, 4.5, 7.0]
        .iter()
        .flat_map(|&s| [0.05, 0.5, 1.0, 2.3, 9.7, 50.0, -0.5, -2.25].map(|q| (s, q)))
        .filter(|&(s, q): &(f64, f64)| q > 0.0 || s == s.round())
        .collect();
    for dtype in ["f32", "f64"] {
        let n = cases.len();
        let t = format!("tensor<{n}x{dtype}>");
        let text = format!(
            "func.func @main(%s: {t}, %q: {t}) -> ({t}, {t}) {{
               %0 = chlo.zeta %s, %q : {t}, {t} -> {t}
               %one = stablehlo.constant dense<1.0> : {t}
               %n = stablehlo.subtract %s, %one : {t}
               %1 = chlo.polygamma %n, %q : {t}, {t} -> {t}
               return %0, %1 : {t}, {t}
             }}"
        );
        let m = shardc_ir::text::parse_module(&text).unwrap();
        let col = |k: usize| -> Vec<f64> {
            cases
                .iter()
                .map(|c| if k == 0 { c.0 } else { c.1 })
                .collect()
        };
        let args = if dtype == "f32" {
            let f = |v: Vec<f64>| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
            vec![f32s(&[n], &f(col(0))), f32s(&[n], &f(col(1)))]
        } else {
            vec![f64s(&[n], &col(0)), f64s(&[n], &col(1))]
        };
        let got = reference::run(&m, "main", &args).unwrap();
        let (zeta, poly) = (got[0].to_f64_vec(), got[1].to_f64_vec());
        let tol = if dtype == "f32" { 2e-5 } else { 1e-9 };
        for (i, &(s, q)) in cases.iter().enumerate() {
            let w = direct_zeta(s, q);
            assert!(
                (zeta[i] - w).abs() <= tol * w.abs().max(1.0),
                "zeta({s}, {q}) in {dtype}: {} vs {w}",
                zeta[i]
            );
            // polygamma(n, q) = (-1)^(n+1) n! zeta(n+1, q) for whole n = s - 1 >= 1.
            let n = s - 1.0;
            if n == n.round() && n >= 1.0 {
                let fact: f64 = (1..=n as u64).map(|k| k as f64).product();
                let w = if n as u64 % 2 == 1 { 1.0 } else { -1.0 } * fact * w;
                assert!(
                    (poly[i] - w).abs() <= tol * w.abs().max(1.0),
                    "polygamma({n}, {q}) in {dtype}: {} vs {w}",
                    poly[i]
                );
            } else if n != n.round() {
                assert!(
                    poly[i].is_nan(),
                    "polygamma({n}, {q}) is NaN for fractional n"
                );
            }
        }
    }
}

/// Deterministic draws in [-0.5, 0.5) (a 64-bit LCG's top 53 bits).
fn uniform_around_zero(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    }
}

#[test]
fn factorizations_and_solves_reconstruct_their_matrices() {
    // Random well-conditioned matrices (a batch of 3, f64): the Cholesky factor times its
    // transpose, P L U, and op(T) X (or X op(T)) give back what was factored or solved.
    let n = 5;
    let mut next = uniform_around_zero(7);
    let g: Vec<f64> = (0..3 * n * n).map(|_| next()).collect();
    let mut spd = vec![0.0; 3 * n * n];
    for b in 0..3 {
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n)
                    .map(|k| g[b * n * n + i * n + k] * g[b * n * n + j * n + k])
                    .sum();
                spd[b * n * n + i * n + j] = dot + if i == j { n as f64 } else { 0.0 };
            }
        }
    }
    let at = |v: &[f64], b: usize, i: usize, j: usize| v[b * n * n + i * n + j];
    let close = |x: f64, y: f64, what: &str| {
        assert!(
            (x - y).abs() <= 1e-9 * y.abs().max(1.0),
            "{what}: {x} vs {y}"
        )
    };
    let t = format!("tensor<3x{n}x{n}xf64>");
    for lower in [true, false] {
        let text = format!(
            "func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.cholesky %a, lower = {lower} : {t}\n  return %0 : {t}\n}}"
        );
        let m = shardc_ir::text::parse_module(&text).unwrap();
        let l = reference::run(&m, "main", &[f64s(&[3, n, n], &spd)]).unwrap()[0].to_f64_vec();
        for b in 0..3 {
            for i in 0..n {
                for j in 0..n {
                    let outside = if lower { j > i } else { j < i };
                    if outside {
                        assert_eq!(at(&l, b, i, j), 0.0, "the other triangle is zero");
                    }
                    let r: f64 = (0..n)
                        .map(|k| {
                            if lower {
                                at(&l, b, i, k) * at(&l, b, j, k)
                            } else {
                                at(&l, b, k, i) * at(&l, b, k, j)
                            }
                        })
                        .sum();
                    close(r, at(&spd, b, i, j), "L Lt (or Ut U) = a");
                }
            }
        }
    }
    // LU with pivoting of the unsymmetric g: apply the interchanges to g, compare with L U.
    let lt = format!("tensor<3x{n}x{n}xf64>");
    let text = format!(
        "func.func @main(%a: {lt}) -> ({lt}, tensor<3x{n}xi32>, tensor<3xi32>) {{\n  %0:3 = shardc.lu %a : ({lt}) -> ({lt}, tensor<3x{n}xi32>, tensor<3xi32>)\n  return %0#0, %0#1, %0#2 : {lt}, tensor<3x{n}xi32>, tensor<3xi32>\n}}"
    );
    let m = shardc_ir::text::parse_module(&text).unwrap();
    let out = reference::run(&m, "main", &[f64s(&[3, n, n], &g)]).unwrap();
    let (lu, piv, info) = (
        out[0].to_f64_vec(),
        out[1].to_f64_vec(),
        out[2].to_f64_vec(),
    );
    assert_eq!(info, vec![0.0; 3]);
    for b in 0..3 {
        let mut pa: Vec<f64> = g[b * n * n..(b + 1) * n * n].to_vec();
        for k in 0..n {
            let p = piv[b * n + k] as usize - 1;
            assert!(p >= k, "pivot rows come from below");
            for c in 0..n {
                pa.swap(k * n + c, p * n + c);
            }
        }
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n)
                    .map(|k| {
                        let l = if k < i {
                            at(&lu, b, i, k)
                        } else if k == i {
                            1.0
                        } else {
                            0.0
                        };
                        let u = if k <= j { at(&lu, b, k, j) } else { 0.0 };
                        l * u
                    })
                    .sum();
                close(r, pa[i * n + j], "P a = L U");
            }
        }
    }
    // Triangular solves: every side, triangle, transpose and diagonal.
    let rhs: Vec<f64> = (0..3 * n * 2).map(|_| next()).collect();
    for left_side in [true, false] {
        for lower in [true, false] {
            for transpose in ["NO_TRANSPOSE", "TRANSPOSE"] {
                for unit in [false, true] {
                    let (bt, shape) = if left_side {
                        (format!("tensor<3x{n}x2xf64>"), [3, n, 2])
                    } else {
                        (format!("tensor<3x2x{n}xf64>"), [3, 2, n])
                    };
                    let text = format!(
                        "func.func @main(%a: {t}, %b: {bt}) -> {bt} {{\n  %0 = \"stablehlo.triangular_solve\"(%a, %b) <{{left_side = {left_side}, lower = {lower}, transpose_a = #stablehlo<transpose {transpose}>, unit_diagonal = {unit}}}> : ({t}, {bt}) -> {bt}\n  return %0 : {bt}\n}}"
                    );
                    let m = shardc_ir::text::parse_module(&text).unwrap();
                    let x =
                        reference::run(&m, "main", &[f64s(&[3, n, n], &spd), f64s(&shape, &rhs)])
                            .unwrap()[0]
                            .to_f64_vec();
                    // op(T) as the solve read it.
                    let op = |b: usize, i: usize, j: usize| {
                        let (r, c) = if transpose == "TRANSPOSE" {
                            (j, i)
                        } else {
                            (i, j)
                        };
                        if r == c && unit {
                            1.0
                        } else if (lower && c <= r) || (!lower && c >= r) {
                            at(&spd, b, r, c)
                        } else {
                            0.0
                        }
                    };
                    for b in 0..3 {
                        for i in 0..shape[1] {
                            for j in 0..shape[2] {
                                let r: f64 = (0..n)
                                    .map(|k| {
                                        if left_side {
                                            op(b, i, k) * x[b * n * 2 + k * 2 + j]
                                        } else {
                                            x[b * n * 2 + i * n + k] * op(b, k, j)
                                        }
                                    })
                                    .sum();
                                close(
                                    r,
                                    rhs[b * n * 2 + i * shape[2] + j],
                                    "op(a) x = b (or x op(a) = b)",
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn householder_qr_reconstructs_and_is_orthogonal() {
    // geqrf then householder_product on tall, square and wide f64 matrices: Q R = a (R
    // the upper triangle of geqrf's result), Qᵀ Q = I, and R's diagonal by LAPACK's sign
    // convention (-sign of the column's first element).
    let mut next = uniform_around_zero(11);
    for (m, n) in [(6usize, 4usize), (5, 5), (3, 6)] {
        let k = m.min(n);
        let a: Vec<f64> = (0..2 * m * n).map(|_| next()).collect();
        let at = format!("tensor<2x{m}x{n}xf64>");
        let tt = format!("tensor<2x{k}xf64>");
        // The product takes an m x k matrix of reflectors (the first k columns).
        let qt = format!("tensor<2x{m}x{k}xf64>");
        let text = format!(
            "func.func @main(%a: {at}) -> ({at}, {qt}) {{
               %0:2 = shardc.geqrf %a : ({at}) -> ({at}, {tt})
               %1 = stablehlo.slice %0#0 [0:2, 0:{m}, 0:{k}] : ({at}) -> {qt}
               %2 = shardc.householder_product %1, %0#1 : ({qt}, {tt}) -> {qt}
               return %0#0, %2 : {at}, {qt}
             }}"
        );
        let module = shardc_ir::text::parse_module(&text).unwrap();
        let out = reference::run(&module, "main", &[f64s(&[2, m, n], &a)]).unwrap();
        let (r, q) = (out[0].to_f64_vec(), out[1].to_f64_vec());
        for b in 0..2 {
            let rr = |i: usize, j: usize| {
                if i <= j {
                    r[b * m * n + i * n + j]
                } else {
                    0.0
                }
            };
            let qq = |i: usize, j: usize| q[b * m * k + i * k + j];
            // LAPACK's sign: R[0][0] = -sign(a[0][0]) |a[:, 0]|.
            let a0 = a[b * m * n];
            let norm = (0..m)
                .map(|i| a[b * m * n + i * n].powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                (rr(0, 0) + norm.copysign(a0)).abs() < 1e-12,
                "R[0][0] = {}",
                rr(0, 0)
            );
            for i in 0..m {
                for j in 0..n {
                    let got: f64 = (0..k).map(|t| qq(i, t) * rr(t, j)).sum();
                    let want = a[b * m * n + i * n + j];
                    assert!(
                        (got - want).abs() < 1e-12,
                        "{m}x{n}: (Q R)[{i},{j}] = {got}, a = {want}"
                    );
                }
            }
            for i in 0..k {
                for j in 0..k {
                    let got: f64 = (0..m).map(|t| qq(t, i) * qq(t, j)).sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!(
                        (got - want).abs() < 1e-12,
                        "{m}x{n}: (Qt Q)[{i},{j}] = {got}"
                    );
                }
            }
        }
    }
}

/// `m[i, j]` of row-major `rows x cols` matrices, batch `b`.
fn at(v: &[f64], b: usize, rows: usize, cols: usize, i: usize, j: usize) -> f64 {
    v[b * rows * cols + i * cols + j]
}

/// `shardc.eigh` and `shardc.svd` (JAX's eigh and svd: LAPACK's syevd and gesdd) by their
/// defining properties, in f64: orthonormal vectors, the matrix rebuilt from them, values
/// ordered; the [2, -1] Toeplitz matrix's closed-form spectrum; repeated eigenvalues; a
/// rank-one matrix's zero singular values with bases still completed; the triangle eigh
/// reads; NaN in, NaN out.
#[test]
fn eigh_and_svd_decompose() {
    let run = |text: &str, args: Vec<Literal>| -> Vec<Vec<f64>> {
        let m = shardc_ir::text::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        reference::run(&m, "main", &args)
            .unwrap()
            .iter()
            .map(Literal::to_f64_vec)
            .collect()
    };
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-10, "{what}: {a} vs {b}");
    // eigh: batch of 3 5x5: Toeplitz [2, -1], 2 I (a repeated eigenvalue), a dense one; the
    // upper triangles hold garbage that lower = true must not read.
    let n = 5;
    let mut a = vec![0.0; 3 * n * n];
    for i in 0..n {
        for j in 0..n {
            let (lo, hi) = (i.max(j), i.min(j));
            let toeplitz = if i == j {
                2.0
            } else if lo - hi == 1 {
                -1.0
            } else {
                0.0
            };
            let dense = ((lo * 7 + hi * 3) as f64 * 0.37).sin();
            let garbage = if j > i { 99.0 } else { 0.0 };
            a[i * n + j] = if j > i { garbage } else { toeplitz };
            a[n * n + i * n + j] = if i == j { 2.0 } else { garbage };
            a[2 * n * n + i * n + j] = if j > i { garbage } else { dense };
        }
    }
    let sym = |b: usize, i: usize, j: usize| at(&a, b, n, n, i.max(j), i.min(j));
    let t = format!("tensor<3x{n}x{n}xf64>");
    let text = format!(
        "func.func @main(%a: {t}) -> ({t}, tensor<3x{n}xf64>) {{\n  %0:2 = shardc.eigh %a, lower = true : ({t}) -> ({t}, tensor<3x{n}xf64>)\n  return %0#0, %0#1 : {t}, tensor<3x{n}xf64>\n}}"
    );
    let out = run(&text, vec![f64s(&[3, n, n], &a)]);
    let (v, w) = (&out[0], &out[1]);
    for b in 0..3 {
        for k in 1..n {
            assert!(
                w[b * n + k - 1] <= w[b * n + k],
                "eigenvalues ascending: {w:?}"
            );
        }
        for i in 0..n {
            for j in 0..n {
                let vtv: f64 = (0..n)
                    .map(|k| at(v, b, n, n, k, i) * at(v, b, n, n, k, j))
                    .sum();
                close(vtv, f64::from(u8::from(i == j)), "VᵀV = I");
                let rebuilt: f64 = (0..n)
                    .map(|k| at(v, b, n, n, i, k) * w[b * n + k] * at(v, b, n, n, j, k))
                    .sum();
                close(rebuilt, sym(b, i, j), "V diag(w) Vᵀ = a");
            }
        }
    }
    for k in 0..n {
        let exact = 2.0 - 2.0 * ((k + 1) as f64 * std::f64::consts::PI / (n + 1) as f64).cos();
        close(w[k], exact, "the Toeplitz spectrum");
        close(w[n + k], 2.0, "2 I");
    }
    // svd: tall 6x4 and wide 4x6 (full and thin), a rank-one 4x6; NaN in a second batch.
    for (m, c, full) in [(6, 4, true), (6, 4, false), (4, 6, true), (4, 6, false)] {
        let k = m.min(c);
        let (uc, vr) = if full { (m, c) } else { (k, k) };
        let mut x: Vec<f64> = (0..m * c).map(|e| (e as f64 * 0.61 + 0.3).sin()).collect();
        let rank_one: Vec<f64> = (0..m * c)
            .map(|e| ((e / c) as f64 + 1.0) * ((e % c) as f64 - 1.5))
            .collect();
        x.extend(rank_one);
        x.extend(vec![f64::NAN; m * c]);
        let (tx, ts, tu, tv) = (
            format!("tensor<3x{m}x{c}xf64>"),
            format!("tensor<3x{k}xf64>"),
            format!("tensor<3x{m}x{uc}xf64>"),
            format!("tensor<3x{vr}x{c}xf64>"),
        );
        let text = format!(
            "func.func @main(%a: {tx}) -> ({ts}, {tu}, {tv}) {{\n  %0:3 = shardc.svd %a, full_matrices = {full} : ({tx}) -> ({ts}, {tu}, {tv})\n  return %0#0, %0#1, %0#2 : {ts}, {tu}, {tv}\n}}"
        );
        let out = run(&text, vec![f64s(&[3, m, c], &x)]);
        let (s, u, vt) = (&out[0], &out[1], &out[2]);
        for b in 0..2 {
            for i in 1..k {
                assert!(
                    s[b * k + i - 1] >= s[b * k + i],
                    "singular values descending: {s:?}"
                );
            }
            for i in 0..uc {
                for j in 0..uc {
                    let utu: f64 = (0..m)
                        .map(|r| at(u, b, m, uc, r, i) * at(u, b, m, uc, r, j))
                        .sum();
                    close(
                        utu,
                        f64::from(u8::from(i == j)),
                        &format!("UᵀU = I ({m}x{c})"),
                    );
                }
            }
            for i in 0..vr {
                for j in 0..vr {
                    let vvt: f64 = (0..c)
                        .map(|r| at(vt, b, vr, c, i, r) * at(vt, b, vr, c, j, r))
                        .sum();
                    close(
                        vvt,
                        f64::from(u8::from(i == j)),
                        &format!("VᵀV = I ({m}x{c})"),
                    );
                }
            }
            for i in 0..m {
                for j in 0..c {
                    let rebuilt: f64 = (0..k)
                        .map(|q| at(u, b, m, uc, i, q) * s[b * k + q] * at(vt, b, vr, c, q, j))
                        .sum();
                    close(
                        rebuilt,
                        at(&x, b, m, c, i, j),
                        &format!("U diag(s) Vᵀ = a ({m}x{c})"),
                    );
                }
            }
        }
        assert!(
            s[k + 1..2 * k].iter().all(|v| v.abs() < 1e-10),
            "rank one: {s:?}"
        );
        assert!(
            s[2 * k..].iter().all(|v| v.is_nan()) && u[2 * m * uc..].iter().all(|v| v.is_nan())
        );
    }
}

/// A sort by several keys compared lexicographically (`lax.sort(num_keys=2)`,
/// `jnp.lexsort`: `lt0 or (eq0 and lt1)`, the float key's zeros and NaNs made canonical)
/// is computed natively and equals the comparator interpreted (with `and true` after it),
/// on ties of the first key broken by the second, NaNs, signed zeros and ties of both
/// (stable), along either dimension, ascending and descending.
#[test]
fn sorts_by_keys_lexicographically_equal_the_interpreted_comparator() {
    let firsts: Vec<i32> = vec![2, 1, 2, 0, 1, 2, 0, 1, 2, 2, 1, 0];
    let seconds: Vec<f32> = vec![
        1.0,
        f32::NAN,
        -0.0,
        0.0,
        -f32::NAN,
        3.5,
        1.0,
        -2.0,
        f32::INFINITY,
        0.0,
        -0.0,
        1.0,
    ];
    let k = i32s(&[3, 4], &firsts);
    let x = f32s(&[3, 4], &seconds);
    let idx = i32s(&[3, 4], &(0..12).collect::<Vec<_>>());
    for dim in [0, 1] {
        for dir in ["LT", "GT"] {
            let module = |and_true: bool| {
                let tail = if and_true {
                    "%t = stablehlo.constant dense<true> : tensor<i1>\n      %r2 = stablehlo.and %r, %t : tensor<i1>\n      stablehlo.return %r2 : tensor<i1>"
                } else {
                    "stablehlo.return %r : tensor<i1>"
                };
                let text = format!(
                    r#"func.func @main(%k: tensor<3x4xi32>, %x: tensor<3x4xf32>, %y: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xi32>) {{
  %s:3 = "stablehlo.sort"(%k, %x, %y) <{{dimension = {dim} : i64, is_stable = true}}> ({{
    ^bb0(%p: tensor<i32>, %q: tensor<i32>, %a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %ea = stablehlo.compare EQ, %a, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %sa = stablehlo.select %ea, %zero, %a : tensor<i1>, tensor<f32>
      %na = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %ka = stablehlo.select %na, %nan, %sa : tensor<i1>, tensor<f32>
      %eb = stablehlo.compare EQ, %b, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %sb = stablehlo.select %eb, %zero, %b : tensor<i1>, tensor<f32>
      %nb = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %kb = stablehlo.select %nb, %nan, %sb : tensor<i1>, tensor<f32>
      %second = stablehlo.compare {dir}, %ka, %kb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %first = stablehlo.compare {dir}, %p, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.compare EQ, %q, %p, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %then = stablehlo.and %tie, %second : tensor<i1>
      %r = stablehlo.or %first, %then : tensor<i1>
      {tail}
  }}) : (tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xi32>)
  return %s#0, %s#1, %s#2 : tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xi32>
}}"#
                );
                shardc_ir::text::parse_module(&text).unwrap()
            };
            let args = [k.clone(), x.clone(), idx.clone()];
            let native = reference::run(&module(false), "main", &args).unwrap();
            let interpreted = reference::run(&module(true), "main", &args).unwrap();
            assert_eq!(native, interpreted, "dim {dim}, {dir}");
            // Sorted by the first key, each run of ties by the second.
            let firsts = native[0].to_f64_vec();
            let rows = if dim == 0 { 4 } else { 3 };
            let (n, stride, step) = if dim == 0 { (3, 1, 4) } else { (4, 4, 1) };
            for r in 0..rows {
                let run: Vec<f64> = (0..n).map(|i| firsts[r * stride + i * step]).collect();
                let ordered = run.windows(2).all(|w| {
                    if dir == "LT" {
                        w[0] <= w[1]
                    } else {
                        w[0] >= w[1]
                    }
                });
                assert!(ordered, "dim {dim}, {dir}: row {r} is {run:?}");
            }
        }
    }
}

/// A sort whose comparator is one `compare` of an operand's pair (JAX's sorts and
/// `top_k`) is computed natively: the same permutation, bit for bit, as the comparator
/// interpreted (here the same compare with `and true` after it), for NaNs of both signs,
/// signed zeros and ties (stable), along either dimension, with the pair compared either
/// way round, keyed on either operand, and on keys the region computes first (JAX's
/// zeros and NaNs made canonical).
#[test]
fn sorts_by_one_compare_equal_the_interpreted_comparator() {
    let values: Vec<f32> = vec![
        1.0,
        f32::NAN,
        -0.0,
        0.0,
        -f32::NAN,
        3.5,
        1.0,
        -2.0,
        f32::INFINITY,
        0.0,
        -0.0,
        1.0,
    ];
    let x = f32s(&[3, 4], &values);
    let idx = i32s(&[3, 4], &(0..12).collect::<Vec<_>>());
    for dim in [0, 1] {
        for (dir, cmp_type) in [("GT", "TOTALORDER"), ("LT", "TOTALORDER"), ("LT", "FLOAT")] {
            for (lhs, rhs, key) in [
                ("%a", "%b", 0),
                ("%b", "%a", 0),
                ("%i", "%j", 1),
                ("%ka", "%kb", 0),
                ("%kb", "%ka", 0),
            ] {
                let ty = if key == 0 { cmp_type } else { "SIGNED" };
                let scalar = if key == 0 { "f32" } else { "i32" };
                // JAX's keys for floats: zeros and NaNs made canonical.
                let canonical = |v: &str| {
                    format!(
                        "%e{v} = stablehlo.compare EQ, %{v}, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %s{v} = stablehlo.select %e{v}, %zero, %{v} : tensor<i1>, tensor<f32>
      %n{v} = stablehlo.compare NE, %{v}, %{v}, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %k{v} = stablehlo.select %n{v}, %nan, %s{v} : tensor<i1>, tensor<f32>"
                    )
                };
                let keys = format!(
                    "%zero = stablehlo.constant dense<0.0> : tensor<f32>
      %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      {}
      {}",
                    canonical("a"),
                    canonical("b")
                );
                let module = |and_true: bool| {
                    let tail = if and_true {
                        "%t = stablehlo.constant dense<true> : tensor<i1>\n      %r = stablehlo.and %c, %t : tensor<i1>\n      stablehlo.return %r : tensor<i1>"
                    } else {
                        "stablehlo.return %c : tensor<i1>"
                    };
                    let text = format!(
                        r#"func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {{
  %s:2 = "stablehlo.sort"(%x, %y) <{{dimension = {dim} : i64, is_stable = true}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
      {keys}
      %c = stablehlo.compare {dir}, {lhs}, {rhs}, {ty} : (tensor<{scalar}>, tensor<{scalar}>) -> tensor<i1>
      {tail}
  }}) : (tensor<3x4xf32>, tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
  return %s#0, %s#1 : tensor<3x4xf32>, tensor<3x4xi32>
}}"#
                    );
                    shardc_ir::text::parse_module(&text).unwrap()
                };
                let args = [x.clone(), idx.clone()];
                let native = reference::run(&module(false), "main", &args).unwrap();
                let interpreted = reference::run(&module(true), "main", &args).unwrap();
                assert_eq!(native, interpreted, "dim {dim}, {dir} {lhs} {rhs} {ty}");
                // The permutation is the stable one.
                let perm: Vec<f64> = native[1].to_f64_vec();
                let mut sorted = perm.clone();
                sorted.sort_by(|a, b| a.total_cmp(b));
                assert_eq!(sorted, (0..12).map(f64::from).collect::<Vec<_>>());
            }
        }
    }
}

/// A public function's narrow arguments (`ir/src/text/narrow.rs`) are passed in the types
/// that hold them and brought into their type on entry: an int4 argument's int8 value keeps
/// its low 4 bits (sign-extended), a uint4's its low 4 bits, a float8 argument's f32 value
/// is rounded to the format; private functions take narrow values as they are.
#[test]
fn narrow_public_arguments_are_narrowed_on_entry() {
    let pretty = r#"func.func @main(%a: tensor<6xi4>, %u: tensor<6xui4>, %f: tensor<6xf8E4M3FN>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xf32>) {
  %0 = stablehlo.convert %a : (tensor<6xi4>) -> tensor<6xi32>
  %1 = stablehlo.convert %u : (tensor<6xui4>) -> tensor<6xi32>
  %2 = call @twice(%f) : (tensor<6xf8E4M3FN>) -> tensor<6xf32>
  return %0, %1, %2 : tensor<6xi32>, tensor<6xi32>, tensor<6xf32>
}
func.func private @twice(%f: tensor<6xf8E4M3FN>) -> tensor<6xf32> {
  %0 = stablehlo.convert %f : (tensor<6xf8E4M3FN>) -> tensor<6xf32>
  %1 = stablehlo.add %0, %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}"#;
    let generic = r#""func.func"() <{function_type = (tensor<6xi4>, tensor<6xui4>, tensor<6xf8E4M3FN>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xf32>), sym_name = "main"}> ({
^bb0(%a: tensor<6xi4>, %u: tensor<6xui4>, %f: tensor<6xf8E4M3FN>):
  %0 = "stablehlo.convert"(%a) : (tensor<6xi4>) -> tensor<6xi32>
  %1 = "stablehlo.convert"(%u) : (tensor<6xui4>) -> tensor<6xi32>
  %2 = "stablehlo.convert"(%f) : (tensor<6xf8E4M3FN>) -> tensor<6xf32>
  %3 = "stablehlo.add"(%2, %2) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "func.return"(%0, %1, %3) : (tensor<6xi32>, tensor<6xi32>, tensor<6xf32>) -> ()
}) : () -> ()"#;
    let a = lit(DType::I8, &[6], Elements::I8(vec![7, -8, 8, 9, -9, 127]));
    let u = lit(DType::U8, &[6], Elements::U8(vec![15, 16, 17, 200, 0, 255]));
    let f = f32s(&[6], &[0.3, 1.0625, 1.1875, 447.0, 465.0, 2e-3]);
    for text in [pretty, generic] {
        let m = shardc_ir::text::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
        // Held as int8, uint8 and f32.
        let main = m.function("main").unwrap();
        let held = [
            ty(DType::I8, &[6]),
            ty(DType::U8, &[6]),
            ty(DType::F32, &[6]),
        ];
        assert_eq!(main.arg_types(), held);
        let out = reference::run(&m, "main", &[a.clone(), u.clone(), f.clone()]).unwrap();
        assert_eq!(ints(&out[0]), [7, -8, -8, -7, 7, -1]);
        assert_eq!(ints(&out[1]), [15, 0, 1, 8, 0, 15]);
        // 0.3 -> 0.3125, ties to even (1.0625 -> 1.0, 1.1875 -> 1.25), 447 -> 448, 465 ->
        // NaN (above 464 E4M3FN overflows), 2e-3 -> 2^-9 (the smallest subnormal).
        let want = [0.625, 2.0, 2.5, 896.0, f64::NAN, 2.0 * 2f64.powi(-9)];
        assert_exact(&out[2], &want);
    }
}

/// Equinox's runtime check (`eqx.error_if`, as JAX lowers it: a `case` on whether any
/// element fails whose failing branch calls Python) is read as `EQX_ON_ERROR=nan` reads
/// it: the guarded values pass through when the check holds and become NaN, the integer
/// type's largest value or true when it fails; a `jax.debug.print` is left out; both are
/// noted. A callback with results anywhere else is refused by name.
#[test]
fn equinox_checks_read_as_eqx_on_error_nan() {
    let text = r#"func.func @main(%x: tensor<3xf32>, %n: tensor<2xui16>, %fail: tensor<3xi1>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>) {
  %0:3 = call @branched_error_if_impl_0(%x, %n, %fail) : (tensor<3xf32>, tensor<2xui16>, tensor<3xi1>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>)
  stablehlo.custom_call @xla_ffi_python_cpu_callback(%x) {has_side_effect = true} : (tensor<3xf32>) -> ()
  return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<2xui16>, tensor<i1>
}
func.func private @branched_error_if_impl_0(%x: tensor<3xf32>, %n: tensor<2xui16>, %fail: tensor<3xi1>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>) {
  %c = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.reduce(%fail init: %c) applies stablehlo.or across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
  %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
  %2:3 = "stablehlo.case"(%1) ({
    stablehlo.return %x, %n, %c : tensor<3xf32>, tensor<2xui16>, tensor<i1>
  }, {
    %i = stablehlo.constant dense<0> : tensor<i32>
    %3:3 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%i) {mhlo.backend_config = {index = 0 : ui64}} : (tensor<i32>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>)
    %4:3 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%3#0, %3#1, %3#2, %i) {mhlo.backend_config = {index = 1 : ui64}} : (tensor<3xf32>, tensor<2xui16>, tensor<i1>, tensor<i32>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>)
    stablehlo.return %4#0, %4#1, %4#2 : tensor<3xf32>, tensor<2xui16>, tensor<i1>
  }) : (tensor<i32>) -> (tensor<3xf32>, tensor<2xui16>, tensor<i1>)
  return %2#0, %2#1, %2#2 : tensor<3xf32>, tensor<2xui16>, tensor<i1>
}"#;
    let (m, notes) = shardc_ir::text::parse_module_noted(text, shardc_ir::Uneven::Refuse)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(notes.len(), 2, "{notes:?}");
    // In the order first met.
    assert!(
        notes[0].starts_with("note: the Python callback at line 3 (jax.debug.print"),
        "{}",
        notes[0]
    );
    assert!(
        notes[1].starts_with("note: equinox's runtime checks (eqx.error_if")
            && notes[1].contains("at lines 14, 15 read as `EQX_ON_ERROR=nan`"),
        "{}",
        notes[1]
    );
    let x = f32s(&[3], &[1.5, -2.0, 0.25]);
    let n = lit(DType::U16, &[2], Elements::U16(vec![7, 9]));
    let flags = |v: [bool; 3]| lit(DType::I1, &[3], Elements::I1(v.to_vec()));
    let held = reference::run(&m, "main", &[x.clone(), n.clone(), flags([false; 3])]).unwrap();
    assert_eq!(held[0], x);
    assert_eq!(held[1], n);
    assert_eq!(bools_of(&held[2]), [false]);
    let failed = reference::run(&m, "main", &[x, n, flags([false, true, false])]).unwrap();
    assert_exact(&failed[0], &[f64::NAN; 3]);
    assert_eq!(failed[1].to_f64_vec(), [65535.0, 65535.0]);
    assert_eq!(bools_of(&failed[2]), [true]);
    // The same call outside the check has no meaning shardc can give it.
    let outside = text.replace("branched_error_if_impl_0", "my_function");
    let e = shardc_ir::text::parse_module(&outside)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("14:") && e.contains("is not supported: it is a Python callback with results (jax.pure_callback, io_callback)"),
        "{e}"
    );
}
