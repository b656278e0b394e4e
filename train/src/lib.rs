//! Training on shardc: the training step (a loss, its gradients, an optimizer update and
//! a parallelism strategy traced into one program), the strategies, optimizers, pipeline
//! schedules, checkpoints, automatic restart, data and the demo's model presets.
//!
//! Built on the `shardc` crate's tracing API and runners; nothing here is needed to
//! trace, compile or run a program of one's own.

// Every public item says what it is (rustdoc, `cargo doc` in CI).
#![warn(missing_docs)]

pub mod checkpoint;
pub mod data;
pub mod models;
pub mod optim;
pub mod pipelining;
pub mod plan;
pub mod precision;
pub mod presets;
pub mod progress;
pub mod restart;
pub mod sampler;
pub mod session;
pub mod step;
pub mod strategy;

/// Training strategies, schedules, the sampler, mixed precision (`docs/training.md`); its
/// Rust example is compiled and run as a doctest.
#[doc = include_str!("../../docs/training.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod training_guide {}

/// Checkpoints: the format, checksums, resuming (`docs/checkpoint.md`).
#[doc = include_str!("../../docs/checkpoint.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod checkpoint_guide {}

/// Pipeline parallelism (`docs/pipeline.md`); its Rust example is compiled and run as a
/// doctest.
#[doc = include_str!("../../docs/pipeline.md")]
#[allow(rustdoc::broken_intra_doc_links)] // brackets in prose and tables, not links
pub mod pipeline_guide {}
