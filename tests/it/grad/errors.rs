//! Errors: each names the loss, the argument or the op, and the fix; ops without a VJP off
//! the gradient path.

use super::*;

fn compile_error(r: Result<shardc::Lowered, Error>) -> String {
    match r {
        Err(Error::Compile(e)) => {
            assert!(
                matches!(*e, CompileError::NotDifferentiable { .. }),
                "{e:?}"
            );
            e.to_string()
        }
        Err(other) => panic!("expected a compile error, got {other}"),
        Ok(l) => panic!("expected an error, got\n{}", l.as_text()),
    }
}

/// argmax over dimension 1 of a [2, 3] tensor (JAX's variadic reduce of values and iota).
fn argmax(b: &mut FunctionBuilder, x: ValueId) -> (ValueId, ValueId) {
    let idx = typed(
        b,
        OpKind::Iota { dimension: 1 },
        &[],
        TensorType::new(DType::I32, [2, 3]),
    );
    let init_v = b.constant(Literal::scalar(
        DType::F64,
        Scalar::Float(f64::NEG_INFINITY),
    ));
    let init_i = b.constant(Literal::scalar(DType::I32, Scalar::Int(0)));
    let s = |d| TensorType::scalar(d);
    let acc = b.begin_block(&[s(DType::F64), s(DType::I32), s(DType::F64), s(DType::I32)]);
    let keep = cmp(b, ComparisonDirection::Ge, acc[0], acc[2]);
    let v = b.push1(OpKind::Select, &[keep, acc[0], acc[2]]).unwrap();
    let i = b.push1(OpKind::Select, &[keep, acc[1], acc[3]]).unwrap();
    let body = b.end_block(&[v, i]);
    let op = b
        .push(
            OpKind::Reduce {
                dimensions: vec![1],
            },
            &[x, idx, init_v, init_i],
            None,
            vec![body],
        )
        .unwrap();
    let r = &b.func().ops[op.index()].results;
    (r[0], r[1])
}

#[test]
fn errors_name_the_loss_the_argument_or_the_op() {
    let mut messages = Vec::new();
    let t = f64t(&[2, 3]);

    // A loss that is not a scalar, and one that is not a float.
    let l = jit(|x: Tensor| x.exp())
        .lower(std::slice::from_ref(&t))
        .unwrap();
    messages.push(compile_error(l.value_and_grad(&[0])));
    let l = jit(|x: Tensor| x.sum(&[0, 1]).convert(DType::I32))
        .lower(std::slice::from_ref(&t))
        .unwrap();
    messages.push(compile_error(l.grad(&[0])));

    // wrt: out of range; an integer argument.
    let l = jit(|x: Tensor, i: Tensor| x.sum(&[0, 1]) + i.convert(DType::F64))
        .lower(&[t.clone(), TensorType::scalar(DType::I32)])
        .unwrap();
    messages.push(compile_error(l.value_and_grad(&[0, 2])));
    messages.push(compile_error(l.value_and_grad(&[1])));

    // A product reduce on the path to the loss.
    let l = jit(|x: Tensor| x.reduce(&[1], BinaryOp::Multiply, 1.0).sum(&[0]))
        .lower(std::slice::from_ref(&t))
        .unwrap();
    messages.push(compile_error(l.value_and_grad(&[0])));

    // argmax's values on the path to the loss.
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let x0 = b.arg(0);
    let (v, _) = argmax(&mut b, x0);
    let loss = weighted_sum(&mut b, v, 1);
    let m = module_of(b.finish(&[loss]));
    let e = value_and_grad(&m, &[0]).unwrap_err();
    messages.push(e.to_string());

    // A scatter that replaces (`.at[i].set(v)`), which has no VJP.
    let mut b = FunctionBuilder::new(
        "main",
        &[
            t.clone(),
            TensorType::new(DType::I32, [2, 1]),
            TensorType::new(DType::F64, [2, 3]),
        ],
    );
    let s = TensorType::new(DType::F64, []);
    let args = b.begin_block(&[s.clone(), s]);
    let body = b.end_block(&[args[1]]);
    let dims = shardc::ir::ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let op = b
        .push(
            OpKind::Scatter(dims),
            &[b.arg(0), b.arg(1), b.arg(2)],
            Some(std::slice::from_ref(&t)),
            vec![body],
        )
        .unwrap();
    let y = b.func().op(op).results[0];
    let loss = weighted_sum(&mut b, y, 1);
    let m = module_of(b.finish(&[loss]));
    messages.push(value_and_grad(&m, &[0]).unwrap_err().to_string());

    let text = messages.join("\n");
    for want in [
        "must be a scalar float, but it is tensor<2x3xf64>",
        "must be a scalar float, but it is tensor<i32>",
        "wrt index 2 is out of range: @main has 2 argument(s)",
        "argument 1 of @main: it is tensor<i32>, and only float arguments have gradients",
        "(stablehlo.reduce) in @main: its reducer applies stablehlo.multiply",
        "reduces 2 inputs together",
        "only a scatter that adds its updates",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    insta::assert_snapshot!(text);
}

/// Ops without a VJP are fine where no cotangent reaches them: argmax's indices feed the
/// loss (through a convert), its values do not.
#[test]
fn ops_without_a_vjp_are_fine_off_the_gradient_path() {
    let x = lit(&[2, 3], &[0.1, 0.9, -0.3, 0.4, -0.2, 0.8]);
    let mut b = FunctionBuilder::new("main", &[f64t(&[2, 3])]);
    let x0 = b.arg(0);
    let (_, i) = argmax(&mut b, x0);
    let fi = typed(&mut b, OpKind::Convert, &[i], f64t(&[2]));
    let sq = b.binary(BinaryOp::Multiply, b.arg(0), b.arg(0)).unwrap();
    let zero = b.constant(Literal::scalar(DType::F64, Scalar::Float(0.0)));
    let s = b.reduce(sq, zero, &[1], BinaryOp::Add).unwrap();
    let y = b.binary(BinaryOp::Multiply, s, fi).unwrap();
    let loss = weighted_sum(&mut b, y, 2);
    let m = module_of(b.finish(&[loss]));
    check_fd("argmax_indices", &m, &[x], &[0]);
}
