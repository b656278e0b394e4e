//! The shardc runtime: the reference interpreter, devices, collectives and backends.

pub mod engine;
pub mod reference;
pub mod shard;
pub mod simulate;
