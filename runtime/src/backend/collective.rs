//! The per-device ops as algorithms over point-to-point messages, written once for every
//! backend that moves buffers itself (a backend provides a [`Link`]).
//!
//! Within a replica group of `n` devices, the device at position `i` has the right
//! neighbour `i+1` and the left neighbour `i-1` (mod `n`):
//!
//! - **reduce-scatter** (ring): the buffer is cut into `n` chunks (for `reduce_scatter` the
//!   result blocks of its dimension; for `all_reduce` `n` contiguous runs of the flat buffer,
//!   as even as the element count allows). In `n-1` steps each device sends one chunk to its
//!   right neighbour and combines the chunk it receives from its left neighbour into its
//!   own: at step `s` device `i` sends chunk `i-s-1` and combines chunk `i-s-2`. After the
//!   last step device `i` holds chunk `i` reduced over the group. Sent: `(n-1)/n` of the
//!   buffer.
//! - **all-gather** (ring): at step `s` device `i` sends the piece of member `i-s` (its own
//!   first) to its right neighbour and receives the piece of member `i-s-1`. Sent: `n-1`
//!   pieces, `(n-1)/n` of the result.
//! - **all-reduce**: reduce-scatter of the flat chunks, then all-gather of the reduced
//!   chunks. Sent: `2(n-1)/n` of the buffer.
//! - **all-to-all**: block `j` of the split dimension goes to member `j` (at step `s`, to
//!   member `i+s`, while the block of member `i-s` arrives); the blocks received are
//!   concatenated in group order. Sent: `(n-1)/n` of the buffer.
//! - **collective-permute**: a source sends its whole piece to its target; a device no pair
//!   targets gets zeros; a device paired with itself keeps its piece and sends nothing.
//! - **shard-slice** and **axis-index** are local: block `i` of a dimension; `i` itself.
//!
//! Reductions run the reducer's op on whole chunks ([`crate::reference::zip_elements`]), so
//! integer, boolean, `maximum` and `minimum` reductions equal the simulator's bit for bit;
//! floating-point sums and products associate in ring order (chunk `j` is folded starting
//! at member `j+1`), which changes rounding only.

use super::{DeviceError, RuntimeError};
use shardc_ir::compress::{COMPRESS, Compression, Encoded};
use shardc_ir::topology::{Algorithm, Hierarchy};
use shardc_ir::{
    BinaryOp, DType, Elements, Function, Literal, Op, OpKind, ReplicaGroups, Scalar, TensorType,
    ValueId,
};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Why a message could not be sent or received.
#[derive(Debug)]
pub enum LinkError {
    /// The peer stopped (it failed, or its run ended) before the message moved.
    PeerLeft(usize),
    /// The message is not the one the algorithm expects (a bug in a backend).
    Protocol(String),
}

/// Point-to-point messages between the devices of a mesh, as a backend provides them.
/// Messages between two devices arrive in the order they were sent.
pub trait Link {
    /// Sends `data` to device `to`.
    fn send(&mut self, to: usize, data: Elements) -> Result<(), LinkError>;
    /// Receives the next message device `from` sent to this device.
    fn recv(&mut self, from: usize) -> Result<Elements, LinkError>;
}

/// Where `device` is in `members` (it is there: hierarchies are made of group members).
fn position_of(members: &[usize], device: usize) -> usize {
    members.iter().position(|&d| d == device).unwrap_or(0)
}

/// Elements member `me` of `n` sends in a ring all-reduce of `len` elements: the buffer
/// less its own chunk (reduce-scatter), then less its right neighbour's (all-gather).
fn ring_all_reduce_elements(len: u64, n: usize, me: usize) -> u64 {
    let chunks = runs(len as usize, n);
    2 * len - chunks[me].len() as u64 - chunks[(me + 1) % n].len() as u64
}

/// Blocks of a dimension: the flat row-major indices of each of the `n` equal blocks of
/// `dim` of a shape, and the inverse (where each element of the blocks laid end to end goes).
/// The index tables are made when first used: the cost model describes collectives
/// ([`Exchange::new`]) without moving anything, and a table is as long as the tensor.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    tables: std::sync::OnceLock<(Vec<Vec<usize>>, Vec<usize>)>,
    /// The shape cut, the dimension and the number of blocks (for backends that move
    /// blocks as strided copies).
    pub(crate) shape: Vec<usize>,
    pub(crate) dim: usize,
    pub(crate) n: usize,
}

impl Blocks {
    pub(crate) fn new(shape: &[usize], dim: usize, n: usize) -> Blocks {
        Blocks {
            tables: std::sync::OnceLock::new(),
            shape: shape.to_vec(),
            dim,
            n,
        }
    }

    /// The flat indices of each block and the inverse, made on first use.
    fn tables(&self) -> &(Vec<Vec<usize>>, Vec<usize>) {
        self.tables.get_or_init(|| {
            let (shape, dim, n) = (&self.shape, self.dim, self.n);
            let strides = shardc_ir::dtype::row_major_strides(shape);
            let len = shape[dim] / n;
            let parts: Vec<Vec<usize>> = (0..n)
                .map(|b| {
                    let mut out = vec![0usize];
                    for (d, &size) in shape.iter().enumerate() {
                        let (off, cnt, stride) = if d == dim {
                            (b * len, len, strides[d])
                        } else {
                            (0, size, strides[d])
                        };
                        out = out
                            .iter()
                            .flat_map(|base| (off..off + cnt).map(move |i| base + i * stride))
                            .collect();
                    }
                    out
                })
                .collect();
            let mut inverse = vec![0; shape.iter().product()];
            let block_len = parts.first().map_or(0, Vec::len);
            for (b, part) in parts.iter().enumerate() {
                for (p, &flat) in part.iter().enumerate() {
                    inverse[flat] = b * block_len + p;
                }
            }
            (parts, inverse)
        })
    }

    /// The flat row-major indices of each block.
    pub(crate) fn parts(&self) -> &[Vec<usize>] {
        &self.tables().0
    }

    /// Block `b` of `x`.
    pub(crate) fn cut(&self, x: &Elements, b: usize) -> Elements {
        x.gather(&self.parts()[b])
    }

    /// The tensor whose blocks are `blocks`, in order.
    pub(crate) fn join(&self, blocks: &[Elements]) -> Option<Elements> {
        let parts = self.parts();
        let len = parts.first().map_or(0, Vec::len);
        if blocks.len() != parts.len() || blocks.iter().any(|b| b.len() != len) {
            return None;
        }
        Some(concat(blocks)?.gather(&self.tables().1))
    }
}

/// Elements of one dtype laid end to end; `None` if the dtypes differ.
pub(crate) fn concat(parts: &[Elements]) -> Option<Elements> {
    Elements::concat(parts)
}

/// Elements `range` of `x`.
pub(crate) fn slice(x: &Elements, range: Range<usize>) -> Elements {
    x.slice(range)
}

/// `n` contiguous runs of `len` elements, as even as possible (run `j` starts at `j*len/n`).
pub(crate) fn runs(len: usize, n: usize) -> Vec<Range<usize>> {
    (0..n).map(|j| j * len / n..(j + 1) * len / n).collect()
}

/// The bytes a message of these elements carries.
pub fn bytes_of(x: &Elements) -> u64 {
    (x.len() * x.dtype().size_bytes()) as u64
}

/// What one per-device op does, prepared once from the op (index maps, reducer).
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    AllReduce {
        groups: ReplicaGroups,
        reducer: BinaryOp,
        /// A ring, or hierarchical over nodes ([`ROUTE`]).
        route: Algorithm,
        /// How the pieces travel, when compressed ([`COMPRESS`]).
        compress: Option<Compression>,
    },
    ReduceScatter {
        groups: ReplicaGroups,
        reducer: BinaryOp,
        blocks: Blocks,
        route: Algorithm,
    },
    AllGather {
        groups: ReplicaGroups,
        blocks: Blocks,
        route: Algorithm,
    },
    AllToAll {
        groups: ReplicaGroups,
        split: Blocks,
        join: Blocks,
    },
    Permute {
        pairs: Vec<(usize, usize)>,
    },
    ShardSlice {
        groups: ReplicaGroups,
        blocks: Blocks,
    },
    AxisIndex {
        groups: ReplicaGroups,
    },
}

/// A per-device op of a program, ready to run on any device.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// `stablehlo.all_reduce`, `shardc.shard_slice`, ...
    pub op: String,
    /// The value it defines, `%3`.
    pub at: String,
    /// The global values it moves, as `explain` names them (`["%4"]`; [`Op::of`]).
    pub of: Vec<String>,
    /// Its operand (none for ops that read no value: an axis index).
    pub operand: Option<ValueId>,
    /// Its result.
    pub result: ValueId,
    /// The result's per-device type.
    pub result_ty: TensorType,
    pub(crate) kind: Kind,
    /// A compressed all-reduce's fed-back errors, per device: what its last contribution
    /// lost to quantization, and what its last reduced chunk lost, each added to the next
    /// (kept from run to run, as a DDP communication hook keeps its state).
    feedback: Arc<Mutex<HashMap<usize, Feedback>>>,
}

/// Reducers a ring may apply in any order: commutative and associative (up to rounding).
const RING_REDUCERS: &[BinaryOp] = &[
    BinaryOp::Add,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
];

impl Exchange {
    /// Prepares a per-device op of a verified function.
    pub fn new(f: &Function, op: &Op, names: &[String]) -> Result<Exchange, RuntimeError> {
        let name = op.kind.name();
        let result = *op
            .results
            .first()
            .ok_or_else(|| RuntimeError::Unsupported {
                op: name.clone(),
                at: format!("@{}", f.name),
                problem: "has no result".into(),
            })?;
        let at = names[result.index()].clone();
        let unsupported = |problem: String| RuntimeError::Unsupported {
            op: name.clone(),
            at: at.clone(),
            problem,
        };
        let operand = op.operands.first().copied();
        let operand_ty = |what: &str| {
            operand
                .map(|v| f.ty(v).clone())
                .ok_or_else(|| unsupported(format!("has no operand to {what}")))
        };
        let result_ty = f.ty(result).clone();
        let n = op.kind.replica_groups().map_or(1, |g| g.group_size());
        let kind = match &op.kind {
            OpKind::AllReduce { groups } => Kind::AllReduce {
                groups: groups.clone(),
                reducer: reducer(f, op).map_err(&unsupported)?,
                route: op.route().map_err(&unsupported)?,
                compress: compression(f, op).map_err(&unsupported)?,
            },
            OpKind::ReduceScatter { dim, groups } => Kind::ReduceScatter {
                groups: groups.clone(),
                reducer: reducer(f, op).map_err(&unsupported)?,
                blocks: Blocks::new(&operand_ty("scatter")?.shape, *dim, n),
                route: op.route().map_err(&unsupported)?,
            },
            OpKind::AllGather { dim, groups } => Kind::AllGather {
                groups: groups.clone(),
                blocks: Blocks::new(&result_ty.shape, *dim, n),
                route: op.route().map_err(&unsupported)?,
            },
            OpKind::AllToAll {
                split_dim,
                concat_dim,
                groups,
            } => Kind::AllToAll {
                groups: groups.clone(),
                split: Blocks::new(&operand_ty("split")?.shape, *split_dim, n),
                join: Blocks::new(&result_ty.shape, *concat_dim, n),
            },
            OpKind::CollectivePermute { pairs } => Kind::Permute {
                pairs: pairs.clone(),
            },
            OpKind::ShardSlice { dim, groups } => Kind::ShardSlice {
                groups: groups.clone(),
                blocks: Blocks::new(&operand_ty("slice")?.shape, *dim, n),
            },
            OpKind::AxisIndex { groups } => Kind::AxisIndex {
                groups: groups.clone(),
            },
            other => {
                return Err(unsupported(format!(
                    "{} is not a per-device op",
                    other.name()
                )));
            }
        };
        Ok(Exchange {
            op: name,
            at,
            of: op.of(),
            operand,
            result,
            result_ty,
            kind,
            feedback: Arc::default(),
        })
    }

    /// The op's name without its dialect: `all_reduce`, `collective_permute`, ...
    pub fn short_name(&self) -> &str {
        self.op.rsplit('.').next().unwrap_or(&self.op)
    }

    /// The devices in each group (for a permute, one group per pair).
    pub fn groups(&self) -> Vec<Vec<usize>> {
        match &self.kind {
            Kind::Permute { pairs } => pairs.iter().map(|&(s, t)| vec![s, t]).collect(),
            Kind::AllReduce { groups, .. }
            | Kind::ReduceScatter { groups, .. }
            | Kind::AllGather { groups, .. }
            | Kind::AllToAll { groups, .. }
            | Kind::ShardSlice { groups, .. }
            | Kind::AxisIndex { groups } => groups.0.clone(),
        }
    }

    /// Whether the op is a `collective_permute` (pairs rather than groups).
    pub fn is_permute(&self) -> bool {
        matches!(self.kind, Kind::Permute { .. })
    }

    /// How the op moves its data: a ring unless it is an all-reduce, reduce-scatter or
    /// all-gather routed otherwise.
    pub fn route(&self) -> Algorithm {
        match &self.kind {
            Kind::AllReduce { route, .. }
            | Kind::ReduceScatter { route, .. }
            | Kind::AllGather { route, .. } => *route,
            _ => Algorithm::Ring,
        }
    }

    /// How an all-reduce's pieces travel, when compressed.
    pub fn compression(&self) -> Option<Compression> {
        match &self.kind {
            Kind::AllReduce { compress, .. } => *compress,
            _ => None,
        }
    }

    /// Device `device`'s group split by node, when the op is routed hierarchically and
    /// the group has a hierarchy; with where the device is in it (node, index in node).
    fn hierarchy(&self, device: usize) -> Option<(Hierarchy, (usize, usize))> {
        let Algorithm::Hierarchical { devices_per_node } = self.route() else {
            return None;
        };
        let groups = match &self.kind {
            Kind::AllReduce { groups, .. }
            | Kind::ReduceScatter { groups, .. }
            | Kind::AllGather { groups, .. } => groups,
            _ => return None,
        };
        let (group, _) = groups.find(device)?;
        let h = Hierarchy::of(group, devices_per_node)?;
        let at = h.find(device)?;
        Some((h, at))
    }

    /// `true` for the per-device ops that move nothing between devices (`shard_slice`,
    /// `axis_index`): each device computes its result from its own operand.
    pub fn is_local(&self) -> bool {
        matches!(self.kind, Kind::ShardSlice { .. } | Kind::AxisIndex { .. })
    }

    /// Whether the cpu backend runs the op through shared memory (`super::shared`) when
    /// results of `min_bytes` or more go there (`RunOptions::shared_memory_min_bytes`)
    /// and no emulated topology splits its groups: an all-reduce, reduce-scatter,
    /// all-gather or all-to-all that is a plain ring (not routed, not compressed) with a
    /// result that large. Permutes and the ops that move nothing never do.
    pub fn on_shared_memory(&self, min_bytes: usize) -> bool {
        !self.is_permute()
            && !self.is_local()
            && self.route() == Algorithm::Ring
            && self.compression().is_none()
            && self.result_ty.size_bytes() >= min_bytes
    }

    /// Whether the op combines its peers' values (an all-reduce or a reduce-scatter)
    /// rather than only copying them.
    pub fn reduces(&self) -> bool {
        matches!(
            self.kind,
            Kind::AllReduce { .. } | Kind::ReduceScatter { .. }
        )
    }

    /// The number of devices in each group (2 for a permute).
    pub fn group_size(&self) -> usize {
        match &self.kind {
            Kind::Permute { .. } => 2,
            _ => self.groups().first().map_or(0, Vec::len),
        }
    }

    /// Checks the op can run on a mesh of `devices` devices: every device it names exists,
    /// and every device of the mesh is in one of its groups (a permute need not pair all).
    pub fn check_mesh(&self, devices: usize) -> Result<(), RuntimeError> {
        let groups = self.groups();
        if let Some(&d) = groups.iter().flatten().find(|&&d| d >= devices) {
            return Err(RuntimeError::MeshTooSmall {
                op: self.op.clone(),
                at: self.at.clone(),
                device: d,
                devices,
            });
        }
        if !matches!(self.kind, Kind::Permute { .. }) {
            let mut covered = vec![false; devices];
            for &d in groups.iter().flatten() {
                covered[d] = true;
            }
            if let Some(d) = covered.iter().position(|c| !c) {
                return Err(RuntimeError::NotInAGroup {
                    op: self.op.clone(),
                    at: self.at.clone(),
                    device: d,
                });
            }
        }
        Ok(())
    }

    /// The bytes device `device` sends when the op runs with the algorithms of this
    /// module, from the op's types alone (what [`Exchange::run`] counts, and what
    /// `explain` states per device): all-reduce `2(n-1)/n·S` (exactly: the buffer less
    /// the device's own chunk, then less its right neighbour's), reduce-scatter
    /// `(n-1)/n·S_in`, all-gather `(n-1)/n·S_out`, all-to-all `(n-1)/n·S`, a permute `S`
    /// for a device whose block moves, 0 for the local ops and for a device in no group.
    /// Backends whose collectives move data by algorithms of their own (MPI's) report
    /// these logical volumes.
    pub fn ring_bytes(&self, device: usize) -> u64 {
        let elem = self.result_ty.dtype.size_bytes() as u64;
        let len = self.result_ty.num_elements() as u64;
        let position = |groups: &ReplicaGroups| groups.find(device).map(|(g, i)| (g.len(), i));
        match &self.kind {
            Kind::AllReduce { groups, .. } => {
                let Some((n, me)) = position(groups) else {
                    return 0;
                };
                if let Some(Compression::PowerSgd { rank }) = self.compression() {
                    // Ring all-reduces of the factors P and Q.
                    let (rows, cols) = Compression::matrix(len as usize);
                    let factors = ring_all_reduce_elements((rows * rank) as u64, n, me)
                        + ring_all_reduce_elements((cols * rank) as u64, n, me);
                    return 4 * factors;
                }
                if let Some(c) = self.compression() {
                    // Every chunk but its own to its owner, then its own reduced chunk to
                    // every other member, each as compressed.
                    let chunks = runs(len as usize, n);
                    let others: u64 = (0..n)
                        .filter(|&j| j != me)
                        .map(|j| c.bytes(chunks[j].len()))
                        .sum();
                    return others + (n as u64 - 1) * c.bytes(chunks[me].len());
                }
                let sent = match self.hierarchy(device) {
                    // Reduce-scatter and all-gather of `k` chunks inside the node around
                    // a ring all-reduce of chunk `j` across the `m` nodes.
                    Some((h, (a, j))) => {
                        let k = h.per_node();
                        let inside = runs(len as usize, k);
                        let mine = inside[j].len() as u64;
                        (len - mine)
                            + (len - inside[(j + 1) % k].len() as u64)
                            + ring_all_reduce_elements(mine, h.node_count(), a)
                    }
                    None => ring_all_reduce_elements(len, n, me),
                };
                sent * elem
            }
            // The result is one of n blocks of the operand: n-1 of them leave (routed
            // hierarchically too: k-1 bundles of m blocks inside the node, then m-1 blocks
            // across).
            Kind::ReduceScatter { groups, .. } => {
                position(groups).map_or(0, |(n, _)| (n as u64 - 1) * len * elem)
            }
            // The result is n operands: the device sends n-1 of them (hierarchically: m-1
            // across the nodes, then k-1 bundles of m inside).
            Kind::AllGather { groups, .. } => {
                position(groups).map_or(0, |(n, _)| (n as u64 - 1) * (len / n as u64) * elem)
            }
            Kind::AllToAll { groups, .. } => {
                position(groups).map_or(0, |(n, _)| (n as u64 - 1) * (len / n as u64) * elem)
            }
            Kind::Permute { pairs } => {
                if pairs.iter().any(|&(s, t)| s == device && t != device) {
                    len * elem
                } else {
                    0
                }
            }
            Kind::ShardSlice { .. } | Kind::AxisIndex { .. } => 0,
        }
    }

    /// Runs the op on device `device` with its operand (`None` for `axis_index`), moving
    /// data through `link`; returns the result and the bytes this device sent.
    pub fn run(
        &self,
        device: usize,
        input: Option<&Literal>,
        link: &mut dyn Link,
    ) -> Result<(Literal, u64), DeviceError> {
        let mut wire = Wire {
            link,
            sent: 0,
            ex: self,
        };
        let elements = wire.run(device, input)?;
        let sent = wire.sent;
        let result = Literal::new(self.result_ty.clone(), elements)
            .map_err(|e| self.error(format!("its result does not fit its type: {e}")))?;
        Ok((result, sent))
    }

    pub(crate) fn error(&self, problem: String) -> DeviceError {
        DeviceError::Collective {
            op: self.op.clone(),
            at: self.at.clone(),
            problem,
        }
    }

    /// Device `device`'s group and its position in it.
    pub(crate) fn role<'g>(
        &self,
        groups: &'g ReplicaGroups,
        device: usize,
    ) -> Result<(&'g [usize], usize), DeviceError> {
        groups
            .find(device)
            .ok_or_else(|| self.error(format!("device {device} is in no replica group")))
    }
}

/// The errors a device feeds back into its next compressed all-reduce.
#[derive(Clone, Debug, Default)]
struct Feedback {
    /// Of its whole contribution.
    sent: Vec<f32>,
    /// Of the chunk of the sum it reduced and sent to every member.
    reduced: Vec<f32>,
    /// PowerSGD's right factor, warm-starting the next call's power iteration.
    q: Vec<f32>,
}

/// Adds `error` to `x` when their lengths agree (the op's types fix them; a first call
/// has no error yet).
fn add_error(x: &mut [f32], error: &[f32]) {
    if error.len() == x.len() {
        x.iter_mut().zip(error).for_each(|(v, e)| *v += e);
    }
}

/// `M X` for the row-major `rows x cols` matrix `m` and a `cols x rank` matrix `x`, or
/// (`transposed`) `Mᵀ X` for a `rows x rank` one.
fn times(
    m: &[f32],
    (rows, cols): (usize, usize),
    x: &[f32],
    rank: usize,
    transposed: bool,
) -> Vec<f32> {
    let mut out = vec![0.0f32; if transposed { cols } else { rows } * rank];
    for i in 0..rows {
        for j in 0..cols {
            let v = m[i * cols + j];
            if v == 0.0 {
                continue;
            }
            let (to, from) = if transposed { (j, i) } else { (i, j) };
            for k in 0..rank {
                out[to * rank + k] += v * x[from * rank + k];
            }
        }
    }
    out
}

/// PowerSGD's first right factor: the same on every device (a fixed pseudo-random
/// sequence in [-1, 1), SplitMix64), as PyTorch seeds it alike on every rank.
fn power_sgd_start(len: usize) -> Vec<f32> {
    (0..len as u64)
        .map(|i| {
            let mut z = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// Orthonormalizes the `rank` columns of the row-major `rows x rank` matrix `p` in place
/// (Gram-Schmidt twice over, in f64: "twice is enough"). A column the earlier ones
/// already span (what is left is under 1e-5 of it, rounding noise whose direction means
/// nothing) becomes zero.
fn orthonormalize(p: &mut [f32], rows: usize, rank: usize) {
    let mut cols: Vec<Vec<f64>> = (0..rank)
        .map(|k| (0..rows).map(|i| f64::from(p[i * rank + k])).collect())
        .collect();
    let norm = |c: &[f64]| c.iter().map(|v| v * v).sum::<f64>().sqrt();
    for k in 0..rank {
        let before = norm(&cols[k]);
        for _ in 0..2 {
            for prev in 0..k {
                let dot: f64 = cols[k].iter().zip(&cols[prev]).map(|(a, b)| a * b).sum();
                let (done, rest) = cols.split_at_mut(k);
                rest[0]
                    .iter_mut()
                    .zip(&done[prev])
                    .for_each(|(a, b)| *a -= dot * b);
            }
        }
        let after = norm(&cols[k]);
        let scale = if after > 1e-5 * before && after > 0.0 {
            1.0 / after
        } else {
            0.0
        };
        cols[k].iter_mut().for_each(|v| *v *= scale);
    }
    for (k, c) in cols.iter().enumerate() {
        for (i, v) in c.iter().enumerate() {
            p[i * rank + k] = *v as f32;
        }
    }
}

/// `x - decoded`, elementwise.
fn lost(x: &[f32], decoded: &[f32]) -> Vec<f32> {
    x.iter().zip(decoded).map(|(v, d)| v - d).collect()
}

/// An all-reduce's compression ([`COMPRESS`]), checked to be of an f32 sum.
fn compression(f: &Function, op: &Op) -> Result<Option<Compression>, String> {
    let Some(c) = op.compression()? else {
        return Ok(None);
    };
    let dtype = op.operands.first().map(|&v| f.ty(v).dtype);
    if dtype != Some(DType::F32) || reducer(f, op)? != BinaryOp::Add {
        return Err(format!(
            "its {COMPRESS} attribute asks for {} compression, which compresses f32 sums only; this all-reduce applies stablehlo.{} to {}",
            c.attribute(),
            reducer(f, op)?.name(),
            dtype.map_or("nothing".into(), |d| d.to_string())
        ));
    }
    Ok(Some(c))
}

/// The one binary op of a reducer region, if the ring may apply it in any order.
fn reducer(f: &Function, op: &Op) -> Result<BinaryOp, String> {
    let region = op.regions.first().ok_or("has no reducer region")?;
    let inner = f.reducer_op(*region)?;
    match inner.kind {
        OpKind::Binary(b) if RING_REDUCERS.contains(&b) => Ok(b),
        _ => Err(format!(
            "the reducer applies {}; a ring reduces in any order, so the reducer must be one of {}",
            inner.kind.name(),
            RING_REDUCERS
                .iter()
                .map(|b| format!("stablehlo.{}", b.name()))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A link that counts the bytes sent, for one op.
struct Wire<'a> {
    link: &'a mut dyn Link,
    sent: u64,
    ex: &'a Exchange,
}

impl Wire<'_> {
    fn send(&mut self, to: usize, data: Elements) -> Result<(), DeviceError> {
        self.sent += bytes_of(&data);
        self.link.send(to, data).map_err(|e| self.link_error(e))
    }

    /// Receives a message of `len` elements from `from`.
    fn recv(&mut self, from: usize, len: usize) -> Result<Elements, DeviceError> {
        let data = self.link.recv(from).map_err(|e| self.link_error(e))?;
        if data.len() != len || data.dtype() != self.ex.result_ty.dtype {
            return Err(self.ex.error(format!(
                "device {from} sent {} {} elements where {len} {} were expected",
                data.len(),
                data.dtype(),
                self.ex.result_ty.dtype
            )));
        }
        Ok(data)
    }

    fn link_error(&self, e: LinkError) -> DeviceError {
        match e {
            LinkError::PeerLeft(peer) => DeviceError::PeerLeft {
                op: self.ex.op.clone(),
                at: self.ex.at.clone(),
                peer,
            },
            LinkError::Protocol(problem) => self.ex.error(problem),
        }
    }

    fn combine(&self, op: BinaryOp, a: &Elements, b: &Elements) -> Result<Elements, DeviceError> {
        crate::reference::zip_elements(op, a, b).ok_or_else(|| {
            self.ex.error(format!(
                "its reducer stablehlo.{} is not defined on {}",
                op.name(),
                a.dtype()
            ))
        })
    }

    fn run(&mut self, device: usize, input: Option<&Literal>) -> Result<Elements, DeviceError> {
        let ex = self.ex;
        // The operand is read in place; only a splat is expanded first.
        let dense;
        let x: &Elements = match input {
            Some(l) if !l.is_splat() => &l.elements,
            Some(l) => {
                dense = l.to_dense().elements;
                &dense
            }
            None => {
                dense = Elements::zeros(ex.result_ty.dtype, 0);
                &dense
            }
        };
        match &ex.kind {
            Kind::AllReduce {
                groups, reducer, ..
            } => {
                let (members, me) = ex.role(groups, device)?;
                if let Some(c) = ex.compression() {
                    return self.compressed_all_reduce(members, me, device, x, c);
                }
                match ex.hierarchy(device) {
                    Some((h, (a, j))) => {
                        // Chunk `j` of the node's sum, then of the group's (across the
                        // nodes, among the members holding chunk `j`), then every chunk.
                        let inside = &h.nodes[a];
                        let ranges = runs(x.len(), inside.len());
                        let chunks = ranges.iter().map(|r| slice(x, r.clone())).collect();
                        let node_sum = self.reduce_scatter(inside, j, chunks, *reducer)?;
                        let across: Vec<usize> = h.nodes.iter().map(|n| n[j]).collect();
                        let mine = self.ring_all_reduce(&across, a, &node_sum, *reducer)?;
                        let lens: Vec<usize> = ranges.iter().map(ExactSizeIterator::len).collect();
                        let all = self.all_gather(inside, j, mine, &lens)?;
                        concat(&all).ok_or_else(|| ex.error("its chunks differ in dtype".into()))
                    }
                    None => self.ring_all_reduce(members, me, x, *reducer),
                }
            }
            Kind::ReduceScatter {
                groups,
                reducer,
                blocks,
                ..
            } => {
                let (members, me) = ex.role(groups, device)?;
                if let Some((h, (a, j))) = ex.hierarchy(device) {
                    // Inside the node, member `j'` gathers the node's sum of the blocks of
                    // the members at place `j'` on every node; across the nodes, the
                    // members at place `j` reduce-scatter those blocks.
                    let place = |node: usize, at: usize| position_of(members, h.nodes[node][at]);
                    let m = h.node_count();
                    let bundles = (0..h.per_node())
                        .map(|at| {
                            let parts: Vec<Elements> =
                                (0..m).map(|node| blocks.cut(x, place(node, at))).collect();
                            concat(&parts).unwrap_or_else(|| Elements::zeros(x.dtype(), 0))
                        })
                        .collect();
                    let node_sum = self.reduce_scatter(&h.nodes[a], j, bundles, *reducer)?;
                    let len = node_sum.len() / m;
                    let parts = (0..m)
                        .map(|b| slice(&node_sum, b * len..(b + 1) * len))
                        .collect();
                    let across: Vec<usize> = h.nodes.iter().map(|n| n[j]).collect();
                    return self.reduce_scatter(&across, a, parts, *reducer);
                }
                let chunks = (0..members.len()).map(|b| blocks.cut(x, b)).collect();
                self.reduce_scatter(members, me, chunks, *reducer)
            }
            Kind::AllGather { groups, blocks, .. } => {
                let (members, me) = ex.role(groups, device)?;
                let all = match ex.hierarchy(device) {
                    Some((h, (a, j))) => {
                        // Across the nodes the pieces of the members at place `j`, then
                        // inside the node every place's bundle of them.
                        let m = h.node_count();
                        let across: Vec<usize> = h.nodes.iter().map(|n| n[j]).collect();
                        let mine = self.all_gather(&across, a, x.clone(), &vec![x.len(); m])?;
                        let bundle = concat(&mine)
                            .ok_or_else(|| ex.error("its pieces differ in dtype".into()))?;
                        let k = h.per_node();
                        let bundles =
                            self.all_gather(&h.nodes[a], j, bundle, &vec![m * x.len(); k])?;
                        let mut all = vec![Elements::zeros(x.dtype(), 0); members.len()];
                        for (at, b) in bundles.iter().enumerate() {
                            for node in 0..m {
                                let piece = slice(b, node * x.len()..(node + 1) * x.len());
                                all[position_of(members, h.nodes[node][at])] = piece;
                            }
                        }
                        all
                    }
                    None => {
                        let lens = vec![x.len(); members.len()];
                        self.all_gather(members, me, x.clone(), &lens)?
                    }
                };
                blocks
                    .join(&all)
                    .ok_or_else(|| ex.error("the gathered pieces do not fit".into()))
            }
            Kind::AllToAll {
                groups,
                split,
                join,
            } => {
                let (members, me) = ex.role(groups, device)?;
                let n = members.len();
                let mut received: Vec<Elements> = vec![Elements::zeros(x.dtype(), 0); n];
                for s in 1..n {
                    let to = (me + s) % n;
                    self.send(members[to], split.cut(x, to))?;
                    let from = (me + n - s) % n;
                    received[from] = self.recv(members[from], split.parts()[from].len())?;
                }
                received[me] = split.cut(x, me);
                join.join(&received)
                    .ok_or_else(|| ex.error("the received blocks do not fit".into()))
            }
            Kind::Permute { pairs } => {
                if let Some(&(_, to)) = pairs.iter().find(|p| p.0 == device && p.1 != device) {
                    self.send(to, x.clone())?;
                }
                match pairs.iter().find(|p| p.1 == device) {
                    Some(&(from, _)) if from == device => Ok(x.clone()),
                    Some(&(from, _)) => self.recv(from, x.len()),
                    None => Ok(Elements::zeros(ex.result_ty.dtype, x.len())),
                }
            }
            Kind::ShardSlice { groups, blocks } => {
                let (_, me) = ex.role(groups, device)?;
                Ok(x.ranges(&blocks.segments(me)))
            }
            Kind::AxisIndex { groups } => {
                let (_, me) = ex.role(groups, device)?;
                Ok(Elements::from_scalars(
                    ex.result_ty.dtype,
                    &[Scalar::Int(me as i64)],
                ))
            }
        }
    }

    /// A compressed f32 sum over `members` (device `me` of them, `device` its id), in two
    /// one-hop rounds so each value is quantized twice at most (ZeRO++'s quantized
    /// gradients): every device encodes chunk `j` of its contribution for member `j`,
    /// which decodes and adds the `n` of them in member order; then each member encodes
    /// its reduced chunk once and sends it to every other, and every device decodes the
    /// same bytes, so replicas agree bit for bit. With error feedback (int8) each
    /// encoding's error is added to the same encoding at the next call — the device's
    /// contribution, and the chunk it reduced (1-bit Adam's worker and server errors) —
    /// so that over calls the sums of the results track the sums of the exact results.
    fn compressed_all_reduce(
        &mut self,
        members: &[usize],
        me: usize,
        device: usize,
        x: &Elements,
        c: Compression,
    ) -> Result<Elements, DeviceError> {
        let ex = self.ex;
        let Elements::F32(values) = x else {
            return Err(ex.error(format!(
                "a compressed all-reduce sums f32, not {}",
                x.dtype()
            )));
        };
        if let Compression::PowerSgd { rank } = c {
            return self.power_sgd(members, me, device, values, rank);
        }
        let n = members.len();
        let mut fed = if c.feeds_back() {
            let state = ex.feedback.lock().unwrap_or_else(|e| e.into_inner());
            state.get(&device).cloned().unwrap_or_default()
        } else {
            Feedback::default()
        };
        let mut mine: Vec<f32> = values.clone();
        add_error(&mut mine, &fed.sent);
        let ranges = runs(mine.len(), n);
        let block = match c {
            Compression::Int8 { block } => block,
            Compression::Bf16 | Compression::PowerSgd { .. } => 1,
        };
        let mut sent_error = vec![0.0f32; mine.len()];
        let mut parts: Vec<Vec<f32>> = vec![Vec::new(); n];
        for s in 0..n {
            let j = (me + s) % n;
            let r = ranges[j].clone();
            let (encoded, decoded) = c.encode(&mine[r.clone()]);
            sent_error[r.clone()].copy_from_slice(&lost(&mine[r], &decoded));
            if s == 0 {
                parts[me] = decoded;
            } else {
                self.send_encoded(members[j], encoded)?;
            }
        }
        for s in 1..n {
            let from = (me + n - s) % n;
            parts[from] = self
                .recv_encoded(members[from], c, ranges[me].len())?
                .decode(block);
        }
        // The member's chunk of the sum, in member order, and its own error fed back.
        let mut sum = vec![0.0f32; ranges[me].len()];
        for p in &parts {
            sum.iter_mut().zip(p).for_each(|(s, v)| *s += v);
        }
        add_error(&mut sum, &fed.reduced);
        let (encoded, decoded) = c.encode(&sum);
        fed = Feedback {
            sent: sent_error,
            reduced: lost(&sum, &decoded),
            q: Vec::new(),
        };
        if c.feeds_back() {
            let mut state = ex.feedback.lock().unwrap_or_else(|e| e.into_inner());
            state.insert(device, fed);
        }
        let mut chunks: Vec<Vec<f32>> = vec![Vec::new(); n];
        chunks[me] = decoded;
        for s in 1..n {
            self.send_encoded(members[(me + s) % n], encoded.clone())?;
            let from = (me + n - s) % n;
            chunks[from] = self
                .recv_encoded(members[from], c, ranges[from].len())?
                .decode(block);
        }
        Ok(Elements::F32(chunks.concat()))
    }

    /// PowerSGD over `members`: this device's contribution plus its fed-back error is
    /// the matrix `M` ([`Compression::matrix`]); `P = Σ M Q` (ring all-reduce),
    /// orthonormalized; `Q = Σ Mᵀ P` (ring all-reduce); the result `P Qᵀ`. Every device
    /// gets the same `P` and `Q` bit for bit, so the same result; it keeps `Q` for the
    /// next call and `M - P Qᵀ / n` as its error.
    fn power_sgd(
        &mut self,
        members: &[usize],
        me: usize,
        device: usize,
        values: &[f32],
        rank: usize,
    ) -> Result<Elements, DeviceError> {
        let ex = self.ex;
        let n = members.len();
        let len = values.len();
        let (rows, cols) = Compression::matrix(len);
        let fed = {
            let state = ex.feedback.lock().unwrap_or_else(|e| e.into_inner());
            state.get(&device).cloned().unwrap_or_default()
        };
        let mut m = vec![0.0f32; rows * cols];
        m[..len].copy_from_slice(values);
        add_error(&mut m[..len], &fed.sent);
        let q = if fed.q.len() == cols * rank {
            fed.q
        } else {
            power_sgd_start(cols * rank)
        };
        // P = M Q (rows x rank), summed over the group and orthonormalized; then
        // Q = Mᵀ P (cols x rank), summed over the group.
        let mut p = self.sum_f32(members, me, times(&m, (rows, cols), &q, rank, false), "P")?;
        orthonormalize(&mut p, rows, rank);
        let q = self.sum_f32(members, me, times(&m, (rows, cols), &p, rank, true), "Q")?;
        // The sum's approximation P Qᵀ, and what this device's share of it missed.
        let mut approx = vec![0.0f32; len];
        for (at, a) in approx.iter_mut().enumerate() {
            let (i, j) = (at / cols, at % cols);
            *a = (0..rank).map(|k| p[i * rank + k] * q[j * rank + k]).sum();
        }
        let sent: Vec<f32> = m[..len]
            .iter()
            .zip(&approx)
            .map(|(v, a)| v - a / n as f32)
            .collect();
        let mut state = ex.feedback.lock().unwrap_or_else(|e| e.into_inner());
        state.insert(
            device,
            Feedback {
                sent,
                reduced: Vec::new(),
                q,
            },
        );
        Ok(Elements::F32(approx))
    }

    /// The ring all-reduce (sum) of an f32 vector over `members`; `what` names it in errors.
    fn sum_f32(
        &mut self,
        members: &[usize],
        me: usize,
        v: Vec<f32>,
        what: &str,
    ) -> Result<Vec<f32>, DeviceError> {
        match self.ring_all_reduce(members, me, &Elements::F32(v), BinaryOp::Add)? {
            Elements::F32(sum) => Ok(sum),
            other => Err(self.ex.error(format!(
                "the sum of {what} came back as {}, not f32",
                other.dtype()
            ))),
        }
    }

    fn send_encoded(&mut self, to: usize, e: Encoded) -> Result<(), DeviceError> {
        match e {
            Encoded::F32(v) => self.send(to, Elements::F32(v)),
            Encoded::Bf16(h) => self.send(to, Elements::BF16(h)),
            Encoded::Int8 { q, scales } => {
                self.send(to, Elements::I8(q))?;
                self.send(to, Elements::F32(scales))
            }
        }
    }

    /// Receives a piece of `len` elements compressed as `c`.
    fn recv_encoded(
        &mut self,
        from: usize,
        c: Compression,
        len: usize,
    ) -> Result<Encoded, DeviceError> {
        let bad = |what: &str, got: &Elements| {
            self.ex.error(format!(
                "device {from} sent {} {} elements where the {} of {len} compressed as {} were expected",
                got.len(),
                got.dtype(),
                what,
                c.attribute()
            ))
        };
        let data = self.link.recv(from).map_err(|e| self.link_error(e))?;
        match (c, data) {
            (Compression::Bf16, Elements::BF16(h)) if h.len() == len => Ok(Encoded::Bf16(h)),
            (Compression::PowerSgd { .. }, Elements::F32(v)) if v.len() == len => {
                Ok(Encoded::F32(v))
            }
            (Compression::Int8 { block }, Elements::I8(q)) if q.len() == len => {
                match self.link.recv(from).map_err(|e| self.link_error(e))? {
                    Elements::F32(scales) if scales.len() == len.div_ceil(block) => {
                        Ok(Encoded::Int8 { q, scales })
                    }
                    other => Err(bad("scales", &other)),
                }
            }
            (_, other) => Err(bad("values", &other)),
        }
    }

    /// Ring all-reduce of `x` over `members` (device `me` of them): reduce-scatter of `n`
    /// contiguous runs, then all-gather.
    fn ring_all_reduce(
        &mut self,
        members: &[usize],
        me: usize,
        x: &Elements,
        reducer: BinaryOp,
    ) -> Result<Elements, DeviceError> {
        let ranges = runs(x.len(), members.len());
        let chunks = ranges.iter().map(|r| slice(x, r.clone())).collect();
        let mine = self.reduce_scatter(members, me, chunks, reducer)?;
        let lens: Vec<usize> = ranges.iter().map(ExactSizeIterator::len).collect();
        let all = self.all_gather(members, me, mine, &lens)?;
        concat(&all).ok_or_else(|| self.ex.error("its chunks differ in dtype".into()))
    }

    /// Ring reduce-scatter: device `me` of `members` ends with chunk `me` reduced.
    fn reduce_scatter(
        &mut self,
        members: &[usize],
        me: usize,
        mut chunks: Vec<Elements>,
        reducer: BinaryOp,
    ) -> Result<Elements, DeviceError> {
        let n = members.len();
        let (right, left) = (members[(me + 1) % n], members[(me + n - 1) % n]);
        for s in 0..n - 1 {
            let send = (me + 2 * n - s - 1) % n;
            let recv = (me + 2 * n - s - 2) % n;
            // What this device sends it no longer needs: it has added its part.
            let out = std::mem::replace(&mut chunks[send], Elements::zeros(DType::I1, 0));
            self.send(right, out)?;
            let got = self.recv(left, chunks[recv].len())?;
            chunks[recv] = self.combine(reducer, &got, &chunks[recv])?;
        }
        Ok(chunks.swap_remove(me))
    }

    /// Ring all-gather: every device of `members` ends with every member's chunk, in group
    /// order; chunk `j` has `lens[j]` elements.
    fn all_gather(
        &mut self,
        members: &[usize],
        me: usize,
        mine: Elements,
        lens: &[usize],
    ) -> Result<Vec<Elements>, DeviceError> {
        let n = members.len();
        let (right, left) = (members[(me + 1) % n], members[(me + n - 1) % n]);
        let mut all: Vec<Option<Elements>> = vec![None; n];
        all[me] = Some(mine);
        for s in 0..n - 1 {
            let send = (me + n - s) % n;
            let recv = (me + 2 * n - s - 1) % n;
            let out = all[send].clone().ok_or_else(|| {
                self.ex
                    .error(format!("chunk {send} is missing at step {s}"))
            })?;
            self.send(right, out)?;
            all[recv] = Some(self.recv(left, lens[recv])?);
        }
        all.into_iter()
            .enumerate()
            .map(|(j, c)| c.ok_or_else(|| self.ex.error(format!("chunk {j} never arrived"))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cut_and_join_back() {
        let x = Elements::I64((0..24).collect());
        for dim in 0..3 {
            let shape = [2, 4, 3];
            let n = [2, 4, 3][dim];
            let b = Blocks::new(&shape, dim, n);
            let parts: Vec<Elements> = (0..n).map(|j| b.cut(&x, j)).collect();
            assert_eq!(b.join(&parts), Some(x.clone()), "dim {dim}");
        }
        // Block 1 of the columns of a 2x4 matrix cut in 2: columns 2 and 3 of both rows.
        let b = Blocks::new(&[2, 4], 1, 2);
        assert_eq!(
            b.cut(&Elements::I64((0..8).collect()), 1),
            Elements::I64(vec![2, 3, 6, 7])
        );
    }

    #[test]
    fn runs_cover_the_buffer_as_evenly_as_possible() {
        assert_eq!(runs(10, 4), vec![0..2, 2..5, 5..7, 7..10]);
        assert_eq!(runs(1, 3), vec![0..0, 0..0, 0..1]);
    }
}
