//! Which mesh and strategies to train a GPT-shaped model with on `N` devices
//! (`shardc plan`): every way of splitting the devices into data, pipeline-stage,
//! context-parallel (sequence) and tensor-parallel axes that the model's shapes allow,
//! each with each way of holding the data axis's state (DDP, ZeRO-1, ZeRO-2, ZeRO-3),
//! with and without per-layer activation recompute, predicted from the cost model's
//! figures and ranked by step time within a memory limit.
//!
//! A step is predicted from per-layer formulas — one layer is planned and the others are
//! the same, so a plan costs microseconds whatever the model's depth or the device count:
//!
//! - compute: each matmul's FLOPs on its local pieces at the cost model's rate for its
//!   size, the other ops' FLOPs at its vector rate, the optimizer update on the state
//!   each device holds (one fused pass: its bytes at the elementwise byte rate);
//!   accumulated micro-batches each a loop iteration's fixed cost and
//!   the adding of its gradients; a pipeline adds its bubble, `(p - 1) / (m + p - 1)` of
//!   the work;
//! - tensor parallelism: two all-reduces of a micro-batch's activations per layer in the
//!   forward pass and two in the backward, not overlapped;
//! - context parallelism (each device a block of every sequence's positions, as
//!   `strategy::Context` and Llama 3 do): every matmul, the scores of its queries against
//!   all keys and the logits divided by the axis; per layer, the keys and values gathered
//!   over the axis in the forward pass and three reduce-scatters of that volume in the
//!   backward (keys', values' and the layer input's gradients), not overlapped; the
//!   parameters' gradients reduced over data x context;
//! - experts (a mixture-of-experts model, [`Experts`]): each token's MLP run by `top_k`
//!   experts in buffers `capacity_factor` times their even share, the experts split over
//!   `e` devices of the data axis (GShard's expert parallelism); per layer, tokens sent to
//!   their experts and back by two all-to-alls over those devices in each forward pass and
//!   two in the backward, not overlapped; the experts' gradients reduced over the `n/e`
//!   devices holding the same experts;
//! - recompute (`models::Remat::Every(RematPolicy::Nothing)`, `torch.utils.checkpoint` per
//!   layer): a second forward pass of every layer in the backward (its tensor-parallel
//!   all-reduces and key/value gathers too), for keeping only each layer's input;
//! - the data axis: DDP's gradient all-reduce (in 25 MB buckets), ZeRO-1's all-reduce
//!   (every device keeps the whole sum, `strategy::Zero1`) and ZeRO-2's reduce-scatter
//!   (one per parameter tensor, each paying a collective's latency) overlap the backward
//!   pass (what does not fit behind it is exposed, and at least one layer's share); the
//!   updated parameters' all-gathers (ZeRO-1/2, one per tensor) are exposed, ZeRO-3's
//!   all-gathers (for each micro-batch's forward and backward pass) overlap their pass
//!   (each issued a layer ahead, as `strategy::Zero3` prefetches);
//! - pipelines: each micro-batch's activations and their gradients between stages;
//! - memory per device: parameters, gradients and AdamW's two moments by the ZeRO stage,
//!   and the activations a layer keeps for the backward (Korthikanti et al.'s
//!   `s·h·(10 + 24/t + 5·a·s/(h·t))` for 16 bits, doubled for f32, over the `s/c`
//!   positions a context axis of `c` leaves a device, plus the gathered keys and values),
//!   or with recompute each layer's input and one layer's activations, times the layers
//!   of a stage and the micro-batches in flight (a pipeline's, or one of a step's
//!   accumulated micro-batches), and one micro-batch's logits.
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

/// Bytes AdamW's update moves per f32 parameter: it reads the parameter, its gradient and
/// both moments, and writes the parameter and the moments.
const ADAMW_UPDATE_BYTES: f64 = 28.0;

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

/// What the planner plans: a GPT's shapes, its MLPs dense or mixtures of experts.
#[derive(Clone, Copy, Debug)]
pub struct Shapes {
    /// The GPT's shapes (with experts, each expert's MLP is the GPT's).
    pub gpt: GptConfig,
    /// Every layer's MLP as experts, or dense.
    pub experts: Option<Experts>,
}

impl From<GptConfig> for Shapes {
    fn from(gpt: GptConfig) -> Shapes {
        Shapes { gpt, experts: None }
    }
}

impl Shapes {
    /// Parameters in all: the GPT's, each layer's MLP counted once per expert, and the
    /// routers.
    pub fn parameters(&self) -> usize {
        let dense: usize = self
            .gpt
            .param_types()
            .iter()
            .map(|t| t.num_elements())
            .sum();
        let d = &self.gpt.block;
        self.experts.map_or(dense, |x| {
            dense + self.gpt.layers * ((x.count - 1) * 2 * d.d_model * d.d_ff + d.d_model * x.count)
        })
    }
}

/// [`gpt_1b`]'s shapes with every MLP as 8 experts, each token routed to 2 (Mixtral's
/// routing, GShard's capacity factor 1.25): 7.0 B parameters, for planning only.
pub fn gpt_1b_moe() -> Shapes {
    Shapes {
        gpt: gpt_1b(),
        experts: Some(Experts {
            count: 8,
            top_k: 2,
            capacity_factor: 1.25,
        }),
    }
}

/// Every layer's MLP as `count` MLPs of the same shape and a router (GShard, Switch):
/// each token goes to `top_k` of them, each expert's buffer holding `capacity_factor`
/// times its even share of the tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experts {
    /// Experts per layer.
    pub count: usize,
    /// Experts each token goes to.
    pub top_k: usize,
    /// Each expert's buffer over its even share of the tokens (1.0-2.0).
    pub capacity_factor: f64,
}

/// A way to train the model on the devices.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Devices along the data axis (the batch split over them).
    pub data: usize,
    /// Pipeline stages (the layers split over them).
    pub stages: usize,
    /// Devices along the context-parallel axis (each sequence's positions split over them).
    pub context: usize,
    /// Devices along the tensor-parallel axis (Megatron's attention heads and MLP columns).
    pub model: usize,
    /// Devices of the data axis the experts split over (1: every device holds them all,
    /// or the model is dense).
    pub expert: usize,
    /// Micro-batches per step: a pipeline's, or without one the gradient accumulation's
    /// (the backward of each before the next forward; one reduction per step).
    pub micro_batches: usize,
    /// How the data axis holds the state (sharded over data x context, as torchtitan's
    /// FSDP is, when there is a context axis).
    pub data_parallel: DataParallel,
    /// Every layer's activations recomputed in the backward pass (only its input kept).
    pub recompute: bool,
    /// The mesh's axes, outermost first (`data`, `stage`, `context`, `model`): the
    /// innermost has consecutive devices, so it stays inside a node when it fits.
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
    /// Of the compute, the forward passes recomputed in the backward.
    pub recompute_s: f64,
    /// Tensor-parallel all-reduces.
    pub tensor_s: f64,
    /// The context axis's key and value gathers and their gradients' reduce-scatters.
    pub context_s: f64,
    /// The experts' all-to-alls: tokens to their experts and back.
    pub expert_s: f64,
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
            if self.expert > 1 {
                parts.push(format!("experts over {} of data", self.expert));
            }
        } else if self.context > 1 && self.data_parallel != DataParallel::Ddp {
            // Sharded over the context axis alone.
            parts.push(self.data_parallel.name().to_string());
        }
        if self.stages > 1 {
            parts.push(format!(
                "pipeline stage={} ({} micro-batches)",
                self.stages, self.micro_batches
            ));
        }
        if self.context > 1 {
            parts.push(format!("context parallel context={}", self.context));
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
        if self.recompute {
            name.push_str(" with recompute");
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

/// Every plan of `shapes` on `devices` devices, predicted by `cost` (its topology, if any,
/// says which links the axes cross), ranked; plans needing more than `memory_per_device`
/// bytes on a device are set apart. The model's batch is the global batch.
pub fn plan(
    shapes: &Shapes,
    devices: usize,
    cost: &CostModel,
    memory_per_device: Option<u64>,
) -> Result<Plans, String> {
    if devices == 0 || devices > MAX_DEVICES {
        return Err(format!(
            "{devices} devices: plan for 1 to {MAX_DEVICES} devices"
        ));
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
    let d = &shapes.gpt.block;
    if let Some(x) = shapes.experts
        && (x.count == 0 || x.top_k == 0 || x.top_k > x.count || x.capacity_factor <= 0.0)
    {
        return Err(format!(
            "experts: {} of them, {} per token, capacity factor {}: give at least one expert, at most that many per token, and a positive capacity factor",
            x.count, x.top_k, x.capacity_factor
        ));
    }
    let cost = cost.for_devices(devices);
    let mut all = Vec::new();
    for model_ways in divisors(devices) {
        // Megatron splits heads and MLP columns.
        if !d.heads.is_multiple_of(model_ways) || !d.d_ff.is_multiple_of(model_ways) {
            continue;
        }
        // Context parallelism splits every sequence's positions.
        for context in divisors(devices / model_ways) {
            if !d.seq.is_multiple_of(context) {
                continue;
            }
            plan_splits(shapes, devices, model_ways, context, &cost, &mut all);
        }
    }
    if all.is_empty() {
        return Err(format!(
            "no way to split {devices} devices for this model: the data axis must divide the batch ({}), the tensor-parallel axis the heads ({}) and the MLP width ({}), the context axis the sequence ({}), the pipeline stages the layers ({}); choose a device count they allow",
            d.batch, d.heads, d.d_ff, d.seq, shapes.gpt.layers
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

/// Every plan with `model_ways`-way tensor and `context`-way context parallelism: the
/// pipeline stages and data axis splitting the remaining devices, their micro-batches,
/// axis orders, ZeRO stages and recompute, predicted into `all`.
fn plan_splits(
    shapes: &Shapes,
    devices: usize,
    model_ways: usize,
    context: usize,
    cost: &CostModel,
    all: &mut Vec<Plan>,
) {
    let d = &shapes.gpt.block;
    for stages in divisors(devices / model_ways / context) {
        if !shapes.gpt.layers.is_multiple_of(stages) {
            continue;
        }
        let data = devices / model_ways / context / stages;
        if !d.batch.is_multiple_of(data) {
            continue;
        }
        let local = d.batch / data;
        let micro_batch_counts = if stages == 1 {
            // Gradient accumulation: any number of micro-batches dividing the rows, up to
            // `MAX_MICRO_BATCHES`.
            (1..=local.min(MAX_MICRO_BATCHES))
                .filter(|&m| local.is_multiple_of(m))
                .collect()
        } else {
            // Enough micro-batches to keep the bubble small, each at least a sequence.
            vec![
                (1..=local.min(4 * stages))
                    .filter(|&m| local.is_multiple_of(m))
                    .max()
                    .unwrap_or(1),
            ]
        };
        let orders: Vec<Vec<(&'static str, usize)>> = {
            let inner_model = vec![
                ("data", data),
                ("stage", stages),
                ("context", context),
                ("model", model_ways),
            ];
            let inner_data = vec![
                ("model", model_ways),
                ("context", context),
                ("stage", stages),
                ("data", data),
            ];
            if cost.topology.is_some() && data > 1 && model_ways > 1 {
                vec![inner_model, inner_data]
            } else {
                vec![inner_model]
            }
        };
        // Experts split over some devices of the data axis (dividing both).
        let expert_ways: Vec<usize> = match shapes.experts {
            Some(x) => divisors(data)
                .into_iter()
                .filter(|e| x.count.is_multiple_of(*e))
                .collect(),
            None => vec![1],
        };
        let stage_kinds: &[DataParallel] = if data * context > 1 {
            &DataParallel::ALL
        } else {
            &[DataParallel::Ddp]
        };
        for axes in orders {
            for &data_parallel in stage_kinds {
                for &micro_batches in &micro_batch_counts {
                    for &expert in &expert_ways {
                        for recompute in [false, true] {
                            let mut p = Plan {
                                data,
                                stages,
                                context,
                                model: model_ways,
                                expert,
                                micro_batches,
                                data_parallel,
                                recompute,
                                axes: axes.clone(),
                                predicted: Predicted::default(),
                            };
                            p.predicted = predict(shapes, &p, cost);
                            all.push(p);
                        }
                    }
                }
            }
        }
    }
}

/// The most devices [`plan`] plans for (2^20): beyond, the splits to weigh run into the
/// millions.
pub const MAX_DEVICES: usize = 1 << 20;

/// The most micro-batches a step is accumulated in that [`plan`] weighs.
pub const MAX_MICRO_BATCHES: usize = 1024;

/// The divisors of `n`, increasing (pairs up to its square root).
fn divisors(n: usize) -> Vec<usize> {
    let (mut low, mut high) = (Vec::new(), Vec::new());
    let mut k = 1;
    while k * k <= n {
        if n.is_multiple_of(k) {
            low.push(k);
            if k * k != n {
                high.push(n / k);
            }
        }
        k += 1;
    }
    low.extend(high.into_iter().rev());
    low
}

/// What a data-axis collective runs behind.
#[derive(Clone, Copy)]
enum Behind {
    Forward,
    Backward,
    Nothing,
}

/// A collective over the devices of one axis.
#[derive(Clone, Copy)]
enum Collective {
    AllReduce,
    ReduceScatter,
    Gather,
    AllToAll,
}

/// The group of a collective holding device 0: its devices when a topology needs them
/// (which nodes they are on), else only how many (a group of a million devices is not
/// listed for every plan).
enum Group {
    Devices(Vec<usize>),
    Count(usize),
}

impl Group {
    /// The group of `names` (axes of `axes`): consecutive devices along the innermost
    /// axis, strided by the axes inside it otherwise; listed when `listed`.
    fn of(axes: &[(&str, usize)], names: &[&str], listed: bool) -> Group {
        if !listed {
            let n = axes.iter().filter(|a| names.contains(&a.0)).map(|a| a.1);
            return Group::Count(n.product());
        }
        let mut devices = vec![0];
        for (at, &(name, size)) in axes.iter().enumerate() {
            if !names.contains(&name) {
                continue;
            }
            let stride: usize = axes[at + 1..].iter().map(|a| a.1).product();
            devices = devices
                .iter()
                .flat_map(|&d| (0..size).map(move |i| d + i * stride))
                .collect();
        }
        // Outer axes step further than all the inner ones together: in order already.
        Group::Devices(devices)
    }

    fn len(&self) -> usize {
        match self {
            Group::Devices(d) => d.len(),
            Group::Count(n) => *n,
        }
    }

    /// Its first `k` devices.
    fn first(&self, k: usize) -> Group {
        match self {
            Group::Devices(d) => Group::Devices(d[..k.min(d.len())].to_vec()),
            Group::Count(n) => Group::Count(k.min(*n)),
        }
    }

    /// Every `k`-th of its devices, from the first.
    fn every(&self, k: usize) -> Group {
        match self {
            Group::Devices(d) => Group::Devices(d.iter().copied().step_by(k).collect()),
            Group::Count(n) => Group::Count(n.div_ceil(k)),
        }
    }
}

/// Seconds and link class of one collective of `bytes` (the full buffer) over `group`.
fn collective(
    cost: &CostModel,
    group: &Group,
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
        Collective::ReduceScatter | Collective::Gather | Collective::AllToAll => (n - 1.0) / n,
    };
    let sent = factor * bytes;
    match (&cost.topology, group) {
        (Some(t), Group::Devices(group)) => {
            let crosses = group.iter().any(|&g| t.node_of(g) != t.node_of(group[0]));
            let class = if crosses { "inter" } else { "intra" };
            let seconds = match kind {
                Collective::AllReduce => {
                    let ring = t.ring_all_reduce_s(group, bytes as u64);
                    t.hierarchical_all_reduce_s(group, bytes as u64)
                        .map_or(ring, |h| h.min(ring))
                }
                Collective::ReduceScatter | Collective::Gather | Collective::AllToAll => {
                    t.ring_link(group).time(sent)
                }
            };
            (seconds, class, sent)
        }
        _ => (
            // Through shared memory when the buffer is large enough (the gathered
            // buffer of a gather, the operand of a reduce-scatter: an upper bound).
            cost.latency_of(group.len())
                + sent
                    / cost.collective_bandwidth(
                        cost.default_bandwidth,
                        bytes as u64,
                        !matches!(kind, Collective::Gather | Collective::AllToAll),
                    ),
            "link",
            sent,
        ),
    }
}

/// A plan's step on `cost`'s machine.
pub fn predict(shapes: &Shapes, p: &Plan, cost: &CostModel) -> Predicted {
    let (gpt, experts) = (&shapes.gpt, shapes.experts);
    // Groups' devices are listed only for a topology to place them on.
    let listed = cost.topology.is_some();
    let d = &gpt.block;
    let (h, s, a, f, v) = (
        d.d_model as f64,
        d.seq as f64,
        d.heads as f64,
        d.d_ff as f64,
        gpt.vocab as f64,
    );
    let t = p.model as f64;
    let c = p.context as f64;
    let layers = (gpt.layers / p.stages) as f64;
    let local_seqs = (d.batch / p.data) as f64;
    let mb_seqs = local_seqs / p.micro_batches as f64;
    // A device's positions: its block of each sequence.
    let tokens = local_seqs * s / c;
    // One layer's matmuls on a micro-batch (forward): q, k, v and out (4h² per token),
    // the MLP (2·h·f), attention scores and context (2·s·h per token: a device's queries
    // against every key), each split t ways.
    let mb_tokens = mb_seqs * s / c;
    let dot = |class: DotClass, flops: f64| flops / cost.dot_rate(class, flops);
    // With experts, each token's MLP runs `top_k` times in buffers `capacity_factor`
    // times their share, after the router's scores.
    let (routed, count) = experts.map_or((1.0, 0.0), |x| {
        (x.top_k as f64 * x.capacity_factor, x.count as f64)
    });
    let layer_fwd = dot(DotClass::Square, 2.0 * mb_tokens * 4.0 * h * h / t)
        + dot(DotClass::Square, 2.0 * mb_tokens * 2.0 * h * f / t * routed)
        + dot(DotClass::Batched, 2.0 * mb_tokens * 2.0 * s * h / t)
        + dot(DotClass::Square, 2.0 * mb_tokens * h * count);
    // Elementwise and reductions: layer norms, softmax, GELU, residuals (~8 FLOPs per
    // element they touch).
    let layer_vec =
        8.0 * mb_tokens * (6.0 * h + (2.0 * f * routed + 2.0 * a * s) / t) / cost.vector_flops;
    // Forward and backward (twice the forward) of every layer and micro-batch, and with
    // recompute the forward once more.
    let forwards = if p.recompute { 2.0 } else { 1.0 };
    let one_pass = (layer_fwd + layer_vec) * layers * p.micro_batches as f64;
    let body = (forwards + 2.0) * one_pass;
    let recompute = (forwards - 1.0) * one_pass;
    // The embedding lookup and the logits (replicated over the model axis, as the demo's
    // specs have it), on the last stage.
    let head = 3.0 * dot(DotClass::Square, 2.0 * tokens * h * v);
    // Parameters: blocks split over model and stages; embeddings, positions and the final
    // norm on every device. With experts, a layer's MLP (2·h·f) is `count` of them and a
    // router (h·count), the experts split over `e` devices of the data axis too.
    let block_types = crate::models::block_weight_types(d);
    let shared_params = v * h + s * h + 2.0 * h;
    let dense_block = block_types.iter().map(|t| t.num_elements()).sum::<usize>() as f64;
    let (other_block, expert_block) = match experts {
        Some(_) => (dense_block - 2.0 * h * f + h * count, count * 2.0 * h * f),
        None => (dense_block, 0.0),
    };
    let e = p.expert as f64;
    // Parameters a device holds before ZeRO splits them: replicated over the `n` devices
    // of data x context (the experts over `n / e` of them).
    let params = other_block / t * layers + shared_params;
    let expert_params = expert_block / t / e * layers;
    let n = (p.data * p.context) as f64;
    let zero = |n: f64| match p.data_parallel {
        DataParallel::Ddp => (1.0, 1.0, 1.0),
        DataParallel::Zero1 => (1.0, 1.0, n),
        DataParallel::Zero2 => (1.0, n, n),
        DataParallel::Zero3 => (n, n, n),
    };
    // Bytes per element of each kind held: parameters, gradients, AdamW's two moments.
    let held = |bytes: f64, k: usize| {
        let (dense, routed) = (zero(n), zero(n / e));
        let of = |z: (f64, f64, f64)| [z.0, z.1, z.2][k];
        bytes * (params / of(dense) + expert_params / of(routed))
    };
    // The optimizer update is one fused elementwise pass over the state a device
    // updates, as the kernels run it: its cost is its traffic, AdamW reading a parameter,
    // its gradient and two moments and writing back the parameter and the moments.
    let updated = params / zero(n).2 + expert_params / zero(n / e).2;
    let update = ADAMW_UPDATE_BYTES * updated / cost.elementwise_bytes_per_s();
    // Accumulated micro-batches (without a pipeline) run as a loop: each iteration pays
    // the loop's fixed cost and adds its gradients to the accumulators.
    let accumulate = if p.stages == 1 && p.micro_batches > 1 {
        let m = p.micro_batches as f64;
        m * ((params + expert_params) / cost.vector_flops + cost.loop_iteration)
    } else {
        0.0
    };
    let work = body + head + update + accumulate;
    let bubble = if p.stages > 1 {
        body * (p.stages - 1) as f64 / p.micro_batches as f64
    } else {
        0.0
    };
    let mut bytes_per_link: BTreeMap<String, u64> = BTreeMap::new();
    let mut add = |class: &str, b: f64| {
        *bytes_per_link.entry(class.to_string()).or_default() += b as u64;
    };
    // Tensor parallelism: 4 all-reduces of a micro-batch's activations per layer, and the
    // forward's 2 again when it is recomputed.
    let mut tensor = 0.0;
    if p.model > 1 {
        let (sec, class, sent) = collective(
            cost,
            &Group::of(&p.axes, &["model"], listed),
            mb_tokens * h * 4.0,
            Collective::AllReduce,
        );
        let count = (2.0 * forwards + 2.0) * layers * p.micro_batches as f64;
        tensor = sec * count;
        add(class, sent * count);
    }
    // Context parallelism: each layer's keys and values (this device's heads, every
    // position) gathered in each forward pass; their gradients and the layer input's
    // reduce-scattered back to positions in the backward.
    let mut context = 0.0;
    if p.context > 1 {
        let g = Group::of(&p.axes, &["context"], listed);
        let gathered = mb_seqs * s * h / t * 4.0;
        let per_layer = layers * p.micro_batches as f64;
        for (kind, count) in [
            (Collective::Gather, 2.0 * forwards * per_layer),
            (Collective::ReduceScatter, 3.0 * per_layer),
        ] {
            let (sec, class, sent) = collective(cost, &g, gathered, kind);
            context += sec * count;
            add(class, sent * count);
        }
    }
    // Experts: each layer's tokens to their experts and back, in each forward pass and in
    // the backward, by all-to-alls over the devices holding different experts.
    let mut expert = 0.0;
    if p.expert > 1 {
        let g = Group::of(&p.axes, &["data"], listed).first(p.expert);
        let (sec, class, sent) =
            collective(cost, &g, mb_tokens * routed * h * 4.0, Collective::AllToAll);
        let count = (2.0 * forwards + 2.0) * layers * p.micro_batches as f64;
        expert = sec * count;
        add(class, sent * count);
    }
    // The data axis: the gradients of the device's parameters, reduced over data x
    // context. DDP all-reduces them in buckets of 25 MB (the strategy's `bucket_bytes`);
    // the ZeRO stages reduce-scatter and gather each parameter on its own, paying a
    // collective's latency per tensor.
    let mut data_exposed = 0.0;
    if n > 1.0 {
        let g = Group::of(&p.axes, &["data", "context"], listed);
        // The experts' replicas: the devices holding the same experts (every `e`-th of
        // the data axis, with the context axis).
        let replicas = g.every(p.expert);
        // Seconds behind the forward pass, behind the backward, and exposed.
        let (mut forward, mut backward, mut exposed) = (0.0, 0.0, 0.0);
        // The embeddings, positions, final norm's two, and every layer's.
        let tensors = (4 + block_types.len() * gpt.layers) as f64;
        // Dense parameters over `g`, the experts (two tensors a layer) over their replicas.
        for (group, grads, tensors) in [
            (&g, params * 4.0, tensors),
            (&replicas, expert_params * 4.0, 2.0 * layers),
        ] {
            if grads == 0.0 || group.len() < 2 {
                continue;
            }
            // `count` collectives moving `bytes` in all.
            let per = |kind, bytes: f64, count: f64| {
                let (sec, class, sent) = collective(cost, group, bytes / count, kind);
                (sec * count, class, sent * count)
            };
            let mut charge = |(sec, class, sent): (f64, &str, f64), behind: Behind| {
                add(class, sent);
                *match behind {
                    Behind::Forward => &mut forward,
                    Behind::Backward => &mut backward,
                    Behind::Nothing => &mut exposed,
                } += sec;
            };
            let buckets = (grads / (25u64 << 20) as f64).ceil().max(1.0);
            match p.data_parallel {
                DataParallel::Ddp => {
                    charge(per(Collective::AllReduce, grads, buckets), Behind::Backward)
                }
                DataParallel::Zero1 => {
                    charge(per(Collective::AllReduce, grads, tensors), Behind::Backward);
                    charge(per(Collective::Gather, grads, tensors), Behind::Nothing);
                }
                DataParallel::Zero2 => {
                    charge(
                        per(Collective::ReduceScatter, grads, tensors),
                        Behind::Backward,
                    );
                    charge(per(Collective::Gather, grads, tensors), Behind::Nothing);
                }
                DataParallel::Zero3 => {
                    // Gathered for each micro-batch's forward, each a layer ahead
                    // (`strategy::Zero3`'s prefetch), and again for its backward;
                    // gradients reduce-scattered.
                    let m = p.micro_batches as f64;
                    let gathers = per(Collective::Gather, grads * m, tensors * m);
                    charge(gathers, Behind::Forward);
                    charge(gathers, Behind::Backward);
                    charge(
                        per(Collective::ReduceScatter, grads, tensors),
                        Behind::Backward,
                    );
                }
            }
        }
        // What does not fit behind its pass is exposed, and at least one layer's share.
        let over = |sec: f64, pass: f64| (sec - pass).max(sec / layers.max(1.0));
        data_exposed = exposed + over(forward, one_pass) + over(backward, body - one_pass);
    }
    // Pipelines: each micro-batch's activations forward and their gradients back.
    let mut pipeline = 0.0;
    if p.stages > 1 {
        let pair = Group::of(&p.axes, &["stage"], listed).first(2);
        let (sec, class, _) = collective(cost, &pair, mb_tokens * h * 4.0, Collective::Gather);
        // A pair's "gather" sends the whole buffer once: a point-to-point message.
        let count = 2.0 * p.micro_batches as f64;
        pipeline = sec * count;
        add(class, mb_tokens * h * 4.0 * count);
    }
    // Activations kept per layer and sequence (f32): a device's `s/c` positions, their
    // scores against every key, and with a context axis the gathered keys and values.
    // With recompute a layer keeps its input, and the layer being recomputed all of it.
    let kv = if p.context > 1 {
        2.0 * s * h / t * 4.0
    } else {
        0.0
    };
    // With experts, the MLP's share of them (3 + 16/t of the 34) for each routed copy.
    let per_seq_layer = 2.0 * (s / c) * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t))
        + 2.0 * (s / c) * h * (3.0 + 16.0 / t) * (routed - 1.0)
        + kv;
    let per_seq = if p.recompute {
        (s / c) * h * 4.0 * layers + per_seq_layer
    } else {
        per_seq_layer * layers
    };
    // The micro-batches in flight (1F1B: as many as stages, at most all).
    let in_flight = if p.stages > 1 {
        (p.stages.min(p.micro_batches) as f64) * mb_seqs
    } else {
        mb_seqs
    };
    // The logits of a micro-batch (the loss is computed one micro-batch at a time).
    let activations = per_seq * in_flight + mb_tokens * v * 4.0;
    let memory = Memory {
        params: held(4.0, 0) as u64,
        grads: held(4.0, 1) as u64,
        optimizer: held(8.0, 2) as u64,
        activations: activations as u64,
    };
    let compute = work + bubble;
    Predicted {
        step_s: compute + tensor + context + expert + data_exposed + pipeline,
        compute_s: compute,
        bubble_s: bubble,
        recompute_s: recompute,
        tensor_s: tensor,
        context_s: context,
        expert_s: expert,
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
        let plans = plan(&demo().into(), 8, &cost, None).unwrap();
        // Tensor parallelism 1, 2 or 4 (4 heads); stages dividing 4 layers; data the
        // rest; 4 ZeRO stages where data > 1, one plan where it is 1; without a pipeline,
        // as many plans again as the counts of micro-batches dividing a device's 16/data
        // sequences (1, 2, 4, ...).
        let mut want = 0;
        for t in [1usize, 2, 4] {
            // Context parallelism: any count dividing the 64 positions.
            for c in [1usize, 2, 4, 8] {
                for p in [1usize, 2, 4, 8] {
                    if 8 % (t * c * p) != 0 || 4 % p != 0 {
                        continue;
                    }
                    let data = 8 / (t * c * p);
                    let kinds = if data * c > 1 { 4 } else { 1 };
                    let counts = if p == 1 {
                        (16 / data).trailing_zeros() as usize + 1
                    } else {
                        1
                    };
                    // With and without recompute.
                    want += kinds * counts * 2;
                }
            }
        }
        assert_eq!(plans.considered, want);
        assert_eq!(plans.ranked.len(), want);
        for p in &plans.ranked {
            assert_eq!(p.data * p.stages * p.context * p.model, 8, "{}", p.name());
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
        let plans = plan(&cfg.into(), 8, &CostModel::cpu(2), None).unwrap();
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
                .find(|p| p.data == 8 && p.data_parallel == dp && !p.recompute)
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
        let all = plan(&cfg.into(), 8, &CostModel::cpu(2), None).unwrap();
        let ddp = all
            .ranked
            .iter()
            .find(|p| {
                p.data == 8
                    && p.data_parallel == DataParallel::Ddp
                    && p.micro_batches == 1
                    && !p.recompute
            })
            .unwrap();
        let limit = ddp.predicted.memory.total() - 1;
        let within = plan(&cfg.into(), 8, &CostModel::cpu(2), Some(limit)).unwrap();
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
        let plans = plan(&gpt_1b().into(), 8, &cost, None).unwrap();
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
                        && !p.recompute
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
        let err = plan(&gpt_1b().into(), 16, &cost, None).unwrap_err();
        assert!(err.contains("the topology has 8 devices"), "{err}");
        let err = plan(&demo().into(), 7, &CostModel::cpu(2), None).unwrap_err();
        assert!(err.contains("no way to split 7 devices"), "{err}");
    }

    #[test]
    fn a_billion_parameters_on_1024_devices() {
        let cfg = gpt_1b();
        let params: usize = cfg.param_types().iter().map(|t| t.num_elements()).sum();
        assert!((1.2e9..1.4e9).contains(&(params as f64)), "{params}");
        for devices in [8, 64, 1024] {
            let plans = plan(
                &cfg.into(),
                devices,
                &CostModel::gpu_cluster(),
                Some(80 << 30),
            )
            .unwrap();
            let best = &plans.ranked[0];
            assert_eq!(best.data * best.stages * best.context * best.model, devices);
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

    /// The plan of `cfg` on `devices` with these axes, DDP, one micro-batch.
    fn find(cfg: &GptConfig, data: usize, context: usize, model: usize, recompute: bool) -> Plan {
        let devices = data * context * model;
        plan(&(*cfg).into(), devices, &CostModel::cpu(2), None)
            .unwrap()
            .ranked
            .into_iter()
            .find(|p| {
                (
                    p.data,
                    p.stages,
                    p.context,
                    p.model,
                    p.micro_batches,
                    p.recompute,
                ) == (data, 1, context, model, 1, recompute)
                    && p.data_parallel == DataParallel::Ddp
            })
            .unwrap()
    }

    /// A context axis of 2 beside data 4 against data 8: the same tokens per device (twice
    /// the sequences, half the positions), so the same compute; per layer two gathers of
    /// the keys and values and three reduce-scatters of that volume over the context
    /// pairs, the gradients still all-reduced over all 8 devices; activations per layer
    /// the positions' share plus the gathered keys and values.
    #[test]
    fn context_parallelism_gathers_keys_and_values_per_layer() {
        let cfg = demo();
        let (d, layers) = (cfg.block, cfg.layers as f64);
        let flat = find(&cfg, 8, 1, 1, false);
        let cp = find(&cfg, 4, 2, 1, false);
        assert_eq!(cp.name(), "DDP data=4 x context parallel context=2");
        assert!((cp.predicted.compute_s / flat.predicted.compute_s - 1.0).abs() < 1e-9);
        assert_eq!(flat.predicted.context_s, 0.0);
        assert!(cp.predicted.context_s > 0.0);
        // Keys (or values) of a device's 4 sequences, every position, f32; half of each
        // gathered buffer comes from the other device of the pair.
        let gathered = (4 * d.seq * d.d_model * 4) as f64;
        let context_bytes = layers * (2.0 + 3.0) * gathered / 2.0;
        let link = |p: &Plan| p.predicted.bytes_per_link["link"] as f64;
        assert!(
            (link(&cp) - link(&flat) - context_bytes).abs() < 16.0,
            "{} vs {} + {context_bytes}",
            link(&cp),
            link(&flat)
        );
        // Activations: per sequence and layer 2·s·h·(10 + 24 + 5·a·s/h) bytes over its
        // half of the positions, plus 2·s·h·4 of keys and values; the logits.
        let (s, h, a) = (d.seq as f64, d.d_model as f64, d.heads as f64);
        let per_seq_layer = 2.0 * (s / 2.0) * h * (34.0 + 5.0 * a * s / h) + 8.0 * s * h;
        let want = per_seq_layer * layers * 4.0 + 4.0 * (s / 2.0) * cfg.vocab as f64 * 4.0;
        let got = cp.predicted.memory.activations as f64;
        assert!((got - want).abs() <= 1.0, "{got} vs {want}");
    }

    /// Recompute runs every layer's forward pass again in the backward pass: a third more
    /// layer compute, the forward's tensor-parallel all-reduces again (6 a layer, not
    /// 4), and only each layer's input kept beside one layer's activations.
    #[test]
    fn recompute_trades_a_forward_pass_for_the_activations() {
        let cfg = demo();
        let (d, layers) = (cfg.block, cfg.layers as f64);
        let kept = find(&cfg, 4, 1, 2, false);
        let again = find(&cfg, 4, 1, 2, true);
        assert!(again.name().ends_with("with recompute"), "{}", again.name());
        assert_eq!(kept.predicted.recompute_s, 0.0);
        let extra = again.predicted.compute_s - kept.predicted.compute_s;
        assert!((extra - again.predicted.recompute_s).abs() < 1e-12);
        assert!(again.predicted.recompute_s > 0.0);
        assert!((again.predicted.tensor_s / kept.predicted.tensor_s - 1.5).abs() < 1e-9);
        let (s, h) = (d.seq as f64, d.d_model as f64);
        let logits = 4.0 * s * cfg.vocab as f64 * 4.0;
        let full = (kept.predicted.memory.activations as f64 - logits) / layers / 4.0;
        let want = 4.0 * (s * h * 4.0 * layers + full) + logits;
        let got = again.predicted.memory.activations as f64;
        assert!((got - want).abs() <= 2.0, "{got} vs {want}");
        assert!(got < kept.predicted.memory.activations as f64 / 2.0);
    }

    /// Sequences of 8,192 positions: a sequence's activations of one layer (its scores
    /// above all) are 12 GB, 285 GB for the 24 layers, so every plan within 80 GB splits
    /// the positions (context parallelism), the heads (tensor parallelism) or recomputes,
    /// and context parallelism alone fits.
    #[test]
    fn long_sequences_fit_only_when_split_or_recomputed() {
        let mut cfg = gpt_1b();
        cfg.block.seq = 8192;
        cfg.block.batch = 8;
        let plans = plan(&cfg.into(), 8, &CostModel::gpu_cluster(), Some(80 << 30)).unwrap();
        assert!(!plans.ranked.is_empty());
        for p in &plans.ranked {
            assert!(
                p.context > 1 || p.model > 1 || p.recompute,
                "{} fits",
                p.name()
            );
        }
        assert!(
            plans
                .ranked
                .iter()
                .any(|p| p.context > 1 && p.model == 1 && !p.recompute)
        );
        assert!(
            plans
                .over_budget
                .iter()
                .any(|p| p.context == 1 && p.model == 1 && !p.recompute)
        );
    }

    /// The 1.3 B GPT with 8 experts a layer, 2 per token, on 64 devices: the experts split
    /// over 8 devices of the data axis hold an eighth of the experts' parameters, send each
    /// layer's routed tokens by 4 all-to-alls (2 forward, 2 backward), and reduce the
    /// experts' gradients over the 8 devices holding the same experts; without the split,
    /// DDP's 16 bytes per parameter of 7 B parameters do not fit 80 GB.
    #[test]
    fn experts_split_over_the_data_axis_send_tokens_by_all_to_all() {
        let m = gpt_1b_moe();
        let x = m.experts.unwrap();
        let (g, d) = (m.gpt, m.gpt.block);
        assert!(
            (6.9e9..7.0e9).contains(&(m.parameters() as f64)),
            "{}",
            m.parameters()
        );
        let plans = plan(&m, 64, &CostModel::gpu_cluster(), None).unwrap();
        let of = |e: usize| {
            plans
                .ranked
                .iter()
                .find(|p| {
                    (p.data, p.expert, p.micro_batches, p.recompute) == (64, e, 1, false)
                        && p.data_parallel == DataParallel::Ddp
                })
                .unwrap()
        };
        let (all, split) = (of(1), of(8));
        assert_eq!(split.name(), "DDP data=64 x experts over 8 of data");
        assert_eq!(all.predicted.expert_s, 0.0);
        assert!(split.predicted.expert_s > 0.0);
        let (h, f) = (d.d_model as f64, d.d_ff as f64);
        let experts = g.layers as f64 * x.count as f64 * 2.0 * h * f;
        let dense = m.parameters() as f64 - experts;
        assert_eq!(
            all.predicted.memory.params as f64,
            (4.0 * m.parameters() as f64).floor()
        );
        assert_eq!(
            split.predicted.memory.params as f64,
            (4.0 * (dense + experts / 8.0)).floor()
        );
        // Bytes: the all-to-alls, 7/8 of each routed buffer (4 sequences of 2048 tokens,
        // 2.5 copies each), and the gradients' all-reduces: the dense parameters' over 64
        // devices, the experts' over 8.
        let tokens = 4.0 * d.seq as f64;
        let a2a = 4.0 * g.layers as f64 * tokens * 2.5 * h * 4.0 * 7.0 / 8.0;
        let ring = |n: f64, p: f64| 2.0 * (n - 1.0) / n * p * 4.0;
        let want = a2a + ring(64.0, dense) + ring(8.0, experts / 8.0);
        let got = split.predicted.bytes_per_link["link"] as f64;
        assert!((got / want - 1.0).abs() < 1e-6, "{got} vs {want}");
        let within = plan(&m, 64, &CostModel::gpu_cluster(), Some(80 << 30)).unwrap();
        assert!(within.ranked.iter().any(|p| p.expert > 1));
        // Every DDP plan that fits splits the parameters: the experts, or by tensor
        // parallelism or pipeline stages.
        for p in within
            .ranked
            .iter()
            .filter(|p| p.data_parallel == DataParallel::Ddp && p.model * p.stages == 1)
        {
            assert!(p.expert > 1, "{} fits", p.name());
        }
        // Experts nobody can run are refused.
        let bad = Shapes {
            experts: Some(Experts { top_k: 9, ..x }),
            ..m
        };
        let err = plan(&bad, 8, &CostModel::gpu_cluster(), None).unwrap_err();
        assert!(err.contains("9 per token"), "{err}");
    }

    /// ZeRO-1 all-reduces its gradients (every device keeps the sum) before gathering the
    /// updated parameters: a ring all-reduce's bytes plus a gather's, where ZeRO-2 sends a
    /// reduce-scatter's and a gather's; ZeRO-3 gathers for every micro-batch; accumulated
    /// micro-batches each pay a loop iteration and the adding of the gradients.
    #[test]
    fn the_data_axis_moves_what_each_stage_moves() {
        let cfg = demo();
        let cost = CostModel::cpu(2);
        let plans = plan(&cfg.into(), 8, &cost, None).unwrap();
        let of = |dp: DataParallel, m: usize| {
            plans
                .ranked
                .iter()
                .find(|p| {
                    (p.data, p.micro_batches, p.recompute) == (8, m, false) && p.data_parallel == dp
                })
                .unwrap()
        };
        let bytes = |p: &Plan| p.predicted.bytes_per_link["link"] as f64;
        let grads = of(DataParallel::Ddp, 1).predicted.memory.grads as f64;
        let ring = 2.0 * 7.0 / 8.0 * grads;
        assert!((bytes(of(DataParallel::Zero1, 1)) - 1.5 * ring).abs() < 64.0);
        assert!((bytes(of(DataParallel::Zero2, 1)) - ring).abs() < 64.0);
        // ZeRO-3: two gathers per micro-batch and one reduce-scatter.
        let zero3 = |m: usize| bytes(of(DataParallel::Zero3, m));
        assert!((zero3(1) - 1.5 * ring).abs() < 64.0);
        assert!((zero3(2) - 2.5 * ring).abs() < 64.0);
        let (one, two) = (of(DataParallel::Ddp, 1), of(DataParallel::Ddp, 2));
        let cost = cost.for_devices(8);
        let params = grads / 4.0;
        let loop_cost = 2.0 * (params / cost.vector_flops + cost.loop_iteration);
        assert!(two.predicted.compute_s - one.predicted.compute_s >= loop_cost);
    }

    #[test]
    fn a_group_over_two_axes_holds_their_devices() {
        let axes = [("data", 2), ("stage", 1), ("context", 2), ("model", 2)];
        let devices = |names: &[&str]| match Group::of(&axes, names, true) {
            Group::Devices(d) => d,
            Group::Count(_) => unreachable!("listed"),
        };
        assert_eq!(devices(&["model"]), vec![0, 1]);
        assert_eq!(devices(&["context"]), vec![0, 2]);
        assert_eq!(devices(&["data"]), vec![0, 4]);
        assert_eq!(devices(&["data", "context"]), vec![0, 2, 4, 6]);
        let listed = Group::of(&axes, &["data", "context"], true);
        assert_eq!(listed.every(2).len(), 2);
        assert_eq!(listed.first(3).len(), 3);
        // Counted, not listed, without a topology.
        let counted = Group::of(&axes, &["data", "context"], false);
        assert!(matches!(counted, Group::Count(4)));
        assert_eq!(counted.every(2).len(), 2);
        assert_eq!(counted.first(3).len(), 3);
    }

    #[test]
    fn divisors_come_in_order_and_huge_requests_are_refused_quickly() {
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(divisors(13), vec![1, 13]);
        let cost = CostModel::cpu(2);
        for devices in [0, MAX_DEVICES + 1, 1_000_000_000_007] {
            let err = plan(&demo().into(), devices, &cost, None).unwrap_err();
            assert!(err.contains("plan for 1 to"), "{err}");
        }
        // A batch of 2^40 sequences: micro-batch counts stop at `MAX_MICRO_BATCHES`.
        let mut cfg = demo();
        cfg.block.batch = 1 << 40;
        let start = std::time::Instant::now();
        let plans = plan(&cfg.into(), 4096, &cost, None).unwrap();
        assert!(start.elapsed().as_secs_f64() < 10.0);
        assert!(
            plans
                .ranked
                .iter()
                .all(|p| p.micro_batches <= MAX_MICRO_BATCHES)
        );
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
