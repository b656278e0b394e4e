//! The shardc compiler: the passes, the cost model, and everything that talks to MLIR.

pub mod constrain;
pub mod cost;
pub mod egraph;
pub mod error;
pub mod explain;
pub mod extract;
pub mod inline;
pub mod layout;
pub mod linear;
pub mod localize;
pub mod lower;
pub mod memory;
pub mod mlir;
pub mod partition;
pub mod pipeline;
pub mod propagate;
pub mod reshard;
pub mod upstream;

pub use pipeline::{Compiled, Stage, compile};
pub use propagate::Options;
