//! Errors of the compiler passes.

use shardc_ir::IrError;
use shardc_ir::rules::RuleError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CompileError {
    #[error(transparent)]
    Ir(#[from] IrError),

    #[error(transparent)]
    Rule(#[from] RuleError),

    /// The program uses something shardc does not handle (yet): says what, why, and what
    /// to write instead. A user error: the fix is in the program.
    #[error("{what}: {why}")]
    Unsupported { what: String, why: String },

    /// A bug in shardc, not in the program: `part` names the part of shardc that broke
    /// an invariant, `what` what it found. Report it with the program.
    #[error(
        "internal error in shardc's {part}: {what}. This is a bug in shardc, not in your program; please report it with the program"
    )]
    Internal { part: &'static str, what: String },

    /// MLIR refused a module shardc handed it (a shardc bug: its printers must only emit
    /// what MLIR accepts).
    #[error("MLIR could not {stage} the module shardc produced:\n{diagnostics}")]
    Mlir {
        stage: &'static str,
        diagnostics: String,
    },

    /// `grad`/`value_and_grad` cannot differentiate the program: `what` names the op (or
    /// the argument, or the function whose loss is wrong), `why` the rule broken, `fix` what
    /// to do instead.
    #[error("cannot differentiate {what}: {why}; {fix}")]
    NotDifferentiable {
        what: String,
        why: String,
        fix: String,
    },

    /// Every plan the search found holds more than [`crate::Options::memory_per_device`]
    /// on some device: `live` names the largest values held at the peak, with their bytes.
    #[error(
        "no plan fits {budget} B per device: the plan with the smallest peak holds {peak} B on a device at {at}, where {live} are live; shard the largest over more devices (FSDP/ZeRO-3 specs, tensor parallelism), recompute activations (`shardc::remat` around each layer), use a smaller batch, or raise Options::memory_per_device"
    )]
    OverMemory {
        budget: u64,
        peak: u64,
        at: String,
        live: String,
    },

    /// No layout of a value satisfies what is asked of it.
    #[error("no way to give {value} the layout {layout}: {why}")]
    Unreachable {
        value: String,
        layout: String,
        why: String,
    },
}

impl CompileError {
    /// A bug in `part` of shardc ([`CompileError::Internal`]).
    pub fn internal(part: &'static str, what: impl Into<String>) -> CompileError {
        CompileError::Internal {
            part,
            what: what.into(),
        }
    }
}
