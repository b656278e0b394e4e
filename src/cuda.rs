//! The cuda backend's [`CudaProgram`]: a mesh of the program's size, each segment
//! compiled to PTX for the GPUs' compute capability.

use crate::Error;
use crate::program::{CudaProgram, Placement, Program, Run};
use shardc_compiler::Compiled;
use shardc_compiler::lower::gpu::Target;
use shardc_compiler::lower::gpu_program::PtxCompiler;
use shardc_ir::Literal;
use shardc_runtime::backend::cuda::{CudaMesh, CudaOptions};

/// Shards global `args` as the partitioned program expects, runs it on a [`CudaMesh`] of
/// the program's size (device `d` on GPU `d % gpus`; every segment compiled to PTX for
/// the GPUs' compute capability), and reassembles the results, checking that devices
/// holding the same piece agree within `tolerance`. Fails with
/// `RuntimeError::NoCudaDriver` on a machine without an NVIDIA driver.
pub fn run_cuda(c: &Compiled, args: &[Literal], tolerance: f64) -> Result<Run, Error> {
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

impl Program<CudaMesh> {
    /// Prepares `c` for a cuda mesh of its size, every segment compiled to PTX.
    pub fn new(c: &Compiled, options: &CudaOptions) -> Result<CudaProgram, Error> {
        let place = Placement::new(c, "cuda")?;
        let mesh = CudaMesh::with_options(place.devices(), options)?;
        let compiler = PtxCompiler::new(target_of(&mesh)?);
        Program::on(c, mesh, place, &compiler)
    }
}
