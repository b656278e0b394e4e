//! Errors of the reference interpreter: one variant per class of failure.
//!
//! Every message names where the failure is — the function and argument, or the op
//! (`stablehlo.gather`) and the value it defines (`%3 in @main`) — what is wrong, and how
//! to fix it.

use shardc_ir::{DType, TensorType};
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Error)]
pub enum InterpError {
    /// `run` was asked for a function the module does not define.
    #[error("the module has no function @{name}; it defines {known}")]
    UnknownFunction {
        name: String,
        /// The functions it does define, as `@main, @helper`.
        known: String,
    },

    /// `run` was given the wrong number of arguments.
    #[error(
        "@{func} takes {expected} argument(s) ({types}) but {given} were given; pass one literal per argument"
    )]
    ArgumentCount {
        func: String,
        expected: usize,
        /// The signature's argument types.
        types: String,
        given: usize,
    },

    /// An argument literal has another type than the signature states.
    #[error(
        "argument {index} ({name}) of @{func} has type {given}, but @{func} takes {expected} there; pass a literal of type {expected}"
    )]
    ArgumentType {
        func: String,
        index: usize,
        /// The argument's SSA name, `%arg0`.
        name: String,
        expected: TensorType,
        given: TensorType,
    },

    /// A function whose arenas do not hold together (an id out of range, a block reached
    /// twice): it was not built by `FunctionBuilder` or the parser.
    #[error(
        "@{func} is malformed: {problem}; build functions with `FunctionBuilder` or the parser"
    )]
    MalformedFunction { func: String, problem: String },

    /// A literal whose elements do not match its own type.
    #[error("{what} is malformed: {detail}; build it with `Literal::new`, which checks this")]
    MalformedLiteral { what: String, detail: String },

    /// An op whose operands, attributes, regions or result types break its typing rule
    /// (the module was not verified, or was changed after verification).
    #[error("{op} defining {at}: {rule}; {fix}")]
    InvalidOp {
        op: String,
        /// The value the op defines, with its function: `%3 in @main`.
        at: String,
        rule: String,
        fix: String,
    },

    /// `eval_op` was given an operand value of the wrong type.
    #[error(
        "{op} defining {at}: operand {index} ({name}) has type {expected}, but the value given for it has type {given}; pass the operand's value"
    )]
    OperandType {
        op: String,
        at: String,
        index: usize,
        name: String,
        expected: TensorType,
        given: TensorType,
    },

    /// `eval_op` was given the wrong number of operand values.
    #[error(
        "{op} defining {at}: the op has {expected} operand(s) but {given} value(s) were given; pass one value per operand"
    )]
    OperandCount {
        op: String,
        at: String,
        expected: usize,
        given: usize,
    },

    /// The op has no meaning on this element type (`stablehlo.atan2` on `i32`).
    #[error(
        "{op} defining {at} is not defined on element type {dtype}{detail}; convert the operands to a type it supports"
    )]
    UnsupportedType {
        op: String,
        at: String,
        dtype: DType,
        /// Extra context, starting with a separator (`" with compare_type FLOAT"`), or empty.
        detail: String,
    },

    /// A value was read before any op defined it.
    #[error(
        "{reader} reads {name}, which has no value at this point; define values before their uses (a region may read only values defined before its op)"
    )]
    MissingValue {
        /// The op reading it (`stablehlo.add defining %3 in @main`) or `the return of @main`.
        reader: String,
        name: String,
    },

    /// `func.call` of a function the module does not define.
    #[error(
        "{at} calls @{callee}, which the module does not define; define `func.func private @{callee}` or fix the name"
    )]
    UnknownCallee { at: String, callee: String },

    /// Calls nested deeper than the limit: the call graph is recursive.
    #[error(
        "{at} calls @{callee} at call depth {limit}, the limit; StableHLO functions may not call themselves, directly or not"
    )]
    CallDepth {
        at: String,
        callee: String,
        limit: usize,
    },
}
