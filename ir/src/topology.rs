//! The machines a mesh runs on: nodes of devices, and the two classes of link between
//! devices (inside a node, across nodes). The cost model charges a collective by the
//! links its ring crosses, and chooses between a flat ring and a hierarchical all-reduce
//! by [`Topology::all_reduce`]; the cpu backend can emulate a topology on one host, the
//! links across nodes slowed to their stated bandwidth (`docs/topology.md`).
//!
//! Device `d` is on node `d / devices_per_node` (device ids as replica groups name them).
//!
//! ```
//! use shardc_ir::topology::{Algorithm, LinkClass, Topology};
//! // 2 nodes of 4 devices: 8 GB/s inside a node, 1 GB/s across.
//! let t = Topology::new(2, 4, LinkClass::new(8e9, 5e-6), LinkClass::new(1e9, 20e-6)).unwrap();
//! let all: Vec<usize> = (0..8).collect();
//! let choice = t.all_reduce(&all, 32 << 20);
//! assert_eq!(choice.algorithm, Algorithm::Hierarchical { devices_per_node: 4 });
//! assert!(choice.ring_s > 3.0 * choice.hierarchical_s.unwrap());
//! // A group inside one node has no hierarchy to use.
//! assert_eq!(t.all_reduce(&[0, 1, 2, 3], 1 << 20).algorithm, Algorithm::Ring);
//! ```

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One class of link: its bandwidth (bytes per second, each direction) and latency
/// (seconds per message).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkClass {
    /// Bytes per second, each direction.
    pub bandwidth: f64,
    /// Seconds per message.
    pub latency: f64,
}

impl LinkClass {
    /// A link of `bandwidth` bytes/s and `latency` seconds.
    pub fn new(bandwidth: f64, latency: f64) -> LinkClass {
        LinkClass { bandwidth, latency }
    }

    /// Seconds to move one message of `bytes`.
    pub fn time(&self, bytes: f64) -> f64 {
        self.latency + bytes / self.bandwidth
    }
}

/// Nodes of devices and the links inside and across them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// The nodes.
    pub nodes: usize,
    /// Devices on each node (device `d` on node `d / devices_per_node`).
    pub devices_per_node: usize,
    /// Between two devices of one node.
    pub intra: LinkClass,
    /// Between devices of different nodes.
    pub inter: LinkClass,
}

/// How an all-reduce moves its data.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algorithm {
    /// One ring over the whole group, in group order (`2(n-1)` steps of `S/n`).
    Ring,
    /// Reduce-scatter inside each node, all-reduce across nodes among the devices that
    /// hold the same chunk, all-gather inside each node (NCCL's and Horovod's hierarchical
    /// all-reduce): the links across nodes carry `S/k` per device instead of `S` for `k`
    /// devices per node.
    Hierarchical {
        /// Nodes are the groups of this many consecutive device ids.
        devices_per_node: usize,
    },
}

impl Algorithm {
    /// The value of the [`ROUTE`] attribute that asks for it (`"hierarchical:4"`), none
    /// for the ring (the default).
    pub fn attribute(&self) -> Option<String> {
        match self {
            Algorithm::Ring => None,
            Algorithm::Hierarchical { devices_per_node } => {
                Some(format!("hierarchical:{devices_per_node}"))
            }
        }
    }

    /// Reads a [`ROUTE`] attribute's (unquoted) value.
    pub fn parse(value: &str) -> Result<Algorithm, String> {
        let bad = || {
            format!(
                "`{value}` is not a collective route: write `ring` or `hierarchical:K` (K devices per node, K >= 1)"
            )
        };
        match value.split_once(':') {
            None if value == "ring" => Ok(Algorithm::Ring),
            Some(("hierarchical", k)) => match k.trim().parse::<usize>() {
                Ok(k) if k >= 1 => Ok(Algorithm::Hierarchical {
                    devices_per_node: k,
                }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

/// The op attribute of an all-reduce, reduce-scatter or all-gather saying how it runs
/// ([`Algorithm::attribute`]): `shardc.route = "hierarchical:4"`. Without it, a ring.
pub const ROUTE: &str = "shardc.route";

/// A group split by node: the members of each node, in group order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    /// `nodes[a][j]`: the `j`-th member (in group order) on the `a`-th node of the group.
    pub nodes: Vec<Vec<usize>>,
}

impl Hierarchy {
    /// Splits `group` into nodes of `devices_per_node` consecutive ids; `None` unless
    /// the group has at least two nodes with the same number (at least two) of members
    /// on each, so that a hierarchical algorithm differs from a ring and every chunk has
    /// a holder on every node.
    pub fn of(group: &[usize], devices_per_node: usize) -> Option<Hierarchy> {
        if devices_per_node == 0 {
            return None;
        }
        let mut nodes: Vec<(usize, Vec<usize>)> = Vec::new();
        for &d in group {
            let node = d / devices_per_node;
            match nodes.iter_mut().find(|(n, _)| *n == node) {
                Some((_, members)) => members.push(d),
                None => nodes.push((node, vec![d])),
            }
        }
        let k = nodes.first().map_or(0, |(_, m)| m.len());
        if nodes.len() < 2 || k < 2 || nodes.iter().any(|(_, m)| m.len() != k) {
            return None;
        }
        Some(Hierarchy {
            nodes: nodes.into_iter().map(|(_, m)| m).collect(),
        })
    }

    /// Nodes in the group.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Members per node.
    pub fn per_node(&self) -> usize {
        self.nodes.first().map_or(0, Vec::len)
    }

    /// Where `device` is: its node's index in the group and its index in that node.
    pub fn find(&self, device: usize) -> Option<(usize, usize)> {
        self.nodes
            .iter()
            .enumerate()
            .find_map(|(a, m)| m.iter().position(|&d| d == device).map(|j| (a, j)))
    }
}

/// What [`Topology::all_reduce`] (or [`Topology::reduce_scatter`], [`Topology::all_gather`])
/// predicts and picks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RouteChoice {
    /// The faster of the two.
    pub algorithm: Algorithm,
    /// Predicted seconds of the flat ring.
    pub ring_s: f64,
    /// Predicted seconds of the hierarchical algorithm, when the group has a hierarchy.
    pub hierarchical_s: Option<f64>,
}

impl Topology {
    /// `nodes` nodes of `devices_per_node` devices. Errors on a count of 0 or a link rate
    /// that is not a positive number (latencies may be 0).
    pub fn new(
        nodes: usize,
        devices_per_node: usize,
        intra: LinkClass,
        inter: LinkClass,
    ) -> Result<Topology, String> {
        let t = Topology {
            nodes,
            devices_per_node,
            intra,
            inter,
        };
        t.check()?;
        Ok(t)
    }

    fn check(&self) -> Result<(), String> {
        if self.nodes == 0 || self.devices_per_node == 0 {
            return Err(format!(
                "a topology of {} node(s) x {} device(s) per node has no devices; give at least one of each",
                self.nodes, self.devices_per_node
            ));
        }
        for (name, l) in [("intra", &self.intra), ("inter", &self.inter)] {
            if !(l.bandwidth.is_finite() && l.bandwidth > 0.0) {
                return Err(format!(
                    "the {name}-node link's bandwidth {} is not a positive number of bytes per second",
                    l.bandwidth
                ));
            }
            if !(l.latency.is_finite() && l.latency >= 0.0) {
                return Err(format!(
                    "the {name}-node link's latency {} is not a number of seconds >= 0",
                    l.latency
                ));
            }
        }
        Ok(())
    }

    /// Reads a topology from JSON (the fields of [`Topology`]), checked.
    pub fn from_json(text: &str) -> Result<Topology, String> {
        let t: Topology = serde_json::from_str(text).map_err(|e| {
            format!(
                "not a topology: {e}; write {{\"nodes\": 2, \"devices_per_node\": 4, \"intra\": {{\"bandwidth\": 8e9, \"latency\": 5e-6}}, \"inter\": {{\"bandwidth\": 1e9, \"latency\": 2e-5}}}}"
            )
        })?;
        t.check()?;
        Ok(t)
    }

    /// Reads a topology file ([`Topology::from_json`]).
    pub fn load(path: &Path) -> Result<Topology, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the topology {}: {e}", path.display()))?;
        Topology::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The devices it has.
    pub fn devices(&self) -> usize {
        self.nodes * self.devices_per_node
    }

    /// The node device `device` is on.
    pub fn node_of(&self, device: usize) -> usize {
        device / self.devices_per_node
    }

    /// The link between two devices.
    pub fn link(&self, a: usize, b: usize) -> &LinkClass {
        if self.node_of(a) == self.node_of(b) {
            &self.intra
        } else {
            &self.inter
        }
    }

    /// The slowest link of the ring through `group` in group order (the one every step of
    /// a ring waits for); the intra-node link for a group of one.
    pub fn ring_link(&self, group: &[usize]) -> &LinkClass {
        let n = group.len();
        let crosses = (0..n).any(|i| self.node_of(group[i]) != self.node_of(group[(i + 1) % n]));
        if crosses { &self.inter } else { &self.intra }
    }

    /// Predicted seconds of a ring all-reduce of `bytes` over `group`: `2(n-1)` steps,
    /// each moving `bytes/n` over every link of the ring at once.
    pub fn ring_all_reduce_s(&self, group: &[usize], bytes: u64) -> f64 {
        let n = group.len();
        if n < 2 {
            return 0.0;
        }
        2.0 * (n - 1) as f64 * self.ring_link(group).time(bytes as f64 / n as f64)
    }

    /// Predicted seconds of the hierarchical all-reduce of `bytes` over `group` (`k`
    /// members on each of `m` nodes): a ring reduce-scatter and all-gather inside the
    /// nodes (`2(k-1)` steps of `bytes/k` over intra-node links) around a ring all-reduce
    /// of one chunk across them (`2(m-1)` steps of `bytes/(k m)` over inter-node links).
    /// `None` when the group has no hierarchy ([`Hierarchy::of`]).
    pub fn hierarchical_all_reduce_s(&self, group: &[usize], bytes: u64) -> Option<f64> {
        let h = Hierarchy::of(group, self.devices_per_node)?;
        let (m, k) = (h.node_count() as f64, h.per_node() as f64);
        let b = bytes as f64;
        Some(
            2.0 * (k - 1.0) * self.intra.time(b / k)
                + 2.0 * (m - 1.0) * self.inter.time(b / (k * m)),
        )
    }

    /// Both algorithms' predicted times for an all-reduce of `bytes` over `group`, and
    /// the faster.
    pub fn all_reduce(&self, group: &[usize], bytes: u64) -> RouteChoice {
        let ring_s = self.ring_all_reduce_s(group, bytes);
        let hierarchical_s = self.hierarchical_all_reduce_s(group, bytes);
        self.faster(ring_s, hierarchical_s)
    }

    /// Both algorithms' predicted times for a reduce-scatter of an operand of `bytes` over
    /// `group` (each member ends with one of `n` blocks), and the faster. The ring: `n-1`
    /// steps of one block over its slowest link. The hierarchy (`k` members on each of
    /// `m` nodes): a reduce-scatter inside each node of bundles of `m` blocks (the blocks
    /// of the members holding the same place on every node; `k-1` steps of `m` blocks),
    /// then one across the nodes (`m-1` steps of one block).
    pub fn reduce_scatter(&self, group: &[usize], bytes: u64) -> RouteChoice {
        self.one_way(group, bytes)
    }

    /// Both algorithms' predicted times for an all-gather whose result has `bytes` (`n`
    /// pieces), and the faster: the reverse of [`Topology::reduce_scatter`] (across the
    /// nodes first, then bundles of `m` pieces inside them), the same steps.
    pub fn all_gather(&self, group: &[usize], bytes: u64) -> RouteChoice {
        self.one_way(group, bytes)
    }

    /// Reduce-scatter's and all-gather's times: `n-1` ring steps of `bytes/n`, or `k-1`
    /// intra-node steps of `m` blocks and `m-1` inter-node steps of one.
    fn one_way(&self, group: &[usize], bytes: u64) -> RouteChoice {
        let n = group.len();
        if n < 2 {
            return self.faster(0.0, None);
        }
        let block = bytes as f64 / n as f64;
        let ring_s = (n - 1) as f64 * self.ring_link(group).time(block);
        let hierarchical_s = Hierarchy::of(group, self.devices_per_node).map(|h| {
            let (m, k) = (h.node_count() as f64, h.per_node() as f64);
            (k - 1.0) * self.intra.time(m * block) + (m - 1.0) * self.inter.time(block)
        });
        self.faster(ring_s, hierarchical_s)
    }

    fn faster(&self, ring_s: f64, hierarchical_s: Option<f64>) -> RouteChoice {
        let algorithm = match hierarchical_s {
            Some(h) if h < ring_s => Algorithm::Hierarchical {
                devices_per_node: self.devices_per_node,
            },
            _ => Algorithm::Ring,
        };
        RouteChoice {
            algorithm,
            ring_s,
            hierarchical_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_four(slow: f64) -> Topology {
        Topology::new(
            2,
            4,
            LinkClass::new(8e9, 0.0),
            LinkClass::new(8e9 / slow, 0.0),
        )
        .unwrap()
    }

    #[test]
    fn groups_split_by_node_only_when_every_node_holds_as_many() {
        let h = Hierarchy::of(&[0, 1, 2, 3, 4, 5, 6, 7], 4).unwrap();
        assert_eq!(h.nodes, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(h.find(6), Some((1, 2)));
        // Group order is kept inside nodes and across them.
        let h = Hierarchy::of(&[5, 1, 4, 0], 4).unwrap();
        assert_eq!(h.nodes, vec![vec![5, 4], vec![1, 0]]);
        // One node, one member per node, or uneven nodes: no hierarchy.
        assert_eq!(Hierarchy::of(&[0, 1, 2, 3], 4), None);
        assert_eq!(Hierarchy::of(&[0, 4], 4), None);
        assert_eq!(Hierarchy::of(&[0, 1, 2, 4, 5], 4), None);
    }

    #[test]
    fn the_hierarchical_all_reduce_wins_by_the_share_of_traffic_it_keeps_inside_nodes() {
        // Inter-node links 8x slower, no latency: the ring moves 14 chunks of S/8 over the
        // slow link (1.75 S / slow); the hierarchy moves 1.5 S over fast links and
        // 0.25 S over slow ones: 3.5 S / fast, a quarter of the ring's 14 S / fast.
        let t = two_by_four(8.0);
        let all: Vec<usize> = (0..8).collect();
        let s = 32u64 << 20;
        let c = t.all_reduce(&all, s);
        let fast = 8e9;
        assert!((c.ring_s - 14.0 * s as f64 / fast).abs() < 1e-9);
        assert!((c.hierarchical_s.unwrap() - 3.5 * s as f64 / fast).abs() < 1e-9);
        assert_eq!(c.algorithm.attribute().as_deref(), Some("hierarchical:4"));
        // Equal links without latency: the ring's 14 steps of S/8 and the hierarchy's 6 of
        // S/4 and 2 of S/8 move as much; a tie keeps the ring.
        let even = two_by_four(1.0).all_reduce(&all, s);
        assert_eq!(even.algorithm, Algorithm::Ring);
    }

    #[test]
    fn reduce_scatter_and_all_gather_keep_all_but_one_block_per_member_inside_nodes() {
        // 8 blocks of S/8 on 2 nodes of 4, inter-node links 8x slower: the ring moves 7
        // blocks over the slow link (56 S/8 / fast); the hierarchy 3 bundles of 2 blocks
        // inside the node and 1 block across (6 + 8 = 14 S/8 / fast): 4x.
        let t = two_by_four(8.0);
        let all: Vec<usize> = (0..8).collect();
        let s = 8u64 << 20;
        let block = s as f64 / 8.0;
        for c in [t.reduce_scatter(&all, s), t.all_gather(&all, s)] {
            assert!((c.ring_s - 56.0 * block / 8e9).abs() < 1e-9, "{c:?}");
            assert!((c.hierarchical_s.unwrap() - 14.0 * block / 8e9).abs() < 1e-9);
            assert_eq!(
                c.algorithm,
                Algorithm::Hierarchical {
                    devices_per_node: 4
                }
            );
        }
        assert_eq!(t.all_gather(&[0, 1, 2, 3], s).algorithm, Algorithm::Ring);
    }

    #[test]
    fn routes_read_back_and_bad_ones_are_refused() {
        let a = Algorithm::Hierarchical {
            devices_per_node: 4,
        };
        assert_eq!(Algorithm::parse(&a.attribute().unwrap()).unwrap(), a);
        assert_eq!(Algorithm::parse("ring").unwrap(), Algorithm::Ring);
        for bad in ["tree", "hierarchical", "hierarchical:0", "hierarchical:x"] {
            let e = Algorithm::parse(bad).unwrap_err();
            assert!(e.contains("hierarchical:K"), "{e}");
        }
    }

    #[test]
    fn topologies_read_from_json_and_bad_ones_name_the_field() {
        let t = Topology::from_json(
            r#"{"nodes": 2, "devices_per_node": 4, "intra": {"bandwidth": 8e9, "latency": 5e-6}, "inter": {"bandwidth": 1e9, "latency": 2e-5}}"#,
        )
        .unwrap();
        assert_eq!(t.devices(), 8);
        assert_eq!(t.node_of(5), 1);
        assert_eq!(t.link(1, 2).bandwidth, 8e9);
        assert_eq!(t.link(3, 4).bandwidth, 1e9);
        let e = Topology::from_json(
            r#"{"nodes": 2, "devices_per_node": 4, "intra": {"bandwidth": 8e9, "latency": 5e-6}, "inter": {"bandwidth": 0, "latency": 2e-5}}"#,
        )
        .unwrap_err();
        assert!(e.contains("inter-node link's bandwidth"), "{e}");
        let e = Topology::from_json(r#"{"nodes": 2}"#).unwrap_err();
        assert!(
            e.contains("not a topology") && e.contains("devices_per_node"),
            "{e}"
        );
    }
}
