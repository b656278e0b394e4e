//! Inlining: replaces every `func.call` in the entry function by the callee's body, so
//! propagation sees one function (calls have no sharding rule of their own); see
//! [`shardc_ir::inline`], which does the work (the reference interpreter inlines a
//! shard_map body with it too).

use crate::error::CompileError;
use shardc_ir::{IrError, Module};

/// The module with its entry function's calls inlined and the callees dropped.
pub fn inline(m: &Module) -> Result<Module, CompileError> {
    let f = m.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to compile".into(),
    })?;
    let g = shardc_ir::inline::inline_calls(m, f).map_err(|e| match e {
        IrError::InvalidFunction { at, rule } => CompileError::Unsupported {
            what: at,
            why: rule,
        },
        other => CompileError::Ir(other),
    })?;
    Ok(Module {
        functions: vec![g],
        ..m.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    /// `@f0` calls `@f1` ... calls `@f{n-1}`, which negates; `last` names what the last
    /// one calls instead (a cycle), if anything.
    fn chain(n: usize, last: Option<&str>) -> String {
        let t = "tensor<4xf32>";
        let mut s = String::new();
        for i in 0..n {
            let vis = if i == 0 { "" } else { "private " };
            let body = match (i + 1 < n, last) {
                (true, _) => format!("%0 = func.call @f{}(%x) : ({t}) -> {t}", i + 1),
                (false, Some(c)) => format!("%0 = func.call @{c}(%x) : ({t}) -> {t}"),
                (false, None) => format!("%0 = stablehlo.negate %x : {t}"),
            };
            s.push_str(&format!(
                "func.func {vis}@f{i}(%x: {t}) -> {t} {{\n  {body}\n  return %0 : {t}\n}}\n"
            ));
        }
        s
    }

    #[test]
    fn a_deep_call_chain_inlines() {
        let m = parse_module(&chain(70, None)).unwrap();
        let out = inline(&m).unwrap();
        assert_eq!(out.functions.len(), 1);
        assert_eq!(out.functions[0].ops.len(), 1);
    }

    #[test]
    fn a_cycle_of_calls_is_named() {
        let m = parse_module(&chain(3, Some("f1")));
        // The verifier may refuse the cycle first; either way the cycle is named.
        let msg = match m {
            Err(e) => e.to_string(),
            Ok(m) => inline(&m).unwrap_err().to_string(),
        };
        assert!(msg.contains("@f1 calls @f2 calls @f1"), "{msg}");
    }
}
