//! The shardc runtime: the reference interpreter, devices, collectives and backends.

#![warn(missing_docs)]

pub mod backend;
pub mod engine;
pub mod launch;
pub mod reference;
pub mod shard;
pub mod simulate;
