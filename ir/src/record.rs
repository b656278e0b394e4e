//! A recorded run of a program, as JAX's exporter writes it next to the `.mlir` text
//! (`tests/fixtures/jax/corpus.py`): the inputs JAX was given, the outputs it computed and
//! the tolerance to compare within, as JSON —
//! `{"inputs": [{"shape": [8, 4], "dtype": "float32", "data": [...]}, ...], "outputs": [...],
//! "tolerance": {"abs": 1e-4, "rel": 1e-4}}` (numpy's dtype names; data flat, row-major).
//! `shardc run FILE --inputs FILE.json` runs a program on such inputs and checks its
//! outputs against the record's. Non-finite values are read as Python's `json` writes
//! them (`NaN`, `Infinity`, `-Infinity`, bare) or as the strings `"nan"`, `"inf"`,
//! `"-inf"`.

use crate::dtype::{DType, TensorType};
use crate::literal::{Elements, Literal};
use serde::Deserialize;
use std::path::Path;

/// Inputs, and the outputs and tolerance when recorded.
#[derive(Clone, Debug)]
pub struct Record {
    /// The inputs, in the program's argument order.
    pub inputs: Vec<Literal>,
    /// Empty when the record has none.
    pub outputs: Vec<Literal>,
    /// The gradient of output 0 (a scalar loss) with respect to each float input, as
    /// `jax.grad` computed it, in input order; empty when the record has none.
    pub gradients: Vec<Literal>,
    /// Absolute and relative tolerance: `|got - want| <= abs + rel * |want|`.
    pub abs: f64,
    /// The relative part of the tolerance.
    pub rel: f64,
}

#[derive(Deserialize)]
struct Json {
    inputs: Vec<JsonTensor>,
    #[serde(default)]
    outputs: Vec<JsonTensor>,
    #[serde(default)]
    gradients: Vec<JsonTensor>,
    #[serde(default)]
    tolerance: Option<Tolerance>,
}

#[derive(Deserialize)]
struct JsonTensor {
    shape: Vec<usize>,
    dtype: String,
    data: Vec<Number>,
}

/// One element: a JSON number, or a string naming a non-finite value.
#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Finite(f64),
    Named(String),
}

impl Number {
    fn value(&self, what: &str, i: usize) -> Result<f64, String> {
        match self {
            Number::Finite(x) => Ok(*x),
            Number::Named(s) => match s.to_ascii_lowercase().as_str() {
                "nan" => Ok(f64::NAN),
                "inf" | "infinity" | "+inf" | "+infinity" => Ok(f64::INFINITY),
                "-inf" | "-infinity" => Ok(f64::NEG_INFINITY),
                _ => Err(format!(
                    "{what}'s element {i} is the string {s:?}; elements are numbers, or \"nan\", \"inf\", \"-inf\" (or Python's bare NaN, Infinity, -Infinity)"
                )),
            },
        }
    }
}

/// `text` with Python's bare `NaN`, `Infinity` and `-Infinity` (outside strings) quoted, so
/// that standard JSON reads them as strings.
fn quote_non_finite(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("NaN") && !text.contains("Infinity") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t))
        {
            out.push('"');
            out.push_str(token);
            out.push('"');
            rest = &rest[token.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out.into()
}

#[derive(Deserialize)]
struct Tolerance {
    abs: f64,
    rel: f64,
}

/// The element type of a numpy dtype name (of a narrow type, the type holding its values).
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
        // Narrow types, in the types that hold them (`text/narrow.rs`).
        "int4" => DType::I8,
        "uint4" => DType::U8,
        "float8_e4m3fn" | "float8_e5m2" => DType::F32,
        _ => return None,
    })
}

/// The float type of a numpy complex dtype name: shardc holds complex values as pairs
/// (real, imaginary) in an innermost dimension of 2, and a record gives them as such
/// pairs, flat (`[re0, im0, re1, im1, ...]`).
fn complex_of_numpy(name: &str) -> Option<DType> {
    match name {
        "complex64" => Some(DType::F32),
        "complex128" => Some(DType::F64),
        _ => None,
    }
}

fn literal(t: &JsonTensor, what: &str) -> Result<Literal, String> {
    let mut shape = t.shape.clone();
    let dtype = match complex_of_numpy(&t.dtype) {
        Some(d) => {
            shape.push(2);
            d
        }
        None => dtype_of_numpy(&t.dtype).ok_or_else(|| {
            format!(
                "{what} has dtype {:?}, which shardc does not have (float16/32/64, bfloat16, int8..int64, uint8..uint64, bool, complex64/128 as pairs, int4/uint4 as int8/uint8, float8_e4m3fn/e5m2 as float32)",
                t.dtype
            )
        })?,
    };
    let ty = TensorType::new(dtype, shape);
    let data = t
        .data
        .iter()
        .enumerate()
        .map(|(i, x)| x.value(what, i))
        .collect::<Result<Vec<f64>, String>>()?;
    if data.len() != ty.num_elements() {
        return Err(format!(
            "{what} is {ty}, {} elements, but its data has {}",
            ty.num_elements(),
            data.len()
        ));
    }
    Literal::new(ty, Elements::from_f64(dtype, &data)).map_err(|e| format!("{what}: {e}"))
}

impl Record {
    /// Reads a record from JSON text.
    pub fn parse(text: &str) -> Result<Record, String> {
        let json: Json =
            serde_json::from_str(&quote_non_finite(text)).map_err(|e| e.to_string())?;
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
            gradients: read(&json.gradients, "gradient")?,
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

/// The tolerance within which a partitioned run of `f` must match the reference
/// interpreter's run of it, and why when it is more than `1e-4` (absolute and relative,
/// for programs that compute in f32 or wider with short sums). Reductions split across
/// devices add in another order than the interpreter's one sequential sum, so the
/// tolerance is the largest of:
/// - four epsilons of the coarsest floating type in the program (bf16: `3.1e-2`, f16:
///   `3.9e-3`), which every rounding of a half-precision value may cost;
/// - four standard deviations of the rounding a sum of `n` values accumulates, `4 eps
///   sqrt(n)` (Higham's estimate for recursive summation), for the longest sum the
///   program folds into one value — a dot's contraction, a reduction — in its type: a
///   transformer's loss, the mean of 2^20 f32 values, `4.9e-4`.
pub fn reordering_tolerance(f: &crate::module::Function) -> (f64, Option<String>) {
    let coarsest = f
        .values
        .iter()
        .filter_map(|v| v.ty.dtype.epsilon().map(|e| (e, v.ty.dtype)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let longest = f
        .ops
        .iter()
        .filter_map(|op| {
            let ty = |k: usize| op.operands.get(k).map(|&v| &f.values[v.index()].ty);
            let (n, dtype): (usize, DType) = match &op.kind {
                crate::OpKind::DotGeneral(d) => {
                    let t = ty(0)?;
                    (
                        d.lhs_contracting.iter().map(|&i| t.shape[i]).product(),
                        t.dtype,
                    )
                }
                crate::OpKind::Reduce { dimensions } => {
                    let t = ty(0)?;
                    (dimensions.iter().map(|&i| t.shape[i]).product(), t.dtype)
                }
                crate::OpKind::ReduceWindow(w) => (w.window.iter().product(), ty(0)?.dtype),
                _ => return None,
            };
            let eps = dtype.epsilon()?;
            Some((4.0 * eps * (n as f64).sqrt(), n, dtype))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let mut tol = (1e-4, None);
    if let Some((eps, dtype)) = coarsest
        && 4.0 * eps > tol.0
    {
        tol = (
            4.0 * eps,
            Some(format!(
                "{dtype} values in the program: sums split across devices round differently"
            )),
        );
    }
    if let Some((t, n, dtype)) = longest
        && t > tol.0
    {
        tol = (
            t,
            Some(format!(
                "a sum of {n} {dtype} values in the program: split across devices, it adds in another order (4 eps sqrt(n))"
            )),
        );
    }
    tol
}

/// Where `got` is furthest beyond the tolerance against `want`: the element's flat index,
/// both values and the excess (`None` when every element is within it).
pub fn worst_mismatch(
    got: &Literal,
    want: &Literal,
    abs: f64,
    rel: f64,
) -> Result<Option<(usize, f64, f64, f64)>, String> {
    if got.ty != want.ty {
        return Err(format!("type {} where {} was expected", got.ty, want.ty));
    }
    let mut worst: Option<(usize, f64, f64, f64)> = None;
    for (i, (g, w)) in got
        .to_f64_vec()
        .into_iter()
        .zip(want.to_f64_vec())
        .enumerate()
    {
        let e = excess(g, w, abs, rel);
        if e > 0.0 && worst.is_none_or(|(.., x)| e > x) {
            worst = Some((i, g, w, e));
        }
    }
    Ok(worst)
}

/// How far `g` lies beyond `abs + rel * |w|` of `w`: `f64::MIN` when equal (infinities
/// included) or both NaN; infinite for a NaN on one side or infinities that differ.
fn excess(g: f64, w: f64, abs: f64, rel: f64) -> f64 {
    if g == w || (g.is_nan() && w.is_nan()) {
        f64::MIN
    } else {
        // `f64::max` would skip a NaN excess.
        let e = (g - w).abs() - abs - rel * w.abs();
        if e.is_nan() { f64::INFINITY } else { e }
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
        .map(|(g, w)| excess(*g, w, abs, rel))
        .fold(f64::MIN, f64::max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_read_as_python_writes_them() {
        let r = Record::parse(
            r#"{"note": "NaN \" Infinity stays text", "inputs": [{"shape": [6], "dtype": "float32",
                "data": [NaN, Infinity, -Infinity, "nan", "-inf", 2.5]}]}"#,
        )
        .unwrap();
        let v = r.inputs[0].to_f64_vec();
        assert!(v[0].is_nan() && v[3].is_nan());
        assert_eq!(
            v[1..]
                .iter()
                .filter(|x| !x.is_nan())
                .copied()
                .collect::<Vec<_>>(),
            vec![f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY, 2.5]
        );
        let bad =
            Record::parse(r#"{"inputs": [{"shape": [1], "dtype": "float32", "data": ["one"]}]}"#);
        assert!(
            bad.unwrap_err()
                .contains("input 0's element 0 is the string \"one\""),
            "a string that names no value is refused, naming it"
        );
        assert_eq!(
            quote_non_finite(r#"{"a": "NaN", "b": NaN}"#),
            r#"{"a": "NaN", "b": "NaN"}"#
        );
    }

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
        let odd = Record::parse(r#"{"inputs": [{"shape": [], "dtype": "float8", "data": [1]}]}"#);
        assert!(odd.unwrap_err().starts_with("input 0 has dtype \"float8\""));
        // Complex values are pairs, the pair dimension innermost.
        let pairs = Record::parse(
            r#"{"inputs": [{"shape": [2], "dtype": "complex64", "data": [1, 2, 3, 4]}]}"#,
        )
        .unwrap();
        assert_eq!(pairs.inputs[0].ty, TensorType::new(DType::F32, [2, 2]));
        let short =
            Record::parse(r#"{"inputs": [{"shape": [2], "dtype": "complex128", "data": [1, 2]}]}"#);
        assert_eq!(
            short.unwrap_err(),
            "input 0 is tensor<2x2xf64>, 4 elements, but its data has 2"
        );
        let w = Literal::from_f64(DType::F32, &[2], &[1.0, f64::NAN]).unwrap();
        let g = Literal::from_f64(DType::F32, &[2], &[1.05, f64::NAN]).unwrap();
        assert!(excess_error(&g, &w, 0.1, 0.0).unwrap() <= 0.0);
        assert!(excess_error(&g, &w, 0.01, 0.0).unwrap() > 0.0);
        let (i, got, want, e) = worst_mismatch(&g, &w, 0.01, 0.0).unwrap().unwrap();
        assert_eq!((i, got as f32, want), (0, 1.05, 1.0));
        assert!((e - 0.04).abs() < 1e-6);
        assert_eq!(worst_mismatch(&g, &w, 0.1, 0.0).unwrap(), None);
    }

    #[test]
    fn half_precision_programs_are_compared_within_their_epsilon() {
        let m = crate::text::parse_module(
            "func.func @main(%a: tensor<4xbf16>) -> tensor<4xf32> {
               %0 = stablehlo.convert %a : (tensor<4xbf16>) -> tensor<4xf32>
               return %0 : tensor<4xf32>
             }",
        )
        .unwrap();
        let (tol, why) = reordering_tolerance(&m.functions[0]);
        assert_eq!(tol, 4.0 / 128.0);
        assert!(why.unwrap().starts_with("bf16 values"));
        let m = crate::text::parse_module(
            "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }",
        )
        .unwrap();
        assert_eq!(reordering_tolerance(&m.functions[0]), (1e-4, None));
        // The mean of 2^20 f32 values: four standard deviations of its rounding.
        let m = crate::text::parse_module(
            "func.func @main(%a: tensor<1024x1024xf32>) -> tensor<f32> {
               %z = stablehlo.constant dense<0.0> : tensor<f32>
               %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<f32>
               return %s : tensor<f32>
             }",
        )
        .unwrap();
        let (tol, why) = reordering_tolerance(&m.functions[0]);
        assert!((tol - 4.0 * 2f64.powi(-23) * 1024.0).abs() < 1e-12, "{tol}");
        assert!(why.unwrap().contains("a sum of 1048576 f32 values"));
        // Short sums keep the floor.
        let m = crate::text::parse_module(
            "func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
               %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
               return %d : tensor<8x4xf32>
             }",
        )
        .unwrap();
        assert_eq!(reordering_tolerance(&m.functions[0]), (1e-4, None));
    }
}
