//! The cuda backend without a GPU: the error a machine without an NVIDIA driver gets,
//! every canonical partitioned program compiled to GPU programs (PTX, buffers, kernel
//! parameters read off the PTX) with identical segments compiled once, and GPU kernels
//! refusing to run on host literals. What needs a GPU runs in `examples/gpu_check.rs`
//! (`scripts/gpu-check.sh`).

use crate::partition::det_inputs;
use shardc::compiler::lower::gpu::{self, Target};
use shardc::compiler::lower::gpu_program::PtxCompiler;
use shardc::compiler::{Options, compile};
use shardc::runtime::backend::cpu::CpuMesh;
use shardc::runtime::backend::cuda::{CudaMesh, GpuKernel, probe, target};
use shardc::runtime::backend::{Executable, Planned, RuntimeError};

const NO_DRIVER: &str = "no CUDA driver found (libcuda.so.1): the cuda backend needs an NVIDIA GPU and driver; use the cpu backend";

/// On a machine without the driver (this project's machines and CI), making a mesh or
/// running a program is an error saying so, not a panic. Skipped where a driver loads.
#[test]
fn without_a_driver_the_cuda_backend_says_so() {
    if let Ok(info) = probe() {
        eprintln!(
            "skipped: a CUDA driver is present ({} GPUs)",
            info.gpus.len()
        );
        return;
    }
    for n in [1, 8] {
        let e = CudaMesh::new(n).unwrap_err();
        assert!(matches!(e, RuntimeError::NoCudaDriver(_)), "{e:?}");
        assert_eq!(e.to_string(), NO_DRIVER);
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/partition/megatron_mlp_fwd.mlir"
    );
    let m = shardc::ir::text::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = compile(&m, &Options::default()).unwrap();
    let e = shardc::run_cuda(&c, &det_inputs(&m), 0.0).unwrap_err();
    assert_eq!(e.to_string(), NO_DRIVER);
}

/// The runtime's table of chips is LLVM's, as the compiler states it.
#[test]
fn the_runtime_knows_the_chips_the_compiler_targets() {
    let runtime: Vec<(&str, u32)> = target::CHIPS.iter().map(|c| (c.0, c.3)).collect();
    assert_eq!(runtime, gpu::CHIPS);
    // Every chip's default target validates in the compiler.
    for (chip, (major, minor), arch, _) in target::CHIPS {
        if *arch {
            continue;
        }
        let (c, ptx) = target::chip_for((*major, *minor)).unwrap();
        assert_eq!(c, *chip);
        Target {
            chip: c.into(),
            ptx,
            libdevice: None,
        }
        .validate()
        .unwrap();
    }
}

/// Every canonical case of `tests/partition/` becomes an executable of GPU programs for
/// sm_80 and sm_90: every segment lowers to PTX, its host function is read, and every
/// launch's parameters fit its PTX entry. The same segment (on every device, and repeated
/// in a program) is compiled once.
#[test]
fn canonical_programs_compile_for_the_gpu() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/partition");
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    let sm90 = PtxCompiler::new(Target::sm90());
    let mut segments = 0;
    for path in &cases {
        let (m, opts) = crate::partition::parse_case(&std::fs::read_to_string(path).unwrap(), path);
        let c = compile(&m, &opts).unwrap();
        let exe = Executable::new(&c.partitioned.module, "main", &sm90)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for s in exe.steps() {
            if let Planned::Compute { kernel, .. } = s {
                let k = kernel
                    .as_any()
                    .and_then(|a| a.downcast_ref::<GpuKernel>())
                    .expect("a GPU kernel");
                assert_eq!(k.0.chip, "sm_90");
                assert!(!k.0.launches.is_empty() || k.0.outputs.is_empty());
                segments += 1;
            }
        }
        // The same segment again: from the cache.
        let before = sm90.stats();
        Executable::new(&c.partitioned.module, "main", &sm90).unwrap();
        let after = sm90.stats();
        assert_eq!(after.compiled, before.compiled, "{}", path.display());
    }
    let s = sm90.stats();
    assert_eq!(s.compiled + s.reused, 2 * segments);
    // sm_80 too, for one case.
    let m = shardc::ir::text::parse_module(
        &std::fs::read_to_string(format!("{dir}/megatron_mlp_fwd.mlir")).unwrap(),
    )
    .unwrap();
    let c = compile(&m, &Options::default()).unwrap();
    Executable::new(
        &c.partitioned.module,
        "main",
        &PtxCompiler::new(Target::sm80()),
    )
    .unwrap();
}

/// A GPU kernel runs on a `CudaMesh` only: on the cpu backend it is a clear error.
#[test]
fn gpu_kernels_do_not_run_on_host_literals() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/partition/megatron_mlp_fwd.mlir"
    );
    let m = shardc::ir::text::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = compile(&m, &Options::default()).unwrap();
    let exe = Executable::new(
        &c.partitioned.module,
        "main",
        &PtxCompiler::new(Target::sm90()),
    )
    .unwrap();
    let n = c.partitioned.mesh.num_devices();
    let types = c.partitioned.module.entry().unwrap().arg_types();
    let args: Vec<Vec<shardc::Literal>> = (0..n)
        .map(|_| {
            types
                .iter()
                .map(|t| {
                    shardc::Literal::from_f64(t.dtype, &t.shape, &vec![0.5; t.num_elements()])
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let e = exe
        .run(&CpuMesh::new(n).unwrap(), args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("runs on the cuda backend's devices"), "{e}");
}
