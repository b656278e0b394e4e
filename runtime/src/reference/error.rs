//! Errors of the reference interpreter: one variant per class of failure.
//!
//! Every message names where the failure is — the function and argument, or the op
//! (`stablehlo.gather`) and the value it defines (`%3 in @main`) — what is wrong, and how
//! to fix it.

use shardc_ir::{DType, TensorType};
use thiserror::Error;

/// Why the reference interpreter cannot run a program (a message naming where, what and
/// how to fix it).
#[derive(Clone, Debug, PartialEq, Error)]
pub enum InterpError {
    /// `run` was asked for a function the module does not define.
    #[error("the module has no function @{name}; it defines {known}")]
    UnknownFunction {
        /// The function asked for.
        name: String,
        /// The functions it does define, as `@main, @helper`.
        known: String,
    },

    /// `run` was given the wrong number of arguments.
    #[error(
        "@{func} takes {expected} argument(s) ({types}) but {given} were given; pass one literal per argument"
    )]
    ArgumentCount {
        /// The function's name.
        func: String,
        /// How many are wanted.
        expected: usize,
        /// The signature's argument types.
        types: String,
        /// How many were given.
        given: usize,
    },

    /// An argument literal has another type than the signature states.
    #[error(
        "argument {index} ({name}) of @{func} has type {given}, but @{func} takes {expected} there; pass a literal of type {expected}"
    )]
    ArgumentType {
        /// The function's name.
        func: String,
        /// Its position, from 0.
        index: usize,
        /// The argument's SSA name, `%arg0`.
        name: String,
        /// The type wanted there.
        expected: TensorType,
        /// The type given.
        given: TensorType,
    },

    /// A function whose arenas do not hold together (an id out of range, a block reached
    /// twice): it was not built by `FunctionBuilder` or the parser.
    #[error(
        "@{func} is malformed: {problem}; build functions with `FunctionBuilder` or the parser"
    )]
    MalformedFunction {
        /// The function's name.
        func: String,
        /// What does not hold together.
        problem: String,
    },

    /// A literal whose elements do not match its own type.
    #[error("{what} is malformed: {detail}; build it with `Literal::new`, which checks this")]
    MalformedLiteral {
        /// Which literal (`argument 2`, `the constant defining %5`).
        what: String,
        /// How its elements and its type disagree.
        detail: String,
    },

    /// An op whose operands, attributes, regions or result types break its typing rule
    /// (the module was not verified, or was changed after verification).
    #[error("{op} defining {at}: {rule}; {fix}")]
    InvalidOp {
        /// The op's name (`stablehlo.gather`).
        op: String,
        /// The value the op defines, with its function: `%3 in @main`.
        at: String,
        /// The rule broken.
        rule: String,
        /// How to fix it.
        fix: String,
    },

    /// `eval_op` was given an operand value of the wrong type.
    #[error(
        "{op} defining {at}: operand {index} ({name}) has type {expected}, but the value given for it has type {given}; pass the operand's value"
    )]
    OperandType {
        /// The op's name (`stablehlo.gather`).
        op: String,
        /// The value the op defines, with its function (`%3 in @main`).
        at: String,
        /// Its position, from 0.
        index: usize,
        /// The operand's SSA name (`%2`).
        name: String,
        /// The type wanted there.
        expected: TensorType,
        /// The type given.
        given: TensorType,
    },

    /// `eval_op` was given the wrong number of operand values.
    #[error(
        "{op} defining {at}: the op has {expected} operand(s) but {given} value(s) were given; pass one value per operand"
    )]
    OperandCount {
        /// The op's name (`stablehlo.gather`).
        op: String,
        /// The value the op defines, with its function (`%3 in @main`).
        at: String,
        /// How many are wanted.
        expected: usize,
        /// How many were given.
        given: usize,
    },

    /// The op has no meaning on this element type (`stablehlo.atan2` on `i32`).
    #[error(
        "{op} defining {at} is not defined on element type {dtype}{detail}; convert the operands to a type it supports"
    )]
    UnsupportedType {
        /// The op's name (`stablehlo.gather`).
        op: String,
        /// The value the op defines, with its function (`%3 in @main`).
        at: String,
        /// The element type the op does not take.
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
        /// The value's SSA name (`%4`).
        name: String,
    },

    /// `func.call` of a function the module does not define.
    #[error(
        "{at} calls @{callee}, which the module does not define; define `func.func private @{callee}` or fix the name"
    )]
    UnknownCallee {
        /// The call: the value it defines, with its function (`%3 in @main`).
        at: String,
        /// The function called.
        callee: String,
    },

    /// Calls nested deeper than the limit: the call graph is recursive.
    #[error(
        "{at} calls @{callee} at call depth {limit}, the limit; StableHLO functions may not call themselves, directly or not"
    )]
    CallDepth {
        /// The value the op defines, with its function (`%3 in @main`).
        at: String,
        /// The function called.
        callee: String,
        /// The depth of nested calls allowed.
        limit: usize,
    },
}
