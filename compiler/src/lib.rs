//! The shardc compiler: the passes, the cost model, and everything that talks to MLIR.
//!
//! [`compile`] (in `pipeline.rs`) runs the passes in this order:
//!
//! ```text
//! autodiff::differentiate   value_and_grad / grad as a module transform (on request)
//! passes::inline            calls inlined
//! passes::constrain         per-op result shardings become sharding constraints
//! passes::fold              transposes of dot results folded into the dot (operands swapped)
//! passes::propagate         equality saturation over physical values (egg)
//! passes::extract           the cheapest DAG of layouts (the cost model: sharding::cost)
//! passes::partition         the per-device program with explicit collectives
//! passes::bucket            DDP: gradient all-reduces fused into buckets (when asked)
//! passes::regather          ZeRO-3/FSDP: parameters gathered again near each use (when asked)
//! passes::route             collectives across nodes routed hierarchically (with a topology)
//! passes::explain           the decisions, their causes and the alternatives that lost
//! passes::mlir              import into MLIR and verify
//! lower                     segments to MLIR kernels: CPU JIT, GPU PTX
//! ```
//!
//! The folders: `passes/` (one file per pass, named after its verb), `sharding/` (the
//! model they reason with: layouts, resharding plans, costs, the e-graph), `local/`
//! (per-op knowledge of running an op on local pieces, used by the partitioner),
//! `autodiff/`, `lower/` (MLIR), and `upstream/` (the cross-check against upstream
//! MLIR's shard dialect).

#![warn(missing_docs)]

pub mod error;
pub mod pipeline;

/// One file per pass, named after its verb.
pub mod passes {
    pub mod bucket;
    pub mod constrain;
    pub mod decompose;
    pub mod explain;
    pub mod extract;
    pub mod fold;
    pub mod inline;
    pub mod memory;
    pub mod mlir;
    pub mod narrow;
    pub mod partition;
    pub mod prefetch;
    pub mod propagate;
    pub mod prune;
    pub mod regather;
    pub mod route;
    pub mod scatter;
    pub mod trim;
}

/// The model the passes reason with: physical layouts, resharding plans between them,
/// their costs, and the e-graph of physical values.
pub mod sharding {
    pub mod cost;
    pub mod egraph;
    pub mod layout;
    pub mod reshard;
}

/// Per-op knowledge of running an op on local pieces (tables the partitioner reads).
pub mod local {
    pub mod linear;
    pub mod localize;
    pub mod loops;
    pub mod manual;
    pub mod mask;
    pub mod offset;
    pub mod rotate;
}

/// Reverse-mode autodiff (`docs/autodiff.md`).
pub mod autodiff {
    pub mod differentiate;
    pub mod simplify;
    pub mod vjp;
}

pub mod lower;
pub mod upstream;

pub use passes::propagate::Options;
pub use pipeline::{Compiled, Stage, Timings, compile};
pub use sharding::cost::CostModel;
