//! The VJP (vector-Jacobian product) rule of every op family, for `differentiate.rs`.
//!
//! A rule gets one op of the forward program (its operands and results already copied
//! into the function being built), the cotangents of its results and which operands want
//! a cotangent, and emits the ops computing those operands' cotangents. It returns one
//! entry per operand: `None` where the operand gets no contribution (it is not wanted,
//! is not float, or the op's derivative with respect to it is zero almost everywhere).
//!
//! [`vjp`] is the table: one arm per op family (the elementwise families delegate to
//! `unary` and `binary`, one line per op); ops without a rule are listed with the
//! reason. The rules follow JAX's (`jax/_src/lax/lax.py`, `slicing.py`): in particular
//! `maximum`/`minimum` split the cotangent between tied operands, and a `max`/`min`
//! reduce divides it among tied positions. `docs/autodiff.md` lists every rule.

use shardc_ir::{
    AxisRef, BinaryOp, BlockId, ComparisonDirection, ComparisonType, ConvDims, DType, DotDims,
    Function, FunctionBuilder, GatherDims, IrError, Literal, Mesh, Op, OpKind, Scalar, ScatterDims,
    Sharding, TensorType, UnaryOp, ValueId, WindowDims,
};
use std::collections::HashMap;

/// One op of the forward program, as a rule sees it.
pub struct Primal<'a> {
    /// The function the op was read from (its regions live there).
    pub src: &'a Function,
    /// The op, as in `src`.
    pub op: &'a Op,
    /// The op's operands and results in the function being built.
    pub operands: Vec<ValueId>,
    /// The op's results in the function being built.
    pub results: Vec<ValueId>,
    /// The cotangent of each result, where one reached it.
    pub cotangents: Vec<Option<ValueId>>,
    /// Whether each operand wants a cotangent (it is float and lies between a
    /// differentiated argument and the loss).
    pub needs: Vec<bool>,
    /// The module's meshes (a `shard_map`'s VJP reads its axes' sizes).
    pub meshes: &'a [Mesh],
}

/// Why a rule emitted nothing.
#[derive(Debug)]
pub enum VjpError {
    /// The op has no VJP in this form: why, and what to do instead.
    NoRule {
        /// Why the op has no VJP in this form.
        why: String,
        /// What to write instead.
        fix: String,
    },
    /// An op the rule emitted broke its typing rule (a bug in the rule).
    Build(IrError),
    /// The rule was called without what it needs (a bug in the caller).
    Misuse(String),
}

impl VjpError {
    /// A region's failure, as its op's: `what` (a region of the op) does not
    /// differentiate, why, and the region's fix (`fix` when it has none).
    fn within(self, what: &str, fix: &str) -> VjpError {
        match self {
            VjpError::NoRule { why, fix: inner } => VjpError::NoRule {
                why: format!("{what} does not differentiate: {why}"),
                fix: if inner.is_empty() { fix.into() } else { inner },
            },
            other => other,
        }
    }
}

impl From<IrError> for VjpError {
    fn from(e: IrError) -> VjpError {
        VjpError::Build(e)
    }
}

fn no_rule<T>(why: impl Into<String>, fix: impl Into<String>) -> Result<T, VjpError> {
    Err(VjpError::NoRule {
        why: why.into(),
        fix: fix.into(),
    })
}

/// The cotangents of one op's operands (one entry per operand).
pub type Cotangents = Vec<Option<ValueId>>;

/// The table: the VJP of one op, by family.
pub fn vjp(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    let n = p.operands.len();
    match &p.op.kind {
        OpKind::Unary(u) => Ok(vec![unary(e, *u, p)?]),
        OpKind::Binary(b) => binary(e, *b, p),
        // Boolean results: nothing flows back.
        OpKind::Compare { .. } => Ok(vec![None; n]),

        // The rest, alphabetically.
        // Bits read as another type have no derivative; integer operands (random bits)
        // need none.
        OpKind::BitcastConvert => {
            if p.needs[0] && e.ty(p.operands[0]).dtype.is_float() {
                return no_rule(
                    "bitcast_convert reinterprets bits, which has no derivative",
                    "keep the bitcast operand out of what is differentiated (stop its gradient)",
                );
            }
            Ok(vec![None])
        }
        OpKind::BroadcastInDim { dims } => Ok(vec![broadcast_in_dim(e, p, dims)?]),
        // Each operand's cotangent is its result's.
        OpKind::OptimizationBarrier => Ok(p
            .needs
            .iter()
            .zip(&p.cotangents)
            .map(|(&need, g)| if need { *g } else { None })
            .collect()),
        OpKind::Convolution(d) => convolution(e, p, d),
        OpKind::SelectAndScatter(w) => select_and_scatter(e, p, w),
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        } => manual_computation(e, p, in_shardings, out_shardings, manual_axes),
        OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::Lu
        | OpKind::TridiagonalSolve
        | OpKind::Geqrf
        | OpKind::HouseholderProduct
        | OpKind::Eigh { .. }
        | OpKind::Svd { .. } => no_rule(
            "factorizations and triangular solves are not differentiated by shardc yet",
            "differentiate in JAX (export the step jax.grad made: the backward pass of a Cholesky or LU is more triangular solves, which run as they are)",
        ),
        OpKind::Fft { .. } => no_rule(
            "Fourier transforms are not differentiated by shardc yet",
            "differentiate in JAX (export the step jax.grad made: its backward pass is more transforms, which run as they are)",
        ),
        OpKind::While => no_rule(
            "a loop is differentiated unrolled, which needs its trip count when compiling (a counter from a constant, `counter < constant`, stepped by 1: lax.fori_loop with constant bounds, lax.scan), and this one's is not known",
            "give the loop constant bounds, or differentiate in JAX (export the training step jax.grad made)",
        ),
        OpKind::Case => case(e, p),
        OpKind::Call { callee } => no_rule(
            format!("it calls @{callee}, and calls are not differentiated through"),
            "inline the call first (value_and_grad inlines every call of the entry function)",
        ),
        OpKind::Clamp => clamp(e, p),
        OpKind::Concatenate { dimension } => concatenate(e, p, *dimension),
        // No operands.
        OpKind::Constant(_) | OpKind::Iota { .. } => Ok(Vec::new()),
        OpKind::Convert => Ok(vec![convert(e, p)?]),
        OpKind::DotGeneral(dims) => dot_general(e, p, dims),
        OpKind::Gather(dims) => gather(e, p, dims),
        OpKind::Scatter(dims) => scatter(e, p, dims),
        OpKind::Sort { dimension, .. } => sort(e, p, *dimension),
        OpKind::Pad {
            low,
            high,
            interior,
        } => pad(e, p, low, high, interior),
        // The seed is an integer: the numbers do not vary with anything differentiable.
        OpKind::Random { .. } | OpKind::RngBitGenerator { .. } => Ok(vec![None; n]),
        OpKind::Reduce { dimensions } => reduce(e, p, dimensions),
        OpKind::ReduceWindow(w) => reduce_window(e, p, w),
        OpKind::DynamicSlice { .. } => dynamic_slice(e, p),
        OpKind::DynamicUpdateSlice => dynamic_update_slice(e, p),
        // rotate(g) back: by -shift (as n - shift mod n, which cannot overflow).
        OpKind::Rotate { dimension, shift } => {
            let n = i64::try_from(e.ty(p.operands[0]).shape[*dimension]).unwrap_or(i64::MAX);
            let back = if n > 0 { n - shift.rem_euclid(n) } else { 0 };
            let kind = OpKind::Rotate {
                dimension: *dimension,
                shift: back,
            };
            Ok(vec![Some(e.b.push1(kind, &[g(p)?])?)])
        }
        // reverse(g) along the same dimensions.
        OpKind::Reverse { dimensions } => Ok(vec![Some(e.b.push1(
            OpKind::Reverse {
                dimensions: dimensions.clone(),
            },
            &[g(p)?],
        )?)]),
        // reshape(g) back to the operand's shape.
        OpKind::Reshape => {
            let x = p.operands[0];
            let shape = e.ty(x).shape;
            Ok(vec![Some(e.reshape(g(p)?, &shape)?)])
        }
        // select(pred, g, 0) to on_true, select(pred, 0, g) to on_false; none to pred.
        OpKind::Select => {
            let (pred, g) = (p.operands[0], g(p)?);
            let mut out = vec![None; 3];
            if p.needs[1] || p.needs[2] {
                let zero = e.zeros_like(g);
                if p.needs[1] {
                    out[1] = Some(e.select(pred, g, zero)?);
                }
                if p.needs[2] {
                    out[2] = Some(e.select(pred, zero, g)?);
                }
            }
            Ok(out)
        }
        // JAX: the cotangent is constrained like the primal.
        OpKind::ShardingConstraint(s) => Ok(vec![Some(
            e.b.push1(OpKind::ShardingConstraint(s.clone()), &[g(p)?])?,
        )]),
        OpKind::Slice {
            start,
            limit: _,
            strides,
        } => Ok(vec![slice(e, p, start, strides)?]),
        // transpose(g, inverse permutation).
        OpKind::Transpose { permutation } => {
            let mut inverse = vec![0; permutation.len()];
            for (i, &d) in permutation.iter().enumerate() {
                inverse[d] = i;
            }
            Ok(vec![Some(e.transpose(g(p)?, &inverse)?)])
        }
        // In a `shard_map` body: each collective's transpose over its groups.
        OpKind::AllGather { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. }
        | OpKind::AllToAll { .. }
        | OpKind::CollectivePermute { .. } => collective(e, p),
        // A device's index: an integer.
        OpKind::AxisIndex { .. } | OpKind::PartitionId => Ok(vec![None; n]),
        OpKind::ShardSlice { .. } => no_rule(
            "it is an op of partitioned (per-device) programs",
            "differentiate the global program, before partitioning",
        ),
    }
}

/// The cotangent of a one-result op's result (a rule runs only when it has one).
fn g(p: &Primal) -> Result<ValueId, VjpError> {
    p.cotangents.first().copied().flatten().ok_or_else(|| {
        VjpError::Misuse(format!(
            "the VJP of {} was asked for without a cotangent of its result",
            p.op.kind.name()
        ))
    })
}

/// One line per unary op: the cotangent of `x` from `g`, with `z` the op's result.
fn unary(e: &mut Emitter, u: UnaryOp, p: &Primal) -> Result<Option<ValueId>, VjpError> {
    use UnaryOp::*;
    let (x, z, g) = (p.operands[0], p.results[0], g(p)?);
    let gx = match u {
        // -g
        Negate => e.unary(Negate, g)?,
        // g * exp(x) = g * z
        Exponential => e.mul(g, z)?,
        // g * (z + 1)
        ExponentialMinusOne => {
            let z1 = e.add_const(z, 1.0)?;
            e.mul(g, z1)?
        }
        // g / x
        Log => e.div(g, x)?,
        // g / (x + 1)
        LogPlusOne => {
            let x1 = e.add_const(x, 1.0)?;
            e.div(g, x1)?
        }
        // g * (1 - z^2)
        Tanh => {
            let zz = e.mul(z, z)?;
            let one = e.full_like(z, 1.0);
            let d = e.binary(BinaryOp::Subtract, one, zz)?;
            e.mul(g, d)?
        }
        // g * 0.5 / z
        Sqrt => {
            let half = e.full_like(z, 0.5);
            let d = e.div(half, z)?;
            e.mul(g, d)?
        }
        // g * -0.5 * z / x
        Rsqrt => {
            let zx = e.div(z, x)?;
            let d = e.mul_const(zx, -0.5)?;
            e.mul(g, d)?
        }
        // g * (1/3) / z^2
        Cbrt => {
            let zz = e.mul(z, z)?;
            let third = e.full_like(z, 1.0 / 3.0);
            let d = e.div(third, zz)?;
            e.mul(g, d)?
        }
        // g * sign(x)
        Abs => {
            let s = e.unary(Sign, x)?;
            e.mul(g, s)?
        }
        // g * z * (1 - z)
        Logistic => {
            let one = e.full_like(z, 1.0);
            let omz = e.binary(BinaryOp::Subtract, one, z)?;
            let d = e.mul(z, omz)?;
            e.mul(g, d)?
        }
        // g * cos(x)
        Sine => {
            let c = e.unary(Cosine, x)?;
            e.mul(g, c)?
        }
        // -g * sin(x)
        Cosine => {
            let s = e.unary(Sine, x)?;
            let gs = e.mul(g, s)?;
            e.unary(Negate, gs)?
        }
        // g * (1 + z^2)
        Tan => {
            let zz = e.mul(z, z)?;
            let d = e.add_const(zz, 1.0)?;
            e.mul(g, d)?
        }
        // Piecewise constant: zero almost everywhere (JAX: zero).
        Floor | Ceil | Sign | RoundNearestEven | RoundNearestAfz => return Ok(None),
        // Integer or boolean results: nothing flows back.
        Not | IsFinite | Popcnt | CountLeadingZeros => return Ok(None),
    };
    Ok(Some(gx))
}

/// One arm per binary op: the cotangents of `x` and `y` (each only if wanted).
fn binary(e: &mut Emitter, b: BinaryOp, p: &Primal) -> Result<Cotangents, VjpError> {
    use BinaryOp::*;
    let (x, y, z, g) = (p.operands[0], p.operands[1], p.results[0], g(p)?);
    let (nx, ny) = (p.needs[0], p.needs[1]);
    let (gx, gy) = match b {
        // g, g
        Add => (nx.then_some(g), ny.then_some(g)),
        // g, -g
        Subtract => (
            nx.then_some(g),
            e.when(ny, |e| e.unary(UnaryOp::Negate, g))?,
        ),
        // g * y, g * x
        Multiply => (e.when(nx, |e| e.mul(g, y))?, e.when(ny, |e| e.mul(g, x))?),
        // g / y, -(g * z / y)
        Divide => {
            let gx = e.when(nx, |e| e.div(g, y))?;
            let gy = e.when(ny, |e| {
                let gz = e.mul(g, z)?;
                let q = e.div(gz, y)?;
                e.unary(UnaryOp::Negate, q)
            })?;
            (gx, gy)
        }
        // g, -g * trunc(x / y) with trunc(q) = sign(q) * floor(|q|) (JAX's rule)
        Remainder => {
            let gy = e.when(ny, |e| {
                let q = e.div(x, y)?;
                let s = e.unary(UnaryOp::Sign, q)?;
                let a = e.unary(UnaryOp::Abs, q)?;
                let f = e.unary(UnaryOp::Floor, a)?;
                let t = e.mul(s, f)?;
                let gt = e.mul(g, t)?;
                e.unary(UnaryOp::Negate, gt)
            })?;
            (nx.then_some(g), gy)
        }
        // JAX's `_balanced_eq`: g * [x == z] / (1 + [y == z]), ties split in half.
        Maximum | Minimum => (
            e.when(nx, |e| balanced_share(e, g, x, z, y))?,
            e.when(ny, |e| balanced_share(e, g, y, z, x))?,
        ),
        // g * (y == 0 ? 0 : y * x^(y-1)), g * z * log(x == 0 ? 1 : x) (JAX's guards)
        Power => {
            let gx = e.when(nx, |e| {
                let y1 = e.add_const(y, -1.0)?;
                let pw = e.binary(Power, x, y1)?;
                let d = e.mul(y, pw)?;
                let y0 = e.compare_const(ComparisonDirection::Eq, y, 0.0)?;
                let zero = e.zeros_like(d);
                let d = e.select(y0, zero, d)?;
                e.mul(g, d)
            })?;
            let gy = e.when(ny, |e| {
                let x0 = e.compare_const(ComparisonDirection::Eq, x, 0.0)?;
                let one = e.full_like(x, 1.0);
                let safe = e.select(x0, one, x)?;
                let l = e.unary(UnaryOp::Log, safe)?;
                let d = e.mul(z, l)?;
                e.mul(g, d)
            })?;
            (gx, gy)
        }
        // atan2(x, y): g * y / (x^2 + y^2), -g * x / (x^2 + y^2)
        Atan2 => {
            let xx = e.mul(x, x)?;
            let yy = e.mul(y, y)?;
            let r = e.binary(Add, xx, yy)?;
            let gr = e.div(g, r)?;
            let gx = e.when(nx, |e| e.mul(gr, y))?;
            let gy = e.when(ny, |e| {
                let t = e.mul(gr, x)?;
                e.unary(UnaryOp::Negate, t)
            })?;
            (gx, gy)
        }
        // Integer or boolean only: nothing flows back.
        And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => (None, None),
    };
    Ok(vec![gx, gy])
}

/// `g * select(a == z, 1, 0) / select(b == z, 2, 1)`: `a`'s share of `g` where `z` is the
/// maximum (or minimum) of `a` and `b`.
fn balanced_share(
    e: &mut Emitter,
    g: ValueId,
    a: ValueId,
    z: ValueId,
    b: ValueId,
) -> Result<ValueId, IrError> {
    let (zero, one, two) = (
        e.full_like(z, 0.0),
        e.full_like(z, 1.0),
        e.full_like(z, 2.0),
    );
    let az = e.compare(ComparisonDirection::Eq, a, z)?;
    let bz = e.compare(ComparisonDirection::Eq, b, z)?;
    let num = e.select(az, one, zero)?;
    let den = e.select(bz, two, one)?;
    let share = e.div(num, den)?;
    e.mul(g, share)
}

/// `clamp(lo, x, hi)` (JAX's rule): x gets `g` where `lo < x < hi`; `lo` where
/// `lo > x` and `lo < hi`; `hi` where `hi < x`. A scalar bound's cotangent is summed.
fn clamp(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    use ComparisonDirection::{Gt, Lt};
    let (x, g) = (p.operands[1], g(p)?);
    let shape = e.ty(x).shape;
    let full = |e: &mut Emitter, v: ValueId| -> Result<ValueId, IrError> {
        if e.ty(v).shape == shape {
            Ok(v)
        } else {
            e.broadcast(v, &shape, &[])
        }
    };
    let lo = full(e, p.operands[0])?;
    let hi = full(e, p.operands[2])?;
    let mut out = vec![None; 3];
    let masked = |e: &mut Emitter, pred: ValueId, bound: Option<ValueId>| {
        let zero = e.zeros_like(g);
        let s = e.select(pred, g, zero)?;
        match bound {
            Some(b) if e.ty(b).rank() == 0 && e.ty(s).rank() != 0 => e.sum_all(s),
            _ => Ok(s),
        }
    };
    if p.needs[1] {
        let a = e.compare(Gt, x, lo)?;
        let b = e.compare(Lt, x, hi)?;
        let inside = e.binary(BinaryOp::And, a, b)?;
        out[1] = Some(masked(e, inside, None)?);
    }
    if p.needs[0] {
        let a = e.compare(Gt, lo, x)?;
        let b = e.compare(Lt, lo, hi)?;
        let below = e.binary(BinaryOp::And, a, b)?;
        out[0] = Some(masked(e, below, Some(p.operands[0]))?);
    }
    if p.needs[2] {
        let above = e.compare(Lt, hi, x)?;
        out[2] = Some(masked(e, above, Some(p.operands[2]))?);
    }
    Ok(out)
}

/// `convert(g)` back to the operand's float type; nothing for integer operands or results.
fn convert(e: &mut Emitter, p: &Primal) -> Result<Option<ValueId>, VjpError> {
    let x = p.operands[0];
    let (from, to) = (e.ty(x).dtype, e.ty(p.results[0]).dtype);
    if !from.is_float() || !to.is_float() {
        return Ok(None);
    }
    Ok(Some(e.convert(g(p)?, from)?))
}

/// `broadcast_in_dim`: `g` summed over the result dimensions the operand does not map to
/// and over the operand's size-1 dimensions that were stretched, then transposed into the
/// operand's dimension order and reshaped to its shape.
fn broadcast_in_dim(
    e: &mut Emitter,
    p: &Primal,
    dims: &[usize],
) -> Result<Option<ValueId>, VjpError> {
    let (x, g) = (p.operands[0], g(p)?);
    let (xs, zs) = (e.ty(x).shape, e.ty(g).shape);
    let stretched = |i: usize| xs[i] == 1 && zs[dims[i]] != 1;
    let mut summed: Vec<usize> = (0..zs.len()).filter(|d| !dims.contains(d)).collect();
    summed.extend((0..xs.len()).filter(|&i| stretched(i)).map(|i| dims[i]));
    summed.sort_unstable();
    let s = e.sum(g, &summed)?;
    // The sum keeps the mapped dimensions in result order; the operand lists them in its own.
    let kept: Vec<usize> = (0..xs.len()).filter(|&i| !stretched(i)).collect();
    let mut by_result = kept.clone();
    by_result.sort_by_key(|&i| dims[i]);
    let perm: Vec<usize> = kept
        .iter()
        .map(|i| by_result.iter().position(|j| j == i).unwrap_or(0))
        .collect();
    let t = e.transpose(s, &perm)?;
    Ok(Some(e.reshape(t, &xs)?))
}

/// `slice`: `g` padded back with zeros: `start` before, the rest after, `stride - 1`
/// between elements.
fn slice(
    e: &mut Emitter,
    p: &Primal,
    start: &[usize],
    strides: &[usize],
) -> Result<Option<ValueId>, VjpError> {
    let (x, g) = (p.operands[0], g(p)?);
    let (xs, zs) = (e.ty(x).shape, e.ty(g).shape);
    let low: Vec<i64> = start.iter().map(|&s| s as i64).collect();
    let interior: Vec<i64> = strides.iter().map(|&s| s as i64 - 1).collect();
    let high: Vec<i64> = (0..xs.len())
        .map(|d| {
            let covered = zs[d] as i64 + (zs[d] as i64 - 1).max(0) * interior[d];
            xs[d] as i64 - low[d] - covered
        })
        .collect();
    if low.iter().chain(&high).chain(&interior).all(|&v| v == 0) {
        return Ok(Some(g));
    }
    Ok(Some(e.pad(g, &low, &high, &interior)?))
}

/// `concatenate`: operand `k` gets its slab of `g` along the dimension.
fn concatenate(e: &mut Emitter, p: &Primal, dimension: usize) -> Result<Cotangents, VjpError> {
    let g = g(p)?;
    let shape = e.ty(g).shape;
    let mut offset = 0;
    let mut out = Vec::with_capacity(p.operands.len());
    for (&x, &need) in p.operands.iter().zip(&p.needs) {
        let n = e.ty(x).shape[dimension];
        if need {
            let mut start = vec![0; shape.len()];
            let mut limit = shape.clone();
            start[dimension] = offset;
            limit[dimension] = offset + n;
            out.push(Some(e.slice(g, &start, &limit, &vec![1; shape.len()])?));
        } else {
            out.push(None);
        }
        offset += n;
    }
    Ok(out)
}

/// `pad(x, v)` (JAX's rule): `x` gets `g` with the edge padding undone (negative padding
/// re-added as zeros) and every `interior + 1`-th element kept; the padding value gets
/// `sum(g) - sum(g_x)`.
fn pad(
    e: &mut Emitter,
    p: &Primal,
    low: &[i64],
    high: &[i64],
    interior: &[i64],
) -> Result<Cotangents, VjpError> {
    let (x, g) = (p.operands[0], g(p)?);
    let xs = e.ty(x).shape;
    let rank = xs.len();
    // The extent of x's elements in g, interior padding included, per dimension.
    let span = |d: usize| (xs[d] as i64 - 1).max(0) * (interior[d] + 1) + (xs[d] > 0) as i64;
    let strides: Vec<usize> = interior.iter().map(|&i| i as usize + 1).collect();
    let gx = if low.iter().chain(high).all(|&v| v >= 0) {
        let start: Vec<usize> = low.iter().map(|&l| l as usize).collect();
        let limit: Vec<usize> = (0..rank).map(|d| (low[d] + span(d)) as usize).collect();
        e.slice(g, &start, &limit, &strides)?
    } else {
        let neg = |v: &[i64]| v.iter().map(|&a| -a).collect::<Vec<_>>();
        let unpadded = e.pad(g, &neg(low), &neg(high), &vec![0; rank])?;
        let limit: Vec<usize> = (0..rank).map(|d| span(d) as usize).collect();
        e.slice(unpadded, &vec![0; rank], &limit, &strides)?
    };
    let gv = e.when(p.needs[1], |e| {
        let all = e.sum_all(g)?;
        let inner = e.sum_all(gx)?;
        e.binary(BinaryOp::Subtract, all, inner)
    })?;
    Ok(vec![p.needs[0].then_some(gx), gv])
}

/// The VJP of a branch (`lax.cond`, `lax.switch`): a branch on the same index whose
/// regions are the branches' VJPs. Branch `k`'s is the gradient, with respect to the
/// values the branches read from outside, of `sum_j <result_j, cotangent_j>` computed by
/// branch `k` ([`inner_product_grad`]), copied into the region; the cotangents and the
/// values read are read from outside the new branch as the old one read them.
fn case(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    let n = p.op.operands.len();
    let captured: Vec<ValueId> = p.op.operands[1..].to_vec();
    let wanted: Vec<usize> = (1..n).filter(|&i| p.needs[i]).collect();
    let cts = reached(p);
    if wanted.is_empty() || cts.is_empty() {
        return Ok(vec![None; n]);
    }
    let mut regions = Vec::with_capacity(p.op.regions.len());
    for (k, &r) in p.op.regions.iter().enumerate() {
        let branch = shardc_ir::unroll::region_function(p.src, r, "main", &captured)?;
        let weighted: Vec<(usize, f64)> = cts.iter().map(|&(j, _)| (j, 1.0)).collect();
        let wrt: Vec<usize> = wanted.iter().map(|&i| i - 1).collect();
        let g = inner_product_grad(&branch, &weighted, &wrt, p.meshes).map_err(|err| {
            err.within(
                &format!("branch {k} of it"),
                "differentiate in JAX (export the training step jax.grad made), or select between both results (jnp.where)",
            )
        })?;
        // The gradient's arguments are what the branch read and the cotangents, from
        // outside the region.
        let outside: Vec<ValueId> = p.operands[1..]
            .iter()
            .copied()
            .chain(cts.iter().map(|&(_, c)| c))
            .collect();
        e.b.begin_block(&[]);
        match inline_into(e.b, &g, &outside) {
            Ok(results) => regions.push(e.b.end_block(&results)),
            Err(err) => {
                e.b.end_block(&[]);
                return Err(err);
            }
        }
    }
    let types: Vec<TensorType> = wanted.iter().map(|&i| e.ty(p.operands[i])).collect();
    let id =
        e.b.push_region_op(OpKind::Case, &[p.operands[0]], Some(&types), regions)?;
    let results = e.b.func().op(id).results.clone();
    let mut out = vec![None; n];
    for (&i, r) in wanted.iter().zip(results) {
        out[i] = Some(r);
    }
    Ok(out)
}

/// The VJP of a `shard_map` body (`sdy.manual_computation`): a manual computation over
/// the same axes whose body is the body's gradient, per device. Every device holds its
/// pieces of the operands and of the results' cotangents (laid out as the results are)
/// and computes the gradient of `sum_j <y_j, ct_j> / copies_j` with respect to its
/// pieces ([`inner_product_grad`]; the body's collectives transpose per device:
/// `psum` to `psum`, `all_gather` to `psum_scatter` and back, `all_to_all` to the
/// reverse `all_to_all`, `ppermute` to the reverse permutation). `copies_j` is the
/// number of devices holding the same piece of result `j` (the manual axes its
/// `out_sharding` does not split): the global result is each copy, so each copy's
/// cotangent is its share. The cotangent of an operand replicated over manual axes (its
/// `in_sharding` does not split them) is then summed over those axes, since every
/// device's piece was a copy of it. The body's forward pass is computed again inside
/// the new body (as `jax.checkpoint` of the `shard_map` would), collectives included.
fn manual_computation(
    e: &mut Emitter,
    p: &Primal,
    ins: &[Sharding],
    outs: &[Sharding],
    manual: &[String],
) -> Result<Cotangents, VjpError> {
    let n = p.operands.len();
    let wanted: Vec<usize> = (0..n)
        .filter(|&i| p.needs[i] && e.ty(p.operands[i]).dtype.is_float())
        .collect();
    let cts = reached(p);
    if wanted.is_empty() || cts.is_empty() {
        return Ok(vec![None; n]);
    }
    let mesh_name = ins.iter().chain(outs).map(|s| s.mesh.as_str()).next();
    let Some(mesh) = p.meshes.iter().find(|m| Some(m.name.as_str()) == mesh_name) else {
        return no_rule(
            format!(
                "its shardings name mesh @{}, which the module does not declare",
                mesh_name.unwrap_or("?")
            ),
            "declare the mesh with sdy.mesh in the differentiated module",
        );
    };
    // The manual axes a sharding does not split: the devices holding copies of a piece.
    let unsplit = |s: &Sharding| -> Vec<AxisRef> {
        manual
            .iter()
            .filter(|a| !s.dims.iter().any(|d| d.axes.iter().any(|x| &x.name == *a)))
            .map(|a| AxisRef::new(a))
            .collect()
    };
    let copies = |s: &Sharding| -> usize {
        unsplit(s)
            .iter()
            .map(|a| mesh.axis_size(&a.name).unwrap_or(1))
            .product()
    };
    let [region] = p.op.regions.as_slice() else {
        return Err(VjpError::Misuse(
            "a manual computation has one region".into(),
        ));
    };
    let body = shardc_ir::unroll::region_function(p.src, *region, "main", &[])?;
    let weighted: Vec<(usize, f64)> = cts
        .iter()
        .map(|&(j, _)| (j, 1.0 / copies(&outs[j]) as f64))
        .collect();
    let g = inner_product_grad(&body, &weighted, &wanted, p.meshes).map_err(|err| {
        err.within(
            "its body",
            "differentiate in JAX (jax.grad of a shard_map exports the transposed body)",
        )
    })?;
    let operands: Vec<ValueId> = p
        .operands
        .iter()
        .copied()
        .chain(cts.iter().map(|&(_, c)| c))
        .collect();
    let in_shardings: Vec<Sharding> = ins
        .iter()
        .cloned()
        .chain(cts.iter().map(|&(j, _)| outs[j].clone()))
        .collect();
    let out_shardings: Vec<Sharding> = wanted.iter().map(|&i| ins[i].clone()).collect();
    let types: Vec<TensorType> = wanted.iter().map(|&i| e.ty(p.operands[i])).collect();
    let args = e.b.begin_block(&g.arg_types());
    let summed = inline_into(e.b, &g, &args).and_then(|pieces| {
        wanted
            .iter()
            .zip(pieces)
            .map(|(&i, piece)| {
                let axes = unsplit(&ins[i]);
                if axes.is_empty() {
                    return Ok(piece);
                }
                let groups = mesh.replica_groups(&axes).ok_or_else(|| {
                    VjpError::Misuse(format!("manual axes {axes:?} are not all in the mesh"))
                })?;
                let ty = e.b.ty(piece).clone();
                Ok(summed_collective(
                    e.b,
                    OpKind::AllReduce { groups },
                    piece,
                    ty,
                )?)
            })
            .collect::<Result<Vec<_>, VjpError>>()
    });
    let results = match summed {
        Ok(r) => r,
        Err(err) => {
            e.b.end_block(&[]);
            return Err(err);
        }
    };
    let block = e.b.end_block(&results);
    let kind = OpKind::ManualComputation {
        in_shardings,
        out_shardings,
        manual_axes: manual.to_vec(),
    };
    let id = e.b.push(kind, &operands, Some(&types), vec![block])?;
    let results = e.b.func().op(id).results.clone();
    let mut out = vec![None; n];
    for (&i, r) in wanted.iter().zip(results) {
        out[i] = Some(r);
    }
    Ok(out)
}

/// The results a cotangent reached, with it.
fn reached(p: &Primal) -> Vec<(usize, ValueId)> {
    p.cotangents
        .iter()
        .enumerate()
        .filter_map(|(j, c)| c.map(|c| (j, c)))
        .collect()
}

/// The gradient of `sum_j scale_j <f.result_j, ct_j>` with respect to `f`'s arguments
/// `wrt`, as a function of `f`'s arguments followed by the cotangents (one per entry of
/// `weighted`: a result of `f` and its scale, the cotangent typed as that result).
fn inner_product_grad(
    f: &Function,
    weighted: &[(usize, f64)],
    wrt: &[usize],
    meshes: &[Mesh],
) -> Result<Function, VjpError> {
    let ct_types: Vec<TensorType> = weighted
        .iter()
        .map(|&(j, _)| f.ty(f.results()[j]).clone())
        .collect();
    let loss_type = TensorType::scalar(ct_types[0].dtype);
    let mut b = FunctionBuilder::new("main", &[f.arg_types(), ct_types.clone()].concat());
    let args = b.args();
    let mut map: HashMap<ValueId, ValueId> =
        f.args().iter().copied().zip(args.iter().copied()).collect();
    for (_, o) in f.body_ops() {
        b.copy_op(f, o, &mut map)?;
    }
    let mut loss: Option<ValueId> = None;
    for (c, &(j, scale)) in weighted.iter().enumerate() {
        let y = map[&f.results()[j]];
        let t = b.ty(y).clone();
        let prod = b.binary(BinaryOp::Multiply, y, args[f.args().len() + c])?;
        let zero = b.constant(Literal::scalar(t.dtype, Scalar::Float(0.0)));
        let dims: Vec<usize> = (0..t.rank()).collect();
        let mut sum = b.reduce(prod, zero, &dims, BinaryOp::Add)?;
        if t.dtype != loss_type.dtype {
            sum = b.push1_typed(OpKind::Convert, &[sum], loss_type.clone())?;
        }
        if scale != 1.0 {
            let k = b.constant(Literal::scalar(loss_type.dtype, Scalar::Float(scale)));
            sum = b.binary(BinaryOp::Multiply, sum, k)?;
        }
        loss = Some(match loss {
            None => sum,
            Some(l) => b.binary(BinaryOp::Add, l, sum)?,
        });
    }
    let loss = loss.ok_or_else(|| VjpError::Misuse("no cotangent to weigh".into()))?;
    let h = shardc_ir::Module {
        functions: vec![b.finish(&[loss])],
        meshes: meshes.to_vec(),
        ..Default::default()
    };
    let gm = crate::autodiff::differentiate::grad(&h, wrt).map_err(|err| match err {
        crate::error::CompileError::NotDifferentiable { what, why, fix } => VjpError::NoRule {
            why: format!("{what} (the region's op) has no VJP: {why}"),
            fix,
        },
        other => VjpError::NoRule {
            why: other.to_string(),
            fix: String::new(),
        },
    })?;
    gm.functions
        .into_iter()
        .next()
        .ok_or_else(|| VjpError::Misuse("a gradient without a function".into()))
}

/// Copies `g`'s body into the open block of `b`, its arguments read as `inputs`; its
/// results there.
fn inline_into(
    b: &mut FunctionBuilder,
    g: &Function,
    inputs: &[ValueId],
) -> Result<Vec<ValueId>, VjpError> {
    let mut map: HashMap<ValueId, ValueId> = g
        .args()
        .iter()
        .copied()
        .zip(inputs.iter().copied())
        .collect();
    for (_, o) in g.body_ops() {
        b.copy_op(g, o, &mut map)?;
    }
    Ok(g.results().iter().map(|v| map[v]).collect())
}

/// A collective that sums (`all_reduce`, `reduce_scatter`) of `x`, typed `ty`.
fn summed_collective(
    b: &mut FunctionBuilder,
    kind: OpKind,
    x: ValueId,
    ty: TensorType,
) -> Result<ValueId, IrError> {
    let reducer = b.binary_reducer(ty.dtype, BinaryOp::Add)?;
    let id = b.push(kind, &[x], Some(&[ty]), vec![reducer])?;
    Ok(b.func().op(id).results[0])
}

/// The VJP of a collective of a per-device program (a `shard_map` body), as its
/// transpose over the same groups: a sum's all-reduce is its own transpose, an
/// all-gather and a summing reduce-scatter transpose to each other, an all-to-all to the
/// one that sends the blocks back, a permutation to its inverse (a device no pair sends
/// to got zeros, and its cotangent goes nowhere).
fn collective(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    if !p.needs[0] {
        return Ok(vec![None]);
    }
    let (x, g) = (p.operands[0], g(p)?);
    let ty = e.ty(x);
    let sums = |p: &Primal| -> Result<(), VjpError> {
        let region = p.op.regions.first().copied();
        let op = region.map(|r| p.src.reducer_op(r));
        match op {
            Some(Ok(o)) if o.kind == OpKind::Binary(BinaryOp::Add) => Ok(()),
            _ => no_rule(
                "only a sum (psum, psum_scatter) is differentiated among reducing collectives",
                "differentiate in JAX (jax.grad of the shard_map), or reduce with a sum",
            ),
        }
    };
    let gx = match &p.op.kind {
        OpKind::AllReduce { groups } => {
            sums(p)?;
            summed_collective(
                e.b,
                OpKind::AllReduce {
                    groups: groups.clone(),
                },
                g,
                ty,
            )?
        }
        OpKind::ReduceScatter { dim, groups } => {
            sums(p)?;
            let kind = OpKind::AllGather {
                dim: *dim,
                groups: groups.clone(),
            };
            e.b.push1_typed(kind, &[g], ty)?
        }
        OpKind::AllGather { dim, groups } => {
            let kind = OpKind::ReduceScatter {
                dim: *dim,
                groups: groups.clone(),
            };
            summed_collective(e.b, kind, g, ty)?
        }
        OpKind::AllToAll {
            split_dim,
            concat_dim,
            groups,
        } => {
            let kind = OpKind::AllToAll {
                split_dim: *concat_dim,
                concat_dim: *split_dim,
                groups: groups.clone(),
            };
            e.b.push1_typed(kind, &[g], ty)?
        }
        OpKind::CollectivePermute { pairs } => {
            let kind = OpKind::CollectivePermute {
                pairs: pairs.iter().map(|&(s, t)| (t, s)).collect(),
            };
            e.b.push1_typed(kind, &[g], ty)?
        }
        other => {
            return Err(VjpError::Misuse(format!(
                "{} is not a collective with a transpose",
                other.name()
            )));
        }
    };
    Ok(vec![Some(gx)])
}

/// A spatial size `n` with `d - 1` holes between its elements (0 stays 0).
fn dilated(n: usize, d: usize) -> i64 {
    if n == 0 { 0 } else { (1 + d * (n - 1)) as i64 }
}

/// The VJP of a convolution: both cotangents are convolutions again.
///
/// - To the input: the output's cotangent convolved with the kernel reversed along its
///   spatial dimensions, its input and output features swapped (with feature groups, each
///   group's output features become the input features of that group), the forward's
///   strides becoming the input's dilation and its input dilation the strides, padded so
///   that every input element meets every window it was in.
/// - To the kernel: the input convolved with the output's cotangent as the kernel, the
///   input's batch and feature dimensions swapped (the batch is what is summed over),
///   the forward's strides becoming the kernel's dilation and its kernel dilation the
///   strides; feature groups become batch groups.
///
/// A convolution with batch groups (itself a kernel gradient) or a reversed window has
/// no rule.
fn convolution(e: &mut Emitter, p: &Primal, d: &ConvDims) -> Result<Cotangents, VjpError> {
    if d.batch_group_count != 1 || d.window_reversal.iter().any(|&r| r) {
        return no_rule(
            "a convolution with batch groups or a reversed window is not differentiated by shardc",
            "differentiate in JAX (export the training step jax.grad made)",
        );
    }
    let (x, k, g) = (p.operands[0], p.operands[1], g(p)?);
    let (xt, kt, gt) = (e.ty(x), e.ty(k), e.ty(g));
    let n = d.input_spatial.len();
    let in_size: Vec<usize> = d.input_spatial.iter().map(|&a| xt.shape[a]).collect();
    let k_size: Vec<usize> = d.kernel_spatial.iter().map(|&a| kt.shape[a]).collect();
    let out_size: Vec<usize> = d.output_spatial.iter().map(|&a| gt.shape[a]).collect();
    let groups = d.feature_group_count;
    let checked = |e: &mut Emitter, v: ValueId, want: &TensorType| -> Result<ValueId, VjpError> {
        let got = e.ty(v);
        if got.shape != want.shape {
            return Err(VjpError::Misuse(format!(
                "the cotangent convolution gave {got} where {want} was wanted"
            )));
        }
        if got.dtype == want.dtype {
            return Ok(v);
        }
        Ok(e.convert(v, want.dtype)?)
    };
    let gx = if p.needs[0] {
        // The kernel with its spatial dimensions reversed and, per group, its output
        // features as input features.
        let mut rk = e.b.push1(
            OpKind::Reverse {
                dimensions: d.kernel_spatial.clone(),
            },
            &[k],
        )?;
        if groups > 1 {
            let (o, i) = (d.kernel_output_feature, d.kernel_input_feature);
            let rank = kt.rank();
            // Transposed to [o, i, rest...], split o into (groups, o / groups), the groups
            // moved next to i and merged into it, then transposed back.
            let rest: Vec<usize> = (0..rank).filter(|&a| a != o && a != i).collect();
            let perm: Vec<usize> = [vec![o, i], rest.clone()].concat();
            let t = e.transpose(rk, &perm)?;
            let (co, ci) = (kt.shape[o], kt.shape[i]);
            let rest_shape: Vec<usize> = rest.iter().map(|&a| kt.shape[a]).collect();
            let t = e.reshape(
                t,
                &[vec![groups, co / groups, ci], rest_shape.clone()].concat(),
            )?;
            let swap: Vec<usize> = [vec![1, 0, 2], (3..rank + 1).collect()].concat();
            let t = e.transpose(t, &swap)?;
            let t = e.reshape(t, &[vec![co / groups, groups * ci], rest_shape].concat())?;
            let mut back = vec![0; rank];
            for (pos, &a) in perm.iter().enumerate() {
                back[a] = pos;
            }
            rk = e.transpose(t, &back)?;
        }
        let padding: Vec<(i64, i64)> = (0..n)
            .map(|s| {
                let xd = dilated(in_size[s], d.lhs_dilation[s]);
                let kd = dilated(k_size[s], d.rhs_dilation[s]);
                let od = dilated(out_size[s], d.window_strides[s]);
                let before = kd - d.padding[s].0 - 1;
                (before, xd + kd - 1 - od - before)
            })
            .collect();
        let dims = ConvDims {
            input_batch: d.output_batch,
            input_feature: d.output_feature,
            input_spatial: d.output_spatial.clone(),
            kernel_input_feature: d.kernel_output_feature,
            kernel_output_feature: d.kernel_input_feature,
            kernel_spatial: d.kernel_spatial.clone(),
            output_batch: d.input_batch,
            output_feature: d.input_feature,
            output_spatial: d.input_spatial.clone(),
            window_strides: d.lhs_dilation.clone(),
            padding,
            lhs_dilation: d.window_strides.clone(),
            rhs_dilation: d.rhs_dilation.clone(),
            window_reversal: vec![false; n],
            feature_group_count: groups,
            batch_group_count: 1,
            precision: d.precision.clone(),
        };
        let c = e.b.push1(OpKind::Convolution(dims), &[g, rk])?;
        Some(checked(e, c, &xt)?)
    } else {
        None
    };
    let gk = if p.needs[1] {
        let padding: Vec<(i64, i64)> = (0..n)
            .map(|s| {
                let xd = dilated(in_size[s], d.lhs_dilation[s]);
                let kd = dilated(k_size[s], d.rhs_dilation[s]);
                let od = dilated(out_size[s], d.window_strides[s]);
                let lo = d.padding[s].0;
                (lo, (od - xd) + (kd - lo - 1))
            })
            .collect();
        let dims = ConvDims {
            input_batch: d.input_feature,
            input_feature: d.input_batch,
            input_spatial: d.input_spatial.clone(),
            kernel_input_feature: d.output_batch,
            kernel_output_feature: d.output_feature,
            kernel_spatial: d.output_spatial.clone(),
            output_batch: d.kernel_input_feature,
            output_feature: d.kernel_output_feature,
            output_spatial: d.kernel_spatial.clone(),
            window_strides: d.rhs_dilation.clone(),
            padding,
            lhs_dilation: d.lhs_dilation.clone(),
            rhs_dilation: d.window_strides.clone(),
            window_reversal: vec![false; n],
            feature_group_count: 1,
            batch_group_count: groups,
            precision: d.precision.clone(),
        };
        let c = e.b.push1(OpKind::Convolution(dims), &[x, g])?;
        Some(checked(e, c, &kt)?)
    } else {
        None
    };
    Ok(vec![gx, gk])
}

/// `dot_general` (JAX's `_dot_general_transpose_lhs/rhs`). The result is laid out
/// `[batch, lhs kept, rhs kept]`. The lhs cotangent contracts `g`'s rhs-kept dimensions
/// with rhs's kept ones (batching with rhs's batch), giving `[batch, lhs kept, lhs
/// contracting in rhs's order]`, transposed back into lhs's order; the rhs likewise.
fn dot_general(e: &mut Emitter, p: &Primal, d: &DotDims) -> Result<Cotangents, VjpError> {
    let (x, y, g) = (p.operands[0], p.operands[1], g(p)?);
    let (xr, yr) = (e.ty(x).rank(), e.ty(y).rank());
    let kept = |rank: usize, batch: &[usize], contracting: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|a| !batch.contains(a) && !contracting.contains(a))
            .collect()
    };
    let x_kept = kept(xr, &d.lhs_batch, &d.lhs_contracting);
    let y_kept = kept(yr, &d.rhs_batch, &d.rhs_contracting);
    let nb = d.lhs_batch.len();
    let g_batch: Vec<usize> = (0..nb).collect();
    let g_x: Vec<usize> = (nb..nb + x_kept.len()).collect();
    let g_y: Vec<usize> = (nb + x_kept.len()..nb + x_kept.len() + y_kept.len()).collect();
    // The side-`a` contracting dimensions, in the ascending order of their partners on `b`.
    let by_partner = |a: &[usize], b: &[usize]| -> Vec<usize> {
        let mut pairs: Vec<(usize, usize)> = b.iter().copied().zip(a.iter().copied()).collect();
        pairs.sort_unstable();
        pairs.into_iter().map(|(_, a)| a).collect()
    };
    let one_side = |e: &mut Emitter,
                    other: ValueId,
                    g_contract: Vec<usize>,
                    other_kept: &[usize],
                    other_batch: &[usize],
                    labels: Vec<usize>|
     -> Result<ValueId, IrError> {
        let dims = DotDims {
            lhs_batch: g_batch.clone(),
            rhs_batch: other_batch.to_vec(),
            lhs_contracting: g_contract,
            rhs_contracting: other_kept.to_vec(),
            precision: d.precision.clone(),
            algorithm: d.algorithm.clone(),
        };
        let t = e.dot_general(g, other, dims)?;
        // `labels[i]` is the dimension of this side that `t`'s dimension `i` is.
        let mut perm = vec![0; labels.len()];
        for (i, &l) in labels.iter().enumerate() {
            perm[l] = i;
        }
        e.transpose(t, &perm)
    };
    let gx = if p.needs[0] {
        let labels = [
            d.lhs_batch.clone(),
            x_kept.clone(),
            by_partner(&d.lhs_contracting, &d.rhs_contracting),
        ]
        .concat();
        Some(one_side(e, y, g_y, &y_kept, &d.rhs_batch, labels)?)
    } else {
        None
    };
    let gy = if p.needs[1] {
        let labels = [
            d.rhs_batch.clone(),
            y_kept.clone(),
            by_partner(&d.rhs_contracting, &d.lhs_contracting),
        ]
        .concat();
        // g's lhs-kept dimensions contract with x's; g's remaining ones are rhs kept.
        let t = one_side(e, x, g_x, &x_kept, &d.lhs_batch, labels)?;
        Some(t)
    } else {
        None
    };
    Ok(vec![gx, gy])
}

/// The comparison of a region `(a, b) -> compare(a, b)` (a `select_and_scatter`'s select).
fn single_compare(f: &Function, body: BlockId) -> Option<ComparisonDirection> {
    let block = f.blocks.get(body.index())?;
    let ([a, b], [id], [out]) = (
        block.args.as_slice(),
        block.ops.as_slice(),
        block.results.as_slice(),
    ) else {
        return None;
    };
    let op = f.ops.get(id.index())?;
    match op.kind {
        OpKind::Compare { direction, .. } if op.results == [*out] && op.operands == [*a, *b] => {
            Some(direction)
        }
        _ => None,
    }
}

/// The VJP of a `select_and_scatter` that adds (a max or min pool's gradient), linear in
/// its source and init: each window's source element gets the cotangent at the element
/// the window selected, the init the sum of the cotangent, the operand none (the
/// selection is piecewise constant). The selected element's cotangent is found as JAX's
/// `_select_and_gather_add` finds it: each element's order-preserving bits and its
/// cotangent's bits packed into one integer of twice the width, whose `reduce_window`
/// maximum (minimum: the bits inverted) carries the winner's cotangent in its low half.
/// Of equal elements the one with the larger cotangent bits wins, where the forward took
/// the first (they differ only on exact ties). f32, f16 and bf16 operands.
fn select_and_scatter(e: &mut Emitter, p: &Primal, w: &WindowDims) -> Result<Cotangents, VjpError> {
    let (x, g) = (p.operands[0], g(p)?);
    let xt = e.ty(x);
    let adds =
        p.op.regions
            .get(1)
            .and_then(|&b| single_op_reducer(p.src, b))
            == Some(BinaryOp::Add);
    let direction = p.op.regions.first().and_then(|&b| single_compare(p.src, b));
    let largest = match direction {
        Some(ComparisonDirection::Ge | ComparisonDirection::Gt) => true,
        Some(ComparisonDirection::Le | ComparisonDirection::Lt) => false,
        _ => {
            return no_rule(
                "only a select_and_scatter that selects by a comparison and adds has a VJP here",
                "differentiate in JAX (export the training step jax.grad made)",
            );
        }
    };
    let (narrow, wide) = match xt.dtype {
        DType::F32 => (DType::U32, DType::U64),
        DType::F16 | DType::BF16 => (DType::U16, DType::U32),
        _ => {
            return no_rule(
                format!(
                    "a select_and_scatter of {} has no VJP here (f32, f16 and bf16 do)",
                    xt.dtype
                ),
                "differentiate in JAX (export the training step jax.grad made)",
            );
        }
    };
    if !adds || e.ty(g).dtype != xt.dtype {
        return no_rule(
            "only a select_and_scatter that adds, its source of its operand's type, has a VJP here",
            "differentiate in JAX (export the training step jax.grad made)",
        );
    }
    let gs = if p.needs[1] {
        let bits = (narrow.size_bytes() * 8) as i64;
        let nt = xt.with_dtype(narrow);
        let wt = xt.with_dtype(wide);
        let int = |e: &mut Emitter, ty: &TensorType, v: i64| {
            e.b.constant(Literal::splat(ty.clone(), Scalar::Int(v)))
        };
        // Order-preserving bits: negative floats inverted, the others' sign bit set.
        let xb = e.b.push1_typed(OpKind::BitcastConvert, &[x], nt.clone())?;
        let sign = int(e, &nt, 1 << (bits - 1));
        let zero = int(e, &nt, 0);
        let negative_bit = e.binary(BinaryOp::And, xb, sign)?;
        let negative = e.compare(ComparisonDirection::Ne, negative_bit, zero)?;
        let inverted = e.unary(UnaryOp::Not, xb)?;
        let signed = e.binary(BinaryOp::Or, xb, sign)?;
        let mut key = e.select(negative, inverted, signed)?;
        if !largest {
            key = e.unary(UnaryOp::Not, key)?;
        }
        let gb = e.b.push1_typed(OpKind::BitcastConvert, &[g], nt.clone())?;
        let high = e.b.push1_typed(OpKind::Convert, &[key], wt.clone())?;
        let shift = int(e, &wt, bits);
        let high = e.binary(BinaryOp::ShiftLeft, high, shift)?;
        let low = e.b.push1_typed(OpKind::Convert, &[gb], wt.clone())?;
        let packed = e.binary(BinaryOp::Or, high, low)?;
        let none =
            e.b.constant(Literal::splat(TensorType::scalar(wide), Scalar::Int(0)));
        let won =
            e.b.reduce_window(packed, none, w.clone(), BinaryOp::Maximum)?;
        let st = e.ty(won);
        let mask = int(e, &st, (1i64 << bits) - 1);
        let low = e.binary(BinaryOp::And, won, mask)?;
        let low =
            e.b.push1_typed(OpKind::Convert, &[low], st.with_dtype(narrow))?;
        Some(e.b.push1_typed(OpKind::BitcastConvert, &[low], st.with_dtype(xt.dtype))?)
    } else {
        None
    };
    let gi = if p.needs[2] {
        Some(e.sum_all(g)?)
    } else {
        None
    };
    Ok(vec![None, gs, gi])
}

/// Max (min) pooling's VJP: each window's cotangent goes to the element the window
/// chose, the first of equal ones (`select_and_scatter` selecting by `>=` (`<=`),
/// scattering by `add` from 0; windows over padding choose among the operand's elements
/// only, as `reduce_window` from an init of -inf (+inf) does). Another init (a window
/// whose result may be the init, not an element) or dilations have no rule.
fn pooled(
    e: &mut Emitter,
    p: &Primal,
    w: &WindowDims,
    chooser: BinaryOp,
) -> Result<Cotangents, VjpError> {
    let dilated = w
        .base_dilations
        .iter()
        .chain(&w.window_dilations)
        .any(|&d| d != 1);
    let identity = if chooser == BinaryOp::Maximum {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let init_is_identity = p
        .src
        .defining_op(p.op.operands[1])
        .map(|id| &p.src.op(id).kind)
        .is_some_and(|k| {
            matches!(k, OpKind::Constant(l) if l.ty.num_elements() == 1 && l.get(0).as_f64() == identity)
        });
    if dilated || !init_is_identity || p.needs[1] {
        return no_rule(
            "max or min pooling has a VJP here from an init of -inf (+inf for min), without dilations, the init not differentiated",
            "pool from -inf (as jax.lax.reduce_window with -jnp.inf, flax.linen.max_pool do), or keep this value out of the loss",
        );
    }
    let (x, g) = (p.operands[0], g(p)?);
    if !p.needs[0] {
        return Ok(vec![None, None]);
    }
    let scalar = TensorType::scalar(e.ty(x).dtype);
    let direction = if chooser == BinaryOp::Maximum {
        ComparisonDirection::Ge
    } else {
        ComparisonDirection::Le
    };
    let zero = e.splat(&scalar, 0.0);
    // A region of one op on two scalars.
    let region = |e: &mut Emitter, kind: OpKind| -> Result<BlockId, IrError> {
        let a = e.b.begin_block(&[scalar.clone(), scalar.clone()]);
        match e.b.push1(kind, &a) {
            Ok(r) => Ok(e.b.end_block(&[r])),
            Err(err) => {
                e.b.end_block(&[]);
                Err(err)
            }
        }
    };
    let select = region(
        e,
        OpKind::Compare {
            direction,
            compare_type: None,
        },
    )?;
    let scatter = region(e, OpKind::Binary(BinaryOp::Add))?;
    let window = WindowDims {
        window: w.window.clone(),
        strides: w.strides.clone(),
        base_dilations: vec![1; w.window.len()],
        window_dilations: vec![1; w.window.len()],
        padding: w.padding.clone(),
    };
    let id = e.b.push(
        OpKind::SelectAndScatter(window),
        &[x, g, zero],
        None,
        vec![select, scatter],
    )?;
    Ok(vec![Some(e.b.func().op(id).results[0]), None])
}

/// The binary op a reducer body applies, if it is one binary op of its two arguments
/// (in either order) and returns it.
fn single_op_reducer(f: &Function, body: BlockId) -> Option<BinaryOp> {
    let block = f.blocks.get(body.index())?;
    let ([acc, x], [id], [out]) = (
        block.args.as_slice(),
        block.ops.as_slice(),
        block.results.as_slice(),
    ) else {
        return None;
    };
    let op = f.ops.get(id.index())?;
    match op.kind {
        OpKind::Binary(b)
            if op.results == [*out] && (op.operands == [*acc, *x] || op.operands == [*x, *acc]) =>
        {
            Some(b)
        }
        _ => None,
    }
}

/// `reduce` of one input: an `add` body broadcasts `g` back (the init gets `sum(g)`); a
/// `maximum`/`minimum` body sends `g` to the positions equal to the result, divided by how
/// many tie (JAX's `_reduce_chooser_jvp_rule`; a count of 0, where the init won, counts as 1).
fn reduce(e: &mut Emitter, p: &Primal, dimensions: &[usize]) -> Result<Cotangents, VjpError> {
    if p.operands.len() != 2 {
        return no_rule(
            format!(
                "it reduces {} inputs together (an argmax-like reduce), which has no VJP here",
                p.operands.len() / 2
            ),
            "reduce each input on its own (e.g. a max reduce for the values), or keep this value out of the loss",
        );
    }
    let body = p.op.regions.first().copied();
    let reducer = body.and_then(|b| single_op_reducer(p.src, b));
    let (x, z, g) = (p.operands[0], p.results[0], g(p)?);
    let xs = e.ty(x).shape;
    let kept: Vec<usize> = (0..xs.len()).filter(|d| !dimensions.contains(d)).collect();
    match reducer {
        Some(BinaryOp::Add) => {
            let gx = e.when(p.needs[0], |e| e.broadcast(g, &xs, &kept))?;
            let gi = e.when(p.needs[1], |e| e.sum_all(g))?;
            Ok(vec![gx, gi])
        }
        Some(BinaryOp::Maximum | BinaryOp::Minimum) => {
            if p.needs[1] {
                return no_rule(
                    "its init value is differentiated, and a max/min reduce gives no gradient to its init",
                    "pass a constant init (-inf for max, +inf for min) and take the maximum with the other value separately",
                );
            }
            let zb = e.broadcast(z, &xs, &kept)?;
            let hit = e.compare(ComparisonDirection::Eq, x, zb)?;
            let dtype = e.ty(x).dtype;
            let mask = e.convert(hit, dtype)?;
            let counts = e.sum(mask, dimensions)?;
            let one = e.full_like(counts, 1.0);
            let counts = e.binary(BinaryOp::Maximum, counts, one)?;
            let share = e.div(g, counts)?;
            let sb = e.broadcast(share, &xs, &kept)?;
            Ok(vec![Some(e.mul(mask, sb)?), None])
        }
        other => {
            let body_says = match other {
                Some(b) => format!("applies stablehlo.{}", b.name()),
                None => {
                    let ops = body
                        .and_then(|b| p.src.blocks.get(b.index()))
                        .map_or(0, |b| b.ops.len());
                    format!("is a general body of {ops} op(s)")
                }
            };
            no_rule(
                format!(
                    "its reducer {body_says}; only add, maximum and minimum reducers have a VJP"
                ),
                "write the reduction with a sum, max or min reduce (a product as exp(sum(log x)) for positive x), or keep this value out of the loss",
            )
        }
    }
}

/// `dynamic_slice`: the cotangent is `g` written into zeros at the same (clamped) starts;
/// the integer starts get none.
fn dynamic_slice(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    let (x, g) = (p.operands[0], g(p)?);
    let mut out = vec![None; p.operands.len()];
    if p.needs[0] {
        let zeros = e.zeros_like(x);
        let mut operands = vec![zeros, g];
        operands.extend_from_slice(&p.operands[1..]);
        out[0] = Some(e.b.push1(OpKind::DynamicUpdateSlice, &operands)?);
    }
    Ok(out)
}

/// `dynamic_update_slice`: the operand gets `g` with the updated block zeroed, the update
/// the block of `g` at the (clamped) starts; the starts get none.
fn dynamic_update_slice(e: &mut Emitter, p: &Primal) -> Result<Cotangents, VjpError> {
    let (u, g) = (p.operands[1], g(p)?);
    let starts = &p.operands[2..];
    let mut out = vec![None; p.operands.len()];
    if p.needs[0] {
        let zeros = e.zeros_like(u);
        let mut operands = vec![g, zeros];
        operands.extend_from_slice(starts);
        out[0] = Some(e.b.push1(OpKind::DynamicUpdateSlice, &operands)?);
    }
    if p.needs[1] {
        let mut operands = vec![g];
        operands.extend_from_slice(starts);
        let sizes = e.ty(u).shape;
        out[1] = Some(e.b.push1(OpKind::DynamicSlice { sizes }, &operands)?);
    }
    Ok(out)
}

/// `reduce_window` with an add reducer (sums over windows: `jnp.cumsum`, sum and average
/// pooling). Each padded position `j` gets the sum of `g` over the windows that read it:
/// `g` spread by the stride (interior padding `s - 1`), then summed over windows of the
/// same shape and dilation, padded below by the window's span so that window `k` of
/// output `o` lands back at `o s + k d`; the operand's own padding is then cut off
/// (or, where it was negative, zeros put back). Max/min pooling (`select_and_scatter`)
/// and base dilations have no rule here.
fn reduce_window(e: &mut Emitter, p: &Primal, w: &WindowDims) -> Result<Cotangents, VjpError> {
    let body = p.op.regions.first().copied();
    let reducer = body.and_then(|b| single_op_reducer(p.src, b));
    if let Some(chooser @ (BinaryOp::Maximum | BinaryOp::Minimum)) = reducer {
        return pooled(e, p, w, chooser);
    }
    if reducer != Some(BinaryOp::Add) {
        return no_rule(
            "only a reduce_window that sums, takes the maximum or the minimum has a VJP here",
            "write the window reduction as one of those, or keep this value out of the loss",
        );
    }
    if w.base_dilations.iter().any(|&b| b != 1) {
        return no_rule(
            "a reduce_window with base dilations (a transposed pooling) has no VJP here",
            "keep this value out of the loss",
        );
    }
    if p.needs[1] {
        return no_rule(
            "its init value is differentiated; the padding a window reads is the init, whose gradient is not built",
            "pass a constant init (0 for a sum)",
        );
    }
    let (x, g) = (p.operands[0], g(p)?);
    if !p.needs[0] {
        return Ok(vec![None, None]);
    }
    let xs = e.ty(x).shape;
    let gs = e.ty(g).shape;
    let rank = xs.len();
    let interior: Vec<i64> = w.strides.iter().map(|&s| s as i64 - 1).collect();
    let spread = e.pad(g, &vec![0; rank], &vec![0; rank], &interior)?;
    let mut padding = Vec::with_capacity(rank);
    for d in 0..rank {
        let padded = xs[d] as i64 + w.padding[d].0 + w.padding[d].1;
        let spread_len = if gs[d] == 0 {
            0
        } else {
            (gs[d] as i64 - 1) * w.strides[d] as i64 + 1
        };
        let span_below = (w.window[d] as i64 - 1) * w.window_dilations[d] as i64;
        padding.push((span_below, padded - spread_len));
    }
    let zero = e.splat(&TensorType::scalar(e.ty(x).dtype), 0.0);
    let summed = e.b.reduce_window(
        spread,
        zero,
        WindowDims {
            window: w.window.clone(),
            strides: vec![1; rank],
            base_dilations: vec![1; rank],
            window_dilations: w.window_dilations.clone(),
            padding,
        },
        BinaryOp::Add,
    )?;
    let low: Vec<i64> = w.padding.iter().map(|&(lo, _)| -lo).collect();
    let high: Vec<i64> = w.padding.iter().map(|&(_, hi)| -hi).collect();
    let gx = e.pad(summed, &low, &high, &vec![0; rank])?;
    Ok(vec![Some(gx), None])
}

/// `gather` in the row-lookup form (`Tensor::take_rows`, `table[indices]`): the table
/// `[V, D]` gets `one_hot(indices) · g`, contracting the index dimensions. There is no
/// scatter op, so the one-hot matrix (`iota == indices`, indices clamped into `[0, V)` as
/// gather clamps them) is materialized. Other gathers have no rule.
fn gather(e: &mut Emitter, p: &Primal, dims: &GatherDims) -> Result<Cotangents, VjpError> {
    let (table, indices, g) = (p.operands[0], p.operands[1], g(p)?);
    if !p.needs[0] {
        return Ok(vec![None, None]);
    }
    let (tt, it) = (e.ty(table), e.ty(indices));
    let n = it.rank();
    // Indices of shape [..., 1] with the index vector last are the same lookup.
    let trailing = dims.index_vector_dim + 1 == n && it.shape[n - 1] == 1;
    let batch_rank = if trailing { n - 1 } else { n };
    let row_lookup = tt.rank() == 2
        && (dims.index_vector_dim == n || trailing)
        && dims.offset_dims == [batch_rank]
        && dims.collapsed_slice_dims == [0]
        && dims.start_index_map == [0]
        && dims.operand_batching_dims.is_empty()
        && dims.start_indices_batching_dims.is_empty()
        && dims.slice_sizes == [1, tt.shape[1]];
    if !row_lookup {
        return Ok(vec![
            Some(scatter_add_back(e, table, indices, g, dims)?),
            None,
        ]);
    }
    let idx = if trailing {
        e.reshape(indices, &it.shape[..n - 1])?
    } else {
        indices
    };
    let bshape = e.ty(idx).shape;
    let v = tt.shape[0];
    let lo = e.constant(Literal::scalar(it.dtype, Scalar::Int(0)));
    let hi = e.constant(Literal::scalar(it.dtype, Scalar::Int(v as i64 - 1)));
    let idx = e.b.push1(OpKind::Clamp, &[lo, idx, hi])?;
    let mut oh_shape = bshape.clone();
    oh_shape.push(v);
    let iota = e.b.push1_typed(
        OpKind::Iota {
            dimension: batch_rank,
        },
        &[],
        TensorType::new(it.dtype, oh_shape.clone()),
    )?;
    let ib = e.broadcast(idx, &oh_shape, &(0..batch_rank).collect::<Vec<_>>())?;
    let hit = e.compare(ComparisonDirection::Eq, iota, ib)?;
    let one_hot = e.convert(hit, tt.dtype)?;
    let contract: Vec<usize> = (0..batch_rank).collect();
    let gt = e.dot_general(
        one_hot,
        g,
        DotDims {
            lhs_contracting: contract.clone(),
            rhs_contracting: contract,
            ..DotDims::default()
        },
    )?;
    Ok(vec![Some(gt), None])
}

/// The cotangent of a gather's operand in general: the cotangent of each slice added back
/// where it was read, a scatter-add into zeros with the gather's dimension numbers read
/// the other way (the indices clamped first, as the gather clamped them).
fn scatter_add_back(
    e: &mut Emitter,
    table: ValueId,
    indices: ValueId,
    g: ValueId,
    dims: &GatherDims,
) -> Result<ValueId, VjpError> {
    let (tt, it) = (e.ty(table), e.ty(indices));
    let ivd = dims.index_vector_dim;
    // The largest start of each index component, laid along the index vector dimension.
    let max: Vec<f64> = dims
        .start_index_map
        .iter()
        .map(|&d| (tt.shape[d] - dims.slice_sizes[d]) as f64)
        .collect();
    let (bound_shape, bound_dims): (Vec<usize>, Vec<usize>) = if ivd < it.rank() {
        (vec![max.len()], vec![ivd])
    } else {
        (Vec::new(), Vec::new())
    };
    let bound = Literal::from_f64(it.dtype, &bound_shape, &max)?;
    let bound = e.constant(bound);
    let hi = e.broadcast(bound, &it.shape, &bound_dims)?;
    let lo = e.zeros_like(indices);
    let clamped = e.b.push1(OpKind::Clamp, &[lo, indices, hi])?;
    let zeros = e.zeros_like(table);
    let sd = ScatterDims {
        update_window_dims: dims.offset_dims.clone(),
        inserted_window_dims: dims.collapsed_slice_dims.clone(),
        input_batching_dims: dims.operand_batching_dims.clone(),
        scatter_indices_batching_dims: dims.start_indices_batching_dims.clone(),
        scatter_dims_to_operand_dims: dims.start_index_map.clone(),
        index_vector_dim: ivd,
        indices_are_sorted: dims.indices_are_sorted,
        unique_indices: false,
    };
    scatter_add(e, zeros, clamped, g, sd)
}

/// `scatter(base, indices, updates)` adding each update in.
fn scatter_add(
    e: &mut Emitter,
    base: ValueId,
    indices: ValueId,
    updates: ValueId,
    dims: ScatterDims,
) -> Result<ValueId, VjpError> {
    let body = e.b.binary_reducer(e.ty(base).dtype, BinaryOp::Add)?;
    let t = e.ty(base);
    let op = e.b.push(
        OpKind::Scatter(dims),
        &[base, indices, updates],
        Some(&[t]),
        vec![body],
    )?;
    Ok(e.b.func().op(op).results[0])
}

/// scatter-add: the inputs' cotangent passes through; each update's is the cotangent at
/// the element it was added to (a gather with the scatter's dimension numbers read the
/// other way). Other update computations (replacing, maximum) have no rule here.
fn scatter(e: &mut Emitter, p: &Primal, dims: &ScatterDims) -> Result<Cotangents, VjpError> {
    let n = p.op.results.len();
    let adds = n == 1
        && matches!(
            p.op.regions.as_slice(),
            [body] if single_op(p.src, *body) == Some(OpKind::Binary(BinaryOp::Add))
        );
    if !adds {
        return no_rule(
            "only a scatter that adds its updates (as JAX's scatter-add, the gradient of a lookup) has a VJP",
            "write the update as .at[...].add(...), or keep the scatter out of what is differentiated",
        );
    }
    let (indices, g) = (p.operands[1], g(p)?);
    let mut out = vec![None; 3];
    if p.needs[0] {
        out[0] = Some(g);
    }
    if p.needs[2] {
        let (ut, xt) = (e.ty(p.operands[2]), e.ty(p.operands[0]));
        let window_operand_dims: Vec<usize> = (0..xt.rank())
            .filter(|k| {
                !dims.inserted_window_dims.contains(k) && !dims.input_batching_dims.contains(k)
            })
            .collect();
        let mut slice_sizes = vec![1; xt.rank()];
        for (&od, &ud) in window_operand_dims.iter().zip(&dims.update_window_dims) {
            slice_sizes[od] = ut.shape[ud];
        }
        let gd = GatherDims {
            offset_dims: dims.update_window_dims.clone(),
            collapsed_slice_dims: dims.inserted_window_dims.clone(),
            operand_batching_dims: dims.input_batching_dims.clone(),
            start_indices_batching_dims: dims.scatter_indices_batching_dims.clone(),
            start_index_map: dims.scatter_dims_to_operand_dims.clone(),
            index_vector_dim: dims.index_vector_dim,
            slice_sizes,
            indices_are_sorted: dims.indices_are_sorted,
        };
        let read =
            e.b.push1_typed(OpKind::Gather(gd.clone()), &[g, indices], ut.clone())?;
        // An update whose window fell outside was skipped: it gets no cotangent (the
        // gather above clamped its window inside instead).
        let inside = windows_inside(e, indices, &xt, &gd)?;
        let update_scatter_dims: Vec<usize> = (0..ut.rank())
            .filter(|k| !dims.update_window_dims.contains(k))
            .collect();
        let inside = e.broadcast(inside, &ut.shape, &update_scatter_dims)?;
        let zeros = e.zeros_like(read);
        out[2] = Some(e.select(inside, read, zeros)?);
    }
    Ok(out)
}

/// Per index vector (the indices' shape without the index vector dimension), whether the
/// window of `dims.slice_sizes` at it lies inside an operand of type `xt`.
fn windows_inside(
    e: &mut Emitter,
    indices: ValueId,
    xt: &TensorType,
    dims: &GatherDims,
) -> Result<ValueId, VjpError> {
    let it = e.ty(indices);
    let ivd = dims.index_vector_dim;
    let max: Vec<f64> = dims
        .start_index_map
        .iter()
        .map(|&d| (xt.shape[d] - dims.slice_sizes[d]) as f64)
        .collect();
    let (bound_shape, bound_dims): (Vec<usize>, Vec<usize>) = if ivd < it.rank() {
        (vec![max.len()], vec![ivd])
    } else {
        (Vec::new(), Vec::new())
    };
    let bound = e.constant(Literal::from_f64(it.dtype, &bound_shape, &max)?);
    let hi = e.broadcast(bound, &it.shape, &bound_dims)?;
    let lo = e.zeros_like(indices);
    let above = e.compare(ComparisonDirection::Ge, indices, lo)?;
    let below = e.compare(ComparisonDirection::Le, indices, hi)?;
    let ok = e.binary(BinaryOp::And, above, below)?;
    if ivd >= it.rank() {
        return Ok(ok);
    }
    let t = e.b.constant(Literal::scalar(DType::I1, Scalar::Bool(true)));
    Ok(e.b.reduce(ok, t, &[ivd], BinaryOp::And)?)
}

/// sort: the operands sorted again with an iota of positions riding along gives where each
/// sorted element came from; sorting the cotangents by that permutation puts each back at
/// its source.
fn sort(e: &mut Emitter, p: &Primal, dimension: usize) -> Result<Cotangents, VjpError> {
    let n = p.operands.len();
    if !p.needs.iter().any(|&w| w) {
        return Ok(vec![None; n]);
    }
    let ty = e.ty(p.operands[0]);
    let positions = TensorType::new(DType::I32, ty.shape.clone());
    let iota =
        e.b.push1_typed(OpKind::Iota { dimension }, &[], positions.clone())?;
    // The primal's comparator, taking two more (ignored) arguments for the positions.
    let [region] = p.op.regions.as_slice() else {
        return Err(VjpError::Misuse("a sort without one comparator".into()));
    };
    let src = p.src.block(*region);
    let mut types: Vec<TensorType> = src.args.iter().map(|&a| p.src.ty(a).clone()).collect();
    let i = TensorType::scalar(DType::I32);
    types.extend([i.clone(), i.clone()]);
    let args = e.b.begin_block(&types);
    let mut map: HashMap<ValueId, ValueId> = src.args.iter().copied().zip(args).collect();
    for &id in &src.ops {
        if let Err(err) = e.b.copy_op(p.src, p.src.op(id), &mut map) {
            e.b.end_block(&[]);
            return Err(err.into());
        }
    }
    let result: Vec<ValueId> = src.results.iter().map(|r| map[r]).collect();
    let comparator = e.b.end_block(&result);
    let mut operands = p.operands.clone();
    operands.push(iota);
    let again = e.b.push(
        OpKind::Sort {
            dimension,
            is_stable: true,
        },
        &operands,
        None,
        vec![comparator],
    )?;
    let perm = e.b.func().op(again).results[n];
    // Back: sort (perm, cotangents...) by perm.
    let mut back_ops = vec![perm];
    for k in 0..n {
        let g = match p.cotangents[k] {
            Some(g) => g,
            None => e.zeros_like(p.results[k]),
        };
        back_ops.push(g);
    }
    let mut types = vec![i.clone(), i];
    for &g in &back_ops[1..] {
        let s = TensorType::scalar(e.ty(g).dtype);
        types.extend([s.clone(), s]);
    }
    let args = e.b.begin_block(&types);
    let lt = e.b.push1(
        OpKind::Compare {
            direction: ComparisonDirection::Lt,
            compare_type: Some(ComparisonType::Signed),
        },
        &[args[0], args[1]],
    );
    let lt = match lt {
        Ok(v) => v,
        Err(err) => {
            e.b.end_block(&[]);
            return Err(err.into());
        }
    };
    let by_position = e.b.end_block(&[lt]);
    let back = e.b.push(
        OpKind::Sort {
            dimension,
            is_stable: true,
        },
        &back_ops,
        None,
        vec![by_position],
    )?;
    let back = e.b.func().op(back).results.clone();
    Ok((0..n).map(|k| p.needs[k].then_some(back[k + 1])).collect())
}

/// The kind of a region's one op, when the region is one op returning its result from
/// the region's arguments.
fn single_op(f: &Function, body: BlockId) -> Option<OpKind> {
    let b = f.block(body);
    let [id] = b.ops.as_slice() else {
        return None;
    };
    let op = f.op(*id);
    (op.results == b.results && op.operands.iter().all(|v| b.args.contains(v)))
        .then(|| op.kind.clone())
}

/// Emits ops into the function being built, with the few helpers rules need. Splat
/// constants are made once per type and value (the body is one block, so the first one
/// made is visible to every later op).
pub struct Emitter<'b> {
    /// The builder the rule adds its ops to.
    pub b: &'b mut FunctionBuilder,
    splats: HashMap<(TensorType, u64), ValueId>,
}

impl<'b> Emitter<'b> {
    /// An emitter adding ops to `b`.
    pub fn new(b: &'b mut FunctionBuilder) -> Emitter<'b> {
        Emitter {
            b,
            splats: HashMap::new(),
        }
    }

    /// The type of `v`.
    pub fn ty(&self, v: ValueId) -> TensorType {
        self.b.ty(v).clone()
    }

    /// Runs `f` only when `want` is set.
    fn when(
        &mut self,
        want: bool,
        f: impl FnOnce(&mut Self) -> Result<ValueId, IrError>,
    ) -> Result<Option<ValueId>, IrError> {
        want.then(|| f(self)).transpose()
    }

    /// A constant.
    pub fn constant(&mut self, lit: Literal) -> ValueId {
        self.b.constant(lit)
    }

    /// A splat constant of type `ty` (made once per type and value).
    pub fn splat(&mut self, ty: &TensorType, value: f64) -> ValueId {
        let lit = Literal::splat(ty.clone(), Scalar::Float(value));
        let key = (ty.clone(), lit.elements.bits(0));
        if let Some(&v) = self.splats.get(&key) {
            return v;
        }
        let v = self.b.constant(lit);
        self.splats.insert(key, v);
        v
    }

    /// A splat of `value` with `v`'s type.
    pub fn full_like(&mut self, v: ValueId, value: f64) -> ValueId {
        let ty = self.ty(v);
        self.splat(&ty, value)
    }

    /// Zeros of `v`'s type.
    pub fn zeros_like(&mut self, v: ValueId) -> ValueId {
        self.full_like(v, 0.0)
    }

    /// `op(x)` elementwise.
    pub fn unary(&mut self, op: UnaryOp, x: ValueId) -> Result<ValueId, IrError> {
        self.b.unary(op, x)
    }

    /// `op(x, y)` elementwise.
    pub fn binary(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.b.binary(op, x, y)
    }

    /// `x * y`.
    pub fn mul(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.b.binary(BinaryOp::Multiply, x, y)
    }

    /// `x / y`.
    pub fn div(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.b.binary(BinaryOp::Divide, x, y)
    }

    /// `x + y`.
    pub fn add(&mut self, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.b.binary(BinaryOp::Add, x, y)
    }

    /// `x + c` with `c` a splat of `x`'s type.
    pub fn add_const(&mut self, x: ValueId, c: f64) -> Result<ValueId, IrError> {
        let k = self.full_like(x, c);
        self.add(x, k)
    }

    /// `x * c` with `c` a splat of `x`'s type.
    pub fn mul_const(&mut self, x: ValueId, c: f64) -> Result<ValueId, IrError> {
        let k = self.full_like(x, c);
        self.mul(x, k)
    }

    /// `x <direction> y`, an `i1` tensor.
    pub fn compare(
        &mut self,
        direction: ComparisonDirection,
        x: ValueId,
        y: ValueId,
    ) -> Result<ValueId, IrError> {
        let compare_type = Some(if self.ty(x).dtype.is_float() {
            ComparisonType::Float
        } else {
            ComparisonType::Signed
        });
        self.b.push1(
            OpKind::Compare {
                direction,
                compare_type,
            },
            &[x, y],
        )
    }

    /// `x <direction> c` with `c` a splat of `x`'s type.
    pub fn compare_const(
        &mut self,
        direction: ComparisonDirection,
        x: ValueId,
        c: f64,
    ) -> Result<ValueId, IrError> {
        let k = self.full_like(x, c);
        self.compare(direction, x, k)
    }

    /// `p ? t : f` elementwise.
    pub fn select(&mut self, p: ValueId, t: ValueId, f: ValueId) -> Result<ValueId, IrError> {
        self.b.push1(OpKind::Select, &[p, t, f])
    }

    /// `x` converted to `dtype`.
    pub fn convert(&mut self, x: ValueId, dtype: DType) -> Result<ValueId, IrError> {
        let t = self.ty(x).with_dtype(dtype);
        self.b.push1_typed(OpKind::Convert, &[x], t)
    }

    /// `x` broadcast into a tensor of the given shape (`broadcast_in_dim`).
    pub fn broadcast(
        &mut self,
        x: ValueId,
        shape: &[usize],
        dims: &[usize],
    ) -> Result<ValueId, IrError> {
        let t = TensorType::new(self.ty(x).dtype, shape);
        if self.ty(x) == t && dims.iter().enumerate().all(|(i, &d)| i == d) {
            return Ok(x);
        }
        self.b.push1_typed(
            OpKind::BroadcastInDim {
                dims: dims.to_vec(),
            },
            &[x],
            t,
        )
    }

    /// `x` reshaped (nothing emitted if the shape is already `shape`).
    pub fn reshape(&mut self, x: ValueId, shape: &[usize]) -> Result<ValueId, IrError> {
        let t = TensorType::new(self.ty(x).dtype, shape);
        if self.ty(x) == t {
            return Ok(x);
        }
        self.b.push1_typed(OpKind::Reshape, &[x], t)
    }

    /// `x` transposed (nothing emitted for the identity permutation).
    pub fn transpose(&mut self, x: ValueId, perm: &[usize]) -> Result<ValueId, IrError> {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(x);
        }
        self.b.push1(
            OpKind::Transpose {
                permutation: perm.to_vec(),
            },
            &[x],
        )
    }

    /// `x[start:limit:strides]` (nothing emitted if that is all of `x`).
    pub fn slice(
        &mut self,
        x: ValueId,
        start: &[usize],
        limit: &[usize],
        strides: &[usize],
    ) -> Result<ValueId, IrError> {
        let shape = self.ty(x).shape;
        if start.iter().all(|&s| s == 0) && limit == shape && strides.iter().all(|&s| s == 1) {
            return Ok(x);
        }
        self.b.push1(
            OpKind::Slice {
                start: start.to_vec(),
                limit: limit.to_vec(),
                strides: strides.to_vec(),
            },
            &[x],
        )
    }

    /// `x` padded with zeros.
    pub fn pad(
        &mut self,
        x: ValueId,
        low: &[i64],
        high: &[i64],
        interior: &[i64],
    ) -> Result<ValueId, IrError> {
        let zero = self.splat(&TensorType::scalar(self.ty(x).dtype), 0.0);
        self.b.push1(
            OpKind::Pad {
                low: low.to_vec(),
                high: high.to_vec(),
                interior: interior.to_vec(),
            },
            &[x, zero],
        )
    }

    /// `x` summed over `dims` (nothing emitted for no dims).
    pub fn sum(&mut self, x: ValueId, dims: &[usize]) -> Result<ValueId, IrError> {
        if dims.is_empty() {
            return Ok(x);
        }
        let zero = self.splat(&TensorType::scalar(self.ty(x).dtype), 0.0);
        self.b.reduce(x, zero, dims, BinaryOp::Add)
    }

    /// `x` summed to a scalar.
    pub fn sum_all(&mut self, x: ValueId) -> Result<ValueId, IrError> {
        let dims: Vec<usize> = (0..self.ty(x).rank()).collect();
        self.sum(x, &dims)
    }

    /// A `dot_general` of `lhs` and `rhs`.
    pub fn dot_general(
        &mut self,
        lhs: ValueId,
        rhs: ValueId,
        dims: DotDims,
    ) -> Result<ValueId, IrError> {
        self.b.dot_general(lhs, rhs, dims)
    }
}
