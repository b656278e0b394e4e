//! shardc's integration tests: one binary, one module per area.

mod cpu;
mod partition;
mod trace;
