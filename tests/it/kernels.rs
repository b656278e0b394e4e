//! Composite models through the MLIR kernels: traced with `jit`, compiled by the CPU JIT
//! (the whole function as one segment) and compared with the reference interpreter;
//! and partitioned programs run on the simulated mesh with the JIT as each device's
//! compute engine.
//!
//! Tolerance: `abs 1e-5 + rel 1e-4` (f32; contractions up to 64 long accumulate in
//! vector registers with fused multiply-adds, and exp/log/tanh are polynomial
//! approximations a few ulp from libm).

use shardc::compiler::lower::{self, cpu};
use shardc::{DType, Literal, Mesh, Options, P, Tensor, TensorType, jit};
use shardc_train::models::{
    TransformerDims, block_weight_specs, block_weight_types, transformer_block,
};

const ABS: f64 = 1e-5;
const REL: f64 = 1e-4;

fn f32(shape: &[usize]) -> TensorType {
    TensorType::new(DType::F32, shape)
}

/// Deterministic inputs in `[-1, 1)` (integers in `[0, n)` for i32).
fn inputs(types: &[TensorType], seed: u64, n: usize) -> Vec<Literal> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    types
        .iter()
        .map(|t| {
            let v: Vec<f64> = (0..t.num_elements())
                .map(|_| {
                    if t.dtype.is_int() {
                        (next() * n as f64).floor()
                    } else {
                        2.0 * next() - 1.0
                    }
                })
                .collect();
            Literal::from_f64(t.dtype, &t.shape, &v).unwrap()
        })
        .collect()
}

fn assert_close(got: &[Literal], want: &[Literal]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.ty, w.ty, "result {k}");
        for (i, (a, b)) in g.to_f64_vec().iter().zip(w.to_f64_vec()).enumerate() {
            assert!(
                (a - b).abs() <= ABS + REL * b.abs(),
                "result {k} element {i}: got {a}, want {b}"
            );
        }
    }
}

/// The JIT (the traced function as one segment) against the reference.
fn check(lowered: &shardc::Lowered, args: &[Literal]) {
    let want = lowered.run_reference(args).unwrap();
    let f = lower::whole_function(lowered.module().entry().unwrap()).unwrap();
    let k = cpu::compile(&f, &cpu::CpuOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_close(&k.run(args).unwrap(), &want);
}

#[test]
fn mlp() {
    let types = [f32(&[16, 32]), f32(&[32, 64]), f32(&[64]), f32(&[64, 16])];
    let l = jit(|x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor| {
        (x.matmul(&w1) + b1).gelu().matmul(&w2)
    })
    .lower(&types)
    .unwrap();
    check(&l, &inputs(&types, 1, 0));
}

#[test]
fn layer_norm_and_softmax() {
    let types = [f32(&[8, 48]), f32(&[48]), f32(&[48])];
    let l = jit(|x: Tensor, g: Tensor, b: Tensor| {
        let y = x.layer_norm(&g, &b, 1e-5);
        (y.softmax(-1), y.log_softmax(0))
    })
    .lower(&types)
    .unwrap();
    check(&l, &inputs(&types, 2, 0));
}

#[test]
fn softmax_cross_entropy_with_an_embedding_lookup() {
    let types = [
        f32(&[20, 16]),
        TensorType::new(DType::I32, [6]),
        f32(&[16, 10]),
        TensorType::new(DType::I32, [6]),
    ];
    let l = jit(|table: Tensor, ids: Tensor, w: Tensor, labels: Tensor| {
        table.take_rows(&ids).matmul(&w).cross_entropy(&labels)
    })
    .lower(&types)
    .unwrap();
    let mut args = inputs(&types, 3, 20);
    args[3] = inputs(&types[3..], 4, 10).remove(0);
    check(&l, &args);
}

fn small_block() -> TransformerDims {
    TransformerDims {
        batch: 2,
        seq: 8,
        d_model: 16,
        heads: 2,
        d_ff: 32,
    }
}

#[test]
fn attention_block() {
    let d = small_block();
    let mut types = vec![f32(&[d.batch, d.seq, d.d_model])];
    types.extend(block_weight_types(&d));
    let l = jit(move |args: &[Tensor]| transformer_block(&args[0], &args[1..], &d))
        .lower(&types)
        .unwrap();
    check(&l, &inputs(&types, 5, 0));
}

/// A partitioned program on the simulated mesh, each device's compute segments JIT
/// compiled as fusion clusters (each distinct cluster once for all devices), against the
/// global reference.
fn check_partitioned(l: &shardc::Lowered, args: &[Literal]) {
    let want = l.run_reference(args).unwrap();
    let c = l.compile(&Options::default()).unwrap();
    let engine = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let got = shardc::run_simulated_with(&engine, &c, args, 1e-4).unwrap();
    assert_close(&got, &want);
    // Every compute segment of the per-device program prepared; each distinct cluster
    // compiled once for all devices (or run by the library GEMM).
    let f = c.partitioned.module.entry().unwrap();
    let steps = shardc::runtime::engine::steps(f);
    let segments = steps
        .iter()
        .filter(|s| matches!(s, shardc::runtime::engine::Step::Compute(_)))
        .count();
    assert!(steps.len() > segments, "the program has collectives");
    let stats = engine.stats();
    assert_eq!(stats.segments, segments, "{stats:?}");
    assert_eq!(
        stats.compiled + stats.reused + stats.library,
        stats.kernels,
        "{stats:?}"
    );
}

#[test]
fn megatron_mlp_on_a_simulated_mesh() {
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
    let types = [f32(&[8, 16]), f32(&[16, 32]), f32(&[32, 16])];
    let l = jit(|x: Tensor, w1: Tensor, w2: Tensor| x.matmul(&w1).relu().matmul(&w2))
        .mesh(&mesh)
        .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
        .out_shardings([P!["data", None]])
        .lower(&types)
        .unwrap();
    check_partitioned(&l, &inputs(&types, 6, 0));
}

#[test]
fn transformer_block_on_a_simulated_mesh() {
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 2)]).unwrap();
    let d = small_block();
    let mut types = vec![f32(&[d.batch, d.seq, d.d_model])];
    types.extend(block_weight_types(&d));
    let mut specs = vec![P!["data", None, None]];
    specs.extend(block_weight_specs());
    let l = jit(move |args: &[Tensor]| transformer_block(&args[0], &args[1..], &d))
        .mesh(&mesh)
        .in_shardings(specs)
        .out_shardings([P!["data", None, None]])
        .lower(&types)
        .unwrap();
    check_partitioned(&l, &inputs(&types, 7, 0));
}

/// An uneven batch (6 over 4 devices, padded) through the JIT: the masks (iota, compare,
/// select) and the pads and trims of padded collectives compile like any other op.
#[test]
fn padded_batch_mlp_on_a_simulated_mesh() {
    let mesh = Mesh::new("mesh", &[("data", 4), ("model", 2)]).unwrap();
    let types = [f32(&[6, 16]), f32(&[16, 32]), f32(&[32, 16])];
    let l = jit(|x: Tensor, w1: Tensor, w2: Tensor| {
        let y = x.matmul(&w1).relu().matmul(&w2);
        let loss = (&y * &y).mean(&[0, 1]);
        (y, loss)
    })
    .mesh(&mesh)
    .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
    .out_shardings([P![None, None], P![]])
    .pad_uneven()
    .lower(&types)
    .unwrap();
    check_partitioned(&l, &inputs(&types, 8, 0));
}

/// The training step of `shardc bench step` (tiny GPT, autodiff, AdamW) on the cpu
/// backend with the JIT as every device's engine: the same losses as the interpreter.
#[test]
fn training_step_on_the_cpu_backend_with_the_jit() {
    use shardc::Engine;
    use shardc_cli::bench::{StepBench, step};
    use shardc_train::presets::tiny_config;
    let run = |engine| {
        let b = StepBench {
            model: tiny_config(),
            devices: vec![1, 2],
            steps: 2,
            warmup: 0,
            engine,
            profile: false,
            dump_init: None,
        };
        let v: serde_json::Value =
            serde_json::from_str(&format!("{:#}", step(&b).unwrap())).unwrap();
        assert_eq!(v["engine"], engine.name());
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["losses"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_f64().unwrap())
                    .collect::<Vec<f64>>()
            })
            .collect::<Vec<_>>()
    };
    let (jit, interpreted) = (run(Engine::Native), run(Engine::Interpreted));
    assert_eq!(jit.len(), 2);
    for (a, b) in jit.iter().zip(&interpreted) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-4 * y.abs(),
                "jit {a:?} interpreted {b:?}"
            );
        }
    }
}
