//! shardc's integration tests: one binary, one module per area.

mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod grad;
mod partition;
mod strategies;
mod trace;
