//! Propagation: derive every layout the program could use, by equality saturation.
//!
//! Seeds are the user's annotations: argument shardings (an argument arrives in its
//! layout), sharding constraints and per-op shardings (the value is produced in that
//! layout), and result shardings (the value is delivered in that layout). Rewrites,
//! all derived from the ops' factor rules, then add physical values to the e-graph:
//!
//! - *through an op* (forward and backward at once): every layout a neighbour of the op
//!   has is projected onto the op's factors; projections that agree are merged, and each
//!   merged assignment that the op can run locally adds the op, on operands in the
//!   layouts the assignment implies, to the class of its result in the implied layout;
//! - *resharding*: whenever a value gains a layout, collective plans connect it with the
//!   value's other layouts, both ways (`reshard::plan`, which also adds the algebra
//!   alternatives such as reduce-scatter versus all-reduce then slice).
//!
//! A layout enters the graph only when a rule derives it from a neighbour, so the graph
//! stays proportional to the program times the few layouts the annotations imply. The node,
//! visit and time limits are [`Options`]; hitting one stops saturation and is recorded in
//! the [`Report`] (and shown by `explain`), never silent.

use crate::error::CompileError;
use crate::local::linear::{Linearity, linearity};
use crate::local::loops::LoopPlan;
use crate::sharding::cost::CostModel;
use crate::sharding::egraph::{LayoutId, PGraph, PNode, PlanId, ValueOf};
use crate::sharding::layout::{CombinerKey, FactorAxes, Layout, project_with, sole_factor};
use crate::sharding::reshard;
use egg::Id;
use serde::Serialize;
use shardc_ir::rules::{Combiner, FactorKind, OpRule, TensorRef, op_rule};
use shardc_ir::{
    AxisRef, Function, Mesh, Module, OpId, OpKind, Sharding, Uneven, ValueDef, ValueId,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Limits and the cost model. The limits can also be set with the environment variables
/// `SHARDC_NODE_LIMIT`, `SHARDC_VISIT_LIMIT` and `SHARDC_TIME_LIMIT_MS`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop adding nodes past this many e-nodes.
    pub node_limit: usize,
    /// Stop after visiting ops this many times the number of ops.
    pub visit_limit: usize,
    /// Wall time saturation may take before it stops (`SHARDC_TIME_LIMIT_MS`). Unlike
    /// the node and visit limits, where it stops depends on the machine's load: processes
    /// that compile the same program apart and must agree on the result (the mpi
    /// backend's ranks) use [`Options::deterministic`].
    pub time_limit: Duration,
    /// The cost model extraction optimises with (the backend's figures).
    pub cost: CostModel,
    /// Fuse all-reduces into buckets of at most this many bytes after partitioning
    /// (`bucket.rs`; PyTorch DDP uses 25 MB). `None` (the library's default, so that
    /// `explain` lists one collective per reduction): no bucketing. The CLI buckets at
    /// [`DEFAULT_BUCKET_BYTES`] unless told otherwise.
    pub bucket_bytes: Option<usize>,
    /// Gather arguments again before reads more than this many ops after the previous
    /// read (`regather.rs`; FSDP's free-after-forward). `None`: keep gathered copies.
    pub regather_gap: Option<usize>,
    /// Issue each all-gather of an argument this many such gathers early (`prefetch.rs`;
    /// FSDP's forward and backward prefetch). 0: gathers stay where partitioning and
    /// regathering put them.
    pub prefetch: usize,
    /// Decompose all-gathers feeding dots and dots feeding reduce-scatters into ring steps
    /// that overlap the communication with the products (`decompose.rs`; collective
    /// matmul): off (the default), where the cost model predicts the program faster so, or
    /// always (`shardc compile --collective-matmul [auto|always]`).
    pub collective_matmul: crate::passes::decompose::CollectiveMatmul,
    /// Let shardings split dimensions their axes do not divide, padding each shard to
    /// `ceil(n / shards)` elements (`shardc compile --pad`; GSPMD's uneven shardings).
    /// Off (the default), such a sharding is an error naming the value, dimension and axes.
    /// See `docs/sharding.md` ("Uneven shardings") for what is masked and what moves.
    pub pad_uneven: bool,
    /// Bytes one device may hold at once. A plan whose per-device peak (`memory.rs`: the
    /// partitioned program's live values, parameters and batch included) is over it is
    /// searched again with memory weighed ever more heavily against time; when no plan
    /// fits, compilation fails naming what is live at the peak. `None`: no limit.
    pub memory_per_device: Option<u64>,
    /// Mesh axes whose f32 sums travel compressed (`route.rs`): every all-reduce of an
    /// f32 sum over exactly that axis, as DDP's communication hooks compress gradients
    /// (`docs/topology.md`). The cpu backend runs them; the mpi backend refuses them.
    pub compress: Vec<(String, shardc_ir::compress::Compression)>,
    /// Run loops on the pieces of their carried values, each body partitioned for its
    /// carried layouts (`local/loops.rs`; on by default). Off, every loop runs whole on
    /// every device, what it reads gathered first (`shardc compile --loops-whole`).
    pub partition_loops: bool,
    /// Unroll loops whose bodies communicate and whose trip count is known when compiling
    /// and at most this many (`shardc compile --unroll-loops N`): each iteration's
    /// collectives then stand in the per-device program, where bucketing and prefetching
    /// see them, at the price of one copy of the body per iteration. 0 (the default):
    /// every such loop runs as a loop of the per-device program, its body's kernels
    /// prepared once.
    pub unroll_loops: usize,
    /// Turn an all-reduce whose every reader keeps only its own block into a
    /// reduce-scatter (`scatter.rs`; on by default, as XLA's reduce-scatter creator). Off,
    /// every device keeps the whole sum the program asks for: ZeRO-1 as DeepSpeed's stage 1
    /// runs (`shardc_train`'s `Zero1`), whose gradients ZeRO-2 reduce-scatters.
    pub scatter_sums: bool,
    /// Follow the annotations as JAX's own propagation (Shardy) does, instead of searching
    /// for the plan the cost model predicts fastest: every annotation counts as a priority
    /// (`p0` unless it states one), so a value is resharded away from a layout an
    /// annotation implies only where annotations conflict, never to save a collective.
    /// Off (the default), the search may, say, gather a data-parallel batch to save the
    /// gradients' all-reduce where the model says that is faster
    /// (`shardc compile --follow-annotations`; `docs/partitioning.md`).
    pub follow_annotations: bool,
}

impl Options {
    /// The [`Uneven`] policy these options ask for.
    pub fn uneven(&self) -> Uneven {
        if self.pad_uneven {
            Uneven::Pad
        } else {
            Uneven::Refuse
        }
    }
}

/// The bucket size the CLI compiles with (`shardc compile`, `run`, `bench`; `--bucket-bytes
/// 0` for none): all-reduces fused up to 25 MiB, as PyTorch DDP buckets gradients and XLA
/// combines them (its CPU pipeline compiles a JAX training step's gradient all-reduces
/// into one). On the cpu backend, 8 devices on 2 cores, JAX's exported AdamW steps ran
/// 2.5-3.6x faster so (`hf_bert_adamw_step`'s 43 all-reduces: 14.4-16.9 ms a step, one
/// bucket: 4.0-6.2 ms; `shardc bench peer --dir tests/fixtures/jax --cases
/// hf_bert_adamw_step [--bucket-bytes 0]`).
pub const DEFAULT_BUCKET_BYTES: usize = 25 << 20;

impl Options {
    /// These options with no wall-time limit unless `SHARDC_TIME_LIMIT_MS` sets one: only
    /// the node and visit limits stop propagation, and they stop it alike on every
    /// machine. The mpi backend's ranks each compile the program; 8 ranks on 2 cores
    /// compile 4 times slower than one, and a wall-time limit reached on some ranks only
    /// gave them different programs.
    pub fn deterministic(self) -> Options {
        if std::env::var_os("SHARDC_TIME_LIMIT_MS").is_some() {
            return self;
        }
        Options {
            time_limit: Duration::MAX,
            ..self
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
        Options {
            node_limit: env("SHARDC_NODE_LIMIT")
                .map(|v| v as usize)
                .unwrap_or(1_000_000),
            visit_limit: env("SHARDC_VISIT_LIMIT").map(|v| v as usize).unwrap_or(16),
            time_limit: Duration::from_millis(env("SHARDC_TIME_LIMIT_MS").unwrap_or(30_000)),
            cost: CostModel::default(),
            bucket_bytes: None,
            regather_gap: None,
            prefetch: 0,
            collective_matmul: crate::passes::decompose::CollectiveMatmul::Off,
            pad_uneven: false,
            memory_per_device: None,
            compress: Vec::new(),
            partition_loops: true,
            unroll_loops: 0,
            scatter_sums: true,
            follow_annotations: false,
        }
    }
}

/// Why saturation ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StopReason {
    /// Nothing more could be derived.
    Saturated,
    /// The e-graph reached this many nodes.
    NodeLimit(usize),
    /// This many op visits were made.
    VisitLimit(usize),
    /// This many milliseconds passed.
    TimeLimit(u128),
}

/// When saturation stopped at a limit: which, and how to raise it.
pub(crate) fn stopped_early(stop: &StopReason) -> Option<String> {
    Some(match stop {
        StopReason::Saturated => return None,
        StopReason::NodeLimit(n) => format!(
            "propagation stopped at its node limit ({n} e-nodes) before it was done: raise Options::node_limit or SHARDC_NODE_LIMIT"
        ),
        StopReason::VisitLimit(n) => format!(
            "propagation stopped at its visit limit ({n} op visits) before it was done: raise Options::visit_limit or SHARDC_VISIT_LIMIT"
        ),
        StopReason::TimeLimit(ms) => format!(
            "propagation stopped at its time limit ({ms} ms) before it was done: raise Options::time_limit or SHARDC_TIME_LIMIT_MS"
        ),
    })
}

/// What saturation did.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Why it ended.
    pub stop: StopReason,
    /// Ops visited.
    pub visits: usize,
    /// E-classes (a value in one layout each).
    pub classes: usize,
    /// E-nodes (ways to obtain a value in a layout).
    pub nodes: usize,
    /// Microseconds it took.
    pub micros: u128,
}

/// Where a user annotation is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Annotation {
    /// On argument `i`.
    Arg(usize),
    /// On result `i`.
    Result(usize),
    /// `sdy.sharding` on an op's result.
    OpResult {
        /// The op.
        op: OpId,
        /// Which of its results.
        result: usize,
    },
    /// `sdy.sharding_constraint`.
    Constraint(OpId),
}

/// An annotation's demand on one value: its layout, with the dimensions propagation may
/// still split further (open ones) and the axes that may never split it.
#[derive(Clone, Debug)]
pub struct Demand {
    /// The annotated layout.
    pub base: Layout,
    /// Per dimension, whether propagation may split it further.
    pub open: Vec<bool>,
    /// Axes that may never split the value.
    pub replicated: Vec<AxisRef>,
    /// Where the annotation is.
    pub source: Annotation,
}

impl Demand {
    fn of(s: &Sharding, source: Annotation) -> Demand {
        Demand {
            base: Layout::of_sharding(s),
            open: s.dims.iter().map(|d| d.open).collect(),
            replicated: s.replicated.clone(),
            source,
        }
    }

    /// Whether a layout meets the demand: closed dimensions exactly as annotated, open ones
    /// extending the annotation, no forbidden axis, the same partial part.
    pub fn allows(&self, l: &Layout) -> bool {
        l.rank() == self.base.rank()
            && l.unreduced == self.base.unreduced
            && l.combiner == self.base.combiner
            && !l
                .axes()
                .any(|a| self.replicated.iter().any(|r| r.overlaps(a)))
            && (0..l.rank()).all(|d| {
                if self.open[d] {
                    l.dims[d].starts_with(&self.base.dims[d])
                } else {
                    l.dims[d] == self.base.dims[d]
                }
            })
    }
}

/// How a class first came to be, for `explain`.
#[derive(Clone, Debug, Serialize)]
pub enum Origin {
    /// The annotation itself.
    Annotated(Annotation),
    /// An argument without annotation, in a layout some consumer asked for.
    FreeArg,
    /// Derived through `op` from the layouts its neighbours had (the ones whose axes the
    /// assignment merged; none for the op's default, everything unsplit).
    Through {
        /// The op it came through.
        op: OpId,
        /// The neighbours' layouts it was derived from.
        from: Vec<(ValueId, LayoutId)>,
    },
    /// Asked for by `op` and reached by resharding another layout.
    Requested {
        /// The op that asked for the layout (none: a function result).
        op: Option<OpId>,
    },
}

/// The saturated e-graph and everything extraction and partitioning need.
pub struct Propagated {
    /// The saturated e-graph.
    pub graph: PGraph,
    /// The mesh.
    pub mesh: Mesh,
    /// Each op's sharding rule, by op index (none for ops without one).
    pub rules: Vec<Option<OpRule>>,
    /// Demands on the layouts values are produced in (arguments, constraints, op shardings).
    pub produce: HashMap<ValueId, Demand>,
    /// What each function result must be delivered as: its class if annotated.
    pub roots: Vec<Root>,
    /// How each class first came to be, for `explain`.
    pub origin: HashMap<(ValueId, LayoutId), Origin>,
    /// What saturation did.
    pub report: Report,
    /// The cost model extraction optimises with, for the mesh's devices.
    pub cost: CostModel,
    /// The printed name of every value (`%3`), for messages.
    pub names: Vec<String>,
    /// Whether layouts may pad dimensions their axes do not divide.
    pub uneven: Uneven,
    /// When the module uses explicit priorities (`{"x"}p1`): for every class derived from
    /// an annotation, the strongest priority among the annotations it derives from, and
    /// the weakest priority in the module. `None` when no annotation has an explicit one.
    pub priorities: Option<Priorities>,
    /// How each loop can run for each layout of its operands the e-graph holds: whole,
    /// or its body compiled for its carried values' layouts (`local::loops`; a carried
    /// partial sum enters reduced, so several plans can share operand layouts).
    pub loops: HashMap<(OpId, Vec<LayoutId>), Vec<LoopPlan>>,
    /// Operand layouts of loops that extraction may not take: one loop runs one plan,
    /// so when the extracted program took a loop's results from plans that read its
    /// operands differently, all but one are banned and extraction runs again
    /// (`local::loops::ban_conflicts`).
    pub banned_loops: HashSet<(OpId, Vec<LayoutId>)>,
    /// Why plans on pieces of a loop were not made (a body that would communicate for
    /// too many trips, layouts that do not divide), by loop, each reason once.
    pub loop_refusals: HashMap<OpId, Vec<String>>,
    /// Loops that communicate with at most this many known trips are unrolled
    /// ([`Options::unroll_loops`]).
    pub unroll_loops: usize,
}

/// Priorities of classes, in Shardy's meaning: `p0` is the strongest, a dimension without
/// an explicit priority is `p0`, and a layout a stronger annotation implies is kept over
/// one a weaker annotation implies.
#[derive(Clone, Debug, Default)]
pub struct Priorities {
    /// The strongest priority each annotated class derives from.
    pub of_class: HashMap<(ValueId, LayoutId), u32>,
    /// The weakest priority in the module.
    pub weakest: u32,
}

/// The priority of an annotation: its strongest split dimension's (0 when not given), or
/// `None` when it splits nothing; and whether any priority was written explicitly.
fn annotation_priority(s: &Sharding) -> (Option<u32>, bool) {
    let split = s.dims.iter().filter(|d| !d.axes.is_empty());
    let p = split.map(|d| d.priority.unwrap_or(0)).min();
    (p, s.dims.iter().any(|d| d.priority.is_some()))
}

/// The strongest priority each class derives from, following origins (memoized).
fn class_priorities(
    origin: &HashMap<Key, Origin>,
    annotated: &HashMap<Annotation, u32>,
) -> HashMap<Key, u32> {
    fn visit(
        k: Key,
        origin: &HashMap<Key, Origin>,
        annotated: &HashMap<Annotation, u32>,
        memo: &mut HashMap<Key, Option<u32>>,
        depth: usize,
    ) -> Option<u32> {
        if let Some(&p) = memo.get(&k) {
            return p;
        }
        memo.insert(k, None);
        let p = match origin.get(&k) {
            Some(Origin::Annotated(a)) => annotated.get(a).copied(),
            Some(Origin::Through { from, .. }) if depth < 4096 => from
                .iter()
                .filter(|&&f| f != k)
                .filter_map(|&f| visit(f, origin, annotated, memo, depth + 1))
                .min(),
            _ => None,
        };
        memo.insert(k, p);
        p
    }
    let mut memo = HashMap::new();
    for &k in origin.keys() {
        visit(k, origin, annotated, &mut memo, 0);
    }
    memo.into_iter()
        .filter_map(|(k, p)| p.map(|p| (k, p)))
        .collect()
}

/// One function result and what it must be delivered as.
#[derive(Clone, Debug)]
pub enum Root {
    /// Annotated: exactly this class.
    Fixed(Id),
    /// Unannotated: any complete layout of the value.
    Free(ValueId),
}

/// A physical value: a value in one layout.
type Key = (ValueId, LayoutId);

struct Saturate<'a> {
    f: &'a Function,
    mesh: &'a Mesh,
    uneven: Uneven,
    rules: Vec<Option<OpRule>>,
    users: HashMap<ValueId, Vec<OpId>>,
    produce: HashMap<ValueId, Demand>,
    /// Layouts annotations want values in, seeding propagation backwards.
    wanted: HashMap<ValueId, Vec<Layout>>,
    graph: PGraph,
    origin: HashMap<(ValueId, LayoutId), Origin>,
    queue: VecDeque<OpId>,
    queued: HashSet<OpId>,
    current: Option<OpId>,
    opts: &'a Options,
    loops: HashMap<(OpId, Vec<LayoutId>), Option<LoopPlan>>,
    /// What each loop's body settles on from its operands' layouts (`local::loops::settle`).
    settled: HashMap<(OpId, Vec<LayoutId>), Option<Vec<Layout>>>,
    loop_refusals: HashMap<OpId, Vec<String>>,
}

/// The mesh of a module: the one mesh its annotations use. Meshes without axes beside it
/// (JAX's `@empty_mesh`, which Flax NNX's constraints on RNG keys name) split nothing: a
/// sharding on one replicates, as on the module's mesh.
fn module_mesh(m: &Module) -> Result<Mesh, CompileError> {
    let with_axes: Vec<&Mesh> = m.meshes.iter().filter(|m| !m.axes.is_empty()).collect();
    if let [one] = with_axes.as_slice() {
        return Ok((*one).clone());
    }
    match m.meshes.as_slice() {
        [] => Ok(Mesh::new("mesh", &[])?),
        [one] => Ok(one.clone()),
        many => Err(CompileError::Unsupported {
            what: format!(
                "a module with {} meshes ({})",
                many.len(),
                many.iter()
                    .map(|m| format!("@{}", m.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            why: "propagation partitions over one mesh; split the program per mesh".into(),
        }),
    }
}

/// Saturates the e-graph of the module's entry function (calls must be inlined first).
pub fn propagate(module: &Module, opts: &Options) -> Result<Propagated, CompileError> {
    let f = module.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to propagate".into(),
    })?;
    let mesh = module_mesh(module)?;
    let start = Instant::now();
    // Rules of every body op; ops with no rule are an error naming the op.
    let mut rules = vec![None; f.ops.len()];
    for (id, op) in f.body_ops() {
        if let Some(why) = crate::local::manual::unsupported(op, &mesh) {
            return Err(CompileError::Unsupported {
                what: op.kind.name(),
                why,
            });
        }
        rules[id.index()] = Some(op_rule(f, op)?);
    }
    let mut users: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for (id, op) in f.body_ops() {
        for &v in &op.operands {
            users.entry(v).or_default().push(id);
        }
    }
    // Annotations.
    let mut produce = HashMap::new();
    let mut wanted: HashMap<ValueId, Vec<Layout>> = HashMap::new();
    for (i, (&v, a)) in f.args().iter().zip(&f.arg_attrs).enumerate() {
        if let Some(s) = &a.sharding {
            produce.insert(v, Demand::of(s, Annotation::Arg(i)));
        }
    }
    for (id, op) in f.body_ops() {
        if let OpKind::ShardingConstraint(s) = &op.kind {
            produce.insert(op.results[0], Demand::of(s, Annotation::Constraint(id)));
        }
    }
    for (v, d) in &produce {
        wanted.entry(*v).or_default().push(d.base.clone());
    }
    for (&v, a) in f.results().iter().zip(&f.result_attrs) {
        if let Some(s) = &a.sharding {
            wanted.entry(v).or_default().push(Layout::of_sharding(s));
        }
    }
    let analysis = ValueOf {
        args: f.args().to_vec(),
        results: f.ops.iter().map(|o| o.results.clone()).collect(),
    };
    let mut s = Saturate {
        f,
        mesh: &mesh,
        uneven: opts.uneven(),
        rules,
        users,
        produce,
        wanted,
        graph: PGraph::new(analysis),
        origin: HashMap::new(),
        queue: VecDeque::new(),
        queued: HashSet::new(),
        current: None,
        opts,
        loops: HashMap::new(),
        settled: HashMap::new(),
        loop_refusals: HashMap::new(),
    };
    // Arguments enter in their annotated layout, or replicated when unannotated.
    for (i, &v) in f.args().iter().enumerate() {
        let (layout, origin) = match s.produce.get(&v) {
            Some(d) => (d.base.clone(), Origin::Annotated(d.source.clone())),
            None => (Layout::replicated(f.ty(v).rank()), Origin::FreeArg),
        };
        let lid = s.graph.layout_id(&layout);
        s.add_class(
            PNode::Arg {
                index: i as u32,
                layout: lid,
            },
            v,
            lid,
            origin,
        );
    }
    for (id, _) in f.body_ops() {
        s.enqueue(id);
    }
    let limit_visits = opts.visit_limit.saturating_mul(f.body().ops.len().max(1));
    let mut visits = 0;
    let mut stop = StopReason::Saturated;
    while let Some(o) = s.queue.pop_front() {
        s.queued.remove(&o);
        s.visit(o);
        visits += 1;
        if s.graph.num_nodes() > opts.node_limit {
            stop = StopReason::NodeLimit(opts.node_limit);
            break;
        }
        if visits >= limit_visits {
            stop = StopReason::VisitLimit(limit_visits);
            break;
        }
        if start.elapsed() > opts.time_limit {
            stop = StopReason::TimeLimit(opts.time_limit.as_millis());
            break;
        }
    }
    // Results: annotated ones must exist in their layout, by resharding if need be.
    s.current = None;
    let mut roots = Vec::new();
    let names = f.value_names();
    for (i, (&v, a)) in f.results().iter().zip(&f.result_attrs).enumerate() {
        match &a.sharding {
            Some(sh) => {
                let layout = Layout::of_sharding(sh);
                let lid = s.graph.layout_id(&layout);
                let id = s.request(v, lid).ok_or_else(|| CompileError::Unreachable {
                    value: format!("result {i} ({})", names[v.index()]),
                    layout: layout.to_string(),
                    why: match stopped_early(&stop) {
                        Some(raise) => format!(
                            "{raise}, and by then no layout of the value that reshards to it had been found"
                        ),
                        None => "no layout of the value reshards to it (a value cannot become partial by communication)".into(),
                    },
                })?;
                s.origin
                    .entry((v, lid))
                    .or_insert(Origin::Annotated(Annotation::Result(i)));
                roots.push(Root::Fixed(id));
            }
            None => roots.push(Root::Free(v)),
        }
    }
    s.graph.egraph.rebuild();
    // Priorities, if any annotation states one.
    let mut annotated: HashMap<Annotation, u32> = HashMap::new();
    let mut explicit = false;
    let mut note = |a: Annotation, sh: &Sharding| {
        let (p, e) = annotation_priority(sh);
        explicit |= e;
        if let Some(p) = p {
            annotated.insert(a, p);
        }
    };
    for (i, a) in f.arg_attrs.iter().enumerate() {
        if let Some(sh) = &a.sharding {
            note(Annotation::Arg(i), sh);
        }
    }
    for (i, a) in f.result_attrs.iter().enumerate() {
        if let Some(sh) = &a.sharding {
            note(Annotation::Result(i), sh);
        }
    }
    for (id, op) in f.body_ops() {
        if let OpKind::ShardingConstraint(sh) = &op.kind {
            note(Annotation::Constraint(id), sh);
        }
    }
    // Each loop's plans by its operands' layouts (a partial carried value enters reduced).
    let mut loops: HashMap<(OpId, Vec<LayoutId>), Vec<LoopPlan>> = HashMap::new();
    for ((o, ids), plan) in std::mem::take(&mut s.loops) {
        let Some(plan) = plan else { continue };
        let children = ids
            .iter()
            .map(|&l| {
                let reduced = s.graph.layout(l).reduced();
                s.graph.layout_id(&reduced)
            })
            .collect();
        loops.entry((o, children)).or_default().push(plan);
    }
    let priorities = (explicit || opts.follow_annotations).then(|| Priorities {
        weakest: annotated.values().copied().max().unwrap_or(0),
        of_class: class_priorities(&s.origin, &annotated),
    });
    let report = Report {
        stop,
        visits,
        classes: s.graph.num_classes(),
        nodes: s.graph.num_nodes(),
        micros: start.elapsed().as_micros(),
    };
    Ok(Propagated {
        graph: s.graph,
        mesh: mesh.clone(),
        rules: s.rules,
        produce: s.produce,
        roots,
        origin: s.origin,
        report,
        cost: opts.cost.for_devices(mesh.num_devices()),
        names,
        uneven: opts.uneven(),
        priorities,
        loops,
        banned_loops: HashSet::new(),
        loop_refusals: s.loop_refusals,
        unroll_loops: opts.unroll_loops,
    })
}

impl Propagated {
    /// The plan of loop `op` with operands in the layouts of classes `children`, if it
    /// gives result `result` in `want`: the cheapest of the plans that read those
    /// layouts, so that every result of one loop comes from one plan (a result only a
    /// costlier plan gives is never taken: it costs infinitely much in `extract`).
    pub fn loop_plan(
        &self,
        op: OpId,
        children: &[Id],
        result: usize,
        want: &Layout,
    ) -> Option<&LoopPlan> {
        let eg = &self.graph.egraph;
        let key = (
            op,
            children.iter().map(|&c| eg[eg.find(c)].data.1).collect(),
        );
        if self.banned_loops.contains(&key) {
            return None;
        }
        self.loops
            .get(&key)?
            .iter()
            .min_by(|a, b| a.cost.total_cmp(&b.cost))
            .filter(|p| p.layouts.get(result) == Some(want))
    }
}

impl Saturate<'_> {
    fn enqueue(&mut self, o: OpId) {
        if self.rules[o.index()].is_some() && self.queued.insert(o) {
            self.queue.push_back(o);
        }
    }

    /// Adds a node; when it founds a new class, records its origin, connects the class to
    /// the value's other layouts by resharding, and revisits the value's neighbours.
    fn add_class(&mut self, node: PNode, v: ValueId, lid: LayoutId, origin: Origin) -> Id {
        let (id, new) = self.graph.add(node);
        if new {
            self.origin.insert((v, lid), origin);
            self.connect(v, lid);
            self.touch(v);
        }
        id
    }

    /// Reshard edges between a new layout of `v` and every older one, both ways.
    fn connect(&mut self, v: ValueId, new: LayoutId) {
        let others: Vec<LayoutId> = self
            .graph
            .layouts_of(v)
            .iter()
            .copied()
            .filter(|&l| l != new)
            .collect();
        let ty = self.f.ty(v);
        for old in others {
            for (from, to) in [(old, new), (new, old)] {
                let plans = reshard::plan_for(
                    self.graph.layout(from),
                    self.graph.layout(to),
                    self.mesh,
                    ty,
                );
                let Some(child) = self.graph.class(v, from) else {
                    continue;
                };
                for p in plans {
                    let plan = PlanId(self.graph.plans.intern(&p));
                    self.graph.add(PNode::Reshard {
                        plan,
                        layout: to,
                        child: [child],
                    });
                }
            }
        }
    }

    /// Revisits the ops next to a value that gained a layout.
    fn touch(&mut self, v: ValueId) {
        let users = self.users.get(&v).cloned().unwrap_or_default();
        for o in users {
            self.enqueue(o);
        }
        if let ValueDef::OpResult { op, .. } = self.f.value(v).def {
            self.enqueue(op);
        }
    }

    /// The class of `v` in layout `lid`, made if need be: an argument may arrive in it if
    /// its annotation allows; otherwise it is resharded from the value's existing layouts.
    fn request(&mut self, v: ValueId, lid: LayoutId) -> Option<Id> {
        if let Some(id) = self.graph.class(v, lid) {
            return Some(id);
        }
        let layout = self.graph.layout(lid).clone();
        if !layout.fits(self.mesh, self.f.ty(v), self.uneven) {
            return None;
        }
        if let ValueDef::BlockArg { index, .. } = self.f.value(v).def {
            let free = match self.produce.get(&v) {
                Some(d) => d.allows(&layout),
                None => !layout.is_partial(),
            };
            if free {
                let origin = if self.produce.contains_key(&v) {
                    Origin::Requested { op: self.current }
                } else {
                    Origin::FreeArg
                };
                return Some(self.add_class(
                    PNode::Arg {
                        index: index as u32,
                        layout: lid,
                    },
                    v,
                    lid,
                    origin,
                ));
            }
        }
        let sources: Vec<LayoutId> = self.graph.layouts_of(v).to_vec();
        // The first plan founds the class (recording its origin and connecting it to the
        // value's other layouts); the rest join it.
        let mut nodes = Vec::new();
        for src in sources {
            let Some(child) = self.graph.class(v, src) else {
                continue;
            };
            for p in reshard::plan_for(self.graph.layout(src), &layout, self.mesh, self.f.ty(v)) {
                let plan = PlanId(self.graph.plans.intern(&p));
                nodes.push(PNode::Reshard {
                    plan,
                    layout: lid,
                    child: [child],
                });
            }
        }
        let mut nodes = nodes.into_iter();
        let id = self.add_class(
            nodes.next()?,
            v,
            lid,
            Origin::Requested { op: self.current },
        );
        for n in nodes {
            self.graph.add(n);
        }
        Some(id)
    }

    /// Removes from an assignment what the op cannot run locally: axes on need-replication
    /// and permutation factors, on rotation factors whose shift is not a multiple of the
    /// block they would cut, axes that do not divide their factor (unless padding was
    /// asked for and the factor may be padded: [`Saturate::pads`]), and reduction factors
    /// whose combiner differs from the first sharded one.
    fn sanitize(&self, op: &shardc_ir::Op, rule: &OpRule, mut fa: FactorAxes) -> FactorAxes {
        let mut combiner = None;
        for fid in rule.factor_ids() {
            let axes = &mut fa.0[fid.index()];
            if axes.is_empty() {
                continue;
            }
            let kind = rule.kind(fid);
            let shards: usize = axes
                .iter()
                .map(|a| a.size(self.mesh).unwrap_or(0))
                .product();
            let keep = match kind {
                FactorKind::NeedReplication | FactorKind::Permutation => false,
                _ if shards == 0 => false,
                // Whole blocks only (`rotate.rs`), never padded.
                FactorKind::Rotation { .. } => kind.splits_into(rule.size(fid), shards),
                _ if !rule.size(fid).is_multiple_of(shards) && !self.pads(op, rule, fid) => false,
                // Partial values are combined by all-reduce with a one-op reducer (not a
                // reducer body the rule could not name).
                FactorKind::Reduction(Combiner::Body) => false,
                FactorKind::Reduction(c) => {
                    let ok = combiner.is_none_or(|x| x == c);
                    combiner = Some(c);
                    ok
                }
                FactorKind::PassThrough => true,
            };
            if !keep {
                axes.clear();
            }
        }
        // A compound dimension can only be split minor-factor-wise once its more major
        // factors are split completely: `[ij]` split over axes on `j` alone would be a
        // tensor sharding that cuts `i` instead. Drop such axes.
        // Clearing a factor can break a dimension already checked: repeat to a fixpoint.
        let mut changed = true;
        while changed {
            changed = false;
            for (_, mapping) in rule.tensors() {
                for factors in mapping {
                    let mut major_full = true;
                    for &fid in factors {
                        let axes = &mut fa.0[fid.index()];
                        if !major_full {
                            changed |= !axes.is_empty();
                            axes.clear();
                            continue;
                        }
                        let shards: usize = axes
                            .iter()
                            .map(|a| a.size(self.mesh).unwrap_or(0))
                            .product();
                        major_full = shards == rule.size(fid);
                    }
                }
            }
        }

        fa
    }

    /// Whether a factor its axes do not divide may be split anyway, padded: only with
    /// padding asked for; only when it is the one factor (larger than 1) of every
    /// dimension it appears in, so each such dimension is padded exactly as the factor
    /// is; a reduction factor only where `mask.rs` knows how to fill the padding with the
    /// reduction's identity before the op reads it; any other factor only if it reaches a
    /// result, so that padding only ever lands in padding (an operand-only factor of size
    /// 1, as a broadcast's expanded dimension, would read its padding as data).
    fn pads(&self, op: &shardc_ir::Op, rule: &OpRule, fid: shardc_ir::rules::FactorId) -> bool {
        if !self.uneven.pads() {
            return false;
        }
        let mut alone = true;
        let mut in_result = false;
        for (t, mapping) in rule.tensors() {
            for factors in mapping.iter().filter(|factors| factors.contains(&fid)) {
                alone &= sole_factor(rule, factors) == Some(fid);
                in_result |= matches!(t, TensorRef::Result(_));
            }
        }
        alone
            && if rule.kind(fid).is_reduction() {
                crate::local::mask::masks(&op.kind)
            } else {
                in_result
            }
    }

    fn visit(&mut self, o: OpId) {
        let Some(rule) = self.rules[o.index()].clone() else {
            return;
        };
        self.current = Some(o);
        let op = self.f.op(o);
        if let Some((ins, outs)) = crate::local::manual::fixed_layouts(op) {
            self.apply_fixed(o, &ins, &outs);
            return;
        }
        if op.kind == OpKind::While {
            self.visit_loop(o);
            return;
        }
        let tensors: Vec<(TensorRef, ValueId)> = op
            .operands
            .iter()
            .enumerate()
            .map(|(k, &v)| (TensorRef::Operand(k), v))
            .chain(
                op.results
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (TensorRef::Result(k), v)),
            )
            .collect();
        // Seeds: every layout of every tensor of the op, projected onto its factors.
        let mut seeds: Vec<(usize, FactorAxes, Key)> = Vec::new();
        for (ti, &(t, v)) in tensors.iter().enumerate() {
            let mut layouts: Vec<Layout> = self
                .graph
                .layouts_of(v)
                .iter()
                .map(|&l| self.graph.layout(l).clone())
                .collect();
            if matches!(t, TensorRef::Result(_)) {
                layouts.extend(self.wanted.get(&v).into_iter().flatten().cloned());
            }
            for l in layouts {
                if let Some(fa) = project_with(&rule, t, &l, self.mesh, self.uneven)
                    && !fa.is_empty()
                {
                    let lid = self.graph.layout_id(&l);
                    seeds.push((ti, fa, (v, lid)));
                }
            }
        }
        // Candidates: nothing split; each seed; each seed merged with the others that agree
        // (with the seeds that contributed, for `explain`).
        let mut candidates: Vec<(FactorAxes, Vec<Key>)> =
            vec![(FactorAxes::empty(&rule), Vec::new())];
        for (i, (ti, fa, from)) in seeds.iter().enumerate() {
            candidates.push((fa.clone(), vec![*from]));
            let mut merged = fa.clone();
            let mut contributors = vec![*from];
            for (j, (tj, other, key)) in seeds.iter().enumerate() {
                if i != j
                    && ti != tj
                    && let Some(m) = merged.merge(other)
                {
                    if m != merged {
                        contributors.push(*key);
                    }
                    merged = m;
                }
            }
            candidates.push((merged, contributors));
        }
        let mut seen = HashSet::new();
        for (fa, from) in candidates {
            let fa = self.sanitize(self.f.op(o), &rule, fa);
            if !crate::local::localize::allows(self.f, self.f.op(o), &rule, &fa) {
                continue;
            }
            if seen.insert(fa.clone()) {
                self.apply(o, &rule, &fa, from, None);
            }
        }
        self.visit_linear(o, &rule);
    }

    /// The collective-algebra rewrites of `linear.rs`: a linear op runs on partial-sum
    /// operands and gives a partial-sum result, so one reduction can serve where several
    /// would (`all_reduce(x) + all_reduce(y) = all_reduce(x + y)`).
    fn visit_linear(&mut self, o: OpId, rule: &OpRule) {
        let op = self.f.op(o);
        let (carriers, joint) = match linearity(op) {
            Linearity::None => return,
            Linearity::Each(ks) => (ks, false),
            Linearity::Joint(ks) => (ks, true),
        };
        let mut seen = HashSet::new();
        for &k in &carriers {
            let v = op.operands[k];
            let partial: Vec<LayoutId> = self
                .graph
                .layouts_of(v)
                .iter()
                .copied()
                .filter(|&l| {
                    let l = self.graph.layout(l);
                    l.is_partial() && l.combiner == CombinerKey::Sum
                })
                .collect();
            for lid in partial {
                let layout = self.graph.layout(lid).clone();
                let Some(fa) = project_with(
                    rule,
                    TensorRef::Operand(k),
                    &layout.reduced(),
                    self.mesh,
                    self.uneven,
                ) else {
                    continue;
                };
                let fa = self.sanitize(self.f.op(o), rule, fa);
                let partial_operands: Vec<usize> = if joint { carriers.clone() } else { vec![k] };
                if seen.insert((
                    fa.clone(),
                    layout.unreduced.clone(),
                    partial_operands.clone(),
                )) {
                    self.apply(
                        o,
                        rule,
                        &fa,
                        vec![(v, lid)],
                        Some((&layout.unreduced, &partial_operands)),
                    );
                }
            }
        }
    }

    /// Adds the op, run locally under one factor assignment, to its results' classes.
    /// `carry` says which operands are partial sums over which axes (a linear op carries
    /// the partial sum to its results).
    fn apply(
        &mut self,
        o: OpId,
        rule: &OpRule,
        fa: &FactorAxes,
        from: Vec<Key>,
        carry: Option<(&[AxisRef], &[usize])>,
    ) {
        let op = self.f.op(o);
        let with_partial = |mut l: Layout| -> Option<Layout> {
            if let Some((axes, _)) = carry {
                if l.axes().any(|a| axes.iter().any(|b| b.overlaps(a)))
                    || (l.is_partial() && l.combiner != CombinerKey::Sum)
                {
                    return None;
                }
                l.unreduced.extend(axes.iter().cloned());
                l.combiner = CombinerKey::Sum;
            }
            Some(l)
        };
        let mut results = Vec::with_capacity(op.results.len());
        for (k, &v) in op.results.iter().enumerate() {
            let Some(l) = fa
                .layout_of(rule, TensorRef::Result(k))
                .and_then(with_partial)
            else {
                return;
            };
            if self.produce.get(&v).is_some_and(|d| !d.allows(&l))
                || !l.fits(self.mesh, self.f.ty(v), self.uneven)
            {
                return;
            }
            results.push((v, self.graph.layout_id(&l)));
        }
        let mut operands = Vec::with_capacity(op.operands.len());
        for k in 0..op.operands.len() {
            let l = fa.layout_of(rule, TensorRef::Operand(k));
            let l = match carry {
                Some((_, partial)) if partial.contains(&k) => l.and_then(with_partial),
                _ => l,
            };
            let Some(l) = l else {
                return;
            };
            operands.push(self.graph.layout_id(&l));
        }
        self.add_local(o, results, &operands, from);
    }

    /// A loop's candidates: everything whole, and each carried value in the most split
    /// of the layouts its initial and final values have (the carried values are distinct
    /// tensors: one axis may split them all, unlike the factors of one op), whole when
    /// its condition reads it; also with what the body reads from outside split, with
    /// what the body passes on unchanged whole, and with what the condition reads split
    /// (its test then partitioned too); then where its body settles from there
    /// (`apply_loop`).
    fn visit_loop(&mut self, o: OpId) {
        let op = self.f.op(o);
        let whole: Vec<LayoutId> = op
            .operands
            .iter()
            .map(|&v| {
                self.graph
                    .layout_id(&Layout::replicated(self.f.ty(v).rank()))
            })
            .collect();
        if !self.opts.partition_loops {
            self.loop_refusals.insert(
                o,
                vec!["Options::partition_loops is off (--loops-whole)".into()],
            );
            self.apply_loop(o, &whole, Vec::new());
            return;
        }
        let cond_reads = crate::local::loops::read_by_cond(self.f, op);
        let mut split = whole.clone();
        let mut from = Vec::new();
        // The same with what the condition reads split too (a convergence test on split
        // values: the condition's plan then reduces what it tests).
        let mut tested = whole.clone();
        let mut tested_from = Vec::new();
        for (k, &r) in op.results.iter().enumerate() {
            let v = op.operands[k];
            let mut options: Vec<Layout> = [v, r]
                .iter()
                .flat_map(|&x| self.graph.layouts_of(x).iter())
                .map(|&l| self.graph.layout(l).clone())
                .chain(self.wanted.get(&r).into_iter().flatten().cloned())
                .filter(|l| !l.is_partial() && l.fits(self.mesh, self.f.ty(v), Uneven::Refuse))
                .collect();
            options.sort_by_key(|l| std::cmp::Reverse(l.axes().count()));
            if let Some(best) = options.first().filter(|l| l.axes().next().is_some()) {
                tested[k] = self.graph.layout_id(best);
                tested_from.push((v, tested[k]));
                if !cond_reads[k] {
                    split[k] = tested[k];
                    from.push((v, split[k]));
                }
            }
        }
        // Also with what the body reads from outside in its most split layout (a weight
        // split by tensor parallelism: the body's plan then runs on its piece).
        let mut reading = split.clone();
        let mut reading_from = from.clone();
        for (k, &v) in op.operands.iter().enumerate().skip(op.results.len()) {
            let mut options: Vec<Layout> = self
                .graph
                .layouts_of(v)
                .iter()
                .map(|&l| self.graph.layout(l).clone())
                .filter(|l| !l.is_partial() && l.fits(self.mesh, self.f.ty(v), Uneven::Refuse))
                .collect();
            options.sort_by_key(|l| std::cmp::Reverse(l.axes().count()));
            if split != whole
                && let Some(best) = options.first().filter(|l| l.axes().next().is_some())
            {
                reading[k] = self.graph.layout_id(best);
                reading_from.push((v, reading[k]));
            }
        }
        // Also with the carried values the body passes on unchanged whole (a scan's
        // stacked weights and inputs, which JAX's lowering carries through the loop):
        // gathered once before it, each iteration then computes on the pieces of what
        // changes (the batch's rows) without communicating.
        let body = op.regions.get(1).map(|&b| self.f.block(b));
        let mut invariant_whole = split.clone();
        for (k, l) in invariant_whole
            .iter_mut()
            .enumerate()
            .take(op.results.len())
        {
            if body.is_some_and(|b| b.results.get(k).is_some() && b.results.get(k) == b.args.get(k))
            {
                *l = whole[k];
            }
        }
        let invariant_from: Vec<Key> = from
            .iter()
            .filter(|(v, l)| {
                invariant_whole
                    .iter()
                    .zip(&op.operands)
                    .any(|(w, x)| x == v && w == l)
            })
            .copied()
            .collect();
        self.apply_loop(o, &whole, Vec::new());
        if split != whole {
            self.apply_loop(o, &split, from);
        }
        if reading != split {
            self.apply_loop(o, &reading, reading_from);
        }
        if invariant_whole != split && invariant_whole != whole {
            self.apply_loop(o, &invariant_whole, invariant_from);
        }
        if tested != split {
            self.apply_loop(o, &tested, tested_from);
        }
    }

    /// Adds loop `o` with its operands in `operands` layouts, if its body can run so,
    /// and in the layouts its body settles on from there (`local::loops::settle`; a
    /// carried partial sum, which starts from zeros, stays partial through the loop).
    fn apply_loop(&mut self, o: OpId, operands: &[LayoutId], from: Vec<Key>) {
        use crate::local::loops;
        let layouts: Vec<Layout> = operands
            .iter()
            .map(|&l| self.graph.layout(l).clone())
            .collect();
        let mut tries = vec![layouts.clone()];
        let key = (o, operands.to_vec());
        if !self.settled.contains_key(&key) {
            let settled = (!loops::whole(&layouts))
                .then(|| loops::settle(self.f, self.f.op(o), self.mesh, &layouts, self.opts))
                .flatten();
            self.settled.insert(key.clone(), settled);
        }
        if let Some(settled) = self.settled[&key].clone() {
            tries.push(settled.iter().map(Layout::reduced).collect());
            tries.push(settled);
        }
        let mut seen = HashSet::new();
        for layouts in tries {
            if !seen.insert(layouts.clone()) {
                continue;
            }
            let ids: Vec<LayoutId> = layouts.iter().map(|l| self.graph.layout_id(l)).collect();
            let key = (o, ids.clone());
            if !self.loops.contains_key(&key) {
                let plan = loops::plan(self.f, self.f.op(o), self.mesh, &layouts, self.opts);
                if let Err(e) = &plan {
                    let why = self.loop_refusals.entry(o).or_default();
                    let e = e.to_string();
                    if !why.contains(&e) {
                        why.push(e);
                    }
                }
                self.loops.insert(key.clone(), plan.ok());
            }
            if self.loops[&key].is_none() {
                continue;
            }
            let op = self.f.op(o);
            let results: Vec<(ValueId, LayoutId)> = op
                .results
                .iter()
                .copied()
                .zip(ids.iter().copied())
                .collect();
            let allowed = results.iter().all(|&(v, l)| {
                let l = self.graph.layout(l);
                self.produce.get(&v).is_none_or(|d| d.allows(l))
            });
            if allowed {
                let children: Vec<LayoutId> = layouts
                    .iter()
                    .map(|l| self.graph.layout_id(&l.reduced()))
                    .collect();
                self.add_local(o, results, &children, from.clone());
            }
        }
    }

    /// An op whose operands and results have fixed layouts (a manual computation's):
    /// the one way it runs.
    fn apply_fixed(&mut self, o: OpId, ins: &[Layout], outs: &[Layout]) {
        let op = self.f.op(o);
        let mut results = Vec::with_capacity(outs.len());
        for (&v, l) in op.results.iter().zip(outs) {
            if self.produce.get(&v).is_some_and(|d| !d.allows(l)) {
                return;
            }
            results.push((v, self.graph.layout_id(l)));
        }
        let operands: Vec<LayoutId> = ins.iter().map(|l| self.graph.layout_id(l)).collect();
        self.add_local(o, results, &operands, Vec::new());
    }

    /// Adds the op run locally, its operands in `operands` layouts, to its results'
    /// classes (`results`: each result with its layout).
    fn add_local(
        &mut self,
        o: OpId,
        results: Vec<(ValueId, LayoutId)>,
        operands: &[LayoutId],
        from: Vec<Key>,
    ) {
        let op = self.f.op(o);
        let mut children = Vec::with_capacity(op.operands.len());
        for (&v, &lid) in op.operands.iter().zip(operands) {
            match self.request(v, lid) {
                Some(id) => children.push(id),
                None => return,
            }
        }
        for (k, (v, lid)) in results.into_iter().enumerate() {
            let node = PNode::Local {
                op: o,
                result: k as u32,
                layout: lid,
                children: children.clone(),
            };
            self.add_class(
                node,
                v,
                lid,
                Origin::Through {
                    op: o,
                    from: from.clone(),
                },
            );
        }
    }
}
