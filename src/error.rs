//! Errors of the user-facing API.

use shardc_ir::IrError;
use std::panic::Location;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A traced operation was given shapes or types it cannot take. `at` is the caller's line.
    #[error("{method} at {at}: {source}")]
    Trace {
        method: &'static str,
        at: &'static Location<'static>,
        #[source]
        source: IrError,
    },

    /// The `jit` call itself is inconsistent (shardings vs arguments, a missing mesh, ...).
    #[error("{0}")]
    Usage(String),

    #[error(transparent)]
    Ir(#[from] IrError),

    #[error(transparent)]
    Run(#[from] shardc_runtime::reference::InterpError),
}
