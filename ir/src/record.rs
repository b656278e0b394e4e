//! A recorded run of a program, as JAX's exporter writes it next to the `.mlir` text
//! (`tests/fixtures/jax/corpus.py`): the inputs JAX was given, the outputs it computed and
//! the tolerance to compare within, as JSON —
//! `{"inputs": [{"shape": [8, 4], "dtype": "float32", "data": [...]}, ...], "outputs": [...],
//! "tolerance": {"abs": 1e-4, "rel": 1e-4}}` (numpy's dtype names; data flat, row-major).
//! `shardc run FILE --inputs FILE.json` runs a program on such inputs and checks its
//! outputs against the record's.

use crate::dtype::{DType, TensorType};
use crate::literal::{Elements, Literal};
use serde::Deserialize;
use std::path::Path;

/// Inputs, and the outputs and tolerance when recorded.
#[derive(Clone, Debug)]
pub struct Record {
    pub inputs: Vec<Literal>,
    /// Empty when the record has none.
    pub outputs: Vec<Literal>,
    /// Absolute and relative tolerance: `|got - want| <= abs + rel * |want|`.
    pub abs: f64,
    pub rel: f64,
}

#[derive(Deserialize)]
struct Json {
    inputs: Vec<JsonTensor>,
    #[serde(default)]
    outputs: Vec<JsonTensor>,
    #[serde(default)]
    tolerance: Option<Tolerance>,
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

/// The element type of a numpy dtype name.
pub fn dtype_of_numpy(name: &str) -> Option<DType> {
    Some(match name {
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
        _ => return None,
    })
}

fn literal(t: &JsonTensor, what: &str) -> Result<Literal, String> {
    let dtype = dtype_of_numpy(&t.dtype).ok_or_else(|| {
        format!(
            "{what} has dtype {:?}, which shardc does not have (float16/32/64, bfloat16, int8..int64, uint8..uint64, bool)",
            t.dtype
        )
    })?;
    let ty = TensorType::new(dtype, t.shape.clone());
    if t.data.len() != ty.num_elements() {
        return Err(format!(
            "{what} is {ty}, {} elements, but its data has {}",
            ty.num_elements(),
            t.data.len()
        ));
    }
    Literal::new(ty, Elements::from_f64(dtype, &t.data)).map_err(|e| format!("{what}: {e}"))
}

impl Record {
    /// Reads a record from JSON text.
    pub fn parse(text: &str) -> Result<Record, String> {
        let json: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let read = |ts: &[JsonTensor], kind: &str| {
            ts.iter()
                .enumerate()
                .map(|(i, t)| literal(t, &format!("{kind} {i}")))
                .collect::<Result<Vec<_>, _>>()
        };
        let tolerance = json.tolerance.unwrap_or(Tolerance {
            abs: 1e-4,
            rel: 1e-4,
        });
        Ok(Record {
            inputs: read(&json.inputs, "input")?,
            outputs: read(&json.outputs, "output")?,
            abs: tolerance.abs,
            rel: tolerance.rel,
        })
    }

    /// Reads a record file; errors name it.
    pub fn read(path: &Path) -> Result<Record, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Record::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_and_refuse_what_does_not_fit() {
        let r = Record::parse(
            r#"{"inputs": [{"shape": [2], "dtype": "int32", "data": [1, 2]}],
                "outputs": [{"shape": [], "dtype": "float32", "data": [0.5]}],
                "tolerance": {"abs": 0.1, "rel": 0.0}}"#,
        )
        .unwrap();
        assert_eq!(r.inputs[0].ty.to_string(), "tensor<2xi32>");
        assert_eq!(r.outputs[0].to_f64_vec(), vec![0.5]);
        assert_eq!((r.abs, r.rel), (0.1, 0.0));
        let short =
            Record::parse(r#"{"inputs": [{"shape": [3], "dtype": "float32", "data": [1]}]}"#);
        assert_eq!(
            short.unwrap_err(),
            "input 0 is tensor<3xf32>, 3 elements, but its data has 1"
        );
        let odd =
            Record::parse(r#"{"inputs": [{"shape": [], "dtype": "complex64", "data": [1]}]}"#);
        assert!(
            odd.unwrap_err()
                .starts_with("input 0 has dtype \"complex64\"")
        );
        let w = Literal::from_f64(DType::F32, &[2], &[1.0, f64::NAN]).unwrap();
        let g = Literal::from_f64(DType::F32, &[2], &[1.05, f64::NAN]).unwrap();
        assert!(excess_error(&g, &w, 0.1, 0.0).unwrap() <= 0.0);
        assert!(excess_error(&g, &w, 0.01, 0.0).unwrap() > 0.0);
    }
}
