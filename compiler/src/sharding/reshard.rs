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

use crate::sharding::layout::{CombinerKey, Layout};
use serde::Serialize;
use shardc_ir::{AxisRef, Mesh, TensorType};
use std::fmt;

/// One resharding step on every device's piece.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Step {
    /// Combine the partial pieces over `axes`.
    AllReduce {
        /// The axes reduced over.
        axes: Vec<AxisRef>,
        /// How the pieces combine.
        combiner: CombinerKey,
    },
    /// Combine the partial pieces over `axes`, each device keeping its block of dimension `dim`.
    ReduceScatter {
        /// The dimension split.
        dim: usize,
        /// The axes reduced over and splitting `dim`.
        axes: Vec<AxisRef>,
        /// How the pieces combine.
        combiner: CombinerKey,
    },
    /// Gather dimension `dim` over `axes`.
    AllGather {
        /// The dimension gathered.
        dim: usize,
        /// The axes it was split over.
        axes: Vec<AxisRef>,
    },
    /// Move the split over `axes` from dimension `src_dim` to `dst_dim`.
    AllToAll {
        /// The dimension gathered.
        src_dim: usize,
        /// The dimension split.
        dst_dim: usize,
        /// The axes moved.
        axes: Vec<AxisRef>,
    },
    /// Keep each device's block of dimension `dim` split over `axes` (local, no communication).
    Slice {
        /// The dimension cut.
        dim: usize,
        /// The axes it is split over.
        axes: Vec<AxisRef>,
    },
    /// The dimension's axes reordered: every device's block moves to the device that
    /// holds it under the new order (a collective permute, one piece per device).
    Permute {
        /// The dimension.
        dim: usize,
        /// Its axes in the new order.
        axes: Vec<AxisRef>,
    },
}

/// Which communication primitive a step is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CollectiveKind {
    /// `all_reduce`.
    AllReduce,
    /// `reduce_scatter`.
    ReduceScatter,
    /// `all_gather`.
    AllGather,
    /// `all_to_all`.
    AllToAll,
    /// `collective_permute`.
    CollectivePermute,
    /// Local: no communication.
    Slice,
}

impl CollectiveKind {
    /// Its name in `explain` (`all_reduce`).
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
    /// Which communication primitive it is.
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

    /// What the step does to every device's piece of a value of type `global` laid out as
    /// `from`, padding included (see [`Pieces`]); `None` if the step does not apply, or if
    /// it cannot keep a padded dimension exact: changing a dimension from `k` to `k'`
    /// shards (`k'` a multiple or divisor of `k`) moves whole blocks only when the larger
    /// blocks are the smaller ones side by side (`ceil(n/k_small) = k_big/k_small *
    /// ceil(n/k_big)`), or when one side is unsplit (the whole dimension is padded before
    /// it is cut, or trimmed after it is gathered). Every step of a layout that divides
    /// its dimensions is exact.
    pub fn pieces(&self, mesh: &Mesh, global: &TensorType, from: &Layout) -> Option<Pieces> {
        let to = self.apply(from)?;
        let input = from.local_type(mesh, global)?.shape;
        let output = to.local_type(mesh, global)?.shape;
        let mut pieces = Pieces {
            padded: input.clone(),
            raw: output.clone(),
            input,
            output,
        };
        let g = self.group_size(mesh);
        let shards = |l: &Layout, d: usize| l.shards(mesh, d);
        // A dimension cut finer (k -> k * g): pad the input first when it is whole.
        let cut = |p: &mut Pieces, d: usize| -> Option<()> {
            let (k, k2) = (shards(from, d), shards(&to, d));
            match blocks(global.shape[d], k, k2)? {
                Blocks::Nest => {}
                Blocks::Edge => p.padded[d] = p.output[d] * g,
            }
            Some(())
        };
        // A dimension gathered (k -> k / g): trim the output when it becomes whole.
        let glue = |p: &mut Pieces, d: usize| -> Option<()> {
            let (k, k2) = (shards(from, d), shards(&to, d));
            match blocks(global.shape[d], k2, k)? {
                Blocks::Nest => {}
                Blocks::Edge => p.raw[d] = p.input[d] * g,
            }
            Some(())
        };
        match self {
            Step::AllReduce { .. } | Step::Permute { .. } => {}
            Step::ReduceScatter { dim, .. } | Step::Slice { dim, .. } => cut(&mut pieces, *dim)?,
            Step::AllGather { dim, .. } => glue(&mut pieces, *dim)?,
            Step::AllToAll {
                src_dim, dst_dim, ..
            } => {
                cut(&mut pieces, *dst_dim)?;
                glue(&mut pieces, *src_dim)?;
            }
        }
        Some(pieces)
    }

    /// Bytes each device sends for this step, with ring algorithms over a group of `g`
    /// devices: all-reduce `2(g-1)/g * S`, all-gather `(g-1)/g * S_out`, reduce-scatter
    /// `(g-1)/g * S_in`, all-to-all `(g-1)/g * S`, where `S` is the local piece in bytes
    /// the collective itself reads or writes (padding included: what actually moves);
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
        // The collective's input: the local piece, padded where a whole dimension is cut.
        let s_in = match self.pieces(mesh, global, from) {
            Some(p) => TensorType::new(global.dtype, p.padded).size_bytes(),
            None => from
                .local_type(mesh, global)
                .map(|t| t.size_bytes())
                .unwrap_or(0),
        } as u64;
        let g = g as u64;
        match self {
            Step::AllReduce { .. } => 2 * (g - 1) * s_in / g,
            Step::ReduceScatter { .. } | Step::AllToAll { .. } => (g - 1) * s_in / g,
            Step::AllGather { .. } => (g - 1) * s_in,
            Step::Permute { .. } => s_in,
            Step::Slice { .. } => 0,
        }
    }
}

/// The local shapes one step goes through on every device: its `input` piece, `padded`
/// up where a whole dimension is about to be cut (`stablehlo.pad` at the high end), the
/// collective's `raw` result, and its `output` piece, `raw` trimmed where a dimension was
/// gathered whole (`stablehlo.slice`, dropping the padding). Without padding, `padded` is
/// `input` and `raw` is `output`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pieces {
    /// The piece before the step.
    pub input: Vec<usize>,
    /// The piece padded before cutting.
    pub padded: Vec<usize>,
    /// The collective's result.
    pub raw: Vec<usize>,
    /// The piece after the step.
    pub output: Vec<usize>,
}

/// How the blocks of a dimension of `n` elements in `k_small` shards relate to its blocks
/// in `k_big` shards (`k_big` a multiple of `k_small`).
enum Blocks {
    /// Each large block is `k_big / k_small` small blocks side by side.
    Nest,
    /// The dimension is whole on the small side (`k_small == 1`) and padded on the other:
    /// the whole is padded to `k_big` blocks before cutting, or trimmed after gathering.
    Edge,
}

fn blocks(n: usize, k_small: usize, k_big: usize) -> Option<Blocks> {
    if k_small == 0 || !k_big.is_multiple_of(k_small) {
        return None;
    }
    if n.div_ceil(k_small) == (k_big / k_small) * n.div_ceil(k_big) {
        Some(Blocks::Nest)
    } else if k_small == 1 {
        Some(Blocks::Edge)
    } else {
        None
    }
}

/// A sequence of steps from one layout to another.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Plan {
    /// The steps, in order.
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

/// Ways to turn `from` into `to` for a value of type `global`, as [`plan`] gives them,
/// keeping only plans whose every step is exact on padded dimensions ([`Step::pieces`]).
/// When that drops a plan, the way through whole dimensions is added: reduce what is
/// partial, gather every dimension whose axes change whole (trimming its padding), then
/// cut it anew (padding it first). For layouts that divide `global`, this is [`plan`].
pub fn plan_for(from: &Layout, to: &Layout, mesh: &Mesh, global: &TensorType) -> Vec<Plan> {
    let plans = plan(from, to);
    if from.divides(mesh, global) && to.divides(mesh, global) {
        return plans;
    }
    let exact = |p: &Plan| -> bool {
        let mut cur = from.clone();
        for s in &p.steps {
            if s.pieces(mesh, global, &cur).is_none() {
                return false;
            }
            match s.apply(&cur) {
                Some(next) => cur = next,
                None => return false,
            }
        }
        cur == *to
    };
    let total = plans.len();
    let mut kept: Vec<Plan> = plans.into_iter().filter(|p| exact(p)).collect();
    if kept.len() < total
        && let Some(p) = through_whole(from, to)
        && exact(&p)
        && !kept.contains(&p)
    {
        kept.push(p);
    }
    kept
}

/// The plan that reshards every changed dimension through its whole: all-reduce what is
/// partial, all-gather each changed dimension completely, then slice it to the target.
fn through_whole(from: &Layout, to: &Layout) -> Option<Plan> {
    if from.rank() != to.rank()
        || (to.is_partial() && (to.unreduced != from.unreduced || to.combiner != from.combiner))
    {
        return None;
    }
    let mut steps = Vec::new();
    let mut cur = from.clone();
    let mut push = |s: Step, cur: &mut Layout| -> Option<()> {
        *cur = s.apply(cur)?;
        steps.push(s);
        Some(())
    };
    if cur.is_partial() && !to.is_partial() {
        let s = Step::AllReduce {
            axes: cur.unreduced.clone(),
            combiner: cur.combiner,
        };
        push(s, &mut cur)?;
    }
    let changed: Vec<usize> = (0..to.rank())
        .filter(|&d| from.dims[d] != to.dims[d])
        .collect();
    for &d in &changed {
        if !cur.dims[d].is_empty() {
            let axes = cur.dims[d].clone();
            push(Step::AllGather { dim: d, axes }, &mut cur)?;
        }
    }
    for &d in &changed {
        if !to.dims[d].is_empty() {
            let axes = to.dims[d].clone();
            push(Step::Slice { dim: d, axes }, &mut cur)?;
        }
    }
    (cur == *to).then_some(Plan { steps })
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
    fn padded_dimensions_move_whole_blocks_or_go_through_the_whole() {
        let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        let ty = |n: usize| TensorType::new(shardc_ir::DType::F32, [n, 4]);
        let firsts = |from: &Layout, to: &Layout, n: usize| -> Vec<String> {
            plan_for(from, to, &mesh, &ty(n))
                .iter()
                .map(|p| p.to_string())
                .collect()
        };
        // Even: the planner's plans, unchanged.
        let (dm, d) = (
            l(&[&["data", "model"], &[]], &[]),
            l(&[&["data"], &[]], &[]),
        );
        assert_eq!(
            firsts(&dm, &d, 16),
            plan(&dm, &d)
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
        );
        // 10 rows in 8 blocks of 2 -> 2 blocks of 5: the blocks do not nest (4 rows
        // gathered per data index, 5 wanted), so the rows are gathered whole and cut anew.
        assert_eq!(
            firsts(&dm, &d, 10),
            ["all_gather(dim 0, {\"data\", \"model\"}); slice(dim 0, {\"data\"})"]
        );
        // 7 rows: 8 blocks of 1 -> 2 blocks of 4 nest: the planner's gather stays.
        assert_eq!(firsts(&dm, &d, 7)[0], "all_gather(dim 0, {\"model\"})");
        // Gathering 10 rows whole from 4 blocks of 3: the 12 gathered rows lose 2.
        let m = l(&[&["model"], &[]], &[]);
        let r = l(&[&[], &[]], &[]);
        let gather = &plan_for(&m, &r, &mesh, &ty(10))[0].steps[0];
        let p = gather.pieces(&mesh, &ty(10), &m).unwrap();
        assert_eq!(
            (p.input, p.raw, p.output),
            (vec![3, 4], vec![12, 4], vec![10, 4])
        );
        // Cutting 10 whole rows in 4: padded to 12 first. The bytes count what moves.
        let rs = Step::ReduceScatter {
            dim: 0,
            axes: vec![AxisRef::new("model")],
            combiner: CombinerKey::Sum,
        };
        let partial = l(&[&[], &[]], &["model"]);
        let p = rs.pieces(&mesh, &ty(10), &partial).unwrap();
        assert_eq!((p.padded, p.output), (vec![12, 4], vec![3, 4]));
        assert_eq!(
            rs.bytes_per_device(&mesh, &ty(10), &partial),
            3 * 48 * 4 / 4
        );
        // 8 blocks -> 4 over a minor axis where 9 rows do not nest: no exact step.
        let split = Step::Slice {
            dim: 0,
            axes: vec![AxisRef::new("model")],
        };
        assert!(split.pieces(&mesh, &ty(9), &d).is_none());
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
