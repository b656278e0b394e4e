//! shardc's integration tests: one binary, one module per area.

mod bench;
mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod grad;
mod kernels;
mod partition;
mod pipeline;
mod strategies;
mod trace;
