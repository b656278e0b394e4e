//! Physical layouts of values, and their projection through op sharding rules.
//!
//! A [`Layout`] is what one copy of a value looks like across the mesh: the axes that
//! split each dimension (major to minor) and the axes over which it is still partial.
//! Propagation moves layouts through ops by *projecting* them onto the op's factors
//! ([`project`]): each dimension's axes are dealt to the dimension's factors, major
//! first. A [`FactorAxes`] (the axes of every factor) then gives every operand's and
//! result's layout ([`FactorAxes::layout_of`]).

use serde::Serialize;
use shardc_ir::rules::{Combiner, FactorId, OpRule, TensorRef};
use shardc_ir::{AxisRef, DimSharding, Mesh, Reduction, Sharding, TensorType, Uneven};
use std::fmt;

/// The layout of one copy of a value: per-dimension axes and partial (unreduced) axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Layout {
    /// Per dimension, the axes splitting it, major first.
    pub dims: Vec<Vec<AxisRef>>,
    /// Axes over which devices hold summands (or partial maxima, ...) of the value.
    pub unreduced: Vec<AxisRef>,
    /// How the partial pieces combine; `Sum` when nothing is unreduced.
    pub combiner: CombinerKey,
}

/// [`Combiner`] with an order, so layouts can be sorted and hashed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CombinerKey {
    /// A sum.
    Sum,
    /// A maximum.
    Max,
    /// A minimum.
    Min,
    /// A product.
    Product,
    /// A logical and.
    And,
    /// A logical or.
    Or,
    /// A reducer body of its own.
    Body,
}

impl From<Combiner> for CombinerKey {
    fn from(c: Combiner) -> CombinerKey {
        match c {
            Combiner::Sum => CombinerKey::Sum,
            Combiner::Max => CombinerKey::Max,
            Combiner::Min => CombinerKey::Min,
            Combiner::Product => CombinerKey::Product,
            Combiner::And => CombinerKey::And,
            Combiner::Or => CombinerKey::Or,
            Combiner::Body => CombinerKey::Body,
        }
    }
}

impl CombinerKey {
    /// The combiner it stands for.
    pub fn combiner(self) -> Combiner {
        match self {
            CombinerKey::Sum => Combiner::Sum,
            CombinerKey::Max => Combiner::Max,
            CombinerKey::Min => Combiner::Min,
            CombinerKey::Product => Combiner::Product,
            CombinerKey::And => Combiner::And,
            CombinerKey::Or => Combiner::Or,
            CombinerKey::Body => Combiner::Body,
        }
    }
}

impl Layout {
    /// Replicated and complete.
    pub fn replicated(rank: usize) -> Layout {
        Layout {
            dims: vec![Vec::new(); rank],
            unreduced: Vec::new(),
            combiner: CombinerKey::Sum,
        }
    }

    /// The layout a sharding describes (open/closed and priorities are not part of a layout).
    pub fn of_sharding(s: &Sharding) -> Layout {
        let combiner = match s.reduction {
            Reduction::Sum => CombinerKey::Sum,
            Reduction::Max => CombinerKey::Max,
            Reduction::Min => CombinerKey::Min,
            Reduction::Product => CombinerKey::Product,
            Reduction::And => CombinerKey::And,
            Reduction::Or => CombinerKey::Or,
        };
        Layout {
            dims: s.dims.iter().map(|d| d.axes.clone()).collect(),
            unreduced: s.unreduced.clone(),
            combiner: if s.unreduced.is_empty() {
                CombinerKey::Sum
            } else {
                combiner
            },
        }
    }

    /// The closed sharding of this layout on `mesh_name`, if the sharding model can state it
    /// (partial values of a reducer body cannot be).
    pub fn to_sharding(&self, mesh_name: &str) -> Option<Sharding> {
        let reduction = match self.combiner {
            CombinerKey::Sum => Reduction::Sum,
            CombinerKey::Max => Reduction::Max,
            CombinerKey::Min => Reduction::Min,
            CombinerKey::Product => Reduction::Product,
            CombinerKey::And => Reduction::And,
            CombinerKey::Or => Reduction::Or,
            _ if self.unreduced.is_empty() => Reduction::Sum,
            _ => return None,
        };
        let mut s = Sharding::new(
            mesh_name,
            self.dims
                .iter()
                .map(|a| DimSharding {
                    axes: a.clone(),
                    open: false,
                    priority: None,
                })
                .collect(),
        );
        s.unreduced = self.unreduced.clone();
        s.reduction = reduction;
        Some(s)
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Whether devices hold partial values (unreduced over some axes).
    pub fn is_partial(&self) -> bool {
        !self.unreduced.is_empty()
    }

    /// Every axis the layout uses (splitting or unreduced).
    pub fn axes(&self) -> impl Iterator<Item = &AxisRef> {
        self.dims.iter().flatten().chain(&self.unreduced)
    }

    /// The number of shards of dimension `d`.
    pub fn shards(&self, mesh: &Mesh, d: usize) -> usize {
        self.dims[d]
            .iter()
            .map(|a| a.size(mesh).unwrap_or(1))
            .product()
    }

    /// The per-device type of a value of type `ty`: each dimension of `n` elements in `k`
    /// shards holds `ceil(n / k)` (padded where `k` does not divide `n`; [`divides`]
    /// says whether any is). `None` if the ranks differ.
    ///
    /// [`divides`]: Layout::divides
    pub fn local_type(&self, mesh: &Mesh, ty: &TensorType) -> Option<TensorType> {
        if self.rank() != ty.rank() {
            return None;
        }
        let shape: Vec<usize> = (0..ty.rank())
            .map(|d| ty.shape[d].div_ceil(self.shards(mesh, d)))
            .collect();
        Some(TensorType::new(ty.dtype, shape))
    }

    /// Whether every dimension of a value of type `ty` is a multiple of its shard count
    /// (and the ranks agree): the layout needs no padding.
    pub fn divides(&self, mesh: &Mesh, ty: &TensorType) -> bool {
        self.rank() == ty.rank() && (0..ty.rank()).all(|d| self.padding(mesh, ty, d) == 0)
    }

    /// How many padding elements dimension `d` of a value of type `ty` has in this layout:
    /// `k * ceil(n / k) - n` for `n` elements in `k` shards.
    pub fn padding(&self, mesh: &Mesh, ty: &TensorType, d: usize) -> usize {
        shardc_ir::sharding::padding(ty.shape[d], self.shards(mesh, d))
    }

    /// Whether the layout fits a value of type `ty` under the `uneven` policy: the ranks
    /// agree, and every dimension divides unless padding was asked for.
    pub fn fits(&self, mesh: &Mesh, ty: &TensorType, uneven: Uneven) -> bool {
        self.rank() == ty.rank() && (uneven.pads() || self.divides(mesh, ty))
    }

    /// The same layout with the partial part dropped.
    pub fn reduced(&self) -> Layout {
        Layout {
            dims: self.dims.clone(),
            unreduced: Vec::new(),
            combiner: CombinerKey::Sum,
        }
    }
}

fn axis_list(axes: &[AxisRef]) -> String {
    axes.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `[{"data"}, {}]`, then ` unreduced={"model"}` (with `:max` etc. for other combiners).
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{{{}}}", axis_list(d))?;
        }
        f.write_str("]")?;
        if self.is_partial() {
            write!(f, " unreduced={{{}}}", axis_list(&self.unreduced))?;
            if self.combiner != CombinerKey::Sum {
                write!(f, ":{}", self.combiner.combiner().name())?;
            }
        }
        Ok(())
    }
}

/// The mesh axes of every factor of one rule, major to minor; empty for an unsharded factor.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FactorAxes(pub Vec<Vec<AxisRef>>);

impl FactorAxes {
    /// No factor of `rule` split.
    pub fn empty(rule: &OpRule) -> FactorAxes {
        FactorAxes(vec![Vec::new(); rule.num_factors()])
    }

    /// The axes factor `f` is split over.
    pub fn of(&self, f: FactorId) -> &[AxisRef] {
        &self.0[f.index()]
    }

    /// Whether no factor is split.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Vec::is_empty)
    }

    fn axes(&self) -> impl Iterator<Item = &AxisRef> {
        self.0.iter().flatten()
    }

    /// The union of two assignments, if they agree: a factor sharded in both must have the
    /// same axes, and no axis may shard two factors.
    pub fn merge(&self, other: &FactorAxes) -> Option<FactorAxes> {
        let mut out = self.clone();
        for (i, axes) in other.0.iter().enumerate() {
            if axes.is_empty() {
                continue;
            }
            if out.0[i].is_empty() {
                if axes.iter().any(|a| self.axes().any(|b| b.overlaps(a))) {
                    return None;
                }
                out.0[i] = axes.clone();
            } else if out.0[i] != *axes {
                return None;
            }
        }
        Some(out)
    }

    /// Whether the op can run on every device's pieces under this assignment: nothing on
    /// need-replication or permutation factors, each factor's axes divide its size (and a
    /// rotation factor's shift, by whole blocks), and the sharded reduction factors share
    /// one combiner.
    pub fn is_local(&self, rule: &OpRule, mesh: &Mesh) -> bool {
        let mut combiner = None;
        for f in rule.factor_ids() {
            let axes = self.of(f);
            if axes.is_empty() {
                continue;
            }
            let kind = rule.kind(f);
            let shards: usize = axes.iter().map(|a| a.size(mesh).unwrap_or(0)).product();
            if !kind.splits_into(rule.size(f), shards) {
                return false;
            }
            if let Some(c) = kind.combiner() {
                if combiner.is_some_and(|x| x != c) {
                    return false;
                }
                combiner = Some(c);
            }
        }
        true
    }

    /// The layout of one operand or result under this assignment. A result is partial
    /// over the axes of the sharded reduction factors.
    pub fn layout_of(&self, rule: &OpRule, t: TensorRef) -> Option<Layout> {
        let mapping = rule.tensor(t)?;
        let dims = mapping
            .iter()
            .map(|factors| {
                factors
                    .iter()
                    .flat_map(|&f| self.of(f).iter().cloned())
                    .collect()
            })
            .collect();
        let mut unreduced = Vec::new();
        let mut combiner = CombinerKey::Sum;
        if let TensorRef::Result(_) = t {
            for f in rule.factor_ids() {
                if let Some(c) = rule.kind(f).combiner()
                    && !self.of(f).is_empty()
                {
                    unreduced.extend(self.of(f).iter().cloned());
                    combiner = c.into();
                }
            }
        }
        Some(Layout {
            dims,
            unreduced,
            combiner,
        })
    }
}

/// Deals the axes of a tensor's layout to the factors of its dimensions, major first: an
/// axis goes to the current factor if its size divides what is left of the factor, and
/// the next factor is taken once the current one is used up. `None` if some axis does not
/// fit, or the layout is partial on an operand (partial operands move through ops only by
/// the linearity rewrites). A partial result's axes go to its op's reduction factors.
pub fn project(rule: &OpRule, t: TensorRef, layout: &Layout, mesh: &Mesh) -> Option<FactorAxes> {
    project_with(rule, t, layout, mesh, Uneven::Refuse)
}

/// [`project`], under an `uneven` policy: with [`Uneven::Pad`], a dimension whose axes do
/// not fit its factors evenly still projects when it has one factor larger than 1 (the
/// factor takes all its axes and is padded, as the dimension is). A compound dimension
/// (several factors larger than 1) never splits unevenly: its padding would not be the
/// padding of its factors.
pub fn project_with(
    rule: &OpRule,
    t: TensorRef,
    layout: &Layout,
    mesh: &Mesh,
    uneven: Uneven,
) -> Option<FactorAxes> {
    let mapping = rule.tensor(t)?;
    if mapping.len() != layout.rank() {
        return None;
    }
    let mut out = FactorAxes::empty(rule);
    for (factors, axes) in mapping.iter().zip(&layout.dims) {
        match deal(rule, factors, axes, mesh) {
            Some(dealt) => {
                for (f, a) in dealt {
                    out.0[f.index()].push(a);
                }
            }
            None if uneven.pads() => {
                let f = sole_factor(rule, factors)?;
                for a in axes {
                    a.size(mesh)?;
                    out.0[f.index()].push(a.clone());
                }
            }
            None => return None,
        }
    }
    if layout.is_partial() {
        let TensorRef::Result(_) = t else { return None };
        // One sharded reduction factor takes every unreduced axis (the common case: a dot
        // with one contracting factor); with several, the first whose size they divide.
        // (Never unevenly: the even assignment a partial value comes from may have split
        // its axes over several factors; its operands' layouts give a padded one.)
        let n: usize = layout
            .unreduced
            .iter()
            .map(|a| a.size(mesh).unwrap_or(0))
            .product();
        let f = rule.factor_ids().find(|&f| {
            rule.kind(f)
                .combiner()
                .is_some_and(|c| CombinerKey::from(c) == layout.combiner)
                && n > 0
                && rule.size(f).is_multiple_of(n)
        })?;
        out.0[f.index()] = layout.unreduced.clone();
    }
    Some(out)
}

/// The axes of one dimension dealt evenly to its factors, major first; `None` if they do
/// not fit.
fn deal(
    rule: &OpRule,
    factors: &[FactorId],
    axes: &[AxisRef],
    mesh: &Mesh,
) -> Option<Vec<(FactorId, AxisRef)>> {
    let mut out = Vec::new();
    let mut k = 0;
    let mut left = factors.first().map(|&f| rule.size(f)).unwrap_or(1);
    for a in axes {
        let n = a.size(mesh)?;
        if n == 1 {
            // An axis of one device splits nothing: it stays with the current factor.
            let f = factors.get(k).or(factors.last())?;
            out.push((*f, a.clone()));
            continue;
        }
        while k < factors.len() && (left == 1 || !left.is_multiple_of(n)) {
            if left != 1 {
                return None;
            }
            k += 1;
            left = factors.get(k).map(|&f| rule.size(f)).unwrap_or(1);
        }
        let &f = factors.get(k)?;
        out.push((f, a.clone()));
        left /= n;
    }
    Some(out)
}

/// The one factor of a dimension that may be split unevenly: its only factor larger than
/// 1 (or its first, when all have size 1); `None` for a compound dimension.
pub fn sole_factor(rule: &OpRule, factors: &[FactorId]) -> Option<FactorId> {
    let mut big = factors.iter().copied().filter(|&f| rule.size(f) > 1);
    match (big.next(), big.next()) {
        (Some(f), None) => Some(f),
        (None, _) => factors.first().copied(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::rules::op_rule;
    use shardc_ir::{DType, DotDims, FunctionBuilder, OpKind};

    fn mesh() -> Mesh {
        Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap()
    }

    fn layout(dims: &[&[&str]], unreduced: &[&str]) -> Layout {
        Layout {
            dims: dims
                .iter()
                .map(|d| d.iter().map(|a| AxisRef::new(a)).collect())
                .collect(),
            unreduced: unreduced.iter().map(|a| AxisRef::new(a)).collect(),
            combiner: CombinerKey::Sum,
        }
    }

    fn matmul_rule() -> OpRule {
        let t = |s: &[usize]| TensorType::new(DType::F32, s);
        let mut b = FunctionBuilder::new("f", &[t(&[8, 32]), t(&[32, 16])]);
        let dims = DotDims {
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
            ..DotDims::default()
        };
        let y = b
            .push1(OpKind::DotGeneral(dims), &[b.arg(0), b.arg(1)])
            .unwrap();
        let f = b.finish(&[y]);
        op_rule(&f, &f.ops[0]).unwrap()
    }

    #[test]
    fn matmul_layouts_project_and_merge() {
        let (r, m) = (matmul_rule(), mesh());
        // ([i, k], [k, j])->([i, j]): x rows on data, w cols on model.
        let x = project(
            &r,
            TensorRef::Operand(0),
            &layout(&[&["data"], &[]], &[]),
            &m,
        )
        .unwrap();
        let w = project(
            &r,
            TensorRef::Operand(1),
            &layout(&[&[], &["model"]], &[]),
            &m,
        )
        .unwrap();
        let both = x.merge(&w).unwrap();
        assert!(both.is_local(&r, &m));
        assert_eq!(
            both.layout_of(&r, TensorRef::Result(0)).unwrap(),
            layout(&[&["data"], &["model"]], &[])
        );
        // Contracting dim sharded: the result is partial.
        let k = project(
            &r,
            TensorRef::Operand(1),
            &layout(&[&["model"], &[]], &[]),
            &m,
        )
        .unwrap();
        let y = x
            .merge(&k)
            .unwrap()
            .layout_of(&r, TensorRef::Result(0))
            .unwrap();
        assert_eq!(y, layout(&[&["data"], &[]], &["model"]));
        assert_eq!(y.to_string(), "[{\"data\"}, {}] unreduced={\"model\"}");
        // And backwards: a partial result gives the reduction factor back.
        let back = project(&r, TensorRef::Result(0), &y, &m).unwrap();
        assert_eq!(back, x.merge(&k).unwrap());
        // The same axis on two factors does not merge.
        let x2 = project(
            &r,
            TensorRef::Operand(0),
            &layout(&[&["model"], &[]], &[]),
            &m,
        )
        .unwrap();
        assert!(x2.merge(&w).is_none());
    }

    #[test]
    fn compound_dims_take_axes_major_first() {
        // reshape 8 -> 2x4: ([ij])->([i, j]) {i=2, j=4}.
        let t = |s: &[usize]| TensorType::new(DType::F32, s);
        let mut b = FunctionBuilder::new("f", &[t(&[8])]);
        let y = b
            .push1_typed(OpKind::Reshape, &[b.arg(0)], t(&[2, 4]))
            .unwrap();
        let f = b.finish(&[y]);
        let r = op_rule(&f, &f.ops[0]).unwrap();
        let m = mesh();
        // 8 split over (data, model): data takes i (2), model takes j (4).
        let p = project(
            &r,
            TensorRef::Operand(0),
            &layout(&[&["data", "model"]], &[]),
            &m,
        )
        .unwrap();
        assert_eq!(
            p.layout_of(&r, TensorRef::Result(0)).unwrap(),
            layout(&[&["data"], &["model"]], &[])
        );
        // 8 split over model (4) alone does not divide i (2): no projection.
        assert!(project(&r, TensorRef::Operand(0), &layout(&[&["model"]], &[]), &m).is_none());
    }

    #[test]
    fn local_types_round_up_where_they_pad() {
        let m = mesh();
        let ty = TensorType::new(DType::F32, [8, 6]);
        let even = layout(&[&["data"], &[]], &[]);
        assert_eq!(even.local_type(&m, &ty).unwrap().shape, vec![4, 6]);
        assert!(even.divides(&m, &ty));
        // 6 over model (4): blocks of 2, the last one all padding.
        let uneven = layout(&[&[], &["model"]], &[]);
        assert_eq!(uneven.local_type(&m, &ty).unwrap().shape, vec![8, 2]);
        assert!(!uneven.divides(&m, &ty));
        assert_eq!(uneven.padding(&m, &ty, 1), 2);
        assert!(!uneven.fits(&m, &ty, Uneven::Refuse));
        assert!(uneven.fits(&m, &ty, Uneven::Pad));
        assert!(
            even.local_type(&m, &TensorType::new(DType::F32, [8]))
                .is_none()
        );
    }

    #[test]
    fn uneven_dimensions_project_only_when_padding_is_asked_for() {
        let (r, m) = (matmul_rule(), mesh());
        // w is 32x16; its columns (16) over (data, model) divide; a layout of x (8x32)
        // with its rows over model (4 shards of 8 rows: 8 = 2 * 4) divides too. Build a
        // matmul with 10 rows instead to split them unevenly.
        let t = |s: &[usize]| TensorType::new(DType::F32, s);
        let mut b = FunctionBuilder::new("f", &[t(&[10, 32]), t(&[32, 16])]);
        let dims = DotDims {
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
            ..DotDims::default()
        };
        let y = b
            .push1(OpKind::DotGeneral(dims), &[b.arg(0), b.arg(1)])
            .unwrap();
        let f = b.finish(&[y]);
        let r10 = op_rule(&f, &f.ops[0]).unwrap();
        let rows = layout(&[&["model"], &[]], &[]);
        assert!(project(&r10, TensorRef::Operand(0), &rows, &m).is_none());
        let p = project_with(&r10, TensorRef::Operand(0), &rows, &m, Uneven::Pad).unwrap();
        assert_eq!(
            p.layout_of(&r10, TensorRef::Result(0)).unwrap(),
            layout(&[&["model"], &[]], &[])
        );
        // Even layouts project the same either way.
        let x = layout(&[&["data"], &[]], &[]);
        assert_eq!(
            project(&r, TensorRef::Operand(0), &x, &m),
            project_with(&r, TensorRef::Operand(0), &x, &m, Uneven::Pad)
        );
    }
}
