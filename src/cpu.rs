//! Running a compiled program on the cpu backend from global inputs.

use crate::Error;
use crate::on_devices::{OnDevices, Placement};
use crate::simulate::unshard_results;
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::{Executable, RunOptions, RunReport};
use shardc_runtime::engine::Compute;

/// A run on the cpu backend: the global results and the run's report (bytes sent per
/// collective, the trace; its per-device `outputs` are empty, reassembled into `outputs`).
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
    place: Placement,
}

impl CpuProgram {
    pub fn new(c: &Compiled, engine: &dyn Compute) -> Result<CpuProgram, Error> {
        let place = Placement::new(c, "cpu")?;
        Ok(CpuProgram {
            exe: Executable::new(&c.partitioned.module, c.entry_name(), engine)?,
            mesh: CpuMesh::new(place.devices())?,
            place,
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
        let (results, report) = self.call(self.put(c, args)?, options)?;
        let outputs = unshard_results(c, self.place.by_position(results), tolerance)?;
        Ok(CpuRun { outputs, report })
    }

    /// Shards global `args` onto the devices, as the partitioned program takes them.
    pub fn put(&self, c: &Compiled, args: &[Literal]) -> Result<OnDevices, Error> {
        self.place.put(c, args)
    }

    /// Runs on arguments already on the devices; the results stay there (the report's
    /// `outputs` are empty: they are the returned [`OnDevices`]).
    pub fn call(
        &self,
        args: OnDevices,
        options: &RunOptions,
    ) -> Result<(OnDevices, RunReport), Error> {
        let mut report = self.exe.run_with(&self.mesh, args.into_pieces(), options)?;
        let pieces = std::mem::take(&mut report.outputs);
        Ok((OnDevices::from_pieces(pieces), report))
    }

    /// The global value of result `k` of a [`CpuProgram::call`], checking that devices
    /// holding the same piece agree within `tolerance`.
    pub fn get(
        &self,
        c: &Compiled,
        results: &OnDevices,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        self.place.get(c, results, k, tolerance)
    }

    /// The arguments of the next call from the results of this one: `carry` lists
    /// (result, argument) pairs — a training step's new parameters and optimizer state
    /// become the next step's — and `fresh` the other arguments as global values (the
    /// step number, the batch), which are sharded.
    ///
    /// A carried result that leaves in the layout its argument arrives in moves as it is:
    /// no copy, no communication, as JAX feeds a step's sharded outputs to the next step.
    /// One whose layout differs is reassembled from its pieces and sharded again (the
    /// first device holding each piece gives it).
    pub fn next_args(
        &self,
        c: &Compiled,
        results: OnDevices,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<OnDevices, Error> {
        self.place.next_args(c, results, carry, fresh)
    }
}
