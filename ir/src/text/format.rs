//! Printing pieces shared by the pretty and the generic printer: symbols, strings, types,
//! literals, shardings and attribute dictionaries.

use super::number::element_text;
use crate::dtype::{DType, TensorType};
use crate::literal::Literal;
use crate::sharding::Sharding;

/// Non-splat constants with more elements than this print as a hex string `dense<"0x...">`.
pub(super) const HEX_THRESHOLD: usize = 16;

/// The attribute key under which shardings are written.
pub(super) const SHARDING_KEY: &str = "sdy.sharding";

/// `true` if MLIR reads `s` as a bare identifier.
pub(super) fn is_bare_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && bytes.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

/// A string literal with MLIR's escapes: `"a\"b"`, non-printable bytes as `\XX`.
pub(super) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7E => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// `@name`, quoted when the name is not a bare identifier.
pub(super) fn symbol(name: &str) -> String {
    if is_bare_identifier(name) {
        format!("@{name}")
    } else {
        format!("@{}", string_literal(name))
    }
}

/// `a, b, c`
pub(super) fn join<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `[1, 2]`
pub(super) fn int_list<T: ToString + Copy>(v: &[T]) -> String {
    format!("[{}]", join(v.iter().copied()))
}

/// `array<i64: 1, 2>` (or `array<i64>` when empty).
pub(super) fn i64_array<T: ToString + Copy>(v: &[T]) -> String {
    if v.is_empty() {
        "array<i64>".to_string()
    } else {
        format!("array<i64: {}>", join(v.iter().copied()))
    }
}

/// Result types: `t` for one, `(a, b)` otherwise (`()` for none).
pub(super) fn results_type(results: &[TensorType]) -> String {
    match results {
        [t] => t.to_string(),
        ts => format!("({})", join(ts)),
    }
}

/// `(a, b) -> r`
pub(super) fn function_type(inputs: &[TensorType], results: &[TensorType]) -> String {
    format!("({}) -> {}", join(inputs), results_type(results))
}

/// `dense<...>` for a literal, without its type.
pub(super) fn dense(lit: &Literal) -> String {
    let e = &lit.elements;
    let dtype = e.dtype();
    let n = e.len();
    if n == 0 {
        return "dense<>".to_string();
    }
    if n == 1 {
        return format!("dense<{}>", element_text(dtype, e.bits(0)));
    }
    if n > HEX_THRESHOLD && dtype != DType::I1 {
        let size = dtype.size_bytes();
        let mut hex = String::with_capacity(2 * size * n);
        for i in 0..n {
            for byte in e.bits(i).to_le_bytes().iter().take(size) {
                hex.push_str(&format!("{byte:02X}"));
            }
        }
        return format!("dense<\"0x{hex}\">");
    }
    let items: Vec<String> = (0..n).map(|i| element_text(dtype, e.bits(i))).collect();
    if n != lit.ty.num_elements() || lit.ty.rank() == 0 {
        // Not a valid dense literal for its type; print what there is, flat.
        return format!("dense<[{}]>", items.join(", "));
    }
    let mut out = String::from("dense<");
    nest(&lit.ty.shape, &items, &mut out);
    out.push('>');
    out
}

/// Writes `items` (row-major) as nested lists of `shape`.
fn nest(shape: &[usize], items: &[String], out: &mut String) {
    let Some((&outer, inner)) = shape.split_first() else {
        if let Some(item) = items.first() {
            out.push_str(item);
        }
        return;
    };
    let stride = inner.iter().product::<usize>();
    out.push('[');
    for i in 0..outer {
        if i > 0 {
            out.push_str(", ");
        }
        let from = (i * stride).min(items.len());
        let to = ((i + 1) * stride).min(items.len());
        nest(inner, &items[from..to], out);
    }
    out.push(']');
}

/// `dense<...> : tensor<...>`
pub(super) fn literal(lit: &Literal) -> String {
    format!("{} : {}", dense(lit), lit.ty)
}

/// `#sdy.sharding<@mesh, [...]>`
pub(super) fn sharding_attr(s: &Sharding) -> String {
    format!("#sdy.sharding{s}")
}

/// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`
pub(super) fn sharding_per_value(shardings: &[Sharding]) -> String {
    format!("#sdy.sharding_per_value<[{}]>", join(shardings))
}

/// `k = v` entries of an attribute dictionary, with the sharding (if any) placed where a
/// sorted dictionary would hold it: before the first other key that sorts after it.
pub(super) fn dict_entries(sharding: Option<String>, attrs: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = attrs
        .iter()
        .map(|(k, v)| {
            if v.is_empty() {
                k.clone()
            } else {
                format!("{k} = {v}")
            }
        })
        .collect();
    if let Some(s) = sharding {
        let at = attrs
            .iter()
            .position(|(k, _)| k.as_str() > SHARDING_KEY)
            .unwrap_or(attrs.len());
        out.insert(at, format!("{SHARDING_KEY} = {s}"));
    }
    out
}

/// `{k = v, ...}`, or nothing when there are no entries.
pub(super) fn dict(entries: &[String]) -> String {
    if entries.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", entries.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::Elements;

    #[test]
    fn prints_literals() {
        let lit = |dtype, shape: &[usize], v: &[f64]| Literal::from_f64(dtype, shape, v).unwrap();
        assert_eq!(
            literal(&lit(DType::F32, &[], &[0.0])),
            "dense<0.000000e+00> : tensor<f32>"
        );
        assert_eq!(
            literal(&lit(DType::I32, &[2, 2], &[1.0, 2.0, 3.0, -4.0])),
            "dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>"
        );
        assert_eq!(
            literal(&lit(DType::I1, &[2], &[1.0, 0.0])),
            "dense<[true, false]> : tensor<2xi1>"
        );
        let big = Literal::new(
            TensorType::new(DType::F32, [17]),
            Elements::F32(vec![1.0; 17]),
        )
        .unwrap();
        assert!(dense(&big).starts_with("dense<\"0x0000803F0000803F"));
        let empty = Literal::new(TensorType::new(DType::F32, [0]), Elements::F32(vec![])).unwrap();
        assert_eq!(literal(&empty), "dense<> : tensor<0xf32>");
    }

    #[test]
    fn quotes_symbols_and_strings() {
        assert_eq!(symbol("main"), "@main");
        assert_eq!(symbol("my-fn"), "@\"my-fn\"");
        assert_eq!(
            string_literal("a\"b\\\n\u{1}é"),
            "\"a\\\"b\\\\\\n\\01\\C3\\A9\""
        );
    }

    #[test]
    fn places_the_sharding_in_sorted_position() {
        let attrs = vec![("jax.result_info".to_string(), "\"result\"".to_string())];
        assert_eq!(
            dict_entries(Some("S".into()), &attrs),
            vec!["jax.result_info = \"result\"", "sdy.sharding = S"]
        );
        let attrs = vec![("z.last".to_string(), String::new())];
        assert_eq!(
            dict_entries(Some("S".into()), &attrs),
            vec!["sdy.sharding = S", "z.last"]
        );
    }
}
