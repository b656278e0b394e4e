//! Device meshes: named axes with sizes, and the device ids laid out on them.

use crate::error::IrError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A device: which one it is (`0..N`), as a mesh's `device_ids` list it, a backend numbers
/// its threads, ranks and GPUs, and `stablehlo.partition_id` returns it. Distinct from
/// [`MeshPosition`], where on the mesh it sits: the two agree only on a mesh without
/// `device_ids`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DeviceId(pub usize);

/// A place on a mesh: the index of its coordinates in the row-major enumeration (the first
/// axis the major one). A sharding says what each position holds; [`Mesh::device_at`] says
/// which device is there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MeshPosition(pub usize);

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "device {}", self.0)
    }
}

impl fmt::Display for MeshPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mesh position {}", self.0)
    }
}

/// One named axis of a mesh: `"data"=2`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MeshAxis {
    /// Its name.
    pub name: String,
    /// Its devices.
    pub size: usize,
}

/// A logical device mesh, declared in a module as `sdy.mesh @mesh = <["data"=2, "model"=4]>`.
///
/// Devices are laid out row-major over the axes (the first axis is the major one) unless
/// `device_ids` gives an explicit order: position `p` of the row-major enumeration holds
/// device `device_ids[p]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Mesh {
    /// The symbol the module declares it under (`@mesh`).
    pub name: String,
    /// Its axes, major first.
    pub axes: Vec<MeshAxis>,
    /// An explicit device order; `None` means `0..num_devices()` row-major.
    pub device_ids: Option<Vec<usize>>,
}

impl Mesh {
    /// A mesh with row-major device ids. Errors on an empty or repeated axis name, or a size of 0.
    pub fn new(name: &str, axes: &[(&str, usize)]) -> Result<Mesh, IrError> {
        let mesh = Mesh {
            name: name.to_string(),
            axes: axes
                .iter()
                .map(|(n, s)| MeshAxis {
                    name: n.to_string(),
                    size: *s,
                })
                .collect(),
            device_ids: None,
        };
        mesh.validate()?;
        Ok(mesh)
    }

    /// The same mesh with an explicit device order.
    pub fn with_device_ids(mut self, ids: Vec<usize>) -> Result<Mesh, IrError> {
        self.device_ids = Some(ids);
        self.validate()?;
        Ok(self)
    }

    /// Checks axis names, sizes and the device order.
    /// The most devices a mesh may have (2^24): far past today's largest machines (about
    /// 10^5 accelerators), small enough that per-device tables stay in memory.
    pub const MAX_DEVICES: usize = 1 << 24;

    /// Checks the axes (named, distinct, of size >= 1, at most [`Mesh::MAX_DEVICES`]
    /// devices) and the device ids (a permutation of `0..num_devices()`).
    pub fn validate(&self) -> Result<(), IrError> {
        let bad = |rule: String, fix: &str| IrError::InvalidMesh {
            mesh: self.name.clone(),
            rule,
            fix: fix.to_string(),
        };
        for (i, a) in self.axes.iter().enumerate() {
            if a.name.is_empty() {
                return Err(bad(
                    format!("axis {i} has an empty name"),
                    "give every axis a name",
                ));
            }
            if a.size == 0 {
                return Err(bad(
                    format!("axis \"{}\" has size 0", a.name),
                    "every axis needs at least one device",
                ));
            }
            if self.axes[..i].iter().any(|b| b.name == a.name) {
                return Err(bad(
                    format!("axis \"{}\" is declared twice", a.name),
                    "give each axis a distinct name",
                ));
            }
        }
        let devices = self
            .axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.size))
            .filter(|&n| n <= Mesh::MAX_DEVICES);
        if devices.is_none() {
            let sizes: Vec<String> = self
                .axes
                .iter()
                .map(|a| format!("{}={}", a.name, a.size))
                .collect();
            return Err(bad(
                format!(
                    "its axes ({}) hold more than {} devices, shardc's limit",
                    sizes.join(", "),
                    Mesh::MAX_DEVICES
                ),
                "use a mesh of at most 2^24 devices (the largest machines have about 10^5)",
            ));
        }
        if let Some(ids) = &self.device_ids {
            let n = self.num_devices();
            if ids.len() != n {
                return Err(bad(
                    format!(
                        "device_ids lists {} devices but the axes hold {n}",
                        ids.len()
                    ),
                    "list exactly one id per device",
                ));
            }
            let mut seen = vec![false; n];
            for &id in ids {
                if id >= n || std::mem::replace(&mut seen[id], true) {
                    return Err(bad(
                        format!(
                            "device_ids is not a permutation of 0..{n} (bad or repeated id {id})"
                        ),
                        "list each device id from 0 to N-1 exactly once",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The product of the axes' sizes.
    pub fn num_devices(&self) -> usize {
        self.axes.iter().map(|a| a.size).product()
    }

    /// The axis of that name.
    pub fn axis(&self, name: &str) -> Option<&MeshAxis> {
        self.axes.iter().find(|a| a.name == name)
    }

    /// The position of the axis of that name, major first.
    pub fn axis_index(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|a| a.name == name)
    }

    /// The size of the axis of that name.
    pub fn axis_size(&self, name: &str) -> Option<usize> {
        self.axis(name).map(|a| a.size)
    }

    /// The device at a position (`position` below [`num_devices`](Self::num_devices)).
    pub fn device_at(&self, position: MeshPosition) -> DeviceId {
        DeviceId(match &self.device_ids {
            Some(ids) => ids[position.0],
            None => position.0,
        })
    }

    /// Where a device sits (`None` for an id the mesh does not have).
    pub fn position_of(&self, device: DeviceId) -> Option<MeshPosition> {
        match &self.device_ids {
            Some(ids) => ids.iter().position(|&d| d == device.0).map(MeshPosition),
            None => (device.0 < self.num_devices()).then_some(MeshPosition(device.0)),
        }
    }

    /// Every position, in order.
    pub fn positions(&self) -> impl Iterator<Item = MeshPosition> + use<> {
        (0..self.num_devices()).map(MeshPosition)
    }

    /// The device at each position, in position order.
    pub fn devices(&self) -> Vec<DeviceId> {
        self.positions().map(|p| self.device_at(p)).collect()
    }

    /// Mesh coordinates (one per axis) of a position.
    pub fn coords(&self, position: MeshPosition) -> Vec<usize> {
        let mut rest = position.0;
        let mut coords = vec![0; self.axes.len()];
        for (i, a) in self.axes.iter().enumerate().rev() {
            coords[i] = rest % a.size;
            rest /= a.size;
        }
        coords
    }

    /// The position of mesh coordinates.
    pub fn position(&self, coords: &[usize]) -> MeshPosition {
        MeshPosition(
            coords
                .iter()
                .zip(&self.axes)
                .fold(0, |acc, (c, a)| acc * a.size + c),
        )
    }

    /// The coordinate of the device at `coords` along an axis or sub-axis (`None` for an
    /// axis the mesh does not have). Sub-axis `(p)s` of an axis of size `n` is the digit of
    /// size `s` below a major part of size `p`.
    pub fn axis_coord(&self, coords: &[usize], axis: &crate::AxisRef) -> Option<usize> {
        let i = self.axis_index(&axis.name)?;
        let c = *coords.get(i)?;
        Some(match axis.sub {
            Some(s) => (c / (self.axes[i].size / (s.pre_size * s.size))) % s.size,
            None => c,
        })
    }

    /// A device's index within a list of axes (major to minor), and the product of their
    /// sizes: the block a dimension split over `axes` gives the device, out of how many.
    pub fn group_index(&self, coords: &[usize], axes: &[crate::AxisRef]) -> Option<(usize, usize)> {
        let mut index = 0;
        let mut size = 1;
        for a in axes {
            let n = a.size(self)?;
            index = index * n + self.axis_coord(coords, a)?;
            size *= n;
        }
        Some((index, size))
    }

    /// The replica groups of a collective over `axes`: devices that differ only in their
    /// coordinates along `axes` form a group, ordered by [`group_index`](Self::group_index);
    /// groups are ordered by their first device's position. Entries are device ids.
    pub fn replica_groups(&self, axes: &[crate::AxisRef]) -> Option<crate::ReplicaGroups> {
        // (group key, [(index in group, device id)])
        type Group = (Vec<usize>, Vec<(usize, usize)>);
        let mut groups: Vec<Group> = Vec::new();
        // Where each key's group is in `groups` (first seen first, as device order has it).
        let mut at: std::collections::HashMap<Vec<usize>, usize> = std::collections::HashMap::new();
        for p in self.positions() {
            let coords = self.coords(p);
            let (index, _) = self.group_index(&coords, axes)?;
            // The group key: the coordinates with the grouped digits removed.
            let mut key = coords.clone();
            for a in axes {
                let i = self.axis_index(&a.name)?;
                let digit = self.axis_coord(&coords, a)?;
                let stride = match a.sub {
                    Some(s) => self.axes[i].size / (s.pre_size * s.size),
                    None => 1,
                };
                key[i] -= digit * stride;
            }
            match at.get(&key) {
                Some(&g) => groups[g].1.push((index, self.device_at(p).0)),
                None => {
                    at.insert(key.clone(), groups.len());
                    groups.push((key, vec![(index, self.device_at(p).0)]));
                }
            }
        }
        Some(crate::ReplicaGroups(
            groups
                .into_iter()
                .map(|(_, mut m)| {
                    m.sort_unstable();
                    m.into_iter().map(|(_, d)| d).collect()
                })
                .collect(),
        ))
    }

    /// A conventional name made of the axes, e.g. `mesh_data2_model4`.
    pub fn shape_name(&self) -> String {
        let mut s = String::from("mesh");
        for a in &self.axes {
            s.push_str(&format!("_{}{}", a.name, a.size));
        }
        s
    }
}

/// Prints the mesh attribute body: `<["data"=2, "model"=4]>` (with `, device_ids=[...]` if set).
impl fmt::Display for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<[")?;
        for (i, a) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "\"{}\"={}", a.name, a.size)?;
        }
        f.write_str("]")?;
        if let Some(ids) = &self.device_ids {
            f.write_str(", device_ids=[")?;
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{id}")?;
            }
            f.write_str("]")?;
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coords_round_trip() {
        let m = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        assert_eq!(m.num_devices(), 8);
        assert_eq!(m.coords(MeshPosition(6)), vec![1, 2]);
        assert_eq!(m.position(&[1, 2]), MeshPosition(6));
        assert_eq!(m.to_string(), r#"<["data"=2, "model"=4]>"#);
        assert_eq!(m.shape_name(), "mesh_data2_model4");
    }

    #[test]
    fn huge_meshes_are_refused_and_large_ones_are_grouped_quickly() {
        let msg = Mesh::new("mesh", &[("x", 1 << 16), ("y", 1 << 16)])
            .expect_err("2^32 devices are refused")
            .to_string();
        assert!(msg.contains("shardc's limit"), "{msg}");
        // 65,536 x 4: one pass over the devices (this took 36 s with a linear search).
        let m = Mesh::new("mesh", &[("data", 1 << 16), ("model", 4)]).unwrap();
        let g = m.replica_groups(&[crate::AxisRef::new("data")]).unwrap().0;
        assert_eq!(g.len(), 4);
        assert_eq!(g[1][..3], [1, 5, 9]);
        assert_eq!(g[3].len(), 1 << 16);
    }

    #[test]
    fn replica_groups_follow_axes() {
        let m = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        let groups = |axes: &[&str]| {
            let axes: Vec<crate::AxisRef> = axes.iter().map(|a| crate::AxisRef::new(a)).collect();
            m.replica_groups(&axes).unwrap().0
        };
        assert_eq!(groups(&["model"]), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(
            groups(&["data"]),
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        assert_eq!(
            groups(&["data", "model"]),
            vec![vec![0, 1, 2, 3, 4, 5, 6, 7]]
        );
        assert_eq!(
            groups(&["model", "data"]),
            vec![vec![0, 4, 1, 5, 2, 6, 3, 7]]
        );
        // Sub-axes of an axis of 8: the major part of 2 groups devices 4 apart.
        let m8 = Mesh::new("m", &[("x", 8)]).unwrap();
        let hi = crate::AxisRef {
            name: "x".into(),
            sub: Some(crate::SubAxis {
                pre_size: 1,
                size: 2,
            }),
        };
        assert_eq!(
            m8.replica_groups(&[hi]).unwrap().0,
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        // Explicit device order: groups list device ids.
        let m = Mesh::new("m", &[("a", 2)])
            .unwrap()
            .with_device_ids(vec![1, 0])
            .unwrap();
        assert_eq!(
            m.replica_groups(&[crate::AxisRef::new("a")]).unwrap().0,
            vec![vec![1, 0]]
        );
    }

    #[test]
    fn rejects_bad_meshes() {
        assert!(Mesh::new("m", &[("a", 2), ("a", 2)]).is_err());
        assert!(Mesh::new("m", &[("a", 0)]).is_err());
        let m = Mesh::new("m", &[("a", 2)]).unwrap();
        assert!(m.clone().with_device_ids(vec![1, 1]).is_err());
        let swapped = m.clone().with_device_ids(vec![1, 0]).unwrap();
        assert_eq!(swapped.device_at(MeshPosition(0)), DeviceId(1));
        assert_eq!(swapped.position_of(DeviceId(0)), Some(MeshPosition(1)));
        assert_eq!(swapped.position_of(DeviceId(2)), None);
        assert_eq!(m.position_of(DeviceId(1)), Some(MeshPosition(1)));
        assert_eq!(swapped.devices(), [DeviceId(1), DeviceId(0)]);
    }
}
