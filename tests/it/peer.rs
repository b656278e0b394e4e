//! The JAX/XLA peer benchmark's programs, unmodified: `tests/fixtures/peer/` holds exactly
//! what `../shared/bench/peer/export_cases.py` printed (JAX 0.10.2's lowering of textbook
//! training steps: MLPs under DP, FSDP and Megatron, transformer blocks and stacks of 4, 16
//! and 48, GShard MoE with capacity). Each compiles and its step runs on the cpu backend
//! with the MLIR JIT, equal to the reference interpreter on the global program.

use crate::partition::det_inputs;
use shardc::compiler::lower::cpu::{CpuOptions, NativeCompute};
use shardc::compiler::{Options, compile};
use shardc::ir::testing::jax::excess_error;
use shardc::run_cpu;
use shardc::runtime::reference;
use std::path::Path;

fn peer_programs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name()?.to_str()?.strip_suffix(".mlir")?.to_string();
            Some((name, std::fs::read_to_string(&p).unwrap()))
        })
        .collect();
    out.sort();
    out
}

/// Absolute and relative: the JIT's polynomial `exp`/`tanh` and blocked sums against the
/// interpreter's libm calls and sequential f32 sums, over contractions 512 to 2048 long.
const TOL: f64 = 5e-4;

#[test]
fn peer_programs_compile_and_run_on_the_cpu_backend() {
    let programs = peer_programs();
    assert_eq!(programs.len(), 12, "the 12 cases of export_cases.py");
    let jit = NativeCompute::new(CpuOptions::default());
    for (name, text) in programs {
        let start = std::time::Instant::now();
        let m = shardc::ir::text::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = compile(&m, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let inputs = det_inputs(&m);
        let want = reference::run(&m, "main", &inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = run_cpu(&c, &inputs, &jit, 0.0)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .outputs;
        assert_eq!(got.len(), want.len(), "{name}");
        let mut worst = 0.0f64;
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            worst = worst.max(excess_error(g, w, 0.0, 0.0).unwrap());
            let excess = excess_error(g, w, TOL, TOL).unwrap();
            assert!(
                excess <= 0.0,
                "{name} output {k} is off the reference by {excess:e}"
            );
        }
        eprintln!(
            "{name}: {:?}, largest difference {worst:e}",
            start.elapsed()
        );
    }
}

/// Plain data parallelism (mlp_dp: parameters replicated, batch on `data`) on the machine
/// that runs it. On the cpu backend (8 devices sharing the host's cores) every device's
/// compute is slow, so replicated compute is charged at its real price: the plan keeps the
/// batch split and all-reduces the gradients (the bytes XLA sends too). With a GPU
/// cluster's figures compute is nearly free and gathering the 512 KiB batch beats reducing
/// 8 MiB of gradients: the other plan. The same program, two machines, two plans.
#[test]
fn data_parallelism_is_kept_where_compute_is_dear() {
    use shardc::compiler::CostModel;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let text = std::fs::read_to_string(dir.join("mlp_dp.mlir")).unwrap();
    let m = shardc::ir::text::parse_module(&text).unwrap();
    let plan = |cost: CostModel| {
        let c = compile(
            &m,
            &Options {
                cost,
                ..Options::default()
            },
        )
        .unwrap();
        let e = c.explain();
        let kinds: Vec<String> = e.collectives.iter().map(|c| c.kind.clone()).collect();
        (kinds, e.bytes_per_device, e.cost_model)
    };
    let (cpu, cpu_bytes, source) = plan(CostModel::default());
    assert!(
        cpu.iter().all(|k| k == "all_reduce"),
        "the cpu plan only all-reduces: {cpu:?}"
    );
    // Four parameter gradients and the loss, 2(n-1)/n of 8.4 MB: what XLA sends.
    assert_eq!(cpu_bytes, 14_697_991, "{cpu:?}");
    assert_eq!(source, "built-in cpu (2 cores): 8 devices sharing 2 cores");
    let (gpu, gpu_bytes, _) = plan(CostModel::gpu_cluster());
    assert!(
        gpu.iter().any(|k| k == "all_gather"),
        "the GPU cluster's plan gathers the batch: {gpu:?}"
    );
    assert!(gpu_bytes < cpu_bytes / 4, "{gpu_bytes} vs {cpu_bytes}");
}

/// "Follow my annotations as JAX would" (`Options::follow_annotations`): on the GPU
/// cluster's figures, where the search gathers mlp_dp's batch to save the gradients'
/// all-reduce, the batch stays on `data` as annotated and the gradients are all-reduced:
/// the plan XLA runs, with XLA's bytes.
#[test]
fn annotations_are_followed_as_jax_follows_them_when_asked() {
    use shardc::compiler::CostModel;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let text = std::fs::read_to_string(dir.join("mlp_dp.mlir")).unwrap();
    let m = shardc::ir::text::parse_module(&text).unwrap();
    let options = |follow_annotations: bool| Options {
        cost: CostModel::gpu_cluster(),
        follow_annotations,
        ..Options::default()
    };
    let kinds = |c: &shardc::Compiled| -> Vec<String> {
        c.explain()
            .collectives
            .iter()
            .map(|c| c.kind.clone())
            .collect()
    };
    let searched = compile(&m, &options(false)).unwrap();
    assert!(kinds(&searched).iter().any(|k| k == "all_gather"));
    let followed = compile(&m, &options(true)).unwrap();
    let got = kinds(&followed);
    assert!(got.iter().all(|k| k == "all_reduce"), "{got:?}");
    assert_eq!(followed.explain().bytes_per_device, 14_697_991);
}

/// A per-device memory budget (`Options::memory_per_device`) on mlp_dp: too small for any
/// plan (the replicated parameters alone are 8.4 MB) is an error naming the tensors live
/// at the peak and their bytes; the default plan's own peak is honoured by that plan, and
/// below the smallest plan's peak a budget is refused after the search tried weighing
/// memory more heavily. The runtime's measured peak (values held at once per device, a
/// collective's operand and result while in flight included) is the planned one on the
/// reference engine (within 1%; it is exact) and at most that on the JIT (0.86: it
/// computes broadcasts and elementwise chains inside the kernels reading them).
#[test]
fn a_memory_budget_is_honoured_or_refused_naming_what_does_not_fit() {
    use shardc::compiler::{CostModel, error::CompileError};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let text = std::fs::read_to_string(dir.join("mlp_dp.mlir")).unwrap();
    let m = shardc::ir::text::parse_module(&text).unwrap();
    let dp = compile(&m, &Options::default()).unwrap();
    let planned = dp.explain().peak_bytes_per_device;
    let collectives = |c: &shardc::Compiled| -> Vec<(String, u64)> {
        let e = c.explain();
        e.collectives
            .iter()
            .map(|c| (c.kind.clone(), c.bytes_per_device))
            .collect()
    };

    let small = compile(
        &m,
        &Options {
            memory_per_device: Some(4_000_000),
            ..Options::default()
        },
    );
    let Err(e @ CompileError::OverMemory { .. }) = small else {
        panic!("a 4 MB budget cannot hold 8.4 MB of replicated parameters")
    };
    let msg = e.to_string();
    assert!(msg.contains("no plan fits 4000000 B per device"), "{msg}");
    assert!(
        msg.contains("argument 2 as f32[512,2048] (4194304 B)"),
        "{msg}"
    );
    assert!(
        msg.contains("argument 3 as f32[2048,512] (4194304 B)"),
        "{msg}"
    );

    let exact = compile(
        &m,
        &Options {
            memory_per_device: Some(planned),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(collectives(&exact), collectives(&dp));

    // Lower budgets: the search weighs memory more heavily (the GPU cluster's costs
    // here) and finds a plan within each budget down to the smallest peak it has; one
    // byte below that no plan fits (the parameters, their gradients and updates are
    // replicated by the program's own annotations), and the error says the smallest peak
    // it found.
    let budgeted = |budget: u64| {
        compile(
            &m,
            &Options {
                cost: CostModel::gpu_cluster(),
                memory_per_device: Some(budget),
                ..Options::default()
            },
        )
    };
    let mut least = planned;
    for _ in 0..4 {
        match budgeted(least - 1) {
            Ok(c) => {
                let peak = c.explain().peak_bytes_per_device;
                assert!(peak < least, "{peak} over the budget {}", least - 1);
                least = peak;
            }
            Err(e @ CompileError::OverMemory { .. }) => {
                assert!(
                    e.to_string()
                        .contains(&format!("the plan with the smallest peak holds {least} B")),
                    "{e}"
                );
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        least > 20_000_000,
        "the replicated parameters, gradients and updates alone hold more: {least}"
    );
    let fitted = exact;
    // Measured: the most bytes a device held while running the budgeted plan. (Before
    // the runtime counted collectives in flight: 0.67 of the plan, the gradients'
    // all-reduce operands and results missing.)
    let jit = NativeCompute::new(CpuOptions::default());
    let interpreted = shardc::runtime::engine::Interpreted;
    let engines: [(&dyn shardc::runtime::engine::Compute, f64); 2] =
        [(&interpreted, 0.99), (&jit, 0.8)];
    for (engine, least) in engines {
        let run = run_cpu(&fitted, &det_inputs(&m), engine, 1e-3).unwrap();
        for (d, s) in run.report.stats.devices.iter().enumerate() {
            let ratio = s.peak_bytes as f64 / planned as f64;
            assert!(
                (least..=1.01).contains(&ratio),
                "device {d} held {} B at most; planned {planned}",
                s.peak_bytes
            );
        }
    }
}

/// A propagation stopped by one of its limits says so in the error it leads to, and which
/// knob raises it: the missing layout may exist past the limit (a flaky CI on a slow
/// machine would otherwise read as a program error).
#[test]
fn a_limit_reached_is_named_with_how_to_raise_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let text = std::fs::read_to_string(dir.join("transformer_stack_4.mlir")).unwrap();
    let m = shardc::ir::text::parse_module(&text).unwrap();
    let e = compile(
        &m,
        &Options {
            node_limit: 100,
            ..Options::default()
        },
    )
    .err()
    .expect("100 e-nodes are too few for four blocks");
    let msg = e.to_string();
    assert!(
        msg.contains("propagation stopped at its node limit (100 e-nodes)")
            && msg.contains("raise Options::node_limit or SHARDC_NODE_LIMIT"),
        "{msg}"
    );
    // With the default limits the same program compiles.
    compile(&m, &Options::default()).unwrap();
}

/// mlp_fsdp_gather constrains its gradients to be replicated
/// (`with_sharding_constraint(g, P())`) and then updates parameters split on `data`: every
/// device keeps only its block of each summed weight gradient, so the two all-reduces
/// become reduce-scatters (`passes/scatter.rs`), as XLA's reduce-scatter creator would do.
/// Half those bytes: 14.7 MB a device where XLA's plan (all-reduces) sends 22.0 MB. The
/// run sends what the explanation says, and its outputs equal the reference's (checked
/// with every peer program above).
#[test]
fn gradients_only_sliced_after_their_sum_are_reduce_scattered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer");
    let text = std::fs::read_to_string(dir.join("mlp_fsdp_gather.mlir")).unwrap();
    let m = shardc::ir::text::parse_module(&text).unwrap();
    let c = compile(&m, &Options::default()).unwrap();
    let e = c.explain();
    let scattered: Vec<(&str, u64)> = e
        .collectives
        .iter()
        .filter(|c| c.kind == "reduce_scatter")
        .map(|c| (c.value.as_str(), c.bytes_per_device))
        .collect();
    // The two weight gradients, 4 MiB each: 7/8 of it sent by each device.
    assert_eq!(scattered, [("%40", 3_670_016), ("%52", 3_670_016)], "{e}");
    assert_eq!(e.bytes_per_device, 14_706_951, "{e}");
    let jit = NativeCompute::new(CpuOptions::default());
    let run = run_cpu(&c, &det_inputs(&m), &jit, 0.0).unwrap();
    for (d, s) in run.report.stats.devices.iter().enumerate() {
        // The small bucket's 10244 B do not cut into 8 even chunks: a device's share of
        // it differs from the average by a few bytes.
        assert!(
            s.bytes_sent.abs_diff(e.bytes_per_device) <= 8,
            "device {d} sent {} B",
            s.bytes_sent
        );
    }
}
