//! The generic printer: MLIR's generic op form, which `mlir-opt --allow-unregistered-dialect`
//! reads without knowing StableHLO, Shardy or shardc.
//!
//! ```text
//! %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<...>}> : (t, u) -> r
//! ```
//!
//! Every op prints the same way; only its properties (`<{...}>`) come from its entry of
//! the op table. Properties print sorted by name, as MLIR prints them.

use super::format::{
    dict, dict_entries, function_type, join, sharding_attr, sharding_per_value, string_literal,
};
use super::ops;
use super::print::result_defs;
use crate::dtype::TensorType;
use crate::module::{BlockId, Function, Module, ValueAttrs, ValueId, Visibility};
use crate::op::Op;

fn name(names: &[String], v: ValueId) -> &str {
    names.get(v.index()).map_or("%<invalid>", String::as_str)
}

fn types(f: &Function, vs: &[ValueId]) -> Vec<TensorType> {
    vs.iter()
        .filter_map(|&v| f.values.get(v.index()).map(|d| d.ty.clone()))
        .collect()
}

fn uses(names: &[String], vs: &[ValueId]) -> String {
    join(vs.iter().map(|&v| name(names, v)))
}

/// ` <{k = v, ...}>`, sorted by key, or nothing.
fn props(mut entries: Vec<(&str, String)>) -> String {
    if entries.is_empty() {
        return String::new();
    }
    entries.sort_by(|a, b| a.0.cmp(b.0));
    format!(
        " <{{{}}}>",
        join(entries.iter().map(|(k, v)| format!("{k} = {v}")))
    )
}

/// An op without its indentation and result names: `"name"(...) <{...}> ({...}) {...} : (...) -> ...`.
pub(super) fn op_body(f: &Function, names: &[String], op: &Op, indent: usize) -> String {
    let kind_props = ops::of(&op.kind)
        .map(|s| (s.props)(&op.kind))
        .unwrap_or_default();
    let regions = if op.regions.is_empty() {
        String::new()
    } else {
        let rs: Vec<String> = op
            .regions
            .iter()
            .map(|&r| region(f, names, r, indent, op.region_terminator()))
            .collect();
        format!(" ({})", rs.join(", "))
    };
    let attrs = dict(&dict_entries(
        op.shardings.as_deref().map(sharding_per_value),
        &op.attrs,
    ));
    let attrs = if attrs.is_empty() {
        attrs
    } else {
        format!(" {attrs}")
    };
    format!(
        "\"{}\"({}){}{regions}{attrs} : {}",
        op.kind.name(),
        uses(names, op.written_operands()),
        props(kind_props),
        function_type(&types(f, op.written_operands()), &types(f, &op.results)),
    )
}

/// `{\n^bb0(%a: t):\n ... "stablehlo.return"(...) : (...) -> ()\n}` at `indent`.
fn region(f: &Function, names: &[String], b: BlockId, indent: usize, ret: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::from("{\n");
    if let Some(block) = f.blocks.get(b.index()) {
        if !block.args.is_empty() {
            out.push_str(&format!(
                "{pad}^bb0({}):\n",
                block_args(f, names, &block.args)
            ));
        }
        out.push_str(&block_body(f, names, b, indent + 2, ret));
    }
    out.push_str(&pad);
    out.push('}');
    out
}

fn block_args(f: &Function, names: &[String], args: &[ValueId]) -> String {
    join(
        args.iter()
            .zip(types(f, args))
            .map(|(&v, t)| format!("{}: {t}", name(names, v))),
    )
}

/// A block's ops and its terminator `ret`, each on a line at `indent`.
fn block_body(f: &Function, names: &[String], b: BlockId, indent: usize, ret: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let Some(block) = f.blocks.get(b.index()) else {
        return out;
    };
    for &id in &block.ops {
        if let Some(op) = f.ops.get(id.index()) {
            out.push_str(&format!(
                "{pad}{}{}\n",
                result_defs(names, &op.results),
                op_body(f, names, op, indent)
            ));
        }
    }
    out.push_str(&format!(
        "{pad}\"{ret}\"({}) : {}\n",
        uses(names, &block.results),
        function_type(&types(f, &block.results), &[])
    ));
    out
}

/// `[{...}, {}]` when any argument or result has attributes.
fn attrs_list(attrs: &[ValueAttrs]) -> Option<String> {
    if attrs
        .iter()
        .all(|a| a.sharding.is_none() && a.attrs.is_empty())
    {
        return None;
    }
    let dicts = attrs.iter().map(|a| {
        let d = dict(&dict_entries(
            a.sharding.as_ref().map(sharding_attr),
            &a.attrs,
        ));
        if d.is_empty() { "{}".to_string() } else { d }
    });
    Some(format!("[{}]", join(dicts)))
}

fn function(f: &Function) -> String {
    let names = f.value_names();
    let mut p = vec![
        (
            "function_type",
            function_type(&f.arg_types(), &f.result_types()),
        ),
        ("sym_name", string_literal(&f.name)),
        (
            "sym_visibility",
            string_literal(match f.visibility {
                Visibility::Public => "public",
                Visibility::Private => "private",
            }),
        ),
    ];
    if let Some(a) = attrs_list(&f.arg_attrs) {
        p.push(("arg_attrs", a));
    }
    if let Some(r) = attrs_list(&f.result_attrs) {
        p.push(("res_attrs", r));
    }
    let mut out = format!("  \"func.func\"(){} ({{\n", props(p));
    if !f.args().is_empty() {
        out.push_str(&format!("  ^bb0({}):\n", block_args(f, &names, f.args())));
    }
    out.push_str(&block_body(f, &names, Function::BODY, 4, "func.return"));
    out.push_str("  }) : () -> ()\n");
    out
}

/// The whole module in generic form.
pub(super) fn module(m: &Module) -> String {
    let name = m
        .name
        .as_ref()
        .map(|n| vec![("sym_name", string_literal(n))])
        .unwrap_or_default();
    let mut out = format!("\"builtin.module\"(){} ({{\n", props(name));
    for mesh in &m.meshes {
        let p = vec![
            ("mesh", format!("#sdy.mesh{mesh}")),
            ("sym_name", string_literal(&mesh.name)),
        ];
        out.push_str(&format!("  \"sdy.mesh\"(){} : () -> ()\n", props(p)));
    }
    for f in &m.functions {
        out.push_str(&function(f));
    }
    out.push_str("})");
    let attrs = dict(&dict_entries(None, &m.attrs));
    if !attrs.is_empty() {
        out.push(' ');
        out.push_str(&attrs);
    }
    out.push_str(" : () -> ()\n");
    out
}
