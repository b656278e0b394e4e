//! The JAX-exported fixtures of `tests/fixtures/jax/`: each `NAME.mlir` is what
//! `jax.jit(...).lower(...).as_text()` printed, and `NAME.json` holds the inputs JAX was
//! given, the outputs it computed, the mesh and the tolerance (see the folder's README).

use crate::literal::Literal;
use crate::module::Module;
use crate::record::Record;
use std::path::{Path, PathBuf};

/// One exported program with JAX's inputs and outputs.
#[derive(Clone, Debug)]
pub struct JaxFixture {
    /// The file's name without `.mlir`.
    pub name: String,
    /// The `.mlir` text as JAX printed it.
    pub text: String,
    /// The text, parsed.
    pub module: Module,
    /// The inputs JAX was given, in `main`'s argument order.
    pub inputs: Vec<Literal>,
    /// The outputs JAX computed, in `main`'s result order.
    pub outputs: Vec<Literal>,
    /// `jax.grad` of output 0 (a scalar loss) with respect to each float input, in input
    /// order; empty unless the fixture recorded them (`export(..., grads=True)`).
    pub gradients: Vec<Literal>,
    /// Absolute and relative tolerance: `|got - want| <= abs + rel * |want|`.
    pub abs: f64,
    /// The relative part of the tolerance.
    pub rel: f64,
}

/// The folder holding the fixtures (the repository's `tests/fixtures/jax`).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/jax")
}

/// Every fixture, sorted by name, parsed and verified. Errors name the file.
pub fn jax_fixtures() -> Result<Vec<JaxFixture>, String> {
    let dir = fixtures_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".mlir"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let read = |ext: &str| {
                let p = dir.join(format!("{name}.{ext}"));
                std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))
            };
            let text = read("mlir")?;
            let module =
                crate::text::parse_module(&text).map_err(|e| format!("{name}.mlir: {e}"))?;
            let record = Record::parse(&read("json")?).map_err(|e| format!("{name}.json: {e}"))?;
            Ok(JaxFixture {
                name,
                text,
                module,
                inputs: record.inputs,
                outputs: record.outputs,
                gradients: record.gradients,
                abs: record.abs,
                rel: record.rel,
            })
        })
        .collect()
}

pub use crate::record::excess_error;
