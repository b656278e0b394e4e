//! The cost model: seconds of communication, compute and (as a tie-breaker) memory per
//! device.
//!
//! Communication: each collective step moves [`Step::bytes_per_device`] bytes over the
//! slowest link among its axes, plus a fixed latency. Compute: an op's FLOPs on its local
//! pieces at the device's FLOP rate. Memory: the bytes of every piece a device holds,
//! weighted, so that of two plans with equal time the one holding less wins.

use crate::sharding::layout::Layout;
use crate::sharding::reshard::{CollectiveKind, Plan, Step};
use serde::{Deserialize, Serialize};
use shardc_ir::{Mesh, OpKind, TensorType, Topology, UnaryOp};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Machine parameters: what a device computes and moves per second. Axis bandwidths are
/// per mesh axis name (bytes per second); an axis not listed uses `default_bandwidth`.
///
/// A model describes one backend and device count. [`CostModel::default`] is the cpu
/// backend's built-in figures on the reference host (two cores); `shardc calibrate`
/// measures the host a program will run on and writes a [`CostModel`] as JSON
/// ([`CostModel::load`]); [`CostModel::gpu_cluster`] is the figures of a GPU cluster.
/// `explain` prints [`CostModel::source`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CostModel {
    /// The profile format; [`CostModel::VERSION`].
    pub version: u32,
    /// Where these figures come from: `built-in cpu (2 cores)`, `calibrated on ...`.
    pub source: String,
    /// Bytes per second over each mesh axis that has a figure of its own.
    pub axis_bandwidth: BTreeMap<String, f64>,
    /// Bytes per second over any other axis.
    pub default_bandwidth: f64,
    /// When the devices share a host's memory and run large collectives through it (the
    /// cpu backend's board, `shardc_runtime::backend::shared`) rather than as rings of
    /// messages: from what size up, and at what rate. `None`: every collective a ring at
    /// the bandwidths above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_memory: Option<SharedMemory>,
    /// Seconds per collective, whatever its size, when [`CostModel::group_latency`] has
    /// no figure.
    pub latency: f64,
    /// Seconds per collective by the size of its groups, as measured (`shardc calibrate`:
    /// one figure per size of the mesh's axes), by increasing size: between two sizes
    /// interpolated, beyond them the nearest. On a shared host a ring of 8 threads on 2
    /// cores waits three times as long as one of 2 or 4.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_latency: Vec<(usize, f64)>,
    /// Seconds per `collective_permute`, when measured apart (`shardc calibrate`): each
    /// device sends to one peer and waits on one, not on its whole group as the other
    /// collectives do (8 threads on 2 cores: ~60-90 µs a permute among matmuls where an
    /// all-reduce takes ~250 µs). `None`: as any collective over its groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permute_latency: Option<f64>,
    /// FLOP/s per device in contractions (`dot_general`) of the size `shardc calibrate`
    /// measures first (256x512x1024), and of every size when [`CostModel::dot_rates`]
    /// is empty.
    pub flops: f64,
    /// FLOP/s per device in contractions by their size, as measured: `(FLOPs of one
    /// dot, FLOP/s)` by increasing FLOPs. A dot's rate is interpolated between the two
    /// sizes around it in log FLOPs (the nearest outside them): small dots run far below
    /// the rate of large ones (fixed costs per kernel, less reuse in the tiles).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dot_rates: Vec<(f64, f64)>,
    /// FLOP/s per device in the contractions of a shape class other than
    /// [`DotClass::Square`], by their size as in [`CostModel::dot_rates`]: a batched
    /// product runs one small kernel per batch element, a skinny one reuses each loaded
    /// element less. A class without a table has the rates of [`CostModel::dot_rates`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dot_class_rates: BTreeMap<DotClass, Vec<(f64, f64)>>,
    /// FLOP/s per device in every other op that computes (elementwise, and reductions
    /// when [`CostModel::reduce_flops`] has no figure).
    pub vector_flops: f64,
    /// FLOP/s per device in reductions (`reduce`: one FLOP per operand element), as
    /// `shardc calibrate` measures a row sum. `None` in profiles written before it was
    /// measured: [`CostModel::vector_flops`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_flops: Option<f64>,
    /// Bytes per second a device writes in an op that only moves data into a buffer of
    /// its own ([`moved_bytes`]: a concatenation such as a gradient bucket's, a pad, a
    /// gather, a dynamic slice), as `shardc calibrate` measures a concatenation. `None`
    /// in profiles written before it was measured: such ops cost nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bandwidth: Option<f64>,
    /// Seconds every step pays whatever it computes: starting the devices' run and
    /// joining its end (on a shared host, measured at [`SharedHost::devices`] devices and
    /// growing with their number, [`CostModel::for_devices`]). 0 in profiles written
    /// before it was measured.
    #[serde(default)]
    pub step_overhead: f64,
    /// Seconds every iteration of a loop pays whatever it computes: the engine calling
    /// the condition's and the body's kernels (a scan step's slice, update and counter),
    /// per device as [`CostModel::step_overhead`] is. 0 in profiles written before it
    /// was measured.
    #[serde(default)]
    pub loop_iteration: f64,
    /// Seconds charged per byte a device holds (a tie-breaker towards smaller pieces).
    pub memory_weight: f64,
    /// When the devices are threads of one host that share its cores (the cpu backend),
    /// the host, and how many devices the figures above were measured with: a mesh of
    /// another size divides the same cores among its devices ([`CostModel::for_devices`]).
    /// Compute replicated over the devices is then charged as what it is, every device
    /// doing it on a share of the cores.
    pub shared_host: Option<SharedHost>,
    /// The nodes the devices are on and the links inside and across them, when known:
    /// a collective is then charged by the links its groups cross (device `d` of the
    /// mesh's device ids on node `d / devices_per_node`), an all-reduce by the faster of
    /// a ring and the hierarchical algorithm ([`Topology::all_reduce`]), and the
    /// partitioned program's all-reduces are routed so (`passes/route.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// Collectives through a host's shared memory ([`CostModel::shared_memory`]): each device
/// reads its peers' buffers in place instead of receiving them in messages, a round per
/// collective (two for an all-reduce), so that bytes move at a memory copy's rate, not a
/// ring's.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SharedMemory {
    /// The smallest result, in bytes, of a collective that goes through shared memory
    /// (`RunOptions::shared_memory_min_bytes`; smaller ones are rings).
    pub min_bytes: u64,
    /// Bytes per second of what the ring would send ([`Exchange::ring_bytes`]) when the
    /// collective goes through shared memory instead: the rate of the collectives that
    /// combine (all-reduce, reduce-scatter), and of every collective when
    /// [`SharedMemory::copy_bandwidth`] has no figure.
    ///
    /// [`Exchange::ring_bytes`]: shardc_runtime::backend::collective::Exchange::ring_bytes
    pub bandwidth: f64,
    /// The same rate for the collectives that only copy (all-gather, all-to-all): one
    /// round, each device reading its peers' operands with no arithmetic. Measured on the
    /// reference host (8 devices, 2 cores, 2026-12-07), an all-gather of a 4 MiB result
    /// moved its ring bytes 1.8-2.3x as fast as an all-reduce of 4 MiB, whose fold adds
    /// `n` operands and whose second round copies again. `None` in profiles written before
    /// it was measured: [`SharedMemory::bandwidth`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_bandwidth: Option<f64>,
}

impl SharedMemory {
    /// Bytes per second of a ring's bytes through shared memory, for a collective that
    /// combines (`reduces`) or only copies.
    pub fn rate(&self, reduces: bool) -> f64 {
        match (reduces, self.copy_bandwidth) {
            (false, Some(copy)) => copy,
            _ => self.bandwidth,
        }
    }
}

/// The cores the devices of a mesh share, and the device count a profile was measured at.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SharedHost {
    /// The host's cores.
    pub cores: usize,
    /// The devices the figures were measured with.
    pub devices: usize,
}

impl SharedHost {
    /// The share of one core each device gets when `devices` run at once (1 at most).
    fn share(&self, devices: usize) -> f64 {
        (self.cores as f64 / devices.max(1) as f64).min(1.0)
    }
}

/// The shape class of a contraction, whose FLOP rates `shardc calibrate` measures apart
/// ([`CostModel::dot_class_rates`]). With `m`, `n` and `k` the products of a local dot's
/// left free, right free and contracting dimensions:
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DotClass {
    /// Neither of the others: [`CostModel::dot_rates`].
    Square,
    /// No batch, and the smallest of `m`, `n` and `k` at most [`DotClass::SKINNY`] and
    /// at most a [`DotClass::SKINNY_RATIO`]th of the largest: a matrix-vector product,
    /// the projection of a few tokens (a decoding step's), an outer product. (With 32
    /// rows against a 512 x 2048 weight, the peer MLP's data-parallel dots ran at the
    /// square rates, 2026-12-07.)
    Skinny,
    /// Batch dimensions of more than one element: one product per batch element
    /// (attention's scores and values, per head).
    Batched,
}

impl DotClass {
    /// The largest smallest dimension of a skinny dot.
    pub const SKINNY: usize = 16;
    /// How much smaller than the largest of `m`, `n`, `k` the smallest is in a skinny dot.
    pub const SKINNY_RATIO: usize = 16;

    /// The class of a dot of `dims` on local operands `lhs` and `rhs`.
    pub fn of(dims: &shardc_ir::DotDims, lhs: &TensorType, rhs: &TensorType) -> DotClass {
        let size = |t: &TensorType, dims: &[usize]| -> usize {
            dims.iter()
                .map(|&d| t.shape.get(d).copied().unwrap_or(1))
                .product()
        };
        let free = |t: &TensorType, batch: &[usize], contracting: &[usize]| -> usize {
            (0..t.shape.len())
                .filter(|d| !batch.contains(d) && !contracting.contains(d))
                .map(|d| t.shape[d])
                .product()
        };
        if size(lhs, &dims.lhs_batch) > 1 {
            return DotClass::Batched;
        }
        let m = free(lhs, &dims.lhs_batch, &dims.lhs_contracting);
        let n = free(rhs, &dims.rhs_batch, &dims.rhs_contracting);
        let k = size(lhs, &dims.lhs_contracting);
        let (least, most) = (m.min(n).min(k), m.max(n).max(k));
        if least <= DotClass::SKINNY && least * DotClass::SKINNY_RATIO <= most {
            DotClass::Skinny
        } else {
            DotClass::Square
        }
    }
}

/// [`CostModel::loop_iteration`] of the cpu backend, per device: a scan step that slices
/// a row, computes on it and writes it back took 11.6-13.6 µs at 8 devices, 5.6 at 4
/// and 2.9 at 2 (`shardc calibrate --mesh data=N`, 2 cores, 2026-12-07).
const LOOP_ITERATION: f64 = 1.5e-6;

impl Default for CostModel {
    /// The cpu backend on the reference host ([`CostModel::cpu`] of two cores).
    fn default() -> CostModel {
        CostModel::cpu(2)
    }
}

/// Bytes a calibrated elementwise chain moves per FLOP: `multiply, add, maximum` over two
/// f32 operands into one result, 12 bytes for 3 FLOPs ([`CostModel::elementwise_bytes_per_s`]).
const ELEMENTWISE_CHAIN_BYTES_PER_FLOP: f64 = 4.0;

impl CostModel {
    /// The version of the JSON profile [`CostModel::to_json`] writes.
    pub const VERSION: u32 = 1;

    /// The cpu backend's built-in figures for a host of `cores` cores, per device when each
    /// has a core of its own, as `shardc calibrate` measured them on the reference machine
    /// (2-core AMD EPYC with AVX-512, native engine, kernels tiered up; 2026-12-04, meshes
    /// `data=2`, `data=2,model=4` and `data=8`, the 8-device figures times 4): contractions
    /// at 13 GFLOP/s for 16^3 dots (a kernel call's overhead: 2 x 16^3 FLOPs take 0.6 µs),
    /// 60 GFLOP/s for 32^3, 100 GFLOP/s for 64^3, up to 215 GFLOP/s from 256x512x512 on (the
    /// two smallest measured 2026-12-05 with the same command); skinny ones (8 rows) at
    /// 90-180 GFLOP/s up to 8x512x512 and falling to 70 GFLOP/s at 8x2048x2048 (each dot
    /// streams a weight larger than the caches), batched ones (8 products) at 42 GFLOP/s for
    /// 8 x 16^3 up to 205 GFLOP/s for 8 x 256^3 (both measured 2026-12-07); row sums at
    /// 3.1 GFLOP/s, fused
    /// elementwise chains at 4.5 GFLOP/s (memory-bound), links at 4.5 GB/s (rings and
    /// shared memory alike until measured apart: [`CostModel::shared_memory`]), and 110, 150
    /// and 320 µs per collective over groups of 2, 4 and 8 devices (measured between
    /// matmuls, as in a training step), 50 µs per `collective_permute` (a device waits on
    /// one peer: 49 µs among matmul layers and 55 µs in a loop, 8 devices, 2026-12-06,
    /// where an all-reduce took 241 µs). More devices than cores share them
    /// ([`CostModel::for_devices`]): at 8 devices on 2 cores, a quarter of each rate, as
    /// measured. With these, `shardc bench plans` predicts the peer programs' and the
    /// demo's steps within 5-30% (`docs/bench/plans-*.json`).
    pub fn cpu(cores: usize) -> CostModel {
        CostModel {
            version: CostModel::VERSION,
            source: format!("built-in cpu ({cores} cores)"),
            axis_bandwidth: BTreeMap::new(),
            default_bandwidth: 4.5e9,
            // Until measured apart on a quiet reference host: the figure above, which
            // `shardc calibrate` fitted to an all-reduce of 4 MiB, through shared memory.
            shared_memory: Some(SharedMemory {
                min_bytes: shardc_runtime::backend::shared::MIN_BYTES as u64,
                bandwidth: 4.5e9,
                copy_bandwidth: None,
            }),
            latency: 150e-6,
            group_latency: Vec::new(),
            permute_latency: Some(50e-6),
            flops: 215e9,
            dot_rates: vec![
                (8192.0, 13e9),
                (65536.0, 60e9),
                (524288.0, 100e9),
                (4194304.0, 140e9),
                (33554432.0, 200e9),
                (134217728.0, 215e9),
                (536870912.0, 215e9),
            ],
            // Measured 2026-12-07 as the table above (two runs, `shardc calibrate --mesh
            // data=8`, times 4).
            dot_class_rates: BTreeMap::from([
                (
                    DotClass::Skinny,
                    vec![
                        (262144.0, 90e9),
                        (1048576.0, 180e9),
                        (4194304.0, 125e9),
                        (16777216.0, 110e9),
                        (67108864.0, 70e9),
                    ],
                ),
                (
                    DotClass::Batched,
                    vec![
                        (65536.0, 42e9),
                        (524288.0, 95e9),
                        (4194304.0, 125e9),
                        (33554432.0, 145e9),
                        (268435456.0, 205e9),
                    ],
                ),
            ]),
            vector_flops: 4.5e9,
            reduce_flops: Some(3.1e9),
            memory_bandwidth: None,
            // A step of one elementwise op on 64 floats: 26 µs on one device, 100, 87 and
            // 195 µs on 2, 4 and 8 (2 cores, 2026-12-06): ~25 µs a device.
            step_overhead: 25e-6,
            loop_iteration: LOOP_ITERATION,
            memory_weight: 1e-15,
            shared_host: Some(SharedHost { cores, devices: 1 }),
            topology: None,
        }
    }

    /// The cpu backend on this host: its core count ([`CostModel::cpu`]).
    pub fn host() -> CostModel {
        CostModel::cpu(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// A GPU cluster's figures: 100 GB/s links, 5 µs latency, 100 TFLOP/s in
    /// contractions and 10 TFLOP/s elsewhere, each device its own chip.
    pub fn gpu_cluster() -> CostModel {
        CostModel {
            version: CostModel::VERSION,
            source: "built-in gpu cluster".into(),
            axis_bandwidth: BTreeMap::new(),
            default_bandwidth: 100e9,
            shared_memory: None,
            latency: 5e-6,
            group_latency: Vec::new(),
            permute_latency: None,
            flops: 100e12,
            dot_rates: Vec::new(),
            dot_class_rates: BTreeMap::new(),
            vector_flops: 10e12,
            reduce_flops: None,
            memory_bandwidth: None,
            step_overhead: 0.0,
            loop_iteration: 0.0,
            memory_weight: 1e-15,
            shared_host: None,
            topology: None,
        }
    }

    /// The figures for a mesh of `devices` devices: on a shared host, each device's share
    /// of the cores scales its compute rates and its links' bandwidth; latency stays (it
    /// depends on the size of a collective's groups, [`CostModel::group_latency`]).
    /// Measured on the reference machine (2 cores, `shardc calibrate` at 2 and 8 devices):
    /// contraction rates fell to 0.22-0.25x, elementwise to 0.19x, bandwidth to 0.25x;
    /// an all-reduce over 2 devices took ~100 µs among 2 devices and among 8. Otherwise
    /// as is.
    pub fn for_devices(&self, devices: usize) -> CostModel {
        let Some(host) = self.shared_host else {
            return self.clone();
        };
        let factor = host.share(devices) / host.share(host.devices);
        let mut m = self.clone();
        m.flops *= factor;
        m.dot_rates.iter_mut().for_each(|r| r.1 *= factor);
        m.dot_class_rates
            .values_mut()
            .flatten()
            .for_each(|r| r.1 *= factor);
        m.vector_flops *= factor;
        m.reduce_flops = m.reduce_flops.map(|r| r * factor);
        m.memory_bandwidth = m.memory_bandwidth.map(|b| b * factor);
        m.default_bandwidth *= factor;
        if let Some(sm) = &mut m.shared_memory {
            sm.bandwidth *= factor;
            sm.copy_bandwidth = sm.copy_bandwidth.map(|b| b * factor);
        }
        m.axis_bandwidth.values_mut().for_each(|b| *b *= factor);
        // Starting and joining the devices' threads: per device.
        m.step_overhead *= devices as f64 / host.devices.max(1) as f64;
        m.loop_iteration *= devices as f64 / host.devices.max(1) as f64;
        m.shared_host = Some(SharedHost { devices, ..host });
        m
    }

    /// Seconds of latency of a collective whose groups hold `devices` devices
    /// ([`CostModel::group_latency`], else [`CostModel::latency`]).
    pub fn latency_of(&self, devices: usize) -> f64 {
        interpolate(&self.group_latency, devices as f64, |n| n as f64).unwrap_or(self.latency)
    }

    /// Seconds of latency of a collective of `kind` over groups of `devices` devices: a
    /// permute's [`CostModel::permute_latency`] when measured, else
    /// [`CostModel::latency_of`].
    pub fn latency_of_kind(&self, kind: CollectiveKind, devices: usize) -> f64 {
        match (kind, self.permute_latency) {
            (CollectiveKind::CollectivePermute, Some(l)) => l,
            _ => self.latency_of(devices),
        }
    }

    /// Reads a profile `shardc calibrate` wrote.
    pub fn load(path: &Path) -> Result<CostModel, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the cost profile {}: {e}", path.display()))?;
        let m: CostModel = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not a cost profile: {e}; write one with `shardc calibrate --out {}`",
                path.display(),
                path.display()
            )
        })?;
        if m.version != CostModel::VERSION {
            return Err(format!(
                "the cost profile {} is version {}, this shardc reads version {}; measure again with `shardc calibrate --out {}`",
                path.display(),
                m.version,
                CostModel::VERSION,
                path.display()
            ));
        }
        let rates = [m.default_bandwidth, m.latency, m.flops, m.vector_flops];
        if ![m.step_overhead, m.loop_iteration]
            .iter()
            .all(|s| s.is_finite() && *s >= 0.0)
        {
            return Err(format!(
                "the cost profile {} has a step or loop iteration overhead that is not a number of seconds; measure again with `shardc calibrate`",
                path.display()
            ));
        }
        if rates
            .iter()
            .chain(m.axis_bandwidth.values())
            .chain(
                m.dot_rates
                    .iter()
                    .chain(m.dot_class_rates.values().flatten())
                    .flat_map(|(size, rate)| [size, rate]),
            )
            .chain(m.reduce_flops.iter())
            .chain(m.group_latency.iter().map(|(_, latency)| latency))
            .chain(m.permute_latency.iter())
            .chain(m.shared_memory.iter().map(|sm| &sm.bandwidth))
            .chain(
                m.shared_memory
                    .iter()
                    .filter_map(|sm| sm.copy_bandwidth.as_ref()),
            )
            .chain(m.memory_bandwidth.iter())
            .any(|r| !(r.is_finite() && *r > 0.0))
        {
            return Err(format!(
                "the cost profile {} has a rate that is not a positive number; measure again with `shardc calibrate`",
                path.display()
            ));
        }
        Ok(m)
    }

    /// The profile as JSON, as [`CostModel::load`] reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The model `SHARDC_COST_PROFILE` names, if set.
    pub fn from_env() -> Result<Option<CostModel>, String> {
        match std::env::var_os("SHARDC_COST_PROFILE") {
            Some(p) if !p.is_empty() => CostModel::load(Path::new(&p)).map(Some),
            _ => Ok(None),
        }
    }

    /// The model with a topology ([`CostModel::topology`]).
    pub fn with_topology(mut self, topology: Topology) -> CostModel {
        self.topology = Some(topology);
        self
    }

    /// Sets the bandwidth of one mesh axis.
    pub fn with_axis_bandwidth(mut self, axis: &str, bytes_per_second: f64) -> CostModel {
        self.axis_bandwidth
            .insert(axis.to_string(), bytes_per_second);
        self
    }

    /// Bytes per second over a mesh axis.
    pub fn bandwidth(&self, axis: &str) -> f64 {
        self.axis_bandwidth
            .get(axis)
            .copied()
            .unwrap_or(self.default_bandwidth)
    }

    /// Bytes per second of a collective whose result is `result_bytes` on each device when
    /// its ring would run at `ring`: through shared memory from its threshold up
    /// ([`CostModel::shared_memory`]), at the rate of a collective that combines
    /// (`reduces`: all-reduce, reduce-scatter) or only copies ([`SharedMemory::rate`]).
    pub fn collective_bandwidth(&self, ring: f64, result_bytes: u64, reduces: bool) -> f64 {
        match self.shared_memory {
            Some(sm) if result_bytes >= sm.min_bytes => sm.rate(reduces),
            _ => ring,
        }
    }

    /// Seconds one step takes: its latency and bytes over the slowest link of its axes,
    /// or through shared memory ([`CostModel::collective_bandwidth`]); with a topology,
    /// over the links its groups cross ([`CostModel::topology`]).
    pub fn step_time(&self, step: &Step, mesh: &Mesh, global: &TensorType, from: &Layout) -> f64 {
        let bytes = step.bytes_per_device(mesh, global, from);
        if step.axes().is_empty() || step.moves_nothing(mesh, from) {
            return 0.0;
        }
        let group: usize = step
            .axes()
            .iter()
            .map(|a| mesh.axis_size(&a.name).unwrap_or(1))
            .product();
        let latency = self.latency_of_kind(step.kind(), group);
        if let Some(t) = &self.topology
            && let Some(groups) = mesh.replica_groups(step.axes())
        {
            return latency + topology_time(t, step.kind(), &groups.0, bytes);
        }
        let ring = step
            .axes()
            .iter()
            .map(|a| self.bandwidth(&a.name))
            .fold(f64::INFINITY, f64::min);
        let result_bytes = step
            .apply(from)
            .and_then(|to| to.local_type(mesh, global))
            .map_or(0, |t| t.size_bytes() as u64);
        let reduces = matches!(
            step.kind(),
            CollectiveKind::AllReduce | CollectiveKind::ReduceScatter
        );
        latency + bytes as f64 / self.collective_bandwidth(ring, result_bytes, reduces)
    }

    /// Seconds a whole plan takes, and the bytes each device sends.
    pub fn plan_cost(
        &self,
        plan: &Plan,
        mesh: &Mesh,
        global: &TensorType,
        from: &Layout,
    ) -> (f64, u64) {
        let mut cur = from.clone();
        let (mut time, mut bytes) = (0.0, 0);
        for s in &plan.steps {
            time += self.step_time(s, mesh, global, &cur);
            bytes += s.bytes_per_device(mesh, global, &cur);
            match s.apply(&cur) {
                Some(next) => cur = next,
                None => return (f64::INFINITY, bytes),
            }
        }
        (time, bytes)
    }

    /// Seconds of compute of one op on local pieces of the given types.
    pub fn op_time(&self, kind: &OpKind, operands: &[TensorType], results: &[TensorType]) -> f64 {
        let flops = op_flops(kind, operands, results) as f64;
        let rate = match (kind, operands) {
            (OpKind::DotGeneral(d), [lhs, rhs, ..]) => {
                self.dot_rate(DotClass::of(d, lhs, rhs), flops)
            }
            (OpKind::Reduce { .. }, _) => self.reduce_flops.unwrap_or(self.vector_flops),
            _ => self.vector_flops,
        };
        let moved = self
            .memory_bandwidth
            .map_or(0.0, |b| moved_bytes(kind, results) as f64 / b);
        flops / rate + moved
    }

    /// FLOP/s of a contraction of `class` and `flops` FLOPs: its class's table
    /// ([`CostModel::dot_class_rates`]), else [`CostModel::dot_rates`], else
    /// [`CostModel::flops`].
    pub fn dot_rate(&self, class: DotClass, flops: f64) -> f64 {
        self.dot_class_rates
            .get(&class)
            .and_then(|t| interpolate(t, flops.ln(), f64::ln))
            .or_else(|| interpolate(&self.dot_rates, flops.ln(), f64::ln))
            .unwrap_or(self.flops)
    }

    /// Bytes per second a device moves through a fused elementwise pass (read and
    /// written together): [`CostModel::vector_flops`] is measured on such a pass, a chain
    /// of three FLOPs per element that reads two f32 operands and writes one result
    /// (`shardc calibrate`), 4 bytes per FLOP. A pass with few FLOPs per byte (an
    /// optimizer's update) costs its traffic at this rate.
    pub fn elementwise_bytes_per_s(&self) -> f64 {
        self.vector_flops * ELEMENTWISE_CHAIN_BYTES_PER_FLOP
    }

    /// The memory tie-breaker of holding a piece.
    pub fn memory(&self, local: &TensorType) -> f64 {
        local.size_bytes() as f64 * self.memory_weight
    }
}

/// The value at `x` of a table of `(key, value)` by increasing key: linear in
/// `coord(key)` between the two entries around `x`, the nearest entry's beyond them;
/// `None` for an empty table.
fn interpolate<K: Copy>(table: &[(K, f64)], x: f64, coord: impl Fn(K) -> f64) -> Option<f64> {
    let (first, last) = (table.first()?, table.last()?);
    if x <= coord(first.0) {
        return Some(first.1);
    }
    if x >= coord(last.0) {
        return Some(last.1);
    }
    let i = table.partition_point(|&(k, _)| coord(k) <= x);
    let ((k0, y0), (k1, y1)) = (table[i - 1], table[i]);
    let t = (x - coord(k0)) / (coord(k1) - coord(k0));
    Some(y0 + t * (y1 - y0))
}

/// Seconds a collective sending `bytes` per device takes over the links of `groups` (the
/// slowest group): an all-reduce (its buffer is `bytes n / 2(n-1)`), reduce-scatter or
/// all-gather (`bytes n / (n-1)`) by the faster of the ring and the hierarchy, anything
/// else over the slowest link of its ring.
fn topology_time(t: &Topology, kind: CollectiveKind, groups: &[Vec<usize>], bytes: u64) -> f64 {
    groups
        .iter()
        .map(|g| {
            let n = g.len() as u64;
            match kind {
                CollectiveKind::AllReduce if n > 1 => {
                    fastest(&t.all_reduce(g, bytes * n / (2 * (n - 1))))
                }
                CollectiveKind::ReduceScatter if n > 1 => {
                    fastest(&t.reduce_scatter(g, bytes * n / (n - 1)))
                }
                CollectiveKind::AllGather if n > 1 => {
                    fastest(&t.all_gather(g, bytes * n / (n - 1)))
                }
                _ => {
                    let link = t.ring_link(g);
                    link.latency * n.saturating_sub(1).max(1) as f64 + bytes as f64 / link.bandwidth
                }
            }
        })
        .fold(0.0, f64::max)
}

fn fastest(c: &shardc_ir::topology::RouteChoice) -> f64 {
    c.hierarchical_s.map_or(c.ring_s, |h| h.min(c.ring_s))
}

/// Seconds a per-device op of a partitioned program takes over a topology's links: an
/// all-reduce, reduce-scatter or all-gather as it is routed, anything else over the
/// slowest link of its groups' rings.
fn routed_time(t: &Topology, x: &shardc_runtime::backend::collective::Exchange) -> f64 {
    use shardc_ir::topology::Algorithm;
    let bytes = x.result_ty.size_bytes() as u64;
    x.groups()
        .iter()
        .map(|g| {
            let n = g.len();
            let choice = match x.short_name() {
                "all_reduce" => Some(t.all_reduce(g, bytes)),
                "all_gather" => Some(t.all_gather(g, bytes)),
                "reduce_scatter" => Some(t.reduce_scatter(g, bytes * n as u64)),
                _ => None,
            };
            if let Some(c) = choice {
                match (x.route(), c.hierarchical_s) {
                    (Algorithm::Hierarchical { .. }, Some(h)) => h,
                    _ => c.ring_s,
                }
            } else {
                let link = t.ring_link(g);
                let sent = g.first().map_or(0, |&d| x.ring_bytes(d));
                link.latency * n.saturating_sub(1).max(1) as f64 + sent as f64 / link.bandwidth
            }
        })
        .fold(0.0, f64::max)
}

/// What a per-device program is predicted to take on one device ([`CostModel::program_time`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProgramTime {
    /// Seconds of compute: every op at its rate.
    pub compute: f64,
    /// Seconds of communication: every collective's latency and its bytes over the slowest
    /// link.
    pub communication: f64,
    /// Collectives counted.
    pub collectives: usize,
    /// Seconds the step pays whatever it computes ([`CostModel::step_overhead`]).
    pub fixed: f64,
    /// Of [`ProgramTime::communication`], the seconds run while the device computes: a
    /// collective runs on the device's communication side from when compute hands it over
    /// until compute first reads its result, so what compute does in between hides it.
    pub hidden: f64,
}

impl ProgramTime {
    /// Compute, communication not hidden behind it, and the step's fixed cost.
    pub fn total(&self) -> f64 {
        self.compute + self.communication - self.hidden + self.fixed
    }
}

impl CostModel {
    /// The predicted time of a partitioned (per-device) program on device 0, from its ops
    /// alone and the step's fixed cost ([`CostModel::step_overhead`]): the same figure for
    /// any plan of a program, whichever model chose it, so that plans can be ranked by it
    /// and checked against runs (`shardc bench plans`).
    /// Collectives send the bytes the runtime's ring algorithms send (`ring_bytes`) over
    /// the slowest link of the model (the mesh's axes are not recovered from groups). A
    /// per-device op that moves nothing (`shard_slice`, `axis_index`) still ends a
    /// compute segment: it is charged one latency (measured on the cpu backend: the two
    /// `shard_slice`s that slicing `jax_random_normal_fwd`'s loop adds cost 0.3-0.6 ms,
    /// `docs/bench/loops-2026-12-05.json`).
    ///
    /// The body runs as the runtime runs it (`shardc_runtime::backend::device`): compute
    /// takes its ops in order and hands each collective to the device's communication
    /// side, which runs them one after the other; compute waits for a collective's result
    /// only at the first op that reads it, and for everything at the end (results) and at
    /// a loop or branch, which runs whole. Communication that runs while compute has other
    /// work is [`ProgramTime::hidden`]. Every device is taken to arrive at a collective
    /// when device 0 does (the devices of a step run the same program).
    pub fn program_time(&self, f: &shardc_ir::Function) -> ProgramTime {
        let names = f.value_names();
        let mut t = ProgramTime {
            fixed: self.step_overhead,
            ..ProgramTime::default()
        };
        // When compute is done with the ops so far, when the communication side is done
        // with the collectives so far, and when each collective's results arrive.
        let (mut compute_at, mut communication_at) = (0.0f64, 0.0f64);
        let mut arrives: HashMap<shardc_ir::ValueId, f64> = HashMap::new();
        for &id in &f.block(shardc_ir::Function::BODY).ops {
            let op = f.op(id);
            let mut one = ProgramTime::default();
            self.op_time_in(f, id, &names, 1.0, &mut one);
            t.compute += one.compute;
            t.communication += one.communication;
            t.collectives += one.collectives;
            if op.kind.is_collective() || op.kind.is_per_device() {
                communication_at = compute_at.max(communication_at) + one.communication;
                arrives.extend(op.results.iter().map(|&r| (r, communication_at)));
            } else if !op.regions.is_empty() {
                compute_at = compute_at.max(communication_at) + one.compute + one.communication;
                communication_at = compute_at;
            } else {
                let ready = op
                    .operands
                    .iter()
                    .filter_map(|v| arrives.get(v))
                    .fold(compute_at, |a, &b| a.max(b));
                compute_at = ready + one.compute;
            }
        }
        let end = compute_at.max(communication_at);
        // Less than a nanosecond is rounding in the sums, not overlap.
        let hidden = t.compute + t.communication - end;
        t.hidden = if hidden > 1e-9 { hidden } else { 0.0 };
        t
    }

    /// Adds the time of the ops of `block`, run `times` times, to `t`: a loop's regions
    /// once per iteration (its trip count when compiling, else `loops::ASSUMED_TRIPS`), a
    /// branch's dearest region once.
    fn block_time(
        &self,
        f: &shardc_ir::Function,
        block: shardc_ir::BlockId,
        names: &[String],
        times: f64,
        t: &mut ProgramTime,
    ) {
        for &id in &f.block(block).ops {
            self.op_time_in(f, id, names, times, t);
        }
    }

    /// Adds the time of op `id`, run `times` times, to `t` ([`CostModel::block_time`]).
    fn op_time_in(
        &self,
        f: &shardc_ir::Function,
        id: shardc_ir::OpId,
        names: &[String],
        times: f64,
        t: &mut ProgramTime,
    ) {
        let slowest = self
            .axis_bandwidth
            .values()
            .copied()
            .fold(self.default_bandwidth, f64::min);
        {
            let op = f.op(id);
            if op.kind == OpKind::While {
                let trips = crate::local::loops::costed_trips(f, op) as f64;
                t.compute += times * trips * self.loop_iteration;
                for &r in &op.regions {
                    self.block_time(f, r, names, times * trips, t);
                }
            } else if op.kind == OpKind::Case {
                // The branch taken is known only when it runs: the dearest one.
                let branches = op.regions.iter().map(|&r| {
                    let mut b = ProgramTime::default();
                    self.block_time(f, r, names, times, &mut b);
                    b
                });
                if let Some(b) = branches.max_by(|a, b| a.total().total_cmp(&b.total())) {
                    t.compute += b.compute;
                    t.communication += b.communication;
                    t.collectives += b.collectives;
                }
            } else if op.kind.is_collective() {
                let exchange = shardc_runtime::backend::collective::Exchange::new(f, op, names);
                let bytes = exchange.as_ref().map_or(0, |x| x.ring_bytes(0));
                let group = exchange
                    .as_ref()
                    .map_or(0, |x| x.groups().first().map_or(0, |g| g.len()));
                let latency = match op.kind {
                    OpKind::CollectivePermute { .. } => {
                        self.latency_of_kind(CollectiveKind::CollectivePermute, group)
                    }
                    _ => self.latency_of(group),
                };
                t.communication += times
                    * (latency
                        + match (&self.topology, &exchange) {
                            (Some(topology), Ok(x)) => routed_time(topology, x),
                            (None, Ok(x)) => {
                                let shared = self
                                    .shared_memory
                                    .filter(|sm| x.on_shared_memory(sm.min_bytes as usize));
                                bytes as f64 / shared.map_or(slowest, |sm| sm.rate(x.reduces()))
                            }
                            _ => bytes as f64 / slowest,
                        });
                t.collectives += times.round() as usize;
            } else if op.kind.is_per_device() {
                t.communication += times * self.latency;
            } else {
                let operands: Vec<TensorType> =
                    op.operands.iter().map(|&v| f.ty(v).clone()).collect();
                let results: Vec<TensorType> =
                    op.results.iter().map(|&v| f.ty(v).clone()).collect();
                t.compute += times * self.op_time(&op.kind, &operands, &results);
            }
        }
    }
}

/// Bytes an op that only moves data writes into a buffer of its own (its results): a
/// concatenation, pad, gather, dynamic slice or rotation, each a kernel of its own on the
/// cpu backend (`lower::cluster`'s roots that compute nothing). Others: none (a reshape,
/// slice, transpose or broadcast is read through by the kernel that consumes it).
pub fn moved_bytes(kind: &OpKind, results: &[TensorType]) -> u64 {
    match kind {
        OpKind::Concatenate { .. }
        | OpKind::Pad { .. }
        | OpKind::Gather(_)
        | OpKind::DynamicSlice { .. }
        | OpKind::Rotate { .. } => results.iter().map(|t| t.size_bytes() as u64).sum(),
        _ => 0,
    }
}

/// FLOPs of one op on pieces of the given types: `2*M*N*K` for a dot, one per input
/// element for a reduce, a few per element for transcendental functions, one per result
/// element for other elementwise ops, and none for ops that only move data.
pub fn op_flops(kind: &OpKind, operands: &[TensorType], results: &[TensorType]) -> u64 {
    let out: u64 = results.iter().map(|t| t.num_elements() as u64).sum();
    match kind {
        OpKind::DotGeneral(d) => {
            let k: u64 = d
                .lhs_contracting
                .iter()
                .map(|&i| operands[0].shape[i] as u64)
                .product();
            2 * out * k
        }
        OpKind::Reduce { .. } => operands
            .iter()
            .take(operands.len() / 2)
            .map(|t| t.num_elements() as u64)
            .sum(),
        // One reducer application per window element of every result element.
        OpKind::ReduceWindow(w) => out * w.window.iter().map(|&k| k as u64).product::<u64>(),
        OpKind::Unary(
            UnaryOp::Exponential
            | UnaryOp::ExponentialMinusOne
            | UnaryOp::Log
            | UnaryOp::LogPlusOne
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sine
            | UnaryOp::Cosine
            | UnaryOp::Tan
            | UnaryOp::Cbrt,
        ) => 8 * out,
        k if k.is_elementwise() => out,
        // An update is charged its whole result, though the engine updates in place
        // where nothing reads the operand after it (`lower/native.rs`) and then writes
        // the update's elements only. Charging those instead made a loop run whole look
        // cheaper than on the batch's pieces (`flax_scan_blocks_adamw_step`, whose body
        // updates four stacks), and it measured 1.2x slower (4.4 vs 3.6 ms): each
        // iteration's small kernels cost more than their elements, which this stands for.
        OpKind::DynamicUpdateSlice | OpKind::Scatter(_) => out,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("shardc-cost-{name}-{}.json", std::process::id()))
    }

    #[test]
    fn a_profile_reads_back_as_written() {
        let m = CostModel::cpu(4).with_axis_bandwidth("data", 3e8);
        let p = temp("roundtrip");
        std::fs::write(&p, m.to_json()).unwrap();
        assert_eq!(CostModel::load(&p).unwrap(), m);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn a_profile_of_another_version_or_with_a_bad_rate_is_refused() {
        let p = temp("bad");
        let mut m = CostModel::cpu(2);
        m.version = 0;
        std::fs::write(&p, m.to_json()).unwrap();
        let e = CostModel::load(&p).unwrap_err();
        assert!(
            e.contains("version 0") && e.contains("shardc calibrate"),
            "{e}"
        );
        let mut m = CostModel::cpu(2);
        m.flops = 0.0;
        std::fs::write(&p, m.to_json()).unwrap();
        let e = CostModel::load(&p).unwrap_err();
        assert!(e.contains("not a positive number"), "{e}");
        std::fs::write(&p, "{\"flops\": 1}").unwrap();
        let e = CostModel::load(&p).unwrap_err();
        assert!(e.contains("is not a cost profile"), "{e}");
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn devices_sharing_cores_get_a_share_of_each_rate() {
        let m = CostModel::cpu(2).with_axis_bandwidth("data", 1e9);
        // Two devices on two cores: a core each, the figures as they are.
        assert_eq!(m.for_devices(2).flops, m.flops);
        // Eight on two: a quarter of a core each for compute and for moving bytes; the
        // latency of a collective is by its groups' size, whoever else shares the cores.
        let eight = m.for_devices(8);
        assert_eq!(eight.flops, m.flops / 4.0);
        assert_eq!(
            eight.dot_rate(DotClass::Square, 1e6),
            m.dot_rate(DotClass::Square, 1e6) / 4.0
        );
        assert_eq!(
            eight.dot_rate(DotClass::Skinny, 1e6),
            m.dot_rate(DotClass::Skinny, 1e6) / 4.0
        );
        assert_eq!(eight.reduce_flops, m.reduce_flops.map(|r| r / 4.0));
        assert_eq!(eight.vector_flops, m.vector_flops / 4.0);
        assert_eq!(eight.bandwidth("data"), 0.25e9);
        assert_eq!(eight.bandwidth("model"), m.default_bandwidth / 4.0);
        assert_eq!(eight.latency_of(4), m.latency_of(4));
        // A profile measured at 8 devices, used for 4: twice the rates it measured.
        assert_eq!(eight.for_devices(4).flops, m.flops / 2.0);
        // Starting and joining the devices' threads grows with their number.
        assert_eq!(eight.step_overhead, m.step_overhead * 8.0);
        assert_eq!(eight.for_devices(2).step_overhead, m.step_overhead * 2.0);
        // Devices of their own (a GPU cluster) do not share.
        let g = CostModel::gpu_cluster();
        assert_eq!(g.for_devices(1024), g);
    }

    /// A permute waits on one peer: its latency is its own when measured, a group's
    /// otherwise; the other kinds keep their group's.
    #[test]
    fn permutes_are_charged_their_own_latency() {
        let mut m = CostModel::cpu(2);
        m.group_latency = vec![(2, 100e-6), (8, 400e-6)];
        m.permute_latency = Some(40e-6);
        use CollectiveKind::*;
        assert_eq!(m.latency_of_kind(CollectivePermute, 8), 40e-6);
        assert_eq!(m.latency_of_kind(AllReduce, 8), 400e-6);
        assert_eq!(m.latency_of_kind(AllGather, 2), 100e-6);
        m.permute_latency = None;
        assert_eq!(m.latency_of_kind(CollectivePermute, 8), 400e-6);
    }

    /// Measured rates by size: interpolated in log FLOPs between two sizes, the nearest
    /// beyond them; latencies by group size linearly; a model without them has one figure.
    #[test]
    fn rates_and_latencies_follow_the_measured_sizes() {
        let mut m = CostModel::cpu(2);
        m.dot_class_rates.clear();
        m.dot_rates = vec![(1e6, 10e9), (1e8, 30e9)];
        m.group_latency = vec![(2, 100e-6), (8, 400e-6)];
        assert_eq!(m.dot_rate(DotClass::Square, 1e3), 10e9);
        assert_eq!(m.dot_rate(DotClass::Square, 1e6), 10e9);
        assert!(
            (m.dot_rate(DotClass::Square, 1e7) - 20e9).abs() < 1.0,
            "{}",
            m.dot_rate(DotClass::Square, 1e7)
        );
        assert_eq!(m.dot_rate(DotClass::Square, 1e12), 30e9);
        assert_eq!(m.latency_of(1), 100e-6);
        assert!((m.latency_of(4) - 200e-6).abs() < 1e-12);
        assert_eq!(m.latency_of(64), 400e-6);
        // A dot's time is its FLOPs at the rate of its size.
        let t = TensorType::new(shardc_ir::DType::F32, [100, 100]);
        let dot = matmul();
        let time = m.op_time(&dot, &[t.clone(), t.clone()], std::slice::from_ref(&t));
        let rate = m.dot_rate(DotClass::Square, 2e6);
        assert!(rate > 10e9 && rate < 20e9, "{rate}");
        assert_eq!(time, 2e6 / rate);
        m.dot_rates.clear();
        m.group_latency.clear();
        assert_eq!(m.dot_rate(DotClass::Square, 1e7), m.flops);
        assert_eq!(m.latency_of(4), m.latency);
    }

    /// A dot's class is its local shape's: batch dimensions of more than one element make
    /// it batched, one of `m`, `n`, `k` a sixteenth of the largest skinny; each class has
    /// its own rates, a class without a table the square ones; reductions their own rate.
    #[test]
    fn dots_are_charged_by_their_shape_class() {
        use shardc_ir::{DType, DotDims};
        let t = |shape: &[usize]| TensorType::new(DType::F32, shape.to_vec());
        let plain = DotDims {
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
            ..DotDims::default()
        };
        let batched = DotDims {
            lhs_batch: vec![0],
            rhs_batch: vec![0],
            lhs_contracting: vec![2],
            rhs_contracting: vec![1],
            ..DotDims::default()
        };
        let class = |d: &DotDims, l: &[usize], r: &[usize]| DotClass::of(d, &t(l), &t(r));
        assert_eq!(class(&plain, &[256, 512], &[512, 512]), DotClass::Square);
        assert_eq!(class(&plain, &[8, 512], &[512, 512]), DotClass::Skinny);
        // The weight gradient of 4096 tokens for a 16 x 16 weight: k is 256 times m and n.
        assert_eq!(class(&plain, &[16, 4096], &[4096, 16]), DotClass::Skinny);
        assert_eq!(class(&plain, &[16, 256], &[256, 256]), DotClass::Skinny);
        assert_eq!(class(&plain, &[17, 512], &[512, 512]), DotClass::Square);
        // Few rows, but not few against the rest: a small square dot.
        assert_eq!(class(&plain, &[8, 64], &[64, 64]), DotClass::Square);
        // 32 rows against a large weight: square.
        assert_eq!(class(&plain, &[32, 512], &[512, 2048]), DotClass::Square);
        assert_eq!(
            class(&batched, &[8, 64, 64], &[8, 64, 64]),
            DotClass::Batched
        );
        // A batch of one (a batch dimension split to one element per device) is no batch.
        assert_eq!(
            class(&batched, &[1, 64, 64], &[1, 64, 64]),
            DotClass::Square
        );

        let mut m = CostModel::cpu(2);
        m.dot_rates = vec![(1e6, 100e9)];
        m.dot_class_rates = BTreeMap::from([(DotClass::Skinny, vec![(1e6, 25e9)])]);
        let dot = |d: &DotDims, l: &[usize], r: &[usize], o: &[usize]| {
            m.op_time(&OpKind::DotGeneral(d.clone()), &[t(l), t(r)], &[t(o)])
        };
        let skinny = dot(&plain, &[8, 512], &[512, 512], &[8, 512]);
        assert_eq!(skinny, 2.0 * 8.0 * 512.0 * 512.0 / 25e9);
        let square = dot(&plain, &[128, 128], &[128, 128], &[128, 128]);
        assert_eq!(square, 2.0 * 128.0 * 128.0 * 128.0 / 100e9);
        // No table for batched dots: the square rates.
        let b = dot(&batched, &[8, 64, 64], &[8, 64, 64], &[8, 64, 64]);
        assert_eq!(b, 8.0 * 2.0 * 64.0 * 64.0 * 64.0 / 100e9);

        let reduce = OpKind::Reduce {
            dimensions: vec![1],
        };
        let rows = m.op_time(&reduce, &[t(&[1024, 1024]), t(&[])], &[t(&[1024])]);
        assert_eq!(rows, 1048576.0 / m.reduce_flops.unwrap());
        m.reduce_flops = None;
        let rows = m.op_time(&reduce, &[t(&[1024, 1024]), t(&[])], &[t(&[1024])]);
        assert_eq!(rows, 1048576.0 / m.vector_flops);
    }

    /// On 2 nodes of 4 with a data=2 x model=4 mesh, `model` stays inside a node and
    /// `data` crosses: the same all-gather costs the inter-node link's time over `data`,
    /// the intra-node link's over `model`; an all-reduce over both axes is charged as the
    /// hierarchy, which beats a ring through the slow links.
    #[test]
    fn a_topology_charges_each_axis_by_the_links_its_groups_cross() {
        use crate::sharding::layout::CombinerKey;
        use shardc_ir::topology::LinkClass;
        use shardc_ir::{AxisRef, DType};
        let t = Topology::new(2, 4, LinkClass::new(8e9, 0.0), LinkClass::new(1e9, 0.0)).unwrap();
        let m = CostModel::cpu(8).with_topology(t.clone());
        let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
        let global = TensorType::new(DType::F32, [1024, 1024]);
        let gather = |axis: &str, dim: usize| {
            let step = Step::AllGather {
                dim,
                axes: vec![AxisRef::new(axis)],
            };
            let mut from = Layout::replicated(2);
            from.dims[dim] = vec![AxisRef::new(axis)];
            let bytes = step.bytes_per_device(&mesh, &global, &from) as f64;
            let group = mesh.axis_size(axis).unwrap();
            (
                m.step_time(&step, &mesh, &global, &from) - m.latency_of(group),
                bytes,
            )
        };
        let (across, bytes) = gather("data", 0);
        assert!((across - bytes / 1e9).abs() < 1e-12, "{across}");
        let (inside, bytes) = gather("model", 1);
        assert!((inside - bytes / 8e9).abs() < 1e-12, "{inside}");
        // An all-reduce of a 4 MiB partial sum over both axes: 8 devices on 2 nodes.
        let step = Step::AllReduce {
            axes: vec![AxisRef::new("data"), AxisRef::new("model")],
            combiner: CombinerKey::Sum,
        };
        let mut partial = Layout::replicated(2);
        partial.unreduced = vec![AxisRef::new("data"), AxisRef::new("model")];
        let time = m.step_time(&step, &mesh, &global, &partial) - m.latency_of(8);
        let all: Vec<usize> = (0..8).collect();
        let choice = t.all_reduce(&all, global.size_bytes() as u64);
        assert!(
            (time - choice.hierarchical_s.unwrap()).abs() < 1e-9,
            "{time} {choice:?}"
        );
        assert!(time < choice.ring_s / 2.0);
    }

    /// On the cpu backend, a collective whose result reaches the shared-memory size runs
    /// through the host's memory at its rate; a smaller one as a ring at the link's. Both
    /// in the search's step costs and in the prediction of a partitioned program.
    #[test]
    fn collectives_from_the_shared_memory_size_move_at_its_rate() {
        use crate::sharding::layout::CombinerKey;
        use shardc_ir::{AxisRef, DType};
        let mut m = CostModel::cpu(2);
        m.shared_memory = Some(SharedMemory {
            min_bytes: 256 << 10,
            bandwidth: 3.0 * m.default_bandwidth,
            copy_bandwidth: None,
        });
        let m = m.for_devices(4);
        let sm = m.shared_memory.unwrap();
        assert_eq!(sm.bandwidth, 3.0 * m.default_bandwidth);
        let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
        let step = Step::AllReduce {
            axes: vec![AxisRef::new("data")],
            combiner: CombinerKey::Sum,
        };
        let mut partial = Layout::replicated(1);
        partial.unreduced = vec![AxisRef::new("data")];
        let charge = |elements: usize| {
            let global = TensorType::new(DType::F32, [elements]);
            let bytes = step.bytes_per_device(&mesh, &global, &partial) as f64;
            let time = m.step_time(&step, &mesh, &global, &partial) - m.latency_of(4);
            (time, bytes)
        };
        let at = (sm.min_bytes / 4) as usize;
        let (time, bytes) = charge(at);
        assert!((time - bytes / sm.bandwidth).abs() < 1e-12, "{time}");
        let (time, bytes) = charge(at - 1);
        assert!((time - bytes / m.default_bandwidth).abs() < 1e-12, "{time}");

        // The partitioned program's all-reduces, one each side of the size.
        let program = |elements: usize| {
            format!(
                r#"sdy.mesh @mesh = <["data"=4]>
func.func @main(%a: tensor<4x{elements}xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}}) -> (tensor<{elements}xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x{elements}xf32>, tensor<f32>) -> tensor<{elements}xf32>
  return %r : tensor<{elements}xf32>
}}"#
            )
        };
        let predicted = |elements: usize| {
            let module = shardc_ir::text::parse_module(&program(elements)).unwrap();
            let c = crate::compile(&module, &crate::Options::default()).unwrap();
            let t = m.program_time(c.partitioned.module.entry().unwrap());
            assert_eq!(t.collectives, 1);
            // Ring bytes: 2 (n - 1) / n of the buffer.
            let bytes = (2 * 3 * elements) as f64;
            (t.communication - m.latency_of(4), bytes)
        };
        let (time, bytes) = predicted(at);
        assert!((time - bytes / sm.bandwidth).abs() < 1e-9, "{time}");
        let (time, bytes) = predicted(at / 2);
        assert!((time - bytes / m.default_bandwidth).abs() < 1e-9, "{time}");
    }

    /// `[m, k] x [k, n]`.
    fn matmul() -> OpKind {
        OpKind::DotGeneral(shardc_ir::DotDims {
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
            ..Default::default()
        })
    }

    #[test]
    fn contractions_and_other_ops_have_their_own_rates() {
        let m = CostModel::cpu(1);
        let t = TensorType::new(shardc_ir::DType::F32, [64, 64]);
        let dot = matmul();
        let flops = 2.0 * 64.0 * 64.0 * 64.0;
        assert_eq!(
            m.op_time(&dot, &[t.clone(), t.clone()], std::slice::from_ref(&t)),
            flops / m.dot_rate(DotClass::Square, flops)
        );
        let add = OpKind::Binary(shardc_ir::BinaryOp::Add);
        assert_eq!(
            m.op_time(&add, &[t.clone(), t.clone()], &[t]),
            4096.0 / m.vector_flops
        );
    }

    /// A per-device program: `%p`'s all-gather, then a dot on `%x` that does not read it
    /// (`late`) or that does (otherwise), then the gathered value read.
    fn gather_then_dot(late: bool) -> shardc_ir::Module {
        let operand = if late { "%x" } else { "%g" };
        let text = format!(
            r#"
func.func @main(%p: tensor<64x64xf32>, %x: tensor<256x64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {{
  %g = "stablehlo.all_gather"(%p) <{{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}}> : (tensor<64x64xf32>) -> tensor<256x64xf32>
  %w = stablehlo.constant dense<1.0> : tensor<64x64xf32>
  %d = stablehlo.dot_general {operand}, %w, contracting_dims = [1] x [0] : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %s = stablehlo.add %g, %g : tensor<256x64xf32>
  return %d, %s : tensor<256x64xf32>, tensor<256x64xf32>
}}
"#
        );
        shardc_ir::text::parse_module(&text).unwrap()
    }

    /// Communication runs behind the compute that does not need its result: a gather
    /// handed over before a dot that does not read it is hidden by the dot (the step takes
    /// the longer of the two), and not when the dot reads it.
    #[test]
    fn communication_runs_behind_compute_until_its_result_is_read() {
        let m = CostModel::cpu(2).for_devices(4);
        let late = m.program_time(gather_then_dot(true).entry().unwrap());
        let early = m.program_time(gather_then_dot(false).entry().unwrap());
        assert_eq!(late.collectives, 1);
        assert!((late.compute - early.compute).abs() < 1e-15);
        assert!((late.communication - early.communication).abs() < 1e-15);
        // The dot and the gather overlap; the add waits for both.
        let dot = m.op_time(
            &matmul(),
            &[
                TensorType::new(shardc_ir::DType::F32, [256, 64]),
                TensorType::new(shardc_ir::DType::F32, [64, 64]),
            ],
            &[TensorType::new(shardc_ir::DType::F32, [256, 64])],
        );
        assert!(late.hidden > 0.0);
        assert!(
            (late.hidden - dot.min(late.communication)).abs() < 1e-12,
            "{late:?}, dot {dot}"
        );
        assert_eq!(early.hidden, 0.0);
        assert!(late.total() < early.total());
        assert!(
            (early.total() - (early.compute + early.communication + early.fixed)).abs() < 1e-15
        );
    }

    /// Through shared memory, a collective that only copies (all-gather) moves at its own
    /// rate when one was measured, a reduction at the other; an op that only moves data
    /// (concatenate) costs its bytes at the memory rate when one was measured, nothing
    /// otherwise.
    #[test]
    fn copies_have_their_own_rates() {
        let mut m = CostModel::cpu(2);
        let time = |m: &CostModel| m.program_time(gather_then_dot(false).entry().unwrap());
        let at_reduction_rate = time(&m).communication;
        m.shared_memory.as_mut().unwrap().copy_bandwidth = Some(4.0 * 4.5e9);
        let sm = m.shared_memory.unwrap();
        assert_eq!((sm.rate(true), sm.rate(false)), (4.5e9, 18e9));
        let latency = m.latency_of(4);
        let at_copy_rate = time(&m).communication;
        // A ring all-gather sends (n-1)/n of its result: 48 KiB here.
        let sent = (3 * 64 * 64 * 4) as f64;
        assert!((at_reduction_rate - latency - sent / 4.5e9).abs() < 1e-12);
        assert!((at_copy_rate - latency - sent / 18e9).abs() < 1e-12);
        // Shared by the devices of a host like every other rate.
        let quarter = m.for_devices(8).shared_memory.unwrap();
        assert_eq!(quarter.copy_bandwidth, Some(18e9 / 4.0));

        let v = TensorType::new(shardc_ir::DType::F32, [1024]);
        let joined = TensorType::new(shardc_ir::DType::F32, [2048]);
        let concat = OpKind::Concatenate { dimension: 0 };
        let operands = [v.clone(), v];
        assert_eq!(
            m.op_time(&concat, &operands, std::slice::from_ref(&joined)),
            0.0
        );
        m.memory_bandwidth = Some(8e9);
        assert_eq!(
            m.op_time(&concat, &operands, std::slice::from_ref(&joined)),
            8192.0 / 8e9
        );
        assert_eq!(m.for_devices(8).memory_bandwidth, Some(2e9));
    }

    /// A loop's body is predicted once per iteration: a dot in a loop of 3 iterations
    /// costs three dots (a whole-program prediction that charged it once would favour
    /// running loops whole).
    #[test]
    fn a_loop_body_is_charged_once_per_iteration() {
        let text = r#"
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<64x64xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %d : tensor<i32>, tensor<64x64xf32>
    }
  return %r#1 : tensor<64x64xf32>
}
"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        let model = CostModel::cpu(2);
        let t = TensorType::new(shardc_ir::DType::F32, [64, 64]);
        let dot = model.op_time(&matmul(), &[t.clone(), t.clone()], &[t]);
        let time = model.program_time(f);
        // Three dots, and three iterations' fixed cost.
        let want = 3.0 * (dot + model.loop_iteration);
        assert!(model.loop_iteration > 0.0);
        let predicted = time.compute;
        assert!(
            (predicted - want).abs() < 0.01 * want,
            "{predicted} vs 3 x ({dot} + {})",
            model.loop_iteration
        );
        // The step's fixed cost once, whatever the loop does.
        assert_eq!(time.fixed, model.step_overhead);
        assert_eq!(
            time.total(),
            time.compute + time.communication + model.step_overhead
        );
    }
}
