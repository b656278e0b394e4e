//! The registry: the factor rule of each op family, built with [`RuleBuilder`].
//!
//! One arm per family: every elementwise op in one arm, the rest alphabetical, and the
//! ops without a rule listed explicitly with the reason. Each family's derivation
//! follows Shardy's registry (openxla/shardy `op_sharding_rule_registry.cc`); where we
//! differ, the comment says so and why.

use super::builder::RuleBuilder;
use super::reshape::reshape_factors;
use super::{Combiner, FactorKind, OpRule, RuleError};
use crate::dtype::TensorType;
use crate::infer;
use crate::module::{Function, ValueId};
use crate::op::{ConvDims, DotDims, FftType, GatherDims, Op, OpKind, ScatterDims, WindowDims};

use FactorKind::{NeedReplication, PassThrough, Permutation};

/// The sharding rule of one op instance of `f` (the function `op` belongs to; its
/// operand and result types are read from `f`).
///
/// Errors: [`RuleError::NoRule`] for ops that have no rule (today `func.call`, which the
/// compiler inlines before propagation); [`RuleError::InvalidOp`] for an op that breaks
/// its typing rule; [`RuleError::Inconsistent`] if the derived rule breaks the rule
/// invariants (a bug here). An op never silently gets a replicating rule.
pub fn op_rule(f: &Function, op: &Op) -> Result<OpRule, RuleError> {
    let x = Instance::new(f, op)?;
    let builder = match &op.kind {
        // Pointwise: every operand and result has the same shape (scalar select
        // predicates and clamp bounds excepted: they map to no factor), and each
        // dimension is one pass-through factor. Keep this arm equal to
        // `OpKind::is_elementwise`.
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert => pointwise(&x),

        // The rest, alphabetically.
        OpKind::BitcastConvert => bitcast_convert(&x),
        OpKind::BroadcastInDim { dims } => broadcast_in_dim(&x, dims),
        OpKind::Call { callee } => {
            return Err(RuleError::NoRule {
                op: op.kind.name(),
                at: x.at(),
                why: format!(
                    "the shardings of a call's results follow from the body of @{callee}, which propagation does not see through a call"
                ),
                fix: format!(
                    "inline @{callee} first (the compiler inlines every call before propagation)"
                ),
            });
        }
        OpKind::AllGather { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. }
        | OpKind::AllToAll { .. }
        | OpKind::ShardSlice { .. }
        | OpKind::AxisIndex { .. }
        | OpKind::CollectivePermute { .. } => {
            return Err(RuleError::NoRule {
                op: op.kind.name(),
                at: x.at(),
                why: "it is an op of partitioned (per-device) programs, which propagation does not read".into(),
                fix: "propagate shardings on the global program, before partitioning".into(),
            });
        }
        // shard_map: its operands and results are laid out as its shardings say, which
        // propagation takes as they are (`local::manual` in the compiler), never from
        // factors; the rule (everything whole) is what a caller reading rules sees.
        OpKind::ManualComputation { .. } => replicated(&x),
        OpKind::PartitionId => {
            return Err(RuleError::NoRule {
                op: op.kind.name(),
                at: x.at(),
                why: "it reads which device runs the program, which only a shard_map body (run per device) knows".into(),
                fix: "use jax.lax.axis_index inside a shard_map".into(),
            });
        }
        // A branch runs whole on every device: every dimension of what it reads and gives
        // needs replication (its regions are not partitioned; `docs/rules.md`).
        OpKind::Case => replicated(&x),
        OpKind::While => carried_through(&x),
        OpKind::Concatenate { dimension } => concatenate(&x, *dimension),
        OpKind::Convolution(d) => convolution(&x, d),
        // A constant can be produced in any layout: each device materializes its part
        // of the literal. Every dimension is a pass-through factor of the result.
        OpKind::Constant(_) => pointwise(&x),
        OpKind::DotGeneral(dims) => dot_general(&x, dims),
        OpKind::Gather(dims) => gather(&x, dims),
        // Element `p` of an iota is `p[dimension]`: each device computes its part,
        // offsetting by the global position of its shard. Shardy has no iota rule (it
        // does not propagate into constant-like ops); ours lets the result take any layout.
        OpKind::Iota { .. } => pointwise(&x),
        // An identity of each operand: operand k and result k share their factors.
        OpKind::OptimizationBarrier => each_through(&x),
        OpKind::Pad {
            low,
            high,
            interior,
        } => pad(&x, low, high, interior),
        // `shardc.random` is counter-based on the flat global index, so each device
        // draws its own part of the global tensor: every result dimension passes
        // through; the scalar seed maps to no factor.
        OpKind::Random { .. } => pointwise(&x),
        // The state stays whole (it is tiny and every device steps it alike); the bits
        // are computed whole and each device keeps its block (`computed_whole` in the
        // partitioner), so their dimensions pass through.
        OpKind::RngBitGenerator { .. } => {
            let mut b = x.builder();
            let state = x.operand_shape(0).first().copied().unwrap_or(0);
            b.factor(state, NeedReplication, &[Some(0)], &[Some(0), None]);
            for (d, &n) in x.result_shape(1).iter().enumerate() {
                b.factor(n, PassThrough, &[None], &[None, Some(d)]);
            }
            b
        }
        OpKind::Cholesky { .. }
        | OpKind::Lu
        | OpKind::TriangularSolve { .. }
        | OpKind::Geqrf
        | OpKind::HouseholderProduct
        | OpKind::Eigh { .. }
        | OpKind::Svd { .. } => linear_algebra(&x, &op.kind),
        OpKind::TridiagonalSolve => tridiagonal_solve(&x),
        OpKind::Fft { fft_type, lengths } => fft(&x, *fft_type, lengths.len()),
        OpKind::Reduce { dimensions } => reduce(&x, dimensions)?,
        OpKind::ReduceWindow(w) => reduce_window(&x, w),
        OpKind::DynamicSlice { sizes } => dynamic_slice(&x, sizes),
        OpKind::DynamicUpdateSlice => dynamic_update_slice(&x),
        OpKind::Reshape => reshape(&x),
        // A reversed dimension moves every element to the mirrored position (across
        // shards: a permutation); the others pass through.
        OpKind::Reverse { dimensions } => {
            let mut b = x.builder();
            for (d, &n) in x.result_shape(0).iter().enumerate() {
                let kind = if dimensions.contains(&d) && n > 1 {
                    Permutation
                } else {
                    PassThrough
                };
                b.pointwise(d, n, kind);
            }
            b
        }
        OpKind::Scatter(dims) => scatter(&x, dims)?,
        OpKind::SelectAndScatter(w) => select_and_scatter(&x, w),
        // Every operand and result shares each dimension; the sorted one needs every
        // element (Shardy's rule), the others pass through.
        OpKind::Sort { dimension, .. } => {
            let mut b = x.builder();
            for (d, &n) in x.result_shape(0).iter().enumerate() {
                let kind = if d == *dimension {
                    NeedReplication
                } else {
                    PassThrough
                };
                b.pointwise(d, n, kind);
            }
            b
        }
        OpKind::Rotate { dimension, shift } => rotate(&x, *dimension, *shift),
        // The value, unchanged: an identity, as in Shardy.
        OpKind::ShardingConstraint(_) => pointwise(&x),
        OpKind::Slice {
            start,
            limit,
            strides,
        } => slice(&x, start, limit, strides),
        OpKind::Transpose { permutation } => transpose(&x, permutation),
    };
    x.finish(builder)
}

/// The op under derivation, with its operand and result types.
struct Instance<'a> {
    f: &'a Function,
    op: &'a Op,
    operands: Vec<TensorType>,
    results: Vec<TensorType>,
}

impl<'a> Instance<'a> {
    /// Reads the types and checks the op against its typing rule, so that the
    /// derivations below can rely on consistent shapes and attributes.
    fn new(f: &'a Function, op: &'a Op) -> Result<Instance<'a>, RuleError> {
        let types = |what: &str, ids: &[ValueId]| -> Result<Vec<TensorType>, RuleError> {
            ids.iter()
                .enumerate()
                .map(|(k, &v)| match f.values.get(v.index()) {
                    Some(data) => Ok(data.ty.clone()),
                    None => Err(RuleError::InvalidOp {
                        op: op.kind.name(),
                        at: format!("an op in @{}", f.name),
                        rule: format!(
                            "its {what} {k} is value {v}, which @{} does not define",
                            f.name
                        ),
                        fix: "pass the function the op belongs to".to_string(),
                    }),
                })
                .collect()
        };
        let x = Instance {
            f,
            op,
            operands: types("operand", &op.operands)?,
            results: types("result", &op.results)?,
        };
        infer::result_types(&op.kind, &x.operands, Some(&x.results))
            .map_err(|v| x.invalid(v.rule, v.fix))?;
        Ok(x)
    }

    /// The value the op defines, as messages name it: `%3 in @main`.
    fn at(&self) -> String {
        let names = self.f.value_names();
        match self.op.results.first().and_then(|r| names.get(r.index())) {
            Some(name) => format!("{name} in @{}", self.f.name),
            None => format!("an op in @{}", self.f.name),
        }
    }

    fn invalid(&self, rule: String, fix: String) -> RuleError {
        RuleError::InvalidOp {
            op: self.op.kind.name(),
            at: self.at(),
            rule,
            fix,
        }
    }

    fn operand_shape(&self, k: usize) -> &[usize] {
        &self.operands[k].shape
    }

    fn result_shape(&self, k: usize) -> &[usize] {
        &self.results[k].shape
    }

    fn shapes(&self) -> (Vec<&[usize]>, Vec<&[usize]>) {
        (
            self.operands.iter().map(|t| t.shape.as_slice()).collect(),
            self.results.iter().map(|t| t.shape.as_slice()).collect(),
        )
    }

    fn builder(&self) -> RuleBuilder {
        let (operands, results) = self.shapes();
        RuleBuilder::new(&operands, &results)
    }

    /// Builds the rule and checks its invariants against the op's shapes.
    fn finish(&self, b: RuleBuilder) -> Result<OpRule, RuleError> {
        let inconsistent = |rule: String, detail: String| RuleError::Inconsistent {
            op: self.op.kind.name(),
            at: self.at(),
            rule,
            detail,
        };
        let rule = b
            .build()
            .map_err(|d| inconsistent("not built".to_string(), d))?;
        let (operands, results) = self.shapes();
        rule.check(&operands, &results)
            .map_err(|d| inconsistent(rule.to_string(), d))?;
        Ok(rule)
    }
}

/// One pass-through factor per result dimension, at that dimension of every operand and
/// result that is not a scalar.
fn pointwise(x: &Instance) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.result_shape(0).iter().enumerate() {
        b.pointwise(d, n, PassThrough);
    }
    b
}

/// A factorization or solve per matrix of the last two dimensions: the batch dimensions
/// before them pass through (every operand and result has them first); each matrix needs
/// all of its elements, except that the right-hand sides of a triangular solve are solved
/// independently (columns of `b` for `op(a) x = b`, rows for `x op(a) = b`), so that
/// dimension of `b` and `x` passes through.
/// `(dl, d, du, b) -> (dl', d', du', x, status)`: each system whole (elimination runs down
/// its rows); systems side by side, and the right-hand sides (each column of `b` solved
/// alike), pass through.
fn tridiagonal_solve(x: &Instance) -> RuleBuilder {
    let mut b = x.builder();
    // Shapes as `infer` checked them: `d` of rank r >= 1, `b` of rank r + 1.
    let d = x.operand_shape(1);
    let r = d.len().max(1);
    for (k, &n) in d.iter().take(r - 1).enumerate() {
        b.factor(n, PassThrough, &[Some(k); 4], &[Some(k); 5]);
    }
    let diagonal = [Some(r - 1), Some(r - 1), Some(r - 1), Some(r - 1)];
    let n = d.last().copied().unwrap_or(1);
    b.factor(
        n,
        NeedReplication,
        &diagonal,
        &[Some(r - 1), Some(r - 1), Some(r - 1), Some(r - 1), None],
    );
    let nrhs = x.operand_shape(3).get(r).copied().unwrap_or(1);
    b.factor(
        nrhs,
        PassThrough,
        &[None, None, None, Some(r)],
        &[None, None, None, Some(r), None],
    );
    b
}

/// `shardc.fft`: every output frequency reads every input element of the transformed
/// dimensions, and the real and imaginary parts mix, so those need replication; the
/// leading (batch) dimensions pass through. `RFFT`'s last transformed dimension and
/// `IRFFT`'s are of different lengths in and out, so each side has its own factor.
fn fft(x: &Instance, fft_type: FftType, k: usize) -> RuleBuilder {
    let mut b = x.builder();
    let (input, output) = (x.operand_shape(0), x.result_shape(0));
    let pair_in = usize::from(fft_type != FftType::Rfft);
    let batch = input.len().saturating_sub(k + pair_in);
    for (d, &n) in input.iter().enumerate().take(batch) {
        b.factor(n, PassThrough, &[Some(d)], &[Some(d)]);
    }
    let same = match fft_type {
        FftType::Fft | FftType::Ifft => k + 1,
        FftType::Rfft | FftType::Irfft => k - 1,
    };
    for d in batch..batch + same {
        let n = input.get(d).copied().unwrap_or(1);
        b.factor(n, NeedReplication, &[Some(d)], &[Some(d)]);
    }
    for (d, &n) in input.iter().enumerate().skip(batch + same) {
        b.factor(n, NeedReplication, &[Some(d)], &[None]);
    }
    for (d, &n) in output.iter().enumerate().skip(batch + same) {
        b.factor(n, NeedReplication, &[None], &[Some(d)]);
    }
    b
}

fn linear_algebra(x: &Instance, kind: &OpKind) -> RuleBuilder {
    let mut b = x.builder();
    let (no, nr) = (x.operands.len(), x.results.len());
    let a = x.operand_shape(0);
    let r = a.len();
    for (d, &n) in a[..r - 2].iter().enumerate() {
        b.factor(n, PassThrough, &vec![Some(d); no], &vec![Some(d); nr]);
    }
    let only = |k: usize, len: usize, d: usize| -> Vec<Option<usize>> {
        (0..len).map(|i| (i == k).then_some(d)).collect()
    };
    match kind {
        OpKind::TriangularSolve { left_side, .. } => {
            for d in [r - 2, r - 1] {
                b.factor(a[d], NeedReplication, &only(0, no, d), &[None]);
            }
            let rhs = x.operand_shape(1);
            let (solved, free) = if *left_side {
                (r - 2, r - 1)
            } else {
                (r - 1, r - 2)
            };
            b.factor(
                rhs[solved],
                NeedReplication,
                &[None, Some(solved)],
                &[Some(solved)],
            );
            b.factor(rhs[free], PassThrough, &[None, Some(free)], &[Some(free)]);
        }
        OpKind::Eigh { .. } | OpKind::Svd { .. } => {
            // Each matrix whole; the eigen- or singular vectors and values have
            // dimensions of their own (a's rows are not V's or U's).
            for d in [r - 2, r - 1] {
                b.factor(a[d], NeedReplication, &only(0, no, d), &vec![None; nr]);
            }
            for k in 0..nr {
                let shape = x.result_shape(k);
                for (d, &n) in shape.iter().enumerate().skip(r - 2) {
                    b.factor(n, NeedReplication, &vec![None; no], &only(k, nr, d));
                }
            }
        }
        _ => {
            // The matrix and its factor share rows and columns; Lu's pivots, geqrf's
            // scales (a result) and householder_product's (an operand) have a dimension
            // of their own.
            for d in [r - 2, r - 1] {
                b.factor(a[d], NeedReplication, &only(0, no, d), &only(0, nr, d));
            }
            if nr > 1 {
                let k = x.result_shape(1)[r - 2];
                b.factor(k, NeedReplication, &vec![None; no], &only(1, nr, r - 2));
            }
            if no > 1 {
                let k = x.operand_shape(1)[r - 2];
                b.factor(k, NeedReplication, &only(1, no, r - 2), &vec![None; nr]);
            }
        }
    }
    b
}

/// Every dimension of every operand and result a need-replication factor of its own.
fn replicated(x: &Instance) -> RuleBuilder {
    let mut b = x.builder();
    let (no, nr) = (x.operands.len(), x.results.len());
    for k in 0..no {
        for (d, &n) in x.operand_shape(k).iter().enumerate() {
            let mut at = vec![None; no];
            at[k] = Some(d);
            b.factor(n, NeedReplication, &at, &vec![None; nr]);
        }
    }
    for k in 0..nr {
        for (d, &n) in x.result_shape(k).iter().enumerate() {
            let mut at = vec![None; nr];
            at[k] = Some(d);
            b.factor(n, NeedReplication, &vec![None; no], &at);
        }
    }
    b
}

/// A loop: carried value `k` keeps one layout from its initial value (operand `k`) to
/// its final value (result `k`), dimension by dimension, its body run on the pieces
/// (the compiler partitions the body for each layout, `local::loops`); what the
/// regions read from outside (the operands after the carried ones) needs replication.
fn carried_through(x: &Instance) -> RuleBuilder {
    let mut b = x.builder();
    let (no, nr) = (x.operands.len(), x.results.len());
    for k in 0..nr {
        for (d, &size) in x.result_shape(k).iter().enumerate() {
            let mut ins = vec![None; no];
            ins[k] = Some(d);
            let mut outs = vec![None; nr];
            outs[k] = Some(d);
            b.factor(size, PassThrough, &ins, &outs);
        }
    }
    for k in nr..no {
        for (d, &n) in x.operand_shape(k).iter().enumerate() {
            let mut at = vec![None; no];
            at[k] = Some(d);
            b.factor(n, NeedReplication, &at, &vec![None; nr]);
        }
    }
    b
}

/// Operand `k` passes through to result `k`, dimension by dimension.
fn each_through(x: &Instance) -> RuleBuilder {
    let mut b = x.builder();
    let n = x.operands.len();
    for k in 0..n {
        for (d, &size) in x.operand_shape(k).iter().enumerate() {
            let mut at = vec![None; n];
            at[k] = Some(d);
            b.factor(size, PassThrough, &at, &at);
        }
    }
    b
}

/// Shared dimensions pass through. Between widths, the last dimension of the narrower side
/// holds the pieces of one wide element: in the operand (`[4, 2] ui32 -> [4] ui64`) a
/// need-replication factor (a device needs every piece of an element), in the result
/// (`[4] ui64 -> [4, 2] ui32`) a pass-through factor of the result alone (each device
/// splits its own elements).
fn bitcast_convert(x: &Instance) -> RuleBuilder {
    let (input, output) = (x.operand_shape(0), x.result_shape(0));
    let shared = input.len().min(output.len());
    let mut b = x.builder();
    for (d, &n) in input.iter().enumerate().take(shared) {
        b.factor(n, PassThrough, &[Some(d)], &[Some(d)]);
    }
    if input.len() > shared {
        b.factor(input[shared], NeedReplication, &[Some(shared)], &[]);
    }
    if output.len() > shared {
        b.factor(output[shared], PassThrough, &[], &[Some(shared)]);
    }
    b
}

/// `([i, k, j, l, n])->([i, j, k, m, n, o])` for `2x3x5x1x7 -> 2x5x3x11x7x13`, dims
/// `[0, 2, 1, 3, 4]`: each result dimension is a factor, shared with the operand
/// dimension mapped to it. An operand dimension of size 1 expanded to a larger size is
/// not the same dimension (every result position reads its one element), so it gets a
/// size-1 factor of its own (`l`) and the result dimension another (`m`). A dimension
/// the broadcast adds (`o`) is in the result only: each device broadcasts into its part.
fn broadcast_in_dim(x: &Instance, dims: &[usize]) -> RuleBuilder {
    let (input, output) = (x.operand_shape(0), x.result_shape(0));
    let mut b = x.builder();
    for (od, &n) in output.iter().enumerate() {
        let mut id = dims.iter().position(|&d| d == od);
        if let Some(i) = id
            && input[i] == 1
            && n != 1
        {
            b.factor(1, PassThrough, &[Some(i)], &[]);
            id = None;
        }
        b.factor(n, PassThrough, &[id], &[Some(od)]);
    }
    b
}

/// Every dimension but the concatenated one passes through. Along the concatenated
/// dimension (one factor of the result's size, as in Shardy) the result's shards do not
/// line up with the operands', so sharding it moves data. Following Shardy:
/// - when every operand is a `slice`, or every operand is one tensor or a slice of it
///   (at least one a slice: `concat(slice(x), x, slice(x))`, the pattern of rolls and
///   halos), the pieces shift between neighbours: *permutation*;
/// - otherwise the operands are unrelated tensors and the partitioner would have to
///   reassemble them across devices piece by piece: *need-replication*.
///
/// A concatenate of one operand moves nothing, so that factor passes through (Shardy
/// marks it need-replication; the identity needs no such restriction).
fn concatenate(x: &Instance, dimension: usize) -> RuleBuilder {
    let f = x.f;
    let slice_source = |v: ValueId| -> Option<ValueId> {
        let op = f.ops.get(f.defining_op(v)?.index())?;
        match op.kind {
            OpKind::Slice { .. } => op.operands.first().copied(),
            _ => None,
        }
    };
    let operands = &x.op.operands;
    let all_slices = operands.iter().all(|&v| slice_source(v).is_some());
    let source = |v: ValueId| slice_source(v).unwrap_or(v);
    let one_source = operands.iter().all(|&v| source(v) == source(operands[0]));
    let any_slice = operands.iter().any(|&v| slice_source(v).is_some());
    let along = if operands.len() == 1 {
        PassThrough
    } else if all_slices || (one_source && any_slice) {
        Permutation
    } else {
        NeedReplication
    };
    let mut b = x.builder();
    for (d, &n) in x.result_shape(0).iter().enumerate() {
        b.pointwise(d, n, if d == dimension { along } else { PassThrough });
    }
    b
}

/// `([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}` for a matmul. Factors in
/// Shardy's order: batch dimensions (in lhs, rhs and result), lhs free dimensions (lhs
/// and result), rhs free dimensions (rhs and result), then contracting dimensions (lhs
/// and rhs only: reduction by sum, since sharding them leaves partial sums).
fn dot_general(x: &Instance, d: &DotDims) -> RuleBuilder {
    let (lhs, rhs) = (x.operand_shape(0), x.operand_shape(1));
    let mut b = x.builder();
    let mut out = 0;
    for (&l, &r) in d.lhs_batch.iter().zip(&d.rhs_batch) {
        b.factor(lhs[l], PassThrough, &[Some(l), Some(r)], &[Some(out)]);
        out += 1;
    }
    for l in d.lhs_free(lhs.len()) {
        b.factor(lhs[l], PassThrough, &[Some(l), None], &[Some(out)]);
        out += 1;
    }
    for r in d.rhs_free(rhs.len()) {
        b.factor(rhs[r], PassThrough, &[None, Some(r)], &[Some(out)]);
        out += 1;
    }
    for (&l, &r) in d.lhs_contracting.iter().zip(&d.rhs_contracting) {
        b.factor(
            lhs[l],
            FactorKind::Reduction(Combiner::Sum),
            &[Some(l), Some(r)],
            &[],
        );
    }
    b
}

/// Shardy's gather rule. Result dimensions in order, then collapsed slice dimensions,
/// then the index vector dimension:
/// - a result batch dimension is a pass-through factor shared with its indices
///   dimension, and with the operand batching dimension paired to it if any;
/// - a result offset dimension whose slice is the whole operand dimension is a
///   pass-through factor shared with that operand dimension;
/// - an offset dimension sliced to size 1 from a larger operand dimension: the operand
///   dimension is a reduction (sum) factor, as in Shardy: a device whose shard misses
///   an index contributes zero, and the partial results sum; the result dimension (size
///   1) gets a need-replication factor;
/// - an offset dimension sliced to a size between: the operand dimension needs
///   replication (the slice can start anywhere); the result dimension gets a
///   pass-through factor of its own (a device with the whole operand dimension can
///   produce any part of the slice). Shardy instead shares one blocked need-replication
///   factor of the operand's size between both; separate factors keep every
///   dimension's size equal to its factors' product and need no "blocked" flag;
/// - a collapsed slice dimension is a reduction (sum) factor of the operand, or needs
///   replication if its size is 1 (Shardy: nothing to shard);
/// - the index vector dimension needs replication: every component of an index is needed
///   to find its slice.
fn gather(x: &Instance, g: &GatherDims) -> RuleBuilder {
    let (operand, indices, result) = (x.operand_shape(0), x.operand_shape(1), x.result_shape(0));
    let skipped =
        |d: usize| g.collapsed_slice_dims.contains(&d) || g.operand_batching_dims.contains(&d);
    let sum = FactorKind::Reduction(Combiner::Sum);
    let mut b = x.builder();
    let mut input_dim = 0;
    let mut batch_pos = 0;
    for (rd, &s) in result.iter().enumerate() {
        if g.offset_dims.contains(&rd) {
            while skipped(input_dim) {
                input_dim += 1;
            }
            let n = operand.get(input_dim).copied().unwrap_or(0);
            if n == s {
                b.factor(n, PassThrough, &[Some(input_dim)], &[Some(rd)]);
            } else if s == 1 {
                b.factor(n, sum, &[Some(input_dim)], &[]);
                b.factor(1, NeedReplication, &[], &[Some(rd)]);
            } else {
                b.factor(n, NeedReplication, &[Some(input_dim)], &[]);
                b.factor(s, PassThrough, &[], &[Some(rd)]);
            }
            input_dim += 1;
        } else {
            let indices_dim = if batch_pos < g.index_vector_dim {
                batch_pos
            } else {
                batch_pos + 1
            };
            let operand_dim = g
                .start_indices_batching_dims
                .iter()
                .position(|&d| d == indices_dim)
                .and_then(|p| g.operand_batching_dims.get(p).copied());
            b.factor(
                s,
                PassThrough,
                &[operand_dim, Some(indices_dim)],
                &[Some(rd)],
            );
            batch_pos += 1;
        }
    }
    for &d in &g.collapsed_slice_dims {
        let n = operand[d];
        b.factor(
            n,
            if n == 1 { NeedReplication } else { sum },
            &[Some(d)],
            &[],
        );
    }
    if let Some(&n) = indices.get(g.index_vector_dim) {
        b.factor(n, NeedReplication, &[None, Some(g.index_vector_dim)], &[]);
    }
    b
}

/// Scatter, one factor per tensor dimension (`N` inputs and results share theirs, as do
/// `N` updates):
/// - an operand dimension the window spans whole passes through input, result and the
///   update window dimension (each device scatters its part of every window);
/// - a batching dimension passes through input, result, indices and updates;
/// - an update scatter dimension (one window per index) is shared with its indices
///   dimension: a reduction factor when the update computation is one associative
///   combiner (`add`, `max`, ...), since each device can scatter its own updates and the
///   partial results combine; the partitioner allows splitting it only when the inputs
///   are the combiner's identity (`localize.rs`: the gradient of a gather scatters into
///   zeros), else it needs replication;
/// - any other operand dimension (indexed, or a window narrower than it) needs
///   replication, as do a narrower update window dimension and the index vector dimension.
fn scatter(x: &Instance, d: &ScatterDims) -> Result<RuleBuilder, RuleError> {
    let n = x.results.len();
    let combiner = reducer_combiner(x, n)?;
    let (operand, indices, update) = (
        x.operand_shape(0).to_vec(),
        x.operand_shape(n).to_vec(),
        x.operand_shape(n + 1).to_vec(),
    );
    let mut b = x.builder();
    // Operand `k`, the indices, update `k`: positions in the rule's operand list.
    let at = |input: Option<usize>, idx: Option<usize>, upd: Option<usize>| {
        let mut v = vec![input; n];
        v.push(idx);
        v.extend(std::iter::repeat_n(upd, n));
        v
    };
    let results = |dim: Option<usize>| vec![dim; n];
    let window_dims: Vec<usize> = (0..operand.len())
        .filter(|k| !d.inserted_window_dims.contains(k) && !d.input_batching_dims.contains(k))
        .collect();
    for (od, &size) in operand.iter().enumerate() {
        if let Some(p) = d.input_batching_dims.iter().position(|&b| b == od) {
            let id = d.scatter_indices_batching_dims[p];
            // The update dimension of that indices dimension: the indices' batch dims in
            // order are the updates' scatter dims in order.
            let pos = (0..indices.len())
                .filter(|&k| k != d.index_vector_dim)
                .position(|k| k == id);
            let ud = pos.and_then(|p| {
                (0..update.len())
                    .filter(|k| !d.update_window_dims.contains(k))
                    .nth(p)
            });
            b.factor(
                size,
                PassThrough,
                &at(Some(od), Some(id), ud),
                &results(Some(od)),
            );
        } else if let Some(w) = window_dims.iter().position(|&k| k == od) {
            let ud = d.update_window_dims[w];
            if update[ud] == size {
                b.factor(
                    size,
                    PassThrough,
                    &at(Some(od), None, Some(ud)),
                    &results(Some(od)),
                );
            } else {
                b.factor(
                    size,
                    NeedReplication,
                    &at(Some(od), None, None),
                    &results(Some(od)),
                );
                b.factor(update[ud], NeedReplication, &at(None, None, Some(ud)), &[]);
            }
        } else {
            b.factor(
                size,
                NeedReplication,
                &at(Some(od), None, None),
                &results(Some(od)),
            );
        }
    }
    // Update scatter dimensions with their indices dimensions (batching ones done above).
    let scatter_update_dims: Vec<usize> = (0..update.len())
        .filter(|k| !d.update_window_dims.contains(k))
        .collect();
    let batch_index_dims: Vec<usize> = (0..indices.len())
        .filter(|&k| k != d.index_vector_dim)
        .collect();
    let kind = match combiner {
        Combiner::Body => NeedReplication,
        c => FactorKind::Reduction(c),
    };
    for (&ud, &id) in scatter_update_dims.iter().zip(&batch_index_dims) {
        if d.scatter_indices_batching_dims.contains(&id) {
            continue;
        }
        b.factor(update[ud], kind, &at(None, Some(id), Some(ud)), &[]);
    }
    if let Some(&size) = indices.get(d.index_vector_dim) {
        b.factor(
            size,
            NeedReplication,
            &at(None, Some(d.index_vector_dim), None),
            &[],
        );
    }
    Ok(b)
}

/// Convolution, as Shardy's rule: the batch passes through input and output; input
/// features and the kernel's input features are a sum reduction (each device convolves
/// its features, the partial outputs add up); the kernel's output features pass through to
/// the output's; each spatial dimension of the input and output is a permutation factor
/// (a window reads its neighbours; a 1-wide unstrided, unpadded, undilated window passes
/// through), the kernel's spatial dimensions need replication. With feature groups the
/// input features need replication, and with feature or batch groups the output features
/// (a group's slices must stay together); batch groups leave the input features a sum.
fn convolution(x: &Instance, d: &ConvDims) -> RuleBuilder {
    let (input, kernel, output) = (x.operand_shape(0), x.operand_shape(1), x.result_shape(0));
    let grouped = d.feature_group_count > 1 || d.batch_group_count > 1;
    let mut b = x.builder();
    if d.batch_group_count == 1 {
        b.factor(
            input[d.input_batch],
            PassThrough,
            &[Some(d.input_batch), None],
            &[Some(d.output_batch)],
        );
    } else {
        b.factor(
            input[d.input_batch],
            NeedReplication,
            &[Some(d.input_batch), None],
            &[],
        );
        b.factor(
            output[d.output_batch],
            NeedReplication,
            &[],
            &[Some(d.output_batch)],
        );
    }
    // Feature groups split the input features into groups, each contracted with its own
    // slice of the kernel; batch groups leave them contracted whole (a batch-grouped
    // convolution is a grouped convolution's kernel gradient, summed over the data batch).
    if d.feature_group_count > 1 {
        b.factor(
            input[d.input_feature],
            NeedReplication,
            &[Some(d.input_feature), None],
            &[],
        );
        b.factor(
            kernel[d.kernel_input_feature],
            NeedReplication,
            &[None, Some(d.kernel_input_feature)],
            &[],
        );
    } else {
        b.factor(
            input[d.input_feature],
            FactorKind::Reduction(Combiner::Sum),
            &[Some(d.input_feature), Some(d.kernel_input_feature)],
            &[],
        );
    }
    // Either grouping pairs the output features with the groups.
    b.factor(
        kernel[d.kernel_output_feature],
        if grouped {
            NeedReplication
        } else {
            PassThrough
        },
        &[None, Some(d.kernel_output_feature)],
        &[Some(d.output_feature)],
    );
    for s in 0..d.input_spatial.len() {
        let (id, kd, od) = (d.input_spatial[s], d.kernel_spatial[s], d.output_spatial[s]);
        let pointwise = kernel[kd] == 1
            && d.window_strides[s] == 1
            && d.padding[s] == (0, 0)
            && d.lhs_dilation[s] == 1
            && input[id] == output[od];
        if pointwise {
            b.factor(input[id], PassThrough, &[Some(id), None], &[Some(od)]);
            b.factor(1, NeedReplication, &[None, Some(kd)], &[]);
        } else {
            b.factor(input[id], Permutation, &[Some(id), None], &[Some(od)]);
            b.factor(kernel[kd], NeedReplication, &[None, Some(kd)], &[]);
        }
    }
    b
}

/// `select_and_scatter`: a dimension the window leaves alone passes through operand,
/// source and result; a windowed one is a permutation factor (a window reads its
/// neighbours), as in `reduce_window`. The init maps to no factor.
fn select_and_scatter(x: &Instance, w: &WindowDims) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.operand_shape(0).iter().enumerate() {
        let kind = if w.window[d] == 1 && w.strides[d] == 1 && w.padding[d] == (0, 0) {
            PassThrough
        } else {
            Permutation
        };
        b.factor(n, kind, &[Some(d), Some(d), None], &[Some(d)]);
    }
    b
}

/// One factor per dimension, of the operand's size (as in Shardy), shared by operand and
/// result; the padding value is a scalar. A dimension with any padding (edge, negative
/// edge or interior) moves its elements across shard boundaries: *permutation*. Shardy
/// decides by comparing sizes, which misses `low=1, high=-1` (same size, every element
/// shifted by one); we look at the padding itself.
fn pad(x: &Instance, low: &[i64], high: &[i64], interior: &[i64]) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.operand_shape(0).iter().enumerate() {
        let moves = low[d] != 0 || high[d] != 0 || interior[d] != 0;
        b.factor(
            n,
            if moves { Permutation } else { PassThrough },
            &[Some(d), None],
            &[Some(d)],
        );
    }
    b
}

/// Kept dimensions pass through (shared by every input and result); reduced dimensions
/// are reduction factors of every input, combined as the reducer body says. The scalar
/// inits map to no factor. The partitioner must apply a non-identity init once, not
/// once per device.
fn reduce(x: &Instance, dimensions: &[usize]) -> Result<RuleBuilder, RuleError> {
    let n = x.operands.len() / 2;
    let combiner = reducer_combiner(x, n)?;
    let mut b = x.builder();
    let inputs = |d: usize| vec![Some(d); n];
    let mut out = 0;
    for (d, &size) in x.operand_shape(0).iter().enumerate() {
        if dimensions.contains(&d) {
            b.factor(size, FactorKind::Reduction(combiner), &inputs(d), &[]);
        } else {
            b.factor(size, PassThrough, &inputs(d), &vec![Some(out); n]);
            out += 1;
        }
    }
    Ok(b)
}

/// A dimension taken whole (size = the operand's: its start clamps to 0) passes through;
/// a sliced one moves data by a start known only at run time, a permutation factor run
/// replicated along it (as Shardy's rule). The start indices map to no factor.
fn dynamic_slice(x: &Instance, sizes: &[usize]) -> RuleBuilder {
    by_runtime_start(x, sizes, 1)
}

/// As [`dynamic_slice`]: a dimension the update covers whole passes through operand,
/// update and result; a partly updated one is a permutation factor of all three.
fn dynamic_update_slice(x: &Instance) -> RuleBuilder {
    let update = x.operand_shape(1).to_vec();
    by_runtime_start(x, &update, 2)
}

/// The rule of an op that reads or writes a block of `covered` sizes at start indices
/// known only at run time: the first `shaped` operands and the result share every
/// dimension, whole ones pass through, the others are permutation factors; the start
/// indices (one per dimension, after them) map to no factor.
fn by_runtime_start(x: &Instance, covered: &[usize], shaped: usize) -> RuleBuilder {
    let mut b = x.builder();
    let dims = x.operand_shape(0).to_vec();
    for (d, &n) in dims.iter().enumerate() {
        let kind = if covered[d] == n {
            PassThrough
        } else {
            Permutation
        };
        let mut operands = vec![None; shaped + dims.len()];
        for o in operands.iter_mut().take(shaped) {
            *o = Some(d);
        }
        b.factor(n, kind, &operands, &[Some(d)]);
    }
    b
}

/// A dimension the window leaves alone (window 1, stride 1, no dilation or padding)
/// passes through; a windowed one is a permutation factor, as a slice's or pad's moved
/// dimension is (a window reads its neighbours), run replicated along it. The scalar
/// init maps to no factor. (Shardy's rule is the same.)
fn reduce_window(x: &Instance, w: &WindowDims) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.operand_shape(0).iter().enumerate() {
        let kind = if w.passes_through(d) {
            PassThrough
        } else {
            Permutation
        };
        b.factor(n, kind, &[Some(d), None], &[Some(d)]);
    }
    b
}

/// How the partial results of a reduce combine: a body of one input whose only op is an
/// associative, commutative binary op of the accumulator and the element (in either
/// order) is that op's [`Combiner`]; anything else (several inputs, as in argmax, or
/// several ops) combines with the body itself.
fn reducer_combiner(x: &Instance, n: usize) -> Result<Combiner, RuleError> {
    let f = x.f;
    let body = match x.op.regions.as_slice() {
        [region] => f.blocks.get(region.index()),
        _ => None,
    };
    let Some(body) = body else {
        return Err(x.invalid(
            format!(
                "needs exactly one reducer region of its function, has {}",
                x.op.regions.len()
            ),
            "give the reduce one reducer block".to_string(),
        ));
    };
    if n != 1 {
        return Ok(Combiner::Body);
    }
    if let ([id], [acc, elem], [out]) = (
        body.ops.as_slice(),
        body.args.as_slice(),
        body.results.as_slice(),
    ) && let Some(op) = f.ops.get(id.index())
        && let OpKind::Binary(binary) = op.kind
        && op.results == [*out]
        && (op.operands == [*acc, *elem] || op.operands == [*elem, *acc])
        && let Some(c) = Combiner::of_binary(binary)
    {
        return Ok(c);
    }
    Ok(Combiner::Body)
}

/// The factorization of `reshape` (see `reshape.rs`). Factors shared by both sides pass
/// through, as do factors of the result only (a device holding the operand can produce
/// any part of the result). A factor of size > 1 in the operand only (where the shapes
/// have no digit in common, as in `2x3 -> 3x2`) needs replication: no sharding of it
/// corresponds to a sharding of the result, so the partitioner must gather it. Shardy
/// leaves such factors pass-through; marking them says outright what they cost.
///
/// A reshape of an empty tensor has no elements to move: every operand dimension is a
/// need-replication factor and every result dimension a pass-through factor of its own.
fn reshape(x: &Instance) -> RuleBuilder {
    let (input, output) = (x.operand_shape(0), x.result_shape(0));
    let mut b = x.builder();
    match reshape_factors(input, output) {
        Ok(factors) => {
            for rf in factors {
                let kind = match (rf.input, rf.output) {
                    (Some(_), None) if rf.size > 1 => NeedReplication,
                    _ => PassThrough,
                };
                b.factor(rf.size, kind, &[rf.input], &[rf.output]);
            }
        }
        Err(_) => {
            // The typing rule holds, so this is the empty case.
            for (d, &n) in input.iter().enumerate() {
                b.factor(n, NeedReplication, &[Some(d)], &[]);
            }
            for (d, &n) in output.iter().enumerate() {
                b.factor(n, PassThrough, &[], &[Some(d)]);
            }
        }
    }
    b
}

/// One factor per dimension, of the operand's size (as in Shardy), shared by operand and
/// result. A dimension the slice keeps whole passes through; any other (a start, a
/// limit or a stride) moves elements across shard boundaries: *permutation* (the
/// offsets are static, so the partitioner knows where each element goes).
fn slice(x: &Instance, start: &[usize], limit: &[usize], strides: &[usize]) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.operand_shape(0).iter().enumerate() {
        let whole = start[d] == 0 && limit[d] == n && strides[d] == 1;
        b.factor(
            n,
            if whole { PassThrough } else { Permutation },
            &[Some(d)],
            &[Some(d)],
        );
    }
    b
}

/// One factor per dimension, shared by operand and result; the rotated dimension is a
/// rotation factor with the shift taken modulo its size (`shift = -1` of 4 is a rotation
/// by 3), or pass-through when that is 0. shardc's op (Shardy has no roll): sharded along
/// the rotated dimension by blocks that divide the shift, it runs as a collective permute
/// of whole blocks instead of a gather (`docs/pipeline.md`).
fn rotate(x: &Instance, dimension: usize, shift: i64) -> RuleBuilder {
    let mut b = x.builder();
    for (d, &n) in x.operand_shape(0).iter().enumerate() {
        let by = i64::try_from(n)
            .ok()
            .filter(|&n| n > 0)
            .map_or(0, |n| shift.rem_euclid(n) as usize);
        let kind = if d == dimension && by != 0 {
            FactorKind::Rotation { shift: by }
        } else {
            PassThrough
        };
        b.factor(n, kind, &[Some(d)], &[Some(d)]);
    }
    b
}

/// `([k, j, l, i])->([i, j, k, l])` for permutation `[3, 1, 0, 2]`: a factor per result
/// dimension, shared with the operand dimension it comes from.
fn transpose(x: &Instance, permutation: &[usize]) -> RuleBuilder {
    let input = x.operand_shape(0);
    let mut b = x.builder();
    for (od, &id) in permutation.iter().enumerate() {
        b.factor(input[id], PassThrough, &[Some(id)], &[Some(od)]);
    }
    b
}
