//! Cuts a segment function into fusion clusters, as XLA's instruction fusion does: each
//! cluster becomes a small kernel of its own, compiled once however often it occurs (the
//! transformer's layers, the forward and backward passes, every device), and a segment
//! runs as a sequence of cluster kernels passing buffers.
//!
//! Every op has a [`Role`] ([`role`], the one table of per-op knowledge here):
//!
//! - a **root** (`dot_general`, `reduce`, `gather`, `concatenate`, `rotate`, ...) starts a cluster
//!   of its own; its producers may join it (`reduce(exp(x - m))` is one loop);
//! - a **cheap** op (broadcasts, reshapes, transposes, slices, constants, `add`,
//!   `multiply`, `select`, ...) joins the clusters of its consumers, and is recomputed in
//!   each of them when they are several (reading a broadcast twice costs less than
//!   writing it once and reading it twice) — if it reads at most one tensor in full
//!   (its other operands scalars, broadcasts, constants or iotas); one that reads more
//!   (`x + y`) and has consumers in several clusters starts a cluster of its own;
//! - an **expensive** op (`exponential`, `tanh`, `divide`, ...) joins its consumers'
//!   cluster when they all are in one, and otherwise starts a cluster of its own: its
//!   value is computed once, written, and read by each consumer's kernel;
//! - a **host** op (control flow, scatter, sort, convolution, select_and_scatter,
//!   `shardc.random`: what kernels do not lower yet) is a cluster
//!   of its own that no producer joins, run by the reference interpreter (`native.rs`);
//!   so is a matmul the library GEMM serves (`gemm.rs`), when asked: its operands are
//!   buffers, so a producer is computed by a kernel of its own rather than inside the
//!   matmul's loops (the GEMM's speed pays for writing it and reading it back).
//!
//! Ops are placed from the last to the first, so an op's consumers are placed before it.
//! An op whose value leaves the segment is never recomputed (one cluster writes it); an
//! op no one reads is dropped. Every cluster but its first op (the *root*, the last in
//! program order) holds only producers of its other ops, so the values that cross
//! clusters are roots' results, and ordering clusters by their roots runs every
//! producer's cluster before its consumers'.
//!
//! Inside a kernel, MLIR's `linalg-fuse-elementwise-ops` fuses a producer into its
//! consumer only when the consumer is its only user, so nothing is duplicated there:
//! a value a cluster reads twice is computed once into a buffer of the kernel.

use super::gemm::Gemm;
use shardc_ir::{BinaryOp, Function, Op, OpId, OpKind, UnaryOp, ValueId};
use shardc_runtime::engine::Segment;
use std::collections::{BTreeSet, HashMap, HashSet};

/// How an op joins clusters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Starts a cluster of its own (producers may join it).
    Root,
    /// Joins its consumers' clusters, recomputed in each when they are several.
    Cheap,
    /// Joins its consumers' cluster when there is one; else starts its own.
    Expensive,
    /// Runs alone, through the reference interpreter: an op kernels do not lower.
    Host,
}

/// The most clusters an op that reads one tensor in full is recomputed in; beyond, it is
/// a cluster of its own, written once. Without a bound, a chain of such ops each read by
/// a reduction (`x1 = x0 - mean(x0); x2 = x1 - mean(x1); ...`) is recomputed from its
/// start in every reduction's cluster: quadratic work, each cluster a distinct kernel
/// (200 links took 24 ms a step on 8 devices, 2 cores). Ops that read nothing in full
/// (broadcasts of scalars, constants, iotas) are recomputed wherever they are read.
const MAX_COPIES: usize = 4;

/// The role of every op of `f`.
pub fn role(f: &Function, op: &Op) -> Role {
    // A bitcast between element widths regroups elements across a dimension: run on
    // the host (JAX's `rbg` keys are ui32[4] read as ui64[2]).
    if op.kind == OpKind::BitcastConvert
        && op.operands.first().map(|&v| f.ty(v).dtype.bit_width())
            != op.results.first().map(|&v| f.ty(v).dtype.bit_width())
    {
        return Role::Host;
    }
    // A reducer whose ops are not on scalars (complex numbers' reducers on pairs, from
    // `ir/src/text/complex.rs`) has no kernel form: the interpreter runs it.
    if matches!(op.kind, OpKind::Reduce { .. } | OpKind::ReduceWindow(_))
        && op.regions.iter().any(|&r| {
            f.block(r)
                .ops
                .iter()
                .any(|&o| f.op(o).results.iter().any(|&v| f.ty(v).rank() != 0))
        })
    {
        return Role::Host;
    }
    match &op.kind {
        OpKind::DotGeneral(_)
        | OpKind::Reduce { .. }
        | OpKind::Gather(_)
        | OpKind::ReduceWindow(_)
        | OpKind::DynamicSlice { .. }
        | OpKind::DynamicUpdateSlice
        | OpKind::Concatenate { .. }
        | OpKind::Pad { .. }
        | OpKind::Rotate { .. } => Role::Root,
        OpKind::Unary(u) => match u {
            UnaryOp::Exponential
            | UnaryOp::ExponentialMinusOne
            | UnaryOp::Log
            | UnaryOp::LogPlusOne
            | UnaryOp::Tanh
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Cbrt
            | UnaryOp::Logistic
            | UnaryOp::Sine
            | UnaryOp::Cosine
            | UnaryOp::Tan => Role::Expensive,
            UnaryOp::Negate
            | UnaryOp::Abs
            | UnaryOp::Not
            | UnaryOp::Popcnt
            | UnaryOp::CountLeadingZeros
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Sign
            | UnaryOp::RoundNearestEven
            | UnaryOp::RoundNearestAfz
            | UnaryOp::IsFinite => Role::Cheap,
        },
        OpKind::Binary(b) => match b {
            BinaryOp::Divide | BinaryOp::Remainder | BinaryOp::Power | BinaryOp::Atan2 => {
                Role::Expensive
            }
            BinaryOp::Add
            | BinaryOp::Subtract
            | BinaryOp::Multiply
            | BinaryOp::Maximum
            | BinaryOp::Minimum
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightLogical
            | BinaryOp::ShiftRightArithmetic => Role::Cheap,
        },
        OpKind::Compare { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert
        | OpKind::BitcastConvert
        | OpKind::Constant(_)
        | OpKind::Iota { .. }
        | OpKind::BroadcastInDim { .. }
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::Slice { .. }
        | OpKind::Reverse { .. }
        | OpKind::ShardingConstraint(_) => Role::Cheap,
        // Run by the interpreter: loops and branches (their regions), the counter-based
        // random op (defined bit for bit by the reference), dense linear algebra.
        OpKind::While
        | OpKind::Case
        | OpKind::Random { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::Scatter(_)
        | OpKind::Sort { .. }
        | OpKind::Convolution(_)
        | OpKind::SelectAndScatter(_)
        | OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::Lu
        | OpKind::TridiagonalSolve
        | OpKind::Fft { .. }
        | OpKind::Geqrf
        | OpKind::HouseholderProduct
        | OpKind::Eigh { .. }
        | OpKind::Svd { .. } => Role::Host,
        OpKind::OptimizationBarrier => Role::Cheap,
        // Not lowered to kernels: alone, so the error names them.
        OpKind::Call { .. }
        | OpKind::ManualComputation { .. }
        | OpKind::AllGather { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. }
        | OpKind::AllToAll { .. }
        | OpKind::ShardSlice { .. }
        | OpKind::AxisIndex { .. }
        | OpKind::PartitionId
        | OpKind::CollectivePermute { .. } => Role::Root,
    }
}

/// Whether a cluster of `f` is run on the host (its one op is a [`Role::Host`] op).
pub fn is_host(f: &Function, c: &Segment) -> bool {
    c.ops
        .last()
        .is_some_and(|&o| role(f, f.op(o)) == Role::Host)
}

/// Cuts the body of `f` (a segment function: compute ops only) into clusters, in an
/// order that runs each after the clusters it reads from; `library`: the matmuls the
/// library GEMM serves (of at least that many multiply-adds) are clusters of their own. Each is a [`Segment`] of `f`:
/// its ops in program order, the values it reads from outside (arguments of `f` or other
/// clusters' outputs) and the values it writes for other clusters or as results of `f`.
pub fn cluster(f: &Function, library: Option<usize>) -> Vec<Segment> {
    let body = &f.body().ops;
    let position: HashMap<OpId, usize> = body.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let defined_at: HashMap<ValueId, usize> = body
        .iter()
        .enumerate()
        .flat_map(|(i, &o)| f.op(o).results.iter().map(move |&r| (r, i)))
        .collect();
    // Who reads each op's results (positions), and which results leave the segment.
    let mut users: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); body.len()];
    for (i, &o) in body.iter().enumerate() {
        for v in &f.op(o).operands {
            if let Some(&d) = defined_at.get(v) {
                users[d].insert(i);
            }
        }
    }
    let mut leaves = vec![false; body.len()];
    for r in f.results() {
        if let Some(&d) = defined_at.get(r) {
            leaves[d] = true;
        }
    }
    // Recomputing an op in several clusters is cheap only when it reads at most one
    // tensor in full (XLA's `EffectivelyAtMostUnary`): its other operands are scalars or
    // broadcasts, constants and iotas (themselves recomputed from little). Otherwise
    // every copy would read all its operands, and a chain of them (a residual stream:
    // `x + a1 + m1 + a2 + ...`) would be recomputed from its start in every reader. One
    // that reads one tensor in full is recomputed in at most `MAX_COPIES` clusters.
    let full_reads = |i: usize| {
        f.op(body[i])
            .operands
            .iter()
            .filter(|&&v| {
                let from_little = defined_at.get(&v).is_some_and(|&d| {
                    matches!(
                        f.op(body[d]).kind,
                        OpKind::BroadcastInDim { .. } | OpKind::Constant(_) | OpKind::Iota { .. }
                    )
                });
                f.ty(v).rank() > 0 && !from_little
            })
            .count()
    };
    // Place ops from the last: each joins clusters of its consumers or starts one.
    let mut clusters_of: Vec<Vec<usize>> = vec![Vec::new(); body.len()];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in (0..body.len()).rev() {
        let homes: BTreeSet<usize> = users[i]
            .iter()
            .flat_map(|&u| clusters_of[u].iter().copied())
            .collect();
        if homes.is_empty() && !leaves[i] {
            continue; // dead
        }
        // A host cluster or a library matmul is its one op: producers stay in kernels.
        let hosted = homes.iter().any(|&c| {
            let root = f.op(body[members[c][0]]);
            role(f, root) == Role::Host
                || library.is_some_and(|min| Gemm::of_op(f, root, min).is_some())
        });
        let join = match role(f, f.op(body[i])) {
            Role::Root | Role::Host => false,
            _ if hosted => false,
            _ if homes.len() == 1 => true,
            Role::Cheap => {
                !homes.is_empty()
                    && !leaves[i]
                    && match full_reads(i) {
                        0 => true,
                        1 => homes.len() <= MAX_COPIES,
                        _ => false,
                    }
            }
            Role::Expensive => false,
        };
        if join {
            for &c in &homes {
                members[c].push(i);
            }
            clusters_of[i] = homes.into_iter().collect();
        } else {
            clusters_of[i] = vec![members.len()];
            members.push(vec![i]);
        }
    }
    // Run order: by root (each cluster's first member, its last op in program order).
    members.sort_by_key(|m| m[0]);
    let results: HashSet<ValueId> = f.results().iter().copied().collect();
    let mut segments: Vec<Segment> = members
        .iter()
        .map(|m| {
            let mut ops: Vec<usize> = m.clone();
            ops.sort_unstable();
            Segment {
                ops: ops.into_iter().map(|i| body[i]).collect(),
                inputs: Vec::new(),
                outputs: Vec::new(),
            }
        })
        .collect();
    // Inputs: read, not defined inside. Outputs: read by a cluster that does not define
    // them, or results of f.
    let mut read_outside: HashSet<ValueId> = HashSet::new();
    for s in &mut segments {
        let defined: HashSet<ValueId> = s
            .ops
            .iter()
            .flat_map(|&o| f.op(o).results.iter().copied())
            .collect();
        for &o in &s.ops {
            for &v in &f.op(o).operands {
                if !defined.contains(&v) && !s.inputs.contains(&v) {
                    s.inputs.push(v);
                    read_outside.insert(v);
                }
            }
        }
    }
    for s in &mut segments {
        for &o in &s.ops {
            for &r in &f.op(o).results {
                if results.contains(&r) || read_outside.contains(&r) {
                    s.outputs.push(r);
                }
            }
        }
    }
    debug_assert!(
        segments
            .iter()
            .all(|s| !s.ops.is_empty() && s.ops.iter().all(|o| position.contains_key(o))),
        "every cluster holds body ops"
    );
    segments
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    fn clusters_of(src: &str) -> (Function, Vec<Segment>) {
        let m = parse_module(src).unwrap();
        let f = m.entry().unwrap().clone();
        let c = cluster(&f, None);
        (f, c)
    }

    /// The op names of each cluster.
    fn names(f: &Function, c: &[Segment]) -> Vec<Vec<String>> {
        c.iter()
            .map(|s| {
                s.ops
                    .iter()
                    .map(|&o| {
                        f.op(o)
                            .kind
                            .name()
                            .trim_start_matches("stablehlo.")
                            .to_string()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_shared_expensive_producer_is_computed_once() {
        // exp(x) feeds two reductions: it is written once and read by both.
        let (f, c) = clusters_of(
            r#"module {
  func.func @main(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %e = stablehlo.exponential %x : tensor<4x8xf32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.reduce(%e init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    return %s, %m : tensor<4xf32>, tensor<4xf32>
  }
}"#,
        );
        assert_eq!(
            names(&f, &c),
            [
                vec!["exponential"],
                vec!["constant", "reduce"],
                vec!["constant", "reduce"]
            ]
        );
        let e = f.op(c[0].ops[0]).results[0];
        assert_eq!(c[0].outputs, [e]);
        assert!(c[1].inputs.contains(&e) && c[2].inputs.contains(&e));
    }

    #[test]
    fn a_chain_read_by_reductions_is_recomputed_a_bounded_number_of_times() {
        // x_{i+1} = x_i - broadcast(sum(x_i)): each link reads one tensor in full and is
        // read by the next link and by a reduction. Recomputed in every reader, link 0
        // would be in all 40 reductions' clusters (820 copies in all).
        let links = 40;
        let mut text = String::from(
            "module {\n  func.func @main(%x0: tensor<4x8xf32>) -> tensor<4x8xf32> {\n    %z = stablehlo.constant dense<0.0> : tensor<f32>\n",
        );
        for i in 0..links {
            text += &format!(
                "    %r{i} = stablehlo.reduce(%x{i} init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n    %b{i} = stablehlo.broadcast_in_dim %r{i}, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>\n    %x{} = stablehlo.subtract %x{i}, %b{i} : tensor<4x8xf32>\n",
                i + 1
            );
        }
        text += &format!("    return %x{links} : tensor<4x8xf32>\n  }}\n}}");
        let (f, c) = clusters_of(&text);
        let subtracts = |s: &Segment| {
            s.ops
                .iter()
                .filter(|&&o| f.op(o).kind == OpKind::Binary(BinaryOp::Subtract))
                .count()
        };
        let copies: usize = c.iter().map(subtracts).sum();
        assert!(
            copies <= MAX_COPIES * links,
            "{copies} subtractions computed for {links} links"
        );
        // Every link is still computed: at least once each.
        assert!(copies >= links);
        assert!(
            c.iter().all(|s| subtracts(s) <= MAX_COPIES + 1),
            "{:?}",
            names(&f, &c)
        );
    }

    #[test]
    fn cheap_producers_are_recomputed_and_single_consumers_fused() {
        // The broadcast feeds two kernels (it is recomputed in each); exp has one
        // consumer kernel (it joins it); the shared multiply is cheap (recomputed).
        let (f, c) = clusters_of(
            r#"module {
  func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    %y = stablehlo.multiply %x, %bb : tensor<4x8xf32>
    %e = stablehlo.exponential %y : tensor<4x8xf32>
    %d = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = stablehlo.add %d, %y : tensor<4x8xf32>
    return %t, %d : tensor<4x8xf32>, tensor<4x8xf32>
  }
}"#,
        );
        assert_eq!(
            names(&f, &c),
            [
                vec!["broadcast_in_dim", "multiply", "exponential", "dot_general"],
                vec!["broadcast_in_dim", "multiply", "add"],
            ]
        );
        // The dot's result leaves the segment and feeds the add's kernel.
        let d = f.op(c[0].ops[3]).results[0];
        assert_eq!(c[0].outputs, [d]);
        assert_eq!(c[1].inputs, [f.args()[1], f.args()[0], d]);
    }

    #[test]
    fn a_shared_op_reading_two_tensors_in_full_is_computed_once() {
        // r = x + y feeds two reductions; recomputing it in each would read x and y
        // twice: it is a cluster of its own. s = r * broadcast(b) reads one tensor in
        // full and is recomputed in both.
        let (f, c) = clusters_of(
            r#"module {
  func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %r = stablehlo.add %x, %y : tensor<4x8xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    %s = stablehlo.multiply %r, %bb : tensor<4x8xf32>
    %u = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.reduce(%s init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    return %u, %m : tensor<4xf32>, tensor<4xf32>
  }
}"#,
        );
        assert_eq!(
            names(&f, &c),
            [
                vec!["add"],
                vec!["constant", "broadcast_in_dim", "multiply", "reduce"],
                vec!["constant", "broadcast_in_dim", "multiply", "reduce"]
            ]
        );
    }

    #[test]
    fn values_that_leave_the_segment_are_not_recomputed_and_dead_ops_dropped() {
        let (f, c) = clusters_of(
            r#"module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %n = stablehlo.negate %x : tensor<4xf32>
    %dead = stablehlo.exponential %x : tensor<4xf32>
    %a = stablehlo.add %n, %x : tensor<4xf32>
    %m = stablehlo.multiply %n, %x : tensor<4xf32>
    return %a, %m, %n : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}"#,
        );
        assert_eq!(
            names(&f, &c),
            [vec!["negate"], vec!["add"], vec!["multiply"]]
        );
        assert_eq!(c[0].outputs, [f.op(c[0].ops[0]).results[0]]);
    }
}
