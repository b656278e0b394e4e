//! shardc modules in MLIR: a shardc [`Module`] goes to MLIR as its generic-form text
//! (StableHLO and Shardy ops are unregistered dialects there; `func` is registered and
//! verified), parsed by MLIR's own parser through melior, and verified.

use crate::error::CompileError;
use melior::Context;
use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::utility::register_all_dialects;
use shardc_ir::Module;
use shardc_ir::text::print_module_generic;
use std::cell::RefCell;
use std::rc::Rc;

/// An MLIR context with every upstream dialect loaded and unregistered dialects allowed.
pub fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    context.load_all_available_dialects();
    context.set_allow_unregistered_dialects(true);
    context
}

/// Parses MLIR text in `context` and verifies it; the error carries MLIR's diagnostics.
pub fn parse_and_verify<'c>(
    context: &'c Context,
    text: &str,
) -> Result<melior::ir::Module<'c>, CompileError> {
    let diagnostics: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = Rc::clone(&diagnostics);
    let handler = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {d}", d.location()));
        true
    });
    let parsed = melior::ir::Module::parse(context, text);
    let verified = parsed.as_ref().map(|m| m.as_operation().verify());
    context.detach_diagnostic_handler(handler);
    let why = diagnostics.borrow().join("\n");
    match (parsed, verified) {
        (Some(m), Some(true)) => Ok(m),
        (None, _) => Err(CompileError::Mlir {
            stage: "parse",
            diagnostics: why,
        }),
        (Some(_), _) => Err(CompileError::Mlir {
            stage: "verify",
            diagnostics: why,
        }),
    }
}

/// Hands a shardc module to MLIR (generic form) and verifies it there.
pub fn import<'c>(
    context: &'c Context,
    m: &Module,
) -> Result<melior::ir::Module<'c>, CompileError> {
    let m = shardc_ir::inline::for_mlir(m)?;
    parse_and_verify(context, &print_module_generic(&m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use shardc_ir::testing::{arb_module, jax::jax_fixtures};

    #[test]
    fn jax_fixtures_verify_in_mlir() {
        let ctx = context();
        for fx in jax_fixtures().unwrap() {
            let m = import(&ctx, &fx.module).unwrap_or_else(|e| panic!("{}: {e}", fx.name));
            // MLIR sees the same functions.
            let text = m.as_operation().to_string();
            assert!(
                text.contains("func.func public @main") || text.contains("func.func @main"),
                "{}: {text}",
                fx.name
            );
        }
    }

    #[test]
    fn mlir_rejects_what_does_not_verify() {
        let ctx = context();
        // A func.func whose body returns the wrong type: MLIR's verifier (run while
        // parsing) names the mismatch.
        let bad = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()"#;
        let err = parse_and_verify(&ctx, bad).unwrap_err().to_string();
        assert!(
            err.contains("doesn't match function result type ('tensor<8xf32>')"),
            "{err}"
        );
        let err = parse_and_verify(&ctx, "\"builtin.module\"() ({")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("MLIR could not parse"), "{err}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn random_modules_verify_in_mlir(m in arb_module()) {
            let ctx = context();
            prop_assert!(import(&ctx, &m).is_ok(), "{}", print_module_generic(&m));
        }
    }
}
