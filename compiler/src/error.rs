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

    /// The module uses a feature this pass does not handle yet; says which and why.
    #[error("{what}: {why}")]
    Unsupported { what: String, why: String },

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

    /// No layout of a value satisfies what is asked of it.
    #[error("no way to give {value} the layout {layout}: {why}")]
    Unreachable {
        value: String,
        layout: String,
        why: String,
    },
}
