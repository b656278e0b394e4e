//! The reference interpreter against JAX: the programs JAX exported in
//! `shared/fixtures/jax/` (copied to `tests/fixtures/jax/*.json` with the inputs JAX was
//! given and the outputs XLA computed on CPU), rebuilt op for op with `FunctionBuilder`
//! from the `.mlir` text (the parser is not available to this crate's tests), run, and
//! compared within each fixture's stated tolerance.

use serde_json::Value;
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, DotDims, Elements, Function,
    FunctionBuilder, Literal, Module, OpKind, Scalar, TensorType, UnaryOp, ValueId, Visibility,
    verify_module,
};
use shardc_runtime::reference;

/// A thin layer over `FunctionBuilder` so each line below reads like its `.mlir` line.
struct P {
    b: FunctionBuilder,
}

fn f32t(shape: &[usize]) -> TensorType {
    TensorType::new(DType::F32, shape)
}

impl P {
    fn new(name: &str, args: &[TensorType]) -> P {
        P {
            b: FunctionBuilder::new(name, args),
        }
    }
    fn arg(&self, i: usize) -> ValueId {
        self.b.arg(i)
    }
    fn ty(&self, v: ValueId) -> TensorType {
        self.b.ty(v).clone()
    }
    fn cst(&mut self, x: f32) -> ValueId {
        self.b
            .constant(Literal::scalar(DType::F32, Scalar::Float(x as f64)))
    }
    fn cst_of(&mut self, dtype: DType, x: Scalar) -> ValueId {
        self.b.constant(Literal::scalar(dtype, x))
    }
    fn bcast(&mut self, x: ValueId, dims: &[usize], shape: &[usize]) -> ValueId {
        let t = TensorType::new(self.ty(x).dtype, shape);
        self.b
            .push1_typed(
                OpKind::BroadcastInDim {
                    dims: dims.to_vec(),
                },
                &[x],
                t,
            )
            .unwrap()
    }
    fn reshape(&mut self, x: ValueId, shape: &[usize]) -> ValueId {
        let t = TensorType::new(self.ty(x).dtype, shape);
        self.b.push1_typed(OpKind::Reshape, &[x], t).unwrap()
    }
    fn transpose(&mut self, x: ValueId, perm: &[usize]) -> ValueId {
        self.b
            .push1(
                OpKind::Transpose {
                    permutation: perm.to_vec(),
                },
                &[x],
            )
            .unwrap()
    }
    #[allow(clippy::too_many_arguments)]
    fn dot(
        &mut self,
        l: ValueId,
        r: ValueId,
        lb: &[usize],
        rb: &[usize],
        lc: &[usize],
        rc: &[usize],
    ) -> ValueId {
        let dims = DotDims {
            lhs_batch: lb.to_vec(),
            rhs_batch: rb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_contracting: rc.to_vec(),
            precision: vec![],
        };
        self.b.dot_general(l, r, dims).unwrap()
    }
    fn bin(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> ValueId {
        self.b.binary(op, x, y).unwrap()
    }
    fn un(&mut self, op: UnaryOp, x: ValueId) -> ValueId {
        self.b.unary(op, x).unwrap()
    }
    fn cmp(
        &mut self,
        d: ComparisonDirection,
        t: ComparisonType,
        x: ValueId,
        y: ValueId,
    ) -> ValueId {
        self.b
            .push1(
                OpKind::Compare {
                    direction: d,
                    compare_type: Some(t),
                },
                &[x, y],
            )
            .unwrap()
    }
    fn select(&mut self, p: ValueId, x: ValueId, y: ValueId) -> ValueId {
        self.b.push1(OpKind::Select, &[p, x, y]).unwrap()
    }
    fn reduce(&mut self, x: ValueId, init: ValueId, dims: &[usize], op: BinaryOp) -> ValueId {
        self.b.reduce(x, init, dims, op).unwrap()
    }
    fn iota(&mut self, dim: usize, t: TensorType) -> ValueId {
        self.b
            .push1_typed(OpKind::Iota { dimension: dim }, &[], t)
            .unwrap()
    }
    fn convert(&mut self, x: ValueId, dtype: DType) -> ValueId {
        let t = self.ty(x).with_dtype(dtype);
        self.b.push1_typed(OpKind::Convert, &[x], t).unwrap()
    }
    fn call(&mut self, callee: &str, args: &[ValueId], t: TensorType) -> ValueId {
        self.b
            .push1_typed(
                OpKind::Call {
                    callee: callee.to_string(),
                },
                args,
                t,
            )
            .unwrap()
    }
    fn finish(self, results: &[ValueId]) -> Function {
        self.b.finish(results)
    }
}

use BinaryOp::{Add, Divide, Maximum, Multiply, Subtract};

/// Reads `tests/fixtures/jax/NAME.json`: inputs, expected outputs and tolerance.
fn fixture(name: &str) -> (Vec<Literal>, Vec<Literal>, f64, f64) {
    let path = format!(
        "{}/tests/fixtures/jax/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Value = serde_json::from_str(&text).unwrap();
    let tensors = |key: &str| -> Vec<Literal> {
        json[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                assert_eq!(t["dtype"], "float32");
                let shape: Vec<usize> = t["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap() as usize)
                    .collect();
                let data: Vec<f32> = t["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect();
                Literal::new(f32t(&shape), Elements::F32(data)).unwrap()
            })
            .collect()
    };
    let tol = &json["tolerance"];
    (
        tensors("inputs"),
        tensors("outputs"),
        tol["abs"].as_f64().unwrap(),
        tol["rel"].as_f64().unwrap(),
    )
}

/// Runs `main` of the module on the fixture's inputs and compares with JAX's outputs.
fn check(name: &str, functions: Vec<Function>) {
    let m = Module {
        functions,
        ..Module::default()
    };
    verify_module(&m).unwrap();
    let (inputs, expected, abs, rel) = fixture(name);
    let got = reference::run(&m, "main", &inputs).unwrap();
    assert_eq!(got.len(), expected.len());
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g.ty, e.ty, "{name}: output {k}");
        let (g, e) = (g.to_f64_vec(), e.to_f64_vec());
        let worst = g
            .iter()
            .zip(&e)
            .map(|(g, e)| (g - e).abs() - rel * e.abs())
            .fold(f64::MIN, f64::max);
        assert!(
            worst <= abs,
            "{name}: output {k} differs from JAX by {worst:e} beyond rel {rel} (abs tolerance {abs})"
        );
    }
}

#[test]
fn layer_norm_dp() {
    let mut p = P::new("main", &[f32t(&[16, 32]), f32t(&[32]), f32t(&[32])]);
    let cst = p.cst(0.0);
    let v0 = p.reduce(p.arg(0), cst, &[1], Add);
    let v1 = p.bcast(v0, &[0], &[16, 1]);
    let c32 = p.cst(32.0);
    let v2 = p.bcast(c32, &[], &[16, 1]);
    let v3 = p.bin(Divide, v1, v2);
    let v4 = p.bcast(v3, &[0, 1], &[16, 32]);
    let v5 = p.bin(Subtract, p.arg(0), v4);
    let v6 = p.bin(Multiply, v5, v5);
    let cst1 = p.cst(0.0);
    let v7 = p.reduce(v6, cst1, &[1], Add);
    let v8 = p.bcast(v7, &[0], &[16, 1]);
    let c32b = p.cst(32.0);
    let v9 = p.bcast(c32b, &[], &[16, 1]);
    let v10 = p.bin(Divide, v8, v9);
    let v11 = p.bcast(v3, &[0, 1], &[16, 32]);
    let v12 = p.bin(Subtract, p.arg(0), v11);
    let eps = p.cst(1e-5); // dense<9.99999974E-6>: the f32 nearest 1e-5
    let v13 = p.bcast(eps, &[], &[16, 1]);
    let v14 = p.bin(Add, v10, v13);
    let v15 = p.un(UnaryOp::Rsqrt, v14);
    let v16 = p.bcast(v15, &[0, 1], &[16, 32]);
    let v17 = p.bin(Multiply, v12, v16);
    let v18 = p.bcast(p.arg(1), &[1], &[1, 32]);
    let v19 = p.bcast(v18, &[0, 1], &[16, 32]);
    let v20 = p.bin(Multiply, v17, v19);
    let v21 = p.bcast(p.arg(2), &[1], &[1, 32]);
    let v22 = p.bcast(v21, &[0, 1], &[16, 32]);
    let v23 = p.bin(Add, v20, v22);
    check("layer_norm_dp", vec![p.finish(&[v23])]);
}

#[test]
fn mlp_megatron_fwd() {
    let mut p = P::new("main", &[f32t(&[8, 16]), f32t(&[16, 32]), f32t(&[32, 16])]);
    let v0 = p.dot(p.arg(0), p.arg(1), &[], &[], &[1], &[0]);
    let cst = p.cst(0.0);
    let v1 = p.bcast(cst, &[], &[8, 32]);
    let v2 = p.bin(Maximum, v0, v1);
    let v3 = p.dot(v2, p.arg(2), &[], &[], &[1], &[0]);
    check("mlp_megatron_fwd", vec![p.finish(&[v3])]);
}

#[test]
fn attention_heads_tp() {
    use ComparisonDirection::Ge;
    let w = f32t(&[16, 16]);
    let mut p = P::new(
        "main",
        &[f32t(&[4, 8, 16]), w.clone(), w.clone(), w.clone(), w],
    );
    let v0 = p.dot(p.arg(0), p.arg(1), &[], &[], &[2], &[0]);
    let v1 = p.reshape(v0, &[4, 8, 4, 4]);
    let v2 = p.dot(p.arg(0), p.arg(2), &[], &[], &[2], &[0]);
    let v3 = p.reshape(v2, &[4, 8, 4, 4]);
    let v4 = p.dot(p.arg(0), p.arg(3), &[], &[], &[2], &[0]);
    let v5 = p.reshape(v4, &[4, 8, 4, 4]);
    let v6 = p.dot(v1, v3, &[0, 2], &[0, 2], &[3], &[3]);
    let two = p.cst(2.0);
    let v7 = p.bcast(two, &[], &[4, 4, 8, 8]);
    let v8 = p.bin(Divide, v6, v7);
    let c = p.cst_of(DType::I1, Scalar::Bool(true));
    let v9 = p.bcast(c, &[], &[8, 8]);
    let v10 = p.call("tril", &[v9], TensorType::new(DType::I1, [8, 8]));
    let big_neg = p.cst(-1e9);
    let v11 = p.call("_where", &[v10, v8, big_neg], f32t(&[4, 4, 8, 8]));
    let neg_inf = p.cst(f32::NEG_INFINITY);
    let v12 = p.reduce(v11, neg_inf, &[3], Maximum);
    let neg_inf2 = p.cst(f32::NEG_INFINITY);
    let v13 = p.bcast(neg_inf2, &[], &[4, 4, 8]);
    let v14 = p.bin(Maximum, v13, v12);
    let v15 = p.bcast(v14, &[0, 1, 2], &[4, 4, 8, 1]);
    let v16 = p.bcast(v15, &[0, 1, 2, 3], &[4, 4, 8, 8]);
    let v17 = p.bin(Subtract, v11, v16);
    let v18 = p.un(UnaryOp::Exponential, v17);
    let zero = p.cst(0.0);
    let v19 = p.reduce(v18, zero, &[3], Add);
    let v20 = p.bcast(v19, &[0, 1, 2], &[4, 4, 8, 1]);
    let v21 = p.bcast(v20, &[0, 1, 2, 3], &[4, 4, 8, 8]);
    let v22 = p.bin(Divide, v18, v21);
    let v23 = p.dot(v5, v22, &[0, 2], &[0, 1], &[1], &[3]);
    let v24 = p.transpose(v23, &[0, 3, 1, 2]);
    let v25 = p.reshape(v24, &[4, 8, 16]);
    let v26 = p.dot(v25, p.arg(4), &[], &[], &[2], &[0]);
    let main = p.finish(&[v26]);

    let b8 = TensorType::new(DType::I1, [8, 8]);
    let i8 = TensorType::new(DType::I32, [8, 8]);
    let mut t = P::new("tril", std::slice::from_ref(&b8));
    t.b.set_visibility(Visibility::Private);
    let t0 = t.iota(0, i8.clone());
    let tc = t.cst_of(DType::I32, Scalar::Int(0));
    let t1 = t.bcast(tc, &[], &[8, 8]);
    let t2 = t.bin(Add, t0, t1);
    let t3 = t.iota(1, i8);
    let t4 = t.cmp(Ge, ComparisonType::Signed, t2, t3);
    let tf = t.cst_of(DType::I1, Scalar::Bool(false));
    let t5 = t.bcast(tf, &[], &[8, 8]);
    let t6 = t.select(t4, t.arg(0), t5);
    let tril = t.finish(&[t6]);

    let mut w = P::new("_where", &[b8, f32t(&[4, 4, 8, 8]), f32t(&[])]);
    w.b.set_visibility(Visibility::Private);
    let w0 = w.convert(w.arg(2), DType::F32);
    let w1 = w.bcast(w.arg(0), &[2, 3], &[4, 4, 8, 8]);
    let w2 = w.bcast(w0, &[], &[4, 4, 8, 8]);
    let w3 = w.select(w1, w.arg(1), w2);
    let where_ = w.finish(&[w3]);

    check("attention_heads_tp", vec![main, tril, where_]);
}

#[test]
fn mlp_dp_train_step() {
    use ComparisonDirection::Eq;
    use ComparisonType::Float;
    let mut p = P::new(
        "main",
        &[
            f32t(&[16, 32]),
            f32t(&[32, 16]),
            f32t(&[16, 16]),
            f32t(&[16, 16]),
        ],
    );
    let v0 = p.dot(p.arg(2), p.arg(0), &[], &[], &[1], &[0]);
    let c = p.cst(0.0);
    let v1 = p.bcast(c, &[], &[16, 32]);
    let v2 = p.bin(Maximum, v0, v1);
    let v3 = p.cmp(Eq, Float, v0, v2);
    let c = p.cst(1.0);
    let v4 = p.bcast(c, &[], &[16, 32]);
    let c = p.cst(0.0);
    let v5 = p.bcast(c, &[], &[16, 32]);
    let v6 = p.select(v3, v4, v5);
    let c = p.cst(0.0);
    let v7 = p.bcast(c, &[], &[16, 32]);
    let v8 = p.cmp(Eq, Float, v7, v2);
    let c = p.cst(2.0);
    let v9 = p.bcast(c, &[], &[16, 32]);
    let c = p.cst(1.0);
    let v10 = p.bcast(c, &[], &[16, 32]);
    let v11 = p.select(v8, v9, v10);
    let v12 = p.bin(Divide, v6, v11);
    let v13 = p.dot(v2, p.arg(1), &[], &[], &[1], &[0]);
    let v14 = p.bin(Subtract, v13, p.arg(3));
    let v15 = p.bin(Multiply, v14, v14);
    let c = p.cst(2.0);
    let v16 = p.bcast(c, &[], &[16, 16]);
    let v17 = p.bin(Multiply, v16, v14);
    let c = p.cst(0.0);
    let v18 = p.reduce(v15, c, &[0, 1], Add);
    let c = p.cst(256.0);
    let v19 = p.bin(Divide, v18, c);
    let c8 = p.cst(1.0);
    let c9 = p.cst(256.0);
    let v20 = p.bin(Divide, c8, c9);
    let v21 = p.bcast(v20, &[], &[16, 16]);
    let v22 = p.bin(Multiply, v21, v17);
    let v23 = p.dot(v22, v2, &[], &[], &[0], &[0]);
    let v24 = p.transpose(v23, &[1, 0]);
    let v25 = p.dot(v22, p.arg(1), &[], &[], &[1], &[1]);
    let v26 = p.bin(Multiply, v25, v12);
    let v27 = p.dot(v26, p.arg(2), &[], &[], &[0], &[0]);
    let v28 = p.transpose(v27, &[1, 0]);
    let c = p.cst(0.1);
    let v29 = p.bcast(c, &[], &[16, 32]);
    let v30 = p.bin(Multiply, v29, v28);
    let v31 = p.bin(Subtract, p.arg(0), v30);
    let c = p.cst(0.1);
    let v32 = p.bcast(c, &[], &[32, 16]);
    let v33 = p.bin(Multiply, v32, v24);
    let v34 = p.bin(Subtract, p.arg(1), v33);
    check("mlp_dp_train_step", vec![p.finish(&[v19, v31, v34])]);
}
