//! The shardc compiler: the passes, the cost model, and everything that talks to MLIR.

pub mod layout;
pub mod reshard;
pub mod upstream;
