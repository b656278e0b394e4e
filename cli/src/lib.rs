//! The `shardc` command line's library half: the benchmarks that `shardc bench` runs and
//! prints as JSON (`bench`) and `shardc run` (`run`), kept out of the `shardc` library so
//! that a user program links none of their dependencies.

#![warn(missing_docs)]

pub mod bench;
pub mod bench_topology;
pub mod calibrate;
pub mod peer;
pub mod plan;
pub mod plans;
pub mod run;
