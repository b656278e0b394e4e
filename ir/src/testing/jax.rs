//! The JAX-exported fixtures of `tests/fixtures/jax/`: each `NAME.mlir` is what
//! `jax.jit(...).lower(...).as_text()` printed, and `NAME.json` holds the inputs JAX was
//! given, the outputs it computed, the mesh and the tolerance (see the folder's README).

use crate::dtype::{DType, TensorType};
use crate::literal::{Elements, Literal};
use crate::module::Module;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One exported program with JAX's inputs and outputs.
#[derive(Clone, Debug)]
pub struct JaxFixture {
    pub name: String,
    /// The `.mlir` text as JAX printed it.
    pub text: String,
    pub module: Module,
    pub inputs: Vec<Literal>,
    pub outputs: Vec<Literal>,
    /// Absolute and relative tolerance: `|got - want| <= abs + rel * |want|`.
    pub abs: f64,
    pub rel: f64,
}

#[derive(Deserialize)]
struct Json {
    inputs: Vec<JsonTensor>,
    outputs: Vec<JsonTensor>,
    tolerance: Tolerance,
}

#[derive(Deserialize)]
struct JsonTensor {
    shape: Vec<usize>,
    dtype: String,
    data: Vec<f64>,
}

#[derive(Deserialize)]
struct Tolerance {
    abs: f64,
    rel: f64,
}

/// The folder holding the fixtures (the repository's `tests/fixtures/jax`).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/jax")
}

fn literal(t: &JsonTensor) -> Result<Literal, String> {
    let dtype = match t.dtype.as_str() {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        "bool" => DType::I1,
        other => return Err(format!("unsupported fixture dtype {other}")),
    };
    Literal::new(
        TensorType::new(dtype, t.shape.clone()),
        Elements::from_f64(dtype, &t.data),
    )
    .map_err(|e| e.to_string())
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
            let json: Json =
                serde_json::from_str(&read("json")?).map_err(|e| format!("{name}.json: {e}"))?;
            Ok(JaxFixture {
                name,
                text,
                module,
                inputs: json.inputs.iter().map(literal).collect::<Result<_, _>>()?,
                outputs: json.outputs.iter().map(literal).collect::<Result<_, _>>()?,
                abs: json.tolerance.abs,
                rel: json.tolerance.rel,
            })
        })
        .collect()
}

/// The largest amount by which `got` exceeds the tolerance against `want` (<= 0 when
/// within it), or an error if the types differ.
pub fn excess_error(got: &Literal, want: &Literal, abs: f64, rel: f64) -> Result<f64, String> {
    if got.ty != want.ty {
        return Err(format!("type {} where {} was expected", got.ty, want.ty));
    }
    Ok(got
        .to_f64_vec()
        .iter()
        .zip(want.to_f64_vec())
        .map(|(g, w)| {
            if *g == w || (g.is_nan() && w.is_nan()) {
                // Equal (infinities included), or both NaN.
                f64::MIN
            } else {
                // A NaN on one side only, or infinities that differ, is infinitely off
                // (`f64::max` would skip a NaN excess).
                let e = (g - w).abs() - abs - rel * w.abs();
                if e.is_nan() { f64::INFINITY } else { e }
            }
        })
        .fold(f64::MIN, f64::max))
}
