//! Modules, functions, blocks and values, with typed ids.
//!
//! A [`Function`] owns arenas of values, ops and blocks; [`ValueId`], [`OpId`] and
//! [`BlockId`] index them. Block 0 is the function body. Ids are allocated in the order
//! the text format reads them (block arguments, then each op's regions, then its results),
//! so printing and parsing a function gives back the same ids.

use crate::dtype::TensorType;
use crate::mesh::Mesh;
use crate::op::Op;
use crate::sharding::Sharding;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! typed_id {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// Its position in the function's arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The id at position `i` of the arena.
            pub fn from_index(i: usize) -> $name {
                $name(u32::try_from(i).expect(concat!(stringify!($name), " overflow: more than 2^32 entries")))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

typed_id!(
    /// A value (block argument or op result) of one function.
    ValueId,
    "v"
);
typed_id!(
    /// An op of one function.
    OpId,
    "op"
);
typed_id!(
    /// A block of one function; `BlockId(0)` is the body.
    BlockId,
    "bb"
);

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueDef {
    /// An argument of a block.
    BlockArg {
        /// The block.
        block: BlockId,
        /// Its position among the block's arguments.
        index: usize,
    },
    /// A result of an op.
    OpResult {
        /// The op.
        op: OpId,
        /// Its position among the op's results.
        index: usize,
    },
}

/// A value of a function: its type and where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueData {
    /// Its type.
    pub ty: TensorType,
    /// The block argument or op result it is.
    pub def: ValueDef,
}

/// A straight-line block: arguments, ops in order, and the values it returns
/// (`return` in a function body, `stablehlo.return` in a region).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Block {
    /// Its arguments.
    pub args: Vec<ValueId>,
    /// Its ops, in order.
    pub ops: Vec<OpId>,
    /// The values it returns.
    pub results: Vec<ValueId>,
}

/// Attributes of a function argument or result.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct ValueAttrs {
    /// `sdy.sharding`.
    pub sharding: Option<Sharding>,
    /// Other attributes (`jax.result_info`, ...), kept as written.
    pub attrs: Vec<(String, String)>,
}

/// Whether a function may be called from outside its module.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Visibility {
    /// `func.func public` (an entry point).
    #[default]
    Public,
    /// `func.func private` (called from the module only).
    Private,
}

/// The op attribute holding an op's path in JAX's trace, which the parser reads from the
/// op's location (`loc("jit(step)/jvp(Mlp)/Dense_0/dot_general"(...))`), and which a
/// [`FunctionBuilder`](crate::FunctionBuilder) in a scope writes
/// ([`set_scope`](crate::FunctionBuilder::set_scope)): `blocks.0/attn/dot_general`.
pub const OP_PATH: &str = "jax.op_path";

/// The attribute of each collective the partitioner emits naming the global value it
/// reshards (`shardc.of = "%4"`; a bucket lists its members): how `explain` and the run
/// report refer to the same collective ([`Op::of`](crate::Op::of)).
pub const OF: &str = "shardc.of";

/// The attribute of each op traced in a recomputed (rematerialized) region: `"3:nothing"`,
/// `"3:dots"`, `"3:names=q,k"` — the region's number and what its gradient may keep from
/// the forward pass instead of recomputing (`shardc::remat`; `docs/autodiff.md`).
pub const REMAT: &str = "shardc.remat";

/// The attribute naming a value a remat policy may keep (`Tensor::remat_name`, JAX's
/// `checkpoint_name`).
pub const REMAT_NAME: &str = "shardc.remat_name";

/// `s` as an attribute's string value: quoted, with `\` and `"` escaped.
pub fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An attribute's string value as written (quoted, escaped) -> the string.
pub(crate) fn unquoted(v: &str) -> String {
    v.trim_matches('"')
        .replace("\\\"", "\"")
        .replace("\\\\", "\\")
}

/// A function: arenas of values, ops and blocks (block 0 the body), and its arguments'
/// and results' attributes.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Function {
    /// Its name, without the `@`.
    pub name: String,
    /// Public or private.
    pub visibility: Visibility,
    /// Every value, by [`ValueId`].
    pub values: Vec<ValueData>,
    /// Every op, by [`OpId`].
    pub ops: Vec<Op>,
    /// Every block, by [`BlockId`]; block 0 is the body.
    pub blocks: Vec<Block>,
    /// One entry per body argument.
    pub arg_attrs: Vec<ValueAttrs>,
    /// One entry per body result.
    pub result_attrs: Vec<ValueAttrs>,
}

impl Function {
    /// The values the ops of `regions` (and of regions nested in them) read, or return,
    /// that are defined outside them: the values a region op captures, in first-use order.
    pub fn captures(&self, regions: &[BlockId]) -> Vec<ValueId> {
        fn walk(
            f: &Function,
            b: BlockId,
            inside: &mut std::collections::HashSet<ValueId>,
            out: &mut Vec<ValueId>,
        ) {
            let Some(block) = f.blocks.get(b.index()) else {
                return;
            };
            inside.extend(block.args.iter().copied());
            let mut read = |v: ValueId, inside: &std::collections::HashSet<ValueId>| {
                if !inside.contains(&v) && !out.contains(&v) {
                    out.push(v);
                }
            };
            for &id in &block.ops {
                let Some(op) = f.ops.get(id.index()) else {
                    continue;
                };
                for &v in &op.operands {
                    read(v, inside);
                }
                for &r in &op.regions {
                    let mut nested = Vec::new();
                    walk(f, r, inside, &mut nested);
                    for v in nested {
                        read(v, inside);
                    }
                }
                inside.extend(op.results.iter().copied());
            }
            for &v in &block.results {
                read(v, inside);
            }
        }
        let mut out = Vec::new();
        for &r in regions {
            let mut inside = std::collections::HashSet::new();
            walk(self, r, &mut inside, &mut out);
        }
        out
    }

    /// The body's block.
    pub const BODY: BlockId = BlockId(0);

    /// The names the user's program gives values, as JAX writes them: an argument's
    /// `jax.arg_info` (its pytree path, `params['Dense_0']['kernel']`; from its location
    /// when exported with debug information) and a returned value's `jax.result_info`
    /// (`result[1]['params']['Dense_0']['kernel']`), unquoted; an op's other results by
    /// the op's path in JAX's trace (`jax.op_path`, read from its location when exported
    /// with debug information), without the outer `jit(...)/` (`jvp(Mlp)/Dense_0/dot_general`;
    /// `#k` after it for result `k` of several). An argument returned as it is keeps its
    /// own name.
    pub fn user_names(&self) -> std::collections::HashMap<ValueId, String> {
        let named = |attrs: &ValueAttrs, key: &str| {
            attrs
                .attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| unquoted(v))
        };
        let mut names = std::collections::HashMap::new();
        for (&v, a) in self.args().iter().zip(&self.arg_attrs) {
            if let Some(n) = named(a, "jax.arg_info") {
                names.insert(v, n);
            }
        }
        for (&v, a) in self.results().iter().zip(&self.result_attrs) {
            if let Some(n) = named(a, "jax.result_info") {
                names.entry(v).or_insert(n);
            }
        }
        for op in &self.ops {
            let Some(path) = op.path() else {
                continue;
            };
            // `jit(step)/jvp(Mlp)/Dense_0/dot_general` -> `jvp(Mlp)/Dense_0/dot_general`.
            let path = match path.strip_prefix("jit(").and_then(|r| r.split_once(")/")) {
                Some((_, rest)) if !rest.is_empty() => rest.to_string(),
                _ => path,
            };
            let several = op.results.len() > 1;
            for (k, &v) in op.results.iter().enumerate() {
                let n = if several {
                    format!("{path}#{k}")
                } else {
                    path.clone()
                };
                names.entry(v).or_insert(n);
            }
        }
        names
    }

    /// The op a reducer region (of a collective, `reduce` or `scatter`) applies: its one
    /// op other than sharding constraints, which are identities there (JAX writes
    /// `sdy.sharding_constraint` on the scalar a `shard_map`'s `psum` adds) — provided the
    /// region returns that op's result, possibly through the constraints.
    pub fn reducer_op(&self, region: BlockId) -> Result<&crate::Op, String> {
        let block = self.block(region);
        let ops: Vec<&crate::Op> = block
            .ops
            .iter()
            .map(|&id| self.op(id))
            .filter(|o| !matches!(o.kind, crate::OpKind::ShardingConstraint(_)))
            .collect();
        let [only] = ops.as_slice() else {
            return Err(format!(
                "a reducer applies one op (sharding constraints aside); this one has {}",
                ops.len()
            ));
        };
        let mut returned = *block.results.first().ok_or("the reducer returns nothing")?;
        while let Some(def) = self.defining_op(returned).map(|id| self.op(id)) {
            match def.kind {
                crate::OpKind::ShardingConstraint(_) => returned = def.operands[0],
                _ => break,
            }
        }
        if only.results.first() != Some(&returned) {
            return Err("the reducer does not return the result of its op".into());
        }
        Ok(only)
    }

    /// The body.
    pub fn body(&self) -> &Block {
        &self.blocks[0]
    }

    /// A value's type and definition.
    pub fn value(&self, v: ValueId) -> &ValueData {
        &self.values[v.index()]
    }

    /// A value's type.
    pub fn ty(&self, v: ValueId) -> &TensorType {
        &self.values[v.index()].ty
    }

    /// An op.
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.index()]
    }

    /// A block.
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// The body's arguments: the function's parameters.
    pub fn args(&self) -> &[ValueId] {
        &self.body().args
    }

    /// The values the body returns.
    pub fn results(&self) -> &[ValueId] {
        &self.body().results
    }

    /// The parameters' types.
    pub fn arg_types(&self) -> Vec<TensorType> {
        self.args().iter().map(|&v| self.ty(v).clone()).collect()
    }

    /// The results' types.
    pub fn result_types(&self) -> Vec<TensorType> {
        self.results().iter().map(|&v| self.ty(v).clone()).collect()
    }

    /// The op defining a value, if it is an op result.
    pub fn defining_op(&self, v: ValueId) -> Option<OpId> {
        match self.value(v).def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The ops of the body in order (not descending into regions).
    pub fn body_ops(&self) -> impl Iterator<Item = (OpId, &Op)> {
        self.body().ops.iter().map(move |&id| (id, self.op(id)))
    }

    /// A name for every value that edits elsewhere in the program leave alone, for
    /// decisions users snapshot in their tests: the user's name when there is one
    /// ([`user_names`](Self::user_names): pytree paths, result names, op paths such as
    /// `blocks.0/attn/dot_general` from a scope), else `argument k` for an argument and
    /// the op's kind (`dot_general`; `#k` for result `k` of several) for a result — but
    /// for a sharding constraint, which pins what it reads: `h0.wq (constrained)`. A name
    /// several values share is told apart by its occurrence in the text:
    /// `blocks.0/attn/dot_general`, then `blocks.0/attn/dot_general (2)`. Where `%N`
    /// ([`value_names`](Self::value_names)) renumbers every later value when an op is
    /// added, a layer added in its own scope only adds names.
    pub fn stable_names(&self) -> Vec<String> {
        let user = self.user_names();
        let mut order = Vec::with_capacity(self.values.len());
        self.text_order(Self::BODY, &mut order);
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut names = vec![String::new(); self.values.len()];
        for v in order {
            let base = user
                .get(&v)
                .cloned()
                .unwrap_or_else(|| match self.value(v).def {
                    ValueDef::BlockArg { block, index } if block == Self::BODY => {
                        format!("argument {index}")
                    }
                    ValueDef::BlockArg { index, .. } => format!("region argument {index}"),
                    // An identity: the value it pins, pinned.
                    ValueDef::OpResult { op, .. }
                        if matches!(self.op(op).kind, crate::OpKind::ShardingConstraint(_)) =>
                    {
                        format!("{} (constrained)", names[self.op(op).operands[0].index()])
                    }
                    ValueDef::OpResult { op, index } => {
                        let op = self.op(op);
                        let kind = op.kind.name();
                        let short = kind.rsplit('.').next().unwrap_or(&kind).to_string();
                        if op.results.len() > 1 {
                            format!("{short}#{index}")
                        } else {
                            short
                        }
                    }
                });
            let count = seen.entry(base.clone()).or_insert(0);
            *count += 1;
            names[v.index()] = if *count == 1 {
                base
            } else {
                format!("{base} ({count})")
            };
        }
        names
    }

    /// The names the text format gives every value: `%arg0`, `%3`, `%4#1`.
    ///
    /// Block arguments are numbered `%argN` and op results `%N`, each counter running in
    /// text order over the whole function (an op's results are named before its regions).
    pub fn value_names(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.values.len()];
        let mut next_arg = 0;
        let mut next_result = 0;
        self.name_block(Self::BODY, &mut names, &mut next_arg, &mut next_result);
        names
    }

    /// The values of block `b` and the blocks in it as the text writes them: a block's
    /// arguments, then each op's results followed by its regions'.
    fn text_order(&self, b: BlockId, out: &mut Vec<ValueId>) {
        let block = self.block(b);
        out.extend(&block.args);
        for &id in &block.ops {
            let op = self.op(id);
            out.extend(&op.results);
            for &r in &op.regions {
                self.text_order(r, out);
            }
        }
    }

    fn name_block(
        &self,
        b: BlockId,
        names: &mut [String],
        next_arg: &mut usize,
        next_result: &mut usize,
    ) {
        let block = self.block(b);
        for &a in &block.args {
            names[a.index()] = format!("%arg{next_arg}");
            *next_arg += 1;
        }
        for &id in &block.ops {
            let op = self.op(id);
            match op.results.as_slice() {
                [] => {}
                [r] => names[r.index()] = format!("%{next_result}"),
                rs => {
                    for (i, r) in rs.iter().enumerate() {
                        names[r.index()] = format!("%{next_result}#{i}");
                    }
                }
            }
            if !op.results.is_empty() {
                *next_result += 1;
            }
            for &r in &op.regions {
                self.name_block(r, names, next_arg, next_result);
            }
        }
    }
}

/// A module: meshes and functions. The entry point is `main` (JAX's name).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Module {
    /// `module @name`, if named.
    pub name: Option<String>,
    /// Module attributes other than meshes, kept as written.
    pub attrs: Vec<(String, String)>,
    /// Its `sdy.mesh`es.
    pub meshes: Vec<Mesh>,
    /// Its functions.
    pub functions: Vec<Function>,
}

impl Module {
    /// The function of that name (without `@`).
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The mesh of that name (without `@`).
    pub fn mesh(&self, name: &str) -> Option<&Mesh> {
        self.meshes.iter().find(|m| m.name == name)
    }

    /// The entry function: `main` if present, else the first public function.
    pub fn entry(&self) -> Option<&Function> {
        self.function("main").or_else(|| {
            self.functions
                .iter()
                .find(|f| f.visibility == Visibility::Public)
        })
    }

    /// This module with `g` in place of the function of the same name (a pass that
    /// rewrites one function keeps the others as they are).
    pub fn with_function(&self, g: Function) -> Module {
        let mut m = self.clone();
        if let Some(slot) = m.functions.iter_mut().find(|h| h.name == g.name) {
            *slot = g;
        }
        m
    }
}
