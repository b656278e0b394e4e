//! Running a compiled program on the cpu backend from global inputs.

use crate::Error;
use crate::simulate::{shard_args, unshard_results};
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::{Executable, RunOptions, RunReport};
use shardc_runtime::engine::Compute;

/// A run on the cpu backend: the global results and the run's report (each device's
/// pieces, bytes sent per collective, the trace).
#[derive(Clone, Debug)]
pub struct CpuRun {
    pub outputs: Vec<Literal>,
    pub report: RunReport,
}

/// Shards global `args` as the partitioned program expects, runs it on a cpu mesh of the
/// program's size (one thread per device, `engine` computing), and reassembles the
/// results, checking that devices holding the same piece agree within `tolerance`.
pub fn run_cpu(
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
) -> Result<CpuRun, Error> {
    run_cpu_with(c, args, engine, tolerance, &RunOptions::default())
}

/// [`run_cpu`] with run options (overlap on or off).
pub fn run_cpu_with(
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
    options: &RunOptions,
) -> Result<CpuRun, Error> {
    let mesh = &c.partitioned.mesh;
    let n = mesh.num_devices();
    // The devices are named by id; the pieces come by mesh position.
    let ids: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
    let mut by_id: Vec<Option<usize>> = vec![None; n];
    for (pos, &id) in ids.iter().enumerate() {
        match by_id.get_mut(id) {
            Some(slot @ None) => *slot = Some(pos),
            _ => {
                return Err(Error::Usage(format!(
                    "mesh @{} has device ids {ids:?}; the cpu backend runs devices 0..{n}, each once",
                    mesh.name
                )));
            }
        }
    }
    let mut pieces: Vec<Option<Vec<Literal>>> =
        shard_args(c, args)?.into_iter().map(Some).collect();
    let per_device: Vec<Vec<Literal>> = by_id
        .iter()
        .map(|pos| pos.and_then(|p| pieces[p].take()).unwrap_or_default())
        .collect();
    let exe = Executable::new(&c.partitioned.module, "main", engine)?;
    let report = exe.run_with(&CpuMesh::new(n)?, per_device, options)?;
    let by_position: Vec<Vec<Literal>> = ids.iter().map(|&id| report.outputs[id].clone()).collect();
    let outputs = unshard_results(c, &by_position, tolerance)?;
    Ok(CpuRun { outputs, report })
}
