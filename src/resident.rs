//! What every backend that keeps values on its devices between calls offers, so that a
//! training loop, its checkpoints and its restarts are written once
//! (`shardc_train::session`): put global values on the devices, call the program on them,
//! get one result back as a global value, feed results to the next call.
//!
//! Implemented once by [`crate::Program`] for every mesh of one process (`CpuProgram`: a
//! thread per device; `CudaProgram`: GPUs, the pieces waiting on the host between calls)
//! and by `MpiProgram` (a process per device, every method collective).

use crate::Error;
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::{RunOptions, RunReport};

/// A compiled program prepared for a backend, its values kept on the devices between
/// calls ([`crate::Program`], `MpiProgram`).
pub trait Resident {
    /// Values held on the devices: one piece per device and value.
    type Values;

    /// Shards global `args` onto the devices, as the partitioned program takes them.
    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<Self::Values, Error>;

    /// Runs on arguments already on the devices; the results stay there.
    fn call(
        &self,
        args: Self::Values,
        options: &RunOptions,
    ) -> Result<(Self::Values, RunReport), Error>;

    /// The global value of result `k`, checking that devices holding the same piece agree
    /// within `tolerance`.
    fn get(
        &self,
        c: &Compiled,
        results: &Self::Values,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error>;

    /// The next call's arguments: `carry` (result, argument) pairs, `fresh` global values
    /// for the other arguments.
    fn next_args(
        &self,
        c: &Compiled,
        results: Self::Values,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<Self::Values, Error>;

    /// This process's rank among the processes running the program (0 when one process
    /// runs every device). Rank 0 is the one that writes files (checkpoints).
    fn rank(&self) -> usize {
        0
    }

    /// The bytes rank 0 gives, on every process (`mine` is read on rank 0 only): how a
    /// checkpoint rank 0 read reaches the others, whether or not they see its files.
    fn broadcast_from_rank0(&self, mine: Vec<u8>) -> Result<Vec<u8>, Error> {
        Ok(mine)
    }
}
