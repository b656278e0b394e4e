//! Training on shardc: the training step (a loss, its gradients, an optimizer update and
//! a parallelism strategy traced into one program), the strategies, optimizers, pipeline
//! schedules, checkpoints, automatic restart, data and the demo's model presets.
//!
//! Built on the `shardc` crate's tracing API and runners; nothing here is needed to
//! trace, compile or run a program of one's own.

pub mod checkpoint;
pub mod data;
pub mod models;
pub mod optim;
pub mod pipelining;
pub mod precision;
pub mod presets;
pub mod progress;
pub mod restart;
pub mod sampler;
pub mod session;
pub mod step;
pub mod strategy;

/// Pipeline parallelism (`docs/pipeline.md`); its Rust example is compiled and run as a
/// doctest.
#[doc = include_str!("../../docs/pipeline.md")]
pub mod pipeline_guide {}
