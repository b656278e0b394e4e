//! The text format: StableHLO ops with Shardy sharding attributes, as JAX prints them.
//!
//! [`parse_module`] reads what `jax.jit(...).lower(...).as_text()` prints (JAX 0.10, Shardy
//! on) and also MLIR's generic op form; [`print_module`] writes the pretty form JAX writes;
//! [`print_module_generic`] writes the generic form, which MLIR's own parser reads with
//! unregistered dialects allowed (`mlir-opt --allow-unregistered-dialect`). Both printed
//! forms parse back to an equal [`Module`], bit-exactly for every constant.
//!
//! ```
//! use shardc_ir::text::{parse_module, print_module, print_module_generic};
//!
//! let src = r#"
//! module @jit_f {
//!   sdy.mesh @mesh = <["data"=2]>
//!   func.func public @main(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8xf32> {
//!     %zero = stablehlo.constant dense<0.0> : tensor<f32>
//!     %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
//!     return %sum : tensor<8xf32>
//!   }
//! }"#;
//! let m = parse_module(src)?;
//! let pretty = print_module(&m);
//! assert!(pretty.contains("%0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>"));
//! assert_eq!(parse_module(&pretty)?, m);
//! assert_eq!(parse_module(&print_module_generic(&m))?, m);
//!
//! // Errors name what is wrong, where, and how to fix it.
//! let err = parse_module(&src.replace(r#"[{"data"}, {}]"#, r#"[{"model"}, {}]"#)).unwrap_err();
//! assert!(err.to_string().contains(r#"uses axis "model", which mesh @mesh does not have"#));
//! # Ok::<(), shardc_ir::IrError>(())
//! ```
//!
//! # What is read
//!
//! - `module @name attributes {...} { ... }`, or meshes and functions at the top level;
//!   `"builtin.module"() ({...})` in generic form.
//! - `sdy.mesh @mesh = <["data"=2, "model"=4], device_ids=[...]>`; a trailing attribute
//!   dictionary (`{stablehlo.mesh = ...}`) is read and dropped.
//! - `func.func public|private @f(%arg0: t {attrs}, ...) -> (t {attrs}, ...) { ... }` with
//!   `sdy.sharding = #sdy.sharding<...>` argument/result attributes; other attributes are
//!   kept as written in [`ValueAttrs::attrs`](crate::ValueAttrs) (likewise module and op
//!   attributes). `return`/`func.return` end function bodies, `stablehlo.return` regions.
//! - Every op of [`OpKind`](crate::OpKind) in StableHLO's pretty syntax (see `ops.rs` for
//!   each family), or in generic form `"stablehlo.add"(%0, %1) : (t, t) -> t`. Op shardings
//!   `{sdy.sharding = #sdy.sharding_per_value<[...]>}` go to `Op::shardings`.
//! - Shardings `<@mesh, [{"a", ?}p1, {"b":(2)2}, {?}], replicated={"c"}, unreduced={"d"}>`,
//!   with a non-sum reduction written either `unreduced=max{"d"}` (Shardy) or
//!   `unreduced={"d"}, reduction=max` (shardc's printed form).
//! - Constants `dense<...>`: splats, nested lists, `true`/`false`, hex bit patterns
//!   (`0xFF800000`), hex byte strings (`"0x0000803F"`, little-endian), `dense<>`.
//! - `// comments`, locations `loc(...)` and location aliases `#loc1 = loc(...)` are skipped.
//!   Value names are free-form (`%cst_0`); a region sees the values defined before it.
//!
//! # Errors
//!
//! Every error of [`parse_module`] is an [`IrError::Parse`] carrying a position and the
//! source line with a caret: syntax errors, unknown ops, undefined or redefined values,
//! type mismatches (the builder's typing rule, wrapped), and the verifier's checks
//! (meshes, shardings, calls, reducers, duplicate names), checked where they are written.
//! [`parse_module_unverified`] skips those verifier checks; run
//! [`verify_module`](crate::verify_module) on its result to get the verifier's structured
//! errors. Nesting is limited (regions 16 deep, dense lists 64 deep) so that no input can
//! exhaust the stack, and tensor sizes are bounded (2^40 per dimension, 2^48 elements,
//! 2^32 devices per mesh) so that no size computation overflows.

mod attr;
mod chlo;
mod complex;
mod custom_call;
mod format;
mod generic;
mod lexer;
mod narrow;
mod number;
mod ops;
mod parse;
mod print;

use crate::error::IrError;
use crate::module::{Function, Module};
use std::fmt;

/// Parses a module and verifies it; every error carries a position.
pub fn parse_module(src: &str) -> Result<Module, IrError> {
    parse::Parser::parse(src, true)
}

/// Parses and verifies a module whose shardings may split dimensions their axes do not
/// divide, when `uneven` is [`Uneven::Pad`](crate::Uneven::Pad) (what `shardc compile --pad`
/// reads); [`parse_module`] is `parse_module_with(src, Uneven::Refuse)`.
pub fn parse_module_with(src: &str, uneven: crate::Uneven) -> Result<Module, IrError> {
    parse::Parser::parse_with(src, true, uneven)
}

/// [`parse_module_with`], and notes on what the reader did that changes what the program
/// does at run time, for the user to read (one line each, `note: ...`): Python callbacks
/// with no results (`jax.debug.print`) left out, and equinox's runtime checks
/// (`eqx.error_if`) read as `EQX_ON_ERROR=nan` reads them.
///
/// ```
/// let text = r#"func.func @main(%x: tensor<f32>) -> tensor<f32> {
///   stablehlo.custom_call @xla_ffi_python_cpu_callback(%x) {has_side_effect = true} : (tensor<f32>) -> ()
///   return %x : tensor<f32>
/// }"#;
/// let (m, notes) = shardc_ir::text::parse_module_noted(text, shardc_ir::Uneven::Refuse)?;
/// assert_eq!(m.entry().unwrap().ops.len(), 0);
/// assert!(notes[0].starts_with("note: the Python callback at line 2 (jax.debug.print"));
/// # Ok::<(), shardc_ir::IrError>(())
/// ```
pub fn parse_module_noted(
    src: &str,
    uneven: crate::Uneven,
) -> Result<(Module, Vec<String>), IrError> {
    parse::Parser::parse_noted(src, true, uneven)
}

/// Parses a module without the verifier's checks (syntax, names and op typing rules are
/// still checked), for tests that want to hand the verifier something invalid.
pub fn parse_module_unverified(src: &str) -> Result<Module, IrError> {
    parse::Parser::parse(src, false)
}

/// The pretty StableHLO/Shardy form, as JAX prints it.
pub fn print_module(m: &Module) -> String {
    print::module(m)
}

/// MLIR's generic op form, readable by `mlir-opt --allow-unregistered-dialect`.
pub fn print_module_generic(m: &Module) -> String {
    generic::module(m)
}

/// The pretty form of one function (`func.func ...`), without its module.
pub fn print_function(f: &Function) -> String {
    print::function(f, 0)
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_function(self))
    }
}
