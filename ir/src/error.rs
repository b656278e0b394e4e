//! Errors of the IR: one variant per class of failure. Each message names the thing at
//! fault (value, dimension, axis, op), the rule it breaks and how to fix it.

use thiserror::Error;

/// A position in source text, 1-based.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1 (in characters).
    pub col: usize,
}

/// A failure to read the text format.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}:{}: {message}\n{snippet}", pos.line, pos.col)]
pub struct ParseError {
    /// Where in the text.
    pub pos: Pos,
    /// What was wrong and what was expected.
    pub message: String,
    /// The offending source line with a caret under the column.
    pub snippet: String,
}

/// Why a module, function, op, mesh or sharding is not valid (text that does not parse,
/// or IR that breaks a rule): each message names the thing at fault, the rule and the fix.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum IrError {
    /// The text does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),

    /// A mesh with an empty, repeated or zero-sized axis, or device ids that are not a
    /// permutation.
    #[error("mesh @{mesh} is invalid: {rule}; {fix}")]
    InvalidMesh {
        /// The mesh's name.
        mesh: String,
        /// The rule broken.
        rule: String,
        /// How to fix it.
        fix: String,
    },

    /// A literal whose elements do not match its type (the message says how).
    #[error("invalid literal: {0}")]
    InvalidLiteral(String),

    /// An op whose operands, attributes or result types break its typing rule.
    #[error("{op} defining {at}: {rule}; {fix}")]
    InvalidOp {
        /// The value the op defines, with its function: `%3 in @main`.
        at: String,
        /// The op's name (`stablehlo.dot_general`).
        op: String,
        /// The rule broken.
        rule: String,
        /// How to fix it.
        fix: String,
    },

    /// A sharding on a mesh the module does not declare.
    #[error(
        "the sharding of {at} names mesh @{mesh}, which the module does not declare; declare it (`sdy.mesh @{mesh} = <[\"x\"=2]>`) or use one of: {known}"
    )]
    UnknownMesh {
        /// The value sharded (`argument 0 (%arg0) of @main`).
        at: String,
        /// The mesh named.
        mesh: String,
        /// The meshes the module declares.
        known: String,
    },

    /// A sharding that names an axis its mesh does not have.
    #[error("the sharding of {at} uses axis \"{axis}\", which mesh @{mesh} does not have; {known}")]
    UnknownAxis {
        /// The value sharded.
        at: String,
        /// The axis named.
        axis: String,
        /// The mesh's name.
        mesh: String,
        /// The axes it has, as advice.
        known: String,
    },

    /// A sharding that uses one axis twice.
    #[error(
        "the sharding of {at} uses axis {axis} more than once; a mesh axis may split, replicate or leave unreduced a tensor at most once"
    )]
    AxisUsedTwice {
        /// The value sharded.
        at: String,
        /// The axis.
        axis: String,
    },

    /// A sharding of another rank than its tensor's.
    #[error(
        "the sharding of {at} has {sharding_rank} dimension(s) but the tensor has rank {rank}; give one `{{...}}` per dimension{scalar_hint}"
    )]
    ShardingRank {
        /// The value sharded.
        at: String,
        /// The sharding's dimensions.
        sharding_rank: usize,
        /// The tensor's rank.
        rank: usize,
        /// Advice for scalars (`[]`), or empty.
        scalar_hint: &'static str,
    },

    /// A dimension its axes do not divide, without padding asked for.
    #[error(
        "dimension {dim} of {at} has size {size}, which {axes} ({shards} shards) does not divide; make the dimension a multiple of {shards}, shard it over fewer axes, or ask for padding (`jit(f).pad_uneven()` when tracing, `Options {{ pad_uneven: true, .. }}` when compiling, `--pad` on the command line): shardc never pads or truncates silently"
    )]
    NotDivisible {
        /// The value sharded.
        at: String,
        /// The dimension, from 0.
        dim: usize,
        /// Its size.
        size: usize,
        /// The axes splitting it, as written.
        axes: String,
        /// The shards they make.
        shards: usize,
    },

    /// A sub-axis `"a":(p)s` that does not fit its axis.
    #[error(
        "the sharding of {at} uses sub-axis {axis}, which does not fit axis \"{name}\" of size {size}; a sub-axis \"a\":(p)s needs p*s to divide the axis size"
    )]
    InvalidSubAxis {
        /// The value sharded.
        at: String,
        /// The sub-axis, as written.
        axis: String,
        /// The axis it is part of.
        name: String,
        /// That axis's size.
        size: usize,
    },

    /// A call of a function the module does not define.
    #[error(
        "{at} calls @{callee}, which the module does not define; define `func.func private @{callee}` or fix the name"
    )]
    UnknownFunction {
        /// The call: the value it defines, with its function.
        at: String,
        /// The function called.
        callee: String,
    },

    /// A call whose operands or results do not match the callee's signature.
    #[error("{at} calls @{callee} with {detail}")]
    CallMismatch {
        /// The call: the value it defines, with its function.
        at: String,
        /// The function called.
        callee: String,
        /// How the call and the signature differ.
        detail: String,
    },

    /// Two functions or meshes of one name.
    #[error("the module defines {what} @{name} twice; rename one")]
    Duplicate {
        /// `function` or `mesh`.
        what: &'static str,
        /// The name.
        name: String,
    },

    /// A function that does not hold together (a value used before it is defined, a
    /// return of the wrong types).
    #[error("{at}: {rule}")]
    InvalidFunction {
        /// Where (`@main`, `the return of @main`).
        at: String,
        /// The rule broken, and the fix.
        rule: String,
    },

    /// An attribute shardc does not read, which would change the program's meaning if it
    /// were ignored (GSPMD's `mhlo.sharding`), or that contradicts the module
    /// (`mhlo.num_partitions` against the mesh).
    #[error("{at}: {what}; {fix}")]
    Attribute {
        /// Where the attribute is.
        at: String,
        /// The attribute, and what is wrong with it.
        what: String,
        /// How to fix it.
        fix: String,
    },
}
