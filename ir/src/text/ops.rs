//! The op syntax table: for every family of ops, how its pretty form reads and prints, and
//! which properties its generic form carries.
//!
//! Pretty forms follow StableHLO's assembly formats (`stablehlo/dialect/StablehloOps.td`
//! and `AssemblyFormat.cpp`), Shardy's for `sdy.sharding_constraint`, and MLIR's for
//! `func.call`. shardc's own random op reads
//! `shardc.random %seed, distribution = UNIFORM : (tensor<i64>) -> tensor<4x8xf32>`; its
//! generic property is `distribution = #shardc<distribution UNIFORM>`.
//! `stablehlo.gather` has no pretty form (JAX prints it generic) and always prints generic.

use super::format::{self, i64_array, int_list, join};
use super::lexer::Tok;
use super::parse::{BlockArg, FuncState, GenericAttrs, PResult, Parsed, Parser, Site, Use};
use super::print::Pretty;
use crate::dtype::TensorType;
use crate::module::BlockId;
use crate::op::{
    BinaryOp, ComparisonDirection, ComparisonType, ConvDims, Distribution, DotDims, FftType,
    GatherDims, Op, OpKind, Precision, ReplicaGroups, RngAlgorithm, ScatterDims, SolveTranspose,
    UnaryOp, WindowDims,
};

/// Operand and result types as a type signature states them.
type Sig = (Vec<TensorType>, Vec<TensorType>);

/// How one family of ops reads and writes.
pub(super) struct OpSyntax {
    /// Op names of the family (`call` and `func.call` are one family).
    names: &'static [&'static str],
    /// For the elementwise families: whether a name belongs to them.
    family: Option<fn(&str) -> bool>,
    /// The number of regions the op has ([`ANY_REGIONS`]: one or more).
    pub regions: usize,
    /// Reads the pretty form after the op name (the name is given).
    pub parse: fn(&mut Parser<'_>, &mut FuncState, &str) -> PResult<Parsed>,
    /// Prints the pretty form, from the op name to the end of its type signature.
    pub print: fn(&Pretty<'_>, &Op, usize) -> String,
    /// The properties of the generic form: `(name, attribute text)`.
    pub props: fn(&OpKind) -> Vec<(&'static str, String)>,
    /// Reads the op's kind from the generic form's properties (removing those it takes).
    pub from_props: fn(&mut Parser<'_>, &mut GenericAttrs) -> PResult<OpKind>,
}

/// `OpSyntax::regions` of an op with one region or more (`stablehlo.case`).
pub(super) const ANY_REGIONS: usize = usize::MAX;

/// Said of an unknown op name.
pub(super) const SUPPORTED: &str = "shardc reads the StableHLO ops of its op set (elementwise unary and binary ops, compare, select, clamp, constant, iota, convert, broadcast_in_dim, reshape, transpose, slice, reverse, concatenate, pad, dynamic_slice, dynamic_update_slice, dot_general, convolution, reduce, reduce_window, select_and_scatter, gather, scatter, sort, while, case, optimization_barrier, bitcast_convert, reduce_precision, rng_bit_generator, cholesky, triangular_solve, fft (of complex values, read as pairs of floats), partition_id in shard_map bodies), the chlo functions JAX emits (decomposed as they are read), func.call, stablehlo.composite (as a call of its decomposition), sdy.sharding_constraint, sdy.reshard, sdy.manual_computation, sdy.sharding_group (shard_alike's hint, read and left out), stablehlo.custom_call of placement annotations and of the LAPACK factorizations, solves and decompositions JAX emits on CPU (potrf, trsm, getrf, geqrf, orgqr, ormqr, syevd, gesdd, gtsv) and of ApproxTopK, shardc.random, shardc.rotate, shardc.lu, shardc.eigh, shardc.svd, shardc.tridiagonal_solve and shardc.fft; and in partitioned programs stablehlo.all_gather, all_reduce, reduce_scatter, all_to_all, collective_permute, shardc.shard_slice and shardc.axis_index";

fn unary_of(name: &str) -> Option<UnaryOp> {
    name.strip_prefix("stablehlo.").and_then(UnaryOp::from_name)
}

fn binary_of(name: &str) -> Option<BinaryOp> {
    name.strip_prefix("stablehlo.")
        .and_then(BinaryOp::from_name)
}

/// The binary ops StableHLO marks commutative: the ones the short form of reduce
/// (`applies stablehlo.add`) may name.
const COMMUTATIVE: &[BinaryOp] = &[
    BinaryOp::Add,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
];

fn no_props(_: &OpKind) -> Vec<(&'static str, String)> {
    Vec::new()
}

macro_rules! syntax {
    ($names:expr, $family:expr, $regions:expr, $parse:expr, $print:expr, $props:expr, $from:expr) => {
        OpSyntax {
            names: $names,
            family: $family,
            regions: $regions,
            parse: $parse,
            print: $print,
            props: $props,
            from_props: $from,
        }
    };
}

/// The table.
static SYNTAX: &[OpSyntax] = &[
    syntax!(
        &[],
        Some(|n| unary_of(n).is_some()),
        0,
        parse_unary,
        print_unary,
        no_props,
        from_unary
    ),
    syntax!(
        &[],
        Some(|n| binary_of(n).is_some()),
        0,
        parse_binary,
        print_binary,
        no_props,
        from_binary
    ),
    syntax!(
        &["stablehlo.compare"],
        None,
        0,
        parse_compare,
        print_compare,
        props_compare,
        from_compare
    ),
    syntax!(
        &["stablehlo.select"],
        None,
        0,
        parse_select,
        print_select,
        no_props,
        |_, _| Ok(OpKind::Select)
    ),
    syntax!(
        &["stablehlo.clamp"],
        None,
        0,
        parse_clamp,
        print_clamp,
        no_props,
        |_, _| Ok(OpKind::Clamp)
    ),
    syntax!(
        &["stablehlo.constant"],
        None,
        0,
        parse_constant,
        print_constant,
        props_constant,
        from_constant
    ),
    syntax!(
        &["stablehlo.iota"],
        None,
        0,
        parse_iota,
        print_iota,
        props_iota,
        from_iota
    ),
    syntax!(
        &["stablehlo.convert"],
        None,
        0,
        parse_convert,
        print_convert,
        no_props,
        |_, _| Ok(OpKind::Convert)
    ),
    syntax!(
        &["stablehlo.bitcast_convert"],
        None,
        0,
        parse_bitcast_convert,
        print_convert,
        no_props,
        |_, _| Ok(OpKind::BitcastConvert)
    ),
    syntax!(
        &["stablehlo.broadcast_in_dim"],
        None,
        0,
        parse_broadcast,
        print_broadcast,
        props_broadcast,
        from_broadcast
    ),
    syntax!(
        &["stablehlo.reshape"],
        None,
        0,
        parse_reshape,
        print_reshape,
        no_props,
        |_, _| Ok(OpKind::Reshape)
    ),
    syntax!(
        &["stablehlo.transpose"],
        None,
        0,
        parse_transpose,
        print_transpose,
        props_transpose,
        from_transpose
    ),
    syntax!(
        &["stablehlo.slice"],
        None,
        0,
        parse_slice,
        print_slice,
        props_slice,
        from_slice
    ),
    syntax!(
        &["stablehlo.concatenate"],
        None,
        0,
        parse_concatenate,
        print_concatenate,
        props_concatenate,
        from_concatenate
    ),
    syntax!(
        &["stablehlo.pad"],
        None,
        0,
        parse_pad,
        print_pad,
        props_pad,
        from_pad
    ),
    syntax!(
        &["stablehlo.dot_general"],
        None,
        0,
        parse_dot,
        print_dot,
        props_dot,
        from_dot
    ),
    syntax!(
        &["stablehlo.reduce"],
        None,
        1,
        parse_reduce,
        print_reduce,
        props_reduce,
        from_reduce
    ),
    syntax!(
        &["stablehlo.while"],
        None,
        2,
        parse_while,
        print_generic_only,
        no_props,
        |_, _| Ok(OpKind::While)
    ),
    syntax!(
        &["stablehlo.case"],
        None,
        ANY_REGIONS,
        parse_case,
        print_generic_only,
        no_props,
        |_, _| Ok(OpKind::Case)
    ),
    syntax!(
        &["sdy.manual_computation"],
        None,
        1,
        parse_manual,
        print_manual,
        props_manual,
        from_manual
    ),
    syntax!(
        &["stablehlo.rng_bit_generator"],
        None,
        0,
        parse_rng_bit_generator,
        print_rng_bit_generator,
        props_rng_bit_generator,
        from_rng_bit_generator
    ),
    syntax!(
        &["stablehlo.cholesky"],
        None,
        0,
        parse_cholesky,
        print_cholesky,
        props_cholesky,
        from_cholesky
    ),
    syntax!(
        &["stablehlo.triangular_solve"],
        None,
        0,
        parse_triangular_solve,
        print_generic_only,
        props_triangular_solve,
        from_triangular_solve
    ),
    syntax!(
        &["stablehlo.fft", "shardc.fft"],
        None,
        0,
        parse_fft,
        print_fft,
        props_fft,
        from_fft
    ),
    syntax!(
        &["shardc.geqrf"],
        None,
        0,
        parse_factorization,
        print_factorization,
        no_props,
        |_, _| Ok(OpKind::Geqrf)
    ),
    syntax!(
        &["shardc.householder_product"],
        None,
        0,
        parse_factorization,
        print_factorization,
        no_props,
        |_, _| Ok(OpKind::HouseholderProduct)
    ),
    syntax!(
        &["shardc.eigh", "shardc.svd"],
        None,
        0,
        parse_decomposition,
        print_decomposition,
        props_decomposition,
        from_decomposition
    ),
    syntax!(
        &["shardc.lu"],
        None,
        0,
        parse_factorization,
        print_factorization,
        no_props,
        |_, _| Ok(OpKind::Lu)
    ),
    syntax!(
        &["shardc.tridiagonal_solve"],
        None,
        0,
        parse_factorization,
        print_factorization,
        no_props,
        |_, _| Ok(OpKind::TridiagonalSolve)
    ),
    syntax!(
        &["stablehlo.partition_id"],
        None,
        0,
        parse_partition_id,
        print_partition_id,
        no_props,
        |_, _| Ok(OpKind::PartitionId)
    ),
    syntax!(
        &["stablehlo.optimization_barrier"],
        None,
        0,
        parse_optimization_barrier,
        print_optimization_barrier,
        no_props,
        |_, _| Ok(OpKind::OptimizationBarrier)
    ),
    syntax!(
        &["stablehlo.scatter"],
        None,
        1,
        parse_scatter,
        print_generic_only,
        props_scatter,
        from_scatter
    ),
    syntax!(
        &["stablehlo.sort"],
        None,
        1,
        parse_sort,
        print_generic_only,
        props_sort,
        from_sort
    ),
    syntax!(
        &["stablehlo.convolution"],
        None,
        0,
        parse_convolution,
        print_convolution,
        props_convolution,
        from_convolution
    ),
    syntax!(
        &["stablehlo.select_and_scatter"],
        None,
        2,
        parse_select_and_scatter,
        print_generic_only,
        props_reduce_window,
        from_select_and_scatter
    ),
    syntax!(
        &["stablehlo.reverse"],
        None,
        0,
        parse_reverse,
        print_reverse,
        props_reverse,
        from_reverse
    ),
    syntax!(
        &["stablehlo.gather"],
        None,
        0,
        parse_gather,
        print_gather,
        props_gather,
        from_gather
    ),
    syntax!(
        &["stablehlo.dynamic_slice"],
        None,
        0,
        parse_dynamic_slice,
        print_dynamic_slice,
        props_dynamic_slice,
        from_dynamic_slice
    ),
    syntax!(
        &["stablehlo.dynamic_update_slice"],
        None,
        0,
        parse_dynamic_update_slice,
        print_dynamic_update_slice,
        no_props,
        from_dynamic_update_slice
    ),
    syntax!(
        &["stablehlo.reduce_window"],
        None,
        1,
        parse_reduce_window,
        print_generic_only,
        props_reduce_window,
        from_reduce_window
    ),
    syntax!(
        &["shardc.random"],
        None,
        0,
        parse_random,
        print_random,
        props_random,
        from_random
    ),
    syntax!(
        &["shardc.rotate"],
        None,
        0,
        parse_rotate,
        print_rotate,
        props_rotate,
        from_rotate
    ),
    syntax!(
        &["func.call", "call"],
        None,
        0,
        parse_call,
        print_call,
        props_call,
        from_call
    ),
    syntax!(
        &["stablehlo.composite"],
        None,
        0,
        parse_composite,
        print_call,
        props_call,
        from_composite
    ),
    syntax!(
        &["sdy.sharding_constraint", "sdy.reshard"],
        None,
        0,
        parse_constraint,
        print_constraint,
        props_constraint,
        from_constraint
    ),
    syntax!(
        &["stablehlo.all_gather"],
        None,
        0,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_all_gather
    ),
    syntax!(
        &["stablehlo.all_reduce"],
        None,
        1,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_all_reduce
    ),
    syntax!(
        &["stablehlo.reduce_scatter"],
        None,
        1,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_reduce_scatter
    ),
    syntax!(
        &["stablehlo.all_to_all"],
        None,
        0,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_all_to_all
    ),
    syntax!(
        &["shardc.shard_slice"],
        None,
        0,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_shard_slice
    ),
    syntax!(
        &["stablehlo.collective_permute"],
        None,
        0,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_collective_permute
    ),
    syntax!(
        &["shardc.axis_index"],
        None,
        0,
        parse_generic_only,
        print_generic_only,
        props_collective,
        from_axis_index
    ),
];

/// The syntax of the ops named `name`, if shardc knows them.
pub(super) fn lookup(name: &str) -> Option<&'static OpSyntax> {
    SYNTAX
        .iter()
        .find(|s| s.names.contains(&name) || s.family.is_some_and(|f| f(name)))
}

/// The syntax of an op kind (every kind has one; see the test below).
pub(super) fn of(kind: &OpKind) -> Option<&'static OpSyntax> {
    lookup(&kind.name())
}

// ----- shared pieces -----

/// `: t` (every operand and the result have type t) or `: (a, b) -> r`.
fn same_or_functional(p: &mut Parser<'_>, operands: usize) -> PResult<Sig> {
    p.expect(Tok::Colon, "before the op's type")?;
    if p.is(&Tok::LParen) {
        return p.function_type("(the op's type)");
    }
    let t = p.tensor_type("after ':'")?;
    Ok((vec![t.clone(); operands], vec![t]))
}

/// `: (a, b) -> r`
fn functional(p: &mut Parser<'_>) -> PResult<Sig> {
    p.expect(Tok::Colon, "before the op's type")?;
    p.function_type("(the op's type `(operand types) -> result type`)")
}

/// Exactly `n` comma-separated operands.
fn operands_n(p: &mut Parser<'_>, f: &FuncState, n: usize, op: &str) -> PResult<Vec<Use>> {
    let mut v = vec![p.operand(f)?];
    while v.len() < n {
        p.expect(
            Tok::Comma,
            &format!("after operand {} of {op} (it takes {n})", v.len() - 1),
        )?;
        v.push(p.operand(f)?);
    }
    Ok(v)
}

/// `key = ` before a value in the pretty form.
fn key(p: &mut Parser<'_>, key: &str, context: &str) -> PResult<()> {
    p.expect_ident(key, context)?;
    p.expect(Tok::Equal, &format!("after '{key}'"))
}

/// A `, ` before the next part of an op.
fn comma(p: &mut Parser<'_>, context: &str) -> PResult<()> {
    p.expect(Tok::Comma, context)
}

fn enum_value<T>(
    p: &Parser<'_>,
    at: usize,
    what: &str,
    name: &str,
    parse: fn(&str) -> Option<T>,
    all: &[&str],
) -> PResult<T> {
    parse(name).ok_or_else(|| {
        p.error_at(
            at,
            format!(
                "unknown {what} `{name}`; expected one of {}",
                all.join(", ")
            ),
        )
    })
}

fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&x| name(x)).collect()
}

// ----- elementwise -----

fn parse_unary(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let kind = OpKind::Unary(
        unary_of(name).ok_or_else(|| p.error_here(format!("`{name}` is not a unary op")))?,
    );
    let x = operands_n(p, f, 1, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(kind, x, same_or_functional(p, 1)?).with_attrs(attrs))
}

fn from_unary(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    unary_of(&g.op)
        .map(OpKind::Unary)
        .ok_or_else(|| p.error_at(g.offset, format!("`{}` is not a unary op", g.op)))
}

fn print_unary(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    format!(
        "{} {}{} : {}",
        op.kind.name(),
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.same_or_functional(op)
    )
}

fn parse_binary(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let kind = OpKind::Binary(
        binary_of(name).ok_or_else(|| p.error_here(format!("`{name}` is not a binary op")))?,
    );
    let xs = operands_n(p, f, 2, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(kind, xs, same_or_functional(p, 2)?).with_attrs(attrs))
}

fn from_binary(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    binary_of(&g.op)
        .map(OpKind::Binary)
        .ok_or_else(|| p.error_at(g.offset, format!("`{}` is not a binary op", g.op)))
}

fn print_binary(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    print_unary(pp, op, indent)
}

// ----- compare -----

/// `stablehlo.compare GE, %a, %b, SIGNED : (t, t) -> r`
fn parse_compare(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let at = p.tok.start;
    let d = p.ident("(the comparison direction: EQ, NE, GE, GT, LE or LT)")?;
    let direction = enum_value(
        p,
        at,
        "comparison direction",
        d,
        ComparisonDirection::from_name,
        &names(ComparisonDirection::ALL, ComparisonDirection::name),
    )?;
    comma(p, "after the comparison direction")?;
    let lhs = p.operand(f)?;
    comma(p, "between the operands of stablehlo.compare")?;
    let rhs = p.operand(f)?;
    let compare_type = if p.eat(Tok::Comma)? {
        let at = p.tok.start;
        let t = p.ident("(the comparison type: FLOAT, TOTALORDER, SIGNED or UNSIGNED)")?;
        Some(enum_value(
            p,
            at,
            "comparison type",
            t,
            ComparisonType::from_name,
            &names(ComparisonType::ALL, ComparisonType::name),
        )?)
    } else {
        None
    };
    let xs = vec![lhs, rhs];
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(
        OpKind::Compare {
            direction,
            compare_type,
        },
        xs,
        functional(p)?,
    )
    .with_attrs(attrs))
}

fn print_compare(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Compare {
        direction,
        compare_type,
    } = &op.kind
    else {
        return pp.generic(op);
    };
    let ty = compare_type
        .map(|t| format!(", {}", t.name()))
        .unwrap_or_default();
    format!(
        "stablehlo.compare {}, {}{ty}{} : {}",
        direction.name(),
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_compare(kind: &OpKind) -> Vec<(&'static str, String)> {
    let OpKind::Compare {
        direction,
        compare_type,
    } = kind
    else {
        return Vec::new();
    };
    let mut v = vec![(
        "comparison_direction",
        format!("#stablehlo<comparison_direction {}>", direction.name()),
    )];
    if let Some(t) = compare_type {
        v.push((
            "compare_type",
            format!("#stablehlo<comparison_type {}>", t.name()),
        ));
    }
    v
}

fn from_compare(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let direction = p.required_prop(
        g,
        "comparison_direction",
        "#stablehlo<comparison_direction GE>",
        |p| {
            let at = p.tok.start;
            let d = p.enum_attr("stablehlo", "comparison_direction")?;
            enum_value(
                p,
                at,
                "comparison direction",
                d,
                ComparisonDirection::from_name,
                &names(ComparisonDirection::ALL, ComparisonDirection::name),
            )
        },
    )?;
    let compare_type = p.prop(g, "compare_type", |p| {
        let at = p.tok.start;
        let t = p.enum_attr("stablehlo", "comparison_type")?;
        enum_value(
            p,
            at,
            "comparison type",
            t,
            ComparisonType::from_name,
            &names(ComparisonType::ALL, ComparisonType::name),
        )
    })?;
    Ok(OpKind::Compare {
        direction,
        compare_type,
    })
}

// ----- select, clamp, convert -----

/// `stablehlo.select %p, %t, %f : pred_type, result_type` (or functional).
fn parse_select(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let xs = operands_n(p, f, 3, name)?;
    let attrs = p.op_attrs()?;
    p.expect(Tok::Colon, "before the op's type")?;
    let sig = if p.is(&Tok::LParen) {
        p.function_type("(the op's type)")?
    } else {
        let pred = p.tensor_type("(the predicate's type)")?;
        p.expect(
            Tok::Comma,
            "between the predicate's type and the result type (`: pred_type, result_type`)",
        )?;
        let r = p.tensor_type("(the result type)")?;
        (vec![pred, r.clone(), r.clone()], vec![r])
    };
    Ok(Parsed::new(OpKind::Select, xs, sig).with_attrs(attrs))
}

fn print_select(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let (ins, outs) = pp.types(op);
    let sig = match (ins.as_slice(), outs.as_slice()) {
        ([pred, t, f], [r]) if t == r && f == r => format!("{pred}, {r}"),
        _ => pp.functional(op),
    };
    format!(
        "stablehlo.select {}{} : {sig}",
        pp.uses(&op.operands),
        pp.attrs(op)
    )
}

fn parse_clamp(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let xs = operands_n(p, f, 3, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Clamp, xs, same_or_functional(p, 3)?).with_attrs(attrs))
}

fn print_clamp(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    print_unary(pp, op, indent)
}

/// `stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>`, or `: t` when the types agree.
fn parse_convert(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Convert, x, same_or_functional(p, 1)?).with_attrs(attrs))
}

/// `stablehlo.bitcast_convert %x : (tensor<4xui32>) -> tensor<4xf32>`.
fn parse_bitcast_convert(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::BitcastConvert, x, same_or_functional(p, 1)?).with_attrs(attrs))
}

fn print_convert(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    print_unary(pp, op, indent)
}

// ----- constant, iota -----

/// `stablehlo.constant {attrs} dense<...> : tensor<...>`
fn parse_constant(p: &mut Parser<'_>, _: &mut FuncState, _: &str) -> PResult<Parsed> {
    let attrs = p.op_attrs()?;
    let lit = p.dense_literal()?;
    let ty = lit.ty.clone();
    Ok(Parsed::new(OpKind::Constant(lit), Vec::new(), (Vec::new(), vec![ty])).with_attrs(attrs))
}

fn print_constant(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Constant(lit) = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.constant{} {}",
        pp.attrs(op),
        format::literal(lit)
    )
}

fn props_constant(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Constant(lit) => vec![("value", format::literal(lit))],
        _ => Vec::new(),
    }
}

fn from_constant(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    p.required_prop(g, "value", "dense<...> : tensor<...>", |p| {
        p.dense_literal()
    })
    .map(OpKind::Constant)
}

/// `stablehlo.iota dim = 0 : tensor<8x8xi32>`
fn parse_iota(p: &mut Parser<'_>, _: &mut FuncState, _: &str) -> PResult<Parsed> {
    key(p, "dim", "(stablehlo.iota dim = N : type)")?;
    let dimension = p.usize_lit("the iota dimension")?;
    let attrs = p.op_attrs()?;
    p.expect(Tok::Colon, "before the iota's type")?;
    let t = p.tensor_type("after ':'")?;
    Ok(Parsed::new(
        OpKind::Iota { dimension },
        Vec::new(),
        (Vec::new(), vec![t]),
    )
    .with_attrs(attrs))
}

fn print_iota(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Iota { dimension } = &op.kind else {
        return pp.generic(op);
    };
    let (_, outs) = pp.types(op);
    format!(
        "stablehlo.iota dim = {dimension}{} : {}",
        pp.attrs(op),
        format::results_type(&outs)
    )
}

fn props_iota(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Iota { dimension } => vec![("iota_dimension", format!("{dimension} : i64"))],
        _ => Vec::new(),
    }
}

fn from_iota(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let d = p.required_prop(g, "iota_dimension", "0 : i64", |p| {
        p.int_attr("the iota dimension")
    })?;
    let dimension = usize::try_from(d)
        .map_err(|_| p.error_at(at, "the iota dimension must be non-negative"))?;
    Ok(OpKind::Iota { dimension })
}

// ----- shape ops -----

/// `stablehlo.broadcast_in_dim %x, dims = [0, 1] : (t) -> r`
fn parse_broadcast(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(
        p,
        "after the operand (stablehlo.broadcast_in_dim %x, dims = [...])",
    )?;
    key(p, "dims", "(stablehlo.broadcast_in_dim %x, dims = [...])")?;
    let dims = p.usize_list("broadcast dimensions")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::BroadcastInDim { dims }, x, functional(p)?).with_attrs(attrs))
}

fn print_broadcast(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::BroadcastInDim { dims } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.broadcast_in_dim {}, dims = {}{} : {}",
        pp.uses(&op.operands),
        int_list(dims),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_broadcast(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::BroadcastInDim { dims } => vec![("broadcast_dimensions", i64_array(dims))],
        _ => Vec::new(),
    }
}

fn from_broadcast(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dims = p.required_prop(g, "broadcast_dimensions", "array<i64: ...>", |p| {
        p.usize_array("broadcast dimensions")
    })?;
    Ok(OpKind::BroadcastInDim { dims })
}

fn parse_reshape(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Reshape, x, functional(p)?).with_attrs(attrs))
}

fn print_reshape(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    format!(
        "stablehlo.reshape {}{} : {}",
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

/// `stablehlo.transpose %x, dims = [1, 0] : (t) -> r`
fn parse_transpose(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(
        p,
        "after the operand (stablehlo.transpose %x, dims = [...])",
    )?;
    key(p, "dims", "(stablehlo.transpose %x, dims = [...])")?;
    let permutation = p.usize_list("permutation")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Transpose { permutation }, x, functional(p)?).with_attrs(attrs))
}

fn print_transpose(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Transpose { permutation } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.transpose {}, dims = {}{} : {}",
        pp.uses(&op.operands),
        int_list(permutation),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_transpose(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Transpose { permutation } => vec![("permutation", i64_array(permutation))],
        _ => Vec::new(),
    }
}

fn from_transpose(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let permutation = p.required_prop(g, "permutation", "array<i64: ...>", |p| {
        p.usize_array("permutation")
    })?;
    Ok(OpKind::Transpose { permutation })
}

/// `stablehlo.reverse %x, dims = [0, 1] : t`
fn parse_reverse(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(p, "after the operand (stablehlo.reverse %x, dims = [...])")?;
    key(p, "dims", "(stablehlo.reverse %x, dims = [...])")?;
    let dimensions = p.usize_list("reversed dimensions")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Reverse { dimensions }, x, same_or_functional(p, 1)?).with_attrs(attrs))
}

fn print_reverse(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Reverse { dimensions } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.reverse {}, dims = {}{} : {}",
        pp.uses(&op.operands),
        int_list(dimensions),
        pp.attrs(op),
        pp.same_or_functional(op)
    )
}

fn props_reverse(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Reverse { dimensions } => vec![("dimensions", i64_array(dimensions))],
        _ => Vec::new(),
    }
}

fn from_reverse(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dimensions = p.required_prop(g, "dimensions", "array<i64: ...>", |p| {
        p.usize_array("reversed dimensions")
    })?;
    Ok(OpKind::Reverse { dimensions })
}

/// `stablehlo.slice %x [0:4, 2:8:2] : (t) -> r`
fn parse_slice(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    p.expect(
        Tok::LSquare,
        "to open the slice ranges `[start:limit:stride, ...]`",
    )?;
    let (mut start, mut limit, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    if !p.eat(Tok::RSquare)? {
        loop {
            start.push(p.usize_lit("a slice start")?);
            p.expect(
                Tok::Colon,
                "between slice start and limit (start:limit or start:limit:stride)",
            )?;
            limit.push(p.usize_lit("a slice limit")?);
            strides.push(if p.eat(Tok::Colon)? {
                p.usize_lit("a slice stride")?
            } else {
                1
            });
            if p.eat(Tok::Comma)? {
                continue;
            }
            if p.eat(Tok::RSquare)? {
                break;
            }
            return p.err(format!(
                "expected ',' or ']' after a slice range, found {}",
                p.tok.tok
            ));
        }
    }
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(
        OpKind::Slice {
            start,
            limit,
            strides,
        },
        x,
        functional(p)?,
    )
    .with_attrs(attrs))
}

fn print_slice(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Slice {
        start,
        limit,
        strides,
    } = &op.kind
    else {
        return pp.generic(op);
    };
    let ranges = start.iter().zip(limit).zip(strides).map(|((s, l), st)| {
        if *st == 1 {
            format!("{s}:{l}")
        } else {
            format!("{s}:{l}:{st}")
        }
    });
    format!(
        "stablehlo.slice {} [{}]{} : {}",
        pp.uses(&op.operands),
        join(ranges),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_slice(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Slice {
            start,
            limit,
            strides,
        } => vec![
            ("start_indices", i64_array(start)),
            ("limit_indices", i64_array(limit)),
            ("strides", i64_array(strides)),
        ],
        _ => Vec::new(),
    }
}

fn from_slice(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let start = p.required_prop(g, "start_indices", "array<i64: ...>", |p| {
        p.usize_array("slice starts")
    })?;
    let limit = p.required_prop(g, "limit_indices", "array<i64: ...>", |p| {
        p.usize_array("slice limits")
    })?;
    let strides = p.required_prop(g, "strides", "array<i64: ...>", |p| {
        p.usize_array("slice strides")
    })?;
    Ok(OpKind::Slice {
        start,
        limit,
        strides,
    })
}

/// `stablehlo.concatenate %a, %b, dim = 0 : (t, u) -> r`
fn parse_concatenate(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let mut xs = Vec::new();
    while matches!(p.tok.tok, Tok::Value { .. }) {
        xs.push(p.operand(f)?);
        comma(
            p,
            "after an operand of stablehlo.concatenate (each operand is followed by ',')",
        )?;
    }
    key(p, "dim", "(stablehlo.concatenate %a, %b, dim = N)")?;
    let dimension = p.usize_lit("the concatenated dimension")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Concatenate { dimension }, xs, functional(p)?).with_attrs(attrs))
}

fn print_concatenate(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Concatenate { dimension } = &op.kind else {
        return pp.generic(op);
    };
    let xs: String = op
        .operands
        .iter()
        .map(|&v| format!("{}, ", pp.name(v)))
        .collect();
    format!(
        "stablehlo.concatenate {xs}dim = {dimension}{} : {}",
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_concatenate(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Concatenate { dimension } => vec![("dimension", format!("{dimension} : i64"))],
        _ => Vec::new(),
    }
}

fn from_concatenate(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let d = p.required_prop(g, "dimension", "0 : i64", |p| {
        p.int_attr("the concatenated dimension")
    })?;
    let dimension = usize::try_from(d)
        .map_err(|_| p.error_at(at, "the concatenated dimension must be non-negative"))?;
    Ok(OpKind::Concatenate { dimension })
}

/// `stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : (t, u) -> r`
fn parse_pad(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let xs = operands_n(p, f, 2, name)?;
    comma(
        p,
        "after the operands (stablehlo.pad %x, %v, low = [...], high = [...], interior = [...])",
    )?;
    key(p, "low", "(the low edge padding)")?;
    let low = p.i64_list("low paddings")?;
    comma(p, "after the low paddings")?;
    key(p, "high", "(the high edge padding)")?;
    let high = p.i64_list("high paddings")?;
    comma(p, "after the high paddings")?;
    key(p, "interior", "(the interior padding)")?;
    let interior = p.i64_list("interior paddings")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(
        OpKind::Pad {
            low,
            high,
            interior,
        },
        xs,
        functional(p)?,
    )
    .with_attrs(attrs))
}

fn print_pad(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Pad {
        low,
        high,
        interior,
    } = &op.kind
    else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.pad {}, low = {}, high = {}, interior = {}{} : {}",
        pp.uses(&op.operands),
        int_list(low),
        int_list(high),
        int_list(interior),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_pad(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Pad {
            low,
            high,
            interior,
        } => vec![
            ("edge_padding_low", i64_array(low)),
            ("edge_padding_high", i64_array(high)),
            ("interior_padding", i64_array(interior)),
        ],
        _ => Vec::new(),
    }
}

fn from_pad(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let low = p.required_prop(g, "edge_padding_low", "array<i64: ...>", |p| p.i64_array())?;
    let high = p.required_prop(g, "edge_padding_high", "array<i64: ...>", |p| p.i64_array())?;
    let interior = p.required_prop(g, "interior_padding", "array<i64: ...>", |p| p.i64_array())?;
    Ok(OpKind::Pad {
        low,
        high,
        interior,
    })
}

// ----- dot_general -----

/// `[..] x [..]`
fn dims_pair(p: &mut Parser<'_>, what: &str) -> PResult<(Vec<usize>, Vec<usize>)> {
    let l = p.usize_list(&format!("lhs {what} dimensions"))?;
    p.expect_ident(
        "x",
        &format!("between the lhs and rhs {what} dimensions (`[..] x [..]`)"),
    )?;
    let r = p.usize_list(&format!("rhs {what} dimensions"))?;
    Ok((l, r))
}

/// `stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
/// precision = [DEFAULT, DEFAULT] : (t, u) -> r`
fn parse_dot(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let xs = operands_n(p, f, 2, name)?;
    comma(
        p,
        "after the operands (stablehlo.dot_general %a, %b, contracting_dims = [..] x [..])",
    )?;
    let mut d = DotDims::default();
    if p.eat_ident("batching_dims")? {
        p.expect(Tok::Equal, "after 'batching_dims'")?;
        (d.lhs_batch, d.rhs_batch) = dims_pair(p, "batching")?;
        comma(p, "after the batching dimensions")?;
    }
    key(p, "contracting_dims", "(contracting_dims = [..] x [..])")?;
    (d.lhs_contracting, d.rhs_contracting) = dims_pair(p, "contracting")?;
    if p.eat(Tok::Comma)? {
        if p.is_ident("algorithm") {
            key(
                p,
                "algorithm",
                "(algorithm = <lhs_precision_type = ..., ...>)",
            )?;
            d.algorithm = Some(p.dot_algorithm()?);
        } else {
            key(p, "precision", "(precision = [DEFAULT, DEFAULT])")?;
            p.expect(Tok::LSquare, "to open the precision config")?;
            if !p.eat(Tok::RSquare)? {
                loop {
                    let at = p.tok.start;
                    let name = p.ident("(a precision: DEFAULT, HIGH or HIGHEST)")?;
                    d.precision.push(enum_value(
                        p,
                        at,
                        "precision",
                        name,
                        Precision::from_name,
                        &names(Precision::ALL, Precision::name),
                    )?);
                    if p.eat(Tok::Comma)? {
                        continue;
                    }
                    p.expect(Tok::RSquare, "to close the precision config")?;
                    break;
                }
            }
            if p.eat(Tok::Comma)? {
                key(
                    p,
                    "algorithm",
                    "(algorithm = <lhs_precision_type = ..., ...>)",
                )?;
                d.algorithm = Some(p.dot_algorithm()?);
            }
        }
    }
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::DotGeneral(d), xs, functional(p)?).with_attrs(attrs))
}

fn print_dot(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::DotGeneral(d) = &op.kind else {
        return pp.generic(op);
    };
    let mut s = format!("stablehlo.dot_general {}, ", pp.uses(&op.operands));
    if !d.lhs_batch.is_empty() || !d.rhs_batch.is_empty() {
        s.push_str(&format!(
            "batching_dims = {} x {}, ",
            int_list(&d.lhs_batch),
            int_list(&d.rhs_batch)
        ));
    }
    s.push_str(&format!(
        "contracting_dims = {} x {}",
        int_list(&d.lhs_contracting),
        int_list(&d.rhs_contracting)
    ));
    if !d.precision.is_empty() {
        s.push_str(&format!(
            ", precision = [{}]",
            join(d.precision.iter().map(|p| p.name()))
        ));
    }
    if let Some(a) = &d.algorithm {
        s.push_str(&format!(", algorithm = <{}>", a.fields()));
    }
    format!("{s}{} : {}", pp.attrs(op), pp.functional(op))
}

fn props_dot(kind: &OpKind) -> Vec<(&'static str, String)> {
    let OpKind::DotGeneral(d) = kind else {
        return Vec::new();
    };
    let fields = [
        ("lhs_batching_dimensions", &d.lhs_batch),
        ("rhs_batching_dimensions", &d.rhs_batch),
        ("lhs_contracting_dimensions", &d.lhs_contracting),
        ("rhs_contracting_dimensions", &d.rhs_contracting),
    ];
    let body = join(
        fields
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k} = {}", int_list(v))),
    );
    let mut out = vec![("dot_dimension_numbers", format!("#stablehlo.dot<{body}>"))];
    if !d.precision.is_empty() {
        let ps = join(
            d.precision
                .iter()
                .map(|p| format!("#stablehlo<precision {}>", p.name())),
        );
        out.push(("precision_config", format!("[{ps}]")));
    }
    if let Some(a) = &d.algorithm {
        out.push((
            "algorithm",
            format!("#stablehlo.dot_algorithm<{}>", a.fields()),
        ));
    }
    out
}

fn from_dot(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let mut d = p.required_prop(g, "dot_dimension_numbers", "#stablehlo.dot<...>", |p| {
        p.dot_attr()
    })?;
    d.precision = p
        .prop(g, "precision_config", |p| p.precision_config())?
        .unwrap_or_default();
    d.algorithm = p.prop(g, "algorithm", |p| p.dot_algorithm_attr())?;
    Ok(OpKind::DotGeneral(d))
}

// ----- reduce -----

/// `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (t, s) -> r`
/// or the general form with a `reducer(%acc: s, %x: s) ... { ... stablehlo.return ... }`.
fn parse_reduce(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let start = p.tok.start;
    let (mut inputs, mut inits) = (Vec::new(), Vec::new());
    loop {
        p.expect(
            Tok::LParen,
            "to open an input of stablehlo.reduce (`(%x init: %c)`)",
        )?;
        inputs.push(p.operand(f)?);
        p.expect_ident("init", "after the reduced input (`(%x init: %c)`)")?;
        p.expect(Tok::Colon, "after 'init'")?;
        inits.push(p.operand(f)?);
        p.expect(Tok::RParen, "after the init value")?;
        if !p.eat(Tok::Comma)? {
            break;
        }
    }
    let n = inputs.len();
    let mut operands = inputs;
    operands.extend(inits);
    super::complex::real_inits(f, &mut operands, n);
    let applies = if p.eat_ident("applies")? {
        let at = p.tok.start;
        let name = p.ident("(the reducing op, e.g. stablehlo.add)")?;
        let Some(b) = binary_of(name).filter(|b| COMMUTATIVE.contains(b)) else {
            return p.err_at(at, format!(
                "`applies` takes a commutative binary StableHLO op (stablehlo.add, multiply, maximum, minimum, and, or, xor), not `{name}`; write the general form with a reducer region"
            ));
        };
        if n != 1 {
            return p.err_at(at, format!("the `applies` form reduces one input, but {n} are given; write the general form with a reducer region"));
        }
        Some((b, at))
    } else {
        None
    };
    p.expect_ident(
        "across",
        "(stablehlo.reduce(...) across dimensions = [...])",
    )?;
    key(p, "dimensions", "after 'across'")?;
    let dimensions = p.usize_list("reduced dimensions")?;
    let attrs = p.op_attrs()?;
    let sig = functional(p)?;
    if sig.0.len() != 2 * n {
        return p.err_at(
            start,
            format!(
                "stablehlo.reduce has {} operands but its type lists {}",
                2 * n,
                sig.0.len()
            ),
        );
    }
    let region = match applies {
        // A complex input whose init stayed complex: the reducer computes on pairs.
        Some((b, at)) if n == 1 && f.complex.contains(&operands[1].id) => {
            super::complex::pair_reducer(f, b, sig.0[0].dtype).map_err(|e| p.error_at(at, e))?
        }
        Some((b, at)) => {
            // The reducer's scalar type comes from the first input's element type.
            let s = TensorType::scalar(sig.0[0].dtype);
            let args = f.b.begin_block(&[s.clone(), s]);
            let r =
                f.b.binary(b, args[0], args[1])
                    .map_err(|e| p.error_at(at, e.to_string()))?;
            f.b.end_block(&[r])
        }
        None => reducer(p, f, &operands, n)?,
    };
    let mut parsed = Parsed::new(OpKind::Reduce { dimensions }, operands, sig).with_attrs(attrs);
    parsed.regions = vec![region];
    Ok(parsed)
}

/// `reducer(%a1: s, %x1: s) (%a2: t, %x2: t) { ... }`: the pairs are (accumulator,
/// element) of each input; the block takes all accumulators, then all elements.
fn reducer(p: &mut Parser<'_>, f: &mut FuncState, operands: &[Use], n: usize) -> PResult<BlockId> {
    let at = p.tok.start;
    p.expect_ident(
        "reducer",
        "after the type of the general stablehlo.reduce (or use `applies stablehlo.add`)",
    )?;
    let (mut accs, mut elems) = (Vec::new(), Vec::new());
    while p.is(&Tok::LParen) {
        let pair = p.block_args()?;
        let [acc, elem] = <[_; 2]>::try_from(pair).map_err(|v: Vec<_>| {
            p.error_at(
                at,
                format!(
                    "each reducer pair lists (accumulator, element), but one lists {} argument(s)",
                    v.len()
                ),
            )
        })?;
        accs.push(acc);
        elems.push(elem);
    }
    if accs.len() != n {
        return p.err_at(at, format!("the reducer lists {} (accumulator, element) pair(s) but the reduce has {n} input(s); give one pair per input", accs.len()));
    }
    if p.verifying() {
        for (k, (a, e)) in accs.iter().zip(&elems).enumerate() {
            let x = operands[k].id;
            let mut want = TensorType::scalar(f.b.ty(x).dtype);
            if f.complex.contains(&x) {
                // A complex scalar, as a pair.
                want.shape.push(2);
            }
            for (name, offset, ty, _, _) in [a, e] {
                if *ty != want {
                    return p.err_at(*offset, format!("reducer argument %{name} has type {ty} but input {k} needs {want}; the reducer takes scalars of each input's element type"));
                }
            }
        }
    }
    accs.extend(elems);
    p.expect(Tok::LBrace, "to open the reducer's body")?;
    let body = p.region_body(f, accs)?;
    if p.verifying() {
        let results: Vec<TensorType> =
            f.b.func()
                .block(body)
                .results
                .iter()
                .map(|&v| f.b.ty(v).clone())
                .collect();
        let want: Vec<TensorType> = operands[..n]
            .iter()
            .map(|u| {
                let mut t = TensorType::scalar(f.b.ty(u.id).dtype);
                if f.complex.contains(&u.id) {
                    t.shape.push(2);
                }
                t
            })
            .collect();
        if results != want {
            return p.err_at(
                p.prev_end.saturating_sub(1),
                format!(
                    "the reducer returns ({}) but must return ({}), one scalar per input",
                    join(&results),
                    join(&want)
                ),
            );
        }
    }
    Ok(body)
}

/// The short form applies if the reducer is one commutative binary op of its two
/// arguments, returned as is.
fn compact_reducer(pp: &Pretty<'_>, op: &Op) -> Option<BinaryOp> {
    let [region] = op.regions.as_slice() else {
        return None;
    };
    let block = pp.f.blocks.get(region.index())?;
    let [inner] = block.ops.as_slice() else {
        return None;
    };
    let inner = pp.f.ops.get(inner.index())?;
    let OpKind::Binary(b) = inner.kind else {
        return None;
    };
    let scalar_ok = op.operands.first().is_some_and(|&x| {
        inner
            .operands
            .first()
            .is_some_and(|&a| pp.ty(a) == &TensorType::scalar(pp.ty(x).dtype))
    });
    let ok = op.operands.len() == 2
        && COMMUTATIVE.contains(&b)
        && scalar_ok
        && inner.operands == block.args
        && block.results == inner.results
        && inner.shardings.is_none()
        && inner.attrs.is_empty();
    ok.then_some(b)
}

fn print_reduce(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    let OpKind::Reduce { dimensions } = &op.kind else {
        return pp.generic(op);
    };
    let n = op.operands.len() / 2;
    let pairs = join((0..n).map(|k| {
        format!(
            "({} init: {})",
            pp.name(op.operands[k]),
            pp.name(op.operands[n + k])
        )
    }));
    let head = format!("stablehlo.reduce{pairs}");
    let tail = format!(
        "across dimensions = {}{} : {}",
        int_list(dimensions),
        pp.attrs(op),
        pp.functional(op)
    );
    if let Some(b) = compact_reducer(pp, op) {
        return format!("{head} applies stablehlo.{} {tail}", b.name());
    }
    let Some(&region) = op.regions.first() else {
        return pp.generic(op);
    };
    let Some(block) = pp.f.blocks.get(region.index()) else {
        return pp.generic(op);
    };
    let arg = |v| format!("{}: {}", pp.name(v), pp.ty(v));
    let reducer: String = (0..n)
        .map(|k| match (block.args.get(k), block.args.get(n + k)) {
            (Some(&a), Some(&e)) => format!("({}, {}) ", arg(a), arg(e)),
            _ => String::new(),
        })
        .collect();
    format!(
        "{head} {tail}\n{pad} reducer{reducer} {{\n{body}{pad}}}",
        pad = " ".repeat(indent),
        body = pp.block_body(region, indent + 2, "stablehlo.return"),
    )
}

fn props_reduce(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Reduce { dimensions } => vec![("dimensions", i64_array(dimensions))],
        _ => Vec::new(),
    }
}

fn from_reduce(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dimensions = p.required_prop(g, "dimensions", "array<i64: ...>", |p| {
        p.usize_array("reduced dimensions")
    })?;
    Ok(OpKind::Reduce { dimensions })
}

// ----- control flow -----

/// `stablehlo.while(%iterArg = %init, ...) : t, ... cond { ... } do { ... }`: both regions
/// take the carried values under the names the header gives them. Printed generic (MLIR's
/// form, which names each region's arguments apart).
fn parse_while(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    p.expect(Tok::LParen, "to open the carried values of stablehlo.while")?;
    let mut carried: Vec<(&str, usize, Use)> = Vec::new();
    if !p.eat(Tok::RParen)? {
        loop {
            let offset = p.tok.start;
            let Tok::Value { name, index: None } = p.tok.tok else {
                return p.err(format!(
                    "expected a carried value (`%iterArg = %init`), found {}",
                    p.tok.tok
                ));
            };
            p.bump()?;
            p.expect(Tok::Equal, &format!("after %{name} (`%{name} = %init`)"))?;
            carried.push((name, offset, p.operand(f)?));
            if !p.eat(Tok::Comma)? {
                break;
            }
        }
        p.expect(Tok::RParen, "after the carried values")?;
    }
    let mut types = Vec::new();
    if !carried.is_empty() {
        p.expect(Tok::Colon, "before the carried values' types")?;
        types.push(p.tensor_type("of a carried value")?);
        while p.eat(Tok::Comma)? {
            types.push(p.tensor_type("of a carried value")?);
        }
    }
    if types.len() != carried.len() {
        return p.err(format!(
            "stablehlo.while carries {} value(s) but lists {} type(s)",
            carried.len(),
            types.len()
        ));
    }
    let attrs = p.op_attrs()?;
    let block_args: Vec<BlockArg<'_>> = carried
        .iter()
        .zip(&types)
        .map(|((n, o, u), t)| {
            let narrow = f.narrow.get(&u.id).copied();
            (*n, *o, t.clone(), f.complex.contains(&u.id), narrow)
        })
        .collect();
    p.expect_ident(
        "cond",
        "after the carried values' types (`cond { ... } do { ... }`)",
    )?;
    p.expect(Tok::LBrace, "to open the cond region")?;
    let cond = p.region_body(f, block_args.clone())?;
    p.expect_ident("do", "after the cond region (`do { ... }`)")?;
    p.expect(Tok::LBrace, "to open the body region")?;
    let body = p.region_body(f, block_args)?;
    let operands: Vec<Use> = carried.into_iter().map(|(_, _, u)| u).collect();
    let mut parsed = Parsed::new(OpKind::While, operands, (types.clone(), types)).with_attrs(attrs);
    parsed.regions = vec![cond, body];
    Ok(parsed)
}

fn parse_case(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.case has no pretty form; write it generic: \"stablehlo.case\"(%index) ({ ... stablehlo.return ... }, { ... }) : (tensor<i32>) -> ...",
    )
}

/// `sdy.manual_computation(%x, ...) in_shardings=[<@mesh, [...]>, ...] out_shardings=[...]
/// manual_axes={"data"} (%a: t_local, ...) { ... sdy.return %r : r_local } : (t, ...) -> r`
fn parse_manual(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let xs = p.operand_parens(f)?;
    let shardings = |p: &mut Parser<'_>, what: &str| -> PResult<Vec<crate::sharding::Sharding>> {
        p.expect_ident(what, &format!("(`{what}=[<@mesh, [...]>, ...]`)"))?;
        p.expect(Tok::Equal, &format!("after `{what}`"))?;
        p.expect(Tok::LSquare, &format!("to open the {what}"))?;
        let mut out = Vec::new();
        if !p.eat(Tok::RSquare)? {
            loop {
                out.push(p.sharding_body()?);
                if !p.eat(Tok::Comma)? {
                    break;
                }
            }
            p.expect(Tok::RSquare, &format!("to close the {what}"))?;
        }
        Ok(out)
    };
    let in_shardings = shardings(p, "in_shardings")?;
    let out_shardings = shardings(p, "out_shardings")?;
    p.expect_ident("manual_axes", &format!("after the out_shardings of {name}"))?;
    p.expect(Tok::Equal, "after `manual_axes`")?;
    let manual_axes = p.axis_names()?;
    let args = p.block_args()?;
    p.expect(Tok::LBrace, "to open the manual computation's body")?;
    let body = p.region_body(f, args)?;
    let attrs = p.op_attrs()?;
    let sig = functional(p)?;
    let mut parsed = Parsed::new(
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        },
        xs,
        sig,
    )
    .with_attrs(attrs);
    parsed.regions = vec![body];
    Ok(parsed)
}

fn print_manual(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    let (
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        },
        [body],
    ) = (&op.kind, op.regions.as_slice())
    else {
        return pp.generic_at(op, indent);
    };
    let Some(block) = pp.f.blocks.get(body.index()) else {
        return pp.generic_at(op, indent);
    };
    let args = join(
        block
            .args
            .iter()
            .map(|&a| format!("{}: {}", pp.name(a), pp.ty(a))),
    );
    let axes = join(manual_axes.iter().map(|a| format!("{a:?}")));
    format!(
        "sdy.manual_computation({}) in_shardings=[{}] out_shardings=[{}] manual_axes={{{axes}}} ({args}) {{\n{}{}}}{} : {}",
        pp.uses(&op.operands),
        join(in_shardings),
        join(out_shardings),
        pp.block_body(*body, indent + 2, "sdy.return"),
        " ".repeat(indent),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_manual(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        } => vec![
            ("in_shardings", format::sharding_per_value(in_shardings)),
            (
                "manual_axes",
                format!(
                    "#sdy<manual_axes{{{}}}>",
                    join(manual_axes.iter().map(|a| format!("{a:?}")))
                ),
            ),
            ("out_shardings", format::sharding_per_value(out_shardings)),
        ],
        _ => Vec::new(),
    }
}

fn from_manual(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let in_shardings =
        p.required_prop(g, "in_shardings", "#sdy.sharding_per_value<[...]>", |p| {
            p.sharding_per_value()
        })?;
    let out_shardings =
        p.required_prop(g, "out_shardings", "#sdy.sharding_per_value<[...]>", |p| {
            p.sharding_per_value()
        })?;
    let manual_axes = p.required_prop(g, "manual_axes", "#sdy<manual_axes{\"data\"}>", |p| {
        p.manual_axes_attr()
    })?;
    Ok(OpKind::ManualComputation {
        in_shardings,
        out_shardings,
        manual_axes,
    })
}

/// `stablehlo.optimization_barrier %a, %b : t, u`.
fn parse_optimization_barrier(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let operands = if matches!(p.tok.tok, Tok::Value { .. }) {
        p.operand_list(f)?
    } else {
        Vec::new()
    };
    let attrs = p.op_attrs()?;
    let mut types = Vec::new();
    if !operands.is_empty() {
        p.expect(Tok::Colon, "before the operands' types")?;
        types.push(p.tensor_type("of an operand")?);
        while p.eat(Tok::Comma)? {
            types.push(p.tensor_type("of an operand")?);
        }
    }
    Ok(Parsed::new(
        OpKind::OptimizationBarrier,
        operands,
        (types.clone(), types),
    )
    .with_attrs(attrs))
}

fn parse_partition_id(p: &mut Parser<'_>, _: &mut FuncState, _: &str) -> PResult<Parsed> {
    let attrs = p.op_attrs()?;
    p.expect(Tok::Colon, "before the partition id's type")?;
    let t = p.tensor_type("after ':'")?;
    Ok(Parsed::new(OpKind::PartitionId, Vec::new(), (Vec::new(), vec![t])).with_attrs(attrs))
}

fn print_partition_id(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let (_, outs) = pp.types(op);
    format!(
        "stablehlo.partition_id{} : {}",
        pp.attrs(op),
        format::results_type(&outs)
    )
}

fn print_optimization_barrier(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let types: Vec<String> = op.operands.iter().map(|&v| pp.ty(v).to_string()).collect();
    if op.operands.is_empty() {
        return format!("stablehlo.optimization_barrier{}", pp.attrs(op));
    }
    format!(
        "stablehlo.optimization_barrier {}{} : {}",
        pp.uses(&op.operands),
        pp.attrs(op),
        types.join(", ")
    )
}

// ----- gather -----

fn parse_gather(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(p.prev_end.saturating_sub(name.len()), "stablehlo.gather has no pretty form; write it generic: \"stablehlo.gather\"(%operand, %indices) <{dimension_numbers = #stablehlo.gather<...>, slice_sizes = array<i64: ...>}> : (...) -> ...")
}

fn print_gather(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    pp.generic(op)
}

fn props_gather(kind: &OpKind) -> Vec<(&'static str, String)> {
    let OpKind::Gather(g) = kind else {
        return Vec::new();
    };
    let lists = [
        ("offset_dims", &g.offset_dims),
        ("collapsed_slice_dims", &g.collapsed_slice_dims),
        ("operand_batching_dims", &g.operand_batching_dims),
        (
            "start_indices_batching_dims",
            &g.start_indices_batching_dims,
        ),
        ("start_index_map", &g.start_index_map),
    ];
    let mut fields: Vec<String> = lists
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k} = {}", int_list(v)))
        .collect();
    if g.index_vector_dim != 0 {
        fields.push(format!("index_vector_dim = {}", g.index_vector_dim));
    }
    vec![
        (
            "dimension_numbers",
            format!("#stablehlo.gather<{}>", fields.join(", ")),
        ),
        ("indices_are_sorted", g.indices_are_sorted.to_string()),
        ("slice_sizes", i64_array(&g.slice_sizes)),
    ]
}

fn from_gather(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let mut dims: GatherDims =
        p.required_prop(g, "dimension_numbers", "#stablehlo.gather<...>", |p| {
            p.gather_attr()
        })?;
    dims.slice_sizes = p.required_prop(g, "slice_sizes", "array<i64: ...>", |p| {
        p.usize_array("slice sizes")
    })?;
    dims.indices_are_sorted = p
        .prop(g, "indices_are_sorted", |p| p.bool_attr())?
        .unwrap_or(false);
    Ok(OpKind::Gather(dims))
}

// ----- scatter -----

fn parse_scatter(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.scatter has no pretty form; write it generic: \"stablehlo.scatter\"(%operand, %indices, %updates) <{scatter_dimension_numbers = #stablehlo.scatter<...>}> ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... }) : (...) -> ...",
    )
}

fn props_scatter(kind: &OpKind) -> Vec<(&'static str, String)> {
    let OpKind::Scatter(d) = kind else {
        return Vec::new();
    };
    let lists = [
        ("update_window_dims", &d.update_window_dims),
        ("inserted_window_dims", &d.inserted_window_dims),
        ("input_batching_dims", &d.input_batching_dims),
        (
            "scatter_indices_batching_dims",
            &d.scatter_indices_batching_dims,
        ),
        (
            "scatter_dims_to_operand_dims",
            &d.scatter_dims_to_operand_dims,
        ),
    ];
    let mut fields: Vec<String> = lists
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k} = {}", int_list(v)))
        .collect();
    if d.index_vector_dim != 0 {
        fields.push(format!("index_vector_dim = {}", d.index_vector_dim));
    }
    vec![
        ("indices_are_sorted", d.indices_are_sorted.to_string()),
        (
            "scatter_dimension_numbers",
            format!("#stablehlo.scatter<{}>", fields.join(", ")),
        ),
        ("unique_indices", d.unique_indices.to_string()),
    ]
}

fn from_scatter(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let mut dims: ScatterDims = p.required_prop(
        g,
        "scatter_dimension_numbers",
        "#stablehlo.scatter<...>",
        |p| p.scatter_attr(),
    )?;
    dims.indices_are_sorted = p
        .prop(g, "indices_are_sorted", |p| p.bool_attr())?
        .unwrap_or(false);
    dims.unique_indices = p
        .prop(g, "unique_indices", |p| p.bool_attr())?
        .unwrap_or(false);
    Ok(OpKind::Scatter(dims))
}

// ----- linear algebra -----

/// `stablehlo.cholesky %a, lower = true : t`
fn parse_cholesky(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let lower = if p.eat(Tok::Comma)? {
        key(p, "lower", "(stablehlo.cholesky %a, lower = true)")?;
        p.bool_attr()?
    } else {
        false
    };
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Cholesky { lower }, x, same_or_functional(p, 1)?).with_attrs(attrs))
}

fn print_cholesky(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Cholesky { lower } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.cholesky {}, lower = {lower}{} : {}",
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.same_or_functional(op)
    )
}

fn props_cholesky(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Cholesky { lower } => vec![("lower", lower.to_string())],
        _ => Vec::new(),
    }
}

fn from_cholesky(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let lower = p.prop(g, "lower", |p| p.bool_attr())?.unwrap_or(false);
    Ok(OpKind::Cholesky { lower })
}

fn parse_triangular_solve(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.triangular_solve has no pretty form; write it generic: \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}> : (...) -> ...",
    )
}

fn props_triangular_solve(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        } => vec![
            ("left_side", left_side.to_string()),
            ("lower", lower.to_string()),
            (
                "transpose_a",
                format!("#stablehlo<transpose {}>", transpose_a.name()),
            ),
            ("unit_diagonal", unit_diagonal.to_string()),
        ],
        _ => Vec::new(),
    }
}

fn from_triangular_solve(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let mut flag = |p: &mut Parser<'_>, k: &str| -> PResult<bool> {
        Ok(p.prop(g, k, |p| p.bool_attr())?.unwrap_or(false))
    };
    let left_side = flag(p, "left_side")?;
    let lower = flag(p, "lower")?;
    let unit_diagonal = flag(p, "unit_diagonal")?;
    let transpose_a = p
        .prop(g, "transpose_a", |p| {
            let at = p.tok.start;
            let t = p.enum_attr("stablehlo", "transpose")?;
            enum_value(
                p,
                at,
                "transpose_a",
                t,
                SolveTranspose::from_name,
                &names(SolveTranspose::ALL, SolveTranspose::name),
            )
        })?
        .unwrap_or(SolveTranspose::NoTranspose);
    Ok(OpKind::TriangularSolve {
        left_side,
        lower,
        unit_diagonal,
        transpose_a,
    })
}

/// `stablehlo.fft %x, type = RFFT, length = [16] : (t) -> r` (complex values as pairs:
/// see `complex.rs`); printed as `shardc.fft`, whose operands and results are pairs.
fn parse_fft(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let example = format!("({name} %x, type = FFT, length = [16])");
    comma(p, &format!("after the operand {example}"))?;
    key(p, "type", &example)?;
    let at = p.tok.start;
    let t = p.ident("the transform (FFT, IFFT, RFFT or IRFFT)")?;
    let fft_type = enum_value(
        p,
        at,
        "fft type",
        t,
        FftType::from_name,
        &names(FftType::ALL, FftType::name),
    )?;
    comma(p, &format!("after the type {example}"))?;
    key(p, "length", &example)?;
    let lengths = p.usize_list("transform lengths")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Fft { fft_type, lengths }, x, functional(p)?).with_attrs(attrs))
}

fn print_fft(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Fft { fft_type, lengths } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "shardc.fft {}, type = {}, length = {}{} : {}",
        pp.uses(&op.operands),
        fft_type.name(),
        int_list(lengths),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_fft(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Fft { fft_type, lengths } => vec![
            ("fft_length", i64_array(lengths)),
            (
                "fft_type",
                format!("#stablehlo<fft_type {}>", fft_type.name()),
            ),
        ],
        _ => Vec::new(),
    }
}

fn from_fft(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let lengths = p.required_prop(g, "fft_length", "array<i64: ...>", |p| {
        p.usize_array("fft_length")
    })?;
    let fft_type = p.required_prop(g, "fft_type", "#stablehlo<fft_type FFT>", |p| {
        let at = p.tok.start;
        let t = p.enum_attr("stablehlo", "fft_type")?;
        enum_value(
            p,
            at,
            "fft_type",
            t,
            FftType::from_name,
            &names(FftType::ALL, FftType::name),
        )
    })?;
    Ok(OpKind::Fft { fft_type, lengths })
}

/// `shardc.lu %a : (t) -> (t, pivots, status)`, `shardc.geqrf %a : (t) -> (t, taus)`,
/// `shardc.householder_product %a, %taus : (t, taus) -> t`, `shardc.tridiagonal_solve %dl,
/// %d, %du, %b : (v, v, v, b) -> (v, v, v, b, status)`: operands and a functional type.
fn parse_factorization(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let (kind, n) = match name {
        "shardc.geqrf" => (OpKind::Geqrf, 1),
        "shardc.householder_product" => (OpKind::HouseholderProduct, 2),
        "shardc.tridiagonal_solve" => (OpKind::TridiagonalSolve, 4),
        _ => (OpKind::Lu, 1),
    };
    let x = operands_n(p, f, n, name)?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(kind, x, functional(p)?).with_attrs(attrs))
}

fn print_factorization(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    format!(
        "{} {}{} : {}",
        op.kind.name(),
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

/// `shardc.eigh %a, lower = true : (t) -> (t, w)`, `shardc.svd %a, full_matrices = true :
/// (t) -> (s, u, vt)`: the operand, the one option, a functional type.
fn parse_decomposition(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let (option, example) = decomposition_option(name);
    p.expect(Tok::Comma, &format!("before {option} ({example})"))?;
    key(p, option, example)?;
    let on = p.bool_attr()?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(decomposition(name, on), x, functional(p)?).with_attrs(attrs))
}

/// The one option of `shardc.eigh` or `shardc.svd`, with an example of its syntax.
fn decomposition_option(name: &str) -> (&'static str, &'static str) {
    if name == "shardc.eigh" {
        ("lower", "shardc.eigh %a, lower = true")
    } else {
        ("full_matrices", "shardc.svd %a, full_matrices = true")
    }
}

fn decomposition(name: &str, on: bool) -> OpKind {
    if name == "shardc.eigh" {
        OpKind::Eigh { lower: on }
    } else {
        OpKind::Svd { full_matrices: on }
    }
}

fn print_decomposition(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let [(option, on)] = &props_decomposition(&op.kind)[..] else {
        return pp.generic(op);
    };
    format!(
        "{} {}, {option} = {on}{} : {}",
        op.kind.name(),
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_decomposition(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Eigh { lower } => vec![("lower", lower.to_string())],
        OpKind::Svd { full_matrices } => vec![("full_matrices", full_matrices.to_string())],
        _ => Vec::new(),
    }
}

fn from_decomposition(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let name = g.op.clone();
    let (option, _) = decomposition_option(&name);
    let on = p.prop(g, option, |p| p.bool_attr())?.unwrap_or(true);
    Ok(decomposition(&name, on))
}

// ----- sort -----

fn parse_sort(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.sort has no pretty form here; write it generic: \"stablehlo.sort\"(%x) <{dimension = 0 : i64, is_stable = true}> ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... }) : (...) -> ...",
    )
}

fn props_sort(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Sort {
            dimension,
            is_stable,
        } => vec![
            ("dimension", format!("{dimension} : i64")),
            ("is_stable", is_stable.to_string()),
        ],
        _ => Vec::new(),
    }
}

fn from_sort(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let d = p
        .prop(g, "dimension", |p| p.int_attr("the sort dimension"))?
        .unwrap_or(-1);
    // StableHLO's default sorts along the last dimension (-1); the rank is checked when
    // the op is typed, so a negative dimension other than -1 is refused here.
    let dimension = if d == -1 {
        usize::MAX
    } else {
        usize::try_from(d).map_err(|_| {
            p.error_at(
                at,
                format!("sort dimension {d} is negative; give it as 0..rank"),
            )
        })?
    };
    let is_stable = p.prop(g, "is_stable", |p| p.bool_attr())?.unwrap_or(false);
    Ok(OpKind::Sort {
        dimension,
        is_stable,
    })
}

// ----- dynamic_slice, dynamic_update_slice -----

/// `stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 16] : (t, ti, ti) -> r`
fn parse_dynamic_slice(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let mut xs = Vec::new();
    while matches!(p.tok.tok, Tok::Value { .. }) {
        xs.push(p.operand(f)?);
        comma(
            p,
            "after an operand of stablehlo.dynamic_slice (stablehlo.dynamic_slice %x, %i, %j, sizes = [...])",
        )?;
    }
    key(
        p,
        "sizes",
        "(stablehlo.dynamic_slice %x, %i, %j, sizes = [...])",
    )?;
    let sizes = p.usize_list("slice sizes")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::DynamicSlice { sizes }, xs, functional(p)?).with_attrs(attrs))
}

fn print_dynamic_slice(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::DynamicSlice { sizes } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.dynamic_slice {}, sizes = {}{} : {}",
        pp.uses(&op.operands),
        int_list(sizes),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_dynamic_slice(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::DynamicSlice { sizes } => vec![(
            "slice_sizes",
            i64_array(&sizes.iter().map(|&s| s as i64).collect::<Vec<_>>()),
        )],
        _ => Vec::new(),
    }
}

fn from_dynamic_slice(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let sizes = p.required_prop(g, "slice_sizes", "array<i64: ...>", |p| {
        p.usize_array("slice sizes")
    })?;
    Ok(OpKind::DynamicSlice { sizes })
}

/// `stablehlo.dynamic_update_slice %x, %u, %i, %j : (t, tu, ti, ti) -> t`
fn parse_dynamic_update_slice(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let mut xs = vec![p.operand(f)?];
    while p.eat(Tok::Comma)? {
        xs.push(p.operand(f)?);
    }
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::DynamicUpdateSlice, xs, functional(p)?).with_attrs(attrs))
}

fn print_dynamic_update_slice(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    format!(
        "stablehlo.dynamic_update_slice {}{} : {}",
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn from_dynamic_update_slice(_: &mut Parser<'_>, _: &mut GenericAttrs) -> PResult<OpKind> {
    Ok(OpKind::DynamicUpdateSlice)
}

// ----- reduce_window -----

fn parse_reduce_window(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.reduce_window has no pretty form (JAX prints it generic); write it generic: \"stablehlo.reduce_window\"(%x, %init) <{window_dimensions = array<i64: ...>, ...}> ({ reducer }) : (...) -> ...",
    )
}

/// The window of a `reduce_window` or `select_and_scatter` (which has no dilations).
fn props_reduce_window(kind: &OpKind) -> Vec<(&'static str, String)> {
    let (w, dilated) = match kind {
        OpKind::ReduceWindow(w) => (w, true),
        OpKind::SelectAndScatter(w) => (w, false),
        _ => return Vec::new(),
    };
    let usizes = |v: &[usize]| i64_array(&v.iter().map(|&x| x as i64).collect::<Vec<_>>());
    let rows: Vec<String> = w
        .padding
        .iter()
        .map(|(lo, hi)| format!("[{lo}, {hi}]"))
        .collect();
    let mut props = vec![
        (
            "padding",
            format!(
                "dense<[{}]> : tensor<{}x2xi64>",
                rows.join(", "),
                w.padding.len()
            ),
        ),
        ("window_dimensions", usizes(&w.window)),
        ("window_strides", usizes(&w.strides)),
    ];
    if dilated {
        props.push(("base_dilations", usizes(&w.base_dilations)));
        props.push(("window_dilations", usizes(&w.window_dilations)));
    }
    props
}

fn from_reduce_window(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let window = p.required_prop(g, "window_dimensions", "array<i64: ...>", |p| {
        p.usize_array("window dimensions")
    })?;
    let r = window.len();
    let ones = |p: &mut Parser<'_>, g: &mut GenericAttrs, key: &str| -> PResult<Vec<usize>> {
        Ok(p.prop(g, key, |p| p.usize_array(key))?
            .unwrap_or_else(|| vec![1; r]))
    };
    let strides = ones(p, g, "window_strides")?;
    let base_dilations = ones(p, g, "base_dilations")?;
    let window_dilations = ones(p, g, "window_dilations")?;
    let padding = padding_prop(p, g, r, at)?;
    Ok(OpKind::ReduceWindow(crate::op::WindowDims {
        window,
        strides,
        base_dilations,
        window_dilations,
        padding,
    }))
}

/// The `padding` property (`dense<[[lo, hi], ...]> : tensor<Rx2xi64>`) of an op with `r`
/// windowed dimensions; none pads nothing.
fn padding_prop(
    p: &mut Parser<'_>,
    g: &mut GenericAttrs,
    r: usize,
    at: usize,
) -> PResult<Vec<(i64, i64)>> {
    match p.prop(g, "padding", |p| p.dense_literal())? {
        None => Ok(vec![(0, 0); r]),
        Some(lit) => {
            let shape_ok = matches!(lit.ty.shape[..], [n, 2] if n == r)
                || (r == 0 && lit.ty.num_elements() == 0);
            if !shape_ok {
                return Err(p.error_at(
                    at,
                    format!(
                        "padding must be a {r}x2 matrix (low, high per dimension), but is {}",
                        lit.ty
                    ),
                ));
            }
            let v = lit.to_dense();
            Ok((0..r)
                .map(|d| (v.get(2 * d).as_i64(), v.get(2 * d + 1).as_i64()))
                .collect())
        }
    }
}

// ----- select_and_scatter -----

fn parse_select_and_scatter(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        "stablehlo.select_and_scatter has no pretty form; write it generic: \"stablehlo.select_and_scatter\"(%operand, %source, %init) <{window_dimensions = array<i64: ...>, window_strides = array<i64: ...>}> ({select}, {scatter}) : (...) -> ...",
    )
}

fn from_select_and_scatter(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let window = p.required_prop(g, "window_dimensions", "array<i64: ...>", |p| {
        p.usize_array("window dimensions")
    })?;
    let r = window.len();
    let strides = p
        .prop(g, "window_strides", |p| p.usize_array("window strides"))?
        .unwrap_or_else(|| vec![1; r]);
    let padding = padding_prop(p, g, r, at)?;
    Ok(OpKind::SelectAndScatter(WindowDims {
        window,
        strides,
        base_dilations: vec![1; r],
        window_dilations: vec![1; r],
        padding,
    }))
}

// ----- convolution -----

/// `stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
/// window = {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..],
/// reverse = [..]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64,
/// precision_config = [..]} : (t, u) -> r`; every window field optional.
fn parse_convolution(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let at = p.prev_end.saturating_sub(name.len());
    let xs = p.operand_parens(f)?;
    if xs.len() != 2 {
        return p.err_at(
            at,
            format!(
                "{name} takes an input and a kernel, but {} operand(s) were given",
                xs.len()
            ),
        );
    }
    key(
        p,
        "dim_numbers",
        "(dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f])",
    )?;
    let mut d = ConvDims::default();
    p.conv_dimension_numbers(&mut d)?;
    let n = d.input_spatial.len();
    d.window_strides = vec![1; n];
    d.padding = vec![(0, 0); n];
    d.lhs_dilation = vec![1; n];
    d.rhs_dilation = vec![1; n];
    d.window_reversal = vec![false; n];
    if p.eat(Tok::Comma)? {
        key(p, "window", "(window = {stride = [..], pad = [[..]], ...})")?;
        p.expect(Tok::LBrace, "to open the window")?;
        if !p.eat(Tok::RBrace)? {
            loop {
                let here = p.tok.start;
                let field =
                    p.ident("(a window field: stride, pad, lhs_dilate, rhs_dilate, reverse)")?;
                p.expect(Tok::Equal, &format!("after `{field}`"))?;
                match field {
                    "stride" => d.window_strides = p.usize_list("window strides")?,
                    "lhs_dilate" => d.lhs_dilation = p.usize_list("input dilations")?,
                    "rhs_dilate" => d.rhs_dilation = p.usize_list("kernel dilations")?,
                    "pad" => d.padding = p.pad_pairs()?,
                    "reverse" => d.window_reversal = p.bool_list("window reversal")?,
                    other => {
                        return p.err_at(
                            here,
                            format!("unknown window field `{other}`; expected stride, pad, lhs_dilate, rhs_dilate or reverse"),
                        );
                    }
                }
                if !p.eat(Tok::Comma)? {
                    break;
                }
            }
            p.expect(Tok::RBrace, "to close the window")?;
        }
    }
    let mut g = p.trailing_attrs(name, at)?;
    conv_groups(p, &mut g, &mut d)?;
    let attrs = p.op_attrs_from(g.entries)?;
    Ok(Parsed::new(OpKind::Convolution(d), xs, functional(p)?).with_attrs(attrs))
}

/// The group counts and precision config, from the attribute dictionary or properties.
fn conv_groups(p: &mut Parser<'_>, g: &mut GenericAttrs, d: &mut ConvDims) -> PResult<()> {
    let at = g.offset;
    let count = |p: &mut Parser<'_>, g: &mut GenericAttrs, key: &str| -> PResult<usize> {
        let v = p.prop(g, key, |p| p.int_attr(key))?.unwrap_or(1);
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| p.error_at(at, format!("{key} must be positive, not {v}")))
    };
    d.feature_group_count = count(p, g, "feature_group_count")?;
    d.batch_group_count = count(p, g, "batch_group_count")?;
    d.precision = p
        .prop(g, "precision_config", |p| p.precision_config())?
        .unwrap_or_default();
    Ok(())
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`
fn conv_dimension_text(d: &ConvDims) -> String {
    let layout = |rank: usize, a: (usize, char), b: (usize, char), spatial: &[usize]| {
        let mut v = vec![String::new(); rank];
        v[a.0] = a.1.to_string();
        v[b.0] = b.1.to_string();
        for (k, &s) in spatial.iter().enumerate() {
            v[s] = k.to_string();
        }
        format!("[{}]", v.join(", "))
    };
    let r = d.input_spatial.len() + 2;
    format!(
        "{}x{}->{}",
        layout(
            r,
            (d.input_batch, 'b'),
            (d.input_feature, 'f'),
            &d.input_spatial
        ),
        layout(
            r,
            (d.kernel_input_feature, 'i'),
            (d.kernel_output_feature, 'o'),
            &d.kernel_spatial
        ),
        layout(
            r,
            (d.output_batch, 'b'),
            (d.output_feature, 'f'),
            &d.output_spatial
        ),
    )
}

fn precision_text(ps: &[Precision]) -> String {
    format!(
        "[{}]",
        join(
            ps.iter()
                .map(|p| format!("#stablehlo<precision {}>", p.name()))
        )
    )
}

fn print_convolution(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Convolution(d) = &op.kind else {
        return pp.generic(op);
    };
    let pads: Vec<String> = d
        .padding
        .iter()
        .map(|(l, h)| format!("[{l}, {h}]"))
        .collect();
    let mut entries = vec![
        format!("batch_group_count = {} : i64", d.batch_group_count),
        format!("feature_group_count = {} : i64", d.feature_group_count),
    ];
    if !d.precision.is_empty() {
        entries.push(format!(
            "precision_config = {}",
            precision_text(&d.precision)
        ));
    }
    entries.extend(format::dict_entries(
        op.shardings.as_deref().map(format::sharding_per_value),
        &op.attrs,
    ));
    format!(
        "stablehlo.convolution({}) dim_numbers = {}, window = {{stride = {}, pad = [{}], lhs_dilate = {}, rhs_dilate = {}, reverse = [{}]}} {} : {}",
        pp.uses(&op.operands),
        conv_dimension_text(d),
        int_list(&d.window_strides),
        pads.join(", "),
        int_list(&d.lhs_dilation),
        int_list(&d.rhs_dilation),
        join(d.window_reversal.iter()),
        format::dict(&entries),
        pp.functional(op)
    )
}

fn props_convolution(kind: &OpKind) -> Vec<(&'static str, String)> {
    let OpKind::Convolution(d) = kind else {
        return Vec::new();
    };
    let rows: Vec<String> = d
        .padding
        .iter()
        .map(|(l, h)| format!("[{l}, {h}]"))
        .collect();
    let bools = if d.window_reversal.is_empty() {
        "array<i1>".to_string()
    } else {
        format!("array<i1: {}>", join(d.window_reversal.iter()))
    };
    let mut props = vec![
        (
            "batch_group_count",
            format!("{} : i64", d.batch_group_count),
        ),
        (
            "dimension_numbers",
            format!("#stablehlo.conv<{}>", conv_dimension_text(d)),
        ),
        (
            "feature_group_count",
            format!("{} : i64", d.feature_group_count),
        ),
        ("lhs_dilation", i64_array(&d.lhs_dilation)),
        (
            "padding",
            format!(
                "dense<[{}]> : tensor<{}x2xi64>",
                rows.join(", "),
                rows.len()
            ),
        ),
        ("rhs_dilation", i64_array(&d.rhs_dilation)),
        ("window_reversal", bools),
        ("window_strides", i64_array(&d.window_strides)),
    ];
    if !d.precision.is_empty() {
        props.push(("precision_config", precision_text(&d.precision)));
    }
    props
}

fn from_convolution(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let mut d = ConvDims::default();
    p.required_prop(
        g,
        "dimension_numbers",
        "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>",
        |p| {
            match p.tok.tok {
                Tok::Hash("stablehlo.conv") => p.bump()?,
                _ => {
                    return p.err(format!(
                        "expected `#stablehlo.conv<...>`, found {}",
                        p.tok.tok
                    ));
                }
            };
            p.expect(Tok::Less, "after #stablehlo.conv")?;
            p.conv_dimension_numbers(&mut d)?;
            p.expect(Tok::Greater, "to close #stablehlo.conv<...>")
        },
    )?;
    let n = d.input_spatial.len();
    let list = |p: &mut Parser<'_>, g: &mut GenericAttrs, key: &str| -> PResult<Vec<usize>> {
        Ok(p.prop(g, key, |p| p.usize_array(key))?
            .unwrap_or_else(|| vec![1; n]))
    };
    d.window_strides = list(p, g, "window_strides")?;
    d.lhs_dilation = list(p, g, "lhs_dilation")?;
    d.rhs_dilation = list(p, g, "rhs_dilation")?;
    d.padding = padding_prop(p, g, n, at)?;
    d.window_reversal = p
        .prop(g, "window_reversal", |p| p.bool_array())?
        .unwrap_or_else(|| vec![false; n]);
    conv_groups(p, g, &mut d)?;
    Ok(OpKind::Convolution(d))
}

// ----- random, call, sharding constraint -----

/// `shardc.random %seed, distribution = UNIFORM : (tensor<i64>) -> t`
fn parse_random(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(
        p,
        "after the seed (shardc.random %seed, distribution = UNIFORM)",
    )?;
    key(p, "distribution", "(UNIFORM or NORMAL)")?;
    let at = p.tok.start;
    let d = p.ident("(the distribution: UNIFORM or NORMAL)")?;
    let distribution = enum_value(
        p,
        at,
        "distribution",
        d,
        Distribution::from_name,
        &names(Distribution::ALL, Distribution::name),
    )?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::Random { distribution }, x, functional(p)?).with_attrs(attrs))
}

/// `stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (t) -> (t, bits)`
fn parse_rng_bit_generator(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(
        p,
        "after the state (stablehlo.rng_bit_generator %state, algorithm = DEFAULT)",
    )?;
    key(p, "algorithm", "(DEFAULT, THREE_FRY or PHILOX)")?;
    let at = p.tok.start;
    let a = p.ident("(the algorithm: DEFAULT, THREE_FRY or PHILOX)")?;
    let algorithm = enum_value(
        p,
        at,
        "algorithm",
        a,
        RngAlgorithm::from_name,
        &names(RngAlgorithm::ALL, RngAlgorithm::name),
    )?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(OpKind::RngBitGenerator { algorithm }, x, functional(p)?).with_attrs(attrs))
}

fn print_rng_bit_generator(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::RngBitGenerator { algorithm } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "stablehlo.rng_bit_generator {}, algorithm = {}{} : {}",
        pp.uses(&op.operands),
        algorithm.name(),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_rng_bit_generator(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::RngBitGenerator { algorithm } => vec![(
            "rng_algorithm",
            format!("#stablehlo<rng_algorithm {}>", algorithm.name()),
        )],
        _ => Vec::new(),
    }
}

fn from_rng_bit_generator(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let algorithm = p.required_prop(
        g,
        "rng_algorithm",
        "#stablehlo<rng_algorithm DEFAULT>",
        |p| {
            let at = p.tok.start;
            let a = p.enum_attr("stablehlo", "rng_algorithm")?;
            enum_value(
                p,
                at,
                "rng_algorithm",
                a,
                RngAlgorithm::from_name,
                &names(RngAlgorithm::ALL, RngAlgorithm::name),
            )
        },
    )?;
    Ok(OpKind::RngBitGenerator { algorithm })
}

fn print_random(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Random { distribution } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "shardc.random {}, distribution = {}{} : {}",
        pp.uses(&op.operands),
        distribution.name(),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_random(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Random { distribution } => vec![(
            "distribution",
            format!("#shardc<distribution {}>", distribution.name()),
        )],
        _ => Vec::new(),
    }
}

fn from_random(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let distribution =
        p.required_prop(g, "distribution", "#shardc<distribution UNIFORM>", |p| {
            let at = p.tok.start;
            let d = p.enum_attr("shardc", "distribution")?;
            enum_value(
                p,
                at,
                "distribution",
                d,
                Distribution::from_name,
                &names(Distribution::ALL, Distribution::name),
            )
        })?;
    Ok(OpKind::Random { distribution })
}

/// `shardc.rotate %x, dim = 0, shift = 1 : t`
fn parse_rotate(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    comma(
        p,
        "after the operand (shardc.rotate %x, dim = N, shift = K)",
    )?;
    key(p, "dim", "(shardc.rotate %x, dim = N, shift = K)")?;
    let dimension = p.usize_lit("the rotated dimension")?;
    comma(
        p,
        "after the rotated dimension (shardc.rotate %x, dim = N, shift = K)",
    )?;
    key(p, "shift", "(shardc.rotate %x, dim = N, shift = K)")?;
    let shift = p.i64_lit("the shift")?;
    let attrs = p.op_attrs()?;
    Ok(Parsed::new(
        OpKind::Rotate { dimension, shift },
        x,
        same_or_functional(p, 1)?,
    )
    .with_attrs(attrs))
}

fn print_rotate(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Rotate { dimension, shift } = &op.kind else {
        return pp.generic(op);
    };
    let (ins, outs) = pp.types(op);
    let sig = match (ins.as_slice(), outs.as_slice()) {
        ([t], [r]) if t == r => r.to_string(),
        _ => pp.functional(op),
    };
    format!(
        "shardc.rotate {}, dim = {dimension}, shift = {shift}{} : {sig}",
        pp.uses(&op.operands),
        pp.attrs(op)
    )
}

fn props_rotate(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Rotate { dimension, shift } => vec![
            ("dimension", format!("{dimension} : i64")),
            ("shift", format!("{shift} : i64")),
        ],
        _ => Vec::new(),
    }
}

fn from_rotate(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let d = p.required_prop(g, "dimension", "0 : i64", |p| {
        p.int_attr("the rotated dimension")
    })?;
    let dimension = usize::try_from(d)
        .map_err(|_| p.error_at(at, "the rotated dimension must be non-negative"))?;
    let shift = p.required_prop(g, "shift", "1 : i64", |p| p.int_attr("the shift"))?;
    Ok(OpKind::Rotate { dimension, shift })
}

/// `call @f(%a, %b) : (t, u) -> r`
fn parse_call(p: &mut Parser<'_>, f: &mut FuncState, _: &str) -> PResult<Parsed> {
    let at = p.tok.start;
    let callee = p.symbol_name("the callee")?;
    let xs = p.operand_parens(f)?;
    let attrs = p.op_attrs()?;
    let mut parsed = Parsed::new(
        OpKind::Call {
            callee: callee.clone(),
        },
        xs,
        functional(p)?,
    )
    .with_attrs(attrs);
    parsed.sites.push(Site::Call { offset: at, callee });
    Ok(parsed)
}

fn print_call(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::Call { callee } = &op.kind else {
        return pp.generic(op);
    };
    format!(
        "call {}({}){} : {}",
        format::symbol(callee),
        pp.uses(&op.operands),
        pp.attrs(op),
        pp.functional(op)
    )
}

fn props_call(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::Call { callee } => vec![("callee", format::symbol(callee))],
        _ => Vec::new(),
    }
}

fn from_call(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let callee = p.required_prop(g, "callee", "@function", |p| p.symbol_name("the callee"))?;
    g.sites.push(Site::Call {
        offset: at,
        callee: callee.clone(),
    });
    Ok(OpKind::Call { callee })
}

/// `stablehlo.composite "name" %a, %b {decomposition = @f, composite_attributes = {..},
/// version = 1 : i32} : (t, u) -> r` (`jax.lax.composite`): a named group of ops, read as
/// a call of its decomposition, which is what it computes (StableHLO's spec). Its name and
/// other attributes stay on the call.
fn parse_composite(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let at = p.prev_end.saturating_sub(name.len());
    let composite = p.string_attr("the composite's name")?;
    let xs = match p.tok.tok {
        Tok::Value { .. } => p.operand_list(f)?,
        _ => Vec::new(),
    };
    let mut g = p.trailing_attrs(name, at)?;
    let kind = from_composite(p, &mut g)?;
    let (shardings, mut attrs) = p.op_attrs_from(g.entries)?;
    attrs.insert(0, ("name".into(), format::string_literal(&composite)));
    let mut parsed = Parsed::new(kind, xs, functional(p)?).with_attrs((shardings, attrs));
    parsed.sites = g.sites;
    Ok(parsed)
}

fn from_composite(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let callee = p.required_prop(g, "decomposition", "@function", |p| {
        p.symbol_name("the decomposition")
    })?;
    g.sites.push(Site::Call {
        offset: at,
        callee: callee.clone(),
    });
    Ok(OpKind::Call { callee })
}

/// `sdy.sharding_constraint %x <@mesh, [{"data"}, {}]> : t`, and `sdy.reshard` of the
/// same syntax (`jax.sharding.reshard`): both fix the value's sharding at that point, which
/// the partitioner reaches by resharding, so both are read as the constraint.
fn parse_constraint(p: &mut Parser<'_>, f: &mut FuncState, name: &str) -> PResult<Parsed> {
    let x = operands_n(p, f, 1, name)?;
    let at = p.tok.start;
    let sharding = p.sharding_body()?;
    let attrs = p.op_attrs()?;
    p.expect(Tok::Colon, "before the type of the sharding constraint")?;
    let t = p.tensor_type("after ':'")?;
    let mut parsed = Parsed::new(
        OpKind::ShardingConstraint(sharding.clone()),
        x,
        (vec![t.clone()], vec![t]),
    )
    .with_attrs(attrs);
    parsed.sites.push(Site::Sharding {
        offset: at,
        result: 0,
        sharding,
    });
    Ok(parsed)
}

fn print_constraint(pp: &Pretty<'_>, op: &Op, _: usize) -> String {
    let OpKind::ShardingConstraint(s) = &op.kind else {
        return pp.generic(op);
    };
    let (_, outs) = pp.types(op);
    format!(
        "sdy.sharding_constraint {} {s}{} : {}",
        pp.uses(&op.operands),
        pp.attrs(op),
        format::results_type(&outs)
    )
}

fn props_constraint(kind: &OpKind) -> Vec<(&'static str, String)> {
    match kind {
        OpKind::ShardingConstraint(s) => vec![("sharding", format::sharding_attr(s))],
        _ => Vec::new(),
    }
}

fn from_constraint(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let (at, sharding) = p.required_prop(g, "sharding", "#sdy.sharding<@mesh, [...]>", |p| {
        let at = p.tok.start;
        Ok((at, p.sharding_attr()?))
    })?;
    g.sites.push(Site::Sharding {
        offset: at,
        result: 0,
        sharding: sharding.clone(),
    });
    Ok(OpKind::ShardingConstraint(sharding))
}

// ----- per-device ops of partitioned programs -----
//
// They print generic, as XLA shows a partitioned program: StableHLO's properties with
// `replica_groups` as a dense i64 matrix of device ids, one row per group.

fn parse_generic_only(p: &mut Parser<'_>, _: &mut FuncState, name: &str) -> PResult<Parsed> {
    p.err_at(
        p.prev_end.saturating_sub(name.len()),
        format!("{name} has no pretty form; write it generic: \"{name}\"(%x) <{{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, ...}}> : (...) -> ..."),
    )
}

fn print_generic_only(pp: &Pretty<'_>, op: &Op, indent: usize) -> String {
    pp.generic_at(op, indent)
}

fn replica_groups_attr(g: &ReplicaGroups) -> String {
    let rows: Vec<String> = g.0.iter().map(|r| int_list(r)).collect();
    format!(
        "dense<[{}]> : tensor<{}x{}xi64>",
        rows.join(", "),
        g.0.len(),
        g.group_size()
    )
}

fn props_collective(kind: &OpKind) -> Vec<(&'static str, String)> {
    let dim = |d: &usize| format!("{d} : i64");
    let mut props = match kind {
        OpKind::AllGather { dim: d, .. } => vec![("all_gather_dim", dim(d))],
        OpKind::ReduceScatter { dim: d, .. } => vec![("scatter_dimension", dim(d))],
        OpKind::AllToAll {
            split_dim,
            concat_dim,
            groups,
        } => vec![
            ("split_dimension", dim(split_dim)),
            ("concat_dimension", dim(concat_dim)),
            ("split_count", dim(&groups.group_size())),
        ],
        OpKind::ShardSlice { dim: d, .. } => vec![("dimension", dim(d))],
        _ => Vec::new(),
    };
    if let Some(g) = kind.replica_groups() {
        props.push(("replica_groups", replica_groups_attr(g)));
    }
    if let OpKind::CollectivePermute { pairs } = kind {
        let rows: Vec<String> = pairs.iter().map(|(s, t)| format!("[{s}, {t}]")).collect();
        props.push((
            "source_target_pairs",
            format!(
                "dense<[{}]> : tensor<{}x2xi64>",
                rows.join(", "),
                pairs.len()
            ),
        ));
    }
    props
}

fn from_collective_permute(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let at = g.offset;
    let lit = p.required_prop(
        g,
        "source_target_pairs",
        "dense<[[0, 1]]> : tensor<1x2xi64>",
        |p| p.dense_literal(),
    )?;
    let bad = |p: &Parser<'_>| {
        p.error_at(
            at,
            "source_target_pairs must be an Nx2 matrix of non-negative device ids",
        )
    };
    let [rows, 2] = lit.ty.shape[..] else {
        return Err(bad(p));
    };
    let ids = lit.to_dense();
    let id = |i: usize| usize::try_from(ids.get(i).as_i64()).ok();
    let pairs: Option<Vec<(usize, usize)>> = (0..rows)
        .map(|r| Some((id(2 * r)?, id(2 * r + 1)?)))
        .collect();
    Ok(OpKind::CollectivePermute {
        pairs: pairs.ok_or_else(|| bad(p))?,
    })
}

fn groups_prop(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<ReplicaGroups> {
    let at = g.offset;
    let lit = p.required_prop(
        g,
        "replica_groups",
        "dense<[[0, 1]]> : tensor<1x2xi64>",
        |p| p.dense_literal(),
    )?;
    let bad = |p: &Parser<'_>| {
        p.error_at(
            at,
            "replica_groups must be a rank-2 matrix of non-negative device ids, one row per group",
        )
    };
    let [rows, cols] = lit.ty.shape[..] else {
        return Err(bad(p));
    };
    let ids = lit.to_dense();
    let mut groups = Vec::with_capacity(rows);
    for r in 0..rows {
        let row: Option<Vec<usize>> = (0..cols)
            .map(|c| usize::try_from(ids.get(r * cols + c).as_i64()).ok())
            .collect();
        groups.push(row.ok_or_else(|| bad(p))?);
    }
    let groups = ReplicaGroups(groups);
    groups
        .validate()
        .map_err(|e| p.error_at(at, format!("replica_groups: {e}")))?;
    Ok(groups)
}

fn dim_prop(p: &mut Parser<'_>, g: &mut GenericAttrs, key: &str) -> PResult<usize> {
    let at = g.offset;
    let d = p.required_prop(g, key, "0 : i64", |p| p.int_attr(key))?;
    usize::try_from(d).map_err(|_| p.error_at(at, format!("{key} must be non-negative")))
}

fn from_all_gather(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dim = dim_prop(p, g, "all_gather_dim")?;
    Ok(OpKind::AllGather {
        dim,
        groups: groups_prop(p, g)?,
    })
}

fn from_all_reduce(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    Ok(OpKind::AllReduce {
        groups: groups_prop(p, g)?,
    })
}

fn from_reduce_scatter(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dim = dim_prop(p, g, "scatter_dimension")?;
    Ok(OpKind::ReduceScatter {
        dim,
        groups: groups_prop(p, g)?,
    })
}

fn from_all_to_all(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let split_dim = dim_prop(p, g, "split_dimension")?;
    let concat_dim = dim_prop(p, g, "concat_dimension")?;
    let at = g.offset;
    let count = dim_prop(p, g, "split_count")?;
    let groups = groups_prop(p, g)?;
    if count != groups.group_size() {
        return Err(p.error_at(at, format!("split_count is {count} but the replica groups have {} devices each; they must agree", groups.group_size())));
    }
    Ok(OpKind::AllToAll {
        split_dim,
        concat_dim,
        groups,
    })
}

fn from_shard_slice(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    let dim = dim_prop(p, g, "dimension")?;
    Ok(OpKind::ShardSlice {
        dim,
        groups: groups_prop(p, g)?,
    })
}

fn from_axis_index(p: &mut Parser<'_>, g: &mut GenericAttrs) -> PResult<OpKind> {
    Ok(OpKind::AxisIndex {
        groups: groups_prop(p, g)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;
    use crate::literal::{Literal, Scalar};
    use crate::sharding::Sharding;

    /// Every kind has exactly one entry, found by its name.
    #[test]
    fn every_kind_has_a_syntax() {
        let mut kinds: Vec<OpKind> = UnaryOp::ALL.iter().map(|&u| OpKind::Unary(u)).collect();
        kinds.extend(BinaryOp::ALL.iter().map(|&b| OpKind::Binary(b)));
        kinds.extend([
            OpKind::Compare {
                direction: ComparisonDirection::Eq,
                compare_type: None,
            },
            OpKind::Select,
            OpKind::Clamp,
            OpKind::Constant(Literal::scalar(DType::F32, Scalar::Float(0.0))),
            OpKind::Iota { dimension: 0 },
            OpKind::Convert,
            OpKind::BitcastConvert,
            OpKind::BroadcastInDim { dims: vec![] },
            OpKind::Reshape,
            OpKind::Transpose {
                permutation: vec![],
            },
            OpKind::Slice {
                start: vec![],
                limit: vec![],
                strides: vec![],
            },
            OpKind::Concatenate { dimension: 0 },
            OpKind::Reverse { dimensions: vec![] },
            OpKind::Pad {
                low: vec![],
                high: vec![],
                interior: vec![],
            },
            OpKind::DotGeneral(DotDims::default()),
            OpKind::Reduce { dimensions: vec![] },
            OpKind::Gather(GatherDims::default()),
            OpKind::Scatter(ScatterDims::default()),
            OpKind::Convolution(ConvDims::default()),
            OpKind::SelectAndScatter(WindowDims::default()),
            OpKind::Sort {
                dimension: 0,
                is_stable: true,
            },
            OpKind::ReduceWindow(crate::op::WindowDims::default()),
            OpKind::DynamicSlice { sizes: vec![] },
            OpKind::DynamicUpdateSlice,
            OpKind::Random {
                distribution: Distribution::Uniform,
            },
            OpKind::Call { callee: "f".into() },
            OpKind::While,
            OpKind::Case,
            OpKind::OptimizationBarrier,
            OpKind::ManualComputation {
                in_shardings: vec![],
                out_shardings: vec![],
                manual_axes: vec![],
            },
            OpKind::ShardingConstraint(Sharding::replicated("m", 0)),
            OpKind::Rotate {
                dimension: 0,
                shift: 1,
            },
        ]);
        for k in &kinds {
            let name = k.name();
            let matching = SYNTAX
                .iter()
                .filter(|s| s.names.contains(&name.as_str()) || s.family.is_some_and(|f| f(&name)))
                .count();
            assert_eq!(matching, 1, "{name}");
            assert!(of(k).is_some());
        }
    }
}
