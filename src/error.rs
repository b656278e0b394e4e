//! Errors of the user-facing API.

use shardc_ir::IrError;
use shardc_runtime::backend::RuntimeError;
use shardc_runtime::reference::InterpError;
use std::panic::Location;
use thiserror::Error;

/// What can go wrong tracing, compiling, running or training; every variant names what
/// failed and, where a user can act, how to fix it.
#[derive(Debug, Error)]
pub enum Error {
    /// A traced operation was given shapes or types it cannot take. `at` is the caller's line.
    #[error("{method} at {at}: {source}")]
    Trace {
        /// The `Tensor` method that failed (`matmul`).
        method: &'static str,
        /// The caller's source line.
        at: &'static Location<'static>,
        /// The typing rule broken.
        #[source]
        source: Box<IrError>,
    },

    /// The `jit` call itself is inconsistent (shardings vs arguments, a missing mesh, ...).
    #[error("{0}")]
    Usage(String),

    /// The program is not valid IR (parsing or verification).
    #[error(transparent)]
    Ir(Box<IrError>),

    /// The reference interpreter could not run the program.
    #[error(transparent)]
    Run(Box<InterpError>),

    /// Propagation, partitioning, autodiff or lowering refused the program.
    #[error(transparent)]
    Compile(Box<shardc_compiler::error::CompileError>),

    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },

    /// A backend could not prepare or run the partitioned program.
    #[error(transparent)]
    Runtime(Box<RuntimeError>),

    /// A checkpoint file cannot be written or is not one this training step can load.
    #[error("checkpoint {}: {problem}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// What is wrong, and what to do.
        problem: String,
    },

    /// A checkpoint file is damaged: truncated, not a checkpoint's layout, or a tensor
    /// that does not match the checksum it was saved with. Resuming skips it for the
    /// previous checkpoint.
    #[error("checkpoint {} is damaged: {problem}", path.display())]
    CheckpointDamaged {
        /// The damaged file.
        path: std::path::PathBuf,
        /// Which tensor or part is damaged.
        problem: String,
    },

    /// Training failed more often than it may restart.
    #[error("training gave up after {restarts} restarts; the last failure, at step {step}: {last}")]
    GaveUp {
        /// Restarts made.
        restarts: usize,
        /// The step the last failure happened at.
        step: usize,
        /// The last failure.
        last: Box<Error>,
    },
}

impl Error {
    /// Whether the error is a device failing during a run (a kernel, a thread, a peer, an
    /// MPI rank or a GPU), which running again from a checkpoint may get past — unlike a
    /// program or its inputs being wrong, which would fail again.
    pub fn is_device_failure(&self) -> bool {
        matches!(
            self,
            Error::Runtime(e) if matches!(
                **e,
                RuntimeError::Device { .. } | RuntimeError::Remote { .. } | RuntimeError::Spawn { .. }
            )
        )
    }
}

impl From<RuntimeError> for Error {
    fn from(e: RuntimeError) -> Error {
        Error::Runtime(Box::new(e))
    }
}

impl From<IrError> for Error {
    fn from(e: IrError) -> Error {
        Error::Ir(Box::new(e))
    }
}

impl From<InterpError> for Error {
    fn from(e: InterpError) -> Error {
        Error::Run(Box::new(e))
    }
}
