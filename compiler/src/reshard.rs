//! The resharding planner: collective sequences that turn one layout of a value into
//! another, across any number of mesh axes.
//!
//! Each [`Step`] changes the layout of every device's piece:
//!
//! ```text
//! all_reduce(U)          partial over U   -> complete                  [{a}] U={m} -> [{a}]
//! reduce_scatter(d, U)   partial over U   -> complete, dim d += U      [{}] U={m} -> [{m}]
//! all_gather(d, X)       dim d = P ++ X   -> dim d = P                 [{a, m}] -> [{a}]
//! all_to_all(d1, d2, X)  d1 = P ++ X      -> d1 = P, d2 += X           [{m}, {}] -> [{}, {m}]
//! slice(d, X)            dim d = P        -> dim d = P ++ X (local)    [{a}] -> [{a, m}]
//! permute(d, Y)          dim d = X        -> dim d = Y, Y reorders X   [{a, m}] -> [{m, a}]
//! ```
//!
//! [`plan`] works in three phases: reduce what is partial (all-reduce, or reduce-scatter
//! straight into a dimension that wants those axes next), move axes between dimensions
//! (all-to-all, when an axis at the minor end of one dimension is the next one another
//! dimension wants), then gather what no dimension keeps and slice what is missing.
//! Dimensions keep the longest common prefix of their source and target axes, so the
//! plan never gathers an axis it would slice again. Algebra alternatives (all-reduce then
//! slice instead of reduce-scatter, all-gather then slice instead of all-to-all) are
//! returned too, so extraction and `explain` can weigh them.

use crate::layout::{CombinerKey, Layout};
use serde::Serialize;
use shardc_ir::{AxisRef, Mesh, TensorType};
use std::fmt;

/// One resharding step on every device's piece.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Step {
    AllReduce {
        axes: Vec<AxisRef>,
        combiner: CombinerKey,
    },
    ReduceScatter {
        dim: usize,
        axes: Vec<AxisRef>,
        combiner: CombinerKey,
    },
    AllGather {
        dim: usize,
        axes: Vec<AxisRef>,
    },
    AllToAll {
        src_dim: usize,
        dst_dim: usize,
        axes: Vec<AxisRef>,
    },
    Slice {
        dim: usize,
        axes: Vec<AxisRef>,
    },
    /// The dimension's axes reordered: every device's block moves to the device that
    /// holds it under the new order (a collective permute, one piece per device).
    Permute {
        dim: usize,
        axes: Vec<AxisRef>,
    },
}

/// Which communication primitive a step is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CollectiveKind {
    AllReduce,
    ReduceScatter,
    AllGather,
    AllToAll,
    CollectivePermute,
    /// Local: no communication.
    Slice,
}

impl CollectiveKind {
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::AllReduce => "all_reduce",
            CollectiveKind::ReduceScatter => "reduce_scatter",
            CollectiveKind::AllGather => "all_gather",
            CollectiveKind::AllToAll => "all_to_all",
            CollectiveKind::CollectivePermute => "collective_permute",
            CollectiveKind::Slice => "slice",
        }
    }
}

fn names(axes: &[AxisRef]) -> String {
    axes.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::AllReduce { axes, .. } => write!(f, "all_reduce({{{}}})", names(axes)),
            Step::ReduceScatter { dim, axes, .. } => {
                write!(f, "reduce_scatter(dim {dim}, {{{}}})", names(axes))
            }
            Step::AllGather { dim, axes } => {
                write!(f, "all_gather(dim {dim}, {{{}}})", names(axes))
            }
            Step::AllToAll {
                src_dim,
                dst_dim,
                axes,
            } => {
                write!(
                    f,
                    "all_to_all(dim {src_dim} -> dim {dst_dim}, {{{}}})",
                    names(axes)
                )
            }
            Step::Slice { dim, axes } => write!(f, "slice(dim {dim}, {{{}}})", names(axes)),
            Step::Permute { dim, axes } => write!(f, "permute(dim {dim} to {{{}}})", names(axes)),
        }
    }
}

impl Step {
    pub fn kind(&self) -> CollectiveKind {
        match self {
            Step::AllReduce { .. } => CollectiveKind::AllReduce,
            Step::ReduceScatter { .. } => CollectiveKind::ReduceScatter,
            Step::AllGather { .. } => CollectiveKind::AllGather,
            Step::AllToAll { .. } => CollectiveKind::AllToAll,
            Step::Slice { .. } => CollectiveKind::Slice,
            Step::Permute { .. } => CollectiveKind::CollectivePermute,
        }
    }

    /// The mesh axes the step communicates over (empty for a local slice).
    pub fn axes(&self) -> &[AxisRef] {
        match self {
            Step::Slice { .. } => &[],
            Step::AllReduce { axes, .. }
            | Step::ReduceScatter { axes, .. }
            | Step::AllGather { axes, .. }
            | Step::AllToAll { axes, .. }
            | Step::Permute { axes, .. } => axes,
        }
    }

    /// The number of devices the step's axes span: 1 means the step moves nothing (a
    /// bookkeeping change over axes of size 1).
    pub fn group_size(&self, mesh: &Mesh) -> usize {
        let axes = match self {
            Step::Slice { axes, .. } => axes.as_slice(),
            other => other.axes(),
        };
        axes.iter().map(|a| a.size(mesh).unwrap_or(1)).product()
    }

    /// Whether the step changes the layout on paper only: its axes span one device, or it
    /// reorders a dimension's axes only around axes of size 1 (every block stays put).
    pub fn moves_nothing(&self, mesh: &Mesh, from: &Layout) -> bool {
        if self.group_size(mesh) <= 1 {
            return true;
        }
        let Step::Permute { dim, axes } = self else {
            return false;
        };
        let real = |v: &[AxisRef]| -> Vec<AxisRef> {
            v.iter()
                .filter(|a| a.size(mesh).unwrap_or(1) > 1)
                .cloned()
                .collect()
        };
        from.dims.get(*dim).is_some_and(|d| real(d) == real(axes))
    }

    /// The layout after this step, or `None` if the step does not apply to `from`.
    pub fn apply(&self, from: &Layout) -> Option<Layout> {
        let mut to = from.clone();
        let strip_suffix = |dim: &mut Vec<AxisRef>, axes: &[AxisRef]| -> Option<()> {
            let n = dim.len().checked_sub(axes.len())?;
            (dim[n..] == *axes).then(|| dim.truncate(n))
        };
        match self {
            Step::AllReduce { axes, .. } | Step::ReduceScatter { axes, .. } => {
                let mut left = from.unreduced.clone();
                left.retain(|a| !axes.contains(a));
                if left.len() + axes.len() != from.unreduced.len() || !left.is_empty() {
                    return None;
                }
                to.unreduced.clear();
                to.combiner = CombinerKey::Sum;
                if let Step::ReduceScatter { dim, axes, .. } = self {
                    to.dims.get_mut(*dim)?.extend(axes.iter().cloned());
                }
            }
            Step::AllGather { dim, axes } => strip_suffix(to.dims.get_mut(*dim)?, axes)?,
            Step::AllToAll {
                src_dim,
                dst_dim,
                axes,
            } => {
                strip_suffix(to.dims.get_mut(*src_dim)?, axes)?;
                to.dims.get_mut(*dst_dim)?.extend(axes.iter().cloned());
            }
            Step::Slice { dim, axes } => {
                if axes.iter().any(|a| from.axes().any(|b| b.overlaps(a))) {
                    return None;
                }
                to.dims.get_mut(*dim)?.extend(axes.iter().cloned());
            }
            Step::Permute { dim, axes } => {
                let d = to.dims.get_mut(*dim)?;
                let same = d.len() == axes.len() && axes.iter().all(|a| d.contains(a));
                if !same || d == axes {
                    return None;
                }
                *d = axes.clone();
            }
        }
        Some(to)
    }

    /// Bytes each device sends for this step, with ring algorithms over a group of `g`
    /// devices: all-reduce `2(g-1)/g * S`, all-gather `(g-1)/g * S_out`, reduce-scatter
    /// `(g-1)/g * S_in`, all-to-all `(g-1)/g * S`, where `S` is the local piece in bytes;
    /// a collective permute sends each device's piece once, `S`.
    pub fn bytes_per_device(&self, mesh: &Mesh, global: &TensorType, from: &Layout) -> u64 {
        let g: usize = self
            .axes()
            .iter()
            .map(|a| a.size(mesh).unwrap_or(1))
            .product();
        if g <= 1 {
            return 0;
        }
        if self.moves_nothing(mesh, from) {
            return 0;
        }
        let size = |l: &Layout| {
            l.local_type(mesh, global)
                .map(|t| t.size_bytes())
                .unwrap_or(0) as u64
        };
        let (g, s_in) = (g as u64, size(from));
        match self {
            Step::AllReduce { .. } => 2 * (g - 1) * s_in / g,
            Step::ReduceScatter { .. } | Step::AllToAll { .. } => (g - 1) * s_in / g,
            Step::AllGather { .. } => (g - 1) * s_in,
            Step::Permute { .. } => s_in,
            Step::Slice { .. } => 0,
        }
    }
}

/// A sequence of steps from one layout to another.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Plan {
    pub steps: Vec<Step>,
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return f.write_str("(nothing)");
        }
        let s: Vec<String> = self.steps.iter().map(|s| s.to_string()).collect();
        f.write_str(&s.join("; "))
    }
}

impl Plan {
    /// The layouts after each step, starting from `from` (`None` if a step does not apply).
    pub fn layouts(&self, from: &Layout) -> Option<Vec<Layout>> {
        let mut out = vec![from.clone()];
        for s in &self.steps {
            let next = s.apply(out.last()?)?;
            out.push(next);
        }
        Some(out)
    }
}

/// Ways to turn `from` into `to`: the planner's plan first, then its algebra alternatives
/// (deduplicated). Empty if `to` asks for a partial value `from` is not (a value cannot
/// become partial by communication). Every plan returned reaches `to` exactly.
pub fn plan(from: &Layout, to: &Layout) -> Vec<Plan> {
    if from.rank() != to.rank() {
        return Vec::new();
    }
    if to.is_partial() && (to.unreduced != from.unreduced || to.combiner != from.combiner) {
        return Vec::new();
    }
    let mut plans: Vec<Plan> = Vec::new();
    for reduce_scatter in [true, false] {
        for all_to_all in [true, false] {
            for permute in [true, false] {
                let options = Options {
                    reduce_scatter,
                    all_to_all,
                    permute,
                };
                if let Some(p) = plan_with(from, to, options) {
                    debug_assert_eq!(
                        p.layouts(from).and_then(|l| l.last().cloned()).as_ref(),
                        Some(to)
                    );
                    if !plans.contains(&p) {
                        plans.push(p);
                    }
                }
            }
        }
    }
    plans
}

fn common_prefix(a: &[AxisRef], b: &[AxisRef]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Which algebra the planner may use (the alternatives are plans without it).
#[derive(Copy, Clone)]
struct Options {
    reduce_scatter: bool,
    all_to_all: bool,
    permute: bool,
}

fn plan_with(from: &Layout, to: &Layout, options: Options) -> Option<Plan> {
    let mut steps = Vec::new();
    let mut cur = from.clone();
    let push = |steps: &mut Vec<Step>, cur: &mut Layout, s: Step| -> Option<()> {
        *cur = s.apply(cur)?;
        steps.push(s);
        Some(())
    };
    // Phase 1: reduce what is partial and should not be.
    if cur.is_partial() && !to.is_partial() {
        let axes = cur.unreduced.clone();
        let combiner = cur.combiner;
        // Reduce-scatter onto a dimension whose target continues with exactly these axes
        // (in some order the target gives) after what the dimension keeps.
        let target_dim = options
            .reduce_scatter
            .then(|| {
                (0..cur.rank()).find_map(|d| {
                    let keep = common_prefix(&cur.dims[d], &to.dims[d]);
                    if keep != cur.dims[d].len() {
                        return None;
                    }
                    let next = to.dims[d].get(keep..keep + axes.len())?;
                    let same_set = next.iter().all(|a| axes.contains(a));
                    same_set.then(|| (d, next.to_vec()))
                })
            })
            .flatten();
        let step = match target_dim {
            Some((dim, order)) => Step::ReduceScatter {
                dim,
                axes: order,
                combiner,
            },
            None => Step::AllReduce { axes, combiner },
        };
        push(&mut steps, &mut cur, step)?;
    }
    // Phase 2: move axes between dimensions with all-to-alls.
    if options.all_to_all {
        loop {
            let mut moved = false;
            for d1 in 0..cur.rank() {
                let keep1 = common_prefix(&cur.dims[d1], &to.dims[d1]);
                if keep1 == cur.dims[d1].len() {
                    continue;
                }
                for d2 in 0..cur.rank() {
                    if d2 == d1 || common_prefix(&cur.dims[d2], &to.dims[d2]) != cur.dims[d2].len()
                    {
                        continue;
                    }
                    let wanted = &to.dims[d2][cur.dims[d2].len()..];
                    let excess = &cur.dims[d1][keep1..];
                    // The longest suffix of the excess that `d2` wants next.
                    let best = (1..=excess.len())
                        .rev()
                        .find(|&n| wanted.starts_with(&excess[excess.len() - n..]));
                    if let Some(n) = best {
                        let axes = excess[excess.len() - n..].to_vec();
                        push(
                            &mut steps,
                            &mut cur,
                            Step::AllToAll {
                                src_dim: d1,
                                dst_dim: d2,
                                axes,
                            },
                        )?;
                        moved = true;
                        break;
                    }
                }
                if moved {
                    break;
                }
            }
            if !moved {
                break;
            }
        }
    }
    // A dimension whose axes the target only reorders: move each block to the device
    // that holds it in the new order, instead of gathering and slicing again.
    if options.permute {
        for d in 0..cur.rank() {
            let same = cur.dims[d].len() == to.dims[d].len()
                && to.dims[d].iter().all(|a| cur.dims[d].contains(a));
            if same && cur.dims[d] != to.dims[d] {
                push(
                    &mut steps,
                    &mut cur,
                    Step::Permute {
                        dim: d,
                        axes: to.dims[d].clone(),
                    },
                )?;
            }
        }
    }
    // Phase 3: gather what no dimension keeps, then slice what is missing.
    for d in 0..cur.rank() {
        let keep = common_prefix(&cur.dims[d], &to.dims[d]);
        if keep < cur.dims[d].len() {
            let axes = cur.dims[d][keep..].to_vec();
            push(&mut steps, &mut cur, Step::AllGather { dim: d, axes })?;
        }
    }
    for d in 0..cur.rank() {
        if cur.dims[d].len() < to.dims[d].len() {
            let axes = to.dims[d][cur.dims[d].len()..].to_vec();
            push(&mut steps, &mut cur, Step::Slice { dim: d, axes })?;
        }
    }
    (cur == *to).then_some(Plan { steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(dims: &[&[&str]], unreduced: &[&str]) -> Layout {
        Layout {
            dims: dims
                .iter()
                .map(|d| d.iter().map(|a| AxisRef::new(a)).collect())
                .collect(),
            unreduced: unreduced.iter().map(|a| AxisRef::new(a)).collect(),
            combiner: CombinerKey::Sum,
        }
    }

    fn first(from: &Layout, to: &Layout) -> String {
        plan(from, to)[0].to_string()
    }

    #[test]
    fn canonical_reshards() {
        // [[0],[1]] -> replicated on a 2x4 grid (upstream MLIR gets this shape wrong).
        assert_eq!(
            first(&l(&[&["data"], &["model"]], &[]), &l(&[&[], &[]], &[])),
            "all_gather(dim 0, {\"data\"}); all_gather(dim 1, {\"model\"})"
        );
        assert_eq!(
            first(
                &l(&[&["data"], &[]], &["model"]),
                &l(&[&["data"], &[]], &[])
            ),
            "all_reduce({\"model\"})"
        );
        assert_eq!(
            first(&l(&[&[], &[]], &["model"]), &l(&[&["model"], &[]], &[])),
            "reduce_scatter(dim 0, {\"model\"})"
        );
        assert_eq!(
            first(&l(&[&["model"], &[]], &[]), &l(&[&[], &["model"]], &[])),
            "all_to_all(dim 0 -> dim 1, {\"model\"})"
        );
        assert_eq!(
            first(
                &l(&[&["data"], &[]], &[]),
                &l(&[&["data", "model"], &[]], &[])
            ),
            "slice(dim 0, {\"model\"})"
        );
        // Reordering the axes of one dimension: a collective permute; the alternative
        // gathers the diverging suffix and slices anew.
        let reorder: Vec<String> = plan(
            &l(&[&["data", "model"], &[]], &[]),
            &l(&[&["model", "data"], &[]], &[]),
        )
        .iter()
        .map(|p| p.to_string())
        .collect();
        assert_eq!(
            reorder,
            [
                "permute(dim 0 to {\"model\", \"data\"})",
                "all_gather(dim 0, {\"data\", \"model\"}); slice(dim 0, {\"model\", \"data\"})"
            ]
        );
        assert_eq!(
            first(&l(&[&["data"], &[]], &[]), &l(&[&["data"], &[]], &[])),
            "(nothing)"
        );
    }

    #[test]
    fn alternatives_include_the_algebra_losers() {
        let all: Vec<String> = plan(&l(&[&[], &[]], &["model"]), &l(&[&["model"], &[]], &[]))
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            all,
            [
                "reduce_scatter(dim 0, {\"model\"})",
                "all_reduce({\"model\"}); slice(dim 0, {\"model\"})"
            ]
        );
        let all: Vec<String> = plan(&l(&[&["model"], &[]], &[]), &l(&[&[], &["model"]], &[]))
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(
            all,
            [
                "all_to_all(dim 0 -> dim 1, {\"model\"})",
                "all_gather(dim 0, {\"model\"}); slice(dim 1, {\"model\"})"
            ]
        );
    }

    #[test]
    fn cannot_create_partial_values() {
        assert!(plan(&l(&[&[]], &[]), &l(&[&[]], &["model"])).is_empty());
    }

    #[test]
    fn bytes_follow_ring_formulas() {
        let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        let ty = TensorType::new(shardc_ir::DType::F32, [8, 16]);
        // Local piece 8x16 f32 = 512 bytes; all-reduce over 4: 2 * 3/4 * 512 = 768.
        let ar = Step::AllReduce {
            axes: vec![AxisRef::new("model")],
            combiner: CombinerKey::Sum,
        };
        assert_eq!(
            ar.bytes_per_device(&mesh, &ty, &l(&[&[], &[]], &["model"])),
            768
        );
        // All-gather of 4x16 pieces over data (2): the output is 512 bytes; (2-1)/2 * 512 = 256.
        let ag = Step::AllGather {
            dim: 0,
            axes: vec![AxisRef::new("data")],
        };
        assert_eq!(
            ag.bytes_per_device(&mesh, &ty, &l(&[&["data"], &[]], &[])),
            256
        );
    }
}
