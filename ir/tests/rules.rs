//! The op sharding-rule registry: one snapshot with the rule of an instance of every op
//! (and several of the interesting ones), the `func.call` error, and the rule helpers.

use shardc_ir::rules::{
    Combiner, FactorId, FactorKind, FactorUse, OpRule, RuleError, TensorRef, op_rule,
};
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, Distribution, DotDims, FftType, Function,
    FunctionBuilder, GatherDims, IrError, Literal, Op, OpId, OpKind, Scalar, ScatterDims, Sharding,
    TensorType, UnaryOp, ValueId, WindowDims,
};
use std::collections::{BTreeSet, HashSet};

/// `"4x8xf32"` -> `tensor<4x8xf32>`; `"f32"` -> `tensor<f32>`.
fn t(s: &str) -> TensorType {
    let mut parts: Vec<&str> = s.split('x').collect();
    let dtype = parts
        .pop()
        .and_then(DType::from_name)
        .unwrap_or_else(|| panic!("bad type {s}"));
    let shape: Vec<usize> = parts
        .iter()
        .map(|p| p.parse().unwrap_or_else(|_| panic!("bad type {s}")))
        .collect();
    TensorType::new(dtype, shape)
}

/// One op instance under test: the function it is in and its id.
struct Case {
    f: Function,
    op: OpId,
}

impl Case {
    fn op(&self) -> &Op {
        self.f.op(self.op)
    }

    fn rule(&self) -> Result<OpRule, RuleError> {
        op_rule(&self.f, self.op())
    }
}

/// Builds a function with arguments of the given types; `build` adds ops and returns a
/// result of the op under test.
fn case(
    args: &[&str],
    build: impl FnOnce(&mut FunctionBuilder, &[ValueId]) -> Result<ValueId, IrError>,
) -> Case {
    let types: Vec<TensorType> = args.iter().map(|s| t(s)).collect();
    let mut b = FunctionBuilder::new("case", &types);
    let a = b.args();
    let v = build(&mut b, &a).unwrap_or_else(|e| panic!("the test builds well-typed ops: {e}"));
    let op = b
        .func()
        .defining_op(v)
        .expect("the op under test defines the returned value");
    Case {
        f: b.finish(&[v]),
        op,
    }
}

fn zero(b: &mut FunctionBuilder, dtype: DType) -> ValueId {
    b.constant(Literal::scalar(dtype, Scalar::Float(0.0)))
}

fn dot(
    lhs_batch: &[usize],
    rhs_batch: &[usize],
    lhs_contracting: &[usize],
    rhs_contracting: &[usize],
) -> DotDims {
    DotDims {
        lhs_batch: lhs_batch.to_vec(),
        rhs_batch: rhs_batch.to_vec(),
        lhs_contracting: lhs_contracting.to_vec(),
        rhs_contracting: rhs_contracting.to_vec(),
        precision: Vec::new(),
        algorithm: None,
    }
}

fn slice(
    b: &mut FunctionBuilder,
    x: ValueId,
    start: &[usize],
    limit: &[usize],
) -> Result<ValueId, IrError> {
    let kind = OpKind::Slice {
        start: start.to_vec(),
        limit: limit.to_vec(),
        strides: vec![1; start.len()],
    };
    b.push1(kind, &[x])
}

fn pad(low: &[i64], high: &[i64], interior: &[i64]) -> OpKind {
    OpKind::Pad {
        low: low.to_vec(),
        high: high.to_vec(),
        interior: interior.to_vec(),
    }
}

/// argmax over dimension 1 of a 4x8 tensor: a reduce of (values, iota) whose body
/// compares and selects, as JAX emits it.
fn argmax(b: &mut FunctionBuilder, x: ValueId) -> Result<ValueId, IrError> {
    let idx = b.push1_typed(OpKind::Iota { dimension: 1 }, &[], t("4x8xi32"))?;
    let init_v = b.constant(Literal::scalar(
        DType::F32,
        Scalar::Float(f64::NEG_INFINITY),
    ));
    let init_i = b.constant(Literal::scalar(DType::I32, Scalar::Int(0)));
    let acc = b.begin_block(&[t("f32"), t("i32"), t("f32"), t("i32")]);
    let ge = OpKind::Compare {
        direction: ComparisonDirection::Ge,
        compare_type: Some(ComparisonType::Float),
    };
    let keep = b.push1(ge, &[acc[0], acc[2]])?;
    let v = b.push1(OpKind::Select, &[keep, acc[0], acc[2]])?;
    let i = b.push1(OpKind::Select, &[keep, acc[1], acc[3]])?;
    let body = b.end_block(&[v, i]);
    let op = b.push(
        OpKind::Reduce {
            dimensions: vec![1],
        },
        &[x, idx, init_v, init_i],
        None,
        vec![body],
    )?;
    Ok(b.func().op(op).results[0])
}

/// A single-input reduce whose body is `subtract(acc, x)`: not one of the associative
/// ops, so partial results must combine with the body.
fn reduce_subtract(b: &mut FunctionBuilder, x: ValueId) -> Result<ValueId, IrError> {
    let init = zero(b, DType::F32);
    let acc = b.begin_block(&[t("f32"), t("f32")]);
    let r = b.binary(BinaryOp::Subtract, acc[0], acc[1])?;
    let body = b.end_block(&[r]);
    let op = b.push(
        OpKind::Reduce {
            dimensions: vec![0],
        },
        &[x, init],
        None,
        vec![body],
    )?;
    Ok(b.func().op(op).results[0])
}

/// The element type each unary and binary op is tested on.
fn unary_type(u: UnaryOp) -> &'static str {
    match u {
        UnaryOp::Not => "4x8xi1",
        UnaryOp::Popcnt | UnaryOp::CountLeadingZeros => "4x8xi32",
        _ => "4x8xf32",
    }
}

fn binary_type(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => "4x8xi32",
        _ => "4x8xf32",
    }
}

/// An instance of every op kind, and several of the interesting ones.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for &u in UnaryOp::ALL {
        cases.push(case(&[unary_type(u)], |b, a| b.unary(u, a[0])));
    }
    for &op in BinaryOp::ALL {
        let ty = binary_type(op);
        cases.push(case(&[ty, ty], |b, a| b.binary(op, a[0], a[1])));
    }
    let lt = OpKind::Compare {
        direction: ComparisonDirection::Lt,
        compare_type: Some(ComparisonType::Float),
    };
    cases.push(case(&["4x8xf32", "4x8xf32"], |b, a| {
        b.push1(lt, &[a[0], a[1]])
    }));
    cases.push(case(&["4x8xi1", "4x8xf32", "4x8xf32"], |b, a| {
        b.push1(OpKind::Select, &a[..3])
    }));
    cases.push(case(&["i1", "4x8xf32", "4x8xf32"], |b, a| {
        b.push1(OpKind::Select, &a[..3])
    }));
    cases.push(case(&["4x8xf32", "4x8xf32", "4x8xf32"], |b, a| {
        b.push1(OpKind::Clamp, &a[..3])
    }));
    cases.push(case(&["f32", "4x8xf32", "f32"], |b, a| {
        b.push1(OpKind::Clamp, &a[..3])
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1_typed(OpKind::Convert, &[a[0]], t("4x8xbf16"))
    }));
    cases.push(case(&["f32"], |b, a| {
        b.push1_typed(OpKind::Convert, &[a[0]], t("i32"))
    }));
    // bitcast_convert: equal widths keep the shape; narrowing adds a dimension; widening
    // takes the last one.
    cases.push(case(&["4x8xui32"], |b, a| {
        b.push1_typed(OpKind::BitcastConvert, &[a[0]], t("4x8xf32"))
    }));
    cases.push(case(&["4xui64"], |b, a| {
        b.push1_typed(OpKind::BitcastConvert, &[a[0]], t("4x2xui32"))
    }));
    cases.push(case(&["4x2xui32"], |b, a| {
        b.push1_typed(OpKind::BitcastConvert, &[a[0]], t("4xf64"))
    }));

    // broadcast_in_dim: a new major dimension; a size-1 dimension expanded; a scalar;
    // every kind of dimension at once (Shardy's test); a size-1 dimension kept.
    let bcast = |dims: &[usize]| OpKind::BroadcastInDim {
        dims: dims.to_vec(),
    };
    cases.push(case(&["8xf32"], |b, a| {
        b.push1_typed(bcast(&[1]), &[a[0]], t("4x8xf32"))
    }));
    cases.push(case(&["1x8xf32"], |b, a| {
        b.push1_typed(bcast(&[0, 1]), &[a[0]], t("4x8xf32"))
    }));
    cases.push(case(&["f32"], |b, a| {
        b.push1_typed(bcast(&[]), &[a[0]], t("2x3xf32"))
    }));
    cases.push(case(&["2x3x5x1x7xf32"], |b, a| {
        b.push1_typed(bcast(&[0, 2, 1, 3, 4]), &[a[0]], t("2x5x3x11x7x13xf32"))
    }));
    cases.push(case(&["2x13x1xf32"], |b, a| {
        b.push1_typed(bcast(&[0, 2, 3]), &[a[0]], t("2x64x13x1xf32"))
    }));

    // sharding_constraint and func.call.
    let constraint = OpKind::ShardingConstraint(Sharding::split("mesh", &[&["data"], &[]]));
    cases.push(case(&["8x16xf32"], |b, a| b.push1(constraint, &[a[0]])));
    cases.push(case(&["8x16xf32"], |b, a| {
        let call = OpKind::Call {
            callee: "helper".to_string(),
        };
        let op = b.push(call, &[a[0]], Some(&[t("8x16xf32")]), Vec::new())?;
        Ok(b.func().op(op).results[0])
    }));

    // Per-device ops of partitioned programs: no rule (propagation reads global programs).
    let groups = || shardc_ir::ReplicaGroups(vec![vec![0, 1], vec![2, 3]]);
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1_typed(
            OpKind::AllGather {
                dim: 0,
                groups: groups(),
            },
            &[a[0]],
            t("8x8xf32"),
        )
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        let acc = b.begin_block(&[t("f32"), t("f32")]);
        let sum = b.binary(shardc_ir::BinaryOp::Add, acc[0], acc[1])?;
        let body = b.end_block(&[sum]);
        let op = b.push(
            OpKind::AllReduce { groups: groups() },
            &[a[0]],
            Some(&[t("4x8xf32")]),
            vec![body],
        )?;
        Ok(b.func().op(op).results[0])
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        let acc = b.begin_block(&[t("f32"), t("f32")]);
        let sum = b.binary(shardc_ir::BinaryOp::Add, acc[0], acc[1])?;
        let body = b.end_block(&[sum]);
        let kind = OpKind::ReduceScatter {
            dim: 1,
            groups: groups(),
        };
        let op = b.push(kind, &[a[0]], Some(&[t("4x4xf32")]), vec![body])?;
        Ok(b.func().op(op).results[0])
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        let kind = OpKind::AllToAll {
            split_dim: 1,
            concat_dim: 0,
            groups: groups(),
        };
        b.push1_typed(kind, &[a[0]], t("8x4xf32"))
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1_typed(
            OpKind::ShardSlice {
                dim: 0,
                groups: groups(),
            },
            &[a[0]],
            t("2x8xf32"),
        )
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1(
            OpKind::CollectivePermute {
                pairs: vec![(0, 1), (1, 0)],
            },
            &[a[0]],
        )
    }));
    cases.push(case(&["f32"], |b, _| {
        b.push1_typed(OpKind::AxisIndex { groups: groups() }, &[], t("i64"))
    }));
    cases.push(case(&["f32"], |b, _| b.push1(OpKind::PartitionId, &[])));
    cases.push(case(&["2xui64"], |b, a| {
        let op = b.push(
            OpKind::RngBitGenerator {
                algorithm: shardc_ir::RngAlgorithm::Default,
            },
            &[a[0]],
            Some(&[t("2xui64"), t("16x6xui32")]),
            vec![],
        )?;
        Ok(b.func().op(op).results[1])
    }));

    // Linear algebra: a batch of matrices; solves with the right-hand sides on either side.
    cases.push(case(&["4x8x8xf32"], |b, a| {
        b.push1(OpKind::Cholesky { lower: true }, &[a[0]])
    }));
    for left_side in [true, false] {
        let rhs = if left_side { "4x8x3xf32" } else { "4x3x8xf32" };
        cases.push(case(&["4x8x8xf32", rhs], move |b, a| {
            b.push1(
                OpKind::TriangularSolve {
                    left_side,
                    lower: true,
                    unit_diagonal: false,
                    transpose_a: shardc_ir::SolveTranspose::Transpose,
                },
                &[a[0], a[1]],
            )
        }));
    }
    cases.push(case(&["4x8x6xf64"], |b, a| {
        let op = b.push(OpKind::Lu, &[a[0]], None, vec![])?;
        Ok(b.func().op(op).results[1])
    }));
    cases.push(case(
        &["4x8xf32", "4x8xf32", "4x8xf32", "4x8x3xf32"],
        |b, a| {
            let op = b.push(OpKind::TridiagonalSolve, &a[..4], None, vec![])?;
            Ok(b.func().op(op).results[3])
        },
    ));
    for (fft_type, shape, lengths) in [
        (FftType::Fft, "4x8x6x2xf32", vec![8, 6]),
        (FftType::Rfft, "4x8x6xf32", vec![8, 6]),
        (FftType::Irfft, "4x8x4x2xf32", vec![8, 6]),
    ] {
        cases.push(case(&[shape], move |b, a| {
            b.push1(
                OpKind::Fft {
                    fft_type,
                    lengths: lengths.clone(),
                },
                &[a[0]],
            )
        }));
    }
    cases.push(case(&["4x8x6xf32"], |b, a| {
        let op = b.push(OpKind::Geqrf, &[a[0]], None, vec![])?;
        Ok(b.func().op(op).results[1])
    }));
    cases.push(case(&["4x8x6xf32", "4x5xf32"], |b, a| {
        b.push1(OpKind::HouseholderProduct, &[a[0], a[1]])
    }));
    cases.push(case(&["4x6x6xf32"], |b, a| {
        let op = b.push(OpKind::Eigh { lower: true }, &[a[0]], None, vec![])?;
        Ok(b.func().op(op).results[1])
    }));
    cases.push(case(&["4x8x6xf64"], |b, a| {
        let op = b.push(
            OpKind::Svd {
                full_matrices: true,
            },
            &[a[0]],
            None,
            vec![],
        )?;
        Ok(b.func().op(op).results[1])
    }));

    // concatenate: unrelated operands; two slices of one tensor (a roll); a slice and
    // the tensor itself; a single operand.
    let concat = |dimension| OpKind::Concatenate { dimension };
    cases.push(case(&["4x3x256xf32", "4x5x256xf32"], |b, a| {
        b.push1(concat(1), &[a[0], a[1]])
    }));
    cases.push(case(&["4x40x256xf32"], |b, a| {
        let lo = slice(b, a[0], &[0, 0, 0], &[4, 10, 256])?;
        let hi = slice(b, a[0], &[0, 10, 0], &[4, 40, 256])?;
        b.push1(concat(1), &[hi, lo])
    }));
    cases.push(case(&["4x64xf32"], |b, a| {
        let s = slice(b, a[0], &[0, 0], &[2, 64])?;
        b.push1(concat(0), &[s, a[0]])
    }));
    cases.push(case(&["4x8xf32"], |b, a| b.push1(concat(1), &[a[0]])));

    // constant: dense and scalar.
    cases.push(case(&[], |b, _| {
        Ok(b.constant(Literal::from_f64(
            DType::F32,
            &[2, 3],
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        )?))
    }));
    cases.push(case(&[], |b, _| Ok(zero(b, DType::F32))));

    // dot_general: matmul; batched; two contracting dimensions; matrix-vector; Shardy's
    // test with every kind of dimension, out of order.
    cases.push(case(&["8x32xf32", "32x16xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[], &[], &[1], &[0]))
    }));
    cases.push(case(&["4x8x32xf32", "4x32x16xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[0], &[0], &[2], &[1]))
    }));
    cases.push(case(&["8x4x32xf32", "4x32x16xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[], &[], &[1, 2], &[0, 1]))
    }));
    cases.push(case(&["8x32xf32", "32xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[], &[], &[1], &[0]))
    }));
    cases.push(case(&["2x4x8x4x64x32xf32", "16x32x64x4x2xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[0, 1], &[4, 3], &[5, 4], &[1, 2]))
    }));

    // gather: an embedding lookup as jnp.take emits it (index vector of one component);
    // the same with implicit index vectors; a batched gather (operand batching dims);
    // Shardy's test with whole, size-1 and partial slices.
    let embedding = |index_vector_dim| {
        OpKind::Gather(GatherDims {
            offset_dims: vec![2],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0],
            index_vector_dim,
            slice_sizes: vec![1, 64],
            ..GatherDims::default()
        })
    };
    cases.push(case(&["1000x64xf32", "8x16x1xi32"], |b, a| {
        b.push1(embedding(2), &[a[0], a[1]])
    }));
    cases.push(case(&["1000x64xf32", "8x16xi32"], |b, a| {
        b.push1(embedding(2), &[a[0], a[1]])
    }));
    let batched = OpKind::Gather(GatherDims {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        start_index_map: vec![1],
        index_vector_dim: 2,
        slice_sizes: vec![1, 1, 8],
        indices_are_sorted: false,
    });
    cases.push(case(&["4x10x8xf32", "4x5x1xi32"], |b, a| {
        b.push1(batched, &[a[0], a[1]])
    }));
    let partial = OpKind::Gather(GatherDims {
        offset_dims: vec![2, 3, 4],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![1, 0, 3],
        index_vector_dim: 2,
        slice_sizes: vec![1, 2, 2, 1],
        ..GatherDims::default()
    });
    cases.push(case(&["3x4x2x5xf32", "2x3x3xi64"], |b, a| {
        b.push1(partial, &[a[0], a[1]])
    }));

    // iota: along the only dimension; along the minor one.
    cases.push(case(&[], |b, _| {
        b.push1_typed(OpKind::Iota { dimension: 0 }, &[], t("8xi32"))
    }));
    cases.push(case(&[], |b, _| {
        b.push1_typed(OpKind::Iota { dimension: 1 }, &[], t("4x8xf32"))
    }));

    // pad: edge padding and cropping (Shardy's test); a shift that keeps the size;
    // interior padding; no padding.
    cases.push(case(&["28x28x16xf32", "f32"], |b, a| {
        b.push1(pad(&[1, -1, 0], &[1, -1, 0], &[0, 0, 0]), &[a[0], a[1]])
    }));
    cases.push(case(&["8x4xf32", "f32"], |b, a| {
        b.push1(pad(&[1, 0], &[-1, 0], &[0, 0]), &[a[0], a[1]])
    }));
    cases.push(case(&["4x8xf32", "f32"], |b, a| {
        b.push1(pad(&[0, 0], &[0, 0], &[1, 0]), &[a[0], a[1]])
    }));
    cases.push(case(&["4x8xf32", "f32"], |b, a| {
        b.push1(pad(&[0, 0], &[0, 0], &[0, 0]), &[a[0], a[1]])
    }));

    // random.
    let random = OpKind::Random {
        distribution: Distribution::Uniform,
    };
    cases.push(case(&["i64"], |b, a| {
        b.push1_typed(random, &[a[0]], t("4x8xf32"))
    }));

    // rotate: by one along the leading dimension (a pipeline's shift); by -1, which is a
    // rotation by 3 of 4; by a multiple of the size, which moves nothing.
    for shift in [1, -1, 8] {
        cases.push(case(&["4x8x16xf32"], move |b, a| {
            b.push1(
                OpKind::Rotate {
                    dimension: 0,
                    shift,
                },
                &[a[0]],
            )
        }));
    }

    // reduce: sum, max, min, product, and, or; several dimensions; to a scalar;
    // argmax (two inputs, a general body); a single input with a general body.
    for (op, ty, dims) in [
        (BinaryOp::Add, "2x64x13xf32", vec![1]),
        (BinaryOp::Maximum, "2x64x13xf32", vec![0, 2]),
        (BinaryOp::Minimum, "4x8xf32", vec![0, 1]),
        (BinaryOp::Multiply, "4x8xf32", vec![1]),
        (BinaryOp::And, "4x8xi1", vec![1]),
        (BinaryOp::Or, "4x8xi1", vec![0]),
    ] {
        cases.push(case(&[ty], |b, a| {
            let dtype = b.ty(a[0]).dtype;
            let init = zero(b, dtype);
            b.reduce(a[0], init, &dims, op)
        }));
    }
    cases.push(case(&["4x8xf32"], |b, a| argmax(b, a[0])));
    cases.push(case(&["4x8xf32"], |b, a| reduce_subtract(b, a[0])));

    // dynamic_slice of one row of a [4, 16, 16] stack (a scan's layer), and a
    // dynamic_update_slice writing two rows of a [16, 16] cache.
    cases.push(case(&["4x16x16xf32", "i32", "i32", "i32"], |b, a| {
        b.push1(
            OpKind::DynamicSlice {
                sizes: vec![1, 16, 16],
            },
            &[a[0], a[1], a[2], a[3]],
        )
    }));
    cases.push(case(&["16x16xf32", "2x16xf32", "i32", "i32"], |b, a| {
        b.push1(OpKind::DynamicUpdateSlice, &[a[0], a[1], a[2], a[3]])
    }));

    // reduce_window: a cumsum along dimension 1 (window over all of it, padded below),
    // 2x2 max pooling with stride 2 on the last two dimensions of an NHW tensor.
    cases.push(case(&["4x8xf32"], |b, a| {
        let init = zero(b, DType::F32);
        let w = WindowDims {
            window: vec![1, 8],
            strides: vec![1, 1],
            base_dilations: vec![1, 1],
            window_dilations: vec![1, 1],
            padding: vec![(0, 0), (7, 0)],
        };
        b.reduce_window(a[0], init, w, BinaryOp::Add)
    }));
    cases.push(case(&["2x8x8xf32"], |b, a| {
        let init = zero(b, DType::F32);
        let w = WindowDims {
            window: vec![1, 2, 2],
            strides: vec![1, 2, 2],
            base_dilations: vec![1, 1, 1],
            window_dilations: vec![1, 1, 1],
            padding: vec![(0, 0); 3],
        };
        b.reduce_window(a[0], init, w, BinaryOp::Maximum)
    }));

    // reshape: split, merge, one dimension into two, split and merge at once, no common
    // digit, swapped digits, size-1 dimensions, to a scalar, an empty tensor.
    for (from, to) in [
        ("4x8x16xf32", "4x8x4x4xf32"),
        ("2x4xf32", "8xf32"),
        ("6xf32", "2x3xf32"),
        ("8x4x5xf32", "2x16x5xf32"),
        ("2x3xf32", "3x2xf32"),
        ("6x4xf32", "4x6xf32"),
        ("1x8x4xf32", "8x1x4x1xf32"),
        ("1x1xf32", "f32"),
        ("0x4xf32", "4x0xf32"),
    ] {
        cases.push(case(&[from], |b, a| {
            b.push1_typed(OpKind::Reshape, &[a[0]], t(to))
        }));
    }

    // slice: a strided slice of two dimensions (Shardy's test); one dimension cut.
    cases.push(case(&["32x4x8xf32"], |b, a| {
        let kind = OpKind::Slice {
            start: vec![0, 1, 0],
            limit: vec![32, 2, 8],
            strides: vec![1, 1, 4],
        };
        b.push1(kind, &[a[0]])
    }));
    cases.push(case(&["8x16xf32"], |b, a| {
        slice(b, a[0], &[0, 4], &[8, 12])
    }));

    // scatter: an embedding's gradient (rows added at [8, 8] indices: the update scatter
    // dimensions are sum reductions, the row a pass-through window dimension), and a
    // `.at[i].set(v)` (replacing: its scatter dimension needs replication).
    let scatter = |b: &mut FunctionBuilder,
                   a: &[ValueId],
                   dims: ScatterDims,
                   add: bool|
     -> Result<ValueId, IrError> {
        let s = t("f32");
        let args = b.begin_block(&[s.clone(), s]);
        let r = if add {
            b.binary(BinaryOp::Add, args[0], args[1])?
        } else {
            args[1]
        };
        let body = b.end_block(&[r]);
        let ty = b.ty(a[0]).clone();
        let op = b.push(
            OpKind::Scatter(dims),
            &[a[0], a[1], a[2]],
            Some(&[ty]),
            vec![body],
        )?;
        Ok(b.func().op(op).results[0])
    };
    cases.push(case(&["32x16xf32", "8x8x1xi32", "8x8x16xf32"], |b, a| {
        let dims = ScatterDims {
            update_window_dims: vec![2],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 2,
            ..ScatterDims::default()
        };
        scatter(b, a, dims, true)
    }));
    cases.push(case(&["4x10xf32", "4x3xi32", "4x3xf32"], |b, a| {
        let dims = ScatterDims {
            inserted_window_dims: vec![1],
            input_batching_dims: vec![0],
            scatter_indices_batching_dims: vec![0],
            scatter_dims_to_operand_dims: vec![1],
            index_vector_dim: 2,
            ..ScatterDims::default()
        };
        scatter(b, a, dims, false)
    }));

    // sort: values and their positions along dimension 1 (the sorted dimension needs
    // replication; the rows pass through).
    cases.push(case(&["4x8xf32", "4x8xi32"], |b, a| {
        let (s, i) = (t("f32"), t("i32"));
        let args = b.begin_block(&[s.clone(), s, i.clone(), i]);
        let lt = b.push1(
            OpKind::Compare {
                direction: ComparisonDirection::Lt,
                compare_type: Some(ComparisonType::TotalOrder),
            },
            &[args[0], args[1]],
        )?;
        let body = b.end_block(&[lt]);
        let kind = OpKind::Sort {
            dimension: 1,
            is_stable: true,
        };
        let op = b.push(kind, &[a[0], a[1]], None, vec![body])?;
        Ok(b.func().op(op).results[1])
    }));

    // convolution: Flax's NHWC x HWIO 3x3 "SAME" convolution (batch passes through, input
    // features a sum, spatial dimensions permute); a 1x1 one (spatial pass through).
    let conv3 = |pad: i64| {
        OpKind::Convolution(shardc_ir::ConvDims {
            input_batch: 0,
            input_feature: 3,
            input_spatial: vec![1, 2],
            kernel_input_feature: 2,
            kernel_output_feature: 3,
            kernel_spatial: vec![0, 1],
            output_batch: 0,
            output_feature: 3,
            output_spatial: vec![1, 2],
            window_strides: vec![1, 1],
            padding: vec![(pad, pad); 2],
            lhs_dilation: vec![1, 1],
            rhs_dilation: vec![1, 1],
            window_reversal: vec![false, false],
            feature_group_count: 1,
            batch_group_count: 1,
            precision: vec![],
        })
    };
    cases.push(case(&["8x6x6x3xf32", "3x3x3x4xf32"], |b, a| {
        b.push1(conv3(1), &[a[0], a[1]])
    }));
    cases.push(case(&["8x6x6x3xf32", "1x1x3x4xf32"], |b, a| {
        b.push1(conv3(0), &[a[0], a[1]])
    }));
    // select_and_scatter: a 2x2 max pool's gradient on an NHWC tensor.
    cases.push(case(&["8x4x4x2xf32", "8x2x2x2xf32", "f32"], |b, a| {
        let s = t("f32");
        let args = b.begin_block(&[s.clone(), s.clone()]);
        let ge = b.push1(
            OpKind::Compare {
                direction: ComparisonDirection::Ge,
                compare_type: None,
            },
            &[args[0], args[1]],
        )?;
        let select = b.end_block(&[ge]);
        let args = b.begin_block(&[s.clone(), s]);
        let sum = b.binary(BinaryOp::Add, args[0], args[1])?;
        let scatter = b.end_block(&[sum]);
        let w = WindowDims {
            window: vec![1, 2, 2, 1],
            strides: vec![1, 2, 2, 1],
            base_dilations: vec![1; 4],
            window_dilations: vec![1; 4],
            padding: vec![(0, 0); 4],
        };
        let op = b.push(
            OpKind::SelectAndScatter(w),
            &[a[0], a[1], a[2]],
            None,
            vec![select, scatter],
        )?;
        Ok(b.func().op(op).results[0])
    }));

    // manual computation (shard_map): its rule says nothing splits; propagation takes its
    // shardings as they are instead.
    cases.push(case(&["8x4xf32"], |b, a| {
        let args = b.begin_block(&[t("1x4xf32")]);
        let n = b.unary(UnaryOp::Negate, args[0])?;
        let body = b.end_block(&[n]);
        let s = Sharding::new(
            "mesh",
            vec![
                shardc_ir::DimSharding::axes(&["data"]),
                shardc_ir::DimSharding::closed(),
            ],
        );
        let kind = OpKind::ManualComputation {
            in_shardings: vec![s.clone()],
            out_shardings: vec![s],
            manual_axes: vec!["data".into()],
        };
        let op = b.push(kind, &[a[0]], Some(&[t("8x4xf32")]), vec![body])?;
        Ok(b.func().op(op).results[0])
    }));

    // while: a counter and a matrix carried, a vector captured; everything whole.
    cases.push(case(&["i32", "4x8xf32", "8xf32"], |b, a| {
        let carried = [t("i32"), t("4x8xf32")];
        let args = b.begin_block(&carried);
        let ten = b.constant(Literal::scalar(DType::I32, Scalar::Int(10)));
        let go = b.push1(
            OpKind::Compare {
                direction: ComparisonDirection::Lt,
                compare_type: None,
            },
            &[args[0], ten],
        )?;
        let cond = b.end_block(&[go]);
        let args = b.begin_block(&carried);
        let one = b.constant(Literal::scalar(DType::I32, Scalar::Int(1)));
        let i = b.binary(BinaryOp::Add, args[0], one)?;
        let row = b.push1_typed(
            OpKind::BroadcastInDim { dims: vec![1] },
            &[a[2]],
            t("4x8xf32"),
        )?;
        let x = b.binary(BinaryOp::Add, args[1], row)?;
        let body = b.end_block(&[i, x]);
        let op = b.push_region_op(
            OpKind::While,
            &[a[0], a[1]],
            Some(&carried),
            vec![cond, body],
        )?;
        Ok(b.func().op(op).results[1])
    }));
    // case: two branches reading a captured matrix.
    cases.push(case(&["i32", "4x8xf32"], |b, a| {
        b.begin_block(&[]);
        let n = b.unary(UnaryOp::Negate, a[1])?;
        let first = b.end_block(&[n]);
        b.begin_block(&[]);
        let second = b.end_block(&[a[1]]);
        let op = b.push_region_op(
            OpKind::Case,
            &[a[0]],
            Some(&[t("4x8xf32")]),
            vec![first, second],
        )?;
        Ok(b.func().op(op).results[0])
    }));
    // optimization_barrier: each operand passes through to its result.
    cases.push(case(&["4x8xf32", "16xf32"], |b, a| {
        let op = b.push(OpKind::OptimizationBarrier, &[a[0], a[1]], None, Vec::new())?;
        Ok(b.func().op(op).results[1])
    }));

    // reverse: the reversed dimension permutes, the other passes through.
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1(
            OpKind::Reverse {
                dimensions: vec![1],
            },
            &[a[0]],
        )
    }));

    // transpose: Shardy's test; a matrix.
    let transpose = |p: &[usize]| OpKind::Transpose {
        permutation: p.to_vec(),
    };
    cases.push(case(&["256x32x64x100xf32"], |b, a| {
        b.push1(transpose(&[3, 1, 0, 2]), &[a[0]])
    }));
    cases.push(case(&["4x8xf32"], |b, a| {
        b.push1(transpose(&[1, 0]), &[a[0]])
    }));
    cases
}

/// The family of an op kind. Exhaustive on purpose: a new `OpKind` variant does not
/// compile here until it is named, and `every_op_has_a_rule` then fails until `cases`
/// builds an instance of it.
fn family(kind: &OpKind) -> &'static str {
    match kind {
        OpKind::Unary(_) => "unary",
        OpKind::Binary(_) => "binary",
        OpKind::Compare { .. } => "compare",
        OpKind::Select => "select",
        OpKind::Clamp => "clamp",
        OpKind::Constant(_) => "constant",
        OpKind::Iota { .. } => "iota",
        OpKind::Convert => "convert",
        OpKind::BitcastConvert => "bitcast_convert",
        OpKind::BroadcastInDim { .. } => "broadcast_in_dim",
        OpKind::Reshape => "reshape",
        OpKind::Transpose { .. } => "transpose",
        OpKind::Slice { .. } => "slice",
        OpKind::Concatenate { .. } => "concatenate",
        OpKind::Pad { .. } => "pad",
        OpKind::DotGeneral(_) => "dot_general",
        OpKind::Reduce { .. } => "reduce",
        OpKind::Gather(_) => "gather",
        OpKind::Scatter(_) => "scatter",
        OpKind::Sort { .. } => "sort",
        OpKind::Reverse { .. } => "reverse",
        OpKind::Convolution(_) => "convolution",
        OpKind::SelectAndScatter(_) => "select_and_scatter",
        OpKind::ReduceWindow(_) => "reduce_window",
        OpKind::DynamicSlice { .. } => "dynamic_slice",
        OpKind::DynamicUpdateSlice => "dynamic_update_slice",
        OpKind::Random { .. } => "random",
        OpKind::Rotate { .. } => "rotate",
        OpKind::Call { .. } => "call",
        OpKind::While => "while",
        OpKind::Case => "case",
        OpKind::OptimizationBarrier => "optimization_barrier",
        OpKind::ManualComputation { .. } => "manual_computation",
        OpKind::ShardingConstraint(_) => "sharding_constraint",
        OpKind::AllGather { .. } => "all_gather",
        OpKind::AllReduce { .. } => "all_reduce",
        OpKind::ReduceScatter { .. } => "reduce_scatter",
        OpKind::AllToAll { .. } => "all_to_all",
        OpKind::ShardSlice { .. } => "shard_slice",
        OpKind::AxisIndex { .. } => "axis_index",
        OpKind::CollectivePermute { .. } => "collective_permute",
        OpKind::PartitionId => "partition_id",
        OpKind::RngBitGenerator { .. } => "rng_bit_generator",
        OpKind::Cholesky { .. } => "cholesky",
        OpKind::TriangularSolve { .. } => "triangular_solve",
        OpKind::Lu => "lu",
        OpKind::TridiagonalSolve => "tridiagonal_solve",
        OpKind::Fft { .. } => "fft",
        OpKind::Geqrf => "geqrf",
        OpKind::HouseholderProduct => "householder_product",
        OpKind::Eigh { .. } => "eigh",
        OpKind::Svd { .. } => "svd",
    }
}

const FAMILIES: [&str; 52] = [
    "fft",
    "geqrf",
    "householder_product",
    "tridiagonal_solve",
    "eigh",
    "svd",
    "cholesky",
    "triangular_solve",
    "lu",
    "collective_permute",
    "partition_id",
    "rng_bit_generator",
    "all_gather",
    "all_reduce",
    "reduce_scatter",
    "all_to_all",
    "shard_slice",
    "axis_index",
    "unary",
    "binary",
    "compare",
    "select",
    "clamp",
    "constant",
    "iota",
    "convert",
    "bitcast_convert",
    "broadcast_in_dim",
    "reshape",
    "transpose",
    "slice",
    "concatenate",
    "pad",
    "dot_general",
    "reduce",
    "gather",
    "scatter",
    "sort",
    "reverse",
    "convolution",
    "select_and_scatter",
    "reduce_window",
    "dynamic_slice",
    "dynamic_update_slice",
    "random",
    "rotate",
    "call",
    "while",
    "case",
    "optimization_barrier",
    "manual_computation",
    "sharding_constraint",
];

fn list<T: std::fmt::Debug>(xs: &[T]) -> String {
    format!("{xs:?}")
}

/// The op's attributes as this test writes them (the text printer is written elsewhere).
fn attributes(f: &Function, op: &Op) -> String {
    if let Some(groups) = op.kind.replica_groups() {
        return format!(" groups = {}", list(&groups.0));
    }
    match &op.kind {
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert
        | OpKind::BitcastConvert
        | OpKind::Reshape => String::new(),
        OpKind::Compare {
            direction,
            compare_type,
        } => match compare_type {
            Some(ct) => format!(" {}, {}", direction.name(), ct.name()),
            None => format!(" {}", direction.name()),
        },
        OpKind::Constant(lit) => format!(" dense<{}>", list(&lit.to_f64_vec())),
        OpKind::Iota { dimension } => format!(" dim = {dimension}"),
        OpKind::BroadcastInDim { dims } => format!(" dims = {}", list(dims)),
        OpKind::Transpose { permutation } => format!(" dims = {}", list(permutation)),
        OpKind::Reverse { dimensions } => format!(" dims = {}", list(dimensions)),
        OpKind::Slice {
            start,
            limit,
            strides,
        } => {
            let dims: Vec<String> = (0..start.len())
                .map(|d| format!("{}:{}:{}", start[d], limit[d], strides[d]))
                .collect();
            format!(" [{}]", dims.join(", "))
        }
        OpKind::Concatenate { dimension } => {
            let sources: Vec<String> = op
                .operands
                .iter()
                .map(|&v| match f.defining_op(v) {
                    Some(id) => format!(
                        "{}({})",
                        f.op(id).kind.name(),
                        f.value_names()[f.op(id).operands[0].index()]
                    ),
                    None => f.value_names()[v.index()].clone(),
                })
                .collect();
            format!(" dim = {} of [{}]", dimension, sources.join(", "))
        }
        OpKind::Pad {
            low,
            high,
            interior,
        } => {
            format!(
                " low = {}, high = {}, interior = {}",
                list(low),
                list(high),
                list(interior)
            )
        }
        OpKind::DotGeneral(d) => format!(
            " batching_dims = {} x {}, contracting_dims = {} x {}",
            list(&d.lhs_batch),
            list(&d.rhs_batch),
            list(&d.lhs_contracting),
            list(&d.rhs_contracting)
        ),
        OpKind::Reduce { dimensions } => {
            let body = f.block(op.regions[0]);
            let ops: Vec<String> = body.ops.iter().map(|&id| f.op(id).kind.name()).collect();
            format!(" dims = {} body {{{}}}", list(dimensions), ops.join("; "))
        }
        OpKind::DynamicSlice { sizes } => format!(" sizes = {}", list(sizes)),
        OpKind::DynamicUpdateSlice => String::new(),
        OpKind::ReduceWindow(w) => {
            let body = f.block(op.regions[0]);
            let ops: Vec<String> = body.ops.iter().map(|&id| f.op(id).kind.name()).collect();
            format!(
                " window = {}, strides = {}, padding = {} body {{{}}}",
                list(&w.window),
                list(&w.strides),
                list(&w.padding),
                ops.join("; ")
            )
        }
        OpKind::Gather(g) => format!(
            " offset_dims = {}, collapsed_slice_dims = {}, operand_batching_dims = {}, start_indices_batching_dims = {}, start_index_map = {}, index_vector_dim = {}, slice_sizes = {}",
            list(&g.offset_dims),
            list(&g.collapsed_slice_dims),
            list(&g.operand_batching_dims),
            list(&g.start_indices_batching_dims),
            list(&g.start_index_map),
            g.index_vector_dim,
            list(&g.slice_sizes)
        ),
        OpKind::Scatter(d) => format!(
            " update_window_dims = {}, inserted_window_dims = {}, input_batching_dims = {}, scatter_indices_batching_dims = {}, scatter_dims_to_operand_dims = {}, index_vector_dim = {} body {{{}}}",
            list(&d.update_window_dims),
            list(&d.inserted_window_dims),
            list(&d.input_batching_dims),
            list(&d.scatter_indices_batching_dims),
            list(&d.scatter_dims_to_operand_dims),
            d.index_vector_dim,
            f.block(op.regions[0])
                .ops
                .iter()
                .map(|&id| f.op(id).kind.name())
                .collect::<Vec<_>>()
                .join("; ")
        ),
        OpKind::Sort {
            dimension,
            is_stable,
        } => format!(" dim = {dimension}, stable = {is_stable}"),
        OpKind::Convolution(d) => format!(
            " input b{} f{} s{}, kernel i{} o{} s{}, output b{} f{} s{}, pad = {}",
            d.input_batch,
            d.input_feature,
            list(&d.input_spatial),
            d.kernel_input_feature,
            d.kernel_output_feature,
            list(&d.kernel_spatial),
            d.output_batch,
            d.output_feature,
            list(&d.output_spatial),
            list(&d.padding)
        ),
        OpKind::SelectAndScatter(w) => format!(
            " window = {}, strides = {}",
            list(&w.window),
            list(&w.strides)
        ),
        OpKind::Random { distribution } => format!(" {}", distribution.name()),
        OpKind::Rotate { dimension, shift } => format!(" dim = {dimension}, shift = {shift}"),
        OpKind::Call { callee } => format!(" @{callee}"),
        OpKind::While | OpKind::Case => format!(
            " {} region(s), {} captured",
            op.regions.len(),
            op.captured_operands().len()
        ),
        OpKind::OptimizationBarrier => String::new(),
        OpKind::ManualComputation { manual_axes, .. } => {
            format!(" manual_axes = {}", list(manual_axes))
        }
        OpKind::ShardingConstraint(s) => format!(" {s}"),
        OpKind::AllGather { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. }
        | OpKind::AllToAll { .. }
        | OpKind::ShardSlice { .. }
        | OpKind::AxisIndex { .. } => unreachable!("printed above, with their groups"),
        OpKind::CollectivePermute { pairs } => format!(" pairs = {}", list(pairs)),
        OpKind::PartitionId => String::new(),
        OpKind::RngBitGenerator { algorithm } => format!(" algorithm = {}", algorithm.name()),
        OpKind::Cholesky { lower } => format!(" lower = {lower}"),
        OpKind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        } => format!(
            " left_side = {left_side}, lower = {lower}, unit_diagonal = {unit_diagonal}, transpose_a = {}",
            transpose_a.name()
        ),
        OpKind::Eigh { lower } => format!(" lower = {lower}"),
        OpKind::Svd { full_matrices } => format!(" full_matrices = {full_matrices}"),
        OpKind::Lu | OpKind::TridiagonalSolve | OpKind::Geqrf | OpKind::HouseholderProduct => {
            String::new()
        }
        OpKind::Fft { fft_type, lengths } => format!(" {} {}", fft_type.name(), list(lengths)),
    }
}

/// `op-name attributes (operand types) -> (result types)`.
fn describe(f: &Function, op: &Op) -> String {
    let types = |vs: &[ValueId]| {
        vs.iter()
            .map(|&v| f.ty(v).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{}{} ({}) -> ({})",
        op.kind.name(),
        attributes(f, op),
        types(&op.operands),
        types(&op.results)
    )
}

#[test]
fn every_op_has_a_rule() {
    let cases = cases();
    let covered: BTreeSet<&str> = cases.iter().map(|c| family(&c.op().kind)).collect();
    let families: BTreeSet<&str> = FAMILIES.into_iter().collect();
    assert_eq!(
        covered, families,
        "every OpKind variant needs an instance in `cases`"
    );
    let unary: HashSet<UnaryOp> = cases
        .iter()
        .filter_map(|c| match c.op().kind {
            OpKind::Unary(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(unary.len(), UnaryOp::ALL.len());
    let binary: HashSet<BinaryOp> = cases
        .iter()
        .filter_map(|c| match c.op().kind {
            OpKind::Binary(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(binary.len(), BinaryOp::ALL.len());

    let mut lines = Vec::new();
    for c in &cases {
        let rule = c.rule();
        let text = match &rule {
            Ok(rule) => rule.to_string(),
            Err(e) => format!("error: {e}"),
        };
        lines.push(format!("{} : {text}", describe(&c.f, c.op())));
        match (family(&c.op().kind), rule) {
            ("call", rule) => assert!(matches!(rule, Err(RuleError::NoRule { .. })), "{rule:?}"),
            (_, rule) if c.op().kind.is_per_device() => {
                assert!(matches!(rule, Err(RuleError::NoRule { .. })), "{rule:?}")
            }
            (_, Err(e)) => panic!("{}: {e}", describe(&c.f, c.op())),
            (_, Ok(rule)) => {
                // The rule round-trips through serde.
                let json = serde_json::to_string(&rule).expect("rules serialize");
                let back: OpRule = serde_json::from_str(&json).expect("rules deserialize");
                assert_eq!(back, rule);
                // Elementwise ops are the identity on every non-scalar tensor.
                if c.op().kind.is_elementwise() {
                    for (tensor, mapping) in rule.tensors() {
                        for (d, factors) in mapping.iter().enumerate() {
                            assert_eq!(
                                factors,
                                &[FactorId::from_index(d)],
                                "{tensor} of {}",
                                describe(&c.f, c.op())
                            );
                        }
                    }
                    assert!(
                        rule.factors
                            .iter()
                            .all(|f| f.kind == FactorKind::PassThrough)
                    );
                }
            }
        }
    }
    insta::assert_snapshot!("every_op", lines.join("\n"));
}

fn rule_of(
    args: &[&str],
    build: impl FnOnce(&mut FunctionBuilder, &[ValueId]) -> Result<ValueId, IrError>,
) -> OpRule {
    case(args, build).rule().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn call_has_no_rule() {
    let c = case(&["8x16xf32"], |b, a| {
        let x = b.unary(UnaryOp::Tanh, a[0])?;
        let call = OpKind::Call {
            callee: "mlp_block".to_string(),
        };
        let op = b.push(call, &[x], Some(&[t("8x16xf32")]), Vec::new())?;
        Ok(b.func().op(op).results[0])
    });
    let err = c.rule().unwrap_err();
    assert_eq!(
        err.to_string(),
        "func.call defining %1 in @case has no sharding rule: the shardings of a call's results follow from \
         the body of @mlp_block, which propagation does not see through a call; inline @mlp_block first \
         (the compiler inlines every call before propagation)"
    );
}

#[test]
fn malformed_ops_are_errors_not_rules() {
    // A reduce without its reducer region.
    let c = case(&["4x8xf32"], |b, a| {
        let init = zero(b, DType::F32);
        let op = b.push(
            OpKind::Reduce {
                dimensions: vec![1],
            },
            &[a[0], init],
            None,
            Vec::new(),
        )?;
        Ok(b.func().op(op).results[0])
    });
    assert_eq!(
        c.rule().unwrap_err().to_string(),
        "stablehlo.reduce defining %1 in @case is malformed, so it has no sharding rule: needs exactly one \
         reducer region of its function, has 0; give the reduce one reducer block"
    );

    // An op whose declared result type breaks its typing rule.
    let mut c = case(&["4x8xf32", "4x8xf32"], |b, a| {
        b.binary(BinaryOp::Add, a[0], a[1])
    });
    let r = c.f.ops[c.op.index()].results[0];
    c.f.values[r.index()].ty = t("8x4xf32");
    let err = c.rule().unwrap_err();
    assert!(matches!(err, RuleError::InvalidOp { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("stablehlo.add defining %0 in @case is malformed"),
        "{err}"
    );

    // An op asked about in a function it does not belong to.
    let other = FunctionBuilder::new("other", &[]).finish(&[]);
    let err = op_rule(&other, c.op()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stablehlo.add defining an op in @other is malformed, so it has no sharding rule: its operand 0 is \
         value v0, which @other does not define; pass the function the op belongs to"
    );
}

#[test]
fn queries_on_a_matmul() {
    let rule = rule_of(&["8x32xf32", "32x16xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[], &[], &[1], &[0]))
    });
    assert_eq!(
        rule.to_string(),
        "([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}"
    );
    let [i, j, k] = [0, 1, 2].map(FactorId::from_index);
    assert_eq!((rule.size(i), rule.size(j), rule.size(k)), (8, 16, 32));
    assert_eq!(rule.kind(k), FactorKind::Reduction(Combiner::Sum));
    assert_eq!(
        rule.kind(k).combiner().and_then(Combiner::reduction),
        Some(shardc_ir::Reduction::Sum)
    );
    assert!(rule.kind(i).is_pass_through());
    assert_eq!(rule.factors_where(FactorKind::is_reduction), vec![k]);
    assert!(
        rule.factors_where(FactorKind::is_need_replication)
            .is_empty()
    );
    assert_eq!(rule.operand(1), Some(&vec![vec![k], vec![j]]));
    assert_eq!(rule.result(0), Some(&vec![vec![i], vec![j]]));
    assert_eq!(rule.operand(2), None);
    assert_eq!(rule.dim_factors(TensorRef::Operand(0), 1), Some(&[k][..]));
    assert_eq!(rule.dim_factors(TensorRef::Result(0), 2), None);
    let at = |tensor, dim| FactorUse {
        tensor,
        dim,
        position: 0,
    };
    assert_eq!(
        rule.uses(k),
        vec![at(TensorRef::Operand(0), 1), at(TensorRef::Operand(1), 0)]
    );
    assert_eq!(
        rule.uses(j),
        vec![at(TensorRef::Operand(1), 1), at(TensorRef::Result(0), 1)]
    );
    assert_eq!(rule.use_in(k, TensorRef::Result(0)), None);
    assert_eq!(
        rule.use_in(i, TensorRef::Result(0)),
        Some(at(TensorRef::Result(0), 0))
    );
    let tensors: Vec<TensorRef> = rule.tensors().map(|(t, _)| t).collect();
    assert_eq!(
        tensors,
        [
            TensorRef::Operand(0),
            TensorRef::Operand(1),
            TensorRef::Result(0)
        ]
    );
}

#[test]
fn queries_on_compound_dimensions() {
    let rule = rule_of(&["4x8x16xf32"], |b, a| {
        b.push1_typed(OpKind::Reshape, &[a[0]], t("4x8x4x4xf32"))
    });
    assert_eq!(
        rule.to_string(),
        "([i, j, kl])->([i, j, k, l]) {i=4, j=8, k=4, l=4}"
    );
    let [k, l] = [2, 3].map(FactorId::from_index);
    assert_eq!(
        rule.dim_factors(TensorRef::Operand(0), 2),
        Some(&[k, l][..])
    );
    assert_eq!(
        rule.uses(l),
        vec![
            FactorUse {
                tensor: TensorRef::Operand(0),
                dim: 2,
                position: 1
            },
            FactorUse {
                tensor: TensorRef::Result(0),
                dim: 3,
                position: 0
            },
        ]
    );
    assert_eq!(
        rule.use_in(k, TensorRef::Operand(0)),
        Some(FactorUse {
            tensor: TensorRef::Operand(0),
            dim: 2,
            position: 0
        })
    );
}

#[test]
fn reshape_rules() {
    let reshape = |from: &str, to: &str| {
        rule_of(&[from], |b, a| {
            b.push1_typed(OpKind::Reshape, &[a[0]], t(to))
        })
        .to_string()
    };
    assert_eq!(reshape("6xf32", "2x3xf32"), "([ij])->([i, j]) {i=2, j=3}");
    assert_eq!(reshape("2x3xf32", "6xf32"), "([i, j])->([ij]) {i=2, j=3}");
    // No digit in common: the operand's factors need replication, the result's pass through.
    assert_eq!(
        reshape("2x3xf32", "3x2xf32"),
        "([i, k])->([j, l]) {i=2, j=3, k=3, l=2} need_replication={i, k}"
    );
    // The common major digit (2) is shared; the rest differ.
    assert_eq!(
        reshape("6x4xf32", "4x6xf32"),
        "([ij, mn])->([ik, ln]) {i=2, j=3, k=2, l=3, m=2, n=2} need_replication={j, m}"
    );
    assert_eq!(
        reshape("4x7x5x8xf32", "14x10x8xf32"),
        "([ij, l, n, o])->([ik, mn, o]) {i=2, j=2, k=7, l=7, m=2, n=5, o=8} need_replication={j, l}"
    );
    // Size-1 dimensions get size-1 factors of their own.
    assert_eq!(
        reshape("32x1xf32", "8x4xf32"),
        "([ij, k])->([i, j]) {i=8, j=4, k=1}"
    );
    assert_eq!(
        reshape("32xf32", "8x1x4xf32"),
        "([ik])->([i, j, k]) {i=8, j=1, k=4}"
    );
    assert_eq!(reshape("f32", "1x1xf32"), "([])->([i, j]) {i=1, j=1}");
    assert_eq!(
        reshape("0x4xf32", "4x0xf32"),
        "([i, j])->([k, l]) {i=0, j=4, k=4, l=0} need_replication={i, j}"
    );
}

#[test]
fn factors_past_z_are_named_like_shardy() {
    let ty = format!("{}f32", "1x".repeat(20));
    let rule = rule_of(&[&ty], |b, a| b.unary(UnaryOp::Negate, a[0]));
    let names: Vec<String> = rule.factor_ids().map(|f| f.to_string()).collect();
    assert_eq!(&names[..2], ["i", "j"]);
    assert_eq!(&names[16..], ["y", "z", "z_1", "z_2"]);
    assert!(
        rule.to_string()
            .starts_with("([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->(")
    );
}

#[test]
fn combiners_and_kinds_print() {
    assert_eq!(Combiner::of_binary(BinaryOp::Add), Some(Combiner::Sum));
    assert_eq!(Combiner::of_binary(BinaryOp::Subtract), None);
    assert_eq!(Combiner::Max.reduction(), Some(shardc_ir::Reduction::Max));
    assert_eq!(Combiner::Body.reduction(), None);
    let kinds = [
        FactorKind::PassThrough,
        FactorKind::Reduction(Combiner::Body),
        FactorKind::NeedReplication,
        FactorKind::Permutation,
    ];
    let shown: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
    assert_eq!(
        shown,
        [
            "pass-through",
            "reduction(body)",
            "need-replication",
            "permutation"
        ]
    );
}

/// `OpRule::check` is what turns a registry bug into `RuleError::Inconsistent`; each
/// broken invariant is caught.
#[test]
fn check_catches_broken_rules() {
    let good = rule_of(&["8x32xf32", "32x16xf32"], |b, a| {
        b.dot_general(a[0], a[1], dot(&[], &[], &[1], &[0]))
    });
    let (ops, res): (&[&[usize]], &[&[usize]]) = (&[&[8, 32], &[32, 16]], &[&[8, 16]]);
    assert_eq!(good.check(ops, res), Ok(()));
    let [i, j, k] = [0, 1, 2].map(FactorId::from_index);
    let broken = |edit: &dyn Fn(&mut OpRule)| {
        let mut r = good.clone();
        edit(&mut r);
        r.check(ops, res).unwrap_err()
    };
    assert_eq!(
        broken(&|r| r.factors[i.index()].kind = FactorKind::Reduction(Combiner::Sum)),
        "reduction factor i appears in a result"
    );
    assert_eq!(
        broken(&|r| r.factors[i.index()].size = 4),
        "the factors of dimension 0 of operand 0 multiply to 4, but the dimension has size 8"
    );
    assert_eq!(
        broken(&|r| r.factors[k.index()].kind = FactorKind::PassThrough),
        "pass-through factor k of size 32 appears in operands only; it must be a reduction or need replication"
    );
    assert_eq!(
        broken(&|r| {
            r.operands[0].pop();
        }),
        "the rule maps 1 dimension(s) of operand 0, which has rank 2"
    );
    assert_eq!(
        broken(&|r| r.operands[1][1] = vec![]),
        "dimension 1 of operand 1 has no factor"
    );
    assert_eq!(
        broken(&|r| r.operands[1][1] = vec![k, j]),
        "factor k appears twice in operand 1"
    );
    assert_eq!(
        broken(&|r| r.operands[0][0] = vec![FactorId::from_index(9)]),
        "dimension 0 of operand 0 names factor #9, but the rule has 3"
    );
    assert_eq!(
        broken(&|r| r.factors.push(shardc_ir::rules::Factor {
            size: 1,
            kind: FactorKind::PassThrough
        })),
        "factor l appears in no tensor"
    );
}

/// The gather rule shares a factor between each operand batching dimension and its
/// start_indices dimension, so the typing rule must reject pairs that differ in size or
/// name the index vector dimension (it did not, before the rules needed it).
#[test]
fn gathers_with_inconsistent_batching_dims_are_rejected() {
    let gather = |start_indices_batching_dims: Vec<usize>| {
        OpKind::Gather(GatherDims {
            offset_dims: vec![2],
            collapsed_slice_dims: vec![1],
            operand_batching_dims: vec![0],
            start_indices_batching_dims,
            start_index_map: vec![1],
            index_vector_dim: 2,
            slice_sizes: vec![1, 1, 8],
            indices_are_sorted: false,
        })
    };
    let mut b = FunctionBuilder::new("case", &[t("4x10x8xf32"), t("4x5x1xi32")]);
    let (x, idx) = (b.arg(0), b.arg(1));
    assert!(b.push1(gather(vec![0]), &[x, idx]).is_ok());
    for bad in [vec![1], vec![2], vec![3]] {
        let err = b.push1(gather(bad.clone()), &[x, idx]).unwrap_err();
        assert!(matches!(err, IrError::InvalidOp { .. }), "{bad:?}: {err}");
    }
}
