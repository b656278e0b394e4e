//! The shardc compiler: propagation, partitioning and lowering through MLIR.

pub mod layout;
pub mod reshard;
