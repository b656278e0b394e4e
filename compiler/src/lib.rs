//! shardc compiler: the passes, the cost model, and everything that talks to MLIR.

pub mod upstream;
