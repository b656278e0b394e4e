//! Errors of the IR: one variant per class of failure. Each message names the thing at
//! fault (value, dimension, axis, op), the rule it breaks and how to fix it.

use thiserror::Error;

/// A position in source text, 1-based.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// A failure to read the text format.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}:{}: {message}\n{snippet}", pos.line, pos.col)]
pub struct ParseError {
    pub pos: Pos,
    /// What was wrong and what was expected.
    pub message: String,
    /// The offending source line with a caret under the column.
    pub snippet: String,
}

#[derive(Clone, Debug, PartialEq, Error)]
pub enum IrError {
    #[error(transparent)]
    Parse(#[from] ParseError),

    #[error("mesh @{mesh} is invalid: {rule}; {fix}")]
    InvalidMesh {
        mesh: String,
        rule: String,
        fix: String,
    },

    #[error("invalid literal: {0}")]
    InvalidLiteral(String),

    /// An op whose operands, attributes or result types break its typing rule.
    #[error("{op} defining {at}: {rule}; {fix}")]
    InvalidOp {
        /// The value the op defines, with its function: `%3 in @main`.
        at: String,
        op: String,
        rule: String,
        fix: String,
    },

    #[error(
        "the sharding of {at} names mesh @{mesh}, which the module does not declare; declare it (`sdy.mesh @{mesh} = <[\"x\"=2]>`) or use one of: {known}"
    )]
    UnknownMesh {
        at: String,
        mesh: String,
        known: String,
    },

    #[error("the sharding of {at} uses axis \"{axis}\", which mesh @{mesh} does not have; {known}")]
    UnknownAxis {
        at: String,
        axis: String,
        mesh: String,
        known: String,
    },

    #[error(
        "the sharding of {at} uses axis {axis} more than once; a mesh axis may split, replicate or leave unreduced a tensor at most once"
    )]
    AxisUsedTwice { at: String, axis: String },

    #[error(
        "the sharding of {at} has {sharding_rank} dimension(s) but the tensor has rank {rank}; give one `{{...}}` per dimension{scalar_hint}"
    )]
    ShardingRank {
        at: String,
        sharding_rank: usize,
        rank: usize,
        scalar_hint: &'static str,
    },

    #[error(
        "dimension {dim} of {at} has size {size}, which {axes} ({shards} shards) does not divide; make the dimension a multiple of {shards}, shard it over fewer axes, or ask for padding (`jit(f).pad_uneven()` when tracing, `Options {{ pad_uneven: true, .. }}` when compiling, `--pad` on the command line): shardc never pads or truncates silently"
    )]
    NotDivisible {
        at: String,
        dim: usize,
        size: usize,
        axes: String,
        shards: usize,
    },

    #[error(
        "the sharding of {at} uses sub-axis {axis}, which does not fit axis \"{name}\" of size {size}; a sub-axis \"a\":(p)s needs p*s to divide the axis size"
    )]
    InvalidSubAxis {
        at: String,
        axis: String,
        name: String,
        size: usize,
    },

    #[error(
        "{at} calls @{callee}, which the module does not define; define `func.func private @{callee}` or fix the name"
    )]
    UnknownFunction { at: String, callee: String },

    #[error("{at} calls @{callee} with {detail}")]
    CallMismatch {
        at: String,
        callee: String,
        detail: String,
    },

    #[error("the module defines {what} @{name} twice; rename one")]
    Duplicate { what: &'static str, name: String },

    #[error("{at}: {rule}")]
    InvalidFunction { at: String, rule: String },

    /// An attribute shardc does not read, which would change the program's meaning if it
    /// were ignored (GSPMD's `mhlo.sharding`), or that contradicts the module
    /// (`mhlo.num_partitions` against the mesh).
    #[error("{at}: {what}; {fix}")]
    Attribute {
        at: String,
        what: String,
        fix: String,
    },
}
