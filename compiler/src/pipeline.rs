//! The pipeline, in order: verify, inline, trim, constrain, prune, fold, narrow, propagate,
//! extract,
//! partition, bucket, regather and prefetch (when asked), decompose (when asked), route
//! (with a topology or compression), verify again.
//! Every stage's module prints with [`Compiled::as_text`]; how long each stage took is in
//! [`Compiled::timings`].

use crate::error::CompileError;
use crate::passes::bucket::{Bucket, bucket};
use crate::passes::constrain::constrain;
use crate::passes::decompose::{CollectiveMatmul, Decomposition, decompose};
use crate::passes::extract::{Extraction, extract};
use crate::passes::fold::fold;
use crate::passes::inline::inline;
use crate::passes::memory::{Peak, peak};
use crate::passes::narrow::narrow;
use crate::passes::partition::{Partitioned, partition};
use crate::passes::prefetch::prefetch;
use crate::passes::propagate::{Options, Propagated, propagate};
use crate::passes::prune::prune;
use crate::passes::regather::regather;
use crate::passes::route::{Route, route};
use crate::passes::scatter::scatter;
use crate::passes::trim::trim;
use crate::sharding::cost::CostModel;
use shardc_ir::text::print_module;
use shardc_ir::{Module, verify_module, verify_module_with};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// A stage of the pipeline whose module can be printed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The module as given (global view, user annotations).
    Input,
    /// Calls inlined and op shardings made constraints: what propagation reads.
    Inlined,
    /// The global program with every value's chosen layout as its sharding
    /// (`passes::explain::annotate`).
    Propagated,
    /// The per-device program with its collectives.
    Partitioned,
}

/// Everything the pipeline produced.
pub struct Compiled {
    /// The module as given.
    pub input: Module,
    /// The global program after inlining and constraints (what propagation reads).
    pub global: Module,
    /// The saturated e-graph and what it found.
    pub propagated: Propagated,
    /// The layouts chosen for every value, and their cost.
    pub extraction: Extraction,
    /// The per-device program with its collectives.
    pub partitioned: Partitioned,
    /// The all-reduces bucketing fused (empty without `Options::bucket_bytes`).
    pub buckets: Vec<Bucket>,
    /// All-gathers regathering added (0 without `Options::regather_gap`).
    pub regathered: usize,
    /// All-gathers issued early (0 without `Options::prefetch`).
    pub prefetched: usize,
    /// The collectives weighed as ring steps with their dots, and which were decomposed
    /// (`None` without `Options::collective_matmul`, or without a collective to weigh).
    pub decomposition: Option<Decomposition>,
    /// Each collective's route over the cost model's topology and each compressed
    /// all-reduce (empty without a topology or `Options::compress`).
    pub routes: Vec<Route>,
    /// The global program with the chosen layouts written on it ([`Stage::Propagated`]),
    /// made when first asked for.
    annotated: std::sync::OnceLock<Module>,
    /// Transposes folded into the dot they read (`fold.rs`).
    pub folded: usize,
    /// Slices computed on their window instead of from a whole value made for them alone
    /// (`passes::narrow`).
    pub narrowed: usize,
    /// How long each stage took, in pipeline order.
    pub timings: Timings,
}

/// Wall time of each stage [`compile`] ran, in order: `verify`, `inline`, `constrain`, `fold`,
/// `propagate`, `extract`, `partition`, then `bucket` and `regather` when asked, `route`
/// when the cost model has a topology or `Options::compress` names an axis, then `verify_partitioned`. (`shardc bench step` and `bench compile` report them.)
#[derive(Clone, Debug, Default)]
pub struct Timings {
    /// Each stage's name and time, in pipeline order.
    pub stages: Vec<(&'static str, Duration)>,
}

impl Timings {
    /// Runs `f`, recording its time as `stage`'s.
    fn time<T>(&mut self, stage: &'static str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.stages.push((stage, start.elapsed()));
        out
    }

    /// The time of `stage`, if it ran.
    pub fn get(&self, stage: &str) -> Option<Duration> {
        self.stages
            .iter()
            .find(|(s, _)| *s == stage)
            .map(|(_, d)| *d)
    }

    /// The whole pipeline's time.
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }
}

/// Runs the pipeline on a module.
///
/// A sharding that splits a dimension its axes do not divide is an error, unless
/// `opts.pad_uneven` asks for padding (`docs/sharding.md`, "Uneven shardings").
pub fn compile(m: &Module, opts: &Options) -> Result<Compiled, CompileError> {
    let mut timings = Timings::default();
    timings.time("verify", || verify_module_with(m, opts.uneven()))?;
    let inlined = timings.time("inline", || inline(m))?;
    let (trimmed, _) = timings.time("trim", || trim(&inlined));
    let constrained = timings.time("constrain", || constrain(&trimmed))?;
    let (pruned, _) = timings.time("prune", || prune(&constrained))?;
    let (folded_module, folded) = timings.time("fold", || fold(&pruned))?;
    let (global, narrowed) = timings.time("narrow", || narrow(&folded_module))?;
    let mut propagated = timings.time("propagate", || propagate(&global, opts))?;
    if let Some((axis, c)) = opts
        .compress
        .iter()
        .find(|(axis, _)| propagated.mesh.axis(axis).is_none())
    {
        let axes: Vec<String> = propagated
            .mesh
            .axes
            .iter()
            .map(|a| format!("\"{}\"", a.name))
            .collect();
        return Err(CompileError::Unsupported {
            what: format!(
                "compressing the sums over axis \"{axis}\" ({})",
                c.attribute()
            ),
            why: format!(
                "the program's mesh {} has no such axis; name one of its axes: {}",
                propagated.mesh,
                axes.join(", ")
            ),
        });
    }
    let f = global.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to compile".into(),
    })?;
    let (mut extraction, mut partitioned, mut buckets, mut regathered, mut prefetched) =
        weigh_lean(&global, &mut propagated, f, opts, &mut timings)?;
    if let Some(budget) = opts.memory_per_device {
        // Memory weighed against time ever more heavily, until a plan fits.
        let mut smallest = memory_peak(&partitioned);
        let mut kept = propagated.cost.clone();
        let base = kept.source.clone();
        for weight in [1e-11, 1e-8, 1e-5] {
            if smallest.bytes <= budget {
                break;
            }
            propagated.cost.memory_weight = weight;
            propagated.cost.source =
                format!("{base}; memory weighed at {weight:e} s/B to fit {budget} B per device");
            // The loop plans the faster program banned (`weigh_loops`: a scan run whole)
            // may be the ones that fit.
            let banned = std::mem::take(&mut propagated.banned_loops);
            let tried = plan(&global, &mut propagated, f, opts, &mut timings)?;
            let peak = memory_peak(&tried.1);
            if peak.bytes < smallest.bytes {
                smallest = peak;
                (extraction, partitioned, buckets, regathered, prefetched) = tried;
                kept = propagated.cost.clone();
            } else {
                propagated.banned_loops = banned;
            }
        }
        propagated.cost = kept;
        if smallest.bytes > budget {
            return Err(over_budget(&global, &partitioned, budget, &smallest));
        }
    }
    let mut decomposition = None;
    if opts.collective_matmul != CollectiveMatmul::Off {
        let always = opts.collective_matmul == CollectiveMatmul::Always;
        let (module, rings) = timings.time("decompose", || {
            decompose(&partitioned.module, &propagated.cost, always)
        })?;
        if !rings.is_empty() {
            let before = std::mem::replace(&mut partitioned.module, module);
            decomposition = Some(Decomposition { before, rings });
        }
    }
    let mut routes = Vec::new();
    let topology = propagated.cost.topology.as_ref();
    if topology.is_some() || !opts.compress.is_empty() {
        let (module, r) = timings.time("route", || {
            route(&partitioned.module, topology, &opts.compress)
        })?;
        partitioned.module = module;
        routes = r;
    }
    timings
        .time("verify_partitioned", || verify_module(&partitioned.module))
        .map_err(|e| {
            CompileError::internal(
                "partitioner",
                format!("the partitioned program does not verify: {e}"),
            )
        })?;
    Ok(Compiled {
        annotated: std::sync::OnceLock::new(),
        input: m.clone(),
        global,
        propagated,
        extraction,
        partitioned,
        buckets,
        regathered,
        prefetched,
        decomposition,
        routes,
        folded,
        narrowed,
        timings,
    })
}

/// The memory weight (seconds per byte held) of the second plan [`weigh_lean`] weighs:
/// a megabyte held weighs as much as 10 ms, so that plan keeps activations split and
/// gathers parameters instead, as a tight memory budget would.
const LEAN_WEIGHT: f64 = 1e-8;

/// The plan extracted with the model as given, or the one extracted with memory weighed
/// heavily ([`LEAN_WEIGHT`]) when the model predicts that one more than 1% faster as a
/// whole program after partitioning, bucketing and reduce-scatter creation (and no
/// priorities, which decide before time does).
///
/// Extraction adds up each value's cost one layout at a time, before the passes after it:
/// it cannot see that a gradient sum whose pieces are sliced becomes a reduce-scatter, that
/// buckets merge all-reduces, or what runs behind compute. So a plan that gathers
/// activations (a sequence split over the data axis of an FSDP x TP step, seeded by the
/// position table's FSDP split) can win extraction and lose as a program to the one that
/// keeps the batch split and gathers the table. When the lean plan is kept, the model it
/// was extracted with is kept too (`explain` prints it, and weighs alternatives by it).
fn weigh_lean(
    global: &Module,
    propagated: &mut Propagated,
    f: &shardc_ir::Function,
    opts: &Options,
    timings: &mut Timings,
) -> Result<Planned, CompileError> {
    let first = plan(global, propagated, f, opts, timings)?;
    // Priorities (stated, or every annotation's when they are followed) decide before
    // time does; the time of a plan says nothing of them.
    if propagated.cost.memory_weight >= LEAN_WEIGHT || propagated.priorities.is_some() {
        return Ok(first);
    }
    let (cost, banned) = (propagated.cost.clone(), propagated.banned_loops.clone());
    let predicted = |p: &Partitioned| predicted(&cost, &p.module);
    propagated.cost.memory_weight = LEAN_WEIGHT;
    let t0 = predicted(&first.1);
    // The first plan stands on its own: a second that cannot be planned is set aside.
    if let Ok(lean) = plan(global, propagated, f, opts, timings) {
        let t1 = predicted(&lean.1);
        if t1 < 0.99 * t0 {
            propagated.cost.source = format!(
                "{}; memory weighed at {LEAN_WEIGHT:e} s/B: that plan is predicted {:.1}% \
                 faster as a whole program than the one extracted without",
                cost.source,
                (1.0 - t1 / t0) * 100.0
            );
            return Ok(lean);
        }
    }
    propagated.cost = cost;
    propagated.banned_loops = banned;
    Ok(first)
}

/// Extraction (again while a loop's results come from different plans), partitioning,
/// then bucketing, regathering and prefetching when asked.
/// What [`plan`] gives: the extraction, the partitioned program, its buckets, and how
/// many all-gathers regathering added and prefetching moved.
type Planned = (Extraction, Partitioned, Vec<Bucket>, usize, usize);

fn plan(
    global: &Module,
    propagated: &mut Propagated,
    f: &shardc_ir::Function,
    opts: &Options,
    timings: &mut Timings,
) -> Result<Planned, CompileError> {
    let mut extraction = timings.time("extract", || extract(propagated, f))?;
    // One loop runs one plan: extract again without the others until it does.
    loop {
        let banned = crate::local::loops::ban_conflicts(propagated, &extraction);
        if banned.is_empty() {
            break;
        }
        let again = timings.time("extract", || extract(propagated, f))?;
        if !again.cost.is_finite() {
            // A class only the banned plans give: keep the program as it was (its loops
            // then run twice, each plan for the results it gives).
            for key in &banned {
                propagated.banned_loops.remove(key);
            }
            break;
        }
        extraction = again;
    }
    let mut partitioned =
        timings.time("partition", || partition(global, propagated, &extraction))?;
    // The extraction weighs each loop's plan against the layouts around it one class at
    // a time (a layout a plan reads is charged to each result it gives); each loop's
    // plans are weighed again as whole programs, and with every loop run whole, and the
    // program the model predicts fastest kept (`CostModel::program_time`).
    if crate::local::loops::any_on_pieces(propagated, &extraction) {
        (extraction, partitioned) = weigh_loops(
            global,
            propagated,
            f,
            opts,
            timings,
            extraction,
            partitioned,
        )?;
    }
    if opts.scatter_sums {
        let (module, _) = timings.time("scatter", || scatter(&partitioned.module))?;
        partitioned.module = module;
    }
    let mut buckets = Vec::new();
    if let Some(limit) = opts.bucket_bytes {
        let scalars_apart = !opts.compress.is_empty();
        let (module, b) = timings.time("bucket", || {
            bucket(&partitioned.module, limit, scalars_apart)
        })?;
        partitioned.module = module;
        buckets = b;
    }
    let mut regathered = 0;
    if let Some(gap) = opts.regather_gap {
        let (module, n) = timings.time("regather", || regather(&partitioned.module, gap))?;
        partitioned.module = module;
        regathered = n;
    }
    let mut prefetched = 0;
    if opts.prefetch > 0 {
        let (module, n) =
            timings.time("prefetch", || prefetch(&partitioned.module, opts.prefetch))?;
        partitioned.module = module;
        prefetched = n;
    }
    Ok((extraction, partitioned, buckets, regathered, prefetched))
}

/// The program the model predicts fastest among the extraction's, the one with every
/// loop run whole, and, loop by loop, the one with each of the loop's plans (its other
/// plans banned); what the kept program banned stays banned in `propagated`.
fn weigh_loops(
    global: &Module,
    propagated: &mut Propagated,
    f: &shardc_ir::Function,
    opts: &Options,
    timings: &mut Timings,
    extraction: Extraction,
    partitioned: Partitioned,
) -> Result<(Extraction, Partitioned), CompileError> {
    use crate::local::loops::{LoopKey, on_pieces, plan_keys, taken};
    let cost = propagated.cost.clone();
    // Weighed as they will run: all-reduces only sliced scattered, gradient buckets
    // merging all-reduces (one latency each).
    let time = |p: &Partitioned| {
        let scattered = match opts.scatter_sums {
            true => scatter(&p.module).map_or_else(|_| p.module.clone(), |(m, _)| m),
            false => p.module.clone(),
        };
        let bucketed = opts.bucket_bytes.and_then(|limit| {
            let scalars_apart = !opts.compress.is_empty();
            bucket(&scattered, limit, scalars_apart).ok()
        });
        predicted(&cost, bucketed.as_ref().map_or(&scattered, |(m, _)| m))
    };
    // The program extracted with `bans` added to `base`, and its predicted time.
    let mut attempt = |propagated: &mut Propagated,
                       base: &HashSet<LoopKey>,
                       bans: &[LoopKey]|
     -> Result<Option<(Extraction, Partitioned, f64)>, CompileError> {
        propagated.banned_loops = base.clone();
        propagated.banned_loops.extend(bans.iter().cloned());
        let x = timings.time("extract", || extract(propagated, f))?;
        if !x.cost.is_finite() {
            return Ok(None);
        }
        // A combination no plan covers whole (a class only a banned plan gives).
        let Ok(p) = timings.time("partition", || partition(global, propagated, &x)) else {
            return Ok(None);
        };
        let t = time(&p);
        Ok(Some((x, p, t)))
    };
    let mut best_time = time(&partitioned);
    let mut best = (extraction, partitioned);
    let mut kept = propagated.banned_loops.clone();
    let whole = on_pieces(propagated);
    if let Some((x, p, t)) = attempt(propagated, &kept, &whole)?
        && t < best_time
    {
        (best, best_time) = ((x, p), t);
        kept.extend(whole);
    }
    for (op, keys) in plan_keys(propagated) {
        // This loop's plans as the choice left them (banned in a conflict or not).
        let base: HashSet<LoopKey> = kept.iter().filter(|k| k.0 != op).cloned().collect();
        // With none of its plans banned, the plan the best program runs the loop by is
        // weighed already: banning the plans it does not take extracts it again.
        let runs_by = match taken(propagated, &best.0).remove(&op).as_deref() {
            Some([(key, _)]) if base.len() == kept.len() => Some(key.clone()),
            _ => None,
        };
        let mut winner: Option<Vec<LoopKey>> = None;
        for key in keys.iter().filter(|&k| Some(k) != runs_by.as_ref()) {
            let others: Vec<LoopKey> = keys
                .iter()
                .filter(|k| *k != key)
                .map(|k| (op, k.clone()))
                .collect();
            if let Some((x, p, t)) = attempt(propagated, &base, &others)?
                && t < best_time
            {
                (best, best_time) = ((x, p), t);
                winner = Some(others);
            }
        }
        if let Some(others) = winner {
            kept = base;
            kept.extend(others);
        }
    }
    propagated.banned_loops = kept;
    Ok(best)
}

/// A per-device program's predicted step, its peak memory weighed as extraction weighs
/// it (a budget to fit raises the weight).
fn predicted(cost: &CostModel, m: &Module) -> f64 {
    m.entry().map_or(f64::INFINITY, |f| {
        cost.program_time(f).total() + peak(f).bytes as f64 * cost.memory_weight
    })
}

fn memory_peak(p: &Partitioned) -> Peak {
    p.module.entry().map(peak).unwrap_or_default()
}

/// The error of a plan over the memory budget: the op at its peak and the five largest
/// values live there (arguments by number and layout, others by the op defining them).
fn over_budget(global: &Module, p: &Partitioned, budget: u64, at_peak: &Peak) -> CompileError {
    let Some(f) = p.module.entry() else {
        return CompileError::internal("memory budget", "a plan without an entry function");
    };
    let names = f.value_names();
    let ops: Vec<_> = f.body_ops().collect();
    let at = ops.get(at_peak.at).map_or_else(
        || "the start".to_string(),
        |(_, op)| {
            let first = op
                .results
                .first()
                .map_or("?", |r| names[r.index()].as_str());
            format!("{first} ({})", op.kind.name())
        },
    );
    let live: Vec<String> = at_peak
        .live
        .iter()
        .take(5)
        .map(|&(v, bytes)| match f.args().iter().position(|&a| a == v) {
            Some(k) => {
                let layout = global
                    .entry()
                    .and_then(|g| g.arg_types().get(k).cloned())
                    .map_or_else(
                        || p.inputs[k].to_string(),
                        |ty| crate::passes::explain::describe(&ty, &p.inputs[k], &p.mesh),
                    );
                format!("argument {k} as {layout} ({bytes} B)")
            }
            None => {
                let by = f
                    .defining_op(v)
                    .map_or("?".to_string(), |o| f.op(o).kind.name());
                format!("{} = {by} : {} ({bytes} B)", names[v.index()], f.ty(v))
            }
        })
        .collect();
    CompileError::OverMemory {
        budget,
        peak: at_peak.bytes,
        at,
        live: live.join(", "),
    }
}

impl Compiled {
    /// The name of the per-device program's function (the entry function's name in
    /// the input: `main` for what JAX and `jit` lower): what runners run.
    pub fn entry_name(&self) -> &str {
        self.partitioned
            .module
            .entry()
            .map_or("main", |f| f.name.as_str())
    }

    /// The module after `stage`.
    pub fn module(&self, stage: Stage) -> &Module {
        match stage {
            Stage::Input => &self.input,
            Stage::Inlined => &self.global,
            Stage::Propagated => self.annotated.get_or_init(|| {
                crate::passes::explain::annotate(&self.global, &self.propagated, &self.extraction)
            }),
            Stage::Partitioned => &self.partitioned.module,
        }
    }

    /// The module after a stage, in the StableHLO + Shardy syntax JAX prints.
    pub fn as_text(&self, stage: Stage) -> String {
        print_module(self.module(stage))
    }
}
