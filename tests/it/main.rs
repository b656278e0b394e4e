//! shardc's integration tests: one binary, one module per area.

mod kernels;
mod partition;
mod trace;
