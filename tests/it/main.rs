//! shardc's integration tests: one binary, one module per area.

mod partition;
mod trace;
