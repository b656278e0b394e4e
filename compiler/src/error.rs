//! Errors of the compiler passes.

use shardc_ir::IrError;
use shardc_ir::rules::RuleError;
use thiserror::Error;

/// Why a program cannot be compiled (propagated, partitioned, differentiated, lowered):
/// each message names the op or value, the rule and the fix.
#[derive(Clone, Debug, Error)]
pub enum CompileError {
    /// The module or an op is not valid IR.
    #[error(transparent)]
    Ir(#[from] IrError),

    /// An op has no sharding rule, or the rule cannot be derived.
    #[error(transparent)]
    Rule(#[from] RuleError),

    /// The program uses something shardc does not handle (yet): says what, why, and what
    /// to write instead. A user error: the fix is in the program.
    #[error("{what}: {why}")]
    Unsupported {
        /// What the program uses.
        what: String,
        /// Why it is not handled, and what to write instead.
        why: String,
    },

    /// A bug in shardc, not in the program: `part` names the part of shardc that broke
    /// an invariant, `what` what it found. Report it with the program.
    #[error(
        "internal error in shardc's {part}: {what}. This is a bug in shardc, not in your program; please report it with the program"
    )]
    Internal {
        /// The part of shardc (`partition`, `lower`).
        part: &'static str,
        /// What it found.
        what: String,
    },

    /// MLIR refused a module shardc handed it (a shardc bug: its printers must only emit
    /// what MLIR accepts).
    #[error("MLIR could not {stage} the module shardc produced:\n{diagnostics}")]
    Mlir {
        /// What MLIR was asked to do (`parse`, `run the pipeline on`).
        stage: &'static str,
        /// MLIR's diagnostics.
        diagnostics: String,
    },

    /// `grad`/`value_and_grad` cannot differentiate the program: `what` names the op (or
    /// the argument, or the function whose loss is wrong), `why` the rule broken, `fix` what
    /// to do instead.
    #[error("cannot differentiate {what}: {why}; {fix}")]
    NotDifferentiable {
        /// The op, argument or function.
        what: String,
        /// The rule broken.
        why: String,
        /// What to do instead.
        fix: String,
    },

    /// Every plan the search found holds more than [`crate::Options::memory_per_device`]
    /// on some device: `live` names the largest values held at the peak, with their bytes.
    #[error(
        "no plan fits {budget} B per device: the plan with the smallest peak holds {peak} B on a device at {at}, where {live} are live; shard the largest over more devices (FSDP/ZeRO-3 specs, tensor parallelism), recompute activations (`shardc::remat` around each layer), use a smaller batch, or raise Options::memory_per_device"
    )]
    OverMemory {
        /// The budget, in bytes per device.
        budget: u64,
        /// The smallest peak any plan reached, in bytes.
        peak: u64,
        /// The op at that peak.
        at: String,
        /// The largest values live there, with their bytes.
        live: String,
    },

    /// No layout of a value satisfies what is asked of it.
    #[error("no way to give {value} the layout {layout}: {why}")]
    Unreachable {
        /// The value (`result 1 (%633)`).
        value: String,
        /// The layout asked for.
        layout: String,
        /// Why none of the ways there works (a limit reached says so).
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
