//! Rotating blocks: what a sharded *rotation factor* (`docs/rules.md`; `shardc.rotate`, the
//! shift between pipeline stages) costs and emits.
//!
//! A rotation factor of size `n` moves element `i` to `(i + shift) mod n`. Split over mesh
//! axes `A` into `k` blocks of `b = n / k` with `b` dividing `shift` (propagation keeps
//! nothing else: `FactorKind::splits_into`), every block moves whole: the block of the
//! device at index `j` along `A` becomes the block of the device at `(j + shift / b) mod
//! k`, and within a block nothing moves. So the op runs on every device's pieces (where it
//! is the identity along the factor) and one `stablehlo.collective_permute` per result
//! moves the pieces along `A`, each device sending its whole piece: the bytes a device
//! sends are its piece's.
//!
//! Propagation and partitioning read this from the rule alone, never from the op kind:
//! extraction charges the permute to the `Local` node ([`time`]), partitioning emits it
//! after the local op ([`pairs`]), `explain` lists it with the collectives.

use crate::sharding::cost::CostModel;
use crate::sharding::layout::{Layout, project_with};
use crate::sharding::reshard::CollectiveKind;
use shardc_ir::rules::{FactorId, OpRule, TensorRef};
use shardc_ir::{AxisRef, Mesh, TensorType, Uneven};

/// One sharded rotation factor of an op run on local pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRotation {
    /// The rotation factor.
    pub factor: FactorId,
    /// The axes the factor is split over, major first.
    pub axes: Vec<AxisRef>,
    /// How many devices the factor is split over.
    pub blocks: usize,
    /// How many blocks each moves: `shift / block size`, in `1..blocks` (0 moves nothing
    /// and is left out).
    pub by: usize,
}

/// The rotation factors of result `k` that its layout splits, with the blocks they move by.
/// Empty for ops without rotation factors (every op but `shardc.rotate`).
pub fn of_result(
    rule: &OpRule,
    k: usize,
    layout: &Layout,
    mesh: &Mesh,
    uneven: Uneven,
) -> Vec<BlockRotation> {
    let t = TensorRef::Result(k);
    let rotations: Vec<FactorId> = rule
        .factor_ids()
        .filter(|&f| rule.kind(f).is_rotation() && rule.use_in(f, t).is_some())
        .collect();
    if rotations.is_empty() {
        return Vec::new();
    }
    let Some(fa) = project_with(rule, t, layout, mesh, uneven) else {
        return Vec::new();
    };
    rotations
        .into_iter()
        .filter_map(|f| {
            let axes = fa.of(f).to_vec();
            let blocks: usize = axes.iter().map(|a| a.size(mesh).unwrap_or(1)).product();
            let shift = rule.kind(f).shift()?;
            let size = rule.size(f);
            if blocks <= 1 || !size.is_multiple_of(blocks) {
                return None;
            }
            let by = (shift / (size / blocks)) % blocks;
            (by != 0).then_some(BlockRotation {
                factor: f,
                axes,
                blocks,
                by,
            })
        })
        .collect()
}

/// The `(source, target)` device pairs of a rotation: within each group of devices that
/// differ only along the rotation's axes, the device at index `j` sends to the one at `(j +
/// by) mod blocks`. `None` if an axis is not on the mesh.
pub fn pairs(mesh: &Mesh, r: &BlockRotation) -> Option<Vec<(usize, usize)>> {
    let groups = mesh.replica_groups(&r.axes)?;
    let mut pairs = Vec::new();
    for g in &groups.0 {
        let n = g.len();
        for (j, &src) in g.iter().enumerate() {
            pairs.push((src, g[(j + r.by) % n]));
        }
    }
    Some(pairs)
}

/// The bytes each device sends to rotate its piece of `local`: the whole piece.
pub fn bytes(local: &TensorType) -> u64 {
    local.size_bytes() as u64
}

/// Seconds the permutes of these rotations take on a piece of `local`: a latency plus the
/// piece over the slowest link among the rotation's axes, each.
pub fn time(cost: &CostModel, rotations: &[BlockRotation], local: &TensorType) -> f64 {
    rotations
        .iter()
        .map(|r| {
            let bw = r
                .axes
                .iter()
                .map(|a| cost.bandwidth(&a.name))
                .fold(f64::INFINITY, f64::min);
            // One message each way: a permute's latency.
            cost.latency_of_kind(CollectiveKind::CollectivePermute, 2) + bytes(local) as f64 / bw
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::rules::op_rule;
    use shardc_ir::{DType, FunctionBuilder, OpKind};

    fn rule(shift: i64) -> OpRule {
        let t = TensorType::new(DType::F32, [8, 4]);
        let mut b = FunctionBuilder::new("f", &[t]);
        let x = b.arg(0);
        let r = b
            .push1(
                OpKind::Rotate {
                    dimension: 0,
                    shift,
                },
                &[x],
            )
            .unwrap();
        let f = b.finish(&[r]);
        op_rule(&f, &f.ops[0]).unwrap()
    }

    #[test]
    fn whole_blocks_rotate_between_neighbours() {
        let mesh = Mesh::new("m", &[("data", 2), ("pipe", 4)]).unwrap();
        let layout = Layout {
            dims: vec![vec![AxisRef::new("pipe")], vec![]],
            ..Layout::replicated(2)
        };
        // 8 rows over 4 devices: blocks of 2; a shift of 2 is one block.
        let rs = of_result(&rule(2), 0, &layout, &mesh, Uneven::Refuse);
        assert_eq!(rs.len(), 1);
        assert_eq!((rs[0].blocks, rs[0].by), (4, 1));
        assert_eq!(
            pairs(&mesh, &rs[0]).unwrap(),
            vec![
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 4)
            ]
        );
        // -2 is a rotation by 6: three blocks forward, one back.
        let rs = of_result(&rule(-2), 0, &layout, &mesh, Uneven::Refuse);
        assert_eq!(rs[0].by, 3);
        // Unsplit: nothing moves between devices.
        assert!(of_result(&rule(2), 0, &Layout::replicated(2), &mesh, Uneven::Refuse).is_empty());
    }
}
