//! Which mesh and strategies to train a GPT-shaped model with on `N` devices
//! (`shardc plan`): every way of splitting the devices into data, pipeline-stage and
//! tensor-parallel axes that the model's shapes allow, each with each way of holding the
//! data axis's state (DDP, ZeRO-1, ZeRO-2, ZeRO-3), predicted from the cost model's
//! figures and ranked by step time within a memory limit.
//!
//! A step is predicted from per-layer formulas — one layer is planned and the others are
//! the same, so a plan costs microseconds whatever the model's depth or the device count:
//!
//! - compute: each matmul's FLOPs on its local pieces at the cost model's rate for its
//!   size, the other ops' FLOPs at its vector rate, the optimizer update on the state
//!   each device holds; a pipeline adds its bubble, `(p - 1) / (m + p - 1)` of the work;
//! - tensor parallelism: two all-reduces of a micro-batch's activations per layer in the
//!   forward pass and two in the backward, not overlapped;
//! - the data axis: DDP's gradient all-reduce (in 25 MB buckets) and ZeRO-1/2's
//!   reduce-scatter and all-gather (one of each per parameter tensor, each paying a
//!   collective's latency) overlap the backward pass (what does not fit behind it is
//!   exposed, and at least one layer's share); ZeRO-3's forward all-gathers are exposed;
//! - pipelines: each micro-batch's activations and their gradients between stages;
//! - memory per device: parameters, gradients and AdamW's two moments by the ZeRO stage,
//!   and the activations a layer keeps for the backward (Korthikanti et al.'s
//!   `s·h·(10 + 24/t + 5·a·s/(h·t))` for 16 bits, doubled for f32), times the layers of a
//!   stage and the micro-batches in flight (a pipeline's, or one of a step's accumulated
//!   micro-batches), and one micro-batch's logits.
//!
//! Collectives are charged by the links they cross: with a topology, an axis whose groups
//! stay inside nodes runs on the intra-node link, one that spans nodes on the inter-node
//! link (its all-reduces the faster of a ring and the hierarchical algorithm); both axis
//! orders are tried (tensor parallelism inside nodes, or data). The ranking is checked
//! against runs by `shardc plan --measure K`.

use crate::models::GptConfig;
use shardc_compiler::CostModel;
use shardc_compiler::sharding::cost::DotClass;
use std::collections::BTreeMap;

/// How the data axis holds parameters, gradients and optimizer state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataParallel {
    /// Everything replicated; gradients all-reduced.
    Ddp,
    /// Optimizer state split; gradients reduce-scattered, parameters all-gathered.
    Zero1,
    /// Optimizer state and gradients split.
    Zero2,
    /// Parameters too (FSDP): gathered for the forward and the backward pass.
    Zero3,
}

impl DataParallel {
    /// All four.
    pub const ALL: [DataParallel; 4] = [
        DataParallel::Ddp,
        DataParallel::Zero1,
        DataParallel::Zero2,
        DataParallel::Zero3,
    ];

    /// The name `shardc plan` prints.
    pub fn name(self) -> &'static str {
        match self {
            DataParallel::Ddp => "DDP",
            DataParallel::Zero1 => "ZeRO-1",
            DataParallel::Zero2 => "ZeRO-2",
            DataParallel::Zero3 => "ZeRO-3",
        }
    }
}

/// A way to train the model on the devices.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Devices along the data axis (the batch split over them).
    pub data: usize,
    /// Pipeline stages (the layers split over them).
    pub stages: usize,
    /// Devices along the tensor-parallel axis (Megatron's attention heads and MLP columns).
    pub model: usize,
    /// Micro-batches per step: a pipeline's, or without one the gradient accumulation's
    /// (the backward of each before the next forward; one reduction per step).
    pub micro_batches: usize,
    /// How the data axis holds the state.
    pub data_parallel: DataParallel,
    /// The mesh's axes, outermost first (`data`, `stage`, `model`): the innermost has
    /// consecutive devices, so it stays inside a node when it fits.
    pub axes: Vec<(&'static str, usize)>,
    /// What the cost model predicts.
    pub predicted: Predicted,
}

/// A plan's predicted step, per device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Predicted {
    /// Seconds per step.
    pub step_s: f64,
    /// Computing (the pipeline's bubble included).
    pub compute_s: f64,
    /// Of it, the bubble.
    pub bubble_s: f64,
    /// Tensor-parallel all-reduces.
    pub tensor_s: f64,
    /// The data axis's collectives not hidden behind the backward pass.
    pub data_exposed_s: f64,
    /// Between pipeline stages.
    pub pipeline_s: f64,
    /// Bytes held: parameters, gradients, optimizer state, activations.
    pub memory: Memory,
    /// Bytes a device sends per step, by link class (`intra`/`inter` with a topology,
    /// `link` without).
    pub bytes_per_link: BTreeMap<String, u64>,
}

/// Bytes a device holds at its peak, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Parameters (f32).
    pub params: u64,
    /// Gradients.
    pub grads: u64,
    /// AdamW's two moments.
    pub optimizer: u64,
    /// Activations kept for the backward pass.
    pub activations: u64,
}

impl Memory {
    /// All four.
    pub fn total(&self) -> u64 {
        self.params + self.grads + self.optimizer + self.activations
    }
}

impl Plan {
    /// `ZeRO-3 data=2 x Megatron model=4`, `DDP data=8`, `pipeline stage=2 (8 micro-batches)`.
    pub fn name(&self) -> String {
        let mut parts = Vec::new();
        if self.data > 1 {
            parts.push(format!("{} data={}", self.data_parallel.name(), self.data));
        }
        if self.stages > 1 {
            parts.push(format!(
                "pipeline stage={} ({} micro-batches)",
                self.stages, self.micro_batches
            ));
        }
        if self.model > 1 {
            parts.push(format!("Megatron model={}", self.model));
        }
        if parts.is_empty() {
            parts.push("one device".into());
        }
        let mut name = parts.join(" x ");
        if self.stages == 1 && self.micro_batches > 1 {
            name.push_str(&format!(
                " ({} micro-batches accumulated)",
                self.micro_batches
            ));
        }
        name
    }
}

/// What [`plan`] considered.
#[derive(Clone, Debug)]
pub struct Plans {
    /// The plans within the memory limit, fastest first.
    pub ranked: Vec<Plan>,
    /// How many plans were predicted.
    pub considered: usize,
    /// Those over the memory limit, fastest first.
    pub over_budget: Vec<Plan>,
}

/// Every plan of `model` on `devices` devices, predicted by `cost` (its topology, if any,
/// says which links the axes cross), ranked; plans needing more than `memory_per_device`
/// bytes on a device are set apart. The model's batch is the global batch.
pub fn plan(
    model: &GptConfig,
    devices: usize,
    cost: &CostModel,
    memory_per_device: Option<u64>,
) -> Result<Plans, String> {
    if devices == 0 {
        return Err("plan for at least one device".into());
    }
    if let Some(t) = &cost.topology
        && t.devices() != devices
    {
        return Err(format!(
            "the topology has {} devices ({} nodes of {}), but the plan is for {devices}",
            t.devices(),
            t.nodes,
            t.devices_per_node
        ));
    }
    let d = &model.block;
    let cost = cost.for_devices(devices);
    let mut all = Vec::new();
    for model_ways in divisors(devices) {
        // Megatron splits heads and MLP columns.
        if !d.heads.is_multiple_of(model_ways) || !d.d_ff.is_multiple_of(model_ways) {
            continue;
        }
        for stages in divisors(devices / model_ways) {
            if !model.layers.is_multiple_of(stages) {
                continue;
            }
            let data = devices / model_ways / stages;
            if !d.batch.is_multiple_of(data) {
                continue;
            }
            let local = d.batch / data;
            let micro_batch_counts = if stages == 1 {
                // Gradient accumulation: any number of micro-batches dividing the rows.
                divisors(local)
            } else {
                // Enough micro-batches to keep the bubble small, each at least a sequence.
                vec![
                    divisors(local)
                        .into_iter()
                        .filter(|&m| m <= 4 * stages)
                        .max()
                        .unwrap_or(1),
                ]
            };
            let orders: Vec<Vec<(&'static str, usize)>> = {
                let inner_model = vec![("data", data), ("stage", stages), ("model", model_ways)];
                let inner_data = vec![("model", model_ways), ("stage", stages), ("data", data)];
                if cost.topology.is_some() && data > 1 && model_ways > 1 {
                    vec![inner_model, inner_data]
                } else {
                    vec![inner_model]
                }
            };
            let stage_kinds: &[DataParallel] = if data > 1 {
                &DataParallel::ALL
            } else {
                &[DataParallel::Ddp]
            };
            for axes in orders {
                for &data_parallel in stage_kinds {
                    for &micro_batches in &micro_batch_counts {
                        let mut p = Plan {
                            data,
                            stages,
                            model: model_ways,
                            micro_batches,
                            data_parallel,
                            axes: axes.clone(),
                            predicted: Predicted::default(),
                        };
                        p.predicted = predict(model, &p, &cost);
                        all.push(p);
                    }
                }
            }
        }
    }
    if all.is_empty() {
        return Err(format!(
            "no way to split {devices} devices for this model: the data axis must divide the batch ({}), the tensor-parallel axis the heads ({}) and the MLP width ({}), the pipeline stages the layers ({}); choose a device count they allow",
            d.batch, d.heads, d.d_ff, model.layers
        ));
    }
    let considered = all.len();
    all.sort_by(|a, b| a.predicted.step_s.total_cmp(&b.predicted.step_s));
    let (ranked, over_budget) = all
        .into_iter()
        .partition(|p| memory_per_device.is_none_or(|m| p.predicted.memory.total() <= m));
    Ok(Plans {
        ranked,
        considered,
        over_budget,
    })
}

fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|&k| n.is_multiple_of(k)).collect()
}

/// A collective over the devices of one axis.
#[derive(Clone, Copy)]
enum Collective {
    AllReduce,
    ReduceScatter,
    Gather,
}

/// The devices of the group of `axis` holding device 0: consecutive devices for the
/// innermost axis, strided by the axes inside it otherwise.
fn group(axes: &[(&str, usize)], axis: &str) -> Vec<usize> {
    let at = axes.iter().position(|a| a.0 == axis).unwrap_or(0);
    let stride: usize = axes[at + 1..].iter().map(|a| a.1).product();
    (0..axes[at].1).map(|i| i * stride).collect()
}

/// Seconds and link class of one collective of `bytes` (the full buffer) over `group`.
fn collective(
    cost: &CostModel,
    group: &[usize],
    bytes: f64,
    kind: Collective,
) -> (f64, &'static str, f64) {
    let n = group.len() as f64;
    if group.len() < 2 {
        return (0.0, "link", 0.0);
    }
    // Bytes each device sends: a ring all-reduce 2(n-1)/n of the buffer, a gather or a
    // reduce-scatter (n-1)/n.
    let factor = match kind {
        Collective::AllReduce => 2.0 * (n - 1.0) / n,
        Collective::ReduceScatter | Collective::Gather => (n - 1.0) / n,
    };
    let sent = factor * bytes;
    match &cost.topology {
        Some(t) => {
            let crosses = group.iter().any(|&g| t.node_of(g) != t.node_of(group[0]));
            let class = if crosses { "inter" } else { "intra" };
            let seconds = match kind {
                Collective::AllReduce => {
                    let ring = t.ring_all_reduce_s(group, bytes as u64);
                    t.hierarchical_all_reduce_s(group, bytes as u64)
                        .map_or(ring, |h| h.min(ring))
                }
                Collective::ReduceScatter | Collective::Gather => t.ring_link(group).time(sent),
            };
            (seconds, class, sent)
        }
        None => (
            // Through shared memory when the buffer is large enough (the gathered
            // buffer of a gather, the operand of a reduce-scatter: an upper bound).
            cost.latency_of(group.len())
                + sent
                    / cost.collective_bandwidth(
                        cost.default_bandwidth,
                        bytes as u64,
                        !matches!(kind, Collective::Gather),
                    ),
            "link",
            sent,
        ),
    }
}

/// A plan's step on `cost`'s machine.
pub fn predict(model: &GptConfig, p: &Plan, cost: &CostModel) -> Predicted {
    let d = &model.block;
    let (h, s, a, f, v) = (
        d.d_model as f64,
        d.seq as f64,
        d.heads as f64,
        d.d_ff as f64,
        model.vocab as f64,
    );
    let t = p.model as f64;
    let layers = (model.layers / p.stages) as f64;
    let local_seqs = (d.batch / p.data) as f64;
    let mb_seqs = local_seqs / p.micro_batches as f64;
    let tokens = local_seqs * s;
    // One layer's matmuls on a micro-batch (forward): q, k, v and out (4h² per token),
    // the MLP (2·h·f), attention scores and context (2·s·h per token), each split t ways.
    let mb_tokens = mb_seqs * s;
    let dot = |class: DotClass, flops: f64| flops / cost.dot_rate(class, flops);
    let layer_fwd = dot(DotClass::Square, 2.0 * mb_tokens * 4.0 * h * h / t)
        + dot(DotClass::Square, 2.0 * mb_tokens * 2.0 * h * f / t)
        + dot(DotClass::Batched, 2.0 * mb_tokens * 2.0 * s * h / t);
    // Elementwise and reductions: layer norms, softmax, GELU, residuals (~8 FLOPs per
    // element they touch).
    let layer_vec = 8.0 * mb_tokens * (6.0 * h + (2.0 * f + 2.0 * a * s) / t) / cost.vector_flops;
    // Forward and backward (twice the forward) of every layer and micro-batch.
    let body = 3.0 * (layer_fwd + layer_vec) * layers * p.micro_batches as f64;
    // The embedding lookup and the logits (replicated over the model axis, as the demo's
    // specs have it), on the last stage.
    let head = 3.0 * dot(DotClass::Square, 2.0 * tokens * h * v);
    // Parameters: blocks split over model and stages; embeddings, positions and the final
    // norm on every device.
    let all: usize = model.param_types().iter().map(|t| t.num_elements()).sum();
    let shared_params = v * h + s * h + 2.0 * h;
    let block_params = (all as f64 - shared_params) / model.layers as f64 / t * layers;
    let params = block_params + shared_params;
    let n = p.data as f64;
    let (param_div, grad_div, state_div) = match p.data_parallel {
        DataParallel::Ddp => (1.0, 1.0, 1.0),
        DataParallel::Zero1 => (1.0, 1.0, n),
        DataParallel::Zero2 => (1.0, n, n),
        DataParallel::Zero3 => (n, n, n),
    };
    let update = 12.0 * params / state_div / cost.vector_flops;
    let work = body + head + update;
    let bubble = if p.stages > 1 {
        body * (p.stages - 1) as f64 / p.micro_batches as f64
    } else {
        0.0
    };
    let mut bytes_per_link: BTreeMap<String, u64> = BTreeMap::new();
    let mut add = |class: &str, b: f64| {
        *bytes_per_link.entry(class.to_string()).or_default() += b as u64;
    };
    // Tensor parallelism: 4 all-reduces of a micro-batch's activations per layer.
    let mut tensor = 0.0;
    if p.model > 1 {
        let (sec, class, sent) = collective(
            cost,
            &group(&p.axes, "model"),
            mb_tokens * h * 4.0,
            Collective::AllReduce,
        );
        let count = 4.0 * layers * p.micro_batches as f64;
        tensor = sec * count;
        add(class, sent * count);
    }
    // The data axis: the gradients of the device's parameters. DDP all-reduces them in
    // buckets of 25 MB (the strategy's `bucket_bytes`); the ZeRO stages reduce-scatter and
    // gather each parameter on its own, paying a collective's latency per tensor.
    let mut data_exposed = 0.0;
    if p.data > 1 {
        let g = group(&p.axes, "data");
        let grads = params * 4.0;
        let tensors = model.param_types().len() as f64;
        // `count` collectives moving `bytes` in all.
        let per = |kind, bytes: f64, count: f64| {
            let (sec, class, sent) = collective(cost, &g, bytes / count, kind);
            (sec * count, class, sent * count)
        };
        let (mut hidden, mut exposed) = (0.0, 0.0);
        let mut charge = |(sec, class, sent): (f64, &str, f64), behind_backward: bool| {
            add(class, sent);
            if behind_backward {
                hidden += sec;
            } else {
                exposed += sec;
            }
        };
        let buckets = (grads / (25u64 << 20) as f64).ceil().max(1.0);
        match p.data_parallel {
            DataParallel::Ddp => charge(per(Collective::AllReduce, grads, buckets), true),
            DataParallel::Zero1 | DataParallel::Zero2 => {
                charge(per(Collective::ReduceScatter, grads, tensors), true);
                charge(per(Collective::Gather, grads, tensors), false);
            }
            DataParallel::Zero3 => {
                // Gathered for the forward (exposed: no prefetch yet) and again for the
                // backward; gradients reduce-scattered.
                charge(per(Collective::Gather, grads, tensors), false);
                charge(per(Collective::Gather, grads, tensors), true);
                charge(per(Collective::ReduceScatter, grads, tensors), true);
            }
        }
        let backward = body * 2.0 / 3.0;
        data_exposed = exposed + (hidden - backward).max(hidden / layers.max(1.0));
    }
    // Pipelines: each micro-batch's activations forward and their gradients back.
    let mut pipeline = 0.0;
    if p.stages > 1 {
        let g = group(&p.axes, "stage");
        let pair = [g[0], g[1]];
        let (sec, class, _) = collective(cost, &pair, mb_tokens * h * 4.0, Collective::Gather);
        // A pair's "gather" sends the whole buffer once: a point-to-point message.
        let count = 2.0 * p.micro_batches as f64;
        pipeline = sec * count;
        add(class, mb_tokens * h * 4.0 * count);
    }
    // Activations kept per layer and sequence (f32), the layers of a stage, and the
    // micro-batches in flight (1F1B: as many as stages, at most all).
    let per_seq_layer = 2.0 * s * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
    let in_flight = if p.stages > 1 {
        (p.stages.min(p.micro_batches) as f64) * mb_seqs
    } else {
        mb_seqs
    };
    // The logits of a micro-batch (the loss is computed one micro-batch at a time).
    let activations = per_seq_layer * layers * in_flight + mb_tokens * v * 4.0;
    let memory = Memory {
        params: (params * 4.0 / param_div) as u64,
        grads: (params * 4.0 / grad_div) as u64,
        optimizer: (params * 8.0 / state_div) as u64,
        activations: activations as u64,
    };
    let compute = work + bubble;
    Predicted {
        step_s: compute + tensor + data_exposed + pipeline,
        compute_s: compute,
        bubble_s: bubble,
        tensor_s: tensor,
        data_exposed_s: data_exposed,
        pipeline_s: pipeline,
        memory,
        bytes_per_link,
    }
}

/// Kendall's tau between two orderings of the same items: `+1` when every pair is in the
/// same order in both, `-1` when every pair is reversed (ties count as neither).
pub fn kendall_tau(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let mut score = 0.0;
    let mut pairs = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            // `f64::signum` is 1 for a zero: a tie is 0 here.
            let sign = |d: f64| if d == 0.0 { 0.0 } else { d.signum() };
            let x = sign(a[i] - a[j]) * sign(b[i] - b[j]);
            score += x;
            pairs += 1.0;
        }
    }
    if pairs == 0.0 { 1.0 } else { score / pairs }
}

/// The shapes of a GPT of about a billion parameters (24 layers, d_model 2048, 16 heads,
/// sequences of 2048, a 50,304-token vocabulary; 1.3 B parameters), global batch 256:
/// for planning only (it is not run).
pub fn gpt_1b() -> GptConfig {
    GptConfig {
        vocab: 50304,
        layers: 24,
        block: crate::models::TransformerDims {
            batch: 256,
            seq: 2048,
            d_model: 2048,
            heads: 16,
            d_ff: 8192,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::{LinkClass, Topology};

    fn demo() -> GptConfig {
        crate::presets::demo_config()
    }

    #[test]
    fn every_way_of_splitting_the_devices_the_shapes_allow_is_predicted() {
        let cost = CostModel::cpu(2);
        let plans = plan(&demo(), 8, &cost, None).unwrap();
        // Tensor parallelism 1, 2 or 4 (4 heads); stages dividing 4 layers; data the
        // rest; 4 ZeRO stages where data > 1, one plan where it is 1; without a pipeline,
        // as many plans again as the counts of micro-batches dividing a device's 16/data
        // sequences (1, 2, 4, ...).
        let mut want = 0;
        for t in [1usize, 2, 4] {
            for p in [1usize, 2, 4, 8] {
                if 8 % (t * p) != 0 || 4 % p != 0 {
                    continue;
                }
                let data = 8 / (t * p);
                let kinds = if data > 1 { 4 } else { 1 };
                let counts = if p == 1 {
                    (16 / data).trailing_zeros() as usize + 1
                } else {
                    1
                };
                want += kinds * counts;
            }
        }
        assert_eq!(plans.considered, want);
        assert_eq!(plans.ranked.len(), want);
        for p in &plans.ranked {
            assert_eq!(p.data * p.stages * p.model, 8, "{}", p.name());
            assert!(p.predicted.step_s > 0.0);
        }
        assert!(
            plans
                .ranked
                .windows(2)
                .all(|w| w[0].predicted.step_s <= w[1].predicted.step_s)
        );
    }

    /// The seed's table from the planner's memory: 16 bytes per parameter under DDP, the
    /// ZeRO stages' 4 + 4 + 8/N, 4 + 12/N and 16/N (the embeddings are a share of the
    /// parameters like any other without tensor parallelism).
    #[test]
    fn state_bytes_follow_the_zero_stages() {
        let cfg = demo();
        let params: usize = cfg.param_types().iter().map(|t| t.num_elements()).sum();
        let plans = plan(&cfg, 8, &CostModel::cpu(2), None).unwrap();
        let n = 8.0;
        for (dp, bytes) in [
            (DataParallel::Ddp, 16.0),
            (DataParallel::Zero1, 8.0 + 8.0 / n),
            (DataParallel::Zero2, 4.0 + 12.0 / n),
            (DataParallel::Zero3, 16.0 / n),
        ] {
            let p = plans
                .ranked
                .iter()
                .find(|p| p.data == 8 && p.data_parallel == dp)
                .unwrap();
            let m = p.predicted.memory;
            let per_param = (m.params + m.grads + m.optimizer) as f64 / params as f64;
            assert!(
                (per_param - bytes).abs() < 0.01,
                "{}: {per_param} bytes per parameter, want {bytes}",
                p.name()
            );
        }
    }

    #[test]
    fn a_memory_limit_sets_the_plans_over_it_apart() {
        let cfg = demo();
        let all = plan(&cfg, 8, &CostModel::cpu(2), None).unwrap();
        let ddp = all
            .ranked
            .iter()
            .find(|p| p.data == 8 && p.data_parallel == DataParallel::Ddp && p.micro_batches == 1)
            .unwrap();
        let limit = ddp.predicted.memory.total() - 1;
        let within = plan(&cfg, 8, &CostModel::cpu(2), Some(limit)).unwrap();
        assert!(
            within
                .ranked
                .iter()
                .all(|p| p.predicted.memory.total() <= limit)
        );
        assert!(within.over_budget.iter().any(|p| p.name() == ddp.name()));
        assert_eq!(
            within.ranked.len() + within.over_budget.len(),
            all.considered
        );
        assert!(!within.ranked.is_empty());
    }

    /// Two nodes of four devices, the link across them 16x slower: tensor parallelism's
    /// all-reduces (four per layer, not overlapped) go inside nodes, and its plans rank
    /// above the same split with the data axis inside; the bytes are counted by link.
    #[test]
    fn tensor_parallelism_goes_inside_the_nodes() {
        let t = Topology::new(2, 4, LinkClass::new(16e9, 5e-6), LinkClass::new(1e9, 2e-5)).unwrap();
        let cost = CostModel::gpu_cluster().with_topology(t);
        let plans = plan(&gpt_1b(), 8, &cost, None).unwrap();
        let of = |inner: &str| {
            plans
                .ranked
                .iter()
                .find(|p| {
                    p.data == 2
                        && p.model == 4
                        && p.stages == 1
                        && p.micro_batches == 1
                        && p.data_parallel == DataParallel::Ddp
                        && p.axes.last().unwrap().0 == inner
                })
                .unwrap()
        };
        let (inside, across) = (of("model"), of("data"));
        assert!(
            inside.predicted.step_s < across.predicted.step_s,
            "{} {} vs {}",
            inside.name(),
            inside.predicted.step_s,
            across.predicted.step_s
        );
        assert!(inside.predicted.tensor_s < across.predicted.tensor_s / 4.0);
        let links = &inside.predicted.bytes_per_link;
        assert!(links["intra"] > 0 && links["inter"] > 0, "{links:?}");
        // A topology of another size is refused, and so is a device count nothing splits.
        let err = plan(&gpt_1b(), 16, &cost, None).unwrap_err();
        assert!(err.contains("the topology has 8 devices"), "{err}");
        let err = plan(&demo(), 7, &CostModel::cpu(2), None).unwrap_err();
        assert!(err.contains("no way to split 7 devices"), "{err}");
    }

    #[test]
    fn a_billion_parameters_on_1024_devices() {
        let cfg = gpt_1b();
        let params: usize = cfg.param_types().iter().map(|t| t.num_elements()).sum();
        assert!((1.2e9..1.4e9).contains(&(params as f64)), "{params}");
        for devices in [8, 64, 1024] {
            let plans = plan(&cfg, devices, &CostModel::gpu_cluster(), Some(80 << 30)).unwrap();
            let best = &plans.ranked[0];
            assert_eq!(best.data * best.stages * best.model, devices);
            assert!(best.predicted.memory.total() <= 80 << 30);
        }
    }

    /// The plans with accumulated micro-batches are built as `shardc plan --measure` builds
    /// them (`presets::gpt_step`): the GPT's loss takes a micro-batch's rows from its
    /// tokens, not the config.
    #[test]
    fn an_accumulated_gpt_step_traces_on_micro_batches() {
        let mesh = shardc::Mesh::new("mesh", &[("data", 8), ("model", 1)]).unwrap();
        let ts = crate::presets::gpt_step(
            demo(),
            &mesh,
            crate::strategy::Strategy::zero1(),
            crate::presets::demo_optimizer(),
            2,
        )
        .unwrap();
        let text = shardc_ir::text::print_module(ts.program.module());
        assert!(text.contains("stablehlo.while"), "no accumulation loop");
    }

    #[test]
    fn kendall_tau_counts_pairs_in_the_same_order() {
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[30.0, 20.0, 10.0]), -1.0);
        assert!((kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 30.0, 20.0]) - 1.0 / 3.0).abs() < 1e-12);
        // A tie in one ranking counts as neither order.
        assert!((kendall_tau(&[1.0, 1.0, 3.0], &[10.0, 20.0, 30.0]) - 2.0 / 3.0).abs() < 1e-12);
    }
}
