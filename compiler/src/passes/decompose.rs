//! Collective matmul (XLA's windowed einsum, torchtitan's async tensor parallelism): an
//! all-gather that only a dot reads, or a dot that only a reduce-scatter reads, becomes
//! the group's ring steps, each a `collective_permute` of one block that the
//! communication side moves while compute multiplies another block.
//!
//! ```text
//! %g = all_gather(%x) {dim 0}       %r  = axis_index
//! ...                               %x1 = collective_permute(%x)    (ring: i -> i + 1)
//! %y = dot(%g, %w)            =>    %x2 = collective_permute(%x1) ...
//!                                   ...
//!                                   %y0 = dynamic_update_slice(0, dot(%x, %w), block r)
//!                                   %y1 = dynamic_update_slice(%y0, dot(%x1, %w), block r-1)
//!                                   ...
//! ```
//!
//! After `k` steps a device `r` of the group holds the block of device `(r - k) mod n`.
//! Gathered along a free dimension of the dot, each block's product is written into the
//! result at that block; along a contracting dimension, the other operand's matching block
//! is sliced out and the products summed. The permutes stand where the gather stood, one
//! after the other (each moves the block the one before brought), so the communication
//! side runs the whole ring while compute multiplies the blocks that have arrived.
//!
//! A dot read only by a reduce-scatter (the sum over the group, each device keeping its
//! block of one dimension): at step `k` a device computes the product of block
//! `(r - k - 1) mod n` of that dimension (the operand it comes from sliced there), adds
//! what its ring neighbour passed on and passes the sum on; after `n - 1` steps each
//! device holds the whole sum of its own block. Each permute is issued before the next
//! product is computed, so it moves while that product runs.
//!
//! Each site is decomposed only when the cost model predicts the program [`MARGIN`]
//! faster so ([`CostModel::program_time`], which runs collectives beside compute): `n - 1` permutes
//! pay `n - 1` latencies where the collective paid one, and win only where there is a
//! product to hide them behind. The bytes each device sends are the collective's. Only
//! top-level ops of the entry function are decomposed; dots whose split dimension is a
//! batch dimension, and reduce-scatters that do not add, stay as they are.

use crate::error::CompileError;
use crate::passes::scatter::readers;
use crate::sharding::cost::CostModel;
use serde::Serialize;
use shardc_ir::{
    BinaryOp, DType, DotDims, Function, FunctionBuilder, Literal, Module, OpId, OpKind,
    ReplicaGroups, Scalar, TensorType, ValueId,
};
use std::collections::{HashMap, HashSet};

/// How much faster a ring must be predicted than its collective whole for `auto` to take
/// it. The model charges a ring's products at their FLOP rate and its slices and updates
/// at their bytes, but not what splitting a product costs a library GEMM (the unsplit
/// operand packed again per call) or a shared host (more, smaller kernels): on the cpu
/// backend, rings predicted 0.8-1% faster measured 7-9% slower (`shardc bench plans`'
/// `collective_matmul` plans of `mlp_fsdp` and the sequence-parallel MLP,
/// `docs/topology.md`).
pub const MARGIN: f64 = 0.05;

/// Which collectives [`decompose`] decomposes (`Options::collective_matmul`;
/// `shardc compile --collective-matmul [auto|always]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CollectiveMatmul {
    /// None (the default).
    #[default]
    Off,
    /// Those the cost model predicts at least [`MARGIN`] faster as ring steps (`auto`).
    WhenFaster,
    /// Every one it can (`always`): to measure what the model declined.
    Always,
}

impl std::str::FromStr for CollectiveMatmul {
    type Err = String;

    fn from_str(s: &str) -> Result<CollectiveMatmul, String> {
        match s {
            "off" => Ok(CollectiveMatmul::Off),
            "auto" => Ok(CollectiveMatmul::WhenFaster),
            "always" => Ok(CollectiveMatmul::Always),
            other => Err(format!(
                "no collective matmul mode \"{other}\": say off, auto (where the cost model predicts it faster) or always"
            )),
        }
    }
}

/// One collective weighed as ring steps: decomposed, or kept whole.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decomposed {
    /// Whether it runs as ring steps (else whole: the model predicted the rings slower).
    pub applied: bool,
    /// The collective, as the partitioned program before this pass named its result
    /// (`%12`).
    pub collective: String,
    /// The global values it reshards (its `shardc.of`), as `explain` names collectives.
    pub of: Vec<String>,
    /// `all_gather` or `reduce_scatter`.
    pub kind: &'static str,
    /// The dot it fed or was fed by, named as the collective is.
    pub dot: String,
    /// Ring steps: the group's size (one product per block, a permute between two).
    pub steps: usize,
    /// The program's predicted time (s) with this collective whole, the ones weighed
    /// before it as chosen.
    pub before: f64,
    /// And with it as ring steps.
    pub after: f64,
}

/// The collectives [`decompose`] weighed, and the program before.
#[derive(Clone, Debug)]
pub struct Decomposition {
    /// The per-device program with its collectives whole (`explain` describes them there).
    pub before: Module,
    /// The collectives weighed, in program order, decomposed or not.
    pub rings: Vec<Decomposed>,
}

impl Decomposed {
    /// `decomposed into 4 ring steps with its dot (collective matmul), predicted 120.0 ->
    /// 100.0 us a step`, or `kept whole; as 4 ring steps with its dot ... predicted 120.0 ->
    /// 118.0 us a step (auto takes a ring predicted 5% faster)`.
    pub fn describe(&self) -> String {
        let ring = format!(
            "{} ring steps with its dot (collective matmul), predicted {:.1} -> {:.1} us a step",
            self.steps,
            self.before * 1e6,
            self.after * 1e6
        );
        if self.applied {
            format!("decomposed into {ring}")
        } else {
            format!(
                "kept whole; as {ring} (auto takes a ring predicted {:.0}% faster)",
                MARGIN * 100.0
            )
        }
    }
}

/// A collective and the dot it is decomposed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Site {
    /// `gather` is read only by `dot`, as its operand `side` (0: left, 1: right).
    Gather {
        gather: OpId,
        dot: OpId,
        side: usize,
    },
    /// `dot` is read only by the adding reduce-scatter `scatter`.
    Scatter { dot: OpId, scatter: OpId },
}

impl Site {
    fn dot(self) -> OpId {
        match self {
            Site::Gather { dot, .. } | Site::Scatter { dot, .. } => dot,
        }
    }

    fn collective(self) -> OpId {
        match self {
            Site::Gather { gather, .. } => gather,
            Site::Scatter { scatter, .. } => scatter,
        }
    }
}

/// Decomposes each all-gather feeding a dot and each dot feeding a reduce-scatter whose
/// ring steps `cost` predicts at least [`MARGIN`] faster (every one, `always`). Returns the new module and the
/// collectives weighed, in program order, with the predicted times and whether each was
/// decomposed.
pub fn decompose(
    m: &Module,
    cost: &CostModel,
    always: bool,
) -> Result<(Module, Vec<Decomposed>), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), Vec::new()));
    };
    let sites = sites(f);
    if sites.is_empty() {
        return Ok((m.clone(), Vec::new()));
    }
    let names = f.value_names();
    let name = |op: OpId| names[f.op(op).results[0].index()].clone();
    let time = |g: &Function| cost.program_time(g).total();
    // Each site weighed against the program with the sites kept so far: one dot is
    // decomposed with at most one of its collectives.
    let mut kept: Vec<Site> = Vec::new();
    let mut done = Vec::new();
    let mut best = time(f);
    for site in sites {
        if kept.iter().any(|k| k.dot() == site.dot()) {
            continue;
        }
        let mut tried = kept.clone();
        tried.push(site);
        let g = rewrite(f, &tried)?;
        let after = time(&g);
        let applied = after < best * (1.0 - MARGIN) || always;
        done.push(Decomposed {
            applied,
            collective: name(site.collective()),
            of: f.op(site.collective()).of(),
            kind: match site {
                Site::Gather { .. } => "all_gather",
                Site::Scatter { .. } => "reduce_scatter",
            },
            dot: name(site.dot()),
            steps: group_of(f, site).map_or(0, ReplicaGroups::group_size),
            before: best,
            after,
        });
        if applied {
            best = after;
            kept = tried;
        }
    }
    if kept.is_empty() {
        return Ok((m.clone(), done));
    }
    Ok((m.with_function(rewrite(f, &kept)?), done))
}

/// The all-gathers and reduce-scatters of `f`'s body that can be decomposed, in program
/// order.
fn sites(f: &Function) -> Vec<Site> {
    let readers = readers(f);
    let only_reader = |v: ValueId| match readers.get(&v) {
        Some(Some(ops)) if ops.len() == 1 => Some(ops[0]),
        _ => None,
    };
    let body: HashSet<OpId> = f.body().ops.iter().copied().collect();
    let mut sites = Vec::new();
    for (id, op) in f.body_ops() {
        match &op.kind {
            OpKind::AllGather { dim, groups } if groups.group_size() > 1 => {
                let Some(dot) = only_reader(op.results[0]).filter(|d| body.contains(d)) else {
                    continue;
                };
                let d = f.op(dot);
                let OpKind::DotGeneral(dims) = &d.kind else {
                    continue;
                };
                let Some(side) = d.operands.iter().position(|&v| v == op.results[0]) else {
                    continue;
                };
                let batch = if side == 0 {
                    &dims.lhs_batch
                } else {
                    &dims.rhs_batch
                };
                let other = d.operands[1 - side];
                if d.operands[0] != d.operands[1]
                    && !batch.contains(dim)
                    && zero_of(f.ty(d.results[0]).dtype).is_some()
                    && f.ty(op.operands[0]).shape[*dim] > 0
                    && f.ty(other).rank() > 0
                {
                    sites.push(Site::Gather {
                        gather: id,
                        dot,
                        side,
                    });
                }
            }
            OpKind::ReduceScatter { dim, groups } if groups.group_size() > 1 => {
                let Some(dot) = f.defining_op(op.operands[0]) else {
                    continue;
                };
                let adds = op.regions.first().is_some_and(|&r| {
                    f.reducer_op(r)
                        .is_ok_and(|o| o.kind == OpKind::Binary(BinaryOp::Add))
                });
                if adds
                    && body.contains(&dot)
                    && only_reader(op.operands[0]) == Some(id)
                    && let OpKind::DotGeneral(dims) = &f.op(dot).kind
                    && scattered_operand(f, dot, dims, *dim).is_some()
                {
                    sites.push(Site::Scatter { dot, scatter: id });
                }
            }
            _ => {}
        }
    }
    sites
}

/// For a dot's result dimension `dim`: the operand it comes from (0: left, 1: right) and
/// that operand's dimension, when it is a free one (not a batch dimension).
fn scattered_operand(
    f: &Function,
    dot: OpId,
    dims: &DotDims,
    dim: usize,
) -> Option<(usize, usize)> {
    let op = f.op(dot);
    let nb = dims.lhs_batch.len();
    let lhs_free = dims.lhs_free(f.ty(op.operands[0]).rank());
    let rhs_free = dims.rhs_free(f.ty(op.operands[1]).rank());
    let free = dim.checked_sub(nb)?;
    match lhs_free.get(free) {
        Some(&d) => Some((0, d)),
        None => rhs_free.get(free - lhs_free.len()).map(|&d| (1, d)),
    }
}

/// The device groups of a site's collective (an all-gather or a reduce-scatter).
fn group_of(f: &Function, site: Site) -> Option<&ReplicaGroups> {
    match &f.op(site.collective()).kind {
        OpKind::AllGather { groups, .. } | OpKind::ReduceScatter { groups, .. } => Some(groups),
        _ => None,
    }
}

fn zero_of(dtype: DType) -> Option<Scalar> {
    if dtype.is_float() {
        Some(Scalar::Float(0.0))
    } else if dtype.is_int() {
        Some(Scalar::Int(0))
    } else {
        None
    }
}

/// `f` with `sites` decomposed.
fn rewrite(f: &Function, sites: &[Site]) -> Result<Function, CompileError> {
    let at: HashMap<OpId, Site> = sites
        .iter()
        .flat_map(|&s| match s {
            Site::Gather { gather, dot, .. } => vec![(gather, s), (dot, s)],
            Site::Scatter { dot, scatter } => vec![(dot, s), (scatter, s)],
        })
        .collect();
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    // Per gather: this device's index in the group and the blocks it holds, step by step.
    let mut rings: HashMap<OpId, (ValueId, Vec<ValueId>)> = HashMap::new();
    for (id, op) in f.body_ops() {
        match at.get(&id) {
            None => {
                b.copy_op(f, op, &mut map)?;
            }
            Some(&Site::Gather { gather, .. }) if gather == id => {
                let OpKind::AllGather { groups, .. } = &op.kind else {
                    return Err(bug("a gather site's collective is an all-gather".into()));
                };
                let r = axis_index(&mut b, groups)?;
                let mut last = map[&op.operands[0]];
                let mut blocks = vec![last];
                for _ in 1..groups.group_size() {
                    last = permute(&mut b, groups, last)?;
                    blocks.push(last);
                }
                rings.insert(id, (r, blocks));
            }
            Some(&Site::Gather { gather, side, .. }) => {
                let (r, blocks) = &rings[&gather];
                let y = gathered_dot(&mut b, f, gather, id, side, *r, blocks, &map)?;
                map.insert(op.results[0], y);
            }
            Some(&Site::Scatter { dot, scatter }) if dot == id => {
                let y = scattered_dot(&mut b, f, dot, scatter, &map)?;
                map.insert(f.op(scatter).results[0], y);
            }
            // The scatter, computed with its dot.
            Some(Site::Scatter { .. }) => {}
        }
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

/// A site [`sites`] should not have offered (a bug in this pass).
fn bug(what: String) -> CompileError {
    CompileError::internal("decompose", what)
}

fn axis_index(b: &mut FunctionBuilder, groups: &ReplicaGroups) -> Result<ValueId, CompileError> {
    Ok(b.push1_typed(
        OpKind::AxisIndex {
            groups: groups.clone(),
        },
        &[],
        TensorType::scalar(DType::I64),
    )?)
}

/// Each device's `x` sent to the next device of its group (the last to the first).
fn permute(
    b: &mut FunctionBuilder,
    groups: &ReplicaGroups,
    x: ValueId,
) -> Result<ValueId, CompileError> {
    let pairs = groups
        .0
        .iter()
        .flat_map(|g| (0..g.len()).map(move |i| (g[i], g[(i + 1) % g.len()])))
        .collect();
    let ty = b.ty(x).clone();
    Ok(b.push1_typed(OpKind::CollectivePermute { pairs }, &[x], ty)?)
}

/// `((r + shift) mod n) * block` as an `i64` scalar: the start of the block a ring step
/// handles (`shift` taken modulo `n`).
fn block_start(
    b: &mut FunctionBuilder,
    r: ValueId,
    shift: i64,
    n: usize,
    block: usize,
) -> Result<ValueId, CompileError> {
    let int = |v: i64| Literal::scalar(DType::I64, Scalar::Int(v));
    let n = n as i64;
    let shift = b.constant(int(shift.rem_euclid(n)));
    let modulus = b.constant(int(n));
    let size = b.constant(int(block as i64));
    let index = b.binary(BinaryOp::Add, r, shift)?;
    let index = b.binary(BinaryOp::Remainder, index, modulus)?;
    Ok(b.binary(BinaryOp::Multiply, index, size)?)
}

/// The starts of a block at `start` along `dim` of a rank-`rank` value (0 elsewhere).
fn starts(b: &mut FunctionBuilder, rank: usize, dim: usize, start: ValueId) -> Vec<ValueId> {
    let zero = b.constant(Literal::scalar(DType::I64, Scalar::Int(0)));
    (0..rank)
        .map(|d| if d == dim { start } else { zero })
        .collect()
}

/// `x`'s block of `size` at `start` along `dim`.
fn slice_block(
    b: &mut FunctionBuilder,
    x: ValueId,
    dim: usize,
    start: ValueId,
    size: usize,
) -> Result<ValueId, CompileError> {
    let ty = b.ty(x).clone();
    let mut sizes = ty.shape.clone();
    sizes[dim] = size;
    let mut operands = vec![x];
    operands.extend(starts(b, ty.rank(), dim, start));
    Ok(b.push1(OpKind::DynamicSlice { sizes }, &operands)?)
}

/// `dot`'s result from the ring's `blocks` of its gathered operand (`side`), `r` the
/// device's index in the group.
#[allow(clippy::too_many_arguments)]
fn gathered_dot(
    b: &mut FunctionBuilder,
    f: &Function,
    gather: OpId,
    dot: OpId,
    side: usize,
    r: ValueId,
    blocks: &[ValueId],
    map: &HashMap<ValueId, ValueId>,
) -> Result<ValueId, CompileError> {
    let OpKind::AllGather { dim, .. } = f.op(gather).kind else {
        return Err(bug("a gather site's collective is an all-gather".into()));
    };
    let d = f.op(dot);
    let OpKind::DotGeneral(dims) = &d.kind else {
        return Err(bug("a site's dot is a dot_general".into()));
    };
    let n = blocks.len();
    let block = f.ty(f.op(gather).operands[0]).shape[dim];
    let other = map[&d.operands[1 - side]];
    let ty = f.ty(d.results[0]).clone();
    let (contracting, other_contracting) = if side == 0 {
        (&dims.lhs_contracting, &dims.rhs_contracting)
    } else {
        (&dims.rhs_contracting, &dims.lhs_contracting)
    };
    let product = |b: &mut FunctionBuilder, x: ValueId, y: ValueId, ty: TensorType| {
        let (lhs, rhs) = if side == 0 { (x, y) } else { (y, x) };
        b.push1_typed(OpKind::DotGeneral(dims.clone()), &[lhs, rhs], ty)
    };
    let zero = zero_of(ty.dtype).ok_or_else(|| bug(format!("no zero of {}", ty.dtype)))?;
    let mut acc = b.constant(Literal::splat(ty.clone(), zero));
    if let Some(i) = contracting.iter().position(|c| *c == dim) {
        // Gathered along a contracting dimension: the products of matching blocks, summed.
        let paired = other_contracting[i];
        for (k, &x) in blocks.iter().enumerate() {
            let start = block_start(b, r, -(k as i64), n, block)?;
            let y = slice_block(b, other, paired, start, block)?;
            let p = product(b, x, y, ty.clone())?;
            acc = b.binary(BinaryOp::Add, acc, p)?;
        }
        return Ok(acc);
    }
    // Along a free dimension: each block's product written at its place in the result.
    let free = if side == 0 {
        dims.lhs_free(f.ty(d.operands[0]).rank())
    } else {
        dims.rhs_free(f.ty(d.operands[1]).rank())
    };
    let before = if side == 0 {
        0
    } else {
        dims.lhs_free(f.ty(d.operands[0]).rank()).len()
    };
    let at = dims.lhs_batch.len()
        + before
        + free
            .iter()
            .position(|&x| x == dim)
            .ok_or_else(|| bug(format!("gathered dimension {dim} is not free in the dot")))?;
    let mut part = ty.clone();
    part.shape[at] = block;
    for (k, &x) in blocks.iter().enumerate() {
        let p = product(b, x, other, part.clone())?;
        let start = block_start(b, r, -(k as i64), n, block)?;
        let mut operands = vec![acc, p];
        operands.extend(starts(b, ty.rank(), at, start));
        acc = b.push1(OpKind::DynamicUpdateSlice, &operands)?;
    }
    Ok(acc)
}

/// The reduce-scatter `scatter` of `dot`'s result, computed block by block around the ring.
fn scattered_dot(
    b: &mut FunctionBuilder,
    f: &Function,
    dot: OpId,
    scatter: OpId,
    map: &HashMap<ValueId, ValueId>,
) -> Result<ValueId, CompileError> {
    let OpKind::ReduceScatter { dim, groups } = &f.op(scatter).kind else {
        return Err(bug("a scatter site's collective is a reduce-scatter".into()));
    };
    let d = f.op(dot);
    let OpKind::DotGeneral(dims) = &d.kind else {
        return Err(bug("a site's dot is a dot_general".into()));
    };
    let (side, operand_dim) = scattered_operand(f, dot, dims, *dim)
        .ok_or_else(|| bug(format!("scattered dimension {dim} is not free in the dot")))?;
    let n = groups.group_size();
    let ty = f.ty(f.op(scatter).results[0]).clone();
    let block = ty.shape[*dim];
    let (lhs, rhs) = (map[&d.operands[0]], map[&d.operands[1]]);
    let r = axis_index(b, groups)?;
    let mut acc = None;
    for k in 0..n {
        // The sum so far, sent on before this step's product is computed.
        let passed = acc.map(|a| permute(b, groups, a)).transpose()?;
        let start = block_start(b, r, -(k as i64) - 1, n, block)?;
        let (x, y) = if side == 0 {
            (slice_block(b, lhs, operand_dim, start, block)?, rhs)
        } else {
            (lhs, slice_block(b, rhs, operand_dim, start, block)?)
        };
        let p = b.push1_typed(OpKind::DotGeneral(dims.clone()), &[x, y], ty.clone())?;
        acc = Some(match passed {
            Some(s) => b.binary(BinaryOp::Add, s, p)?,
            None => p,
        });
    }
    acc.ok_or_else(|| bug("a reduce-scatter over groups of one device".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    /// A sequence-parallel MLP's per-device program on 4 devices, as partitioning
    /// writes it: the batch gathered before the first dot, the second dot's partial sums
    /// reduce-scattered back onto the batch.
    const SEQUENCE_PARALLEL: &str = r#"
module @m {
  func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x6xf32>, %w2: tensor<6x8xf32>) -> tensor<4x8xf32> {
    %g = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<4x8xf32>) -> tensor<16x8xf32>
    %h = stablehlo.dot_general %g, %w1, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x6xf32>) -> tensor<16x6xf32>
    %y = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<16x6xf32>, tensor<6x8xf32>) -> tensor<16x8xf32>
    %s = "stablehlo.reduce_scatter"(%y) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<16x8xf32>) -> tensor<4x8xf32>
    return %s : tensor<4x8xf32>
  }
}
"#;

    use shardc_ir::testing::body_op_names as kinds;

    #[test]
    fn gathers_and_scatters_become_ring_steps() {
        let m = parse_module(SEQUENCE_PARALLEL).unwrap();
        let (out, done) = decompose(&m, &CostModel::default(), true).unwrap();
        shardc_ir::verify_module(&out).unwrap();
        let kinds = kinds(&out);
        let count = |k: &str| kinds.iter().filter(|n| *n == k).count();
        assert_eq!(
            done.iter()
                .map(|d| (d.kind, d.steps, d.applied))
                .collect::<Vec<_>>(),
            [("all_gather", 4, true), ("reduce_scatter", 4, true)]
        );
        assert_eq!(count("stablehlo.all_gather"), 0, "{kinds:?}");
        assert_eq!(count("stablehlo.reduce_scatter"), 0, "{kinds:?}");
        assert_eq!(count("stablehlo.collective_permute"), 6, "{kinds:?}");
        assert_eq!(count("stablehlo.dot_general"), 8, "{kinds:?}");
        // The gather's permutes stand first, all three, before any product.
        let first_dot = kinds
            .iter()
            .position(|k| k == "stablehlo.dot_general")
            .unwrap();
        let permutes_before = kinds[..first_dot]
            .iter()
            .filter(|k| *k == "stablehlo.collective_permute")
            .count();
        assert_eq!(permutes_before, 3, "{kinds:?}");
    }

    /// Runs `m` on the simulated mesh of devices `0..n` with the same pseudo-random
    /// arguments per device.
    fn simulate(m: &Module, n: usize) -> Vec<Vec<Vec<f64>>> {
        let f = m.entry().unwrap();
        let args: Vec<Vec<Literal>> = (0..n)
            .map(|d| {
                f.arg_types()
                    .iter()
                    .enumerate()
                    .map(|(a, t)| {
                        let values: Vec<f64> = (0..t.num_elements())
                            .map(|i| (((i * 7 + a * 13 + d * 29) % 17) as f64 - 8.0) / 4.0)
                            .collect();
                        Literal::from_f64(t.dtype, &t.shape, &values).unwrap()
                    })
                    .collect()
            })
            .collect();
        let devices: Vec<shardc_ir::DeviceId> = (0..n).map(shardc_ir::DeviceId).collect();
        shardc_runtime::simulate::run(m, "main", &devices, &args)
            .unwrap()
            .iter()
            .map(|outs| outs.iter().map(Literal::to_f64_vec).collect())
            .collect()
    }

    /// One collective around one dot, on 4 devices in `groups`.
    fn program(collective: &str, dot: &str, groups: &str) -> String {
        let size = if groups.contains("[0, 1, 2, 3]") {
            "1x4"
        } else {
            "2x2"
        };
        format!(
            "module @m {{\n  func.func @main{}\n  }}\n}}",
            match collective {
                "gather-lhs-free" => format!(
                    r#"(%x: tensor<2x3x8xf32>, %w: tensor<2x8x5xf32>) -> tensor<2x{rows}x5xf32> {{
    %g = "stablehlo.all_gather"(%x) <{{all_gather_dim = 1 : i64, replica_groups = dense<{groups}> : tensor<{size}xi64>}}> : (tensor<2x3x8xf32>) -> tensor<2x{rows}x8xf32>
    %y = {dot} %g, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x{rows}x8xf32>, tensor<2x8x5xf32>) -> tensor<2x{rows}x5xf32>
    return %y : tensor<2x{rows}x5xf32>"#,
                    rows = 3 * group_size(groups),
                ),
                "gather-rhs-contracting" => format!(
                    r#"(%x: tensor<4x{k}xf32>, %w: tensor<3x6xf32>) -> tensor<4x6xf32> {{
    %g = "stablehlo.all_gather"(%w) <{{all_gather_dim = 0 : i64, replica_groups = dense<{groups}> : tensor<{size}xi64>}}> : (tensor<3x6xf32>) -> tensor<{k}x6xf32>
    %y = {dot} %x, %g, contracting_dims = [1] x [0] : (tensor<4x{k}xf32>, tensor<{k}x6xf32>) -> tensor<4x6xf32>
    return %y : tensor<4x6xf32>"#,
                    k = 3 * group_size(groups),
                ),
                "gather-rhs-free" => format!(
                    r#"(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x{c}xf32> {{
    %g = "stablehlo.all_gather"(%w) <{{all_gather_dim = 1 : i64, replica_groups = dense<{groups}> : tensor<{size}xi64>}}> : (tensor<8x2xf32>) -> tensor<8x{c}xf32>
    %y = {dot} %x, %g, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x{c}xf32>) -> tensor<4x{c}xf32>
    return %y : tensor<4x{c}xf32>"#,
                    c = 2 * group_size(groups),
                ),
                "scatter-rhs-free" => format!(
                    r#"(%x: tensor<4x8xf32>, %w: tensor<8x{c}xf32>) -> tensor<4x2xf32> {{
    %y = {dot} %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x{c}xf32>) -> tensor<4x{c}xf32>
    %s = "stablehlo.reduce_scatter"(%y) <{{replica_groups = dense<{groups}> : tensor<{size}xi64>, scatter_dimension = 1 : i64}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }}) : (tensor<4x{c}xf32>) -> tensor<4x2xf32>
    return %s : tensor<4x2xf32>"#,
                    c = 2 * group_size(groups),
                ),
                other => panic!("no program {other}"),
            }
        )
    }

    fn group_size(groups: &str) -> usize {
        if groups.contains("[0, 1, 2, 3]") {
            4
        } else {
            2
        }
    }

    #[test]
    fn decomposed_programs_compute_what_the_collectives_did() {
        let mut programs = vec![SEQUENCE_PARALLEL.to_string()];
        for collective in [
            "gather-lhs-free",
            "gather-rhs-contracting",
            "gather-rhs-free",
            "scatter-rhs-free",
        ] {
            for groups in ["[[0, 1, 2, 3]]", "[[0, 2], [1, 3]]"] {
                programs.push(program(collective, "stablehlo.dot_general", groups));
            }
        }
        for text in programs {
            let m = parse_module(&text).unwrap();
            let (out, done) = decompose(&m, &CostModel::default(), true).unwrap();
            assert!(!done.is_empty(), "{text}");
            shardc_ir::verify_module(&out).unwrap();
            let (want, got) = (simulate(&m, 4), simulate(&out, 4));
            for (device, (w, g)) in want.iter().zip(&got).enumerate() {
                for (a, b) in w.iter().flatten().zip(g.iter().flatten()) {
                    assert!(
                        (a - b).abs() <= 1e-5 * a.abs().max(1.0),
                        "device {device}: {a} against {b} in\n{text}\n{}",
                        shardc_ir::text::print_module(&out)
                    );
                }
            }
        }
    }

    /// A random site: `kind` 0-3 gathers the left free, left contracting, right free or
    /// right contracting dimension into the dot; 4-5 reduce-scatters the dot's left or
    /// right free dimension. Groups of 4 devices, or of 2 in either pairing; with or
    /// without a batch dimension.
    fn random_site(
        kind: usize,
        pairing: usize,
        batch: usize,
        m: usize,
        k: usize,
        n: usize,
    ) -> String {
        let (groups, size, g) = match pairing {
            0 => ("[[0, 1, 2, 3]]", "1x4", 4),
            1 => ("[[0, 2], [1, 3]]", "2x2", 2),
            _ => ("[[0, 1], [2, 3]]", "2x2", 2),
        };
        let ty = |dims: &[usize]| {
            let mut all: Vec<usize> = if batch > 0 { vec![batch] } else { vec![] };
            all.extend(dims);
            let shape: Vec<String> = all.iter().map(|d| d.to_string()).collect();
            format!("tensor<{}xf32>", shape.join("x"))
        };
        let nb = usize::from(batch > 0);
        let (mm, kk, nn) = match kind {
            0 | 4 => (m * g, k, n),
            1 | 3 => (m, k * g, n),
            _ => (m, k, n * g),
        };
        let (lhs, rhs, out) = (ty(&[mm, kk]), ty(&[kk, nn]), ty(&[mm, nn]));
        let batching = if batch > 0 {
            "batching_dims = [0] x [0], "
        } else {
            ""
        };
        let dot = |l: &str, r: &str, lt: &str, rt: &str| {
            format!(
                "    %y = stablehlo.dot_general {l}, {r}, {batching}contracting_dims = [{}] x [{}] : ({lt}, {rt}) -> {out}\n",
                nb + 1,
                nb
            )
        };
        let gather = |x: &str, dim: usize, local: &str, whole: &str| {
            format!(
                "    %g = \"stablehlo.all_gather\"({x}) <{{all_gather_dim = {dim} : i64, replica_groups = dense<{groups}> : tensor<{size}xi64>}}> : ({local}) -> {whole}\n"
            )
        };
        let (args, body, result) = match kind {
            0 | 1 => {
                // The left operand's block: `m` rows (kind 0) or `k` columns (kind 1) of
                // the gathered `m g` or `k g`.
                let local = ty(&[m, k]);
                let dim = nb + kind;
                (
                    format!("%a: {local}, %b: {rhs}"),
                    gather("%a", dim, &local, &lhs) + &dot("%g", "%b", &lhs, &rhs),
                    out.clone(),
                )
            }
            2 | 3 => {
                let local = ty(&[k, n]);
                let dim = if kind == 2 { nb + 1 } else { nb };
                (
                    format!("%a: {lhs}, %b: {local}"),
                    gather("%b", dim, &local, &rhs) + &dot("%a", "%g", &lhs, &rhs),
                    out.clone(),
                )
            }
            _ => {
                // Each device keeps `m` rows (kind 4) or `n` columns (kind 5) of the sum.
                let (dim, piece) = (nb + kind - 4, ty(&[m, n]));
                let scatter = format!(
                    "    %s = \"stablehlo.reduce_scatter\"(%y) <{{replica_groups = dense<{groups}> : tensor<{size}xi64>, scatter_dimension = {dim} : i64}}> ({{\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n      %t = \"stablehlo.add\"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n      \"stablehlo.return\"(%t) : (tensor<f32>) -> ()\n    }}) : ({out}) -> {piece}\n"
                );
                (
                    format!("%a: {lhs}, %b: {rhs}"),
                    dot("%a", "%b", &lhs, &rhs) + &scatter,
                    piece,
                )
            }
        };
        let ret = if kind >= 4 { "%s" } else { "%y" };
        format!(
            "module @m {{\n  func.func @main({args}) -> {result} {{\n{body}    return {ret} : {result}\n  }}\n}}"
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn random_sites_compute_what_their_collectives_did(
            kind in 0usize..6,
            pairing in 0usize..3,
            batch in 0usize..3,
            m in 1usize..4,
            k in 1usize..4,
            n in 1usize..4,
        ) {
            let text = random_site(kind, pairing, batch, m, k, n);
            let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let (out, done) = decompose(&m, &CostModel::default(), true).unwrap();
            proptest::prop_assert_eq!(done.len(), 1, "{}", text);
            shardc_ir::verify_module(&out).unwrap();
            let (want, got) = (simulate(&m, 4), simulate(&out, 4));
            for (a, b) in want.iter().flatten().flatten().zip(got.iter().flatten().flatten()) {
                proptest::prop_assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "{} against {} in\n{}", a, b, text);
            }
        }
    }
}
