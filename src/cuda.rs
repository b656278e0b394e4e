//! Running a compiled program on the cuda backend from global inputs.

use crate::Error;
use crate::simulate::{shard_args, unshard_results};
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
    ids: Vec<usize>,
}

impl CudaProgram {
    pub fn new(c: &Compiled, options: &CudaOptions) -> Result<CudaProgram, Error> {
        let mesh = &c.partitioned.mesh;
        let n = mesh.num_devices();
        let ids: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
        let mut seen = vec![false; n];
        for &id in &ids {
            if id >= n || std::mem::replace(&mut seen[id], true) {
                return Err(Error::Usage(format!(
                    "mesh @{} has device ids {ids:?}; the cuda backend runs devices 0..{n}, each once",
                    mesh.name
                )));
            }
        }
        let cuda = CudaMesh::with_options(n, options)?;
        let compiler = PtxCompiler::new(target_of(&cuda)?);
        Ok(CudaProgram {
            exe: Executable::new(&c.partitioned.module, c.entry_name(), &compiler)?,
            mesh: cuda,
            compiler,
            ids,
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
        let mut pieces: Vec<Option<Vec<Literal>>> =
            shard_args(c, args)?.into_iter().map(Some).collect();
        let mut per_device: Vec<Vec<Literal>> = vec![Vec::new(); self.ids.len()];
        for (pos, &id) in self.ids.iter().enumerate() {
            per_device[id] = pieces[pos].take().unwrap_or_default();
        }
        let report = self
            .exe
            .run_with(&self.mesh, per_device, &RunOptions::default())?;
        let by_position: Vec<Vec<Literal>> = self
            .ids
            .iter()
            .map(|&id| report.outputs[id].clone())
            .collect();
        let outputs = unshard_results(c, by_position, tolerance)?;
        Ok(CudaRun { outputs, report })
    }
}
