//! The transform's output (ids, shardings, aux outputs), and composite models in f64 built
//! with the tracing API against finite differences.

use super::*;

#[test]
fn value_and_grad_of_an_mlp_prints_clean() {
    let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
    let l = jit(mlp_loss)
        .name("mlp")
        .lower(&[f32(&[4, 8]), f32(&[8, 2]), f32(&[3, 4]), f32(&[3, 2])])
        .unwrap();
    let vg = l.value_and_grad(&[0, 1]).unwrap();
    let f = vg.module().entry().unwrap();
    assert_eq!(
        f.result_types(),
        vec![TensorType::scalar(DType::F32), f32(&[4, 8]), f32(&[8, 2])]
    );
    // No cotangent of x or y: one dot_general forward per matmul, two backward for w2's
    // matmul (w2 and the hidden layer), one for w1's (w1 only).
    let dots = f
        .body_ops()
        .filter(|(_, op)| matches!(op.kind, OpKind::DotGeneral(_)))
        .count();
    assert_eq!(dots, 2 + 3);
    insta::assert_snapshot!(vg.as_text());
    // `grad` keeps only the gradients and what they need.
    let g = l.grad(&[1]).unwrap();
    assert_eq!(
        g.module().entry().unwrap().result_types(),
        vec![f32(&[8, 2])]
    );
}

#[test]
fn gradients_carry_their_arguments_shardings_and_aux_outputs_pass_through() {
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 2)]).unwrap();
    let l = jit(|x: Tensor, w: Tensor| {
        let y = x.matmul(&w);
        ((&y * &y).sum(&[0, 1]), y)
    })
    .mesh(&mesh)
    .in_shardings([P!["data", None], P![None, "model"]])
    .out_shardings([P![], P!["data", "model"]])
    .lower(&[f64t(&[4, 6]), f64t(&[6, 2])])
    .unwrap();
    let vg = l.value_and_grad(&[1, 0]).unwrap();
    let f = vg.module().entry().unwrap();
    let s = |r: usize| f.result_attrs[r].sharding.clone();
    let src = l.module().entry().unwrap();
    assert_eq!(s(0), src.result_attrs[0].sharding);
    assert_eq!(s(1), src.result_attrs[1].sharding);
    assert_eq!(s(2), src.arg_attrs[1].sharding);
    assert_eq!(s(3), src.arg_attrs[0].sharding);
    let mut rng = Rng(11);
    let args = [
        random_lit(&mut rng, &[4, 6], -1.0, 1.0),
        random_lit(&mut rng, &[6, 2], -1.0, 1.0),
    ];
    let want = l.run_reference(&args).unwrap();
    let got = vg.run_reference(&args).unwrap();
    assert_eq!(got[..2], want[..], "loss and aux are the forward pass's");
    check_fd("aux", l.module(), &args, &[1, 0]);
}

/// Checks every element of the gradients of a traced loss's float arguments (`wrt`).
fn check_model(name: &str, l: &shardc::Lowered, args: &[Literal], wrt: &[usize]) {
    let worst = check_fd(name, l.module(), args, wrt);
    assert!(worst < 1e-6, "{name}: worst error {worst:e}");
}

#[test]
fn mlp_gradients_match_finite_differences() {
    let l = jit(|x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, t: Tensor| {
        let h = (x.matmul(&w1) + b1).gelu();
        let d = h.matmul(&w2).tanh() - t;
        (&d * &d).mean(&[0, 1])
    })
    .lower(&[
        f64t(&[4, 5]),
        f64t(&[5, 6]),
        f64t(&[6]),
        f64t(&[6, 3]),
        f64t(&[4, 3]),
    ])
    .unwrap();
    let mut r = Rng(21);
    let args: Vec<Literal> = l
        .module()
        .entry()
        .unwrap()
        .arg_types()
        .iter()
        .map(|t| random_lit(&mut r, &t.shape, -1.0, 1.0))
        .collect();
    check_model("mlp", &l, &args, &[0, 1, 2, 3]);
}

#[test]
fn layer_norm_and_softmax_gradients_match_finite_differences() {
    let l = jit(|x: Tensor, g: Tensor, b: Tensor, w: Tensor| {
        let y = x.layer_norm(&g, &b, 1e-5).softmax(-1);
        (y * w).sum(&[0, 1])
    })
    .lower(&[f64t(&[3, 6]), f64t(&[6]), f64t(&[6]), f64t(&[3, 6])])
    .unwrap();
    let mut r = Rng(22);
    let args = vec![
        random_lit(&mut r, &[3, 6], -2.0, 2.0),
        random_lit(&mut r, &[6], 0.5, 1.5),
        random_lit(&mut r, &[6], -0.5, 0.5),
        random_lit(&mut r, &[3, 6], -1.0, 1.0),
    ];
    check_model("layer_norm_softmax", &l, &args, &[0, 1, 2]);
}

#[test]
fn embedding_einsum_cross_entropy_gradients_match_finite_differences() {
    let l = jit(|emb: Tensor, w: Tensor, ids: Tensor, labels: Tensor| {
        let h = emb.take_rows(&ids);
        let logits = h.einsum("btd,dv->btv", &w);
        logits.cross_entropy(&labels)
    })
    .lower(&[
        f64t(&[7, 5]),
        f64t(&[5, 6]),
        TensorType::new(DType::I32, [2, 4]),
        TensorType::new(DType::I32, [2, 4]),
    ])
    .unwrap();
    let mut r = Rng(23);
    let args = vec![
        random_lit(&mut r, &[7, 5], -1.0, 1.0),
        random_lit(&mut r, &[5, 6], -1.0, 1.0),
        i32_lit(&[2, 4], &[0, 3, 3, 6, 1, 0, 5, 2]),
        i32_lit(&[2, 4], &[1, 0, 5, 2, 2, 3, 4, 0]),
    ];
    check_model("cross_entropy", &l, &args, &[0, 1]);
}

#[test]
fn transformer_block_gradients_match_finite_differences() {
    let d = TransformerDims {
        batch: 2,
        seq: 4,
        d_model: 8,
        heads: 2,
        d_ff: 16,
    };
    let (dm, ff) = (d.d_model, d.d_ff);
    let mut types = vec![f64t(&[d.batch, d.seq, dm])];
    types.extend([
        f64t(&[dm]),
        f64t(&[dm]),
        f64t(&[dm, dm]),
        f64t(&[dm, dm]),
        f64t(&[dm, dm]),
        f64t(&[dm, dm]),
        f64t(&[dm]),
        f64t(&[dm]),
        f64t(&[dm, ff]),
        f64t(&[ff, dm]),
    ]);
    assert_eq!(types.len(), 1 + BLOCK_WEIGHTS.len());
    let mut r = Rng(24);
    let w_out: Vec<f64> = r.values(d.batch * d.seq * dm, -1.0, 1.0);
    let l = jit(move |a: &[Tensor]| {
        let y = transformer_block(&a[0], &a[1..], &d);
        let w = y.constant(lit(&[d.batch, d.seq, dm], &w_out));
        (y * w).sum(&[0, 1, 2])
    })
    .lower(&types)
    .unwrap();
    let args: Vec<Literal> = types
        .iter()
        .enumerate()
        .map(|(i, t)| match BLOCK_WEIGHTS.get(i.wrapping_sub(1)) {
            Some(n) if n.ends_with("_g") => random_lit(&mut r, &t.shape, 0.5, 1.5),
            Some(_) => random_lit(&mut r, &t.shape, -0.5, 0.5),
            None => random_lit(&mut r, &t.shape, -1.0, 1.0),
        })
        .collect();
    let wrt: Vec<usize> = (0..types.len()).collect();
    check_model("transformer_block", &l, &args, &wrt);
}

/// JAX's causal attention as JAX printed it (`tests/fixtures/jax/attention_heads_tp.mlir`,
/// with calls of `@tril` and `@_where`), in f64 and wrapped by a `main` that calls it and
/// returns `sum(attention(...) * W)`: calls are inlined, shardings kept, and every
/// gradient matches finite differences.
#[test]
fn jax_printed_attention_with_calls_differentiates() {
    let fx = jax_fixtures()
        .unwrap()
        .into_iter()
        .find(|f| f.name == "attention_heads_tp")
        .expect("the attention_heads_tp fixture");
    let mut m = parse_module(&fx.text.replace("f32", "f64")).unwrap();
    let entry = m.functions.iter().position(|f| f.name == "main").unwrap();
    let mut attention = m.functions.remove(entry);
    attention.name = "attention".into();
    attention.visibility = Visibility::Private;
    let types = attention.arg_types();
    let out = attention.result_types();
    let mut b = FunctionBuilder::new("main", &types);
    let args = b.args();
    let call = b
        .push(
            OpKind::Call {
                callee: "attention".into(),
            },
            &args,
            Some(&out),
            Vec::new(),
        )
        .unwrap();
    let y = b.func().ops[call.index()].results[0];
    let loss = weighted_sum(&mut b, y, 9);
    let mut main = b.finish(&[loss]);
    main.arg_attrs = attention.arg_attrs.clone();
    m.functions.insert(0, main);
    m.functions.push(attention);
    let vg = value_and_grad(&m, &[1, 2, 3, 4]).unwrap();
    let f = vg.entry().unwrap();
    assert_eq!(vg.functions.len(), 1, "calls inlined");
    for (k, i) in (1..5).enumerate() {
        assert_eq!(f.result_attrs[1 + k].sharding, f.arg_attrs[i].sharding);
    }
    let args: Vec<Literal> = fx
        .inputs
        .iter()
        .map(|l| lit(&l.ty.shape, &l.to_f64_vec()))
        .collect();
    let worst = check_fd("jax_attention", &m, &args, &[0, 1, 2, 3, 4]);
    assert!(worst < 1e-6, "worst error {worst:e}");
}
