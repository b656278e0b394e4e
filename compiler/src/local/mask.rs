//! Masking padding where an op would observe it (padded, uneven shardings only).
//!
//! With `Options::pad_uneven`, a dimension of `n` elements in `k` shards is cut into blocks
//! of `ceil(n / k)`; the elements of a block past `n` are padding and hold anything (zeros
//! from `shard`, or whatever an op computed there, NaN and infinities included). An op that
//! keeps a padded dimension (a pass-through factor) only carries the garbage along in its
//! own padding, which nothing reads. An op that *reduces* over a padded dimension (a
//! reduction factor split unevenly) would fold the garbage into real elements, so before it
//! runs, every operand dimension of such a factor is masked: `select(global index < n, x,
//! fill)`, where the global index of a local element is `axis_index * ceil(n / k) + iota`
//! (`shardc.axis_index` over the dimension's axes gives the device's block). A select, not
//! a multiplication by zero, so NaN garbage never enters (`0 * NaN` is NaN).
//!
//! The fill of each op with reduction factors is in [`fill`], one arm per op: `dot_general`
//! contracts with zeros on both sides; `reduce` fills each input with its init, which
//! `localize::allows` has checked is the reducer's identity (sum 0, max -inf, min +inf).
//! Ops not listed there (gather's collapsed dimensions) never have a padded reduction
//! factor: propagation keeps such factors even ([`masks`]).
//!
//! Everything else that reads positions along a dimension (slices, pads, concatenations,
//! gathers' indexed dimensions, iota and random) has a permutation or need-replication
//! factor there, so propagation never leaves that dimension split, padded or not: the
//! value is gathered whole first (trimming its padding, `reshard.rs`).

use crate::error::CompileError;
use crate::sharding::layout::Layout;
use shardc_ir::rules::{OpRule, TensorRef};
use shardc_ir::{
    AxisRef, BinaryOp, ComparisonDirection, ComparisonType, DType, FunctionBuilder, Literal, Mesh,
    Op, OpKind, Scalar, TensorType, ValueId,
};
use std::collections::HashMap;

/// What an operand's padding is filled with before the op reads it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Zeros of the operand's type.
    Zero,
    /// The scalar operand at this index (a reduce's init).
    Operand(usize),
}

/// The fill of operand `k` of an op whose reduction factor is padded, or `None` where the
/// op cannot run with a padded reduction factor.
pub fn fill(kind: &OpKind, operands: usize, k: usize) -> Option<Fill> {
    match kind {
        OpKind::DotGeneral(_) => Some(Fill::Zero),
        OpKind::Reduce { .. } if k < operands / 2 => Some(Fill::Operand(operands / 2 + k)),
        _ => None,
    }
}

/// Whether an op may run with a padded reduction factor: [`fill`] knows how to mask it.
pub fn masks(kind: &OpKind) -> bool {
    matches!(kind, OpKind::DotGeneral(_) | OpKind::Reduce { .. })
}

/// Emits masks into a per-device program; one-dimensional masks are made once per
/// (axes, size, block) and shared.
#[derive(Default)]
pub struct Masker {
    masks: HashMap<(Vec<AxisRef>, usize, usize), ValueId>,
}

fn bug(what: String) -> CompileError {
    CompileError::internal("padding masks", what)
}

impl Masker {
    /// The local operands of `op` with every padded dimension of a reduction factor masked:
    /// `ins` are the local pieces, `layouts` their layouts, `global` their global types.
    #[allow(clippy::too_many_arguments)]
    pub fn mask_operands(
        &mut self,
        b: &mut FunctionBuilder,
        mesh: &Mesh,
        op: &Op,
        rule: &OpRule,
        ins: &[ValueId],
        layouts: &[Layout],
        global: &[TensorType],
    ) -> Result<Vec<ValueId>, CompileError> {
        let mut out = ins.to_vec();
        for (k, (l, g)) in layouts.iter().zip(global).enumerate() {
            let Some(mapping) = rule.tensor(TensorRef::Operand(k)) else {
                continue;
            };
            for (d, factors) in mapping.iter().enumerate() {
                let reduced = factors.iter().any(|&f| rule.kind(f).is_reduction());
                if !reduced || d >= l.rank() || l.padding(mesh, g, d) == 0 {
                    continue;
                }
                let how = fill(&op.kind, op.operands.len(), k).ok_or_else(|| {
                    bug(format!(
                        "{} reduces over padded dimension {d} of its operand {k}, which it cannot mask",
                        op.kind.name()
                    ))
                })?;
                let value = match how {
                    Fill::Zero => None,
                    Fill::Operand(j) => Some(*ins.get(j).ok_or_else(|| {
                        bug(format!(
                            "{} has no operand {j} to fill with",
                            op.kind.name()
                        ))
                    })?),
                };
                out[k] = self.mask(b, mesh, out[k], d, &l.dims[d], g.shape[d], value)?;
            }
        }
        Ok(out)
    }

    /// `select(global index along d < n, x, fill)` on the local piece `x`, whose
    /// dimension `d` is split over `axes` (global size `n`); the fill is `value` (a scalar)
    /// or zero.
    #[allow(clippy::too_many_arguments)]
    pub fn mask(
        &mut self,
        b: &mut FunctionBuilder,
        mesh: &Mesh,
        x: ValueId,
        d: usize,
        axes: &[AxisRef],
        n: usize,
        value: Option<ValueId>,
    ) -> Result<ValueId, CompileError> {
        let ty = b.ty(x).clone();
        let block = ty.shape[d];
        let valid = self.valid(b, mesh, axes, n, block)?;
        let bool_ty = TensorType::new(DType::I1, ty.shape.clone());
        let valid = b.push1_typed(OpKind::BroadcastInDim { dims: vec![d] }, &[valid], bool_ty)?;
        let fill = match value {
            Some(v) => b.push1_typed(OpKind::BroadcastInDim { dims: vec![] }, &[v], ty.clone())?,
            None => b.constant(Literal::splat(ty.clone(), zero(ty.dtype))),
        };
        Ok(b.push1(OpKind::Select, &[valid, x, fill])?)
    }

    /// The `i1[block]` mask of the elements of this device's block that are real:
    /// `axis_index(axes) * block + iota < n`.
    fn valid(
        &mut self,
        b: &mut FunctionBuilder,
        mesh: &Mesh,
        axes: &[AxisRef],
        n: usize,
        block: usize,
    ) -> Result<ValueId, CompileError> {
        let key = (axes.to_vec(), n, block);
        if let Some(&v) = self.masks.get(&key) {
            return Ok(v);
        }
        let groups = mesh
            .replica_groups(axes)
            .ok_or_else(|| bug(format!("axes {axes:?} are not all on mesh @{}", mesh.name)))?;
        let int = |v: usize| Scalar::Int(i64::try_from(v).unwrap_or(i64::MAX));
        let scalar = TensorType::scalar(DType::I64);
        let line = TensorType::new(DType::I64, [block]);
        let index = b.push1_typed(OpKind::AxisIndex { groups }, &[], scalar.clone())?;
        let size = b.constant(Literal::scalar(DType::I64, int(block)));
        let start = b.binary(BinaryOp::Multiply, index, size)?;
        let start = b.push1_typed(
            OpKind::BroadcastInDim { dims: vec![] },
            &[start],
            line.clone(),
        )?;
        let iota = b.push1_typed(OpKind::Iota { dimension: 0 }, &[], line.clone())?;
        let global = b.binary(BinaryOp::Add, iota, start)?;
        let limit = b.constant(Literal::splat(line, int(n)));
        let valid = b.push1(
            OpKind::Compare {
                direction: ComparisonDirection::Lt,
                compare_type: Some(ComparisonType::Signed),
            },
            &[global, limit],
        )?;
        self.masks.insert(key, valid);
        Ok(valid)
    }
}

/// Zero of a dtype.
fn zero(dtype: DType) -> Scalar {
    if dtype == DType::I1 {
        Scalar::Bool(false)
    } else if dtype.is_int() {
        Scalar::Int(0)
    } else {
        Scalar::Float(0.0)
    }
}
