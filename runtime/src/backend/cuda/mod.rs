//! The cuda backend: the same [`Executable`](super::Executable) on NVIDIA GPUs.
//!
//! Each compute segment is a [`GpuProgram`] — PTX from the compiler's GPU path
//! (`shardc_compiler::lower::gpu_program::PtxCompiler`, a [`Compute`](crate::engine::Compute)
//! engine whose kernels are [`GpuKernel`]s) with its buffers and launches — and a
//! `CudaMesh` (feature `cuda`) runs the per-device program with one host thread per logical
//! device: device `d` on GPU `d % gpus`, its values in device memory from the first
//! upload of its arguments to the download of its results, every segment's kernels and
//! every collective enqueued on the device's stream in program order.
//!
//! Collectives ([`plan`]): through NCCL when every logical device has a GPU of its own (one
//! communicator per distinct replica group, made once per mesh), and on the cpu backend's
//! ring algorithms staged through host memory otherwise — several logical devices on one
//! GPU (NCCL refuses a GPU twice in a communicator), no NCCL library — or for a reduction
//! NCCL cannot compute as the reference does (float `maximum`/`minimum`, bitwise ops).
//! `shard_slice` and `axis_index` run on the GPU.
//!
//! With the feature `mpi` too, [`CudaMpiMesh`] runs one logical device per MPI process
//! (`mpirun -n <GPUs>`, on one node or many) with the same per-device code: NCCL
//! communicators made with `ncclCommInitRank`, the unique id shared over MPI
//! ([`share_ids`](super::mpi::share_ids)), and host-staged collectives over MPI.
//!
//! What needs no GPU is plain code here, tested on any machine: the programs ([`program`]),
//! the kernel parameter ABI read off the PTX ([`abi`]), the device/PTX compatibility
//! ([`target`]), routes, communicators, packing copies and buffer lifetimes ([`plan`]).
//! The driver is loaded when a mesh is made (`dynamic-loading`): without one, making a
//! `CudaMesh` fails with [`RuntimeError::NoCudaDriver`](super::RuntimeError::NoCudaDriver).

pub mod abi;
#[cfg(feature = "cuda")]
mod driver;
#[cfg(feature = "cuda")]
mod mesh;
pub mod plan;
pub mod program;
#[cfg(all(feature = "cuda", feature = "mpi"))]
mod rank;
pub mod target;

#[cfg(feature = "cuda")]
pub use driver::{DriverInfo, GpuInfo, probe};
#[cfg(feature = "cuda")]
pub use mesh::{CudaMesh, CudaOptions, ProgramRun};
pub use plan::Collectives;
pub use program::{Buffer, GpuKernel, GpuLaunch, GpuModule, GpuProgram, Param};
#[cfg(all(feature = "cuda", feature = "mpi"))]
pub use rank::CudaMpiMesh;
