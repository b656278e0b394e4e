//! Complex numbers, read as pairs of floats at the door: a `complex<f32>` tensor of shape
//! `[d...]` is an `f32` tensor of shape `[d..., 2]` holding (real, imaginary) innermost,
//! the layout of complex numbers in memory. The rest of shardc sees floats only.
//!
//! Ops that move or add elements work on pairs as they are (`add`, `negate`, `reshape`,
//! `concatenate`, `while`, calls); ops with per-dimension attributes get one more
//! dimension (`broadcast_in_dim`, `transpose`, `slice`, `dynamic_slice`); the others are
//! decomposed into float ops on the real and imaginary parts, which [`DECOMPOSITIONS`]
//! lists (`multiply`, `dot_general`, `abs`, `exponential`, ...). `stablehlo.fft` is
//! `shardc.fft` on pairs. Each op of a decomposition carries `shardc.from`, as `chlo`'s do.
//! An op on complex values that is not read gets an error naming it and the ops that are.

use super::lexer::Tok;
use super::parse::{FuncState, PResult, Parsed, Parser, Use};
use crate::dtype::{DType, TensorType};
use crate::error::IrError;
use crate::literal::{Literal, Scalar};
use crate::module::{ValueAttrs, ValueId};
use crate::op::{BinaryOp, ComparisonDirection, DotDims, OpKind, UnaryOp};
use crate::sharding::{DimSharding, Sharding};

const FROM: &str = "shardc.from";

/// The ops that take complex values apart or make them, read by [`parse_part`].
pub(super) const PARTS: &[&str] = &["stablehlo.real", "stablehlo.imag", "stablehlo.complex"];

/// The element-wise ops on complex values that are decomposed into float ops, with their
/// decompositions.
const DECOMPOSITIONS: &[(&str, Decompose)] = &[
    ("multiply", Decompose::Binary(multiply)),
    ("divide", Decompose::Binary(divide)),
    ("power", Decompose::Binary(power)),
    (
        "exponential_minus_one",
        Decompose::Unary(exponential_minus_one),
    ),
    ("log_plus_one", Decompose::Unary(log_plus_one)),
    ("rsqrt", Decompose::Unary(rsqrt)),
    ("tanh", Decompose::Unary(tanh)),
    ("tan", Decompose::Unary(tan)),
    ("abs", Decompose::Unary(abs)),
    ("exponential", Decompose::Unary(exponential)),
    ("log", Decompose::Unary(log)),
    ("sqrt", Decompose::Unary(sqrt)),
    ("sign", Decompose::Unary(sign)),
    ("cosine", Decompose::Unary(cosine)),
    ("sine", Decompose::Unary(sine)),
];

/// Ops that take complex values as pairs unchanged.
const AS_PAIRS: &str = "add, subtract, negate, reshape, reverse, concatenate, select, while, case, func.call, optimization_barrier, constant, sharding constraints";

/// Ops whose attributes gain the pair dimension.
const WIDENED: &str = "broadcast_in_dim, transpose, slice, dynamic_slice, dynamic_update_slice, gather, scatter and reduce (of one complex input), reduce_window (sums), pad, dot_general, compare (EQ, NE), convert, fft, real, imag, complex";

#[derive(Copy, Clone)]
enum Decompose {
    Unary(fn(&mut Emit<'_>, ValueId) -> Result<ValueId, IrError>),
    Binary(fn(&mut Emit<'_>, ValueId, ValueId) -> Result<ValueId, IrError>),
}

/// The supported ops on complex values, for messages.
fn supported() -> String {
    let decomposed: Vec<&str> = DECOMPOSITIONS.iter().map(|(n, _)| *n).collect();
    format!(
        "shardc reads complex values as pairs of floats in these ops: {AS_PAIRS}, {WIDENED}, {}",
        decomposed.join(", ")
    )
}

/// The sharding of a complex value, written for its `rank` complex dimensions, with the
/// pair dimension added (replicated, closed).
pub(super) fn widen_sharding(s: &mut Sharding) {
    s.dims.push(DimSharding::axes(&[]));
}

/// [`widen_sharding`] of a complex value's attributes (`ty`: its type as pairs); an error
/// (from where the sharding was written) if the sharding does not have one dimension per
/// complex dimension.
pub(super) fn widen_attrs(
    p: &Parser<'_>,
    attrs: &mut ValueAttrs,
    at: Option<usize>,
    ty: &TensorType,
    what: &str,
) -> PResult<()> {
    let Some(s) = &mut attrs.sharding else {
        return Ok(());
    };
    let rank = ty.rank() - 1;
    if s.dims.len() != rank {
        return p.err_at(
            at.unwrap_or(p.prev_end),
            format!(
                "the sharding of {what} has {} dimension(s) but the complex tensor has rank {rank}; give one `{{...}}` per dimension",
                s.dims.len()
            ),
        );
    }
    widen_sharding(s);
    Ok(())
}

/// `stablehlo.real`, `stablehlo.imag`, `stablehlo.complex`: the parts of complex values,
/// or complex values of two parts. Gives the value for the parser to name.
pub(super) fn parse_part(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    offset: usize,
    generic: bool,
) -> PResult<ValueId> {
    let xs: Vec<Use> = if generic {
        p.operand_parens(f)?
    } else {
        p.operand_list(f)?
    };
    if p.is(&Tok::LBrace) {
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let mark = p.complex.len();
    let (ins, outs) = if p.is(&Tok::LParen) {
        p.function_type("(the op's type)")?
    } else {
        // `stablehlo.complex %re, %im : t` writes the result's type only.
        let t = p.tensor_type("after ':'")?;
        if p.eat(Tok::Arrow)? {
            (vec![t], vec![p.tensor_type("after '->'")?])
        } else {
            (xs.iter().map(|u| f.b.ty(u.id).clone()).collect(), vec![t])
        }
    };
    let written_complex = p.complex[mark..].to_vec();
    let from = format!("\"{name}\"");
    let is_complex = |u: &Use| f.complex.contains(&u.id);
    let short = &name["stablehlo.".len()..];
    let arity = if short == "complex" { 2 } else { 1 };
    if xs.len() != arity {
        return p.err_at(
            offset,
            format!(
                "{name} takes {arity} operand(s), but {} were given",
                xs.len()
            ),
        );
    }
    let result = if short == "complex" {
        let (re, im) = (&xs[0], &xs[1]);
        if is_complex(re) || is_complex(im) || f.b.ty(re.id) != f.b.ty(im.id) {
            return p.err_at(
                re.offset,
                format!(
                    "{name} takes two float tensors of one type (the real and imaginary parts), but {} is {}{} and {} is {}{}",
                    re.name,
                    f.b.ty(re.id),
                    if is_complex(re) { " (complex)" } else { "" },
                    im.name,
                    f.b.ty(im.id),
                    if is_complex(im) { " (complex)" } else { "" },
                ),
            );
        }
        let mut e = Emit::new(f, from);
        e.pair(re.id, im.id)
    } else {
        let x = &xs[0];
        if !is_complex(x) {
            return p.err_at(
                x.offset,
                format!(
                    "{name} takes a complex tensor, but {} is {}",
                    x.name,
                    f.b.ty(x.id)
                ),
            );
        }
        let mut e = Emit::new(f, from);
        e.part(x.id, usize::from(short == "imag"))
    }
    .map_err(|err| p.error_at(offset, err.to_string()))?;
    let got = f.b.ty(result).clone();
    let ok_ins = ins.iter().zip(&xs).all(|(t, u)| t == f.b.ty(u.id));
    let want_complex = short == "complex";
    if !ok_ins || outs != [got.clone()] || written_complex.last() != Some(&want_complex) {
        return p.err_at(
            offset,
            format!(
                "{name}'s type signature does not match its operands: it gives {}",
                if want_complex {
                    format!("complex values of {got} as pairs")
                } else {
                    format!("{got}")
                }
            ),
        );
    }
    if want_complex {
        f.complex.insert(result);
    }
    Ok(result)
}

/// Before a reduction's region is read (`reduce`, `reduce_window`: `n` inputs, then their
/// inits): a complex input's init that is a constant of equal parts (a sum's `(0, 0)`)
/// becomes a float scalar of that value, so the reduction runs over the pairs' elements
/// with it. Emitted before the region, so the ops come in the order the printed program
/// reads them back.
pub(super) fn real_inits(f: &mut FuncState, operands: &mut [Use], n: usize) {
    if operands.len() != 2 * n {
        return;
    }
    for k in 0..n {
        let (x, init) = (operands[k].id, operands[n + k].id);
        if !(f.complex.contains(&x) && f.complex.contains(&init)) {
            continue;
        }
        let at = operands[n + k].offset;
        let mut e = Emit::new(f, "\"complex init\"".to_string());
        if let Some(real) = e.equal_part(init) {
            operands[n + k] = e.use_of(real, at);
        }
    }
}

/// The reducer of the short form of `reduce` (`applies stablehlo.multiply`) on complex
/// scalars: `(a, b) -> op(a, b)` on pairs of `dtype`, decomposed as any op on pairs is.
pub(super) fn pair_reducer(
    f: &mut FuncState,
    op: BinaryOp,
    dtype: DType,
) -> Result<crate::module::BlockId, String> {
    let pair = TensorType::new(dtype, vec![2]);
    let args = f.b.begin_block(&[pair.clone(), pair]);
    f.complex.extend(args.iter().copied());
    let mut e = Emit::new(f, format!("\"stablehlo.{}\"", op.name()));
    let r = match (op, decomposition(op.name())) {
        (BinaryOp::Add | BinaryOp::Subtract, _) => {
            e.bin(op, args[0], args[1]).map_err(|e| e.to_string())
        }
        (_, Some(Decompose::Binary(d))) => d(&mut e, args[0], args[1]).map_err(|e| e.to_string()),
        _ => Err(format!(
            "stablehlo.reduce applies stablehlo.{} to complex values, which have no order; reduce their real and imaginary parts (or magnitudes) instead",
            op.name()
        )),
    };
    match r {
        Ok(r) => {
            f.complex.insert(r);
            Ok(f.b.end_block(&[r]))
        }
        Err(err) => {
            f.b.end_block(&[]);
            Err(err)
        }
    }
}

/// Whether an op read as `parsed` involves complex values: one of its operands is, or one
/// of the types it wrote (`read`) was.
pub(super) fn involved(f: &FuncState, parsed: &Parsed, read: &[bool]) -> bool {
    read.contains(&true) || parsed.operands.iter().any(|u| f.complex.contains(&u.id))
}

/// Rewrites an op on complex values into ops on pairs: emits what comes before its last op,
/// and gives the last op for the parser to add, with which of its results are complex.
/// `read` holds, for each tensor type the op's text wrote, whether it was complex.
pub(super) fn lower(
    p: &Parser<'_>,
    f: &mut FuncState,
    mut parsed: Parsed,
    offset: usize,
    read: &[bool],
) -> PResult<(Parsed, Vec<bool>)> {
    let name = parsed.kind.name();
    let cx: Vec<bool> = parsed
        .operands
        .iter()
        .map(|u| f.complex.contains(&u.id))
        .collect();
    let n = parsed.result_types.len();
    let written = |read: &[bool]| -> Vec<bool> {
        let tail = &read[read.len().saturating_sub(n)..];
        let mut v = vec![false; n - tail.len()];
        v.extend_from_slice(tail);
        v
    };
    let any = cx.contains(&true);
    let data = match parsed.kind {
        OpKind::Select | OpKind::Clamp => 1,
        _ => 0,
    };
    let follows = |i: usize| -> bool {
        if n > 1 {
            cx.get(i).copied().unwrap_or(false)
        } else {
            cx.get(data).copied().unwrap_or(false)
        }
    };
    let results: Vec<bool> = match &parsed.kind {
        OpKind::Constant(_)
        | OpKind::Convert
        | OpKind::BitcastConvert
        | OpKind::Call { .. }
        | OpKind::Case
        | OpKind::Iota { .. } => written(read),
        OpKind::Fft { fft_type, .. } => vec![*fft_type != crate::op::FftType::Irfft],
        OpKind::Compare { .. } | OpKind::Unary(UnaryOp::Abs) => vec![false; n],
        _ => (0..n).map(follows).collect(),
    };
    let refuse = |what: &str| -> PResult<(Parsed, Vec<bool>)> {
        p.err_at(
            offset,
            format!(
                "{name} {what}; {}. Compute it on the real and imaginary parts (`x.real`, `x.imag`), or keep it outside the jitted step",
                supported()
            ),
        )
    };
    // An op given the wrong number of operands or results, or a signature whose operand
    // types do not match its operands one for one, is left as written, for its typing
    // rule to name what is wrong.
    let arity = match parsed.kind {
        OpKind::Select => Some(3),
        OpKind::Pad { .. }
        | OpKind::Compare { .. }
        | OpKind::DotGeneral(_)
        | OpKind::Binary(_)
        | OpKind::Gather(_) => Some(2),
        OpKind::Unary(_) | OpKind::Convert => Some(1),
        _ => None,
    };
    let rank_ok = |t: &TensorType| t.rank() > 0;
    if arity.is_some_and(|a| cx.len() != a)
        || parsed.operand_types.len() != cx.len()
        || (matches!(parsed.kind, OpKind::DynamicUpdateSlice) && cx.len() < 2)
        || (matches!(parsed.kind, OpKind::DynamicSlice { .. }) && cx.is_empty())
        || (matches!(parsed.kind, OpKind::Convert | OpKind::BroadcastInDim { .. })
            && !parsed.result_types.first().is_some_and(rank_ok))
        || n == 0
            && !matches!(
                parsed.kind,
                OpKind::OptimizationBarrier | OpKind::Call { .. }
            )
    {
        return Ok((parsed, results));
    }
    let from = format!("\"{name}\"");
    let mut e = Emit::new(f, from.clone());
    let ids: Vec<ValueId> = parsed.operands.iter().map(|u| u.id).collect();
    let last: Option<ValueId> = match parsed.kind.clone() {
        // As pairs: the layout is kept.
        OpKind::Binary(BinaryOp::Add | BinaryOp::Subtract)
        | OpKind::Unary(UnaryOp::Negate)
        | OpKind::Reshape
        | OpKind::Reverse { .. }
        | OpKind::Concatenate { .. }
        | OpKind::While
        | OpKind::Case
        | OpKind::Call { .. }
        | OpKind::OptimizationBarrier
        | OpKind::Constant(_)
        | OpKind::Fft { .. } => None,
        OpKind::ShardingConstraint(mut s) => {
            if results.first() == Some(&true) {
                widen_sharding(&mut s);
            }
            parsed.kind = OpKind::ShardingConstraint(s);
            None
        }
        OpKind::Select if cx[1] => {
            let pred = ids[0];
            let rank = e.b().ty(ids[1]).rank();
            if e.b().ty(pred).rank() > 0 {
                let ty = TensorType::new(DType::I1, e.b().ty(ids[1]).shape.clone());
                let wide = e
                    .push_typed(
                        OpKind::BroadcastInDim {
                            dims: (0..rank - 1).collect(),
                        },
                        &[pred],
                        ty,
                    )
                    .map_err(|err| p.error_at(offset, err.to_string()))?;
                Some(
                    e.push(OpKind::Select, &[wide, ids[1], ids[2]])
                        .map_err(|err| p.error_at(offset, err.to_string()))?,
                )
            } else {
                None
            }
        }
        OpKind::BroadcastInDim { mut dims } if any => {
            dims.push(parsed.result_types[0].rank() - 1);
            parsed.kind = OpKind::BroadcastInDim { dims };
            None
        }
        OpKind::Transpose { mut permutation } if any => {
            permutation.push(permutation.len());
            parsed.kind = OpKind::Transpose { permutation };
            None
        }
        OpKind::Slice {
            mut start,
            mut limit,
            mut strides,
        } if any => {
            start.push(0);
            limit.push(2);
            strides.push(1);
            parsed.kind = OpKind::Slice {
                start,
                limit,
                strides,
            };
            None
        }
        OpKind::DynamicSlice { mut sizes } if any => {
            sizes.push(2);
            parsed.kind = OpKind::DynamicSlice { sizes };
            let zero = e.index_zero(ids.get(1).copied());
            parsed.operands.push(e.use_of(zero, offset));
            parsed.operand_types.push(e.b().ty(zero).clone());
            None
        }
        OpKind::DynamicUpdateSlice if any => {
            if !(cx[0] && cx[1]) {
                return refuse("updates complex values with real ones here");
            }
            let zero = e.index_zero(ids.get(2).copied());
            parsed.operands.push(e.use_of(zero, offset));
            parsed.operand_types.push(e.b().ty(zero).clone());
            None
        }
        OpKind::Pad {
            low,
            high,
            interior,
        } if any => Some(
            e.pad(ids[0], ids[1], low, high, interior)
                .map_err(|err| p.error_at(offset, err.to_string()))?,
        ),
        OpKind::Convert => {
            let out = &parsed.result_types[0];
            match (cx[0], results[0]) {
                (true, true) => None,
                (false, true) => {
                    let real = TensorType::new(out.dtype, out.shape[..out.rank() - 1].to_vec());
                    Some(
                        e.real_to_complex(ids[0], real)
                            .map_err(|err| p.error_at(offset, err.to_string()))?,
                    )
                }
                (true, false) => {
                    let re = e
                        .part(ids[0], 0)
                        .map_err(|err| p.error_at(offset, err.to_string()))?;
                    Some(
                        e.push_typed(OpKind::Convert, &[re], out.clone())
                            .map_err(|err| p.error_at(offset, err.to_string()))?,
                    )
                }
                (false, false) => None,
            }
        }
        OpKind::Compare { direction, .. } if any => {
            let and = match direction {
                ComparisonDirection::Eq => true,
                ComparisonDirection::Ne => false,
                _ => return refuse("compares complex values by order, which they have not"),
            };
            Some(
                e.compare_pairs(ids[0], ids[1], direction, and)
                    .map_err(|err| p.error_at(offset, err.to_string()))?,
            )
        }
        OpKind::DotGeneral(dims) if any => Some(
            e.dot(ids[0], ids[1], cx[0], cx[1], dims)
                .map_err(|err| p.error_at(offset, err.to_string()))?,
        ),
        OpKind::Gather(mut dims) if cx[0] && !cx[1] => {
            dims.offset_dims.push(parsed.result_types[0].rank() - 1);
            dims.slice_sizes.push(2);
            parsed.kind = OpKind::Gather(dims);
            None
        }
        OpKind::Scatter(mut dims)
            if cx == [true, false, true]
                && parsed.regions.len() == 1
                && e.pairwise_region(parsed.regions[0]) =>
        {
            dims.update_window_dims.push(e.b().ty(ids[2]).rank() - 1);
            parsed.kind = OpKind::Scatter(dims);
            None
        }
        OpKind::ReduceWindow(mut w)
            if cx == [true, false]
                && parsed.regions.len() == 1
                && e.pairwise_region(parsed.regions[0]) =>
        {
            w.window.push(1);
            w.strides.push(1);
            w.base_dilations.push(1);
            w.window_dilations.push(1);
            w.padding.push((0, 0));
            parsed.kind = OpKind::ReduceWindow(w);
            parsed.operand_types[1] = e.b().ty(ids[1]).clone();
            None
        }
        OpKind::Reduce { .. } if cx.len() == 2 && cx[0] && !cx[1] => {
            // The init was read as a float (`real_inits`): a sum over the pairs' elements.
            let sums = cx.len() == 2
                && cx[0]
                && parsed.regions.len() == 1
                && (e.is_scalar_add(parsed.regions[0])
                    || (e.pairwise_region(parsed.regions[0])
                        && e.is_scalar_add(parsed.regions[0])));
            if !sums {
                return refuse("reduces complex values with a float init other than by a sum");
            }
            parsed.operand_types[1] = e.b().ty(ids[1]).clone();
            None
        }
        OpKind::ReduceWindow(_) if any => {
            return refuse(
                "of complex values is read for sums from (0, 0) only (`cumsum`, not `cumprod`)",
            );
        }
        OpKind::Reduce { .. } | OpKind::Scatter(_) if any => {
            let one_input = match parsed.kind {
                OpKind::Scatter(_) => cx == [true, false, true],
                _ => cx == [true, true],
            };
            if !one_input || parsed.regions.len() != 1 {
                return refuse(
                    "of complex values is read for one complex input (with a complex init or update) only",
                );
            }
            Some(
                e.split_region_op(parsed.kind.clone(), &ids, &cx, parsed.regions[0])
                    .map_err(|err| p.error_at(offset, err.to_string()))?,
            )
        }
        OpKind::Unary(u) if any => {
            let Some(Decompose::Unary(d)) = decomposition(u.name()) else {
                return refuse("of complex values is not read");
            };
            Some(d(&mut e, ids[0]).map_err(|err| p.error_at(offset, err.to_string()))?)
        }
        OpKind::Binary(b) if any => {
            let Some(Decompose::Binary(d)) = decomposition(b.name()) else {
                return refuse("of complex values is not read");
            };
            if !(cx[0] && cx[1]) {
                return refuse("mixes complex and real operands");
            }
            Some(d(&mut e, ids[0], ids[1]).map_err(|err| p.error_at(offset, err.to_string()))?)
        }
        _ if any || results.contains(&true) => {
            return refuse("of complex values is not read");
        }
        _ => None,
    };
    if let Some((_, shardings)) = &mut parsed.shardings {
        for (s, &c) in shardings.iter_mut().zip(&results) {
            if c {
                widen_sharding(s);
            }
        }
    }
    let Some(last) = last else {
        return Ok((parsed, results));
    };
    // The decomposition's last op is added again by the parser, under the op's names.
    let op = e
        .b()
        .func()
        .defining_op(last)
        .and_then(|op| e.b().take_last_op(op))
        .ok_or_else(|| {
            p.error_at(
                offset,
                format!("{name}: the decomposition did not end in one op"),
            )
        })?;
    let operand_types = op.operands.iter().map(|&v| e.b().ty(v).clone()).collect();
    let uses = op.operands.iter().map(|&v| e.use_of(v, offset)).collect();
    let mut out = Parsed::new(op.kind, uses, (operand_types, parsed.result_types.clone()));
    out.regions = op.regions;
    out.shardings = parsed.shardings;
    out.attrs = parsed.attrs;
    // A `chlo` op read as this one keeps its own name.
    if !out.attrs.iter().any(|(k, _)| k == FROM) {
        out.attrs.push((FROM.to_string(), from));
    }
    Ok((out, results))
}

fn decomposition(name: &str) -> Option<Decompose> {
    DECOMPOSITIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| *d)
}

/// Adds the ops of a decomposition, each marked with where it came from.
struct Emit<'a> {
    f: &'a mut FuncState,
    from: String,
}

type R = Result<ValueId, IrError>;

impl<'a> Emit<'a> {
    fn new(f: &'a mut FuncState, from: String) -> Emit<'a> {
        Emit { f, from }
    }

    fn b(&mut self) -> &mut crate::builder::FunctionBuilder {
        &mut self.f.b
    }

    fn use_of(&self, id: ValueId, offset: usize) -> Use {
        Use {
            id,
            offset,
            name: format!("(a value of the decomposition of {})", self.from),
        }
    }

    fn mark(&mut self, v: ValueId) -> ValueId {
        if let Some(op) = self.f.b.func().defining_op(v) {
            self.f
                .b
                .op_mut(op)
                .attrs
                .push((FROM.to_string(), self.from.clone()));
        }
        v
    }

    fn push(&mut self, kind: OpKind, xs: &[ValueId]) -> R {
        let v = self.f.b.push1(kind, xs)?;
        Ok(self.mark(v))
    }

    fn push_typed(&mut self, kind: OpKind, xs: &[ValueId], ty: TensorType) -> R {
        let v = self.f.b.push1_typed(kind, xs, ty)?;
        Ok(self.mark(v))
    }

    fn bin(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> R {
        self.push(OpKind::Binary(op), &[x, y])
    }

    fn un(&mut self, op: UnaryOp, x: ValueId) -> R {
        self.push(OpKind::Unary(op), &[x])
    }

    fn compare(&mut self, direction: ComparisonDirection, x: ValueId, y: ValueId) -> R {
        self.push(
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            &[x, y],
        )
    }

    /// `m` (a magnitude) with its zeros made ones: a divisor for what is 0 where it is.
    fn divisor(&mut self, m: ValueId) -> R {
        let zero = self.splat(m, 0.0);
        let one = self.splat(m, 1.0);
        let is_zero = self.compare(ComparisonDirection::Eq, m, zero)?;
        self.push(OpKind::Select, &[is_zero, one, m])
    }

    /// A splat of `value` typed as `like`.
    fn splat(&mut self, like: ValueId, value: f64) -> ValueId {
        let ty = self.f.b.ty(like).clone();
        let v = self.f.b.constant(Literal::splat(ty, Scalar::Float(value)));
        self.mark(v)
    }

    /// A zero start index, of the type of `like` (another start index) or i32.
    fn index_zero(&mut self, like: Option<ValueId>) -> ValueId {
        let dtype = like.map_or(DType::I32, |v| self.f.b.ty(v).dtype);
        let v = self.f.b.constant(Literal::scalar(dtype, Scalar::Int(0)));
        self.mark(v)
    }

    /// The real (`k = 0`) or imaginary (`k = 1`) part of complex values as pairs.
    fn part(&mut self, z: ValueId, k: usize) -> R {
        let ty = self.f.b.ty(z).clone();
        let r = ty.rank();
        let mut start = vec![0; r];
        let mut limit = ty.shape.clone();
        start[r - 1] = k;
        limit[r - 1] = k + 1;
        let s = self.push(
            OpKind::Slice {
                start,
                limit,
                strides: vec![1; r],
            },
            &[z],
        )?;
        let flat = TensorType::new(ty.dtype, ty.shape[..r - 1].to_vec());
        self.push_typed(OpKind::Reshape, &[s], flat)
    }

    /// Both parts of complex values as pairs.
    fn parts(&mut self, z: ValueId) -> Result<(ValueId, ValueId), IrError> {
        Ok((self.part(z, 0)?, self.part(z, 1)?))
    }

    /// Complex values as pairs of their two parts (of one type).
    fn pair(&mut self, re: ValueId, im: ValueId) -> R {
        let ty = self.f.b.ty(re).clone();
        let mut shape = ty.shape.clone();
        shape.push(1);
        let column = TensorType::new(ty.dtype, shape);
        let a = self.push_typed(OpKind::Reshape, &[re], column.clone())?;
        let b = self.push_typed(OpKind::Reshape, &[im], column)?;
        self.push(
            OpKind::Concatenate {
                dimension: ty.rank(),
            },
            &[a, b],
        )
    }

    /// Real values (any element type) as complex values of `real`'s float type.
    fn real_to_complex(&mut self, x: ValueId, real: TensorType) -> R {
        let re = self.push_typed(OpKind::Convert, &[x], real)?;
        let zero = self.splat(re, 0.0);
        self.pair(re, zero)
    }

    fn pad(
        &mut self,
        x: ValueId,
        value: ValueId,
        low: Vec<i64>,
        high: Vec<i64>,
        interior: Vec<i64>,
    ) -> R {
        let (xr, xi) = self.parts(x)?;
        let (vr, vi) = self.parts(value)?;
        let kind = OpKind::Pad {
            low,
            high,
            interior,
        };
        let re = self.push(kind.clone(), &[xr, vr])?;
        let im = self.push(kind, &[xi, vi])?;
        self.pair(re, im)
    }

    fn compare_pairs(
        &mut self,
        a: ValueId,
        b: ValueId,
        direction: ComparisonDirection,
        all: bool,
    ) -> R {
        let each = self.push(
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            &[a, b],
        )?;
        let (re, im) = self.parts(each)?;
        self.bin(if all { BinaryOp::And } else { BinaryOp::Or }, re, im)
    }

    /// `(a + bi)(c + di) = (ac - bd) + (ad + bc)i`, with a real operand as `b = 0`.
    fn dot(&mut self, x: ValueId, y: ValueId, cx: bool, cy: bool, dims: DotDims) -> R {
        let dot = |e: &mut Self, a, b| e.push(OpKind::DotGeneral(dims.clone()), &[a, b]);
        match (cx, cy) {
            (true, true) => {
                let (a, b) = self.parts(x)?;
                let (c, d) = self.parts(y)?;
                let ac = dot(self, a, c)?;
                let bd = dot(self, b, d)?;
                let ad = dot(self, a, d)?;
                let bc = dot(self, b, c)?;
                let re = self.bin(BinaryOp::Subtract, ac, bd)?;
                let im = self.bin(BinaryOp::Add, ad, bc)?;
                self.pair(re, im)
            }
            (true, false) => {
                let (a, b) = self.parts(x)?;
                let re = dot(self, a, y)?;
                let im = dot(self, b, y)?;
                self.pair(re, im)
            }
            _ => {
                let (c, d) = self.parts(y)?;
                let re = dot(self, x, c)?;
                let im = dot(self, x, d)?;
                self.pair(re, im)
            }
        }
    }

    /// Whether a reducer is `add` of its two scalar arguments.
    fn is_scalar_add(&self, region: crate::module::BlockId) -> bool {
        let func = self.f.b.func();
        let block = func.block(region);
        let [op] = block.ops.as_slice() else {
            return false;
        };
        let op = func.op(*op);
        op.kind == OpKind::Binary(BinaryOp::Add)
            && op.operands == block.args
            && block.results == op.results
            && block.args.iter().all(|&a| func.ty(a).rank() == 0)
    }

    /// The two parts of a constant complex scalar (through the broadcasts and reshapes of
    /// one that JAX writes), or `None`.
    fn constant_parts(&self, z: ValueId) -> Option<[f64; 2]> {
        let func = self.f.b.func();
        let mut v = z;
        loop {
            let op = func.op(func.defining_op(v)?);
            match &op.kind {
                OpKind::Constant(lit) => {
                    let parts = lit.to_dense().elements.to_f64_vec();
                    return <[f64; 2]>::try_from(parts).ok();
                }
                OpKind::BroadcastInDim { .. } | OpKind::Reshape
                    if func.ty(op.operands[0]).num_elements() == 2 =>
                {
                    v = op.operands[0];
                }
                _ => return None,
            }
        }
    }

    /// A constant complex scalar's real part as a float scalar constant, if its two parts
    /// are equal (as a sum's `(0, 0)`): what a pairwise window pads with.
    fn equal_part(&mut self, z: ValueId) -> Option<ValueId> {
        let [re, im] = self.constant_parts(z)?;
        if re.to_bits() != im.to_bits() {
            return None;
        }
        let dtype = self.f.b.ty(z).dtype;
        let v = self.f.b.constant(Literal::scalar(dtype, Scalar::Float(re)));
        Some(self.mark(v))
    }

    /// A region op on complex values whose region computes on complex scalars (pairs),
    /// rebuilt on the parts: each complex operand becomes its real and imaginary parts in
    /// its place, and the region takes and gives two float scalars in place of each
    /// complex one, around a copy of the region on pairs. Gives the result as pairs.
    fn split_region_op(
        &mut self,
        kind: OpKind,
        operands: &[ValueId],
        complex: &[bool],
        region: crate::module::BlockId,
    ) -> R {
        let name = kind.name();
        let invalid = |rule: &str| IrError::InvalidOp {
            at: String::new(),
            op: name.clone(),
            rule: rule.to_string(),
            fix: "compute it on the real and imaginary parts".to_string(),
        };
        let src = self.f.b.func().clone();
        let block = src.block(region).clone();
        let args_complex: Vec<bool> = block
            .args
            .iter()
            .map(|v| self.f.complex.contains(v))
            .collect();
        let results_complex: Vec<bool> = block
            .results
            .iter()
            .map(|v| self.f.complex.contains(v))
            .collect();
        let mut inside: std::collections::HashSet<ValueId> = block.args.iter().copied().collect();
        for &op in &block.ops {
            let op = src.op(op);
            if !op.operands.iter().all(|v| inside.contains(v)) {
                return Err(invalid("its region reads values from outside it"));
            }
            inside.extend(op.results.iter().copied());
        }
        if !block.results.iter().all(|v| inside.contains(v)) {
            return Err(invalid("its region returns values from outside it"));
        }
        if !self.f.b.take_last_region(region) {
            return Err(invalid(
                "its region reads values from outside it or holds regions",
            ));
        }
        // The region's value ids are given out again.
        let first = self.f.b.func().values.len();
        self.f.complex.retain(|v| v.index() < first);
        let mut split = Vec::new();
        for (&x, &c) in operands.iter().zip(complex) {
            if c {
                let (re, im) = self.parts(x)?;
                split.extend([re, im]);
            } else {
                split.push(x);
            }
        }
        let mut types = Vec::new();
        for (&a, &c) in block.args.iter().zip(&args_complex) {
            let ty = src.ty(a);
            if c {
                let part = TensorType::new(ty.dtype, ty.shape[..ty.rank() - 1].to_vec());
                types.extend([part.clone(), part]);
            } else {
                types.push(ty.clone());
            }
        }
        let args = self.f.b.begin_block(&types);
        let body = |e: &mut Self| -> Result<Vec<ValueId>, IrError> {
            let mut map = std::collections::HashMap::new();
            let mut next = args.iter().copied();
            for (&old, &c) in block.args.iter().zip(&args_complex) {
                let v = match (next.next(), c) {
                    (Some(re), true) => {
                        let im = next
                            .next()
                            .ok_or_else(|| invalid("a region argument is missing"))?;
                        e.pair(re, im)?
                    }
                    (Some(v), false) => v,
                    (None, _) => return Err(invalid("a region argument is missing")),
                };
                map.insert(old, v);
            }
            for &op in &block.ops {
                e.f.b.copy_op(&src, src.op(op), &mut map)?;
            }
            let mut out = Vec::new();
            for (r, &c) in block.results.iter().zip(&results_complex) {
                let v = map[r];
                if c {
                    let (re, im) = e.parts(v)?;
                    out.extend([re, im]);
                } else {
                    out.push(v);
                }
            }
            Ok(out)
        };
        let region = match body(self) {
            Ok(out) => self.f.b.end_block(&out),
            Err(err) => {
                self.f.b.end_block(&[]);
                return Err(err);
            }
        };
        let op = self.f.b.push(kind, &split, None, vec![region])?;
        let results = self.f.b.func().op(op).results.clone();
        let [re, im] = results[..] else {
            return Err(invalid("it gives more than one complex result"));
        };
        self.mark(re);
        self.pair(re, im)
    }

    /// Whether a region on complex scalars (pairs) computes each part alike, by sums,
    /// differences or passing values through; if so, it is retyped to take and give the
    /// parts' scalars (as a reducer or an update computation on pairs' elements).
    fn pairwise_region(&mut self, region: crate::module::BlockId) -> bool {
        let func = self.f.b.func();
        let block = func.block(region);
        let pair = |v: ValueId| func.ty(v).shape == [2];
        let ops_ok = block.ops.iter().all(|&op| {
            let op = func.op(op);
            matches!(op.kind, OpKind::Binary(BinaryOp::Add | BinaryOp::Subtract))
                && op.results.iter().copied().all(pair)
        });
        if !ops_ok || !block.args.iter().copied().all(pair) {
            return false;
        }
        let mut values = block.args.clone();
        for &op in &block.ops {
            values.extend(func.op(op).results.iter().copied());
        }
        for v in values {
            let dtype = self.f.b.ty(v).dtype;
            self.f.b.retype(v, TensorType::scalar(dtype));
        }
        true
    }
}

// ----- decompositions of element-wise ops -----

fn multiply(e: &mut Emit<'_>, x: ValueId, y: ValueId) -> R {
    let (a, b) = e.parts(x)?;
    let (c, d) = e.parts(y)?;
    let ac = e.bin(BinaryOp::Multiply, a, c)?;
    let bd = e.bin(BinaryOp::Multiply, b, d)?;
    let ad = e.bin(BinaryOp::Multiply, a, d)?;
    let bc = e.bin(BinaryOp::Multiply, b, c)?;
    let re = e.bin(BinaryOp::Subtract, ac, bd)?;
    let im = e.bin(BinaryOp::Add, ad, bc)?;
    e.pair(re, im)
}

/// `(a + bi) / (c + di)` by Smith's algorithm (as XLA divides), which does not overflow
/// where `c² + d²` would: with `|c| >= |d|`, `r = d/c`, `t = c + d r`, the quotient is
/// `((a + b r) + (b - a r)i) / t`; otherwise the same with the parts' roles swapped.
fn divide(e: &mut Emit<'_>, x: ValueId, y: ValueId) -> R {
    let (a, b) = e.parts(x)?;
    let (c, d) = e.parts(y)?;
    let abs_c = e.un(UnaryOp::Abs, c)?;
    let abs_d = e.un(UnaryOp::Abs, d)?;
    let c_larger = e.compare(ComparisonDirection::Ge, abs_c, abs_d)?;
    // |c| >= |d|: r = d/c, t = c + d r, re = (a + b r)/t, im = (b - a r)/t.
    let r1 = e.bin(BinaryOp::Divide, d, c)?;
    let dr = e.bin(BinaryOp::Multiply, d, r1)?;
    let t1 = e.bin(BinaryOp::Add, c, dr)?;
    let br = e.bin(BinaryOp::Multiply, b, r1)?;
    let ar = e.bin(BinaryOp::Multiply, a, r1)?;
    let n1 = e.bin(BinaryOp::Add, a, br)?;
    let m1 = e.bin(BinaryOp::Subtract, b, ar)?;
    let re1 = e.bin(BinaryOp::Divide, n1, t1)?;
    let im1 = e.bin(BinaryOp::Divide, m1, t1)?;
    // |d| > |c|: r = c/d, t = c r + d, re = (a r + b)/t, im = (b r - a)/t.
    let r2 = e.bin(BinaryOp::Divide, c, d)?;
    let cr = e.bin(BinaryOp::Multiply, c, r2)?;
    let t2 = e.bin(BinaryOp::Add, cr, d)?;
    let ar2 = e.bin(BinaryOp::Multiply, a, r2)?;
    let br2 = e.bin(BinaryOp::Multiply, b, r2)?;
    let n2 = e.bin(BinaryOp::Add, ar2, b)?;
    let m2 = e.bin(BinaryOp::Subtract, br2, a)?;
    let re2 = e.bin(BinaryOp::Divide, n2, t2)?;
    let im2 = e.bin(BinaryOp::Divide, m2, t2)?;
    let re = e.push(OpKind::Select, &[c_larger, re1, re2])?;
    let im = e.push(OpKind::Select, &[c_larger, im1, im2])?;
    e.pair(re, im)
}

/// `|a + bi|`, as `hypot`: `m sqrt(1 + (n/m)²)` with `m = max(|a|, |b|)`, `n = min`, and 0
/// where both are 0 (no overflow for large parts).
fn abs(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    hypot(e, a, b)
}

fn hypot(e: &mut Emit<'_>, a: ValueId, b: ValueId) -> R {
    let abs_a = e.un(UnaryOp::Abs, a)?;
    let abs_b = e.un(UnaryOp::Abs, b)?;
    let m = e.bin(BinaryOp::Maximum, abs_a, abs_b)?;
    let n = e.bin(BinaryOp::Minimum, abs_a, abs_b)?;
    // Where m is 0, so is n: q is 0 and the product 0.
    let safe = e.divisor(m)?;
    let q = e.bin(BinaryOp::Divide, n, safe)?;
    let q2 = e.bin(BinaryOp::Multiply, q, q)?;
    let one = e.splat(m, 1.0);
    let s = e.bin(BinaryOp::Add, one, q2)?;
    let root = e.un(UnaryOp::Sqrt, s)?;
    e.bin(BinaryOp::Multiply, m, root)
}

/// `r (cos t + i sin t)`.
fn polar(e: &mut Emit<'_>, r: ValueId, t: ValueId) -> R {
    let cos = e.un(UnaryOp::Cosine, t)?;
    let sin = e.un(UnaryOp::Sine, t)?;
    let re = e.bin(BinaryOp::Multiply, r, cos)?;
    let im = e.bin(BinaryOp::Multiply, r, sin)?;
    e.pair(re, im)
}

/// `e^(a + bi) = e^a (cos b + i sin b)`.
fn exponential(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let ea = e.un(UnaryOp::Exponential, a)?;
    polar(e, ea, b)
}

/// `log z = log |z| + i atan2(b, a)`.
fn log(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let m = hypot(e, a, b)?;
    let re = e.un(UnaryOp::Log, m)?;
    let im = e.bin(BinaryOp::Atan2, b, a)?;
    e.pair(re, im)
}

/// The principal square root: `sqrt(|z|) (cos θ/2 + i sin θ/2)`, `θ = atan2(b, a)`.
fn sqrt(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let m = hypot(e, a, b)?;
    let root = e.un(UnaryOp::Sqrt, m)?;
    let theta = e.bin(BinaryOp::Atan2, b, a)?;
    let half = e.splat(theta, 0.5);
    let t = e.bin(BinaryOp::Multiply, theta, half)?;
    polar(e, root, t)
}

/// `z / |z|`, and 0 where `z` is 0.
fn sign(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let m = hypot(e, a, b)?;
    // Where m is 0, so are a and b, and their quotients.
    let safe = e.divisor(m)?;
    let re = e.bin(BinaryOp::Divide, a, safe)?;
    let im = e.bin(BinaryOp::Divide, b, safe)?;
    e.pair(re, im)
}

/// `cos(a + bi) = cos a cosh b - i sin a sinh b`.
fn cosine(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let (ch, sh) = cosh_sinh(e, b)?;
    let cos = e.un(UnaryOp::Cosine, a)?;
    let sin = e.un(UnaryOp::Sine, a)?;
    let re = e.bin(BinaryOp::Multiply, cos, ch)?;
    let s = e.bin(BinaryOp::Multiply, sin, sh)?;
    let im = e.un(UnaryOp::Negate, s)?;
    e.pair(re, im)
}

/// `sin(a + bi) = sin a cosh b + i cos a sinh b`.
fn sine(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let (ch, sh) = cosh_sinh(e, b)?;
    let cos = e.un(UnaryOp::Cosine, a)?;
    let sin = e.un(UnaryOp::Sine, a)?;
    let re = e.bin(BinaryOp::Multiply, sin, ch)?;
    let im = e.bin(BinaryOp::Multiply, cos, sh)?;
    e.pair(re, im)
}

/// `(cosh b, sinh b)` from `e^b` and `e^-b`.
fn cosh_sinh(e: &mut Emit<'_>, b: ValueId) -> Result<(ValueId, ValueId), IrError> {
    let ep = e.un(UnaryOp::Exponential, b)?;
    let nb = e.un(UnaryOp::Negate, b)?;
    let en = e.un(UnaryOp::Exponential, nb)?;
    let half = e.splat(b, 0.5);
    let s = e.bin(BinaryOp::Add, ep, en)?;
    let d = e.bin(BinaryOp::Subtract, ep, en)?;
    Ok((
        e.bin(BinaryOp::Multiply, s, half)?,
        e.bin(BinaryOp::Multiply, d, half)?,
    ))
}

/// `z^w = e^(w log z)` (the principal value), and `0^w = 0` for `w` of positive real part,
/// as XLA takes it.
fn power(e: &mut Emit<'_>, z: ValueId, w: ValueId) -> R {
    let l = log(e, z)?;
    let p = multiply(e, w, l)?;
    let r = exponential(e, p)?;
    let (a, b) = e.parts(z)?;
    let (c, _) = e.parts(w)?;
    let zero = e.splat(a, 0.0);
    let eq = |e: &mut Emit<'_>, x, y| e.compare(ComparisonDirection::Eq, x, y);
    let re_zero = eq(e, a, zero)?;
    let im_zero = eq(e, b, zero)?;
    let z_zero = e.bin(BinaryOp::And, re_zero, im_zero)?;
    let positive = e.compare(ComparisonDirection::Gt, c, zero)?;
    let vanish = e.bin(BinaryOp::And, z_zero, positive)?;
    let (rr, ri) = e.parts(r)?;
    let re = e.push(OpKind::Select, &[vanish, zero, rr])?;
    let im = e.push(OpKind::Select, &[vanish, zero, ri])?;
    e.pair(re, im)
}

/// `e^z - 1`: `expm1(a) cos b - 2 sin²(b/2)` (exact near 0) `+ i e^a sin b`.
fn exponential_minus_one(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let em1 = e.un(UnaryOp::ExponentialMinusOne, a)?;
    let cos = e.un(UnaryOp::Cosine, b)?;
    let half = e.splat(b, 0.5);
    let hb = e.bin(BinaryOp::Multiply, b, half)?;
    let s = e.un(UnaryOp::Sine, hb)?;
    let s2 = e.bin(BinaryOp::Multiply, s, s)?;
    let two = e.splat(b, 2.0);
    let t = e.bin(BinaryOp::Multiply, two, s2)?;
    let m = e.bin(BinaryOp::Multiply, em1, cos)?;
    let re = e.bin(BinaryOp::Subtract, m, t)?;
    let ea = e.un(UnaryOp::Exponential, a)?;
    let sin = e.un(UnaryOp::Sine, b)?;
    let im = e.bin(BinaryOp::Multiply, ea, sin)?;
    e.pair(re, im)
}

/// `log(1 + z)`: `log1p(2a + a² + b²) / 2` (exact near 0) `+ i atan2(b, 1 + a)`.
fn log_plus_one(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let two = e.splat(a, 2.0);
    let half = e.splat(a, 0.5);
    let one = e.splat(a, 1.0);
    let a2 = e.bin(BinaryOp::Multiply, a, a)?;
    let b2 = e.bin(BinaryOp::Multiply, b, b)?;
    let ta = e.bin(BinaryOp::Multiply, two, a)?;
    let s = e.bin(BinaryOp::Add, ta, a2)?;
    let s = e.bin(BinaryOp::Add, s, b2)?;
    let l = e.un(UnaryOp::LogPlusOne, s)?;
    let re = e.bin(BinaryOp::Multiply, l, half)?;
    let x = e.bin(BinaryOp::Add, one, a)?;
    let im = e.bin(BinaryOp::Atan2, b, x)?;
    e.pair(re, im)
}

/// `1 / sqrt(z)`.
fn rsqrt(e: &mut Emit<'_>, z: ValueId) -> R {
    let root = sqrt(e, z)?;
    let (a, _) = e.parts(root)?;
    let one = e.splat(a, 1.0);
    let zero = e.splat(a, 0.0);
    let unit = e.pair(one, zero)?;
    divide(e, unit, root)
}

/// `tanh(a + bi) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b)`.
fn tanh(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let two = e.splat(a, 2.0);
    let a2 = e.bin(BinaryOp::Multiply, two, a)?;
    let b2 = e.bin(BinaryOp::Multiply, two, b)?;
    let (ch, sh) = cosh_sinh(e, a2)?;
    let cos = e.un(UnaryOp::Cosine, b2)?;
    let sin = e.un(UnaryOp::Sine, b2)?;
    let d = e.bin(BinaryOp::Add, ch, cos)?;
    let re = e.bin(BinaryOp::Divide, sh, d)?;
    let im = e.bin(BinaryOp::Divide, sin, d)?;
    e.pair(re, im)
}

/// `tan z = -i tanh(i z)`.
fn tan(e: &mut Emit<'_>, z: ValueId) -> R {
    let (a, b) = e.parts(z)?;
    let minus_b = e.un(UnaryOp::Negate, b)?;
    let iz = e.pair(minus_b, a)?;
    let t = tanh(e, iz)?;
    let (x, y) = e.parts(t)?;
    let minus_x = e.un(UnaryOp::Negate, x)?;
    e.pair(y, minus_x)
}
