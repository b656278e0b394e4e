//! shardc's integration tests: one binary, one module per area.

mod bench;
mod checkpoint;
mod context;
mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod decisions;
mod grad;
mod kernels;
mod moe;
mod partition;
mod peer;
mod pipeline;
mod strategies;
mod trace;
mod util;
mod vocab;
