//! The shardc compiler: the passes, the cost model, and everything that talks to MLIR.

pub mod bucket;
pub mod constrain;
pub mod cost;
pub mod differentiate;
pub mod egraph;
pub mod error;
pub mod explain;
pub mod extract;
pub mod gpu_program;
pub mod inline;
pub mod layout;
pub mod linear;
pub mod localize;
pub mod lower;
pub mod mask;
pub mod memory;
pub mod mlir;
pub mod offset;
pub mod partition;
pub mod pipeline;
pub mod propagate;
pub mod regather;
pub mod reshard;
pub mod rotate;
pub mod simplify;
pub mod upstream;
pub mod vjp;

pub use pipeline::{Compiled, Stage, Timings, compile};
pub use propagate::Options;
