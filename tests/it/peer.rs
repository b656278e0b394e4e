//! The JAX/XLA peer benchmark's programs, unmodified: `tests/fixtures/peer/` holds exactly
//! what `../shared/bench/peer/export_cases.py` printed (JAX 0.10.2's lowering of textbook
//! training steps: MLPs under DP, FSDP and Megatron, transformer blocks and stacks of 4, 16
//! and 48, GShard MoE with capacity). Each compiles and its step runs on the cpu backend
//! with the MLIR JIT, equal to the reference interpreter on the global program.

use crate::partition::det_inputs;
use shardc::compiler::lower::cpu::{CpuOptions, JitCompute};
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
    let jit = JitCompute::new(CpuOptions::default());
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
