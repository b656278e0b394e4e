//! What every backend that keeps values on its devices between calls offers, so that a
//! training loop, its checkpoints and its restarts are written once
//! (`shardc_train::session`): put global values on the devices, call the program on them,
//! get one result back as a global value, feed results to the next call.
//!
//! Implemented by [`crate::CpuProgram`] (one process, a thread per device), `MpiProgram`
//! (a process per device, every method collective) and `CudaProgram` (GPUs of one process;
//! its pieces wait on the host between calls).

use crate::Error;
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::{RunOptions, RunReport};

/// A compiled program prepared for a backend, its values kept on the devices between
/// calls ([`crate::CpuProgram`], `MpiProgram`).
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

impl Resident for crate::CpuProgram {
    type Values = crate::OnDevices;

    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<Self::Values, Error> {
        crate::CpuProgram::put(self, c, args)
    }

    fn call(
        &self,
        args: Self::Values,
        options: &RunOptions,
    ) -> Result<(Self::Values, RunReport), Error> {
        crate::CpuProgram::call(self, args, options)
    }

    fn get(
        &self,
        c: &Compiled,
        results: &Self::Values,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        crate::CpuProgram::get(self, c, results, k, tolerance)
    }

    fn next_args(
        &self,
        c: &Compiled,
        results: Self::Values,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<Self::Values, Error> {
        crate::CpuProgram::next_args(self, c, results, carry, fresh)
    }
}

#[cfg(feature = "mpi")]
impl Resident for crate::MpiProgram<'_, '_> {
    type Values = crate::OnRank;

    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<Self::Values, Error> {
        crate::MpiProgram::put(self, c, args)
    }

    fn call(
        &self,
        args: Self::Values,
        options: &RunOptions,
    ) -> Result<(Self::Values, RunReport), Error> {
        crate::MpiProgram::call(self, args, options)
    }

    fn get(
        &self,
        c: &Compiled,
        results: &Self::Values,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        crate::MpiProgram::get(self, c, results, k, tolerance)
    }

    fn next_args(
        &self,
        c: &Compiled,
        results: Self::Values,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<Self::Values, Error> {
        crate::MpiProgram::next_args(self, c, results, carry, fresh)
    }

    fn rank(&self) -> usize {
        self.mesh().device()
    }

    fn broadcast_from_rank0(&self, mine: Vec<u8>) -> Result<Vec<u8>, Error> {
        Ok(self.mesh().broadcast_bytes(0, mine))
    }
}

#[cfg(feature = "cuda")]
impl Resident for crate::CudaProgram {
    type Values = crate::OnDevices;

    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<Self::Values, Error> {
        crate::CudaProgram::put(self, c, args)
    }

    fn call(
        &self,
        args: Self::Values,
        options: &RunOptions,
    ) -> Result<(Self::Values, RunReport), Error> {
        crate::CudaProgram::call(self, args, options)
    }

    fn get(
        &self,
        c: &Compiled,
        results: &Self::Values,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        crate::CudaProgram::get(self, c, results, k, tolerance)
    }

    fn next_args(
        &self,
        c: &Compiled,
        results: Self::Values,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<Self::Values, Error> {
        crate::CudaProgram::next_args(self, c, results, carry, fresh)
    }
}
