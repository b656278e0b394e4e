//! shardc: a JAX-style sharding compiler and runtime.
//!
//! Write a program over global tensors with [`jit`], annotate arguments and results with
//! [`P!`] partition specs over a named [`Mesh`], and inspect the lowered module; compile
//! it and run it on a backend (`run_simulated`, `run_cpu`, `run_mpi`, `run_cuda`, or the
//! stateful [`Program`]s (`CpuProgram`, `CudaProgram`) and `MpiProgram`, all [`Resident`]).
//!
//! Training (strategies, optimizers, checkpoints, restart) is the `shardc-train` crate;
//! the `shardc` command line and its benchmarks are `shardc-cli`.

// Every public item of the user-facing crate says what it is (rustdoc, `cargo doc` in CI).
#![warn(missing_docs)]

#[cfg(feature = "cuda")]
mod cuda;
mod einsum;
mod engine;
mod error;
mod jit;
#[cfg(feature = "mpi")]
mod mpi;
mod nn;
mod on_devices;
mod program;
mod recompute;
mod resident;
mod simulate;
mod spec;
mod trace;

#[cfg(feature = "cuda")]
pub use cuda::{run_cuda, target_of};
pub use engine::Engine;
pub use error::Error;
pub use jit::{IntoOutputs, Jit, Lowered, TraceFn, jit};
#[cfg(all(feature = "mpi", feature = "cuda"))]
pub use mpi::run_cuda_mpi;
#[cfg(feature = "mpi")]
pub use mpi::{MpiProgram, OnRank, run_mpi};
pub use on_devices::OnDevices;
#[cfg(feature = "cuda")]
pub use program::CudaProgram;
pub use program::{CpuProgram, Offloading, Program, Run, run_cpu};
pub use recompute::{RematChoice, choose_remat};
pub use resident::Resident;
pub use shardc_compiler as compiler;
pub use shardc_compiler::{Compiled, Options, Stage};
pub use shardc_ir::{self as ir, DType, Distribution, Literal, Mesh, TensorType};
pub use shardc_runtime as runtime;
pub use simulate::{run_simulated, run_simulated_with};
pub use spec::{DimSpec, PartitionSpec};
pub use trace::{RematPolicy, Tensor, fori_loop, named_scope, remat};

/// Autodiff (`docs/autodiff.md`): `value_and_grad`, `grad`, the VJP rules; its Rust
/// examples are compiled as doctests.
#[doc = include_str!("../docs/autodiff.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod autodiff_guide {}
/// The runtime guide (`docs/runtime.md`); its Rust examples are compiled as doctests.
#[doc = include_str!("../docs/runtime.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod runtime_guide {}

/// Propagation, partitioning, `explain` and the decisions snapshot
/// (`docs/partitioning.md`); its Rust examples are compiled and run as doctests.
#[doc = include_str!("../docs/partitioning.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod partitioning_guide {}

/// Kernels: lowering through MLIR, the CPU JIT and GPU PTX (`docs/kernels.md`); its Rust
/// example is compiled and run as a doctest.
#[doc = include_str!("../docs/kernels.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod kernels_guide {}

/// Sharding rules: how each op's dimensions relate, the table propagation and partitioning
/// read (`docs/rules.md`); its Rust example is compiled and run as a doctest.
#[doc = include_str!("../docs/rules.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod rules_guide {}

/// The cross-check against upstream MLIR's partitioner (`docs/upstream-mlir.md`); its
/// Rust example is compiled as a doctest.
#[doc = include_str!("../docs/upstream-mlir.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod upstream_mlir_guide {}

/// Topologies: nodes, links, hierarchical all-reduce and emulated nodes
/// (`docs/topology.md`); its Rust example is compiled and run as a doctest.
#[doc = include_str!("../docs/topology.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod topology_guide {}

/// Every `Tensor` method (`docs/tensor.md`).
#[doc = include_str!("../docs/tensor.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod tensor_guide {}

/// How the crates and passes fit together (`docs/ARCHITECTURE.md`).
#[doc = include_str!("../docs/ARCHITECTURE.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod architecture {}

/// The corpus of real JAX programs the tests run (`docs/corpus.md`, generated).
#[doc = include_str!("../docs/corpus.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod corpus {}

/// The sharding syntax reference (`docs/sharding.md`); its Rust examples are compiled as doctests.
#[doc = include_str!("../docs/sharding.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod sharding_syntax {}
