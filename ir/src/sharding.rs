//! Shardings, in Shardy's model (openxla/shardy `docs/sharding_representation.md`).
//!
//! A sharding names a mesh and, for each tensor dimension, an ordered list of mesh axes,
//! major to minor. A dimension is *closed* (propagation must not shard it further) or
//! *open* (`?`). Axes listed in `replicated` may never shard the value; axes in
//! `unreduced` mean the value is a partial result that still owes a reduction over them.
//! Priorities (`p0` is the strongest) order user annotations during propagation.
//!
//! Text: `<@mesh, [{"data"}, {"model", ?}p1], replicated={"pipe"}, unreduced={"x"}>`.

use crate::dtype::TensorType;
use crate::mesh::Mesh;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A mesh axis, or a sub-axis of one: `"x"` or `"x":(2)4` (the sub-axis of size 4 whose
/// major part has size 2, as Shardy writes it).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AxisRef {
    /// The mesh axis.
    pub name: String,
    /// The part of it, when a sub-axis.
    pub sub: Option<SubAxis>,
}

/// The part of an axis of `size` devices that follows a major part of `pre_size` devices.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SubAxis {
    /// The devices of the major part before it.
    pub pre_size: usize,
    /// Its devices.
    pub size: usize,
}

impl AxisRef {
    /// The whole axis `name`.
    pub fn new(name: &str) -> AxisRef {
        AxisRef {
            name: name.to_string(),
            sub: None,
        }
    }

    /// Whether two references share devices' coordinates: the same axis, unless both are
    /// disjoint sub-axes of it (`"x":(1)2` and `"x":(2)4` are disjoint).
    pub fn overlaps(&self, other: &AxisRef) -> bool {
        if self.name != other.name {
            return false;
        }
        match (self.sub, other.sub) {
            (Some(a), Some(b)) => {
                a.pre_size < b.pre_size * b.size && b.pre_size < a.pre_size * a.size
            }
            _ => true,
        }
    }

    /// The number of devices this axis (or sub-axis) spans, or `None` if the mesh has no such axis.
    pub fn size(&self, mesh: &Mesh) -> Option<usize> {
        match self.sub {
            Some(s) => mesh.axis(&self.name).map(|_| s.size),
            None => mesh.axis_size(&self.name),
        }
    }
}

impl fmt::Display for AxisRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.name)?;
        if let Some(s) = self.sub {
            write!(f, ":({}){}", s.pre_size, s.size)?;
        }
        Ok(())
    }
}

/// The sharding of one tensor dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct DimSharding {
    /// Axes that split this dimension, major to minor.
    pub axes: Vec<AxisRef>,
    /// `true` if propagation may shard this dimension further (`{?}`, `{"a", ?}`).
    pub open: bool,
    /// The user's priority for this dimension (`p0` strongest); `None` for the default.
    pub priority: Option<u32>,
}

impl DimSharding {
    /// A closed dimension split over the given axes.
    pub fn axes(names: &[&str]) -> DimSharding {
        DimSharding {
            axes: names.iter().map(|n| AxisRef::new(n)).collect(),
            open: false,
            priority: None,
        }
    }

    /// A closed, unsplit dimension: `{}`.
    pub fn closed() -> DimSharding {
        DimSharding::default()
    }

    /// An open, unsplit dimension: `{?}`.
    pub fn open() -> DimSharding {
        DimSharding {
            open: true,
            ..DimSharding::default()
        }
    }

    /// How many shards the dimension is cut into on this mesh (1 when unsplit).
    /// Unknown axes count as 1; the verifier reports them.
    pub fn num_shards(&self, mesh: &Mesh) -> usize {
        self.axes
            .iter()
            .map(|a| a.size(mesh).unwrap_or(1))
            .product()
    }
}

impl fmt::Display for DimSharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, a) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        if self.open {
            f.write_str(if self.axes.is_empty() { "?" } else { ", ?" })?;
        }
        f.write_str("}")?;
        if let Some(p) = self.priority {
            write!(f, "p{p}")?;
        }
        Ok(())
    }
}

/// What to do with a dimension whose axes do not divide its size (a vocabulary of 50257
/// over 8 devices).
///
/// shardc never pads silently: by default such a sharding is an error naming the value,
/// the dimension and the axes ([`IrError::NotDivisible`](crate::IrError::NotDivisible)).
/// With [`Uneven::Pad`] (asked for by `shardc compile --pad` or the compiler's
/// `Options::pad_uneven`), each of the `k` shards of a dimension of size `n` holds
/// `ceil(n / k)` elements, as GSPMD and JAX lay out uneven shardings: shard `i` holds the
/// global indices `[i * ceil(n/k), (i + 1) * ceil(n/k))`, and those `>= n` are padding.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Uneven {
    /// A dimension its axes do not divide is an error (the default).
    #[default]
    Refuse,
    /// A dimension its axes do not divide is padded to a multiple of its shard count.
    Pad,
}

impl Uneven {
    /// Whether padding was asked for.
    pub fn pads(self) -> bool {
        self == Uneven::Pad
    }
}

/// The padding of a dimension of `size` elements cut into `shards` blocks of
/// `ceil(size / shards)`: how many elements past `size` the blocks hold.
pub fn padding(size: usize, shards: usize) -> usize {
    let shards = shards.max(1);
    size.div_ceil(shards) * shards - size
}

/// How a partial (unreduced) value is to be combined across its unreduced axes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Reduction {
    /// Added.
    #[default]
    Sum,
    /// The largest kept.
    Max,
    /// The smallest kept.
    Min,
    /// Multiplied.
    Product,
    /// Logical and (of `i1` values; of nonzero-ness otherwise).
    And,
    /// Logical or.
    Or,
}

impl Reduction {
    /// Every reduction, in the order the text format lists them.
    pub const ALL: [Reduction; 6] = [
        Reduction::Sum,
        Reduction::Max,
        Reduction::Min,
        Reduction::Product,
        Reduction::And,
        Reduction::Or,
    ];

    /// Its name in the text format (`sum`, `max`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Max => "max",
            Reduction::Min => "min",
            Reduction::Product => "product",
            Reduction::And => "and",
            Reduction::Or => "or",
        }
    }

    /// The reduction of a text-format name.
    pub fn from_name(s: &str) -> Option<Reduction> {
        Reduction::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Whether combining a value with itself gives it back (max, min, and, or): then every
    /// device of an unreduced group may hold the whole value; a sum or a product needs one
    /// device to hold it and the others the identity.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, Reduction::Sum | Reduction::Product)
    }

    /// Combines two partial values (as `f64`; `and`/`or` on nonzero-ness, giving 0 or 1).
    pub fn combine(self, a: f64, b: f64) -> f64 {
        match self {
            Reduction::Sum => a + b,
            Reduction::Max => a.max(b),
            Reduction::Min => a.min(b),
            Reduction::Product => a * b,
            Reduction::And => f64::from(u8::from(a != 0.0 && b != 0.0)),
            Reduction::Or => f64::from(u8::from(a != 0.0 || b != 0.0)),
        }
    }
}

/// The sharding of one tensor over a named mesh.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Sharding {
    /// The mesh symbol, without `@`.
    pub mesh: String,
    /// One entry per tensor dimension.
    pub dims: Vec<DimSharding>,
    /// Axes that may never shard this value.
    pub replicated: Vec<AxisRef>,
    /// Axes over which the value is partial and still owes a reduction.
    pub unreduced: Vec<AxisRef>,
    /// The reduction `unreduced` owes (Shardy's unreduced is a sum; others are shardc's extension).
    pub reduction: Reduction,
}

impl Sharding {
    /// A sharding with the given per-dimension axes; every dimension closed.
    pub fn new(mesh: &str, dims: Vec<DimSharding>) -> Sharding {
        Sharding {
            mesh: mesh.to_string(),
            dims,
            replicated: Vec::new(),
            unreduced: Vec::new(),
            reduction: Reduction::Sum,
        }
    }

    /// From axis names per dimension: `Sharding::split("mesh", &[&["data"], &[]])`.
    pub fn split(mesh: &str, dims: &[&[&str]]) -> Sharding {
        Sharding::new(mesh, dims.iter().map(|d| DimSharding::axes(d)).collect())
    }

    /// The sharding over `axes` alone: other axes dropped from every dimension and from
    /// the unreduced axes. A partially manual `shard_map` body sees its operands so: split
    /// over its manual axes, whole over the others (which the body computes whole on each
    /// device).
    pub fn over_axes(&self, axes: &[String]) -> Sharding {
        let keep = |a: &&AxisRef| axes.contains(&a.name);
        Sharding {
            mesh: self.mesh.clone(),
            dims: self
                .dims
                .iter()
                .map(|d| DimSharding {
                    axes: d.axes.iter().filter(keep).cloned().collect(),
                    ..d.clone()
                })
                .collect(),
            replicated: self.replicated.iter().filter(keep).cloned().collect(),
            unreduced: self.unreduced.iter().filter(keep).cloned().collect(),
            reduction: self.reduction,
        }
    }

    /// Fully replicated with all dimensions closed.
    pub fn replicated(mesh: &str, rank: usize) -> Sharding {
        Sharding::new(mesh, vec![DimSharding::closed(); rank])
    }

    /// Its number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Every axis that splits some dimension, in dimension order.
    pub fn split_axes(&self) -> impl Iterator<Item = &AxisRef> {
        self.dims.iter().flat_map(|d| d.axes.iter())
    }

    /// Every axis this sharding mentions, with where: split, replicated, unreduced.
    pub fn mentioned_axes(&self) -> impl Iterator<Item = &AxisRef> {
        self.split_axes()
            .chain(self.replicated.iter())
            .chain(self.unreduced.iter())
    }

    /// `true` if no dimension is split and nothing is unreduced.
    pub fn is_fully_replicated(&self) -> bool {
        self.dims.iter().all(|d| d.axes.is_empty()) && self.unreduced.is_empty()
    }

    /// The per-device shape of a tensor of `global` shape. Dimensions that do not divide
    /// are rounded up (the verifier reports them unless padding was asked for).
    pub fn local_shape(&self, mesh: &Mesh, global: &[usize]) -> Vec<usize> {
        global
            .iter()
            .zip(&self.dims)
            .map(|(&g, d)| g.div_ceil(d.num_shards(mesh)))
            .collect()
    }

    /// JAX-reader form of a sharded type: `f32[8@data,4@model]`, `f32[16@(data,model),4]`.
    pub fn describe(&self, ty: &crate::TensorType) -> String {
        self.describe_padded(ty, |_| 0)
    }

    /// [`describe`](Self::describe), with the padding of each dimension its axes do not
    /// divide on `mesh`: `f32[10@model(pad 2)]` is a dimension of 10 in 4 blocks of 3.
    pub fn describe_on(&self, mesh: &Mesh, ty: &crate::TensorType) -> String {
        self.describe_padded(ty, |d| match self.dims.get(d) {
            Some(dim) => padding(ty.shape[d], dim.num_shards(mesh)),
            None => 0,
        })
    }

    fn describe_padded(&self, ty: &crate::TensorType, pad: impl Fn(usize) -> usize) -> String {
        let dims: Vec<String> = ty
            .shape
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let dim = match self.dims.get(i).map(|d| d.axes.as_slice()) {
                    None | Some([]) => n.to_string(),
                    Some([a]) => format!("{n}@{}", a.name),
                    Some(axes) => format!(
                        "{n}@({})",
                        axes.iter()
                            .map(|a| a.name.as_str())
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                };
                match pad(i) {
                    0 => dim,
                    p => format!("{dim}(pad {p})"),
                }
            })
            .collect();
        let mut s = format!("{}[{}]", ty.dtype, dims.join(","));
        if !self.unreduced.is_empty() {
            let names: Vec<&str> = self.unreduced.iter().map(|a| a.name.as_str()).collect();
            s.push_str(&format!(
                "{{{} over {}}}",
                self.reduction.name(),
                names.join(",")
            ));
        }
        s
    }
}

fn write_axis_set(f: &mut fmt::Formatter<'_>, key: &str, axes: &[AxisRef]) -> fmt::Result {
    write!(f, ", {key}={{")?;
    for (i, a) in axes.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    f.write_str("}")
}

/// Prints the Shardy attribute body: `<@mesh, [{"data"}, {}]>`.
impl Sharding {
    /// The type of one device's piece of a value of type `global` when only the axes in
    /// `axes` are counted (a manual computation's manual axes); `None` if an axis is not
    /// on `mesh` or does not divide its dimension.
    pub fn piece_type(
        &self,
        mesh: &Mesh,
        global: &TensorType,
        axes: &[String],
    ) -> Option<TensorType> {
        if self.dims.len() != global.rank() {
            return None;
        }
        let mut shape = global.shape.clone();
        for (d, dim) in self.dims.iter().enumerate() {
            let mut split = 1usize;
            for a in dim.axes.iter().filter(|a| axes.contains(&a.name)) {
                split = split.checked_mul(a.size(mesh)?)?;
            }
            if split == 0 || !shape[d].is_multiple_of(split) {
                return None;
            }
            shape[d] /= split;
        }
        Some(TensorType::new(global.dtype, shape))
    }
}

impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<@{}, [", self.mesh)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if !self.replicated.is_empty() {
            write_axis_set(f, "replicated", &self.replicated)?;
        }
        if !self.unreduced.is_empty() {
            write_axis_set(f, "unreduced", &self.unreduced)?;
            if self.reduction != Reduction::Sum {
                write!(f, ", reduction={}", self.reduction.name())?;
            }
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, TensorType};

    #[test]
    fn prints_shardy_syntax() {
        let mut s = Sharding::split("mesh", &[&["data"], &[]]);
        assert_eq!(s.to_string(), r#"<@mesh, [{"data"}, {}]>"#);
        s.dims[1] = DimSharding {
            axes: vec![AxisRef::new("model")],
            open: true,
            priority: Some(1),
        };
        s.replicated.push(AxisRef::new("pipe"));
        assert_eq!(
            s.to_string(),
            r#"<@mesh, [{"data"}, {"model", ?}p1], replicated={"pipe"}>"#
        );
        assert_eq!(DimSharding::open().to_string(), "{?}");
    }

    #[test]
    fn local_shape_and_description() {
        let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        let s = Sharding::split("mesh", &[&["data"], &["model"]]);
        assert_eq!(s.local_shape(&mesh, &[8, 16]), vec![4, 4]);
        let ty = TensorType::new(DType::F32, [8, 16]);
        assert_eq!(s.describe(&ty), "f32[8@data,16@model]");
        let s2 = Sharding::split("mesh", &[&["data", "model"], &[]]);
        assert_eq!(s2.local_shape(&mesh, &[8, 16]), vec![1, 16]);
        assert_eq!(s2.describe(&ty), "f32[8@(data,model),16]");
        // Uneven: 10 over model (4) is 4 blocks of 3, the last holding one element.
        let s3 = Sharding::split("mesh", &[&["model"], &[]]);
        let ty3 = TensorType::new(DType::F32, [10, 16]);
        assert_eq!(s3.local_shape(&mesh, &[10, 16]), vec![3, 16]);
        assert_eq!(s3.describe_on(&mesh, &ty3), "f32[10@model(pad 2),16]");
        assert_eq!(s3.describe_on(&mesh, &ty), "f32[8@model,16]");
        assert_eq!(padding(50257, 8), 7);
        assert_eq!(padding(5, 4), 3);
    }
}
