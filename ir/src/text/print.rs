//! The pretty printer: StableHLO and Shardy syntax as JAX prints it.
//!
//! Values are named by [`Function::value_names`] (`%arg0`, `%3`, `%4#1`), ops print one per
//! line with two spaces of indentation per level, each through its entry of the op table.

use super::format::{dict, dict_entries, join, sharding_attr, sharding_per_value, symbol};
use super::{generic, ops};
use crate::dtype::{DType, TensorType};
use crate::module::{BlockId, Function, Module, OpId, ValueAttrs, ValueId, Visibility};
use crate::op::Op;

/// Shown for a value id that is out of range (a malformed function); never for valid ones.
static INVALID_TYPE: TensorType = TensorType {
    dtype: DType::F32,
    shape: Vec::new(),
};

/// A function being printed, with the names of its values.
pub(super) struct Pretty<'f> {
    pub f: &'f Function,
    pub names: Vec<String>,
}

impl<'f> Pretty<'f> {
    pub fn new(f: &'f Function) -> Pretty<'f> {
        Pretty {
            f,
            names: f.value_names(),
        }
    }

    pub fn name(&self, v: ValueId) -> &str {
        self.names
            .get(v.index())
            .map_or("%<invalid>", String::as_str)
    }

    pub fn ty(&self, v: ValueId) -> &TensorType {
        self.f
            .values
            .get(v.index())
            .map_or(&INVALID_TYPE, |d| &d.ty)
    }

    /// `%a, %b`
    pub fn uses(&self, vs: &[ValueId]) -> String {
        join(vs.iter().map(|&v| self.name(v)))
    }

    /// Operand and result types of an op.
    pub fn types(&self, op: &Op) -> (Vec<TensorType>, Vec<TensorType>) {
        let ts = |vs: &[ValueId]| vs.iter().map(|&v| self.ty(v).clone()).collect();
        (ts(&op.operands), ts(&op.results))
    }

    /// `(a, b) -> r`
    pub fn functional(&self, op: &Op) -> String {
        let (ins, outs) = self.types(op);
        super::format::function_type(&ins, &outs)
    }

    /// `t` when every operand and the one result have type `t`, else the functional type.
    pub fn same_or_functional(&self, op: &Op) -> String {
        let (ins, outs) = self.types(op);
        match outs.as_slice() {
            [r] if ins.iter().all(|t| t == r) => r.to_string(),
            _ => self.functional(op),
        }
    }

    /// ` {sdy.sharding = ..., key = value}`, or nothing.
    pub fn attrs(&self, op: &Op) -> String {
        let entries = dict_entries(op.shardings.as_deref().map(sharding_per_value), &op.attrs);
        if entries.is_empty() {
            String::new()
        } else {
            format!(" {}", dict(&entries))
        }
    }

    /// The op in generic form (for ops without a pretty form).
    pub fn generic(&self, op: &Op) -> String {
        self.generic_at(op, 0)
    }

    /// The generic form of an op printed at `indent` (its regions indented to match).
    pub fn generic_at(&self, op: &Op, indent: usize) -> String {
        generic::op_body(self.f, &self.names, op, indent)
    }

    /// One op: `%3 = stablehlo.add %1, %2 : tensor<4xf32>` (a reduce may span lines).
    fn op(&self, id: OpId, indent: usize) -> String {
        let Some(op) = self.f.ops.get(id.index()) else {
            return format!("{}// invalid op id {id}", " ".repeat(indent));
        };
        let body = match ops::of(&op.kind) {
            Some(s) => (s.print)(self, op, indent),
            None => self.generic(op),
        };
        format!(
            "{}{}{body}",
            " ".repeat(indent),
            result_defs(&self.names, &op.results)
        )
    }

    /// The ops of a block and its terminator `ret`, one per line at `indent`.
    pub fn block_body(&self, b: BlockId, indent: usize, ret: &str) -> String {
        let Some(block) = self.f.blocks.get(b.index()) else {
            return String::new();
        };
        let mut out = String::new();
        for &id in &block.ops {
            out.push_str(&self.op(id, indent));
            out.push('\n');
        }
        out.push_str(&" ".repeat(indent));
        out.push_str(ret);
        if !block.results.is_empty() {
            let types: Vec<&TensorType> = block.results.iter().map(|&v| self.ty(v)).collect();
            out.push_str(&format!(" {} : {}", self.uses(&block.results), join(types)));
        }
        out.push('\n');
        out
    }
}

/// `%3 = ` or `%4:2 = ` (nothing for an op without results).
pub(super) fn result_defs(names: &[String], results: &[ValueId]) -> String {
    let name = |v: &ValueId| names.get(v.index()).map_or("%<invalid>", String::as_str);
    match results {
        [] => String::new(),
        [r] => format!("{} = ", name(r)),
        [r, ..] => {
            let n = name(r);
            format!("{}:{} = ", n.split('#').next().unwrap_or(n), results.len())
        }
    }
}

/// ` {sdy.sharding = ..., ...}` of a function argument or result, or nothing.
fn value_attrs(a: Option<&ValueAttrs>) -> String {
    let Some(a) = a else {
        return String::new();
    };
    let entries = dict_entries(a.sharding.as_ref().map(sharding_attr), &a.attrs);
    if entries.is_empty() {
        String::new()
    } else {
        format!(" {}", dict(&entries))
    }
}

/// `func.func public @main(%arg0: t {...}) -> (t {...}) { ... }` at `indent`.
pub(super) fn function(f: &Function, indent: usize) -> String {
    let pp = Pretty::new(f);
    let pad = " ".repeat(indent);
    let vis = match f.visibility {
        Visibility::Public => "public",
        Visibility::Private => "private",
    };
    let args = join(f.args().iter().enumerate().map(|(i, &v)| {
        format!(
            "{}: {}{}",
            pp.name(v),
            pp.ty(v),
            value_attrs(f.arg_attrs.get(i))
        )
    }));
    let results: Vec<String> = f
        .results()
        .iter()
        .enumerate()
        .map(|(i, &v)| format!("{}{}", pp.ty(v), value_attrs(f.result_attrs.get(i))))
        .collect();
    let results = match results.as_slice() {
        [] => String::new(),
        [r] if !r.contains(' ') => format!(" -> {r}"),
        rs => format!(" -> ({})", rs.join(", ")),
    };
    let body = pp.block_body(Function::BODY, indent + 2, "return");
    format!(
        "{pad}func.func {vis} {}({args}){results} {{\n{body}{pad}}}\n",
        symbol(&f.name)
    )
}

/// The whole module.
pub(super) fn module(m: &Module) -> String {
    let mut out = String::from("module");
    if let Some(name) = &m.name {
        out.push(' ');
        out.push_str(&symbol(name));
    }
    if !m.attrs.is_empty() {
        out.push_str(" attributes ");
        out.push_str(&dict(&dict_entries(None, &m.attrs)));
    }
    out.push_str(" {\n");
    for mesh in &m.meshes {
        out.push_str(&format!("  sdy.mesh {} = {mesh}\n", symbol(&mesh.name)));
    }
    for f in &m.functions {
        out.push_str(&function(f, 2));
    }
    out.push_str("}\n");
    out
}
