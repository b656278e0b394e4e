//! The shardc compiler: the passes, the cost model, and everything that talks to MLIR.

pub mod cost;
pub mod egraph;
pub mod error;
pub mod extract;
pub mod inline;
pub mod layout;
pub mod mlir;
pub mod propagate;
pub mod reshard;
pub mod upstream;
