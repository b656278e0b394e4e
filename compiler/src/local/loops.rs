//! `stablehlo.while` on pieces: a loop whose carried values are split runs on each
//! device over its pieces, its body partitioned for those layouts.
//!
//! Each carried value keeps one layout from its initial value through the body's
//! arguments and results to the loop's result (the registry's `while` rule: carried
//! dimensions pass through, what the regions read from outside is replicated). For each
//! layout propagation offers, the body is compiled as a function of its own — the
//! carried pieces and the captured values in, the next carried pieces out, in the same
//! layouts — by the whole pipeline ([`crate::pipeline::compile`]): its plan is the body
//! the per-device loop runs, and its cost times the trip count is the loop's cost in the
//! e-graph. A body whose plan communicates runs as a loop of the per-device program whose
//! steps every device runs together, or unrolled when asked (its trip count known and at
//! most `Options::unroll_loops`, `shardc_ir::unroll`). Every device decides
//! alone whether to go on, so the condition reads whole values, or is partitioned too
//! (a convergence test on split values: its reduction all-reduced at every test).

use crate::error::CompileError;
use crate::passes::explain::Collective;
use crate::passes::extract::Extraction;
use crate::passes::propagate::{Options, Propagated};
use crate::pipeline::{Compiled, compile};
use crate::sharding::cost::CostModel;
use crate::sharding::egraph::{LayoutId, PNode};
use crate::sharding::layout::{CombinerKey, Layout};
use shardc_ir::builder::FunctionBuilder;
use shardc_ir::rules::Combiner;
use shardc_ir::{
    AxisRef, BlockId, Function, IrError, Mesh, Module, Op, OpId, OpKind, TensorType, ValueId,
};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The trips a loop whose trip count is not known when compiling (a `while_loop` until
/// convergence, or bounded by an input) is costed for: a plan that communicates in every
/// iteration pays that many times, a gather before the loop once. Counting one trip made
/// `jax_scipy_special_incomplete_fwd`'s convergence loops run on pieces, gathering in
/// every iteration: 3.7-5.6x slower, measured, than gathering once and running them
/// whole (`docs/bench/loops-2026-12-06*.json`).
pub const ASSUMED_TRIPS: usize = 100;

/// The trips loop `op` of `f` is costed for: its trip count when known, else the most it
/// can make when its condition bounds a counter (`shardc_ir::unroll::trip_bound`: a
/// decoding loop that stops at its length or when every sequence is done, costed as if it
/// ran to it), else [`ASSUMED_TRIPS`].
pub fn costed_trips(f: &Function, op: &Op) -> usize {
    shardc_ir::unroll::trip_bound(f, op).unwrap_or(ASSUMED_TRIPS)
}

/// How a loop runs for one layout of its operands.
pub struct LoopPlan {
    /// The body's pipeline run: its partitioned program is what each device runs per
    /// iteration (arguments: the carried pieces, then the captured values). `None` when
    /// every operand is whole: the loop runs as written.
    pub body: Option<Arc<Compiled>>,
    /// The condition's pipeline run, when it reads a split value (a convergence test on
    /// split values: its reduction then all-reduced, so every device decides the same);
    /// `None` when it reads whole values only and runs as written.
    pub cond: Option<Arc<Compiled>>,
    /// The layout of each carried value through the loop (a partial sum stays partial).
    pub layouts: Vec<Layout>,
    /// Predicted seconds of the whole loop: the body's plan times the trips
    /// ([`costed_trips`]), and a partitioned condition's once more.
    pub cost: f64,
}

/// Which carried values a loop's condition reads (those stay replicated unless the
/// condition is partitioned too: each device decides alone whether to go on), by
/// carried index.
pub fn read_by_cond(f: &Function, op: &Op) -> Vec<bool> {
    let mut read = vec![false; op.results.len()];
    let Some(&cond) = op.regions.first() else {
        return read;
    };
    let block = f.block(cond);
    let mut used: HashSet<ValueId> = HashSet::new();
    collect_reads(f, cond, &mut used);
    for (k, a) in block.args.iter().enumerate() {
        if let Some(r) = read.get_mut(k) {
            *r = used.contains(a);
        }
    }
    read
}

/// Every value the ops of `block` (and of regions nested in them) read.
fn collect_reads(f: &Function, block: BlockId, into: &mut HashSet<ValueId>) {
    let b = f.block(block);
    into.extend(b.results.iter().copied());
    for &id in &b.ops {
        let o = f.op(id);
        into.extend(o.operands.iter().copied());
        for &r in &o.regions {
            collect_reads(f, r, into);
        }
    }
}

/// Whether every layout is replicated and complete: the loop then runs as written.
pub fn whole(layouts: &[Layout]) -> bool {
    layouts
        .iter()
        .all(|l| l.axes().next().is_none() && !l.is_partial())
}

/// The loop `op` of `f` with its operands in `layouts` (carried ones, then captured
/// ones): run whole when nothing is split (and no `shard_map` is inside it: its body
/// is partitioned then too), else its body compiled for them. An error
/// when the body cannot run so: its layouts do not divide the carried values, or it
/// would communicate.
pub fn plan(
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    layouts: &[Layout],
    opts: &Options,
) -> Result<LoopPlan, CompileError> {
    if whole(layouts) && !crate::local::manual::holds_manual(f, op) {
        return Ok(LoopPlan {
            body: None,
            cond: None,
            layouts: layouts[..op.results.len()].to_vec(),
            cost: whole_cost(f, op, &opts.cost.for_devices(mesh.num_devices())),
        });
    }
    let fixed = vec![true; op.results.len()];
    let compiled = compile_nested(&body_module(f, op, mesh, layouts, &fixed)?, opts)?;
    // A body that communicates (or runs a per-device op on what changes between
    // iterations; the rest is hoisted before the loop, `emit`) runs unrolled, one copy
    // per iteration, for a few trips known when compiling (a step's micro-batches under
    // tensor parallelism); a longer loop runs as a loop of the per-device program, every
    // device going round together (the runtime's `engine::Control`).
    let trips = costed_trips(f, op) as f64;
    let model = opts.cost.for_devices(mesh.num_devices());
    let mut cost = run_cost(&compiled, &model) * trips;
    // A condition reading split values is partitioned too (its test run once more than
    // the body).
    let cond = if reads_split(f, op, layouts) {
        let c = compile_nested(&cond_module(f, op, mesh, layouts)?, opts)?;
        cost += run_cost(&c, &model) * (trips + 1.0);
        Some(c)
    } else {
        None
    };
    Ok(LoopPlan {
        body: Some(compiled),
        cond,
        layouts: layouts[..op.results.len()].to_vec(),
        cost,
    })
}

/// The layouts the body settles on: starting from `layouts`, each carried value takes
/// the layout the body's plan gives its next value when that is left free, until they
/// agree (what Shardy's propagation through a loop's regions reaches); carried values the
/// condition reads stay whole, a partial sum stays partial when the loop starts it from
/// zeros (a scan's gradient accumulators: one all-reduce after the loop, not one per
/// iteration, as XLA's all-reduce code motion) and is reduced otherwise. `None` when the
/// body cannot be compiled so or the layouts do not settle within a few rounds.
pub fn settle(
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    layouts: &[Layout],
    opts: &Options,
) -> Option<Vec<Layout>> {
    const ROUNDS: usize = 8;
    let cond_reads = read_by_cond(f, op);
    let carried = op.results.len();
    let zeros: Vec<bool> = (0..carried)
        .map(|k| crate::local::localize::holds_identity(f, op.operands[k], Combiner::Sum))
        .collect();
    let mut tried = vec![false; carried];
    let mut now = layouts.to_vec();
    for _ in 0..ROUNDS {
        // Partial sums being tried are asked for as they are (a free result is complete).
        let partial: Vec<bool> = now.iter().map(Layout::is_partial).collect();
        let module = body_module(f, op, mesh, &now, &partial).ok()?;
        let compiled = match compile_nested(&module, opts) {
            Ok(c) => c,
            Err(_) if partial.contains(&true) => {
                now = now.iter().map(Layout::reduced).collect();
                continue;
            }
            Err(_) => return None,
        };
        let mut next = now.clone();
        for (k, out) in compiled.partitioned.outputs.iter().enumerate() {
            if !cond_reads[k] {
                next[k] = if zeros[k] && out.combiner == CombinerKey::Sum {
                    out.clone()
                } else {
                    out.reduced()
                };
            }
        }
        if next == now {
            // Settled. An accumulator started from zeros that came out complete is tried
            // once as a partial sum over the axes the loop's other carried values (not
            // accumulators, not what the body reads from outside) are split on: a
            // data-parallel gradient summed over the batch's axis, not over the axis a
            // tensor-parallel weight is split on.
            let split: Vec<AxisRef> = next[..carried]
                .iter()
                .zip(&zeros)
                .filter(|(_, zero)| !**zero)
                .flat_map(|(l, _)| l.axes().cloned())
                .collect();
            let mut again = false;
            for k in 0..carried {
                if !zeros[k] || tried[k] || cond_reads[k] || next[k].is_partial() {
                    continue;
                }
                tried[k] = true;
                let mut free: Vec<AxisRef> = Vec::new();
                for a in &split {
                    if !next[k].axes().any(|b| b.overlaps(a)) && !free.iter().any(|b| b.overlaps(a))
                    {
                        free.push(a.clone());
                    }
                }
                if !free.is_empty() {
                    next[k].unreduced = free;
                    next[k].combiner = CombinerKey::Sum;
                    again = true;
                }
            }
            if !again {
                return Some(now);
            }
        }
        now = next;
    }
    None
}

/// The body of loop `op` as a module of its own: the carried values, then the captured
/// ones, as arguments in `layouts`; the next carried values as results, result `k` in
/// its carried layout when `fixed[k]`, else left for propagation to choose.
fn body_module(
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    layouts: &[Layout],
    fixed: &[bool],
) -> Result<Module, CompileError> {
    let [_, body] = op.regions.as_slice() else {
        return Err(CompileError::internal("loops", "a while without a body"));
    };
    let mut g = shardc_ir::unroll::region_function(f, *body, "body", op.captured_operands())?;
    for (k, l) in layouts.iter().enumerate() {
        let ty = g.arg_types()[k].clone();
        if !l.divides(mesh, &ty) {
            return Err(CompileError::Unsupported {
                what: format!("a loop carrying {ty} as {l}"),
                why: "a loop's pieces must divide their values".into(),
            });
        }
        g.arg_attrs[k].sharding = l.to_sharding(&mesh.name);
    }
    for (k, l) in layouts.iter().take(op.results.len()).enumerate() {
        if fixed[k] {
            g.result_attrs[k].sharding = l.to_sharding(&mesh.name);
        }
    }
    Ok(Module {
        name: None,
        attrs: Vec::new(),
        meshes: vec![mesh.clone()],
        functions: vec![g],
    })
}

/// Whether the condition of loop `op` reads a value (carried or captured) that `layouts`
/// split or leave partial.
fn reads_split(f: &Function, op: &Op, layouts: &[Layout]) -> bool {
    let Some(&cond) = op.regions.first() else {
        return false;
    };
    let mut read: HashSet<ValueId> = HashSet::new();
    collect_reads(f, cond, &mut read);
    let args = &f.block(cond).args;
    let split = |l: &Layout| l.axes().next().is_some() || l.is_partial();
    layouts.iter().enumerate().any(|(k, l)| {
        let v = if k < op.results.len() {
            args.get(k)
        } else {
            op.operands.get(k)
        };
        split(l) && v.is_some_and(|v| read.contains(v))
    })
}

/// The condition of loop `op` as a module of its own: the carried values, then the
/// captured ones, as arguments in `layouts`; the test, whole, as its result.
fn cond_module(
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    layouts: &[Layout],
) -> Result<Module, CompileError> {
    let Some(&cond) = op.regions.first() else {
        return Err(CompileError::internal(
            "loops",
            "a while without a condition",
        ));
    };
    let mut g = shardc_ir::unroll::region_function(f, cond, "cond", op.captured_operands())?;
    for (k, l) in layouts.iter().enumerate() {
        if let Some(attrs) = g.arg_attrs.get_mut(k) {
            attrs.sharding = l.to_sharding(&mesh.name);
        }
    }
    if let Some(attrs) = g.result_attrs.first_mut() {
        attrs.sharding = Layout::replicated(0).to_sharding(&mesh.name);
    }
    Ok(Module {
        name: None,
        attrs: Vec::new(),
        meshes: vec![mesh.clone()],
        functions: vec![g],
    })
}

thread_local! {
    /// The bodies and conditions [`compile_nested`] compiled on this thread, by their
    /// printed module and options.
    static NESTED: RefCell<HashMap<String, Result<Arc<Compiled>, CompileError>>> =
        RefCell::new(HashMap::new());
}

/// At most this many compiled bodies are kept ([`compile_nested`]); the cache starts
/// afresh when full.
const NESTED_KEPT: usize = 256;

/// `m` (a loop's body or condition, as [`body_module`] and [`cond_module`] make it)
/// compiled with the [`nested`] options of `opts`. The same body is asked for with the
/// same layouts many times — every round of [`settle`], [`plan`] after it, and again in
/// every compile of an enclosing loop's body (`jax.random.gamma`'s rejection loops
/// inside `vmap`'s loop compiled in 10 s without this cache, 2.5 s with it) — so each is compiled
/// once. The pipeline is a function of the module and its options, so a hit is what
/// compiling again would give.
fn compile_nested(m: &Module, opts: &Options) -> Result<Arc<Compiled>, CompileError> {
    let opts = nested(opts);
    let key = format!("{opts:?}\n{}", shardc_ir::text::print_module(m));
    if let Some(hit) = NESTED.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let got = compile(m, &opts).map(Arc::new);
    NESTED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= NESTED_KEPT {
            c.clear();
        }
        c.insert(key, got.clone());
    });
    got
}

/// The options a loop's body compiles with: the caller's cost model and limits (a tenth
/// of its time: a loop is planned for a few layouts, each settling in a few rounds, all
/// within one visit of the caller's propagation), none of the passes that act on a whole
/// program (bucketing, regathering, prefetching, padding, a memory budget, compression).
pub(crate) fn nested(opts: &Options) -> Options {
    Options {
        time_limit: opts.time_limit / 10,
        bucket_bytes: None,
        regather_gap: None,
        prefetch: 0,
        pad_uneven: false,
        memory_per_device: None,
        compress: Vec::new(),
        ..opts.clone()
    }
}

/// What one run of a nested compile (a loop's body or condition) costs the caller's
/// extraction: its own extraction's cost, or, when it kept the plan extracted with memory
/// weighed more (`pipeline::weigh_lean`, whose cost counts every byte at that weight: a
/// context-parallel micro-batch's body at 0.52 s where it is predicted to run in 0.03 s),
/// its predicted time on `cost`, the caller's model for the mesh.
fn run_cost(c: &Compiled, cost: &CostModel) -> f64 {
    if c.propagated.cost.memory_weight == cost.memory_weight {
        return c.extraction.cost;
    }
    c.partitioned.module.entry().map_or(f64::INFINITY, |g| {
        let t = cost.program_time(g);
        t.total() - t.fixed
    })
}

/// Predicted seconds of a loop run whole on every device: its body's and condition's
/// ops on the global values, times the trips ([`costed_trips`]).
fn whole_cost(f: &Function, op: &Op, cost: &CostModel) -> f64 {
    let per_iteration: f64 = op.regions.iter().map(|&r| region_cost(f, r, cost)).sum();
    per_iteration * costed_trips(f, op) as f64
}

/// Predicted seconds of one run of a region's ops on the global values (nested loops
/// times their trips).
fn region_cost(f: &Function, block: BlockId, cost: &CostModel) -> f64 {
    f.block(block)
        .ops
        .iter()
        .map(|&id| {
            let o = f.op(id);
            if o.kind == OpKind::While {
                return whole_cost(f, o, cost);
            }
            let ins: Vec<TensorType> = o.operands.iter().map(|&v| f.ty(v).clone()).collect();
            let outs: Vec<TensorType> = o.results.iter().map(|&v| f.ty(v).clone()).collect();
            cost.op_time(&o.kind, &ins, &outs)
                + o.regions
                    .iter()
                    .map(|&r| region_cost(f, r, cost))
                    .sum::<f64>()
        })
        .sum()
}

/// The loop on each device: `ins` its operands' pieces (carried, then captured), its
/// condition copied (when it reads whole values only) or `cond` (the plan's partitioned
/// condition), and `body` (the plan's partitioned body) as its body; its results' pieces.
pub fn emit(
    b: &mut FunctionBuilder,
    f: &Function,
    op: &Op,
    ins: &[ValueId],
    body: &Function,
    cond: Option<&Function>,
) -> Result<Vec<ValueId>, IrError> {
    let carried = op.results.len();
    let (carried_in, captured) = ins.split_at(carried.min(ins.len()));
    let types: Vec<TensorType> = carried_in.iter().map(|&v| b.ty(v).clone()).collect();
    // The body's per-device ops that do not depend on what changes between iterations
    // (a constant's piece sliced out on each device, `shard_slice`, a collective of a
    // scan's constants) run once, before the loop, with what they read; the other ops
    // stay in the body, where the kernels fold its constants.
    let varies = variant_ops(body, carried);
    let ops: Vec<&Op> = body.body_ops().map(|(_, o)| o).collect();
    let mut read: HashSet<ValueId> = HashSet::new();
    let mut before = vec![false; ops.len()];
    for (i, o) in ops.iter().enumerate().rev() {
        if !varies[i] && (o.kind.is_per_device() || o.results.iter().any(|r| read.contains(r))) {
            before[i] = true;
            read.extend(o.operands.iter().copied());
        }
    }
    let mut outer: HashMap<ValueId, ValueId> = body
        .args()
        .iter()
        .copied()
        .zip(carried_in.iter().chain(captured).copied())
        .collect();
    for (o, _) in ops.iter().zip(&before).filter(|(_, b)| **b) {
        b.copy_op(body, o, &mut outer)?;
    }
    let hoisted = |i: usize| before[i] && ops[i].kind.is_per_device();
    let mut inner: HashMap<ValueId, ValueId> = ops
        .iter()
        .enumerate()
        .filter(|&(i, _)| hoisted(i))
        .flat_map(|(_, o)| o.results.iter().map(|r| (*r, outer[r])))
        .collect();
    let args = b.begin_block(&types);
    let cond = match cond {
        Some(plan) => {
            let mut map: HashMap<ValueId, ValueId> = plan
                .args()
                .iter()
                .copied()
                .zip(args.into_iter().chain(captured.iter().copied()))
                .collect();
            let ops: Vec<&Op> = plan.body_ops().map(|(_, o)| o).collect();
            copy_block(b, plan, &ops, plan.results(), &mut map)?
        }
        None => {
            let cond = f.block(op.regions[0]);
            let mut map: HashMap<ValueId, ValueId> = op
                .captured_operands()
                .iter()
                .copied()
                .zip(captured.iter().copied())
                .collect();
            map.extend(cond.args.iter().copied().zip(args));
            let cond_ops: Vec<&Op> = cond.ops.iter().map(|&id| f.op(id)).collect();
            copy_block(b, f, &cond_ops, &cond.results, &mut map)?
        }
    };
    let args = b.begin_block(&types);
    inner.extend(
        body.args()
            .iter()
            .copied()
            .zip(args.into_iter().chain(captured.iter().copied())),
    );
    let kept: Vec<&Op> = (0..ops.len())
        .filter(|&i| !hoisted(i))
        .map(|i| ops[i])
        .collect();
    let body = copy_block(b, body, &kept, body.results(), &mut inner)?;
    let id = b.push_region_op(OpKind::While, carried_in, Some(&types), vec![cond, body])?;
    Ok(b.func().op(id).results.clone())
}

/// Whether each op of `body` (in order) depends on the carried values that change (its
/// first `carried` arguments but those it returns as they are: a scan's constants): the
/// others compute the same in every iteration.
fn variant_ops(body: &Function, carried: usize) -> Vec<bool> {
    let varying = variant_values(body, carried);
    body.body_ops()
        .map(|(_, o)| o.results.iter().any(|r| varying.contains(r)))
        .collect()
}

/// The values of `body` that depend on the carried values that change (see
/// [`variant_ops`]); an op reading one makes all its results vary.
fn variant_values(body: &Function, carried: usize) -> HashSet<ValueId> {
    let mut varying: HashSet<ValueId> = body.args()[..carried]
        .iter()
        .zip(body.results())
        .filter(|(a, r)| a != r)
        .map(|(&a, _)| a)
        .collect();
    for (_, o) in body.body_ops() {
        if o.operands.iter().any(|x| varying.contains(x)) {
            varying.extend(o.results.iter().copied());
        }
    }
    varying
}

/// Copies `ops` of `src` into the block `b` has open and closes it returning `results`.
fn copy_block(
    b: &mut FunctionBuilder,
    src: &Function,
    ops: &[&Op],
    results: &[ValueId],
    map: &mut HashMap<ValueId, ValueId>,
) -> Result<BlockId, IrError> {
    let mut copy = || -> Result<Vec<ValueId>, IrError> {
        for o in ops {
            b.copy_op(src, o, map)?;
        }
        Ok(results.iter().map(|r| map[r]).collect())
    };
    match copy() {
        Ok(results) => Ok(b.end_block(&results)),
        Err(e) => {
            b.end_block(&[]);
            Err(e)
        }
    }
}

/// The plan extraction chose for loop `id`, if it runs on pieces.
fn chosen<'p>(p: &'p Propagated, x: &Extraction, id: OpId) -> Option<&'p LoopPlan> {
    x.choice.values().find_map(|node| match node {
        PNode::Local {
            op,
            result,
            layout,
            children,
        } if *op == id => p
            .loop_plan(id, children, *result as usize, p.graph.layout(*layout))
            .filter(|plan| plan.body.is_some()),
        _ => None,
    })
}

/// The collectives the chosen plan of loop `op` (op `id` of `f`) runs: its body's, those
/// of values that do not change between iterations once, before the loop (`emit`), the
/// others once per iteration of the unrolled loop. None for other ops and loops run whole.
pub fn body_collectives(
    p: &Propagated,
    x: &Extraction,
    f: &Function,
    id: OpId,
    op: &Op,
    names: &[String],
) -> Vec<Collective> {
    if op.kind != OpKind::While {
        return Vec::new();
    }
    let Some(body) = chosen(p, x, id).and_then(|plan| plan.body.as_ref()) else {
        return Vec::new();
    };
    let at = op
        .results
        .first()
        .map_or_else(String::new, |r| names[r.index()].clone());
    // A collective of a value that changes between iterations runs in every iteration
    // (unrolled, or as a loop of the per-device program, `plan`); the others once,
    // before the loop (`emit`).
    let Some(g) = body.global.entry() else {
        return Vec::new();
    };
    let global_names = g.value_names();
    let varying: HashSet<&str> = variant_values(g, op.results.len())
        .into_iter()
        .map(|v| global_names[v.index()].as_str())
        .collect();
    let trips = shardc_ir::unroll::known_trip_count(f, op);
    let unrolled = trips.is_some_and(|t| t <= p.unroll_loops);
    let mut out = Vec::new();
    for c in body.explain().collectives {
        // A shard_map body's collectives are named after the shard_map's result
        // (`%5 (shard_map body)`).
        let value = c.value.split(' ').next().unwrap_or_default();
        let varies = varying.contains(value);
        let (runs, when) = if varies {
            let when = match (unrolled, trips) {
                (true, _) => "in every iteration, unrolled",
                (false, Some(_)) => "in every iteration of the loop",
                (false, None) => {
                    "in every iteration of the loop, counted once (its trips are not known when compiling)"
                }
            };
            (trips.unwrap_or(1), when)
        } else {
            (1, "run once, before it")
        };
        let mut c = c;
        c.trips_unknown = runs == 1 && trips.is_none() && varies;
        c.value = format!("{} in the body of loop {at} ({when})", c.value);
        c.needed_by = vec![format!("the body of loop {at}")];
        out.extend(std::iter::repeat_n(c, runs));
    }
    // A partitioned condition's collectives run at every test: once more than the body.
    let cond = chosen(p, x, id).and_then(|plan| plan.cond.as_ref());
    for c in cond.map(|c| c.explain().collectives).unwrap_or_default() {
        let mut c = c;
        c.trips_unknown = trips.is_none();
        let when = if trips.is_some() {
            "at every test"
        } else {
            "at every test, counted once (its trips are not known when compiling)"
        };
        c.value = format!("{} in the condition of loop {at} ({when})", c.value);
        c.needed_by = vec![format!("the condition of loop {at}")];
        out.extend(std::iter::repeat_n(c, trips.map_or(1, |t| t + 1)));
    }
    out
}

/// How one loop of the program runs, for `explain`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LoopRun {
    /// The loop's first result (`%12`).
    pub value: String,
    /// Its trip count, when known when compiling.
    pub trips: Option<usize>,
    /// When its trip count is not known, the most trips its condition allows, when it
    /// bounds a counter ([`shardc_ir::unroll::trip_bound`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<usize>,
    /// On pieces (and its carried layouts), unrolled, or whole on every device and why.
    pub how: String,
}

/// How loop `op` (op `id` of `f`) runs in the extracted program `x`; `None` for other ops.
pub fn run_of(
    p: &Propagated,
    x: &Extraction,
    f: &Function,
    id: OpId,
    op: &Op,
    names: &[String],
) -> Option<LoopRun> {
    if op.kind != OpKind::While {
        return None;
    }
    let trips = shardc_ir::unroll::known_trip_count(f, op);
    let value = op
        .results
        .first()
        .map_or_else(String::new, |r| names[r.index()].clone());
    let how = match chosen(p, x, id) {
        Some(plan) => {
            let carried: Vec<String> = plan.layouts.iter().map(Layout::to_string).collect();
            let per_device = plan
                .body
                .as_ref()
                .and_then(|b| b.partitioned.module.entry());
            let unrolled = plan.cond.is_some()
                || per_device.is_some_and(|b| {
                    b.body_ops()
                        .zip(variant_ops(b, op.results.len()))
                        .any(|((_, o), varies)| varies && o.kind.is_per_device())
                });
            if unrolled && trips.is_some_and(|t| t <= p.unroll_loops) {
                format!(
                    "unrolled into {} copies of its body's plan on pieces (its body communicates in every iteration), carried as {}",
                    trips.unwrap_or(1),
                    carried.join(", ")
                )
            } else if unrolled {
                let what = if plan.cond.is_some() {
                    "its condition tests split values, reduced on every device"
                } else {
                    "its body communicates in every iteration"
                };
                format!(
                    "on pieces, a loop every device runs together ({what}), carried as {}",
                    carried.join(", ")
                )
            } else {
                format!("on pieces, carried as {}", carried.join(", "))
            }
        }
        None => {
            let refused = p.loop_refusals.get(&id).filter(|r| !r.is_empty());
            let on_pieces = p
                .loops
                .iter()
                .any(|((o, _), plans)| *o == id && plans.iter().any(|l| l.body.is_some()));
            let why = match refused {
                Some(r) if !on_pieces => r.join("; "),
                Some(r) => format!(
                    "its plans on pieces were predicted slower (others were refused: {})",
                    r.join("; ")
                ),
                None if on_pieces => "its plans on pieces were predicted slower".into(),
                None => "no split layout of its carried values was offered".into(),
            };
            format!("whole on every device (what it reads split is gathered first): {why}")
        }
    };
    let at_most = trips
        .is_none()
        .then(|| shardc_ir::unroll::trip_bound(f, op))
        .flatten();
    Some(LoopRun {
        value,
        trips,
        at_most,
        how,
    })
}

/// Bans, for every loop whose results the extraction `x` took from plans that read its
/// operands in different layouts, all those layouts but the ones most of its taken
/// results read (the cheaper plan on a tie), so that extracting again runs each loop
/// once. Gives what it banned.
pub fn ban_conflicts(p: &mut Propagated, x: &Extraction) -> Vec<(OpId, Vec<LayoutId>)> {
    let taken = taken(p, x);
    let cost = |op: OpId, key: &Vec<LayoutId>| {
        p.loops
            .get(&(op, key.clone()))
            .and_then(|plans| plans.iter().map(|l| l.cost).min_by(f64::total_cmp))
            .unwrap_or(f64::INFINITY)
    };
    let mut banned = Vec::new();
    for (op, mut uses) in taken {
        if uses.len() < 2 {
            continue;
        }
        uses.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then(cost(op, &a.0).total_cmp(&cost(op, &b.0)))
        });
        banned.extend(uses.into_iter().skip(1).map(|(key, _)| (op, key)));
    }
    p.banned_loops.extend(banned.iter().cloned());
    banned
}

/// The operand layouts of the plans the extraction `x` took each loop's results from,
/// each with how many of its results it took so.
pub fn taken(p: &Propagated, x: &Extraction) -> HashMap<OpId, Vec<(Vec<LayoutId>, usize)>> {
    let eg = &p.graph.egraph;
    let mut taken: HashMap<OpId, Vec<(Vec<LayoutId>, usize)>> = HashMap::new();
    for node in x.choice.values() {
        let PNode::Local { op, children, .. } = node else {
            continue;
        };
        if !p.loops.keys().any(|(o, _)| o == op) {
            continue;
        }
        let key: Vec<LayoutId> = children.iter().map(|&c| eg[eg.find(c)].data.1).collect();
        let uses = taken.entry(*op).or_default();
        match uses.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => uses.push((key, 1)),
        }
    }
    taken
}

/// Whether the extraction `x` runs some loop on pieces (a plan with a partitioned body).
pub fn any_on_pieces(p: &Propagated, x: &Extraction) -> bool {
    x.choice.values().any(|node| match node {
        PNode::Local {
            op,
            result,
            layout,
            children,
        } => p
            .loop_plan(*op, children, *result as usize, p.graph.layout(*layout))
            .is_some_and(|plan| plan.body.is_some()),
        _ => false,
    })
}

/// A loop and the layouts of its operands: one of its plans.
pub type LoopKey = (OpId, Vec<LayoutId>);

/// Every plan that runs a loop on pieces: banning them runs every loop whole.
pub fn on_pieces(p: &Propagated) -> Vec<LoopKey> {
    let mut keys: Vec<LoopKey> = p
        .loops
        .iter()
        .filter(|(_, plans)| plans.iter().any(|plan| plan.body.is_some()))
        .map(|(key, _)| key.clone())
        .collect();
    keys.sort();
    keys
}

/// Each loop with two plans or more, and their operand layouts, in program order.
pub fn plan_keys(p: &Propagated) -> Vec<(OpId, Vec<Vec<LayoutId>>)> {
    let mut by_op: std::collections::BTreeMap<OpId, Vec<Vec<LayoutId>>> = Default::default();
    for (key, plans) in &p.loops {
        if !plans.is_empty() {
            by_op.entry(key.0).or_default().push(key.1.clone());
        }
    }
    by_op
        .into_iter()
        .filter(|(_, keys)| keys.len() > 1)
        .map(|(op, mut keys)| {
            keys.sort();
            (op, keys)
        })
        .collect()
}
