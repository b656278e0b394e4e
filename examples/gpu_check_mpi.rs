//! The cuda backend with one MPI process per GPU (`CudaMpiMesh`, `shardc::run_cuda_mpi`) on
//! a machine with NVIDIA GPUs (`scripts/gpu-check.sh` runs it where `mpirun` is installed):
//!
//! ```sh
//! cargo build --release --example gpu_check_mpi
//! mpirun -n <GPUs> target/release/examples/gpu_check_mpi [--random N]
//! mpirun --oversubscribe -n 8 target/release/examples/gpu_check_mpi   # ranks sharing GPUs
//! ```
//!
//! Under `mpirun -n W`: the canonical partitioned programs and `--random` random f32
//! programs (8) whose device count divides `W` through `run_cuda_mpi` (the world split into
//! meshes of their size) against the reference and `explain`'s bytes, and every per-device
//! op of `gpu_check`'s collectives on 8 devices (if `W` is 8) and on one device per rank
//! against the simulated mesh, with `gpu_check`'s tolerances. Collectives go through NCCL
//! (`ncclCommInitRank`, the unique id shared over MPI) where no two ranks of a node share a
//! GPU, through MPI otherwise. Every rank checks; rank 0 prints the failures and a summary;
//! the exit status (0 passed, 1 a check failed, 2 no GPU or no mesh) is every rank's.
//!
//! A binary of its own: it links the MPI library, which `gpu_check` does not need.

#[allow(dead_code)]
#[path = "gpu_check.rs"]
mod gpu_check;

use gpu_check::{Tally, check_global, collectives_with, programs_with};
use shardc::compiler::lower::gpu::Target;
use shardc::compiler::{Compiled, Options};
use shardc::ir::{Literal, Module};
use shardc::runtime::backend::cuda::CudaOptions;
use shardc::runtime::backend::{Executable, RunReport};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let random: usize = args
        .iter()
        .position(|a| a == "--random")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    use shardc::runtime::backend::cuda::CudaMpiMesh;
    use shardc::runtime::backend::mpi::rsmpi::collective::SystemOperation;
    use shardc::runtime::backend::mpi::rsmpi::topology::Color;
    use shardc::runtime::backend::mpi::rsmpi::traits::*;
    use shardc::runtime::backend::mpi::{abort_on_panic, initialize, launched};
    use std::collections::HashMap;
    if !launched() {
        eprintln!(
            "gpu_check_mpi: one process per GPU: launch it as `mpirun -n <GPUs> gpu_check_mpi` (with more ranks than GPUs, ranks share GPUs and collectives go through MPI)"
        );
        std::process::exit(2);
    }
    let universe = match initialize() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("gpu_check_mpi: {e}");
            std::process::exit(2);
        }
    };
    abort_on_panic();
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let options = CudaOptions::default();
    let whole = match CudaMpiMesh::world(&universe, &options) {
        Ok(m) => m,
        Err(e) => {
            // Agreed: every rank has the same error.
            if rank == 0 {
                println!(r#"{{"error":{:?}}}"#, e.to_string());
            }
            eprintln!("gpu_check_mpi: rank {rank}: {e}");
            std::process::exit(2);
        }
    };
    let target = match whole.target() {
        Ok((chip, ptx)) => Target {
            chip,
            ptx,
            libdevice: None,
        },
        Err(e) => {
            eprintln!("gpu_check_mpi: {e}");
            std::process::exit(2);
        }
    };
    let mut summary = vec![format!(
        "one process per GPU: {size} ranks, collectives {:?}, PTX target {} ISA {}",
        whole.collectives(),
        target.chip,
        target.ptx
    )];
    // A mesh of `k` ranks for each `k` dividing the world's size (made in the same order
    // on every rank): rank r is device r % k of mesh r / k.
    let mut meshes: HashMap<usize, CudaMpiMesh> = HashMap::new();
    for k in (1..=size).filter(|k| size % k == 0) {
        let part = world
            .split_by_color(Color::with_value((rank / k) as i32))
            .expect("every rank has a color");
        match CudaMpiMesh::new(&universe, &part, &options) {
            Ok(m) => {
                meshes.insert(k, m);
            }
            Err(e) => summary.push(format!("meshes of {k} ranks not made: {e}")),
        }
    }
    let check = |m: &Module, args: &[Literal], options: &Options| {
        let run = |c: &Compiled| -> Result<Option<(Vec<Literal>, RunReport)>, String> {
            let Some(mesh) = meshes.get(&c.partitioned.mesh.num_devices()) else {
                return Ok(None);
            };
            shardc::run_cuda_mpi(mesh, c, args, 1e-4)
                .map(|r| Some((r.outputs, r.report)))
                .map_err(|e| format!("run: {e}"))
        };
        check_global(None, m, args, options, &run)
    };
    let start = Instant::now();
    let (canonical, rand) = programs_with(random, &check);
    let mut coll = Tally::default();
    let mut modes = Vec::new();
    for (k, what) in [(8, "8 devices, one per rank"), (1, "1 device per rank")] {
        let Some(mesh) = meshes.get(&k) else {
            continue;
        };
        modes.push(format!("{what}: {:?}", mesh.collectives()));
        let run = |exe: &Executable, args: Vec<Vec<Literal>>| {
            let mine = args.get(mesh.device()).cloned().unwrap_or_default();
            mesh.run(exe, mine)
                .map(|r| r.outputs)
                .map_err(|e| e.to_string())
        };
        collectives_with(&target, Some(&run), k, what, &mut coll);
    }
    let mut failed = 0u64;
    let mut lines = Vec::new();
    for (t, what) in [
        (
            &canonical,
            "canonical partitioned programs vs reference, bytes vs explain".to_string(),
        ),
        (&rand, format!("{random} random f32 programs vs reference")),
        (
            &coll,
            format!("collectives vs simulated mesh ({})", modes.join("; ")),
        ),
    ] {
        failed += t.fail.len() as u64;
        if rank == 0 {
            for f in &t.fail {
                println!("FAIL mpi: {f}");
            }
            for u in &t.unlowered {
                println!("UNLOWERED mpi: {u}");
            }
        }
        lines.push(format!("one process per GPU, {}", t.line(&what)));
    }
    summary.extend(lines);
    let mut any = 0u64;
    world.all_reduce_into(&failed, &mut any, SystemOperation::max());
    if rank == 0 {
        eprintln!("mpi: {:.1}s", start.elapsed().as_secs_f64());
        println!("=== gpu_check summary ===");
        for s in &summary {
            println!("- {s}");
        }
    }
    drop(meshes);
    drop(whole);
    drop(universe);
    std::process::exit(if any > 0 { 1 } else { 0 });
}
