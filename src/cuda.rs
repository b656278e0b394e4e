//! Running a compiled program on the cuda backend from global inputs.

use crate::Error;
use crate::on_devices::{OnDevices, Placement};
use crate::simulate::unshard_results;
use shardc_compiler::Compiled;
use shardc_compiler::lower::gpu::Target;
use shardc_compiler::lower::gpu_program::PtxCompiler;
use shardc_ir::Literal;
use shardc_runtime::backend::cuda::{CudaMesh, CudaOptions};
use shardc_runtime::backend::{Executable, RunOptions, RunReport};

/// A run on the cuda backend: the global results and the run's report.
#[derive(Clone, Debug)]
pub struct CudaRun {
    pub outputs: Vec<Literal>,
    pub report: RunReport,
}

/// Shards global `args` as the partitioned program expects, runs it on a [`CudaMesh`] of
/// the program's size (device `d` on GPU `d % gpus`; every segment compiled to PTX for
/// the GPUs' compute capability), and reassembles the results, checking that devices
/// holding the same piece agree within `tolerance`. Fails with
/// `RuntimeError::NoCudaDriver` on a machine without an NVIDIA driver.
pub fn run_cuda(c: &Compiled, args: &[Literal], tolerance: f64) -> Result<CudaRun, Error> {
    CudaProgram::new(c, &CudaOptions::default())?.run(c, args, tolerance)
}

/// The PTX target for every GPU of a mesh (see [`CudaMesh::target`]).
pub fn target_of(mesh: &CudaMesh) -> Result<Target, Error> {
    let (chip, ptx) = mesh.target()?;
    Ok(Target {
        chip,
        ptx,
        libdevice: None,
    })
}

/// A compiled program prepared once for the cuda backend: a mesh of its size, each
/// segment compiled to PTX, to run many times.
pub struct CudaProgram {
    exe: Executable,
    mesh: CudaMesh,
    compiler: PtxCompiler,
    place: Placement,
}

impl CudaProgram {
    pub fn new(c: &Compiled, options: &CudaOptions) -> Result<CudaProgram, Error> {
        let place = Placement::new(c, "cuda")?;
        let cuda = CudaMesh::with_options(place.devices(), options)?;
        let compiler = PtxCompiler::new(target_of(&cuda)?);
        Ok(CudaProgram {
            exe: Executable::new(&c.partitioned.module, c.entry_name(), &compiler)?,
            mesh: cuda,
            compiler,
            place,
        })
    }

    pub fn mesh(&self) -> &CudaMesh {
        &self.mesh
    }

    pub fn compiler(&self) -> &PtxCompiler {
        &self.compiler
    }

    pub fn executable(&self) -> &Executable {
        &self.exe
    }

    /// Runs on global arguments; returns the global results and the run's report.
    pub fn run(&self, c: &Compiled, args: &[Literal], tolerance: f64) -> Result<CudaRun, Error> {
        let (results, report) = self.call(self.put(c, args)?, &RunOptions::default())?;
        let outputs = unshard_results(c, self.place.by_position(results), tolerance)?;
        Ok(CudaRun { outputs, report })
    }

    /// Shards global `args` for the devices. The pieces are kept on the host between
    /// calls and copied to the GPUs by each call (state resident on the GPUs is issue
    /// 18's); the interface is the cpu backend's, so a training loop is the same.
    pub fn put(&self, c: &Compiled, args: &[Literal]) -> Result<OnDevices, Error> {
        self.place.put(c, args)
    }

    /// Runs on the pieces `put` or `next_args` gave; the results' pieces come back.
    pub fn call(
        &self,
        args: OnDevices,
        options: &RunOptions,
    ) -> Result<(OnDevices, RunReport), Error> {
        let mut report = self.exe.run_with(&self.mesh, args.into_pieces(), options)?;
        let pieces = std::mem::take(&mut report.outputs);
        Ok((OnDevices::from_pieces(pieces), report))
    }

    /// The global value of result `k` of a call.
    pub fn get(
        &self,
        c: &Compiled,
        results: &OnDevices,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        self.place.get(c, results, k, tolerance)
    }

    /// The next call's arguments, as [`crate::CpuProgram::next_args`].
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
