//! Autodiff (`value_and_grad`, `grad`): every op's VJP and composite models against
//! central finite differences in f64, a JAX-recorded training step, gradients of a
//! data-parallel and a Megatron program on a simulated mesh, and the errors.
//!
//! Finite differences: `fd = (L(x + h e_j) - L(x - h e_j)) / 2h` with `h = 1e-6`, on the
//! reference interpreter in f64. A gradient element passes when
//! `|g - fd| <= 1e-8 (1 + |L|) + 1e-6 |fd|`: the truncation error is `O(h^2)` (~1e-12
//! here) and the rounding error about `eps |L| / h` (~2e-10 |L|), so the bound leaves a
//! margin (the largest error seen is 6e-8, on JAX's attention with `|L| = 18`, a third of
//! its bound) and still catches any wrong factor, sign or index.

mod errors;
mod models;
mod ops;
mod remat;
mod shard_map;
mod sharded;

use shardc::compiler::Options;
use shardc::compiler::autodiff::differentiate::{grad, value_and_grad};
use shardc::compiler::error::CompileError;
use shardc::ir::testing::jax::{excess_error, jax_fixtures};
use shardc::ir::text::{parse_module, print_module};
use shardc::ir::{
    BinaryOp, ComparisonDirection, ComparisonType, Distribution, DotDims, Elements,
    FunctionBuilder, GatherDims, Mesh, Module, OpKind, Scalar, ScatterDims, Sharding, UnaryOp,
    ValueId, Visibility, WindowDims,
};
use shardc::runtime::reference;
use shardc::{DType, Error, Literal, P, Tensor, TensorType, jit};
use shardc_train::models::{
    BLOCK_WEIGHTS, TransformerDims, block_weight_specs, block_weight_types, transformer_block,
};
use std::collections::BTreeSet;

const H: f64 = 1e-6;
const ABS: f64 = 1e-8;
const REL: f64 = 1e-6;

/// SplitMix64: deterministic inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    fn values(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }

    /// One f32 argument per argument of `l`, uniform in [-0.5, 0.5).
    fn args_of(&mut self, l: &shardc::Lowered) -> Vec<Literal> {
        let f = l.module().entry().expect("a traced program has an entry");
        f.arg_types()
            .iter()
            .map(|t| {
                let n = t.num_elements();
                Literal::from_f64(DType::F32, &t.shape, &self.values(n, -0.5, 0.5)).unwrap()
            })
            .collect()
    }
}

fn f64t(shape: &[usize]) -> TensorType {
    TensorType::new(DType::F64, shape)
}

fn lit(shape: &[usize], values: &[f64]) -> Literal {
    Literal::from_f64(DType::F64, shape, values).unwrap()
}

fn random_lit(rng: &mut Rng, shape: &[usize], lo: f64, hi: f64) -> Literal {
    let n = shape.iter().product();
    lit(shape, &rng.values(n, lo, hi))
}

fn i32_lit(shape: &[usize], values: &[i32]) -> Literal {
    Literal::new(
        TensorType::new(DType::I32, shape),
        Elements::I32(values.to_vec()),
    )
    .unwrap()
}

/// A program over global tensors with one result: `sum(body(args) * W)` for a fixed random
/// `W` of the body's shape (so every element of the body's value matters, differently).
struct Case {
    name: String,
    module: Module,
    args: Vec<Literal>,
    wrt: Vec<usize>,
}

fn case(
    name: &str,
    args: Vec<Literal>,
    wrt: &[usize],
    body: impl FnOnce(&mut FunctionBuilder, &[ValueId]) -> ValueId,
) -> Case {
    let types: Vec<TensorType> = args.iter().map(|a| a.ty.clone()).collect();
    let mut b = FunctionBuilder::new("main", &types);
    let a = b.args();
    let y = body(&mut b, &a);
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, c| {
        (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
    });
    let loss = weighted_sum(&mut b, y, seed);
    Case {
        name: name.to_string(),
        module: Module {
            functions: vec![b.finish(&[loss])],
            ..Module::default()
        },
        args,
        wrt: wrt.to_vec(),
    }
}

/// `sum(y * W)` for a random constant `W`.
fn weighted_sum(b: &mut FunctionBuilder, y: ValueId, seed: u64) -> ValueId {
    let ty = b.ty(y).clone();
    let mut rng = Rng(seed ^ 0x5eed);
    let w = Literal::from_f64(
        ty.dtype,
        &ty.shape,
        &rng.values(ty.num_elements(), -1.0, 1.0),
    )
    .unwrap();
    let w = b.constant(w);
    let p = b.binary(BinaryOp::Multiply, y, w).unwrap();
    let zero = b.constant(Literal::scalar(ty.dtype, Scalar::Float(0.0)));
    let dims: Vec<usize> = (0..ty.rank()).collect();
    b.reduce(p, zero, &dims, BinaryOp::Add).unwrap()
}

fn loss_of(m: &Module, args: &[Literal]) -> f64 {
    reference::run(m, "main", args).unwrap()[0].get(0).as_f64()
}

/// Checks every element of every gradient of `value_and_grad(m, wrt)` against central
/// differences; returns the largest `|g - fd|` seen.
fn check_fd(name: &str, m: &Module, args: &[Literal], wrt: &[usize]) -> f64 {
    let vg = value_and_grad(m, wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = reference::run(&vg, "main", args)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", print_module(&vg)));
    let want = reference::run(m, "main", args).unwrap();
    let n = want.len();
    assert_eq!(out.len(), n + wrt.len(), "{name}: result count");
    assert_eq!(
        out[..n],
        want[..],
        "{name}: the values must be the forward pass's"
    );
    let loss = want[0].get(0).as_f64();
    let mut worst: f64 = 0.0;
    for (k, &i) in wrt.iter().enumerate() {
        let g = &out[n + k];
        assert_eq!(g.ty, args[i].ty, "{name}: gradient {k} type");
        let base = args[i].to_f64_vec();
        for j in 0..base.len() {
            let at = |delta: f64| {
                let mut v = base.clone();
                v[j] += delta;
                let mut a = args.to_vec();
                a[i] = lit(&args[i].ty.shape, &v);
                loss_of(m, &a)
            };
            let fd = (at(H) - at(-H)) / (2.0 * H);
            let got = g.get(j).as_f64();
            let err = (got - fd).abs();
            worst = worst.max(err);
            assert!(
                err <= ABS * (1.0 + loss.abs()) + REL * fd.abs(),
                "{name}: d loss / d arg{i}[{j}] = {got}, finite differences give {fd}\n{}",
                print_module(&vg)
            );
        }
    }
    worst
}

fn run_cases(cases: &[Case]) {
    for c in cases {
        check_fd(&c.name, &c.module, &c.args, &c.wrt);
    }
}

/// The op names of a module's entry body.
fn op_names(m: &Module) -> BTreeSet<String> {
    m.entry()
        .unwrap()
        .body_ops()
        .map(|(_, op)| op.kind.name())
        .collect()
}

fn cmp(b: &mut FunctionBuilder, d: ComparisonDirection, x: ValueId, y: ValueId) -> ValueId {
    b.push1(
        OpKind::Compare {
            direction: d,
            compare_type: Some(ComparisonType::Float),
        },
        &[x, y],
    )
    .unwrap()
}

fn typed(b: &mut FunctionBuilder, kind: OpKind, x: &[ValueId], ty: TensorType) -> ValueId {
    b.push1_typed(kind, x, ty).unwrap()
}

fn module_of(f: shardc::ir::Function) -> Module {
    Module {
        functions: vec![f],
        ..Module::default()
    }
}

fn mlp_loss(w1: Tensor, w2: Tensor, x: Tensor, y: Tensor) -> Tensor {
    let d = x.matmul(&w1).relu().matmul(&w2) - y;
    (&d * &d).mean(&[0, 1])
}

fn f32t(shape: &[usize]) -> TensorType {
    TensorType::new(DType::F32, shape)
}
