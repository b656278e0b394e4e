//! CHLO, decomposed into StableHLO at the door (as JAX's own `chlo-legalize-to-stablehlo`
//! does): the rest of shardc never sees a `chlo` op. Each op of a decomposition carries
//! `shardc.from = "chlo.<name>"`, so the printed program says what every `chlo` op
//! became, and prints back and re-parses to the same module.
//!
//! `stablehlo.reduce_precision` is decomposed here too (into integer ops on the float's
//! bits, as XLA's backends compute it), so no later stage needs to know it.
//!
//! The table [`DECOMPOSITIONS`] lists every `chlo` op read, with its decomposition; the
//! numerics follow XLA's (the f32 `erf` and `erf_inv` are the polynomials XLA's CPU and GPU
//! backends evaluate; f64 `erf` is Cephes'). Half-precision operands are computed in f32
//! and rounded back, as XLA does. A `chlo` op not in the table is an error naming it.

// The coefficients are written as their sources (Cephes, XLA) give them.
#![allow(clippy::excessive_precision)]

use super::lexer::Tok;
use super::parse::{FuncState, PResult, Parsed, Parser, Use};
use crate::builder::FunctionBuilder;
use crate::dtype::{DType, TensorType};
use crate::error::IrError;
use crate::literal::{Literal, Scalar};
use crate::module::ValueId;
use crate::op::{BinaryOp, ComparisonDirection, ComparisonType, OpKind, UnaryOp};

/// What a decomposition builds: the ops before the last through the emitter, and the last
/// op (kind and operands), which the parser adds and names as it does any op.
type Last = (OpKind, Vec<ValueId>);

/// A decomposition of one `chlo` op, by its number of operands (all of one type).
#[derive(Copy, Clone)]
enum Decompose {
    Unary(fn(&mut Emit<'_>, ValueId) -> Result<Last, IrError>),
    Binary(fn(&mut Emit<'_>, ValueId, ValueId) -> Result<Last, IrError>),
}

impl Decompose {
    fn arity(self) -> usize {
        match self {
            Decompose::Unary(_) => 1,
            Decompose::Binary(_) => 2,
        }
    }
}

/// Every `chlo` op shardc reads: its name (after `chlo.`), the dtypes it takes, and its
/// decomposition into StableHLO.
const DECOMPOSITIONS: &[(&str, Operands, Decompose)] = &[
    ("square", Operands::Numbers, Decompose::Unary(square)),
    ("erf", Operands::Floats, Decompose::Unary(erf)),
    ("erfc", Operands::Floats, Decompose::Unary(erfc)),
    ("erf_inv", Operands::Floats, Decompose::Unary(erf_inv)),
    ("tan", Operands::Floats, Decompose::Unary(tan)),
    ("sinh", Operands::Floats, Decompose::Unary(sinh)),
    ("cosh", Operands::Floats, Decompose::Unary(cosh)),
    ("asin", Operands::Floats, Decompose::Unary(asin)),
    ("acos", Operands::Floats, Decompose::Unary(acos)),
    ("atan", Operands::Floats, Decompose::Unary(atan)),
    ("asinh", Operands::Floats, Decompose::Unary(asinh)),
    ("acosh", Operands::Floats, Decompose::Unary(acosh)),
    ("atanh", Operands::Floats, Decompose::Unary(atanh)),
    ("is_inf", Operands::Floats, Decompose::Unary(is_inf)),
    ("is_pos_inf", Operands::Floats, Decompose::Unary(is_pos_inf)),
    ("is_neg_inf", Operands::Floats, Decompose::Unary(is_neg_inf)),
    (
        "next_after",
        Operands::Floats,
        Decompose::Binary(next_after),
    ),
    ("lgamma", Operands::Floats, Decompose::Unary(lgamma)),
    ("digamma", Operands::Floats, Decompose::Unary(digamma)),
    ("zeta", Operands::Floats, Decompose::Binary(zeta)),
    ("polygamma", Operands::Floats, Decompose::Binary(polygamma)),
    ("bessel_i1e", Operands::Floats, Decompose::Unary(bessel_i1e)),
];

/// The element types a decomposition is defined for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Operands {
    /// Any float or integer type.
    Numbers,
    /// f16, bf16, f32, f64.
    Floats,
}

impl Operands {
    fn allows(self, d: DType) -> bool {
        match self {
            Operands::Numbers => d != DType::I1,
            Operands::Floats => d.is_float(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Operands::Numbers => "a float or integer tensor",
            Operands::Floats => "a float tensor (f16, bf16, f32 or f64)",
        }
    }
}

/// Whether `name` is a `chlo` op (supported or not: the parser reports unsupported ones).
pub(super) fn is_chlo(name: &str) -> bool {
    name.starts_with("chlo.")
}

/// Reads a `chlo` op in pretty (`chlo.erf %x : tensor<4xf32> -> tensor<4xf32>`) or
/// generic (`"chlo.erf"(%x) : (tensor<4xf32>) -> tensor<4xf32>`) form, adds the ops of its
/// decomposition but the last, and gives the last for the parser to add.
pub(super) fn parse(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    offset: usize,
    generic: bool,
) -> PResult<Parsed> {
    let short = &name["chlo.".len()..];
    let Some(&(_, operands, decompose)) = DECOMPOSITIONS.iter().find(|(n, ..)| *n == short) else {
        let mut known: Vec<String> = DECOMPOSITIONS
            .iter()
            .map(|(n, ..)| format!("chlo.{n}"))
            .collect();
        known.push("chlo.top_k".to_string());
        return p.err_at(
            offset,
            format!(
                "unsupported op `{name}`; shardc decomposes these chlo ops into StableHLO as it reads them: {}. Rewrite `{name}` with StableHLO ops, or lower the program with chlo legalized (`mlir-hlo-opt --chlo-legalize-to-stablehlo`)",
                known.join(", ")
            ),
        );
    };
    let arity = decompose.arity();
    let xs: Vec<Use> = if generic {
        p.operand_parens(f)?
    } else {
        p.operand_list(f)?
    };
    if xs.len() != arity {
        let n = xs.len();
        return p.err_at(
            offset,
            format!(
                "{name} takes {arity} operand{}, but {n} {} given",
                if arity == 1 { "" } else { "s" },
                if n == 1 { "was" } else { "were" }
            ),
        );
    }
    if p.is(&Tok::LBrace) {
        // Attributes of the chlo op itself (none that shardc reads) are dropped with it.
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = if p.is(&Tok::LParen) {
        p.function_type("(the op's type)")?
    } else {
        let mut ins = vec![p.tensor_type("after ':'")?];
        while p.eat(Tok::Comma)? {
            ins.push(p.tensor_type("after ','")?);
        }
        if p.eat(Tok::Arrow)? {
            let r = p.tensor_type("after '->'")?;
            (ins, vec![r])
        } else {
            let r = ins[0].clone();
            (ins, vec![r])
        }
    };
    let x = &xs[0];
    let ty = f.b.ty(x.id).clone();
    if let Some(y) = xs.iter().find(|y| *f.b.ty(y.id) != ty) {
        return p.err_at(
            y.offset,
            format!(
                "{name} takes operands of one type, but {} is {ty} and {} is {}",
                x.name,
                y.name,
                f.b.ty(y.id)
            ),
        );
    }
    let result = if short.starts_with("is_") {
        TensorType::new(DType::I1, ty.shape.clone())
    } else {
        ty.clone()
    };
    if ins.len() != arity || ins.iter().any(|t| *t != ty) || outs.len() != 1 || outs[0] != result {
        let write = vec![ty.to_string(); arity].join(", ");
        return p.err_at(
            x.offset,
            format!(
                "{name}'s type signature does not match its operands: {} is {ty}, so {name} gives {result}; write `: {write} -> {result}`",
                x.name
            ),
        );
    }
    if !operands.allows(ty.dtype) {
        return p.err_at(
            x.offset,
            format!(
                "{name} takes {}, but {} is {ty}",
                operands.describe(),
                x.name
            ),
        );
    }
    let from = format!("\"{name}\"");
    let mut e = Emit {
        b: &mut f.b,
        from: from.clone(),
    };
    let decomposed = match decompose {
        Decompose::Unary(d) => d(&mut e, x.id),
        Decompose::Binary(d) => d(&mut e, x.id, xs[1].id),
    };
    let (kind, args) = decomposed.map_err(|err| p.error_at(offset, err.to_string()))?;
    let operand_types: Vec<TensorType> = args.iter().map(|&a| f.b.ty(a).clone()).collect();
    let uses = args
        .into_iter()
        .map(|id| Use {
            id,
            offset: x.offset,
            name: format!("(a value of {name}'s decomposition)"),
        })
        .collect();
    let mut parsed = Parsed::new(kind, uses, (operand_types, outs));
    parsed.attrs = vec![(FROM.to_string(), from)];
    Ok(parsed)
}

/// `chlo.top_k(%x, k = K) : t -> (values, indices)` (or generic, `<{k = K : i64}>`): the
/// `K` largest elements along the last dimension and their positions, largest first,
/// ties by position. Decomposed as `chlo-legalize-to-stablehlo` does: the operand sorted
/// with an iota of its positions (descending, total order, stable), then both sliced to
/// `K`. Gives the two results for the parser to name.
pub(super) fn top_k(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    offset: usize,
    generic: bool,
) -> PResult<Vec<ValueId>> {
    let (x, k) = if generic {
        let xs = p.operand_parens(f)?;
        let [x] = <[Use; 1]>::try_from(xs).map_err(|xs| {
            p.error_at(
                offset,
                format!("{name} takes one operand, but {} were given", xs.len()),
            )
        })?;
        p.expect(
            Tok::Less,
            &format!("before the properties of {name} (`<{{k = 2 : i64}}>`)"),
        )?;
        p.expect(Tok::LBrace, "to open the properties")?;
        p.expect_ident("k", &format!("(the one property of {name})"))?;
        p.expect(Tok::Equal, "after `k`")?;
        let k = p.int_attr("k")?;
        p.expect(Tok::RBrace, "to close the properties")?;
        p.expect(Tok::Greater, "to close the properties")?;
        (x, k)
    } else {
        p.expect(Tok::LParen, &format!("after {name} (`{name}(%x, k = 2)`)"))?;
        let x = p.operand(f)?;
        p.expect(Tok::Comma, "after the operand (`, k = 2`)")?;
        p.expect_ident("k", &format!("(the one attribute of {name})"))?;
        p.expect(Tok::Equal, "after `k`")?;
        let k = p.int_attr("k")?;
        p.expect(Tok::RParen, &format!("to close {name}'s operands"))?;
        (x, k)
    };
    if p.is(&Tok::LBrace) {
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = if p.is(&Tok::LParen) {
        p.function_type("(the op's type)")?
    } else {
        let t = p.tensor_type("after ':'")?;
        p.expect(Tok::Arrow, "after the operand type")?;
        let outs = p.type_list_parens("(the values' and indices' types)")?;
        (vec![t], outs)
    };
    let ty = f.b.ty(x.id).clone();
    let Some(&n) = ty.shape.last() else {
        return p.err_at(
            x.offset,
            format!(
                "{name} picks along the last dimension, but {} is a scalar",
                x.name
            ),
        );
    };
    let k = usize::try_from(k).ok().filter(|&k| k <= n).ok_or_else(|| {
        p.error_at(
            offset,
            format!("{name} takes k in 0..={n} (the last dimension of {ty}), not {k}"),
        )
    })?;
    let mut shape = ty.shape.clone();
    *shape.last_mut().expect("checked above") = k;
    let want = vec![
        TensorType::new(ty.dtype, shape.clone()),
        TensorType::new(DType::I32, shape.clone()),
    ];
    if ins != [ty.clone()] || outs != want {
        return p.err_at(
            x.offset,
            format!(
                "{name}'s type signature does not match its operand: {} is {ty}, so {name} gives ({}, {}); write `: {ty} -> ({}, {})`",
                x.name, want[0], want[1], want[0], want[1]
            ),
        );
    }
    if ty.dtype == DType::I1 {
        return p.err_at(
            x.offset,
            format!("{name} ranks numbers, but {} is {ty}", x.name),
        );
    }
    let from = format!("\"{name}\"");
    let mut e = Emit { b: &mut f.b, from };
    e.top_k(x.id, k)
        .map_err(|err| p.error_at(offset, err.to_string()))
}

/// `stablehlo.reduce_precision %x, format = e5m10 : t` (or generic, `<{exponent_bits = 5
/// : i32, mantissa_bits = 10 : i32}>`): `x` rounded to a float with that many exponent
/// and mantissa bits and back — the mantissa rounded to nearest even, exponents beyond
/// the format's range to infinity or (below it) to zero, keeping the sign; NaN kept (as
/// XLA does, but for formats without mantissa bits, where NaN becomes infinity).
pub(super) fn reduce_precision(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    offset: usize,
    generic: bool,
) -> PResult<Vec<ValueId>> {
    let (x, exponent, mantissa) = if generic {
        let xs = p.operand_parens(f)?;
        let [x] = <[Use; 1]>::try_from(xs).map_err(|xs| {
            p.error_at(
                offset,
                format!("{name} takes one operand, but {} were given", xs.len()),
            )
        })?;
        p.expect(
            Tok::Less,
            &format!("before the properties of {name} (`<{{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}}>`)"),
        )?;
        p.expect(Tok::LBrace, "to open the properties")?;
        let (mut exponent, mut mantissa) = (None, None);
        loop {
            let key = p.ident("(exponent_bits or mantissa_bits)")?;
            p.expect(Tok::Equal, &format!("after `{key}`"))?;
            let v = p.int_attr(key)?;
            match key {
                "exponent_bits" => exponent = Some(v),
                "mantissa_bits" => mantissa = Some(v),
                other => {
                    return p.err_at(
                        offset,
                        format!(
                            "{name} has properties exponent_bits and mantissa_bits, not `{other}`"
                        ),
                    );
                }
            }
            if !p.eat(Tok::Comma)? {
                break;
            }
        }
        p.expect(Tok::RBrace, "to close the properties")?;
        p.expect(Tok::Greater, "to close the properties")?;
        match (exponent, mantissa) {
            (Some(e), Some(m)) => (x, e, m),
            _ => {
                return p.err_at(
                    offset,
                    format!("{name} needs both exponent_bits and mantissa_bits"),
                );
            }
        }
    } else {
        let x = p.operand(f)?;
        p.expect(Tok::Comma, "after the operand (`, format = e5m10`)")?;
        p.expect_ident("format", &format!("(the one attribute of {name})"))?;
        p.expect(Tok::Equal, "after `format`")?;
        let at = p.tok.start;
        let format = p.ident("(the format, as `e5m10`)")?;
        let bits = format
            .strip_prefix('e')
            .and_then(|r| r.split_once('m'))
            .and_then(|(e, m)| Some((e.parse::<i64>().ok()?, m.parse::<i64>().ok()?)));
        let Some((e, m)) = bits else {
            return p.err_at(
                at,
                format!("{name}'s format is `eEmM` (exponent and mantissa bits, as `e5m10`), not `{format}`"),
            );
        };
        (x, e, m)
    };
    if p.is(&Tok::LBrace) {
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = if p.is(&Tok::LParen) {
        p.function_type("(the op's type)")?
    } else {
        let t = p.tensor_type("after ':'")?;
        (vec![t.clone()], vec![t])
    };
    let ty = f.b.ty(x.id).clone();
    if ins != [ty.clone()] || outs != [ty.clone()] {
        return p.err_at(
            x.offset,
            format!(
                "{name} gives a value of its operand's type: {} is {ty}; write `: {ty}`",
                x.name
            ),
        );
    }
    let Some((src_exponent, src_mantissa)) = float_bits(ty.dtype) else {
        return p.err_at(
            x.offset,
            format!("{name} takes a float tensor, but {} is {ty}", x.name),
        );
    };
    if !(1..=src_exponent).contains(&exponent) || !(0..=src_mantissa).contains(&mantissa) {
        return p.err_at(
            offset,
            format!(
                "{name} of {ty} takes 1 to {src_exponent} exponent bits and 0 to {src_mantissa} mantissa bits, not e{exponent}m{mantissa}"
            ),
        );
    }
    let from = format!("\"{name}\"");
    let mut e = Emit { b: &mut f.b, from };
    let r = e
        .reduce_precision(x.id, exponent as u32, mantissa as u32)
        .map_err(|err| p.error_at(offset, err.to_string()))?;
    Ok(vec![r])
}

/// Exponent and mantissa bits of a float type.
fn float_bits(d: DType) -> Option<(i64, i64)> {
    Some(match d {
        DType::F16 => (5, 10),
        DType::BF16 => (8, 7),
        DType::F32 => (8, 23),
        DType::F64 => (11, 52),
        _ => return None,
    })
}

/// The attribute naming the `chlo` op an op came from.
const FROM: &str = "shardc.from";

/// Adds the ops of a decomposition, each marked with the `chlo` op it came from.
pub(super) struct Emit<'a> {
    b: &'a mut FunctionBuilder,
    from: String,
}

impl<'a> Emit<'a> {
    /// Adds ops to `b`, each marked as coming from `from` (an op name, quoted).
    pub(super) fn new(b: &'a mut FunctionBuilder, from: String) -> Emit<'a> {
        Emit { b, from }
    }

    fn mark(&mut self, v: ValueId) -> ValueId {
        if let Some(op) = self.b.func().defining_op(v) {
            self.b
                .op_mut(op)
                .attrs
                .push((FROM.to_string(), self.from.clone()));
        }
        v
    }

    fn push(&mut self, kind: OpKind, xs: &[ValueId]) -> Result<ValueId, IrError> {
        let v = self.b.push1(kind, xs)?;
        Ok(self.mark(v))
    }

    /// A splat of `value` shaped and typed as `like`.
    pub(super) fn c(&mut self, like: ValueId, value: f64) -> ValueId {
        let ty = self.b.ty(like).clone();
        let s = if ty.dtype.is_float() {
            Scalar::Float(value)
        } else {
            Scalar::Int(value as i64)
        };
        let v = self.b.constant(Literal::splat(ty, s));
        self.mark(v)
    }

    pub(super) fn bin(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.push(OpKind::Binary(op), &[x, y])
    }

    pub(super) fn un(&mut self, op: UnaryOp, x: ValueId) -> Result<ValueId, IrError> {
        self.push(OpKind::Unary(op), &[x])
    }

    fn add(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.bin(BinaryOp::Add, x, y)
    }

    fn sub(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.bin(BinaryOp::Subtract, x, y)
    }

    pub(super) fn mul(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.bin(BinaryOp::Multiply, x, y)
    }

    fn div(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.bin(BinaryOp::Divide, x, y)
    }

    pub(super) fn cmp(
        &mut self,
        direction: ComparisonDirection,
        x: ValueId,
        y: ValueId,
    ) -> Result<ValueId, IrError> {
        self.push(
            OpKind::Compare {
                direction,
                compare_type: Some(ComparisonType::Float),
            },
            &[x, y],
        )
    }

    pub(super) fn select(
        &mut self,
        p: ValueId,
        x: ValueId,
        y: ValueId,
    ) -> Result<ValueId, IrError> {
        self.push(OpKind::Select, &[p, x, y])
    }

    /// `top_k`'s decomposition (see [`top_k`]).
    fn top_k(&mut self, x: ValueId, k: usize) -> Result<Vec<ValueId>, IrError> {
        let ty = self.b.ty(x).clone();
        let last = ty.rank() - 1;
        let positions = TensorType::new(DType::I32, ty.shape.clone());
        let iota = self
            .b
            .push1_typed(OpKind::Iota { dimension: last }, &[], positions.clone())?;
        let iota = self.mark(iota);
        let s = TensorType::scalar(ty.dtype);
        let i = TensorType::scalar(DType::I32);
        let args = self.b.begin_block(&[s.clone(), s, i.clone(), i]);
        let compare_type = if ty.dtype.is_float() {
            ComparisonType::TotalOrder
        } else if ty.dtype.is_unsigned() {
            ComparisonType::Unsigned
        } else {
            ComparisonType::Signed
        };
        let greater = self.b.push1(
            OpKind::Compare {
                direction: ComparisonDirection::Gt,
                compare_type: Some(compare_type),
            },
            &[args[0], args[1]],
        );
        let greater = match greater {
            Ok(g) => self.mark(g),
            Err(err) => {
                self.b.end_block(&[]);
                return Err(err);
            }
        };
        let comparator = self.b.end_block(&[greater]);
        let sort = self.b.push(
            OpKind::Sort {
                dimension: last,
                is_stable: true,
            },
            &[x, iota],
            None,
            vec![comparator],
        )?;
        let sorted = self.b.func().op(sort).results.clone();
        self.mark(sorted[0]);
        let mut limit = ty.shape.clone();
        limit[last] = k;
        let slice = OpKind::Slice {
            start: vec![0; ty.rank()],
            limit,
            strides: vec![1; ty.rank()],
        };
        let values = self.push(slice.clone(), &[sorted[0]])?;
        let indices = self.push(slice, &[sorted[1]])?;
        Ok(vec![values, indices])
    }

    /// `reduce_precision`'s decomposition (see [`reduce_precision`]): on `x`'s bits as a
    /// signed integer of its width, as XLA's elemental emitter computes it.
    pub(super) fn reduce_precision(
        &mut self,
        x: ValueId,
        exponent: u32,
        mantissa: u32,
    ) -> Result<ValueId, IrError> {
        use ComparisonDirection::{Gt, Le, Ne};
        let ty = self.b.ty(x).clone();
        let (src_e, src_m) = float_bits(ty.dtype).map_or((0, 0), |(e, m)| (e as u32, m as u32));
        let width = src_e + src_m + 1;
        let bits = match width {
            64 => DType::I64,
            32 => DType::I32,
            _ => DType::I16,
        };
        let int_ty = TensorType::new(bits, ty.shape.clone());
        let pow2 = |k: u32| (k as f64).exp2();
        let v = self
            .b
            .push1_typed(OpKind::BitcastConvert, &[x], int_ty.clone())?;
        let mut xi = self.mark(v);
        let signed = |e: &mut Self, d: ComparisonDirection, a: ValueId, b: ValueId| {
            e.push(
                OpKind::Compare {
                    direction: d,
                    compare_type: Some(ComparisonType::Signed),
                },
                &[a, b],
            )
        };
        if mantissa < src_m {
            // Round to nearest even at the last kept bit, then clear the bits below it.
            let shift = src_m - mantissa;
            let last = self.c(xi, pow2(shift));
            let kept = self.bin(BinaryOp::And, xi, last)?;
            let by = self.c(xi, shift as f64);
            let odd = self.bin(BinaryOp::ShiftRightLogical, kept, by)?;
            let base = self.c(xi, pow2(shift - 1) - 1.0);
            let bias = self.add(odd, base)?;
            let rounded = self.add(xi, bias)?;
            let keep = self.c(xi, -pow2(shift));
            xi = self.bin(BinaryOp::And, rounded, keep)?;
        }
        if exponent < src_e {
            // Exponents above the format's range become infinity, those at or below its
            // smallest become (signed) zero.
            let sign = self.c(xi, -pow2(width - 1));
            let exp_mask = self.c(xi, (pow2(src_e) - 1.0) * pow2(src_m));
            let bias = pow2(src_e - 1) - 1.0;
            let reduced_bias = pow2(exponent - 1) - 1.0;
            let max = self.c(xi, (bias + reduced_bias) * pow2(src_m));
            let min = self.c(xi, (bias - reduced_bias) * pow2(src_m));
            let xe = self.bin(BinaryOp::And, xi, exp_mask)?;
            let over = signed(self, Gt, xe, max)?;
            let under = signed(self, Le, xe, min)?;
            let zero = self.bin(BinaryOp::And, xi, sign)?;
            let inf = self.bin(BinaryOp::Or, zero, exp_mask)?;
            let r = self.select(under, zero, xi)?;
            xi = self.select(over, inf, r)?;
        }
        let v = self.b.push1_typed(OpKind::BitcastConvert, &[xi], ty)?;
        let r = self.mark(v);
        if mantissa == 0 {
            return Ok(r);
        }
        let nan = self.cmp(Ne, x, x)?;
        self.select(nan, x, r)
    }

    /// `c[0] * x^(n-1) + ... + c[n-1]` by Horner's rule.
    fn poly(&mut self, x: ValueId, c: &[f64]) -> Result<ValueId, IrError> {
        let mut acc = self.c(x, c[0]);
        for &k in &c[1..] {
            let m = self.mul(acc, x)?;
            let k = self.c(x, k);
            acc = self.add(m, k)?;
        }
        Ok(acc)
    }

    /// `c[0] T_0(y) + c[1] T_1(y) + ...` (Chebyshev polynomials of the first kind, `y`
    /// in `[-1, 1]`) by Clenshaw's recurrence, which stays as accurate as the series.
    fn chebyshev(&mut self, y: ValueId, c: &[f64]) -> Result<ValueId, IrError> {
        let two_y = self.add(y, y)?;
        let n = c.len() - 1;
        // b(k) = c[k] + 2y b(k+1) - b(k+2), from b(n) = c[n] down to b(1).
        let (mut b1, mut b2) = (self.c(y, c[n]), self.c(y, 0.0));
        for &ck in c[1..n].iter().rev() {
            let t = self.mul(two_y, b1)?;
            let t = self.sub(t, b2)?;
            let k = self.c(y, ck);
            (b1, b2) = (self.add(t, k)?, b1);
        }
        let t = self.mul(y, b1)?;
        let t = self.sub(t, b2)?;
        let c0 = self.c(y, c[0]);
        self.add(t, c0)
    }

    fn convert(&mut self, x: ValueId, to: DType) -> Result<ValueId, IrError> {
        let shape = self.b.ty(x).shape.clone();
        let v = self
            .b
            .push1_typed(OpKind::Convert, &[x], TensorType::new(to, shape))?;
        Ok(self.mark(v))
    }

    /// `f` computed in f32 for a half-precision `x` (rounded back to `x`'s type by the
    /// last op), in `x`'s own type otherwise.
    fn in_f32(
        &mut self,
        x: ValueId,
        f: impl FnOnce(&mut Self, ValueId) -> Result<ValueId, IrError>,
    ) -> Result<Last, IrError> {
        let d = self.b.ty(x).dtype;
        if matches!(d, DType::BF16 | DType::F16) {
            let wide = self.convert(x, DType::F32)?;
            let y = f(self, wide)?;
            return Ok((OpKind::Convert, vec![y]));
        }
        let y = f(self, x)?;
        last(self, y)
    }

    /// [`Emit::in_f32`] for a function of two values of one type.
    fn in_f32_2(
        &mut self,
        x: ValueId,
        y: ValueId,
        f: impl FnOnce(&mut Self, ValueId, ValueId) -> Result<ValueId, IrError>,
    ) -> Result<Last, IrError> {
        let d = self.b.ty(x).dtype;
        if matches!(d, DType::BF16 | DType::F16) {
            let (wx, wy) = (self.convert(x, DType::F32)?, self.convert(y, DType::F32)?);
            let r = f(self, wx, wy)?;
            return Ok((OpKind::Convert, vec![r]));
        }
        let r = f(self, x, y)?;
        last(self, r)
    }

    fn and(&mut self, p: ValueId, q: ValueId) -> Result<ValueId, IrError> {
        self.bin(BinaryOp::And, p, q)
    }

    /// Whether `x` is a whole number (true for `±inf`, whose floor is itself).
    fn is_whole(&mut self, x: ValueId) -> Result<ValueId, IrError> {
        let f = self.un(UnaryOp::Floor, x)?;
        self.cmp(ComparisonDirection::Eq, f, x)
    }

    /// Whether `x` is an odd whole number.
    fn is_odd(&mut self, x: ValueId) -> Result<ValueId, IrError> {
        let half = self.c(x, 0.5);
        let h = self.mul(x, half)?;
        let fh = self.un(UnaryOp::Floor, h)?;
        let whole_half = self.cmp(ComparisonDirection::Ne, fh, h)?;
        let whole = self.is_whole(x)?;
        self.and(whole, whole_half)
    }

    /// Whether `x` is zero or a negative whole number: the poles of the gamma function.
    fn is_gamma_pole(&mut self, x: ValueId) -> Result<ValueId, IrError> {
        let zero = self.c(x, 0.0);
        let nonpositive = self.cmp(ComparisonDirection::Le, x, zero)?;
        let whole = self.is_whole(x)?;
        self.and(nonpositive, whole)
    }
}

/// Ends a decomposition whose result is already computed: the parser's last op is that
/// value's own op, removed from the builder and handed back.
fn last(e: &mut Emit<'_>, y: ValueId) -> Result<Last, IrError> {
    let taken =
        e.b.func()
            .defining_op(y)
            .and_then(|op| e.b.take_last_op(op));
    match taken {
        Some(op) => Ok((op.kind, op.operands)),
        None => Err(IrError::InvalidOp {
            at: "a chlo decomposition".into(),
            op: e.from.clone(),
            rule: "its result is not the op it added last (a bug in shardc's chlo table)".into(),
            fix: "report it with the program".into(),
        }),
    }
}

// ----- the decompositions -----

/// `x * x`.
fn square(_: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    Ok((OpKind::Binary(BinaryOp::Multiply), vec![x, x]))
}

/// `sin x / cos x`: StableHLO's own `tan`.
fn tan(_: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    Ok((OpKind::Unary(UnaryOp::Tan), vec![x]))
}

/// XLA's f32 `erf`: `x * p(x^2) / q(x^2)` on `x` clamped to `[-4, 4]` (rational
/// approximation, a few ulp); f64: Cephes' `erf` for `|x| < 1` and `1 - erfc` beyond.
fn erf(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    if e.b.ty(x).dtype == DType::F64 {
        let y = erf_f64(e, x)?;
        return last(e, y);
    }
    e.in_f32(x, erf_f32)
}

/// The f64 `erfc` (see [`erfc`]).
fn erfc_f64(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    let small = erf_f64(e, x)?;
    let one = e.c(x, 1.0);
    let small = e.sub(one, small)?;
    let ax = e.un(UnaryOp::Abs, x)?;
    let big = erfc_f64_beyond_one(e, ax)?;
    let y = negative_side(e, x, big)?;
    let below1 = e.cmp(ComparisonDirection::Lt, ax, one)?;
    e.select(below1, small, y)
}

/// XLA's f32 `erf` (see [`erf`]).
fn erf_f32(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    let (lo, hi) = (e.c(x, -4.0), e.c(x, 4.0));
    let a = e.push(OpKind::Clamp, &[lo, x, hi])?;
    let a2 = e.mul(a, a)?;
    let p = e.poly(
        a2,
        &[
            -2.72614225801306e-10,
            2.77068142495902e-08,
            -2.10102402082508e-06,
            -5.69250639462346e-05,
            -7.34990630326855e-04,
            -2.95459980854025e-03,
            -1.60960333262415e-02,
        ],
    )?;
    let p = e.mul(a, p)?;
    let q = e.poly(
        a2,
        &[
            -1.45660718464996e-05,
            -2.13374055278905e-04,
            -1.68282697438203e-03,
            -7.37332916720468e-03,
            -1.42647390514189e-02,
        ],
    )?;
    e.div(p, q)
}

/// `erfc`: `1 - erf x` for `|x| < 1`; beyond, Cephes' `erfcf` in f32
/// (`exp(-x^2) / |x| * p(1 / x^2)`, 0 where `exp` underflows) and Cephes' `erfc` in f64;
/// `2 - erfc |x|` for negative `x`.
fn erfc(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    if e.b.ty(x).dtype == DType::F64 {
        let r = erfc_f64(e, x)?;
        return last(e, r);
    }
    e.in_f32(x, |e, x| {
        let small = erf_f32(e, x)?;
        let one = e.c(x, 1.0);
        let small = e.sub(one, small)?;
        let ax = e.un(UnaryOp::Abs, x)?;
        let x2 = e.mul(x, x)?;
        let z = e.un(UnaryOp::Negate, x2)?;
        let q = e.div(one, ax)?;
        let y = e.mul(q, q)?;
        let p_near = e.poly(
            y,
            &[
                2.326819970068386e-2,
                -1.387039388740657e-1,
                3.687424674597105e-1,
                -5.824733027278666e-1,
                6.210004621745983e-1,
                -4.944515323274145e-1,
                3.404879937665872e-1,
                -2.741127028184656e-1,
                5.638259427386472e-1,
            ],
        )?;
        let p_far = e.poly(
            y,
            &[
                -1.047766399936249e1,
                1.297719955372516e1,
                -7.495518717768503e0,
                2.921019019210786e0,
                -1.015265279202700e0,
                4.218463358204948e-1,
                -2.820767439740514e-1,
                5.641895067754075e-1,
            ],
        )?;
        let two = e.c(x, 2.0);
        let below2 = e.cmp(ComparisonDirection::Lt, ax, two)?;
        let p = e.select(below2, p_near, p_far)?;
        let ez = e.un(UnaryOp::Exponential, z)?;
        let big = e.mul(ez, q)?;
        let big = e.mul(big, p)?;
        let maxlog = e.c(x, -88.72283905206835);
        let under = e.cmp(ComparisonDirection::Lt, z, maxlog)?;
        let zero = e.c(x, 0.0);
        let big = e.select(under, zero, big)?;
        let y = negative_side(e, x, big)?;
        let below1 = e.cmp(ComparisonDirection::Lt, ax, one)?;
        e.select(below1, small, y)
    })
}

/// `erfc x` from `erfc |x|`: itself for `x >= 0`, `2 - erfc |x|` below.
fn negative_side(e: &mut Emit<'_>, x: ValueId, of_abs: ValueId) -> Result<ValueId, IrError> {
    let zero = e.c(x, 0.0);
    let neg = e.cmp(ComparisonDirection::Lt, x, zero)?;
    let two = e.c(x, 2.0);
    let flipped = e.sub(two, of_abs)?;
    e.select(neg, flipped, of_abs)
}

/// Cephes' `erf` on `|x| < 1`: numerator and denominator in `x^2`.
const T: &[f64] = &[
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
];
const U: &[f64] = &[
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
];
/// Cephes' `erfc` on `1 <= z < 8`.
const P: &[f64] = &[
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
];
const Q: &[f64] = &[
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
];
/// Cephes' `erfc` on `z >= 8`.
const R: &[f64] = &[
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
];
const S: &[f64] = &[
    1.0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
];

/// Cephes' double-precision `erf`: `x T(x^2) / U(x^2)` for `|x| < 1`, else
/// `sign(x) (1 - erfc |x|)` with `erfc z = exp(-z^2) P(z) / Q(z)` below 8 and
/// `exp(-z^2) R(z) / S(z)` above.
fn erf_f64(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    // |x| < 1
    let x2 = e.mul(x, x)?;
    let t = e.poly(x2, T)?;
    let u = e.poly(x2, U)?;
    let xt = e.mul(x, t)?;
    let small = e.div(xt, u)?;
    // |x| >= 1: 1 - erfc(|x|), signed
    let z = e.un(UnaryOp::Abs, x)?;
    let erfc = erfc_f64_beyond_one(e, z)?;
    let one = e.c(x, 1.0);
    let big = e.sub(one, erfc)?;
    let sign = e.un(UnaryOp::Sign, x)?;
    let big = e.mul(sign, big)?;
    let below1 = e.cmp(ComparisonDirection::Lt, z, one)?;
    e.select(below1, small, big)
}

/// Cephes' double-precision `erfc z` for `z >= 1`: `exp(-z^2) P(z) / Q(z)` below 8,
/// `exp(-z^2) R(z) / S(z)` above.
fn erfc_f64_beyond_one(e: &mut Emit<'_>, z: ValueId) -> Result<ValueId, IrError> {
    let z2 = e.mul(z, z)?;
    let nz2 = e.un(UnaryOp::Negate, z2)?;
    let ex = e.un(UnaryOp::Exponential, nz2)?;
    let p = e.poly(z, P)?;
    let q = e.poly(z, Q)?;
    let r = e.poly(z, R)?;
    let s = e.poly(z, S)?;
    let pq = e.div(p, q)?;
    let rs = e.div(r, s)?;
    let eight = e.c(z, 8.0);
    let below8 = e.cmp(ComparisonDirection::Lt, z, eight)?;
    let ratio = e.select(below8, pq, rs)?;
    e.mul(ex, ratio)
}

/// XLA's f32 `erf_inv` (M. Giles, "Approximating the erfinv function"): with
/// `w = -log((1 - x)(1 + x))`, `x p(w - 2.5)` for `w < 5`, `x q(sqrt w - 3)` beyond;
/// `±inf` at `x = ±1`; in f64 refined by Newton's method ([`erf_inv_f64`]: JAX's
/// `jax.random.normal` under `jax_enable_x64`).
fn erf_inv(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    if e.b.ty(x).dtype == DType::F64 {
        let y = erf_inv_f64(e, x)?;
        return last(e, y);
    }
    e.in_f32(x, erf_inv_f32)
}

/// Giles' single-precision polynomials (see [`erf_inv`]); ±inf at ±1.
fn erf_inv_f32(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    let one = e.c(x, 1.0);
    let a = e.sub(one, x)?;
    let b = e.add(one, x)?;
    let ab = e.mul(a, b)?;
    let l = e.un(UnaryOp::Log, ab)?;
    let w = e.un(UnaryOp::Negate, l)?;
    let k = e.c(x, 2.5);
    let small_w = e.sub(w, k)?;
    let p_small = e.poly(
        small_w,
        &[
            2.81022636e-08,
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ],
    )?;
    let sw = e.un(UnaryOp::Sqrt, w)?;
    let k3 = e.c(x, 3.0);
    let big_w = e.sub(sw, k3)?;
    let p_big = e.poly(
        big_w,
        &[
            -0.000200214257,
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ],
    )?;
    let five = e.c(x, 5.0);
    let is_small = e.cmp(ComparisonDirection::Lt, w, five)?;
    let p = e.select(is_small, p_small, p_big)?;
    let y = e.mul(p, x)?;
    // x = ±1: ±inf (the polynomial gives a finite value there).
    let ax = e.un(UnaryOp::Abs, x)?;
    let at_one = e.cmp(ComparisonDirection::Eq, ax, one)?;
    let inf = e.c(x, f64::INFINITY);
    let signed_inf = e.mul(x, inf)?;
    e.select(at_one, signed_inf, y)
}

/// Newton steps of [`erf_inv_f64`].
const NEWTON_STEPS: usize = 5;

/// f64: [`erf_inv_f32`]'s value (its coefficients, in f64) as the first guess, then
/// [`NEWTON_STEPS`] Newton steps on `erf y = |x|` (on `log erfc y = log(1 - |x|)` beyond
/// 0.5, where `erf y` has no digits left): from ~1e-7 (~1e-2 beyond `1 - 1e-7`, where the
/// f32 polynomial is extrapolated) to the last bits of f64, as XLA's f64 polynomial
/// gives. ±inf at ±1, NaN beyond.
fn erf_inv_f64(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    let guess = erf_inv_f32(e, x)?;
    let a = e.un(UnaryOp::Abs, x)?;
    let sign = e.un(UnaryOp::Sign, x)?;
    let one = e.c(x, 1.0);
    let half = e.c(x, 0.5);
    let tail = e.cmp(ComparisonDirection::Gt, a, half)?;
    let one_minus_a = e.sub(one, a)?;
    let slope = e.c(x, 2.0 / std::f64::consts::PI.sqrt());
    let mut y = e.un(UnaryOp::Abs, guess)?;
    let log_target = e.un(UnaryOp::Log, one_minus_a)?;
    for _ in 0..NEWTON_STEPS {
        // Near zero: f(y) = erf y - |x|, f' = 2/sqrt(pi) exp(-y^2).
        let y2 = e.mul(y, y)?;
        let n = e.un(UnaryOp::Negate, y2)?;
        let g = e.un(UnaryOp::Exponential, n)?;
        let d_near = e.mul(slope, g)?;
        let erf_y = erf_f64(e, y)?;
        let r_near = e.sub(erf_y, a)?;
        // In the tail: f(y) = log erfc y - log(1 - |x|), f' = -erf'(y) / erfc y (nearly
        // quadratic there, so Newton converges from either side).
        let erfc_y = erfc_f64(e, y)?;
        let log_erfc = e.un(UnaryOp::Log, erfc_y)?;
        let r_far = e.sub(log_erfc, log_target)?;
        let q = e.div(d_near, erfc_y)?;
        let d_far = e.un(UnaryOp::Negate, q)?;
        let r = e.select(tail, r_far, r_near)?;
        let d = e.select(tail, d_far, d_near)?;
        let step = e.div(r, d)?;
        y = e.sub(y, step)?;
    }
    let y = e.mul(sign, y)?;
    // ±1 (and beyond: NaN) as the guess says; Newton would divide 0 by 0 there.
    let at_one = e.cmp(ComparisonDirection::Ge, a, one)?;
    e.select(at_one, guess, y)
}

/// `(expm1 x - expm1 -x) / 2` up to `|x| = 1` (exact near 0, where `exp x - exp -x`
/// cancels), `exp(x + log 1/2) - exp(-x + log 1/2)` beyond (finite up to 89.4, where
/// `expm1` alone overflows at 88.7).
fn sinh(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let a = e.un(UnaryOp::ExponentialMinusOne, x)?;
        let n = e.un(UnaryOp::Negate, x)?;
        let b = e.un(UnaryOp::ExponentialMinusOne, n)?;
        let d = e.sub(a, b)?;
        let half = e.c(x, 0.5);
        let near = e.mul(d, half)?;
        let lh = e.c(x, 0.5f64.ln());
        let p = e.add(x, lh)?;
        let p = e.un(UnaryOp::Exponential, p)?;
        let q = e.add(n, lh)?;
        let q = e.un(UnaryOp::Exponential, q)?;
        let far = e.sub(p, q)?;
        let ax = e.un(UnaryOp::Abs, x)?;
        let one = e.c(x, 1.0);
        let is_far = e.cmp(ComparisonDirection::Gt, ax, one)?;
        e.select(is_far, far, near)
    })
}

/// Where `x^2` is near overflowing, so `asinh` and `acosh` take `log |x| + log 2`.
fn far_limit(e: &Emit<'_>, x: ValueId) -> f64 {
    if e.b.ty(x).dtype == DType::F64 {
        1e150
    } else {
        1e18
    }
}

/// `exp(x + log 1/2) + exp(-x + log 1/2)`: no overflow before `cosh` itself overflows.
fn cosh(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let lh = e.c(x, 0.5f64.ln());
        let a = e.add(x, lh)?;
        let a = e.un(UnaryOp::Exponential, a)?;
        let n = e.un(UnaryOp::Negate, x)?;
        let b = e.add(n, lh)?;
        let b = e.un(UnaryOp::Exponential, b)?;
        e.add(a, b)
    })
}

/// `sqrt(1 - x^2)`, computed as `sqrt((1 - x)(1 + x))`.
fn cos_of_asin(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    let one = e.c(x, 1.0);
    let a = e.sub(one, x)?;
    let b = e.add(one, x)?;
    let ab = e.mul(a, b)?;
    e.un(UnaryOp::Sqrt, ab)
}

/// `2 atan2(x, 1 + sqrt(1 - x^2))`.
fn asin(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let c = cos_of_asin(e, x)?;
        let one = e.c(x, 1.0);
        let d = e.add(one, c)?;
        let t = e.bin(BinaryOp::Atan2, x, d)?;
        let two = e.c(x, 2.0);
        e.mul(two, t)
    })
}

/// `2 atan2(sqrt(1 - x^2), 1 + x)`, and `pi` at `x = -1`.
fn acos(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let c = cos_of_asin(e, x)?;
        let one = e.c(x, 1.0);
        let d = e.add(one, x)?;
        let t = e.bin(BinaryOp::Atan2, c, d)?;
        let two = e.c(x, 2.0);
        let y = e.mul(two, t)?;
        let m1 = e.c(x, -1.0);
        let at = e.cmp(ComparisonDirection::Eq, x, m1)?;
        let pi = e.c(x, std::f64::consts::PI);
        e.select(at, pi, y)
    })
}

/// `atan2(x, 1)`.
fn atan(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let one = e.c(x, 1.0);
        e.bin(BinaryOp::Atan2, x, one)
    })
}

/// `sign(x) log(|x| + sqrt(x^2 + 1))`, and `sign(x) (log |x| + log 2)` for `|x|` past
/// `sqrt(max)` (where `x^2` overflows).
fn asinh(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let big = far_limit(e, x);
        let ax = e.un(UnaryOp::Abs, x)?;
        let sign = e.un(UnaryOp::Sign, x)?;
        let one = e.c(x, 1.0);
        let x2 = e.mul(ax, ax)?;
        let s = e.add(x2, one)?;
        let s = e.un(UnaryOp::Sqrt, s)?;
        let s = e.add(ax, s)?;
        let near = e.un(UnaryOp::Log, s)?;
        let l = e.un(UnaryOp::Log, ax)?;
        let ln2 = e.c(x, std::f64::consts::LN_2);
        let far = e.add(l, ln2)?;
        let limit = e.c(x, big);
        let is_far = e.cmp(ComparisonDirection::Gt, ax, limit)?;
        let y = e.select(is_far, far, near)?;
        e.mul(sign, y)
    })
}

/// `log1p((x - 1) + sqrt((x - 1)(x + 1)))` (accurate near 1, NaN below 1), and
/// `log x + log 2` beyond `1e18` (`1e150` in f64), where `x^2` would overflow: `acosh` of
/// the largest f32 is 89.4, not infinity.
fn acosh(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let big = far_limit(e, x);
        let one = e.c(x, 1.0);
        let a = e.add(x, one)?;
        let b = e.sub(x, one)?;
        let ab = e.mul(a, b)?;
        let s = e.un(UnaryOp::Sqrt, ab)?;
        let s = e.add(b, s)?;
        let near = e.un(UnaryOp::LogPlusOne, s)?;
        let l = e.un(UnaryOp::Log, x)?;
        let ln2 = e.c(x, std::f64::consts::LN_2);
        let far = e.add(l, ln2)?;
        let limit = e.c(x, big);
        let is_far = e.cmp(ComparisonDirection::Gt, x, limit)?;
        e.select(is_far, far, near)
    })
}

/// `(log1p x - log1p -x) / 2`.
fn atanh(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, |e, x| {
        let a = e.un(UnaryOp::LogPlusOne, x)?;
        let n = e.un(UnaryOp::Negate, x)?;
        let b = e.un(UnaryOp::LogPlusOne, n)?;
        let d = e.sub(a, b)?;
        let half = e.c(x, 0.5);
        e.mul(d, half)
    })
}

/// `|x| == inf`.
fn is_inf(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    let ax = e.un(UnaryOp::Abs, x)?;
    let inf = e.c(x, f64::INFINITY);
    Ok(compare_last(ComparisonDirection::Eq, ax, inf))
}

/// `x == inf`.
fn is_pos_inf(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    let inf = e.c(x, f64::INFINITY);
    Ok(compare_last(ComparisonDirection::Eq, x, inf))
}

/// `x == -inf`.
fn is_neg_inf(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    let inf = e.c(x, f64::NEG_INFINITY);
    Ok(compare_last(ComparisonDirection::Eq, x, inf))
}

/// The next float after `x` towards `y`, as XLA computes it: `x`'s bits stepped by one
/// (down in magnitude when `|x| > |y|` or the signs differ, up otherwise); the smallest
/// subnormal with `y`'s sign from zero; `y` when equal; NaN when either is.
fn next_after(e: &mut Emit<'_>, x: ValueId, y: ValueId) -> Result<Last, IrError> {
    use ComparisonDirection::{Eq, Gt, Ne};
    let ty = e.b.ty(x).clone();
    let bits = match ty.dtype.bit_width() {
        64 => DType::I64,
        32 => DType::I32,
        _ => DType::I16,
    };
    let int_ty = TensorType::new(bits, ty.shape.clone());
    let bitcast = |e: &mut Emit<'_>, v: ValueId, to: &TensorType| -> Result<ValueId, IrError> {
        let r = e.b.push1_typed(OpKind::BitcastConvert, &[v], to.clone())?;
        Ok(e.mark(r))
    };
    let int_cmp = |e: &mut Emit<'_>, d: ComparisonDirection, a: ValueId, b: ValueId| {
        e.push(
            OpKind::Compare {
                direction: d,
                compare_type: Some(ComparisonType::Signed),
            },
            &[a, b],
        )
    };
    let xb = bitcast(e, x, &int_ty)?;
    let yb = bitcast(e, y, &int_ty)?;
    let sign = e.c(xb, -(bits.bit_width() as f64 - 1.0).exp2());
    let xs = e.bin(BinaryOp::And, xb, sign)?;
    let ys = e.bin(BinaryOp::And, yb, sign)?;
    let ax = e.un(UnaryOp::Abs, x)?;
    let ay = e.un(UnaryOp::Abs, y)?;
    let larger = e.cmp(Gt, ax, ay)?;
    let signs_differ = int_cmp(e, Ne, xs, ys)?;
    let smaller = e.bin(BinaryOp::Or, larger, signs_differ)?;
    let (down, up) = (e.c(xb, -1.0), e.c(xb, 1.0));
    let step = e.select(smaller, down, up)?;
    let stepped = e.add(xb, step)?;
    let one = e.c(xb, 1.0);
    let tiny = e.bin(BinaryOp::Or, ys, one)?;
    let zero = e.c(x, 0.0);
    let from_zero = e.cmp(Eq, ax, zero)?;
    let r = e.select(from_zero, tiny, stepped)?;
    let r = bitcast(e, r, &ty)?;
    let equal = e.cmp(Eq, x, y)?;
    let r = e.select(equal, y, r)?;
    let x_nan = e.cmp(Ne, x, x)?;
    let y_nan = e.cmp(Ne, y, y)?;
    let nan = e.bin(BinaryOp::Or, x_nan, y_nan)?;
    let sum = e.add(x, y)?;
    Ok((OpKind::Select, vec![nan, sum, r]))
}

fn compare_last(direction: ComparisonDirection, x: ValueId, y: ValueId) -> Last {
    (
        OpKind::Compare {
            direction,
            compare_type: Some(ComparisonType::Float),
        },
        vec![x, y],
    )
}

// ----- the gamma function's family -----

/// The Lanczos approximation of the gamma function with `g = 7` and nine terms (the set
/// published with Numerical Recipes; about 15 digits): for `z >= -0.5`,
/// `Γ(z + 1) = sqrt(2π) t^(z + 1/2) e^(-t) A(z)` with `t = z + g + 1/2` and
/// `A(z) = c0 + Σ c_i / (z + i)`.
const LANCZOS_G: f64 = 7.0;
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_93,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_13,
    -176.615_029_162_140_59,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_571_6e-6,
    1.505_632_735_149_311_6e-7,
];

/// `A(z)` and `t` of [`LANCZOS`], and `A'(z)` when `derivative` (digamma's; lgamma does
/// not build it).
fn lanczos(
    e: &mut Emit<'_>,
    z: ValueId,
    derivative: bool,
) -> Result<(ValueId, Option<ValueId>, ValueId), IrError> {
    let mut a = e.c(z, LANCZOS[0]);
    let mut da = if derivative { Some(e.c(z, 0.0)) } else { None };
    for (i, &c) in LANCZOS.iter().enumerate().skip(1) {
        let k = e.c(z, i as f64);
        let zi = e.add(z, k)?;
        let c = e.c(z, c);
        let term = e.div(c, zi)?;
        a = e.add(a, term)?;
        if let Some(d) = da {
            let dterm = e.div(term, zi)?;
            da = Some(e.sub(d, dterm)?);
        }
    }
    let k = e.c(z, LANCZOS_G + 0.5);
    let t = e.add(z, k)?;
    Ok((a, da, t))
}

/// The argument of the Lanczos sum for `x`: `x - 1` for `x >= 1/2`, `-x` below (where
/// the reflection formula takes `Γ(1 - x)`); and whether `x` is reflected.
fn lanczos_argument(e: &mut Emit<'_>, x: ValueId) -> Result<(ValueId, ValueId), IrError> {
    let half = e.c(x, 0.5);
    let reflect = e.cmp(ComparisonDirection::Lt, x, half)?;
    let one = e.c(x, 1.0);
    let xm1 = e.sub(x, one)?;
    let negx = e.un(UnaryOp::Negate, x)?;
    let z = e.select(reflect, negx, xm1)?;
    Ok((z, reflect))
}

/// `log |Γ(x)|`: the Lanczos approximation for `x >= 1/2`, the reflection formula
/// `log π - log |sin πx| - log |Γ(1 - x)|` below (with `sin` taken of `x`'s distance to
/// the nearest whole number, exact there); `+inf` at the poles (zero and the negative
/// whole numbers) and at `±inf`; NaN for NaN. XLA's results: JAX's `lax.lgamma`,
/// `jax.scipy.special.gammaln`, and the samplers of `jax.random.gamma`, `beta`,
/// `dirichlet` and `poisson`.
fn lgamma(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, lgamma_value)
}

fn lgamma_value(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    use std::f64::consts::PI;
    let (z, reflect) = lanczos_argument(e, x)?;
    let (a, _, t) = lanczos(e, z, false)?;
    // (z + 1/2) log t - t, written (z + 1/2 - t / log t) log t so that it overflows only
    // when the result does.
    let log_t = e.un(UnaryOp::Log, t)?;
    let half = e.c(x, 0.5);
    let zh = e.add(z, half)?;
    let tl = e.div(t, log_t)?;
    let k = e.sub(zh, tl)?;
    let body = e.mul(k, log_t)?;
    let log_a = e.un(UnaryOp::Log, a)?;
    let c = e.c(x, 0.5 * (2.0 * PI).ln());
    let y = e.add(c, body)?;
    let y = e.add(y, log_a)?;
    // Reflection.
    let ax = e.un(UnaryOp::Abs, x)?;
    let fl = e.un(UnaryOp::Floor, ax)?;
    let frac = e.sub(ax, fl)?;
    let more = e.cmp(ComparisonDirection::Gt, frac, half)?;
    let one = e.c(x, 1.0);
    let other = e.sub(one, frac)?;
    let reduced = e.select(more, other, frac)?;
    let pi = e.c(x, PI);
    let arg = e.mul(pi, reduced)?;
    let sin = e.un(UnaryOp::Sine, arg)?;
    let log_sin = e.un(UnaryOp::Log, sin)?;
    let log_pi = e.c(x, PI.ln());
    let r = e.sub(log_pi, log_sin)?;
    let r = e.sub(r, y)?;
    let y = e.select(reflect, r, y)?;
    let inf = e.c(x, f64::INFINITY);
    let pole = e.is_gamma_pole(x)?;
    let ax_inf = e.cmp(ComparisonDirection::Eq, ax, inf)?;
    let infinite = e.bin(BinaryOp::Or, pole, ax_inf)?;
    e.select(infinite, inf, y)
}

/// `ψ(x) = d/dx log Γ(x)`: the derivative of the Lanczos approximation,
/// `log t + A'(z)/A(z) - g/t`, for `x >= 1/2`; the reflection formula
/// `ψ(1 - x) - π cot πx` below (the cotangent taken of `x`'s distance to the nearest whole
/// number); NaN at the poles and at `-inf`, `+inf` at `+inf`. XLA's results: JAX's
/// `lax.digamma`, the gradient of `gammaln`.
fn digamma(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    e.in_f32(x, digamma_value)
}

fn digamma_value(e: &mut Emit<'_>, x: ValueId) -> Result<ValueId, IrError> {
    use std::f64::consts::PI;
    let (z, reflect) = lanczos_argument(e, x)?;
    let (a, da, t) = lanczos(e, z, true)?;
    let da = da.expect("asked for the derivative");
    let log_t = e.un(UnaryOp::Log, t)?;
    let ratio = e.div(da, a)?;
    let g = e.c(x, LANCZOS_G);
    let gt = e.div(g, t)?;
    let psi = e.add(log_t, ratio)?;
    let psi = e.sub(psi, gt)?;
    // Reflection: cot is π-periodic, so take it of x - round(x), in [-1/2, 1/2).
    let half = e.c(x, 0.5);
    let xh = e.add(x, half)?;
    let n = e.un(UnaryOp::Floor, xh)?;
    let r = e.sub(x, n)?;
    let pi = e.c(x, PI);
    let arg = e.mul(pi, r)?;
    let cos = e.un(UnaryOp::Cosine, arg)?;
    let sin = e.un(UnaryOp::Sine, arg)?;
    let cot = e.div(cos, sin)?;
    let pcot = e.mul(pi, cot)?;
    let refl = e.sub(psi, pcot)?;
    let y = e.select(reflect, refl, psi)?;
    let pole = e.is_gamma_pole(x)?;
    let nan = e.c(x, f64::NAN);
    e.select(pole, nan, y)
}

/// `B_2j / (2j)!` for `j = 1..=12`: the Euler-Maclaurin corrections of [`zeta`].
const BERNOULLI_OVER_FACTORIAL: [f64; 12] = [
    0.083_333_333_333_333_33,
    -0.001_388_888_888_888_889,
    3.306_878_306_878_307e-5,
    -8.267_195_767_195_768e-7,
    2.087_675_698_786_81e-8,
    -5.284_190_138_687_493e-10,
    1.338_253_653_068_467_9e-11,
    -3.389_680_296_322_582_7e-13,
    8.586_062_056_277_845e-15,
    -2.174_868_698_558_062e-16,
    5.509_002_828_360_229_5e-18,
    -1.395_446_468_581_252_2e-19,
];

/// The terms summed directly before the Euler-Maclaurin tail of [`zeta`].
const ZETA_TERMS: usize = 10;

/// Hurwitz's `ζ(s, q) = Σ_k (q + k)^-s`, as XLA computes it: the first [`ZETA_TERMS`] terms
/// summed, the rest by the Euler-Maclaurin formula at `a = q + 10` (`a^(1-s)/(s-1) +
/// a^-s/2` and twelve Bernoulli corrections), so accurate for `q > -7` and, like XLA's,
/// not below (the tail's expansion needs `a` well above 1). Where it is not defined,
/// XLA's values: `+inf` at `s = 1`, NaN for `s < 1` and for infinite `s` or `q`; at `q`
/// zero or a negative whole number, `+inf` for even whole `s` and NaN otherwise; NaN for
/// negative `q` with `s` not whole. JAX's `lax.zeta`, `jax.scipy.special.zeta`.
fn zeta(e: &mut Emit<'_>, s: ValueId, q: ValueId) -> Result<Last, IrError> {
    e.in_f32_2(s, q, zeta_value)
}

fn zeta_value(e: &mut Emit<'_>, s: ValueId, q: ValueId) -> Result<ValueId, IrError> {
    use ComparisonDirection::{Eq, Le, Lt};
    let zero = e.c(q, 0.0);
    let one = e.c(q, 1.0);
    let s_odd = e.is_odd(s)?;
    let neg_s = e.un(UnaryOp::Negate, s)?;
    // a^-s for a > 0 (and for a < 0 with s whole: the sign from s's parity).
    let pow = |e: &mut Emit<'_>, b: ValueId| -> Result<ValueId, IrError> {
        let ab = e.un(UnaryOp::Abs, b)?;
        let l = e.un(UnaryOp::Log, ab)?;
        let m = e.mul(neg_s, l)?;
        let p = e.un(UnaryOp::Exponential, m)?;
        let negative = e.cmp(Lt, b, zero)?;
        let flip = e.and(negative, s_odd)?;
        let np = e.un(UnaryOp::Negate, p)?;
        e.select(flip, np, p)
    };
    let mut sum = e.c(q, 0.0);
    for k in 0..ZETA_TERMS {
        let kk = e.c(q, k as f64);
        let b = e.add(q, kk)?;
        let term = pow(e, b)?;
        sum = e.add(sum, term)?;
    }
    let n = e.c(q, ZETA_TERMS as f64);
    let a = e.add(q, n)?;
    let a_s = pow(e, a)?;
    let sm1 = e.sub(s, one)?;
    let head = e.mul(a, a_s)?;
    let head = e.div(head, sm1)?;
    sum = e.add(sum, head)?;
    let half = e.c(q, 0.5);
    let h = e.mul(a_s, half)?;
    sum = e.add(sum, h)?;
    // s (s+1) ... (s+2j-2) a^(-s-2j+1), stepped by (s+2j-1)(s+2j) / a^2.
    let sa = e.mul(s, a_s)?;
    let mut fac = e.div(sa, a)?;
    let a2 = e.mul(a, a)?;
    for (j, &c) in BERNOULLI_OVER_FACTORIAL.iter().enumerate() {
        let c = e.c(q, c);
        let term = e.mul(c, fac)?;
        sum = e.add(sum, term)?;
        if j + 1 < BERNOULLI_OVER_FACTORIAL.len() {
            let k1 = e.c(q, 2.0 * (j + 1) as f64 - 1.0);
            let k2 = e.c(q, 2.0 * (j + 1) as f64);
            let f1 = e.add(s, k1)?;
            let f2 = e.add(s, k2)?;
            let f = e.mul(f1, f2)?;
            let f = e.div(f, a2)?;
            fac = e.mul(fac, f)?;
        }
    }
    // Where the sum is not defined.
    let (inf, nan) = (e.c(q, f64::INFINITY), e.c(q, f64::NAN));
    let s_whole = e.is_whole(s)?;
    let q_whole = e.is_whole(q)?;
    let q_nonpositive = e.cmp(Le, q, zero)?;
    let at_pole = e.and(q_nonpositive, q_whole)?;
    let even = e.un(UnaryOp::Not, s_odd)?;
    let even = e.and(even, s_whole)?;
    let pole_value = e.select(even, inf, nan)?;
    let r = e.select(at_pole, pole_value, sum)?;
    let q_negative = e.cmp(Lt, q, zero)?;
    let s_fractional = e.un(UnaryOp::Not, s_whole)?;
    let undefined = e.and(q_negative, s_fractional)?;
    let below_one = e.cmp(Lt, s, one)?;
    let undefined = e.bin(BinaryOp::Or, undefined, below_one)?;
    let aq = e.un(UnaryOp::Abs, q)?;
    let q_inf = e.cmp(Eq, aq, inf)?;
    let s_inf = e.cmp(Eq, s, inf)?;
    let infinite = e.bin(BinaryOp::Or, q_inf, s_inf)?;
    let undefined = e.bin(BinaryOp::Or, undefined, infinite)?;
    let r = e.select(undefined, nan, r)?;
    let s_one = e.cmp(Eq, s, one)?;
    e.select(s_one, inf, r)
}

/// `ψ⁽ⁿ⁾(x)`: [`digamma`] for `n = 0`, `(-1)^(n+1) n! ζ(n + 1, x)` for whole `n > 0`, NaN
/// for any other `n`, as XLA computes it. JAX's `lax.polygamma`.
fn polygamma(e: &mut Emit<'_>, n: ValueId, x: ValueId) -> Result<Last, IrError> {
    e.in_f32_2(n, x, |e, n, x| {
        use ComparisonDirection::{Eq, Lt};
        let psi = digamma_value(e, x)?;
        let one = e.c(x, 1.0);
        let n1 = e.add(n, one)?;
        let lf = lgamma_value(e, n1)?;
        let fact = e.un(UnaryOp::Exponential, lf)?;
        let z = zeta_value(e, n1, x)?;
        let odd = e.is_odd(n)?;
        let minus = e.c(x, -1.0);
        let sign = e.select(odd, one, minus)?;
        let r = e.mul(sign, fact)?;
        let r = e.mul(r, z)?;
        let zero = e.c(x, 0.0);
        let n0 = e.cmp(Eq, n, zero)?;
        let r = e.select(n0, psi, r)?;
        let whole = e.is_whole(n)?;
        let negative = e.cmp(Lt, n, zero)?;
        let fractional = e.un(UnaryOp::Not, whole)?;
        let bad = e.bin(BinaryOp::Or, negative, fractional)?;
        let nan = e.c(x, f64::NAN);
        e.select(bad, nan, r)
    })
}

/// Chebyshev coefficients of `i1e(z) / z` in `y = z / 4 - 1` for `0 <= z <= 8`: fitted to
/// SciPy's `i1e` by interpolation at Chebyshev points (26 terms give 4e-14 relative; f32
/// reads the first 19, the rest being below 1e-9 of the first).
const I1E_NEAR: [f64; 25] = [
    0.1262935932218168,
    -0.176416518357834,
    0.10264365868984705,
    -0.05294598120809493,
    0.024726449030626454,
    -0.010564084894626133,
    0.004156422944312806,
    -0.0015135724506311458,
    0.0005122859561684287,
    -0.00016176081582570319,
    4.7815651075264484e-05,
    -1.3273163655775392e-05,
    3.4702513078298866e-06,
    -8.568720261505737e-07,
    2.0032947497389264e-07,
    -4.4450590879393147e-08,
    9.381536900984241e-09,
    -1.8872492991919432e-09,
    3.625585494833954e-10,
    -6.663447137816858e-11,
    1.1735773232842325e-11,
    -1.983614789914091e-12,
    3.2203046813534726e-13,
    -5.0110507307418625e-14,
    7.312116447312756e-15,
];

/// Chebyshev coefficients of `i1e(z) sqrt(z)` in `u = 16 / z - 1` for `z >= 8` (`u = -1`
/// is `z = inf`, where it tends to `1 / sqrt(2 pi)`): fitted as [`I1E_NEAR`] (2e-14
/// relative; f32 reads the first 8).
const I1E_FAR: [f64; 17] = [
    0.38928811750914005,
    -0.009761097491361444,
    -0.00011058893876267383,
    -3.882564808857325e-06,
    -2.512236238801817e-07,
    -2.631468846700835e-08,
    -3.8353806476488e-09,
    -5.589743347504881e-10,
    -1.897544339374221e-11,
    3.252604358921243e-11,
    1.4125223523410484e-11,
    2.0356394862548978e-12,
    -7.205896976058072e-13,
    -4.0828895938495825e-13,
    -2.2320082485701345e-14,
    4.241142309335584e-14,
    1.1278624283223592e-14,
];

/// `exp(-|x|) I1(x)`, the exponentially scaled modified Bessel function of order one (an
/// odd function): `x g(|x| / 4 - 1)` for `|x| <= 8` and `sign(x) h(16 / |x| - 1) /
/// sqrt(|x|)` beyond, `g` and `h` the Chebyshev series above (the split Cephes' `i1e`
/// makes). `i1e(±inf) = ±0`; NaN stays NaN.
fn bessel_i1e(e: &mut Emit<'_>, x: ValueId) -> Result<Last, IrError> {
    let wide = e.b.ty(x).dtype == DType::F64;
    let (near, far) = if wide {
        (&I1E_NEAR[..], &I1E_FAR[..])
    } else {
        (&I1E_NEAR[..19], &I1E_FAR[..8])
    };
    e.in_f32(x, |e, x| {
        use ComparisonDirection::{Le, Lt};
        let z = e.un(UnaryOp::Abs, x)?;
        let eight = e.c(x, 8.0);
        let zn = e.bin(BinaryOp::Minimum, z, eight)?;
        let quarter = e.c(x, 0.25);
        let one = e.c(x, 1.0);
        let y = e.mul(zn, quarter)?;
        let y = e.sub(y, one)?;
        let g = e.chebyshev(y, near)?;
        let small = e.mul(x, g)?;
        let zf = e.bin(BinaryOp::Maximum, z, eight)?;
        let sixteen = e.c(x, 16.0);
        let u = e.div(sixteen, zf)?;
        let u = e.sub(u, one)?;
        let h = e.chebyshev(u, far)?;
        let root = e.un(UnaryOp::Sqrt, zf)?;
        let large = e.div(h, root)?;
        let zero = e.c(x, 0.0);
        let negative = e.cmp(Lt, x, zero)?;
        let minus = e.un(UnaryOp::Negate, large)?;
        let large = e.select(negative, minus, large)?;
        let inside = e.cmp(Le, z, eight)?;
        e.select(inside, small, large)
    })
}
