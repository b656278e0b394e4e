//! shardc's integration tests: one binary, one module per area.

mod trace;
