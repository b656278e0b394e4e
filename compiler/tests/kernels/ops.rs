//! Every lowered op against the reference interpreter, on the values where the choices
//! are made (NaN, ±0, ±inf, integer MIN / -1, out-of-range shifts, saturating converts).

use super::{Tol, check_module, module_of, values};
use shardc_ir::text::parse_module;
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, DotDims, Elements, FunctionBuilder,
    Literal, OpKind, TensorType, UnaryOp, ValueId,
};

const FLOATS: [DType; 4] = [DType::F32, DType::F64, DType::BF16, DType::F16];
const INTS: [DType; 8] = [
    DType::I32,
    DType::I64,
    DType::I8,
    DType::I16,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

fn special_floats() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.0,
        1e-3,
        7.25,
        -7.75,
        100.0,
        -100.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        std::f64::consts::FRAC_PI_4,
    ]
}

fn special_ints(dt: DType) -> Vec<f64> {
    let w = dt.bit_width() as i32;
    // The type's extremes (exact in f64 below 64 bits; 1024 or 2048 short of them at 64).
    let (min, max) = match (dt.is_unsigned(), w) {
        (true, 64) => (0.0, 2f64.powi(64) - 2048.0),
        (true, _) => (0.0, 2f64.powi(w) - 1.0),
        (false, 64) => (-(2f64.powi(63)), 2f64.powi(63) - 1024.0),
        (false, _) => (-(2f64.powi(w - 1)), 2f64.powi(w - 1) - 1.0),
    };
    // Negative values become 0 in unsigned types (converts saturate); below the extremes
    // of narrow types, they saturate too.
    let mut v = vec![
        0.0, 1.0, -1.0, 2.0, -2.0, 7.0, -7.0, 31.0, 32.0, 33.0, 63.0, 64.0, 100.0, min, max, 3.0,
    ];
    if dt.is_unsigned() {
        // The top bit set: where unsigned and signed readings differ.
        v.extend([max - 1.0, 2f64.powi(w - 1), 2f64.powi(w - 1) + 5.0]);
    }
    v
}

fn lit(dt: DType, v: &[f64]) -> Literal {
    Literal::from_f64(dt, &[v.len()], v).unwrap()
}

/// Elements given exactly (for i64 extremes that f64 cannot carry).
fn lit_i64(v: &[i64]) -> Literal {
    Literal::new(
        TensorType::new(DType::I64, [v.len()]),
        Elements::I64(v.to_vec()),
    )
    .unwrap()
}

/// `f(x) = (op_1 x, op_2 x, ...)` for every op defined on `dt`.
fn unary_all(dt: DType, xs: Literal, tol: Tol) {
    let ty = xs.ty.clone();
    let mut b = FunctionBuilder::new("main", &[ty]);
    let x = b.arg(0);
    let mut results = Vec::new();
    let mut names = Vec::new();
    for &u in UnaryOp::ALL {
        if let Ok(r) = b.unary(u, x) {
            results.push(r);
            names.push(u.name());
        }
    }
    let m = module_of(b.finish(&results));
    if let Err(e) = check_module(&m, "main", &[xs], tol) {
        panic!("{dt}: {e}\nresults: {names:?}");
    }
}

#[test]
fn unary_floats() {
    for dt in FLOATS {
        // Transcendental functions on a moderate range, specials on top (sin, cos and
        // tan over the whole f32 range: the next test).
        let mut xs = special_floats();
        xs.extend(values(48, 1, -10.0, 10.0));
        unary_all(dt, lit(dt, &xs), Tol::F32);
    }
}

/// f32 `sin`, `cos`, `tan` within 2 ulps of libm (the reference) from subnormal to the
/// largest finite arguments, signs kept: tiny inputs (`sin x = x`: MLIR's approximation
/// gave `sin(-3.14e-30) = +6.2e-8`, so `jnp.sinc` gave `-2e22`), f32s next to multiples
/// of `pi/2` (a tiny reduced argument), both sides of the switch between the two
/// reductions, and huge ones (`sin(1e30)` was 0).
#[test]
fn trigonometry_is_accurate_from_subnormal_to_the_largest_f32() {
    let mut xs = vec![
        1e-45, -3.14e-30, 1e-30, 1e-20, -1e-10, 1e-6, 3e-3, 0.1, 131071.99, 131072.0, 131073.0,
        1e5, -2e5, 1e7, 1e10, -1e20, 1e30, 3.4e38, -3.4e38, 1.7e38,
    ];
    xs.extend((1..=40).map(|k| f64::from(k as f32 * std::f32::consts::FRAC_PI_2)));
    xs.extend([1e3, 1e4, 1e5, 1e6].map(|k| f64::from((k * std::f64::consts::FRAC_PI_2) as f32)));
    xs.extend(values(64, 7, -1e4, 1e4));
    xs.extend(values(64, 8, -1e36, 1e36));
    let xs = Literal::from_f64(DType::F32, &[xs.len()], &xs).unwrap();
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&xs.ty));
    let x = b.arg(0);
    let results: Vec<_> = [UnaryOp::Sine, UnaryOp::Cosine, UnaryOp::Tan]
        .iter()
        .map(|&u| b.unary(u, x).unwrap())
        .collect();
    let m = module_of(b.finish(&results));
    let two_ulps = Tol {
        abs: 1e-45,
        rel: 2.4e-7,
    };
    check_module(&m, "main", &[xs], two_ulps).unwrap();
}

#[test]
fn unary_ints_and_bools() {
    for dt in INTS {
        unary_all(dt, lit(dt, &special_ints(dt)), Tol::EXACT);
    }
    unary_all(
        DType::I64,
        lit_i64(&[i64::MIN, i64::MAX, -1, 0, 1, i64::MIN + 1]),
        Tol::EXACT,
    );
    unary_all(DType::I1, lit(DType::I1, &[0.0, 1.0]), Tol::EXACT);
}

/// All pairs of `xs`, as two literals.
fn pairs(dt: DType, xs: &[f64]) -> (Literal, Literal) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in xs {
        for &y in xs {
            a.push(x);
            b.push(y);
        }
    }
    (lit(dt, &a), lit(dt, &b))
}

fn binary_all(x: Literal, y: Literal, tol: Tol) {
    let ty = x.ty.clone();
    let mut b = FunctionBuilder::new("main", &[ty.clone(), ty]);
    let (a0, a1) = (b.arg(0), b.arg(1));
    let mut results = Vec::new();
    let mut names = Vec::new();
    for &o in BinaryOp::ALL {
        if let Ok(r) = b.binary(o, a0, a1) {
            results.push(r);
            names.push(o.name());
        }
    }
    let dt = x.ty.dtype;
    let m = module_of(b.finish(&results));
    if let Err(e) = check_module(&m, "main", &[x, y], tol) {
        panic!("{dt}: {e}\nresults: {names:?}");
    }
}

#[test]
fn binary_floats() {
    for dt in FLOATS {
        let mut xs = special_floats();
        xs.extend([2.0, -3.0, 0.25]);
        let (x, y) = pairs(dt, &xs);
        binary_all(x, y, Tol::F32);
    }
    // power and atan2 on a wider spread of finite values.
    let (x, y) = pairs(DType::F32, &values(20, 7, -4.0, 4.0));
    binary_all(x, y, Tol::F32);
}

#[test]
fn binary_ints_and_bools() {
    for dt in INTS {
        let (x, y) = pairs(dt, &special_ints(dt));
        binary_all(x, y, Tol::EXACT);
    }
    let ext = [i64::MIN, -1, 0, 1, 63, 64, i64::MAX];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &ext {
        for &y in &ext {
            a.push(x);
            b.push(y);
        }
    }
    binary_all(lit_i64(&a), lit_i64(&b), Tol::EXACT);
    let (x, y) = pairs(DType::I1, &[0.0, 1.0]);
    binary_all(x, y, Tol::EXACT);
}

#[test]
fn compare_every_direction_and_type() {
    let cases: Vec<(DType, Vec<f64>, Vec<Option<ComparisonType>>)> = vec![
        (
            DType::F32,
            special_floats(),
            vec![
                None,
                Some(ComparisonType::Float),
                Some(ComparisonType::TotalOrder),
            ],
        ),
        (
            DType::F64,
            special_floats(),
            vec![None, Some(ComparisonType::TotalOrder)],
        ),
        (
            DType::BF16,
            special_floats(),
            vec![None, Some(ComparisonType::TotalOrder)],
        ),
        (
            DType::F16,
            special_floats(),
            vec![Some(ComparisonType::TotalOrder)],
        ),
        (
            DType::I32,
            special_ints(DType::I32),
            vec![None, Some(ComparisonType::Unsigned)],
        ),
        (
            DType::I64,
            special_ints(DType::I64),
            vec![Some(ComparisonType::Signed), Some(ComparisonType::Unsigned)],
        ),
        (
            DType::I1,
            vec![0.0, 1.0],
            vec![
                None,
                Some(ComparisonType::Signed),
                Some(ComparisonType::Unsigned),
            ],
        ),
        (
            DType::U32,
            special_ints(DType::U32),
            vec![None, Some(ComparisonType::Signed)],
        ),
        (
            DType::I8,
            special_ints(DType::I8),
            vec![None, Some(ComparisonType::Unsigned)],
        ),
        (
            DType::U64,
            special_ints(DType::U64),
            vec![Some(ComparisonType::Unsigned)],
        ),
    ];
    for (dt, xs, types) in cases {
        let (x, y) = pairs(dt, &xs);
        let ty = x.ty.clone();
        let mut b = FunctionBuilder::new("main", &[ty.clone(), ty]);
        let (a0, a1) = (b.arg(0), b.arg(1));
        let mut results = Vec::new();
        for &t in &types {
            for &direction in ComparisonDirection::ALL {
                let kind = OpKind::Compare {
                    direction,
                    compare_type: t,
                };
                results.push(b.push1(kind, &[a0, a1]).unwrap());
            }
        }
        let m = module_of(b.finish(&results));
        check_module(&m, "main", &[x, y], Tol::EXACT).unwrap_or_else(|e| panic!("{dt}: {e}"));
    }
}

#[test]
fn convert_every_pair() {
    let all = DType::ALL;
    for from in all {
        let xs: Vec<f64> = match from {
            DType::I1 => vec![0.0, 1.0],
            d if d.is_int() => special_ints(d),
            _ => {
                let mut v = special_floats();
                v.extend([
                    3e9, -3e9, 1e20, -1e20, 2.5, -2.5, 65504.0, 70000.0, 1.00390625,
                ]);
                v
            }
        };
        let x = lit(from, &xs);
        let mut b = FunctionBuilder::new("main", std::slice::from_ref(&x.ty));
        let a = b.arg(0);
        let results: Vec<ValueId> = all
            .iter()
            .map(|&to| {
                b.push1_typed(OpKind::Convert, &[a], x.ty.with_dtype(to))
                    .unwrap()
            })
            .collect();
        let m = module_of(b.finish(&results));
        check_module(&m, "main", &[x], Tol::EXACT).unwrap_or_else(|e| panic!("from {from}: {e}"));
    }
}

/// `bitcast_convert` between every pair of types of one width (the bits kept exactly,
/// NaN payloads included), and the ui32 -> f32 idiom of `jax.random.uniform`.
#[test]
fn bitcast_between_types_of_one_width() {
    for (from, tos) in [
        (DType::U32, &[DType::F32, DType::I32][..]),
        (DType::F32, &[DType::U32, DType::I32]),
        (DType::U64, &[DType::F64, DType::I64]),
        (DType::F16, &[DType::I16, DType::U16, DType::BF16]),
        (DType::BF16, &[DType::U16, DType::F16]),
        (DType::U8, &[DType::I8]),
    ] {
        let xs: Vec<f64> = if from.is_float() {
            special_floats()
        } else {
            special_ints(from)
        };
        let x = lit(from, &xs);
        let mut b = FunctionBuilder::new("main", std::slice::from_ref(&x.ty));
        let a = b.arg(0);
        let results: Vec<ValueId> = tos
            .iter()
            .map(|&to| {
                b.push1_typed(OpKind::BitcastConvert, &[a], x.ty.with_dtype(to))
                    .unwrap()
            })
            .collect();
        let m = module_of(b.finish(&results));
        check_module(&m, "main", &[x], Tol::EXACT).unwrap_or_else(|e| panic!("from {from}: {e}"));
    }
    // (bits >> 9) | 0x3F800000 read as f32, minus 1: uniform in [0, 1).
    let m = parse_module(
        "func.func @main(%bits: tensor<6xui32>) -> tensor<6xf32> {
  %nine = stablehlo.constant dense<9> : tensor<6xui32>
  %one = stablehlo.constant dense<1065353216> : tensor<6xui32>
  %s = stablehlo.shift_right_logical %bits, %nine : tensor<6xui32>
  %o = stablehlo.or %s, %one : tensor<6xui32>
  %f = stablehlo.bitcast_convert %o : (tensor<6xui32>) -> tensor<6xf32>
  %c = stablehlo.constant dense<1.000000e+00> : tensor<6xf32>
  %u = stablehlo.subtract %f, %c : tensor<6xf32>
  return %u : tensor<6xf32>
}",
    )
    .unwrap();
    let bits = Literal::new(
        TensorType::new(DType::U32, [6]),
        Elements::U32(vec![0, 1, 0x8000_0000, 0xFFFF_FFFF, 0x1234_5678, 511]),
    )
    .unwrap();
    check_module(&m, "main", &[bits], Tol::EXACT).unwrap();
}

#[test]
fn bit_counts_of_every_integer_type() {
    for dt in DType::ALL.into_iter().filter(|d| d.is_int()) {
        let x = lit(dt, &special_ints(dt));
        let mut b = FunctionBuilder::new("main", std::slice::from_ref(&x.ty));
        let a = b.arg(0);
        let p = b.unary(UnaryOp::Popcnt, a).unwrap();
        let c = b.unary(UnaryOp::CountLeadingZeros, a).unwrap();
        let m = module_of(b.finish(&[p, c]));
        check_module(&m, "main", &[x], Tol::EXACT).unwrap_or_else(|e| panic!("{dt}: {e}"));
    }
}

/// `reduce_precision` and `chlo.next_after`, decomposed into integer ops on the bits as
/// they are read: the kernels give the reference's bits.
#[test]
fn bit_level_decompositions_match_the_reference_exactly() {
    let m = parse_module(
        "func.func @main(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<16xf32>
  %1 = stablehlo.reduce_precision %x, format = e8m7 : tensor<16xf32>
  %2 = chlo.next_after %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %0, %1, %2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}",
    )
    .unwrap();
    let xs = special_floats();
    let x = lit(DType::F32, &xs[..16]);
    let y = lit(
        DType::F32,
        &xs.iter().rev().take(16).copied().collect::<Vec<_>>(),
    );
    check_module(&m, "main", &[x, y], Tol::EXACT).unwrap();
}

#[test]
fn select_and_clamp_with_scalar_and_full_operands() {
    let m = parse_module(SELECT_CLAMP).unwrap();
    let f32s = |v: &[f64]| lit(DType::F32, v);
    let args = [
        lit(DType::I1, &[1., 0., 1., 1., 0., 0., 1., 0.]),
        Literal::from_f64(DType::I1, &[], &[0.0]).unwrap(),
        f32s(&[1., -2., f64::NAN, 4., -0., 0., 9., -9.]),
        f32s(&[8., 7., 6., 5., 4., 3., 2., 1.]),
        Literal::from_f64(DType::F32, &[], &[-1.0]).unwrap(),
        f32s(&[2., 2., 2., f64::NAN, 2., -0., 2., 2.]),
        lit(DType::I32, &[-5., 5., 0., 1., 2., 3., -1., 100.]),
        Literal::from_f64(DType::I32, &[], &[1.0]).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::EXACT).unwrap();
}

#[test]
fn constants_and_iota() {
    let m = parse_module(CONSTANTS).unwrap();
    let x = Literal::from_f64(DType::F32, &[2, 3], &values(6, 3, -1.0, 1.0)).unwrap();
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

#[test]
fn layout_ops() {
    let m = parse_module(LAYOUT).unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[3, 4], &values(12, 5, -3.0, 3.0)).unwrap(),
        Literal::from_f64(DType::F32, &[], &[2.5]).unwrap(),
        lit(DType::I32, &[1., 2., 3., 4.]),
        Literal::from_f64(DType::F32, &[], &[-9.0]).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::EXACT).unwrap();
}

/// `shardc.rotate` (a roll: two slices put back in the other order): forward, backward,
/// by more than the size, along an inner dimension, and by nothing.
#[test]
fn rotations() {
    let m = parse_module(
        r#"module @m {
  func.func public @main(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) {
    %0 = shardc.rotate %x, dim = 0, shift = 1 : tensor<4x5xf32>
    %1 = shardc.rotate %x, dim = 0, shift = -1 : tensor<4x5xf32>
    %2 = shardc.rotate %x, dim = 1, shift = 7 : tensor<4x5xf32>
    %3 = shardc.rotate %x, dim = 1, shift = -3 : tensor<4x5xf32>
    %4 = shardc.rotate %x, dim = 0, shift = 4 : tensor<4x5xf32>
    return %0, %1, %2, %3, %4 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
  }
}"#,
    )
    .unwrap();
    let x = Literal::from_f64(DType::F32, &[4, 5], &values(20, 9, -3.0, 3.0)).unwrap();
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

#[test]
fn negative_and_interior_padding() {
    let m = parse_module(PADS).unwrap();
    let x = Literal::from_f64(
        DType::I32,
        &[4, 5],
        &(0..20).map(|i| i as f64).collect::<Vec<_>>(),
    )
    .unwrap();
    let p = Literal::from_f64(DType::I32, &[], &[-1.0]).unwrap();
    check_module(&m, "main", &[x, p], Tol::EXACT).unwrap();
}

fn dot(lhs: &[usize], rhs: &[usize], dims: DotDims, dt: DType, tol: Tol) -> Result<(), String> {
    let (lt, rt) = (TensorType::new(dt, lhs), TensorType::new(dt, rhs));
    let mut b = FunctionBuilder::new("main", &[lt.clone(), rt.clone()]);
    let (a0, a1) = (b.arg(0), b.arg(1));
    let r = b.dot_general(a0, a1, dims).map_err(|e| e.to_string())?;
    let m = module_of(b.finish(&[r]));
    let make = |t: &TensorType, seed| {
        let v = if dt == DType::I1 {
            values(t.num_elements(), seed, 0.0, 2.0)
                .into_iter()
                .map(|x| x.floor())
                .collect()
        } else if dt.is_int() {
            values(t.num_elements(), seed, -50.0, 50.0)
                .into_iter()
                .map(|x| x.round())
                .collect()
        } else {
            values(t.num_elements(), seed, -1.0, 1.0)
        };
        Literal::from_f64(dt, &t.shape, &v).unwrap()
    };
    check_module(&m, "main", &[make(&lt, 11), make(&rt, 12)], tol)
}

fn dims(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDims {
    DotDims {
        lhs_batch: lb.to_vec(),
        rhs_batch: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
        precision: Vec::new(),
        algorithm: None,
    }
}

#[test]
fn dot_general_layouts_and_types() {
    let long = Tol {
        abs: 1e-5,
        rel: 1e-4,
    };
    let cases: Vec<(&[usize], &[usize], DotDims)> = vec![
        // matmul, transposed operands, vector products, batches, several contracting dims.
        (&[8, 16], &[16, 32], dims(&[], &[], &[1], &[0])),
        (&[16, 8], &[16, 32], dims(&[], &[], &[0], &[0])),
        (&[8, 16], &[32, 16], dims(&[], &[], &[1], &[1])),
        // A right operand laid out [n, k] larger than the left: computed with the operands
        // swapped and the result transposed back (one and two free dimensions each side).
        (&[2, 3, 16], &[40, 16], dims(&[], &[], &[2], &[1])),
        (&[2, 3, 16], &[5, 8, 16], dims(&[], &[], &[2], &[2])),
        (&[16], &[16], dims(&[], &[], &[0], &[0])),
        (&[16, 5], &[16], dims(&[], &[], &[0], &[0])),
        (&[3], &[7], dims(&[], &[], &[], &[])),
        (&[2, 8, 3], &[2, 5, 3], dims(&[0], &[0], &[2], &[2])),
        (
            &[4, 2, 6, 3],
            &[3, 2, 5, 4],
            dims(&[1], &[1], &[3, 0], &[0, 3]),
        ),
        (&[1, 8, 16], &[1, 16, 4], dims(&[0], &[0], &[2], &[1])),
        (&[6, 1, 5], &[5, 6, 7], dims(&[0], &[1], &[2], &[0])),
    ];
    for (l, r, d) in &cases {
        for dt in [
            DType::F32,
            DType::F64,
            DType::BF16,
            DType::I32,
            DType::I64,
            DType::I1,
        ] {
            dot(l, r, d.clone(), dt, Tol::F32)
                .unwrap_or_else(|e| panic!("{dt} {l:?} x {r:?} {d:?}: {e}"));
        }
    }
    // Tiled and vectorized: divisible and ragged shapes, f32 and f64.
    for (m, k, n) in [(64, 128, 96), (37, 70, 45), (128, 512, 256), (8, 300, 33)] {
        for dt in [DType::F32, DType::F64] {
            dot(&[m, k], &[k, n], dims(&[], &[], &[1], &[0]), dt, long)
                .unwrap_or_else(|e| panic!("{dt} {m}x{k}x{n}: {e}"));
        }
    }
    dot(
        &[3, 64, 256],
        &[3, 256, 64],
        dims(&[0], &[0], &[2], &[1]),
        DType::F32,
        long,
    )
    .unwrap();
}

#[test]
fn reductions() {
    let m = parse_module(REDUCTIONS).unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[4, 6, 5], &values(120, 21, 0.5, 1.5)).unwrap(),
        Literal::from_f64(
            DType::I32,
            &[4, 6],
            &values(24, 22, -1e9, 1e9)
                .into_iter()
                .map(f64::round)
                .collect::<Vec<_>>(),
        )
        .unwrap(),
        Literal::from_f64(
            DType::I1,
            &[3, 4],
            &[1., 0., 1., 1., 0., 0., 0., 0., 1., 1., 1., 1.],
        )
        .unwrap(),
        Literal::from_f64(DType::BF16, &[8, 16], &values(128, 23, -2.0, 2.0)).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::F32).unwrap();
}

/// A reduce over no dimensions is its reducer applied once, elementwise; followed by a
/// broadcast it must not be fused into an accumulation (an MLIR fusion pitfall).
#[test]
fn reduce_over_no_dimensions() {
    let src = r#"module {
  func.func @main(%x: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>) {
    %0 = stablehlo.constant dense<1.875000e-01> : tensor<f32>
    %1 = stablehlo.reduce(%x init: %0) applies stablehlo.add across dimensions = [] : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32>
    %8 = stablehlo.constant dense<4.375000e-01> : tensor<f32>
    %9 = stablehlo.reduce(%3 init: %8) applies stablehlo.add across dimensions = [] : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    return %9, %1 : tensor<2x8xf32>, tensor<8xf32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let x = lit(DType::F32, &values(8, 71, -1.0, 1.0));
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

#[test]
fn reduce_with_a_general_body_argmax() {
    // argmax over dimension 1: (value, index) pairs, ties to the smaller index.

    let m = parse_module(ARGMAX).unwrap();
    let mut v = values(35, 31, -2.0, 2.0);
    v[9] = v[8]; // a tie
    let x = Literal::from_f64(DType::F32, &[5, 7], &v).unwrap();
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

#[test]
fn gathers() {
    let m = parse_module(GATHERS).unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[10, 4], &values(40, 41, -1.0, 1.0)).unwrap(),
        // Out of range both ways: clamped.
        Literal::from_f64(DType::I32, &[6, 1], &[0., 9., 3., -4., 12., 5.]).unwrap(),
        lit(DType::I64, &[2., 7., 100.]),
        Literal::from_f64(DType::F32, &[2, 5, 3], &values(30, 42, -1.0, 1.0)).unwrap(),
        Literal::from_f64(DType::I32, &[2, 2, 1], &[0., 4., 2., -1.]).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::EXACT).unwrap();
}

#[test]
fn sharding_constraints_pass_values_through() {
    let m = parse_module(CONSTRAINT).unwrap();
    let x = Literal::from_f64(DType::F32, &[4, 2], &values(8, 51, -1.0, 1.0)).unwrap();
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

#[test]
fn results_that_are_inputs_views_or_repeated() {
    let m = parse_module(RESULTS).unwrap();
    let x = Literal::from_f64(DType::F32, &[4, 6], &values(24, 61, -1.0, 1.0)).unwrap();
    check_module(&m, "main", &[x], Tol::EXACT).unwrap();
}

// The programs above, also compiled to PTX by `gpu.rs`.

pub const SELECT_CLAMP: &str = r#"module {
  func.func @main(%p: tensor<8xi1>, %q: tensor<i1>, %x: tensor<8xf32>, %y: tensor<8xf32>, %lo: tensor<f32>, %hi: tensor<8xf32>, %i: tensor<8xi32>, %ilo: tensor<i32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>) {
    %0 = stablehlo.select %p, %x, %y : tensor<8xi1>, tensor<8xf32>
    %1 = stablehlo.select %q, %x, %y : tensor<i1>, tensor<8xf32>
    %2 = "stablehlo.clamp"(%lo, %x, %hi) : (tensor<f32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.clamp"(%ilo, %i, %ilo) : (tensor<i32>, tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    %4 = "stablehlo.clamp"(%lo, %x, %lo) : (tensor<f32>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>
  }
}"#;

pub const CONSTANTS: &str = r#"module {
  func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<3x2x4xi32>, tensor<6xf32>, tensor<2x3xf64>, tensor<f32>) {
    %c = stablehlo.constant dense<[[1.0, -2.5, 0.0], [1.0e-5, 3.0e38, -0.0]]> : tensor<2x3xf32>
    %b = stablehlo.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
    %h = stablehlo.constant dense<-3.0> : tensor<2x3xbf16>
    %i = stablehlo.constant dense<[[1, -9223372036854775808, 3], [4, 5, 9223372036854775807]]> : tensor<2x3xi64>
    %s = stablehlo.add %x, %c : tensor<2x3xf32>
    %io = stablehlo.iota dim = 1 : tensor<3x2x4xi32>
    %fo = stablehlo.iota dim = 0 : tensor<6xf32>
    %d = stablehlo.constant dense<0.1> : tensor<2x3xf64>
    %z = stablehlo.constant dense<7.5> : tensor<f32>
    return %c, %b, %h, %i, %s, %io, %fo, %d, %z : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<3x2x4xi32>, tensor<6xf32>, tensor<2x3xf64>, tensor<f32>
  }
}"#;

pub const LAYOUT: &str = r#"module {
  func.func @main(%x: tensor<3x4xf32>, %s: tensor<f32>, %v: tensor<4xi32>, %p: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<12xf32>, tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2xf32>, tensor<3x9xf32>, tensor<8x7xf32>, tensor<2x4xi32>, tensor<1x1xf32>, tensor<f32>, tensor<3x4xf32>) {
    %b = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
    %r1 = stablehlo.reshape %x : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
    %b2 = stablehlo.broadcast_in_dim %r1, dims = [2, 1, 0] : (tensor<3x1x4xf32>) -> tensor<4x2x3xf32>
    %t2 = stablehlo.transpose %b2, dims = [0, 2, 1] : (tensor<4x2x3xf32>) -> tensor<4x3x2xf32>
    %r = stablehlo.reshape %x : (tensor<3x4xf32>) -> tensor<12xf32>
    %r2 = stablehlo.reshape %x : (tensor<3x4xf32>) -> tensor<2x6xf32>
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %sl = "stablehlo.slice"(%x) <{start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 4>, strides = array<i64: 1, 2>}> : (tensor<3x4xf32>) -> tensor<2x2xf32>
    %t2c = "stablehlo.slice"(%x) <{start_indices = array<i64: 0, 3>, limit_indices = array<i64: 3, 4>, strides = array<i64: 1, 1>}> : (tensor<3x4xf32>) -> tensor<3x1xf32>
    %x6 = "stablehlo.slice"(%x) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 3, 3>, strides = array<i64: 1, 1>}> : (tensor<3x4xf32>) -> tensor<3x2xf32>
    %cat = "stablehlo.concatenate"(%x, %t2c, %x) <{dimension = 1 : i64}> : (tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x4xf32>) -> tensor<3x9xf32>
    %pd = stablehlo.pad %x6, %p, low = [-1, 2], high = [0, 2], interior = [3, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<8x7xf32>
    %vb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %sr = stablehlo.reshape %sb : (tensor<1x1xf32>) -> tensor<f32>
    return %b, %t2, %r, %r2, %t, %sl, %cat, %pd, %vb, %sb, %sr, %x : tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<12xf32>, tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2xf32>, tensor<3x9xf32>, tensor<8x7xf32>, tensor<2x4xi32>, tensor<1x1xf32>, tensor<f32>, tensor<3x4xf32>
  }
}"#;

pub const PADS: &str = r#"module {
  func.func @main(%x: tensor<4x5xi32>, %p: tensor<i32>) -> (tensor<2x12xi32>, tensor<4x5xi32>, tensor<10x2xi32>) {
    %0 = stablehlo.pad %x, %p, low = [-1, 1], high = [-1, 2], interior = [0, 1] : (tensor<4x5xi32>, tensor<i32>) -> tensor<2x12xi32>
    %1 = stablehlo.pad %x, %p, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x5xi32>, tensor<i32>) -> tensor<4x5xi32>
    %2 = stablehlo.pad %x, %p, low = [2, -3], high = [1, 0], interior = [1, 0] : (tensor<4x5xi32>, tensor<i32>) -> tensor<10x2xi32>
    return %0, %1, %2 : tensor<2x12xi32>, tensor<4x5xi32>, tensor<10x2xi32>
  }
}"#;

pub const REDUCTIONS: &str = r#"module {
  func.func @main(%x: tensor<4x6x5xf32>, %i: tensor<4x6xi32>, %b: tensor<3x4xi1>, %h: tensor<8x16xbf16>) -> (tensor<4x5xf32>, tensor<6xf32>, tensor<f32>, tensor<4xi32>, tensor<6xi32>, tensor<3xi1>, tensor<4xi1>, tensor<8xbf16>, tensor<4x6xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %iz = stablehlo.constant dense<0> : tensor<i32>
    %imax = stablehlo.constant dense<2147483647> : tensor<i32>
    %f = stablehlo.constant dense<false> : tensor<i1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %hz = stablehlo.constant dense<0.0> : tensor<bf16>
    %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    %1 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0, 2] : (tensor<4x6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [0, 1, 2] : (tensor<4x6x5xf32>, tensor<f32>) -> tensor<f32>
    %3 = stablehlo.reduce(%i init: %iz) applies stablehlo.add across dimensions = [1] : (tensor<4x6xi32>, tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.reduce(%i init: %imax) applies stablehlo.minimum across dimensions = [0] : (tensor<4x6xi32>, tensor<i32>) -> tensor<6xi32>
    %5 = stablehlo.reduce(%b init: %f) applies stablehlo.or across dimensions = [1] : (tensor<3x4xi1>, tensor<i1>) -> tensor<3xi1>
    %6 = stablehlo.reduce(%b init: %t) applies stablehlo.and across dimensions = [0] : (tensor<3x4xi1>, tensor<i1>) -> tensor<4xi1>
    %7 = stablehlo.reduce(%h init: %hz) applies stablehlo.add across dimensions = [1] : (tensor<8x16xbf16>, tensor<bf16>) -> tensor<8xbf16>
    %8 = stablehlo.reduce(%x init: %z) across dimensions = [2] : (tensor<4x6x5xf32>, tensor<f32>) -> tensor<4x6xf32>
     reducer(%acc: tensor<f32>, %e: tensor<f32>)  {
      %d = stablehlo.subtract %e, %acc : tensor<f32>
      stablehlo.return %d : tensor<f32>
    }
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x5xf32>, tensor<6xf32>, tensor<f32>, tensor<4xi32>, tensor<6xi32>, tensor<3xi1>, tensor<4xi1>, tensor<8xbf16>, tensor<4x6xf32>
  }
}"#;

pub const ARGMAX: &str = r#"module {
  func.func @main(%x: tensor<5x7xf32>) -> (tensor<5xf32>, tensor<5xi32>) {
    %idx = stablehlo.iota dim = 1 : tensor<5x7xi32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.reduce(%x init: %ninf), (%idx init: %z) across dimensions = [1] : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>)
     reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)  {
      %gt = stablehlo.compare  GT, %a, %c,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare  EQ, %a, %c,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare  LT, %b, %d,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %keep = stablehlo.or %gt, %tie : tensor<i1>
      %v = stablehlo.select %keep, %a, %c : tensor<i1>, tensor<f32>
      %i = stablehlo.select %keep, %b, %d : tensor<i1>, tensor<i32>
      stablehlo.return %v, %i : tensor<f32>, tensor<i32>
    }
    return %r#0, %r#1 : tensor<5xf32>, tensor<5xi32>
  }
}"#;

pub const GATHERS: &str = r#"module {
  func.func @main(%table: tensor<10x4xf32>, %ids: tensor<6x1xi32>, %ids64: tensor<3xi64>, %x: tensor<2x5x3xf32>, %bi: tensor<2x2x1xi32>) -> (tensor<6x4xf32>, tensor<3x4xf32>, tensor<2x2x2x3xf32>) {
    %0 = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
    %1 = "stablehlo.gather"(%table, %ids64) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    %2 = "stablehlo.gather"(%x, %bi) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2, 3>}> : (tensor<2x5x3xf32>, tensor<2x2x1xi32>) -> tensor<2x2x2x3xf32>
    return %0, %1, %2 : tensor<6x4xf32>, tensor<3x4xf32>, tensor<2x2x2x3xf32>
  }
}"#;

pub const CONSTRAINT: &str = r#"module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : tensor<4x2xf32>
    %1 = stablehlo.negate %0 : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}"#;

pub const RESULTS: &str = r#"module {
  func.func @main(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2x3xf32>, tensor<24xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
    %s = "stablehlo.slice"(%x) <{start_indices = array<i64: 1, 2>, limit_indices = array<i64: 3, 5>, strides = array<i64: 1, 1>}> : (tensor<4x6xf32>) -> tensor<2x3xf32>
    %r = stablehlo.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
    %n = stablehlo.negate %x : tensor<4x6xf32>
    return %x, %s, %r, %n, %n : tensor<4x6xf32>, tensor<2x3xf32>, tensor<24xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
}"#;
