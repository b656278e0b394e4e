//! How the cuda backend runs each per-device op, decided from the op alone (pure host
//! code, tested without a GPU): through NCCL, through the cpu backend's ring algorithms
//! staged through host memory, or locally on the GPU; which NCCL communicators a program
//! needs; the strided copies that lay blocks of a dimension end to end for NCCL (which
//! moves flat buffers) and back; and when each value's buffer can be freed.

use super::super::collective::{Blocks, Kind};
use super::super::{Exchange, Executable, Planned};
use shardc_ir::{BinaryOp, DType, ValueId};
use std::collections::HashMap;

/// NCCL's reduction operators the backend uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclReduce {
    /// `ncclSum`.
    Sum,
    /// `ncclProd`.
    Prod,
    /// `ncclMax`.
    Max,
    /// `ncclMin`.
    Min,
}

/// NCCL's element types the backend uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclData {
    /// `ncclFloat32`.
    F32,
    /// `ncclFloat64`.
    F64,
    /// `ncclFloat16`.
    F16,
    /// `ncclBfloat16`.
    BF16,
    /// `ncclInt32`.
    I32,
    /// `ncclInt64`.
    I64,
    /// `ncclInt8`.
    I8,
    /// Bytes: `ui8`, `i1` (0 or 1), and any data that is only moved.
    U8,
    /// `ncclUint32`.
    U32,
    /// `ncclUint64`.
    U64,
}

/// The NCCL operator and type computing what the reducer computes on `dtype`, or why
/// none does (the op then runs on the host ring, with the reference's semantics).
///
/// - integer `add`/`multiply` wrap on the GPU as in the reference; `maximum`/`minimum`
///   are exact on integers;
/// - float `add`/`multiply` round each fold as the reference does, in NCCL's order
///   (within the bound stated for the cpu backend's ring);
/// - float `maximum`/`minimum`: NCCL's do not follow IEEE-754 `maximum` on NaN and -0/+0
///   (the reference's), so they go to the host;
/// - bitwise `and`/`or`/`xor`: NCCL has no bitwise operators; on `i1` (bytes 0/1) `or`
///   and `add` are `max`, `and` and `multiply` are `min`; `xor` goes to the host.
pub fn nccl_reduction(reducer: BinaryOp, dtype: DType) -> Result<(NcclReduce, NcclData), String> {
    use BinaryOp::*;
    let data = nccl_data(dtype).ok_or_else(|| format!("NCCL has no type for {dtype} elements"))?;
    let float = matches!(dtype, DType::F32 | DType::F64 | DType::F16 | DType::BF16);
    let op = match (reducer, dtype) {
        (Add | Or | Maximum, DType::I1) => NcclReduce::Max,
        (Multiply | And | Minimum, DType::I1) => NcclReduce::Min,
        (Add, _) => NcclReduce::Sum,
        (Multiply, _) => NcclReduce::Prod,
        (Maximum, _) if !float => NcclReduce::Max,
        (Minimum, _) if !float => NcclReduce::Min,
        (Maximum | Minimum, _) => {
            return Err(format!(
                "NCCL's max/min on {dtype} do not follow IEEE-754 maximum/minimum (NaN, -0 < +0)"
            ));
        }
        (op, _) => {
            return Err(format!(
                "NCCL has no operator computing stablehlo.{} on {dtype}",
                op.name()
            ));
        }
    };
    Ok((op, data))
}

/// NCCL's type for elements of `dtype` (none for 16-bit integers).
pub fn nccl_data(dtype: DType) -> Option<NcclData> {
    Some(match dtype {
        DType::F32 => NcclData::F32,
        DType::F64 => NcclData::F64,
        DType::F16 => NcclData::F16,
        DType::BF16 => NcclData::BF16,
        DType::I32 => NcclData::I32,
        DType::I64 => NcclData::I64,
        DType::I8 => NcclData::I8,
        DType::I1 | DType::U8 => NcclData::U8,
        DType::U32 => NcclData::U32,
        DType::U64 => NcclData::U64,
        DType::I16 | DType::U16 => return None,
    })
}

/// Where a per-device op runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// On the device's GPU alone (`shard_slice`, `axis_index`).
    Local,
    /// Through NCCL on the device's stream.
    Nccl,
    /// The cpu backend's ring algorithm between device threads, the operand copied to the
    /// host and the result back; the reason says why not NCCL.
    Host(String),
}

/// How the mesh runs its collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collectives {
    /// NCCL (every logical device on a GPU of its own), each op that NCCL cannot compute
    /// exactly on the host ring.
    Nccl,
    /// Every collective on the host ring: several logical devices share a GPU (NCCL
    /// refuses a communicator with a GPU twice), NCCL is missing, or it was asked for.
    HostStaged,
}

/// The route of each step of `exe` ([`route`]; `None` for compute steps).
pub fn routes(exe: &Executable, mode: Collectives) -> Vec<Option<Route>> {
    exe.steps
        .iter()
        .map(|s| match s {
            Planned::PerDevice { exchange, .. } => Some(route(exchange, mode)),
            _ => None,
        })
        .collect()
}

/// An error when `exe` has a loop whose body communicates: the cuda mesh runs a
/// program's steps in one pass ([`crate::engine::Control`] steps are the cpu and mpi
/// backends').
pub fn refuse_loops(exe: &Executable) -> Result<(), crate::backend::RuntimeError> {
    if exe.steps.iter().any(|s| matches!(s, Planned::Control(_))) {
        return Err(crate::backend::RuntimeError::Unsupported {
            op: "stablehlo.while".into(),
            at: format!("@{}", exe.function()),
            problem: "a loop whose body communicates does not run on the cuda backend yet; run it on the cpu or mpi backend, or unroll it (a known trip count of at most 16 is unrolled when compiling)".into(),
        });
    }
    Ok(())
}

/// Where `ex` runs on a mesh whose collectives are `mode`.
pub fn route(ex: &Exchange, mode: Collectives) -> Route {
    match &ex.kind {
        Kind::ShardSlice { .. } | Kind::AxisIndex { .. } => return Route::Local,
        _ if mode == Collectives::HostStaged => {
            return Route::Host("the mesh stages every collective through the host".into());
        }
        _ if ex.compression().is_some() => {
            return Route::Host("it is compressed, which NCCL does not do".into());
        }
        _ if ex.route() != shardc_ir::topology::Algorithm::Ring => {
            return Route::Host(
                "it is routed hierarchically (NCCL picks its own algorithm)".into(),
            );
        }
        Kind::AllReduce { reducer, .. } | Kind::ReduceScatter { reducer, .. } => {
            if let Err(why) = nccl_reduction(*reducer, ex.result_ty.dtype) {
                return Route::Host(why);
            }
        }
        Kind::AllGather { .. } | Kind::AllToAll { .. } | Kind::Permute { .. } => {}
    }
    Route::Nccl
}

/// The device groups a program's NCCL ops need a communicator for, each once, in the
/// order the program first uses them: every group of each op's replica groups (members in
/// group order: rank `i` is the group's `i`-th device), and for a `collective_permute` the
/// whole mesh `0..devices` (rank = device).
pub fn communicators<'e>(
    exchanges: impl IntoIterator<Item = &'e Exchange>,
    devices: usize,
    mode: Collectives,
) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for ex in exchanges {
        if route(ex, mode) != Route::Nccl {
            continue;
        }
        let groups = if ex.is_permute() {
            vec![(0..devices).collect()]
        } else {
            ex.groups()
        };
        for g in groups {
            if !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}

/// A strided copy of `height` rows of `width` bytes (`cuMemcpy2DAsync`): row `r` goes
/// from `src_offset + r·src_pitch` to `dst_offset + r·dst_pitch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy2d {
    /// Where the first row starts in the source, in bytes.
    pub src_offset: u64,
    /// Bytes from one source row to the next.
    pub src_pitch: u64,
    /// Where the first row goes in the destination, in bytes.
    pub dst_offset: u64,
    /// Bytes from one destination row to the next.
    pub dst_pitch: u64,
    /// Bytes per row.
    pub width: u64,
    /// Rows.
    pub height: u64,
}

impl Copy2d {
    /// The copy on host bytes (for tests, and the meaning of the fields).
    pub fn apply(&self, src: &[u8], dst: &mut [u8]) {
        for r in 0..self.height {
            let s = (self.src_offset + r * self.src_pitch) as usize;
            let d = (self.dst_offset + r * self.dst_pitch) as usize;
            let w = self.width as usize;
            dst[d..d + w].copy_from_slice(&src[s..s + w]);
        }
    }
}

/// Rows of the blocks of a dimension: `(outer, row)`: a block of `blocks` is `outer` runs
/// of `row` elements, `shape[dim]/n · inner` each.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn rows(b: &Blocks) -> (u64, u64, u64) {
    let outer: usize = b.shape[..b.dim].iter().product();
    let inner: usize = b.shape[b.dim + 1..].iter().product();
    let len = b.shape[b.dim] / b.n.max(1);
    (
        outer as u64,
        (len * inner) as u64,
        (b.shape[b.dim] * inner) as u64,
    )
}

/// Whether the blocks already lie end to end (no copy needed to pack them).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn contiguous(b: &Blocks) -> bool {
    rows(b).0 <= 1
}

/// Copies block `j` of a tensor cut by `b` into slot `j` of a buffer holding the `n`
/// blocks end to end (`elem` bytes per element).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn pack_block(b: &Blocks, j: usize, elem: u64) -> Copy2d {
    let (outer, row, full) = rows(b);
    Copy2d {
        src_offset: j as u64 * row * elem,
        src_pitch: full * elem,
        dst_offset: j as u64 * outer * row * elem,
        dst_pitch: row * elem,
        width: row * elem,
        height: outer,
    }
}

/// The inverse of [`pack_block`]: slot `j` of the packed buffer into block `j` of the
/// tensor.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn unpack_block(b: &Blocks, j: usize, elem: u64) -> Copy2d {
    let c = pack_block(b, j, elem);
    Copy2d {
        src_offset: c.dst_offset,
        src_pitch: c.dst_pitch,
        dst_offset: c.src_offset,
        dst_pitch: c.src_pitch,
        width: c.width,
        height: c.height,
    }
}

/// Per step of `exe`, the values whose buffers can be freed after it: those it reads last
/// (segment inputs, per-device op operands), never the function's arguments' or results'
/// buffers before the end (arguments are freed at their last read too; results never).
pub fn last_uses(exe: &Executable) -> Vec<Vec<ValueId>> {
    let mut last: HashMap<ValueId, usize> = HashMap::new();
    for (i, s) in exe.steps.iter().enumerate() {
        match s {
            Planned::Compute { segment, .. } => {
                for &v in &segment.inputs {
                    last.insert(v, i);
                }
            }
            Planned::PerDevice { exchange, .. } => {
                if let Some(v) = exchange.operand {
                    last.insert(v, i);
                }
            }
            Planned::Control(c) => {
                for &v in c.reads() {
                    last.insert(v, i);
                }
            }
        }
    }
    let mut out = vec![Vec::new(); exe.steps.len()];
    for (v, i) in last {
        if !exe.results.contains(&v) {
            out[i].push(v);
        }
    }
    for l in &mut out {
        l.sort_by_key(|v| v.index());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Interpreted;
    use shardc_ir::Elements;
    use shardc_ir::text::parse_module;

    #[test]
    fn nccl_computes_only_what_the_reference_does() {
        use BinaryOp::*;
        assert_eq!(
            nccl_reduction(Add, DType::F32),
            Ok((NcclReduce::Sum, NcclData::F32))
        );
        assert_eq!(
            nccl_reduction(Multiply, DType::I64),
            Ok((NcclReduce::Prod, NcclData::I64))
        );
        assert_eq!(
            nccl_reduction(Maximum, DType::I32),
            Ok((NcclReduce::Max, NcclData::I32))
        );
        assert_eq!(
            nccl_reduction(Add, DType::BF16),
            Ok((NcclReduce::Sum, NcclData::BF16))
        );
        for (op, want) in [
            (Add, NcclReduce::Max),
            (Or, NcclReduce::Max),
            (Maximum, NcclReduce::Max),
            (Multiply, NcclReduce::Min),
            (And, NcclReduce::Min),
            (Minimum, NcclReduce::Min),
        ] {
            assert_eq!(nccl_reduction(op, DType::I1), Ok((want, NcclData::U8)));
        }
        assert!(
            nccl_reduction(Maximum, DType::F32)
                .unwrap_err()
                .contains("NaN")
        );
        assert_eq!(
            nccl_reduction(Xor, DType::I32).unwrap_err(),
            "NCCL has no operator computing stablehlo.xor on i32"
        );
        assert!(nccl_reduction(Xor, DType::I1).is_err());
        assert!(nccl_reduction(And, DType::I64).is_err());
    }

    const PROGRAM: &str = r#"module {
  func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x8xf32>, tensor<4x8xf32>) {
    %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = "stablehlo.reduce_scatter"(%m) <{replica_groups = dense<[[1, 0], [3, 2]]> : tensor<2x2xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<2x8xf32>
    %b = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %c = "stablehlo.collective_permute"(%b) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %n = stablehlo.negate %c : tensor<4x8xf32>
    return %a, %r, %n : tensor<4x8xf32>, tensor<2x8xf32>, tensor<4x8xf32>
  }
}"#;

    #[test]
    fn one_communicator_per_distinct_group_in_program_order() {
        let m = parse_module(PROGRAM).unwrap();
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        let routes: Vec<Route> = exe
            .exchanges()
            .map(|e| route(e, Collectives::Nccl))
            .collect();
        assert_eq!(routes[0], Route::Nccl);
        assert!(matches!(&routes[1], Route::Host(why) if why.contains("IEEE")));
        assert_eq!(routes[2..], [Route::Nccl, Route::Nccl, Route::Nccl]);
        // The max all-reduce runs on the host ring: its groups need no communicator; the
        // reduce-scatter's groups are in their own order; the permute uses the whole mesh;
        // the second all-reduce over [0, 1], [2, 3] reuses the first's.
        assert_eq!(
            communicators(exe.exchanges(), 4, Collectives::Nccl),
            vec![
                vec![0, 1],
                vec![2, 3],
                vec![1, 0],
                vec![3, 2],
                vec![0, 1, 2, 3]
            ]
        );
        assert!(communicators(exe.exchanges(), 4, Collectives::HostStaged).is_empty());
        assert!(matches!(
            route(exe.exchanges().next().unwrap(), Collectives::HostStaged),
            Route::Host(_)
        ));
    }

    #[test]
    fn buffers_are_freed_after_their_last_reader() {
        let m = parse_module(PROGRAM).unwrap();
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        let names = m.entry().unwrap().value_names();
        let freed: Vec<Vec<&str>> = last_uses(&exe)
            .iter()
            .map(|vs| vs.iter().map(|v| names[v.index()].as_str()).collect())
            .collect();
        // Steps: 5 per-device ops, then the negate. %x is read last by the 4th op; %a is a
        // result (never freed); %m by the reduce-scatter, %b by the permute, %c by negate.
        assert_eq!(exe.steps().len(), 6);
        let result = |i: usize| exe.exchanges().nth(i).unwrap().at.as_str();
        assert_eq!(
            freed,
            [
                vec![],
                vec![],
                vec![result(1)],
                vec!["%arg0"],
                vec![result(3)],
                vec![result(4)]
            ]
        );
    }

    #[test]
    fn packing_copies_move_the_blocks_of_a_dimension() {
        // Every dimension of a 2x6x4 tensor of i16s cut in 2 (and dim 1 in 3): packing
        // gives the blocks of Blocks::cut end to end, unpacking gives the tensor back.
        let shape = [2usize, 6, 4];
        let elem = 2u64;
        let x = Elements::I64((0..48).collect());
        let bytes: Vec<u8> = (0..48u16).flat_map(|v| v.to_le_bytes()).collect();
        for (dim, n) in [(0, 2), (1, 2), (1, 3), (2, 2), (2, 4)] {
            let b = Blocks::new(&shape, dim, n);
            let mut packed = vec![0u8; bytes.len()];
            for j in 0..n {
                pack_block(&b, j, elem).apply(&bytes, &mut packed);
            }
            let want: Vec<u8> = (0..n)
                .flat_map(|j| match b.cut(&x, j) {
                    Elements::I64(v) => v,
                    _ => unreachable!(),
                })
                .flat_map(|v| (v as u16).to_le_bytes())
                .collect();
            assert_eq!(packed, want, "dim {dim} in {n}");
            let mut back = vec![0u8; bytes.len()];
            for j in 0..n {
                unpack_block(&b, j, elem).apply(&packed, &mut back);
            }
            assert_eq!(back, bytes, "dim {dim} in {n}");
            assert_eq!(contiguous(&b), dim == 0, "dim {dim}");
        }
    }
}
