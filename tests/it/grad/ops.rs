//! Every op's VJP against finite differences, the coverage of that, ties, and ops without a
//! gradient.

use super::*;

/// Where a unary op's inputs are drawn so that no input sits near a kink or outside the
/// domain; `None` for ops with no float result (no gradient at all).
fn unary_inputs(u: UnaryOp, rng: &mut Rng) -> Option<f64> {
    use UnaryOp::*;
    let away_from_zero = |rng: &mut Rng| {
        let s = if rng.next() < 0.5 { -1.0 } else { 1.0 };
        s * rng.uniform(0.3, 2.0)
    };
    Some(match u {
        Negate | Exponential | ExponentialMinusOne | Tanh | Logistic | Sine | Cosine => {
            rng.uniform(-2.0, 2.0)
        }
        Tan => rng.uniform(-1.2, 1.2),
        Log | Sqrt | Rsqrt => rng.uniform(0.3, 3.0),
        LogPlusOne => rng.uniform(-0.6, 2.0),
        Cbrt | Abs | Sign => away_from_zero(rng),
        // Piecewise constant: fractional parts away from the steps at .0 and .5.
        Floor | Ceil | RoundNearestEven | RoundNearestAfz => {
            let k = (rng.uniform(-3.0, 3.0)).floor();
            let f = rng.uniform(0.1, 0.4);
            k + if rng.next() < 0.5 { f } else { f + 0.5 }
        }
        Not | IsFinite | Popcnt | CountLeadingZeros => return None,
    })
}

fn unary_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for &u in UnaryOp::ALL {
        let mut rng = Rng(u as u64 + 1);
        if unary_inputs(u, &mut rng).is_none() {
            continue;
        }
        let v: Vec<f64> = (0..6).map(|_| unary_inputs(u, &mut rng).unwrap()).collect();
        cases.push(case(u.name(), vec![lit(&[2, 3], &v)], &[0], |b, a| {
            b.unary(u, a[0]).unwrap()
        }));
    }
    cases
}

/// Pairs of inputs away from each binary op's kinks; `None` for integer-only ops.
fn binary_inputs(op: BinaryOp, rng: &mut Rng) -> Option<(f64, f64)> {
    use BinaryOp::*;
    let signed = |rng: &mut Rng, lo: f64, hi: f64| {
        let s = if rng.next() < 0.5 { -1.0 } else { 1.0 };
        s * rng.uniform(lo, hi)
    };
    Some(match op {
        Add | Subtract | Multiply => (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)),
        Divide => (rng.uniform(-2.0, 2.0), signed(rng, 0.5, 2.0)),
        // trunc(x / y) jumps at integers: keep the fraction of |x / y| in [0.1, 0.9].
        Remainder => loop {
            let (x, y) = (signed(rng, 0.5, 3.0), signed(rng, 0.7, 1.3));
            let f = (x / y).abs().fract();
            if (0.1..0.9).contains(&f) {
                break (x, y);
            }
        },
        // Ties are tested on their own (`maximum_and_minimum_split_ties_like_jax`).
        Maximum | Minimum => loop {
            let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
            if (x - y).abs() > 0.1 {
                break (x, y);
            }
        },
        Power => (rng.uniform(0.5, 2.0), rng.uniform(-1.5, 1.5)),
        Atan2 => (signed(rng, 0.3, 2.0), signed(rng, 0.3, 2.0)),
        And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => return None,
    })
}

fn binary_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for &op in BinaryOp::ALL {
        let mut rng = Rng(op as u64 + 100);
        let Some(first) = binary_inputs(op, &mut rng) else {
            continue;
        };
        let mut pairs = vec![first];
        pairs.extend((0..5).map(|_| binary_inputs(op, &mut rng).unwrap()));
        let x: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let y: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        cases.push(case(
            op.name(),
            vec![lit(&[2, 3], &x), lit(&[2, 3], &y)],
            &[0, 1],
            |b, a| b.binary(op, a[0], a[1]).unwrap(),
        ));
    }
    cases
}

fn dot(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> OpKind {
    OpKind::DotGeneral(DotDims {
        lhs_batch: lb.to_vec(),
        rhs_batch: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
        precision: Vec::new(),
        algorithm: None,
    })
}

fn row_lookup(index_rank: usize, index_vector_dim: usize, d: usize) -> OpKind {
    OpKind::Gather(GatherDims {
        offset_dims: vec![index_rank],
        collapsed_slice_dims: vec![0],
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
        start_index_map: vec![0],
        index_vector_dim,
        slice_sizes: vec![1, d],
        indices_are_sorted: false,
    })
}

/// One case (or a few) per op family other than the unary and binary ones.
fn family_cases() -> Vec<Case> {
    use ComparisonDirection::*;
    let mut rng = Rng(7);
    let r = &mut rng;
    let mut cases = Vec::new();

    // compare + select, with a full and a scalar predicate.
    let (x, y) = (
        random_lit(r, &[2, 3], -2.0, 2.0),
        random_lit(r, &[2, 3], -2.0, 2.0),
    );
    cases.push(case("select", vec![x, y], &[0, 1], |b, a| {
        let p = cmp(b, Gt, a[0], a[1]);
        let xy = b.binary(BinaryOp::Multiply, a[0], a[1]).unwrap();
        b.push1(OpKind::Select, &[p, xy, a[1]]).unwrap()
    }));
    let (x, y, s) = (
        random_lit(r, &[3], -2.0, 2.0),
        random_lit(r, &[3], -2.0, 2.0),
        lit(&[], &[0.5]),
    );
    cases.push(case(
        "select_scalar_pred",
        vec![x, y, s],
        &[0, 1],
        |b, a| {
            let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
            let p = cmp(b, Gt, a[2], zero);
            b.push1(OpKind::Select, &[p, a[0], a[1]]).unwrap()
        },
    ));

    // clamp: array bounds and scalar bounds, all three differentiated; x below, inside
    // and above its bounds, never equal to them.
    let x = lit(&[6], &[-1.5, -0.2, 0.3, 0.9, 1.7, 0.1]);
    let lo = lit(&[6], &[-1.0, -0.5, -0.4, 0.2, -0.3, 0.4]);
    let hi = lit(&[6], &[1.0, 0.6, 0.8, 1.2, 1.1, 0.9]);
    cases.push(case(
        "clamp",
        vec![lo, x.clone(), hi],
        &[0, 1, 2],
        |b, a| b.push1(OpKind::Clamp, &[a[0], a[1], a[2]]).unwrap(),
    ));
    cases.push(case(
        "clamp_scalar_bounds",
        vec![lit(&[], &[-0.5]), x, lit(&[], &[0.8])],
        &[0, 1, 2],
        |b, a| b.push1(OpKind::Clamp, &[a[0], a[1], a[2]]).unwrap(),
    ));

    // convert: f64 -> f64 (the float path), and through an integer (no gradient on that
    // path, the direct term still flows).
    let x = random_lit(r, &[2, 3], -3.0, 3.0);
    cases.push(case("convert", vec![x], &[0], |b, a| {
        let c = typed(b, OpKind::Convert, &[a[0]], f64t(&[2, 3]));
        let i = typed(
            b,
            OpKind::Convert,
            &[a[0]],
            TensorType::new(DType::I32, [2, 3]),
        );
        let back = typed(b, OpKind::Convert, &[i], f64t(&[2, 3]));
        b.binary(BinaryOp::Multiply, c, back).unwrap()
    }));

    // broadcast_in_dim: new dims, stretched size-1 dims, a permuted mapping, a scalar.
    for (name, from, to, dims) in [
        ("broadcast_new_dim", vec![3], vec![2, 3], vec![1]),
        ("broadcast_stretch", vec![3, 1], vec![3, 4], vec![0, 1]),
        (
            "broadcast_permuted",
            vec![2, 1, 3],
            vec![3, 4, 2, 5],
            vec![2, 1, 0],
        ),
        ("broadcast_scalar", vec![], vec![2, 2], vec![]),
    ] {
        let x = random_lit(r, &from, -1.0, 1.0);
        cases.push(case(name, vec![x], &[0], |b, a| {
            typed(b, OpKind::BroadcastInDim { dims }, &[a[0]], f64t(&to))
        }));
    }

    // reshape, transpose.
    let x = random_lit(r, &[2, 6], -1.0, 1.0);
    cases.push(case("reshape", vec![x], &[0], |b, a| {
        typed(b, OpKind::Reshape, &[a[0]], f64t(&[3, 4]))
    }));
    let x = random_lit(r, &[2, 3, 4], -1.0, 1.0);
    cases.push(case("transpose", vec![x], &[0], |b, a| {
        b.push1(
            OpKind::Transpose {
                permutation: vec![2, 0, 1],
            },
            &[a[0]],
        )
        .unwrap()
    }));

    // slice: an offset, a stride per dimension, a limit short of the end.
    let x = random_lit(r, &[5, 7], -1.0, 1.0);
    cases.push(case("slice", vec![x], &[0], |b, a| {
        b.push1(
            OpKind::Slice {
                start: vec![1, 2],
                limit: vec![5, 6],
                strides: vec![2, 3],
            },
            &[a[0]],
        )
        .unwrap()
    }));

    // concatenate three operands, the middle one not differentiated.
    let (x, y, z) = (
        random_lit(r, &[2, 1], -1.0, 1.0),
        random_lit(r, &[2, 3], -1.0, 1.0),
        random_lit(r, &[2, 2], -1.0, 1.0),
    );
    cases.push(case("concatenate", vec![x, y, z], &[0, 2], |b, a| {
        b.push1(OpKind::Concatenate { dimension: 1 }, &[a[0], a[1], a[2]])
            .unwrap()
    }));

    // pad: edge and interior padding with the padding value differentiated; negative edge
    // padding (cropping).
    let (x, v) = (random_lit(r, &[3, 2], -1.0, 1.0), lit(&[], &[0.7]));
    cases.push(case("pad", vec![x, v], &[0, 1], |b, a| {
        b.push1(
            OpKind::Pad {
                low: vec![1, 0],
                high: vec![2, 1],
                interior: vec![1, 2],
            },
            &[a[0], a[1]],
        )
        .unwrap()
    }));
    let (x, v) = (random_lit(r, &[4, 5], -1.0, 1.0), lit(&[], &[0.3]));
    cases.push(case("pad_negative", vec![x, v], &[0, 1], |b, a| {
        b.push1(
            OpKind::Pad {
                low: vec![-1, 2],
                high: vec![1, -2],
                interior: vec![0, 1],
            },
            &[a[0], a[1]],
        )
        .unwrap()
    }));

    // dot_general: a matmul; lhs contracting its first dimension; batch dimensions with
    // two contracting pairs listed out of order on both sides.
    let (x, w) = (
        random_lit(r, &[3, 4], -1.0, 1.0),
        random_lit(r, &[4, 5], -1.0, 1.0),
    );
    cases.push(case("dot_matmul", vec![x, w], &[0, 1], |b, a| {
        b.push1(dot(&[], &[], &[1], &[0]), &[a[0], a[1]]).unwrap()
    }));
    let (x, w) = (
        random_lit(r, &[4, 3], -1.0, 1.0),
        random_lit(r, &[5, 4], -1.0, 1.0),
    );
    cases.push(case("dot_transposed", vec![x, w], &[0, 1], |b, a| {
        b.push1(dot(&[], &[], &[0], &[1]), &[a[0], a[1]]).unwrap()
    }));
    let (x, w) = (
        random_lit(r, &[2, 3, 4, 5], -1.0, 1.0),
        random_lit(r, &[5, 2, 4, 3], -1.0, 1.0),
    );
    cases.push(case("dot_batched", vec![x, w], &[0, 1], |b, a| {
        b.push1(dot(&[0], &[1], &[3, 2], &[0, 2]), &[a[0], a[1]])
            .unwrap()
    }));

    // reduce: sum over two dims with the init differentiated; max and min with distinct
    // values.
    let (x, init) = (random_lit(r, &[2, 3, 4], -1.0, 1.0), lit(&[], &[0.25]));
    cases.push(case("reduce_add", vec![x, init], &[0, 1], |b, a| {
        b.reduce(a[0], a[1], &[0, 2], BinaryOp::Add).unwrap()
    }));
    for (name, op, init) in [
        ("reduce_max", BinaryOp::Maximum, f64::NEG_INFINITY),
        ("reduce_min", BinaryOp::Minimum, f64::INFINITY),
    ] {
        let x = random_lit(r, &[3, 4], -1.0, 1.0);
        cases.push(case(name, vec![x], &[0], |b, a| {
            let i = b.constant(Literal::scalar(DType::F64, Scalar::Float(init)));
            b.reduce(a[0], i, &[1], op).unwrap()
        }));
    }

    // reduce_window with an add reducer: a cumsum along dimension 1 (the window spans the
    // dimension, padded below), and sum pooling with a 3-wide window, stride 2, window
    // dilation 2 and padding (1, 2) along dimension 0 (windows overlap, skip and read
    // padding), a 2-wide one with stride 1 along dimension 1.
    let x = random_lit(r, &[3, 5], -1.0, 1.0);
    cases.push(case("reduce_window_cumsum", vec![x], &[0], |b, a| {
        let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
        let w = WindowDims {
            window: vec![1, 5],
            strides: vec![1, 1],
            base_dilations: vec![1, 1],
            window_dilations: vec![1, 1],
            padding: vec![(0, 0), (4, 0)],
        };
        b.reduce_window(a[0], zero, w, BinaryOp::Add).unwrap()
    }));
    let x = random_lit(r, &[7, 4], -1.0, 1.0);
    cases.push(case("reduce_window_pool", vec![x], &[0], |b, a| {
        let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
        let w = WindowDims {
            window: vec![3, 2],
            strides: vec![2, 1],
            base_dilations: vec![1, 1],
            window_dilations: vec![2, 1],
            padding: vec![(1, 2), (0, 0)],
        };
        b.reduce_window(a[0], zero, w, BinaryOp::Add).unwrap()
    }));

    // dynamic_slice of a 2x2 block at (1, 3) of a 4x5 operand (the start 3 clamps to 3;
    // 9 would clamp too), and dynamic_update_slice writing a 2x3 update at (2, 9) (the
    // column start clamps to 2): both operands of the update differentiated.
    let x = random_lit(r, &[4, 5], -1.0, 1.0);
    cases.push(case("dynamic_slice", vec![x], &[0], |b, a| {
        let i = b.constant(Literal::scalar(DType::I32, Scalar::Int(1)));
        let j = b.constant(Literal::scalar(DType::I32, Scalar::Int(3)));
        let s = b
            .push1(OpKind::DynamicSlice { sizes: vec![2, 2] }, &[a[0], i, j])
            .unwrap();
        b.binary(BinaryOp::Multiply, s, s).unwrap()
    }));
    let (x, u) = (
        random_lit(r, &[4, 5], -1.0, 1.0),
        random_lit(r, &[2, 3], -1.0, 1.0),
    );
    cases.push(case("dynamic_update_slice", vec![x, u], &[0, 1], |b, a| {
        let i = b.constant(Literal::scalar(DType::I32, Scalar::Int(2)));
        let j = b.constant(Literal::scalar(DType::I32, Scalar::Int(9)));
        let w = b
            .push1(OpKind::DynamicUpdateSlice, &[a[0], a[1], i, j])
            .unwrap();
        b.binary(BinaryOp::Multiply, w, w).unwrap()
    }));

    // gather (row lookup), repeated and out-of-range indices (clamped as gather does),
    // implicit and explicit index vector; iota and constant feeding the loss.
    let table = random_lit(r, &[5, 3], -1.0, 1.0);
    let idx = i32_lit(&[2, 3], &[4, 0, 2, 2, -1, 9]);
    cases.push(case("gather", vec![table.clone(), idx], &[0], |b, a| {
        b.push1(row_lookup(2, 2, 3), &[a[0], a[1]]).unwrap()
    }));
    let idx = i32_lit(&[4, 1], &[1, 3, 3, 0]);
    cases.push(case(
        "gather_index_vector",
        vec![table, idx],
        &[0],
        |b, a| b.push1(row_lookup(1, 1, 3), &[a[0], a[1]]).unwrap(),
    ));
    // A general gather (2-d windows at 2-component indices, clamped past the edge): its
    // cotangent is a scatter-add back.
    let x = random_lit(r, &[4, 5], -1.0, 1.0);
    let idx = i32_lit(&[3, 2], &[0, 1, 2, 3, 3, 4]);
    cases.push(case("gather_windows", vec![x, idx], &[0], |b, a| {
        let g = OpKind::Gather(GatherDims {
            offset_dims: vec![1, 2],
            start_index_map: vec![0, 1],
            index_vector_dim: 1,
            slice_sizes: vec![2, 2],
            ..GatherDims::default()
        });
        typed(b, g, &[a[0], a[1]], f64t(&[3, 2, 2]))
    }));
    // scatter-add of rows (repeated and out-of-range rows: those skip), both operands.
    let (base, upd) = (
        random_lit(r, &[5, 3], -1.0, 1.0),
        random_lit(r, &[4, 3], -1.0, 1.0),
    );
    let idx = i32_lit(&[4, 1], &[1, 3, 1, 7]);
    cases.push(case(
        "scatter_add",
        vec![base, idx, upd],
        &[0, 2],
        |b, a| {
            let s = f64t(&[]);
            let args = b.begin_block(&[s.clone(), s]);
            let sum = b.binary(BinaryOp::Add, args[0], args[1]).unwrap();
            let body = b.end_block(&[sum]);
            let dims = ScatterDims {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                ..ScatterDims::default()
            };
            let op = b
                .push(
                    OpKind::Scatter(dims),
                    &[a[0], a[1], a[2]],
                    Some(&[f64t(&[5, 3])]),
                    vec![body],
                )
                .unwrap();
            let y = b.func().op(op).results[0];
            b.binary(BinaryOp::Multiply, y, y).unwrap()
        },
    ));
    // sort: keys (distinct, so no ties) and values sorted together along dimension 1, both
    // differentiated; each cotangent goes back to where its element came from.
    let (keys, vals) = (
        lit(&[2, 3], &[0.3, -1.2, 0.9, 2.0, -0.5, 1.1]),
        random_lit(r, &[2, 3], -1.0, 1.0),
    );
    cases.push(case("sort", vec![keys, vals], &[0, 1], |b, a| {
        let s = f64t(&[]);
        let args = b.begin_block(&[s.clone(), s.clone(), s.clone(), s]);
        let lt = cmp(b, Lt, args[0], args[1]);
        let body = b.end_block(&[lt]);
        let kind = OpKind::Sort {
            dimension: 1,
            is_stable: true,
        };
        let op = b.push(kind, &[a[0], a[1]], None, vec![body]).unwrap();
        let r = b.func().op(op).results.clone();
        b.binary(BinaryOp::Multiply, r[0], r[1]).unwrap()
    }));
    // optimization_barrier: each value's cotangent passes through.
    let (x, y) = (
        random_lit(r, &[2, 3], -1.0, 1.0),
        random_lit(r, &[2, 3], -1.0, 1.0),
    );
    cases.push(case("optimization_barrier", vec![x, y], &[0, 1], |b, a| {
        let op = b
            .push(OpKind::OptimizationBarrier, &[a[0], a[1]], None, Vec::new())
            .unwrap();
        let r = b.func().op(op).results.clone();
        b.binary(BinaryOp::Multiply, r[0], r[1]).unwrap()
    }));
    let x = random_lit(r, &[2, 3], -1.0, 1.0);
    cases.push(case("iota_constant", vec![x], &[0], |b, a| {
        let i = typed(b, OpKind::Iota { dimension: 1 }, &[], f64t(&[2, 3]));
        let c = b.constant(lit(&[2, 3], &[1.0, -2.0, 0.5, 3.0, 0.25, -1.0]));
        let xi = b.binary(BinaryOp::Multiply, a[0], i).unwrap();
        let xc = b.binary(BinaryOp::Multiply, a[0], c).unwrap();
        b.binary(BinaryOp::Multiply, xi, xc).unwrap()
    }));

    // random: the numbers multiply x; the seed is an integer argument.
    let (x, seed) = (
        random_lit(r, &[2, 3], -1.0, 1.0),
        Literal::scalar(DType::I64, Scalar::Int(42)),
    );
    cases.push(case("random", vec![x, seed], &[0], |b, a| {
        let u = typed(
            b,
            OpKind::Random {
                distribution: Distribution::Normal,
            },
            &[a[1]],
            f64t(&[2, 3]),
        );
        b.binary(BinaryOp::Multiply, a[0], u).unwrap()
    }));

    // rotate: by one along the leading dimension, then by -2 along the last (x * x, so the
    // cotangent reaching x depends on where each element went).
    let x = random_lit(r, &[4, 3], -1.0, 1.0);
    cases.push(case("rotate", vec![x], &[0], |b, a| {
        let up = b
            .push1(
                OpKind::Rotate {
                    dimension: 0,
                    shift: 1,
                },
                &[a[0]],
            )
            .unwrap();
        let sq = b.binary(BinaryOp::Multiply, up, a[0]).unwrap();
        b.push1(
            OpKind::Rotate {
                dimension: 1,
                shift: -2,
            },
            &[sq],
        )
        .unwrap()
    }));

    // sharding_constraint (its module needs the mesh).
    let x = random_lit(r, &[4, 3], -1.0, 1.0);
    let mut c = case("sharding_constraint", vec![x], &[0], |b, a| {
        let s = Sharding::split("mesh", &[&["x"], &[]]);
        let sq = b.binary(BinaryOp::Multiply, a[0], a[0]).unwrap();
        b.push1(OpKind::ShardingConstraint(s), &[sq]).unwrap()
    });
    c.module.meshes = vec![Mesh::new("mesh", &[("x", 2)]).unwrap()];
    cases.push(c);
    cases
}

#[test]
fn unary_vjps_match_finite_differences() {
    run_cases(&unary_cases());
}

#[test]
fn binary_vjps_match_finite_differences() {
    run_cases(&binary_cases());
}

#[test]
fn other_op_families_vjps_match_finite_differences() {
    run_cases(&family_cases());
}

/// Every op that computes a float from a float is covered by a finite-difference case: a
/// new unary or binary op fails here (or in the exhaustive matches above) until it has one.
#[test]
fn every_differentiable_op_has_a_finite_difference_case() {
    let mut covered = BTreeSet::new();
    for c in unary_cases()
        .iter()
        .chain(&binary_cases())
        .chain(&family_cases())
    {
        covered.extend(op_names(&c.module));
    }
    let float_op = |kind: OpKind, n: usize| {
        let mut b = FunctionBuilder::new("f", &vec![f64t(&[2]); n]);
        let args = b.args();
        b.push1(kind, &args)
            .is_ok_and(|v| b.ty(v).dtype == DType::F64)
    };
    let mut want: Vec<String> = Vec::new();
    for &u in UnaryOp::ALL {
        if float_op(OpKind::Unary(u), 1) {
            want.push(format!("stablehlo.{}", u.name()));
        } else {
            assert!(
                matches!(
                    u,
                    UnaryOp::Not | UnaryOp::IsFinite | UnaryOp::Popcnt | UnaryOp::CountLeadingZeros
                ),
                "{} takes no float to a float; list it",
                u.name()
            );
        }
    }
    for &op in BinaryOp::ALL {
        if float_op(OpKind::Binary(op), 2) {
            want.push(format!("stablehlo.{}", op.name()));
        }
    }
    for family in [
        "stablehlo.broadcast_in_dim",
        "stablehlo.clamp",
        "stablehlo.compare",
        "stablehlo.concatenate",
        "stablehlo.constant",
        "stablehlo.convert",
        "stablehlo.dot_general",
        "stablehlo.gather",
        "stablehlo.iota",
        "stablehlo.optimization_barrier",
        "stablehlo.pad",
        "stablehlo.reduce",
        "stablehlo.reshape",
        "stablehlo.scatter",
        "stablehlo.select",
        "stablehlo.slice",
        "stablehlo.sort",
        "stablehlo.transpose",
        "shardc.random",
        "shardc.rotate",
        "sdy.sharding_constraint",
    ] {
        want.push(family.to_string());
    }
    let missing: Vec<&String> = want.iter().filter(|w| !covered.contains(*w)).collect();
    assert!(
        missing.is_empty(),
        "no finite-difference case for {missing:?}"
    );
    // 19 float unary ops, 9 float binary ops, 21 other families.
    assert_eq!(want.len(), 19 + 9 + 21);
}

/// JAX's `_balanced_eq`: where `x == y`, each of `maximum(x, y)`'s operands gets half of
/// the cotangent; a max/min reduce divides it among the tied positions.
#[test]
fn maximum_and_minimum_split_ties_like_jax() {
    for op in [BinaryOp::Maximum, BinaryOp::Minimum] {
        let x = lit(&[4], &[1.0, 2.0, -3.0, 0.5]);
        let y = lit(&[4], &[1.0, 1.0, -3.0, 0.75]);
        let mut b = FunctionBuilder::new("main", &[f64t(&[4]), f64t(&[4])]);
        let m = b.binary(op, b.arg(0), b.arg(1)).unwrap();
        let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
        let loss = b.reduce(m, zero, &[0], BinaryOp::Add).unwrap();
        let module = Module {
            functions: vec![b.finish(&[loss])],
            ..Module::default()
        };
        let out = reference::run(&grad(&module, &[0, 1]).unwrap(), "main", &[x, y]).unwrap();
        let (gx, gy) = if op == BinaryOp::Maximum {
            (vec![0.5, 1.0, 0.5, 0.0], vec![0.5, 0.0, 0.5, 1.0])
        } else {
            (vec![0.5, 0.0, 0.5, 1.0], vec![0.5, 1.0, 0.5, 0.0])
        };
        assert_eq!(out[0].to_f64_vec(), gx, "{}", op.name());
        assert_eq!(out[1].to_f64_vec(), gy, "{}", op.name());
    }
    // Row 0 ties three ways, row 1 has one maximum.
    let x = lit(&[2, 3], &[2.0, 2.0, 2.0, 1.0, 5.0, -1.0]);
    let mut b = FunctionBuilder::new("main", &[f64t(&[2, 3])]);
    let ninf = b.constant(Literal::scalar(
        DType::F64,
        Scalar::Float(f64::NEG_INFINITY),
    ));
    let m = b.reduce(b.arg(0), ninf, &[1], BinaryOp::Maximum).unwrap();
    let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
    let loss = b.reduce(m, zero, &[0], BinaryOp::Add).unwrap();
    let module = Module {
        functions: vec![b.finish(&[loss])],
        ..Module::default()
    };
    let out = reference::run(&grad(&module, &[0]).unwrap(), "main", &[x]).unwrap();
    let third = 1.0 / 3.0;
    assert_eq!(
        out[0].to_f64_vec(),
        vec![third, third, third, 0.0, 1.0, 0.0]
    );
}

/// Compare, `is_finite`, integer converts and integer ops carry no gradient: an argument
/// reaching the loss only through them gets an exact zero, and nothing is emitted for them.
#[test]
fn ops_without_a_gradient_give_zero() {
    let x = lit(&[3], &[0.5, -1.0, 2.0]);
    let mut b = FunctionBuilder::new("main", &[f64t(&[3])]);
    let fin = b.unary(UnaryOp::IsFinite, b.arg(0)).unwrap();
    let zero = b.constant(lit(&[3], &[0.0, 0.0, 0.0]));
    let x0 = b.arg(0);
    let pos = cmp(&mut b, ComparisonDirection::Gt, x0, zero);
    let both = b.binary(BinaryOp::And, fin, pos).unwrap();
    let not = b.unary(UnaryOp::Not, both).unwrap();
    let i = typed(
        &mut b,
        OpKind::Convert,
        &[x0],
        TensorType::new(DType::I32, [3]),
    );
    let i2 = b.binary(BinaryOp::Xor, i, i).unwrap();
    let fi = typed(&mut b, OpKind::Convert, &[i2], f64t(&[3]));
    let fnot = typed(&mut b, OpKind::Convert, &[not], f64t(&[3]));
    let s = b.binary(BinaryOp::Add, fi, fnot).unwrap();
    let loss = weighted_sum(&mut b, s, 3);
    let m = Module {
        functions: vec![b.finish(&[loss])],
        ..Module::default()
    };
    let g = grad(&m, &[0]).unwrap();
    let f = g.entry().unwrap();
    // Only the zero gradient remains: the loss is dead in `grad`.
    assert_eq!(
        op_names(&g),
        BTreeSet::from(["stablehlo.constant".to_string()])
    );
    let out = reference::run(&g, "main", &[x]).unwrap();
    assert_eq!(out[0].to_f64_vec(), vec![0.0; 3]);
    assert_eq!(f.results().len(), 1);
}

/// JAX constrains a cotangent like its primal: `value_and_grad` through
/// `sharding_constraint` emits the same constraint on the cotangent (`grad` keeps only that
/// one: the forward value is not needed for the gradient of `sum(c(x * x) * W)`).
#[test]
fn cotangents_are_constrained_like_their_primals() {
    let c = family_cases()
        .into_iter()
        .find(|c| c.name == "sharding_constraint")
        .unwrap();
    let constraints = |m: &Module| -> Vec<Sharding> {
        m.entry()
            .unwrap()
            .body_ops()
            .filter_map(|(_, op)| match &op.kind {
                OpKind::ShardingConstraint(s) => Some(s.clone()),
                _ => None,
            })
            .collect()
    };
    let want = Sharding::split("mesh", &[&["x"], &[]]);
    let vg = value_and_grad(&c.module, &[0]).unwrap();
    assert_eq!(constraints(&vg), [want.clone(), want.clone()]);
    assert_eq!(constraints(&grad(&c.module, &[0]).unwrap()), [want]);
}

/// Loops of known trips (`lax.fori_loop`, a `lax.scan` of stacked weights read with
/// `dynamic_slice`) are differentiated unrolled: gradients through the carried value, the
/// captured weight and the stacked weights match finite differences; a loop whose trip
/// count an argument gives is refused, naming the loop and saying why.
#[test]
fn loops_of_known_trips_are_differentiated_unrolled() {
    let text = r#"
func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>, %ws: tensor<4x3xf64>) -> tensor<f64> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<3xf64>
    cond {
      %n = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %row = stablehlo.dynamic_slice %ws, %i, %z, sizes = [1, 3] : (tensor<4x3xf64>, tensor<i32>, tensor<i32>) -> tensor<1x3xf64>
      %v = stablehlo.reshape %row : (tensor<1x3xf64>) -> tensor<3xf64>
      %a = stablehlo.multiply %h, %w : tensor<3xf64>
      %b = stablehlo.add %a, %v : tensor<3xf64>
      %t = stablehlo.tanh %b : tensor<3xf64>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %t : tensor<i32>, tensor<3xf64>
    }
  %sq = stablehlo.multiply %r#1, %r#1 : tensor<3xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
  return %s : tensor<f64>
}
"#;
    let m = parse_module(text).unwrap();
    let args = vec![
        lit(&[3], &[0.3, -0.7, 1.1]),
        lit(&[3], &[0.9, 1.2, -0.4]),
        lit(
            &[4, 3],
            &[
                0.1, -0.2, 0.3, 0.05, 0.4, -0.6, -0.3, 0.2, 0.1, 0.7, -0.1, 0.0,
            ],
        ),
    ];
    check_fd("fori_loop over stacked weights", &m, &args, &[0, 1, 2]);
    let g = value_and_grad(&m, &[0, 1, 2]).unwrap();
    assert!(
        !op_names(&g).contains("stablehlo.while"),
        "{}",
        print_module(&g)
    );
    // Bounded by an argument: no trip count when compiling.
    let bounded = text
        .replace(
            "%ws: tensor<4x3xf64>)",
            "%ws: tensor<4x3xf64>, %k: tensor<i32>)",
        )
        .replace(
            "%n = stablehlo.constant dense<4> : tensor<i32>",
            "%n = stablehlo.add %k, %c0 : tensor<i32>",
        );
    let m = parse_module(&bounded).unwrap();
    let e = value_and_grad(&m, &[0]).unwrap_err().to_string();
    assert!(
        e.contains("stablehlo.while") && e.contains("trip count") && e.contains("constant bounds"),
        "{e}"
    );
}

/// Convolutions' VJPs against finite differences, to the input and the kernel: Flax's
/// NHWC x HWIO with strides and asymmetric padding whose windows do not tile the input,
/// a transposed convolution (input dilation) with a dilated kernel, grouped and
/// depthwise convolutions, and a 1-D NCW convolution with negative padding.
#[test]
fn convolution_vjps_match_finite_differences() {
    let conv = |dims: &str, window: &str, groups: usize, x: &[usize], k: &[usize], y: &[usize]| {
        let ty = |s: &[usize]| {
            format!(
                "tensor<{}xf64>",
                s.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            )
        };
        let text = format!(
            r#"
func.func @main(%x: {xt}, %k: {kt}) -> tensor<f64> {{
  %y = stablehlo.convolution(%x, %k) dim_numbers = {dims}, window = {{{window}}} {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : ({xt}, {kt}) -> {yt}
  %s = stablehlo.sine %y : {yt}
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [{all}] : ({yt}, tensor<f64>) -> tensor<f64>
  return %r : tensor<f64>
}}
"#,
            xt = ty(x),
            kt = ty(k),
            yt = ty(y),
            all = (0..y.len())
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let cases = [
        (
            "nhwc stride 2, pad (0, 1)",
            conv(
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [2, 2], pad = [[0, 1], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]",
                1,
                &[2, 5, 4, 3],
                &[3, 2, 3, 2],
                &[2, 2, 2, 2],
            ),
        ),
        (
            "transposed, dilated kernel",
            conv(
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [1, 1], pad = [[1, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [2, 1]",
                1,
                &[1, 3, 3, 2],
                &[2, 2, 2, 3],
                &[1, 5, 7, 3],
            ),
        ),
        (
            "grouped",
            conv(
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]",
                2,
                &[1, 3, 3, 4],
                &[2, 2, 2, 6],
                &[1, 4, 4, 6],
            ),
        ),
        (
            "depthwise, stride 2",
            conv(
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [2, 1], pad = [[1, 1], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]",
                3,
                &[2, 4, 3, 3],
                &[3, 2, 1, 3],
                &[2, 2, 2, 3],
            ),
        ),
        (
            "ncw, stride 3, negative padding",
            conv(
                "[b, f, 0]x[o, i, 0]->[b, f, 0]",
                "stride = [3], pad = [[-1, 2]], lhs_dilate = [1], rhs_dilate = [1]",
                1,
                &[2, 2, 9],
                &[3, 2, 3],
                &[2, 3, 3],
            ),
        ),
    ];
    let mut rng = Rng(0xc0a7);
    for (name, m) in &cases {
        let f = m.entry().unwrap();
        let args: Vec<Literal> = f
            .arg_types()
            .iter()
            .map(|t| random_lit(&mut rng, &t.shape, -1.0, 1.0))
            .collect();
        check_fd(name, m, &args, &[0, 1]);
    }
}

/// Max and min pooling (`reduce_window` from -inf / +inf) differentiate to a
/// `select_and_scatter`: overlapping windows with padding and strides, against finite
/// differences; pooling from another init has no rule, and says what would.
#[test]
fn max_and_min_pooling_vjps_match_finite_differences() {
    let pool = |reducer: &str, init: &str, window: &str| {
        parse_module(&format!(
            r#"
func.func @main(%x: tensor<2x5x6xf64>) -> tensor<f64> {{
  %init = stablehlo.constant dense<{init}> : tensor<f64>
  %p = "stablehlo.reduce_window"(%x, %init) <{{{window}}}> ({{
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %m = stablehlo.{reducer} %a, %b : tensor<f64>
    stablehlo.return %m : tensor<f64>
  }}) : (tensor<2x5x6xf64>, tensor<f64>) -> tensor<2x3x3xf64>
  %s = stablehlo.sine %p : tensor<2x3x3xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x3x3xf64>, tensor<f64>) -> tensor<f64>
  return %r : tensor<f64>
}}
"#
        ))
        .unwrap()
    };
    let window = "padding = dense<[[0, 0], [1, 1], [1, 0]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>";
    let mut rng = Rng(0x9001);
    let args = vec![random_lit(&mut rng, &[2, 5, 6], -1.0, 1.0)];
    for (reducer, init) in [
        ("maximum", "0xFFF0000000000000"),
        ("minimum", "0x7FF0000000000000"),
    ] {
        let m = pool(reducer, init, window);
        check_fd(reducer, &m, &args, &[0]);
        let g = value_and_grad(&m, &[0]).unwrap();
        assert!(op_names(&g).contains("stablehlo.select_and_scatter"));
    }
    let e = value_and_grad(&pool("maximum", "0.0", window), &[0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("from an init of -inf"), "{e}");
}

/// A branch (`lax.switch` of three branches, one reading a value the others do not,
/// one an integer index out of range taking the last) differentiates to a branch of the
/// branches' VJPs: gradients to the values the branches read match finite differences
/// for every index; a branch inside a loop of known trips differentiates too.
#[test]
fn branches_differentiate_to_a_branch_of_their_vjps() {
    let text = r#"
func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>, %k: tensor<i32>) -> tensor<f64> {
  %r = "stablehlo.case"(%k) ({
    %a = stablehlo.multiply %x, %w : tensor<3xf64>
    %t = stablehlo.tanh %a : tensor<3xf64>
    stablehlo.return %t : tensor<3xf64>
  }, {
    %s = stablehlo.multiply %x, %x : tensor<3xf64>
    stablehlo.return %s : tensor<3xf64>
  }, {
    %c = stablehlo.sine %w : tensor<3xf64>
    %d = stablehlo.add %c, %x : tensor<3xf64>
    stablehlo.return %d : tensor<3xf64>
  }) : (tensor<i32>) -> tensor<3xf64>
  %e = stablehlo.exponential %r : tensor<3xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %l = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
"#;
    let m = parse_module(text).unwrap();
    for k in [0, 1, 2, 7] {
        let args = vec![
            lit(&[3], &[0.3, -0.7, 1.1]),
            lit(&[3], &[0.9, 1.2, -0.4]),
            Literal::from_f64(DType::I32, &[], &[k as f64]).unwrap(),
        ];
        check_fd(&format!("case, index {k}"), &m, &args, &[0, 1]);
    }
    let g = value_and_grad(&m, &[0, 1]).unwrap();
    assert!(op_names(&g).contains("stablehlo.case"));
    // In a loop of 4 trips: every other iteration takes the first branch.
    let looped = r#"
func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<3xf64>
    cond {
      %n = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %odd = stablehlo.remainder %i, %two : tensor<i32>
      %b = "stablehlo.case"(%odd) ({
        %a = stablehlo.multiply %h, %w : tensor<3xf64>
        %t = stablehlo.tanh %a : tensor<3xf64>
        stablehlo.return %t : tensor<3xf64>
      }, {
        %s = stablehlo.sine %h : tensor<3xf64>
        stablehlo.return %s : tensor<3xf64>
      }) : (tensor<i32>) -> tensor<3xf64>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %b : tensor<i32>, tensor<3xf64>
    }
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %l = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
"#;
    let m = parse_module(looped).unwrap();
    let args = vec![lit(&[3], &[0.3, -0.7, 1.1]), lit(&[3], &[0.9, 1.2, -0.4])];
    check_fd("case in a loop", &m, &args, &[0, 1]);
}

/// A max pool's gradient (`select_and_scatter` by `>=`, adding) differentiated again, to
/// its source and its init, in f32 (the selected element's cotangent is found by packing
/// each element's order-preserving bits with its cotangent's into a u64): against central
/// differences of step 1e-2 (the map is linear in both), and a min pool's (`<=`) too.
#[test]
fn select_and_scatter_vjps_match_finite_differences() {
    for direction in ["GE", "LE"] {
        let text = format!(
            r#"
func.func @main(%x: tensor<2x5x6xf32>, %s: tensor<2x3x3xf32>, %i: tensor<f32>) -> tensor<f32> {{
  %r = "stablehlo.select_and_scatter"(%x, %s, %i) <{{padding = dense<[[0, 0], [1, 1], [1, 0]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>}}> ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare {direction}, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}, {{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %d = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }}) : (tensor<2x5x6xf32>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x5x6xf32>
  %t = stablehlo.sine %r : tensor<2x5x6xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %l = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x5x6xf32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}}
"#
        );
        let m = parse_module(&text).unwrap();
        let mut rng = Rng(0x5e1ec7);
        let f32s = |rng: &mut Rng, shape: &[usize]| {
            let n = shape.iter().product();
            Literal::from_f64(DType::F32, shape, &rng.values(n, -1.0, 1.0)).unwrap()
        };
        let args = vec![
            f32s(&mut rng, &[2, 5, 6]),
            f32s(&mut rng, &[2, 3, 3]),
            Literal::from_f64(DType::F32, &[], &[0.25]).unwrap(),
        ];
        let vg = value_and_grad(&m, &[1, 2]).unwrap();
        let out = reference::run(&vg, "main", &args).unwrap();
        let loss = |a: &[Literal]| reference::run(&m, "main", a).unwrap()[0].get(0).as_f64();
        for (k, i) in [1usize, 2].into_iter().enumerate() {
            let base = args[i].to_f64_vec();
            for j in 0..base.len() {
                let at = |d: f64| {
                    let mut v = base.clone();
                    v[j] += d;
                    let mut a = args.clone();
                    a[i] = Literal::from_f64(DType::F32, &args[i].ty.shape, &v).unwrap();
                    loss(&a)
                };
                let fd = (at(1e-2) - at(-1e-2)) / 2e-2;
                let got = out[1 + k].get(j).as_f64();
                assert!(
                    (got - fd).abs() <= 2e-3 * (1.0 + fd.abs()),
                    "{direction}: d loss / d arg{i}[{j}] = {got}, finite differences give {fd}"
                );
            }
        }
    }
}
