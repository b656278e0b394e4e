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
    CpuProgram::new(c, engine)?.run_with(c, args, tolerance, options)
}

/// A compiled program prepared once for the cpu backend (each compute segment made a
/// kernel by the engine), to run many times: a training loop's step.
pub struct CpuProgram {
    exe: Executable,
    mesh: CpuMesh,
    /// Device id of each mesh position.
    ids: Vec<usize>,
}

impl CpuProgram {
    pub fn new(c: &Compiled, engine: &dyn Compute) -> Result<CpuProgram, Error> {
        let mesh = &c.partitioned.mesh;
        let n = mesh.num_devices();
        // The devices are named by id; the pieces come by mesh position.
        let ids: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
        let mut seen = vec![false; n];
        for &id in &ids {
            if id >= n || std::mem::replace(&mut seen[id], true) {
                return Err(Error::Usage(format!(
                    "mesh @{} has device ids {ids:?}; the cpu backend runs devices 0..{n}, each once",
                    mesh.name
                )));
            }
        }
        Ok(CpuProgram {
            exe: Executable::new(&c.partitioned.module, "main", engine)?,
            mesh: CpuMesh::new(n)?,
            ids,
        })
    }

    /// Runs on global arguments; returns the global results and the run's report.
    pub fn run(&self, c: &Compiled, args: &[Literal], tolerance: f64) -> Result<CpuRun, Error> {
        self.run_with(c, args, tolerance, &RunOptions::default())
    }

    pub fn run_with(
        &self,
        c: &Compiled,
        args: &[Literal],
        tolerance: f64,
        options: &RunOptions,
    ) -> Result<CpuRun, Error> {
        let mut pieces: Vec<Option<Vec<Literal>>> =
            shard_args(c, args)?.into_iter().map(Some).collect();
        let mut per_device: Vec<Vec<Literal>> = vec![Vec::new(); self.ids.len()];
        for (pos, &id) in self.ids.iter().enumerate() {
            per_device[id] = pieces[pos].take().unwrap_or_default();
        }
        let report = self.exe.run_with(&self.mesh, per_device, options)?;
        let by_position: Vec<Vec<Literal>> = self
            .ids
            .iter()
            .map(|&id| report.outputs[id].clone())
            .collect();
        let outputs = unshard_results(c, &by_position, tolerance)?;
        Ok(CpuRun { outputs, report })
    }
}
