//! Partition specs: the per-dimension mesh axes a user writes, JAX-style.
//!
//! ```
//! use shardc::{P, PartitionSpec};
//! let spec: PartitionSpec = P!["data", None];
//! assert_eq!(spec.to_string(), "P['data', None]");
//! let both = P![("data", "model"), None];
//! assert_eq!(both.to_string(), "P[('data', 'model'), None]");
//! let open = P!["data", ?];
//! assert_eq!(open.to_string(), "P['data', ?]");
//! ```

use shardc_ir::{AxisRef, DimSharding, Sharding};
use std::fmt;

/// How one dimension is split: over these axes (major to minor), or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimSpec {
    /// Split over the listed axes (an empty list is `None`: replicated and closed).
    Axes(Vec<String>),
    /// Left to propagation (`?`, JAX's `P.UNCONSTRAINED`).
    Unconstrained,
}

impl DimSpec {
    /// A dimension split over these mesh axes, major first.
    pub fn axes(names: &[&str]) -> DimSpec {
        DimSpec::Axes(names.iter().map(|s| s.to_string()).collect())
    }

    /// A dimension not split.
    pub fn replicated() -> DimSpec {
        DimSpec::Axes(Vec::new())
    }
}

/// A JAX `PartitionSpec`: one entry per leading tensor dimension; dimensions past its end
/// are replicated. Write it with [`P!`](crate::P).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PartitionSpec(pub Vec<DimSpec>);

impl PartitionSpec {
    /// A spec from one entry per dimension.
    pub fn new(dims: Vec<DimSpec>) -> PartitionSpec {
        PartitionSpec(dims)
    }

    /// The Shardy sharding of a tensor of `rank` dimensions on mesh `mesh_name`, or a message
    /// saying why the spec does not fit the rank.
    pub fn to_sharding(&self, mesh_name: &str, rank: usize) -> Result<Sharding, String> {
        if self.0.len() > rank {
            let hint = if rank == 0 {
                "; for scalars the PartitionSpec should be P![]"
            } else {
                ""
            };
            return Err(format!(
                "{self} has {} entries, which is only valid for values of rank at least {}, but was applied to a value of rank {rank}{hint}",
                self.0.len(),
                self.0.len()
            ));
        }
        let mut dims: Vec<DimSharding> = self
            .0
            .iter()
            .map(|d| match d {
                DimSpec::Axes(a) => DimSharding {
                    axes: a.iter().map(|n| AxisRef::new(n)).collect(),
                    open: false,
                    priority: None,
                },
                DimSpec::Unconstrained => DimSharding::open(),
            })
            .collect();
        dims.resize(rank, DimSharding::closed());
        Ok(Sharding::new(mesh_name, dims))
    }
}

impl fmt::Display for PartitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("P[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match d {
                DimSpec::Unconstrained => f.write_str("?")?,
                DimSpec::Axes(a) if a.is_empty() => f.write_str("None")?,
                DimSpec::Axes(a) if a.len() == 1 => write!(f, "'{}'", a[0])?,
                DimSpec::Axes(a) => {
                    let names: Vec<String> = a.iter().map(|n| format!("'{n}'")).collect();
                    write!(f, "({})", names.join(", "))?
                }
            }
        }
        f.write_str("]")
    }
}

/// Builds a [`PartitionSpec`]: `P!["data", None]`, `P![("data", "model"), None]`, `P![None, ?]`
/// (`?` leaves the dimension to propagation), `P![]` (replicated).
#[macro_export]
macro_rules! P {
    (@dim None) => { $crate::DimSpec::replicated() };
    (@dim ?) => { $crate::DimSpec::Unconstrained };
    (@dim ($($a:expr),+ $(,)?)) => { $crate::DimSpec::axes(&[$($a),+]) };
    (@dim $a:expr) => { $crate::DimSpec::axes(&[$a]) };
    ($($d:tt),* $(,)?) => { $crate::PartitionSpec::new(vec![$($crate::P!(@dim $d)),*]) };
}
