//! Running a compiled program on the mpi backend from global inputs: every rank calls
//! [`run_mpi`] with the same global arguments and gets the same global results; and
//! [`run_cuda_mpi`], the same on GPUs, one process per GPU.

use crate::Error;
use crate::simulate::{sharding, unshard_results};
use shardc_compiler::Compiled;
#[cfg(feature = "cuda")]
use shardc_compiler::gpu_program::PtxCompiler;
#[cfg(feature = "cuda")]
use shardc_compiler::lower::gpu::Target;
use shardc_ir::Literal;
#[cfg(feature = "cuda")]
use shardc_runtime::backend::cuda::CudaMpiMesh;
use shardc_runtime::backend::mpi::MpiMesh;
use shardc_runtime::backend::{Executable, RunOptions, RunReport, RuntimeError};
use shardc_runtime::engine::Compute;
use shardc_runtime::shard;

/// A run on the mpi backend, as every rank sees it: the global results and the run's
/// report (every device's pieces, the bytes every device sent per collective, every
/// device's spans).
#[derive(Clone, Debug)]
pub struct MpiRun {
    pub outputs: Vec<Literal>,
    pub report: RunReport,
}

/// Runs a compiled program on an MPI mesh, this process being device `mesh.device()`:
/// shards the global `args` for this device as the partitioned program expects, runs
/// (`engine` computing), gathers every device's results and reassembles the global ones,
/// checking that devices holding the same piece agree within `tolerance`. Collective:
/// every rank of the mesh calls it with the same program and arguments. The mesh must have
/// as many ranks as the program's mesh has devices.
pub fn run_mpi(
    mesh: &MpiMesh,
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
) -> Result<MpiRun, Error> {
    run_mpi_with(mesh, c, args, engine, tolerance, &RunOptions::default())
}

/// [`run_mpi`] with run options (overlap on or off).
pub fn run_mpi_with(
    mesh: &MpiMesh,
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
    options: &RunOptions,
) -> Result<MpiRun, Error> {
    let ids = device_ids(c, mesh.devices())?;
    let position = ids.iter().position(|&id| id == mesh.device()).unwrap_or(0);
    // What may fail on one rank only is agreed on before the run's first collective.
    let local = prepare(c, args, position, engine).map_err(|e| RuntimeError::Remote {
        device: mesh.device(),
        message: e.to_string(),
    });
    let (exe, mine) = mesh.agree(local)?;
    let report = mesh.run_with(&exe, mine, options)?;
    let by_position: Vec<Vec<Literal>> = ids.iter().map(|&id| report.outputs[id].clone()).collect();
    let outputs = unshard_results(c, by_position, tolerance)?;
    Ok(MpiRun { outputs, report })
}

/// The device id at each position of the program's mesh, checked to be the ranks
/// `0..ranks`, each once.
fn device_ids(c: &Compiled, ranks: usize) -> Result<Vec<usize>, Error> {
    let m = &c.partitioned.mesh;
    let n = m.num_devices();
    if ranks != n {
        return Err(RuntimeError::WorldSize { program: n, ranks }.into());
    }
    // The devices are named by id; the pieces come by mesh position.
    let ids: Vec<usize> = (0..n).map(|pos| m.device_at(pos)).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    if sorted != (0..n).collect::<Vec<_>>() {
        return Err(Error::Usage(format!(
            "mesh @{} has device ids {ids:?}; the mpi backend runs devices 0..{n} (ranks), each once",
            m.name
        )));
    }
    Ok(ids)
}

/// Runs a compiled program with one MPI process per GPU ([`CudaMpiMesh`]: this process
/// is device `mesh.device()`, on GPU `mesh.gpu()` of its node): shards the global `args`
/// for this device, compiles every segment to PTX for the mesh's GPUs
/// ([`CudaMpiMesh::target`]), runs, gathers every device's results and reassembles the
/// global ones, checking that devices holding the same piece agree within `tolerance`.
/// Collective: every rank of the mesh calls it with the same program and arguments; the
/// mesh has as many ranks as the program's mesh has devices (`mpirun -n <devices>`).
/// Every rank gets the same results, or the same error.
#[cfg(feature = "cuda")]
pub fn run_cuda_mpi(
    mesh: &CudaMpiMesh,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<MpiRun, Error> {
    let ids = device_ids(c, mesh.devices())?;
    let position = ids.iter().position(|&id| id == mesh.device()).unwrap_or(0);
    // Compiling and sharding may fail on one rank only: agreed before the run.
    let local = mesh
        .target()
        .map_err(Error::from)
        .and_then(|(chip, ptx)| {
            let compiler = PtxCompiler::new(Target {
                chip,
                ptx,
                libdevice: None,
            });
            prepare(c, args, position, &compiler)
        })
        .map_err(|e| RuntimeError::Remote {
            device: mesh.device(),
            message: e.to_string(),
        });
    let (exe, mine) = mesh.mpi().agree(local)?;
    let report = mesh.run(&exe, mine)?;
    let by_position: Vec<Vec<Literal>> = ids.iter().map(|&id| report.outputs[id].clone()).collect();
    let outputs = unshard_results(c, by_position, tolerance)?;
    Ok(MpiRun { outputs, report })
}

/// The executable, and this device's pieces of the global arguments.
fn prepare(
    c: &Compiled,
    args: &[Literal],
    position: usize,
    engine: &dyn Compute,
) -> Result<(Executable, Vec<Literal>), Error> {
    let p = &c.partitioned;
    if args.len() != p.inputs.len() {
        return Err(Error::Usage(format!(
            "the program takes {} arguments, {} were given",
            p.inputs.len(),
            args.len()
        )));
    }
    let mine = args
        .iter()
        .zip(&p.inputs)
        .map(|(a, l)| {
            shard::shard_with(a, &sharding(c, l)?, &p.mesh, position, p.uneven)
                .map_err(|e| Error::Usage(e.to_string()))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let exe = Executable::new(&p.module, "main", engine)?;
    Ok((exe, mine))
}
