//! Explanations: what the partitioner decided and why.
//!
//! For every value: the layouts it is used in (JAX's notation, `f32[8@data,16]`) and where
//! each came from (the annotation, and the ops it was carried through). For every
//! collective: the value and the consumer that needed it, kind, axes, bytes per device,
//! and the alternatives that lost, with their costs. [`Explanation::summary`] is the compact
//! part (shardings, collectives with kind, axes and bytes), named as the program text
//! numbers values; the `Display` adds provenance and alternatives; everything serializes
//! to JSON. [`Compiled::decisions`] is what users snapshot in their tests: the same
//! collectives, every value named as the program names it, so edits elsewhere leave it
//! alone.

use crate::passes::extract::{class_types, local_rotations, node_cost, program_order};
use crate::passes::propagate::{Annotation, Origin, Report, StopReason};
use crate::passes::route::{Compressed, Route};
use crate::pipeline::Compiled;
use crate::sharding::egraph::PNode;
use crate::sharding::layout::Layout;
use crate::sharding::reshard::CollectiveKind;
use egg::{Id, Language};
use serde::Serialize;
use shardc_ir::topology::{Algorithm, RouteChoice};
use shardc_ir::{Function, Mesh, TensorType, ValueDef, ValueId};
use std::collections::HashMap;
use std::fmt::{self, Write};

/// Why a program was partitioned as it was: every value's layouts and their origin, every
/// collective with its cause, cost and the alternatives, the bytes and the cost model.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// `mesh_data2_model4 = <["data"=2, "model"=4]>`
    pub mesh: String,
    /// What propagation did (classes, nodes, limits reached).
    pub propagation: Report,
    /// Every value and the layouts the program uses it in.
    pub values: Vec<ValueLayout>,
    /// Every collective of the partitioned program.
    pub collectives: Vec<Collective>,
    /// Bytes each device sends, summed over all collectives.
    pub bytes_per_device: u64,
    /// The most bytes a device holds at once running the partitioned program.
    pub peak_bytes_per_device: u64,
    /// That peak by what is live there (arguments, collective results, computed values,
    /// inside a loop).
    pub peak_breakdown: crate::passes::memory::Breakdown,
    /// The cost model's prediction of the whole step, in microseconds: the partitioned
    /// program as it runs (buckets and all), each op at the model's rates and each
    /// collective at its latency and bandwidth ([`CostModel::program_time`]), the figure
    /// `shardc bench plans` checks against runs.
    ///
    /// [`CostModel::program_time`]: crate::sharding::cost::CostModel::program_time
    pub cost_us: f64,
    /// Of [`Explanation::cost_us`], the compute.
    pub compute_us: f64,
    /// Of [`Explanation::cost_us`], the communication.
    pub communication_us: f64,
    /// Of [`Explanation::communication_us`], what runs while the device computes, not
    /// adding to the step ([`ProgramTime::hidden`]).
    ///
    /// [`ProgramTime::hidden`]: crate::sharding::cost::ProgramTime::hidden
    pub hidden_us: f64,
    /// Where the cost model's figures come from ([`crate::sharding::cost::CostModel::source`]).
    pub cost_model: String,
    /// How each loop runs: on pieces, unrolled, or whole and why (none without loops).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<crate::local::loops::LoopRun>,
}

/// A value and the layouts it is used in.
#[derive(Clone, Debug, Serialize)]
pub struct ValueLayout {
    /// `%3`
    pub name: String,
    /// The name the user's program gives it, when it does: an argument's pytree path
    /// (`params['Dense_0']['kernel']`), a result's (`result[0]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    /// `stablehlo.dot_general`, or `argument 0`.
    pub defined_by: String,
    /// One entry per layout the program uses the value in.
    pub layouts: Vec<UsedLayout>,
}

/// One layout of a value, how it is obtained and why.
#[derive(Clone, Debug, Serialize)]
pub struct UsedLayout {
    /// `f32[8@data,16]`
    pub layout: String,
    /// How it is obtained: `argument`, `local`, or the collectives of a reshard.
    pub how: String,
    /// Where it came from: `annotation on argument 0 -> %0 (stablehlo.dot_general)`.
    pub origin: String,
}

/// One collective of the partitioned program and why it is there.
#[derive(Clone, Debug, Serialize)]
pub struct Collective {
    /// `all_reduce`, `reduce_scatter`, `all_gather`, `all_to_all`.
    pub kind: String,
    /// The mesh axes it runs over.
    pub axes: Vec<String>,
    /// The value resharded, `%4`.
    pub value: String,
    /// The layout it starts from (`f32[8@data,16]`).
    pub from: String,
    /// The layout it makes.
    pub to: String,
    /// Bytes each device sends.
    pub bytes_per_device: u64,
    /// The ops (or results) that read the resharded value.
    pub needed_by: Vec<String>,
    /// Cost of the chosen way to obtain the resharded value, in microseconds: what it adds
    /// beyond obtaining its inputs in their cheapest layouts (the extraction's premium).
    pub cost_us: f64,
    /// The other ways that were considered for the same value and layout, with their costs.
    pub alternatives: Vec<Alternative>,
    /// How it runs over the cost model's topology, with both algorithms' predicted times
    /// (`passes/route.rs`); none without a topology.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteChoice>,
    /// How an all-reduce is compressed (`Options::compress`), with the bytes a device
    /// sends without compression; `bytes_per_device` is what it sends compressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Compressed>,
    /// How it runs as ring steps with the dot it feeds or is fed by (`passes/decompose.rs`,
    /// `Options::collective_matmul`); none when it runs whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring: Option<String>,
    /// It runs a number of times not known when compiling — once per iteration of a loop
    /// whose trip count is not (a `while_loop` bounded by an input), or when a branch of
    /// a shard_map body that holds it is taken — and is listed once; a loop of known
    /// trips lists its collectives once per iteration.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trips_unknown: bool,
}

/// Another way to the same value and layout, and its cost.
#[derive(Clone, Debug, Serialize)]
pub struct Alternative {
    /// The way (`all_gather(dim 0, {"data"}) from f32[8@data,16]`).
    pub what: String,
    /// Its cost in microseconds, counted as the chosen way's is.
    pub cost_us: f64,
}

/// The planned collectives as the per-device program runs them, matched through the
/// [`crate::passes::partition::OF`] attribute the partitioner writes on each: a bucket
/// (one all-reduce of several values) replaces its members, at the first one's place; a
/// value gathered again (regathering) is listed again after its first gather. Planned
/// collectives the per-device program does not name stay as they are.
/// `names` maps the attribute's `%N` to the names the explanation uses.
fn as_run(
    mut planned: Vec<Collective>,
    per_device: &shardc_ir::Function,
    names: &HashMap<&str, &str>,
    routes: &[Route],
) -> Vec<Collective> {
    let device_names = per_device.value_names();
    let route_of = |op: &shardc_ir::Op| {
        let at = &device_names[op.results.first()?.index()];
        routes.iter().find(|r| &r.at == at)
    };
    let mut routed: Vec<(usize, &Route)> = Vec::new();
    let mut used = vec![false; planned.len()];
    // Entries to add after (or, for buckets, in place of) planned entry `i`.
    let mut again: HashMap<usize, Vec<Collective>> = HashMap::new();
    let mut bucketed: HashMap<usize, Option<Collective>> = HashMap::new();
    for (_, op) in per_device.body_ops() {
        let of: Vec<String> = op
            .of()
            .into_iter()
            .map(|n| names.get(n.as_str()).map_or(n.clone(), |s| s.to_string()))
            .collect();
        let kind = op.kind.name();
        let kind = kind.trim_start_matches("stablehlo.");
        let find = |used: &[bool], name: &str, fresh: bool| {
            planned
                .iter()
                .enumerate()
                .position(|(i, c)| used[i] != fresh && c.kind == kind && c.value == name)
        };
        match of.as_slice() {
            [] => {}
            [one] => {
                if let Some(i) = find(&used, one, true) {
                    used[i] = true;
                    if let Some(r) = route_of(op) {
                        routed.push((i, r));
                    }
                } else if let shardc_ir::OpKind::ReduceScatter { groups, .. } = &op.kind
                    && let Some(i) = planned.iter().enumerate().position(|(i, c)| {
                        !used[i] && c.kind == "all_reduce" && c.value == one.as_str()
                    })
                {
                    // An all-reduce whose readers each keep only their block
                    // (`passes/scatter.rs`).
                    used[i] = true;
                    let c = &mut planned[i];
                    let size = per_device.ty(op.operands[0]).size_bytes() as u64;
                    let g = groups.group_size() as u64;
                    c.kind = "reduce_scatter".into();
                    c.to = format!(
                        "{}, of which each device keeps only its block (scattered)",
                        c.to
                    );
                    c.bytes_per_device = (g - 1) * size / g.max(1);
                } else if let Some(i) = find(&used, one, false) {
                    let mut c = planned[i].clone();
                    c.needed_by = vec![format!(
                        "gathered again for its later reads (regathering, Options::regather_gap), after {}",
                        planned[i].needed_by.join(", ")
                    )];
                    again.entry(i).or_default().push(c);
                }
            }
            members => {
                let idx: Vec<usize> = members
                    .iter()
                    .filter_map(|m| {
                        let i = find(&used, m, true)?;
                        used[i] = true;
                        Some(i)
                    })
                    .collect();
                let Some(&first) = idx.first() else {
                    continue;
                };
                let size: u64 = op
                    .operands
                    .first()
                    .map_or(0, |&x| per_device.ty(x).size_bytes() as u64);
                let g = match &op.kind {
                    shardc_ir::OpKind::AllReduce { groups } => groups.group_size() as u64,
                    _ => 1,
                };
                let bucket = Collective {
                    kind: planned[first].kind.clone(),
                    axes: planned[first].axes.clone(),
                    value: idx
                        .iter()
                        .map(|&i| planned[i].value.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    from: format!("{} values flattened into one bucket of {size} B", idx.len()),
                    to: "each value summed over the group".to_string(),
                    bytes_per_device: if g > 1 { 2 * (g - 1) * size / g } else { 0 },
                    needed_by: idx
                        .iter()
                        .flat_map(|&i| planned[i].needed_by.iter().cloned())
                        .collect(),
                    cost_us: idx.iter().map(|&i| planned[i].cost_us).sum(),
                    alternatives: Vec::new(),
                    route: None,
                    compressed: None,
                    ring: None,
                    trips_unknown: false,
                };
                let mut bucket = bucket;
                if let Some(r) = route_of(op) {
                    with_route(&mut bucket, r);
                }
                for &i in &idx {
                    bucketed.insert(i, None);
                }
                bucketed.insert(first, Some(bucket));
            }
        }
    }
    for (i, r) in routed {
        with_route(&mut planned[i], r);
    }
    let mut out = Vec::with_capacity(planned.len());
    for (i, c) in planned.into_iter().enumerate() {
        match bucketed.remove(&i) {
            Some(Some(bucket)) => out.push(bucket),
            Some(None) => {}
            None => out.push(c),
        }
        out.extend(again.remove(&i).unwrap_or_default());
    }
    out
}

/// `c` as routed and compressed by `r`: a compressed one sends what it says.
fn with_route(c: &mut Collective, r: &Route) {
    c.route = r.choice.clone();
    if let Some(k) = &r.compressed {
        c.bytes_per_device = k.bytes_after;
        c.compressed = Some(k.clone());
    }
}

fn us(seconds: f64) -> f64 {
    (seconds * 1e9).round() / 1e3
}

/// `f32[8@data,16]`; a padded dimension says by how much: `f32[10@model(pad 2)]`.
/// A global type with its layout: `f32[8@data,16]`.
pub(crate) fn describe(ty: &TensorType, l: &Layout, mesh: &Mesh) -> String {
    match l.to_sharding(&mesh.name) {
        Some(s) => s.describe_on(mesh, ty),
        None => format!("{ty} {l}"),
    }
}

fn annotation(a: &Annotation, names: &[String], f: &Function) -> String {
    match a {
        Annotation::Arg(i) => format!("annotation on argument {i}"),
        Annotation::Result(i) => format!("annotation on result {i}"),
        Annotation::OpResult { op, result } => format!(
            "sdy.sharding on {}",
            names[f.op(*op).results[*result].index()]
        ),
        Annotation::Constraint(op) => format!(
            "sharding_constraint {}",
            names[f.op(*op).results[0].index()]
        ),
    }
}

/// How an explanation names values: as the program text numbers them (`%4`, with the
/// reading op's kind after a reader), or by [`Function::stable_names`] (`h0/attn/add`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Naming {
    Text,
    Stable,
}

impl Compiled {
    /// What the partitioner decided, and why.
    pub fn explain(&self) -> Explanation {
        self.explanation(Naming::Text)
    }

    fn explanation(&self, naming: Naming) -> Explanation {
        let p = &self.propagated;
        let x = &self.extraction;
        let f = self
            .global
            .entry()
            .expect("compiled modules have an entry function");
        let eg = &p.graph.egraph;
        let text_names = f.value_names();
        let names = match naming {
            Naming::Text => text_names.clone(),
            Naming::Stable => f.stable_names(),
        };
        let user_names = f.user_names();
        let mesh = &p.mesh;
        let class_of = |c: Id| eg[eg.find(c)].data;
        let layout_text = |c: Id| {
            let (v, l) = class_of(c);
            describe(f.ty(v), p.graph.layout(l), mesh)
        };
        // Which chosen nodes read each class (and the classes they produce).
        let mut readers: HashMap<Id, Vec<String>> = HashMap::new();
        let mut reader_classes: HashMap<Id, Vec<Id>> = HashMap::new();
        // In class order, so the lists read the same from run to run.
        let mut chosen: Vec<(&Id, &PNode)> = x.choice.iter().collect();
        chosen.sort_by_key(|(c, _)| **c);
        for (&c, n) in chosen {
            if let PNode::Local { op, .. } = n {
                let (v, _) = class_of(c);
                for &ch in n.children() {
                    let who = match naming {
                        Naming::Text => format!("{} ({})", names[v.index()], f.op(*op).kind.name()),
                        Naming::Stable => names[v.index()].clone(),
                    };
                    let list = readers.entry(eg.find(ch)).or_default();
                    if !list.contains(&who) {
                        list.push(who);
                    }
                    reader_classes.entry(eg.find(ch)).or_default().push(c);
                }
            }
        }
        for (k, &r) in x.roots.iter().enumerate() {
            let who = match naming {
                Naming::Text => format!("result {k}"),
                Naming::Stable => format!(
                    "result {}",
                    user_names
                        .get(&f.results()[k])
                        .cloned()
                        .unwrap_or_else(|| k.to_string())
                ),
            };
            readers.entry(eg.find(r)).or_default().push(who);
        }
        // The cost of obtaining a class by one node: the node plus its children's best.
        let total = |c: Id, n: &PNode| -> f64 {
            node_cost(p, f, c, n)
                + n.children()
                    .iter()
                    .map(|&ch| x.best.get(&eg.find(ch)).copied().unwrap_or(f64::INFINITY))
                    .sum::<f64>()
        };
        let node_text = |c: Id, n: &PNode| -> String {
            match n {
                PNode::Arg { index, .. } => {
                    format!("argument {index} arriving as {}", layout_text(c))
                }
                PNode::Local { op, children, .. } => {
                    let ins: Vec<String> = children.iter().map(|&ch| layout_text(ch)).collect();
                    format!("{} on {}", f.op(*op).kind.name(), ins.join(", "))
                }
                PNode::Reshard { plan, child, .. } => {
                    format!("{} from {}", p.graph.plan(*plan), layout_text(child[0]))
                }
            }
        };
        let origin_text = |v: ValueId, l| -> String {
            let mut parts = Vec::new();
            let mut key = (v, l);
            for _ in 0..64 {
                match p.origin.get(&key) {
                    Some(Origin::Annotated(a)) => {
                        parts.push(annotation(a, &names, f));
                        break;
                    }
                    Some(Origin::FreeArg) => {
                        parts.push("unannotated argument".to_string());
                        break;
                    }
                    Some(Origin::Requested { op }) => {
                        parts.push(match op {
                            Some(o) => format!(
                                "asked for by {} ({})",
                                names[f.op(*o).results[0].index()],
                                f.op(*o).kind.name()
                            ),
                            None => "asked for by a result annotation".to_string(),
                        });
                        break;
                    }
                    Some(Origin::Through { op, from }) => {
                        let also: Vec<&str> = from
                            .iter()
                            .skip(1)
                            .map(|k| names[k.0.index()].as_str())
                            .collect();
                        let with = if also.is_empty() {
                            String::new()
                        } else {
                            format!(" with {}", also.join(", "))
                        };
                        parts.push(format!(
                            "{} ({}{with})",
                            names[key.0.index()],
                            f.op(*op).kind.name()
                        ));
                        match from.first() {
                            Some(k) if *k != key => key = *k,
                            _ => {
                                parts.push("unsplit".into());
                                break;
                            }
                        }
                    }
                    None => break,
                }
            }
            parts.reverse();
            elide_middle(parts).join(" -> ")
        };
        let mut values = Vec::new();
        let mut collectives = Vec::new();
        for v in program_order(f) {
            let mut layouts = Vec::new();
            for &l in p.graph.layouts_of(v) {
                let Some(c) = p.graph.class(v, l) else {
                    continue;
                };
                let Some(n) = x.choice.get(&c) else { continue };
                let rotations = local_rotations(p, c, n);
                let axes_of = |axes: &[shardc_ir::AxisRef]| -> Vec<String> {
                    axes.iter()
                        .map(|a| a.to_string().trim_matches('"').to_string())
                        .collect()
                };
                let how = match n {
                    PNode::Arg { .. } => "argument".to_string(),
                    PNode::Local { .. } if !rotations.is_empty() => {
                        let moves: Vec<String> = rotations
                            .iter()
                            .map(|r| {
                                format!("collective_permute {{{}}}", axes_of(&r.axes).join(","))
                            })
                            .collect();
                        format!("local, then {}", moves.join(", "))
                    }
                    PNode::Local { .. } => "local".to_string(),
                    PNode::Reshard { plan, .. } => p.graph.plan(*plan).to_string(),
                };
                layouts.push(UsedLayout {
                    layout: layout_text(c),
                    how,
                    origin: origin_text(v, l),
                });
                // A rotation by whole blocks: the op runs locally, then its pieces move.
                if !rotations.is_empty() {
                    let (global, local) = class_types(p, f, c);
                    let at = describe(&global, p.graph.layout(l), mesh);
                    let alternatives: Vec<Alternative> = eg[c]
                        .nodes
                        .iter()
                        .filter(|m| *m != n)
                        .map(|m| Alternative {
                            what: node_text(c, m),
                            cost_us: us(total(c, m)),
                        })
                        .collect();
                    for r in &rotations {
                        collectives.push(Collective {
                            kind: CollectiveKind::CollectivePermute.name().to_string(),
                            axes: axes_of(&r.axes),
                            value: names[v.index()].clone(),
                            from: at.clone(),
                            to: at.clone(),
                            bytes_per_device: crate::local::rotate::bytes(&local),
                            needed_by: readers.get(&c).cloned().unwrap_or_default(),
                            cost_us: us(total(c, n)),
                            alternatives: alternatives.clone(),
                            route: None,
                            compressed: None,
                            ring: None,
                            trips_unknown: false,
                        });
                    }
                }
                if let PNode::Reshard { plan, child, .. } = n {
                    let (global, _) = class_types(p, f, c);
                    let mut cur = p.graph.layout(class_of(child[0]).1).clone();
                    // Other ways to obtain this layout of the value...
                    let mut alternatives: Vec<Alternative> = eg[c]
                        .nodes
                        .iter()
                        .filter(|m| *m != n)
                        .map(|m| Alternative {
                            what: node_text(c, m),
                            cost_us: us(total(c, m)),
                        })
                        .collect();
                    // ...and other layouts the consumers could have produced instead, each
                    // by its cheapest way.
                    let mut consumers = reader_classes.get(&c).cloned().unwrap_or_default();
                    consumers.sort();
                    consumers.dedup();
                    for r in consumers {
                        let (u, ul) = class_of(r);
                        for &l2 in p.graph.layouts_of(u) {
                            let Some(r2) = p.graph.class(u, l2) else {
                                continue;
                            };
                            if l2 == ul || p.graph.layout(l2).is_partial() {
                                continue;
                            }
                            let best = eg[r2]
                                .nodes
                                .iter()
                                .map(|m| (total(r2, m), m))
                                .min_by(|a, b| a.0.total_cmp(&b.0));
                            if let Some((cost, m)) = best.filter(|(cost, _)| cost.is_finite()) {
                                alternatives.push(Alternative {
                                    what: format!(
                                        "{} as {} by {}",
                                        names[u.index()],
                                        layout_text(r2),
                                        node_text(r2, m)
                                    ),
                                    cost_us: us(cost),
                                });
                            }
                        }
                    }
                    for step in &p.graph.plan(*plan).steps {
                        let next = step.apply(&cur).unwrap_or_else(|| cur.clone());
                        if !step.axes().is_empty() && !step.moves_nothing(&p.mesh, &cur) {
                            collectives.push(Collective {
                                kind: step.kind().name().to_string(),
                                axes: step
                                    .axes()
                                    .iter()
                                    .map(|a| a.to_string().trim_matches('"').to_string())
                                    .collect(),
                                value: names[v.index()].clone(),
                                from: describe(&global, &cur, mesh),
                                to: describe(&global, &next, mesh),
                                bytes_per_device: step.bytes_per_device(&p.mesh, &global, &cur),
                                needed_by: readers.get(&c).cloned().unwrap_or_default(),
                                cost_us: us(total(c, n)),
                                alternatives: alternatives.clone(),
                                route: None,
                                compressed: None,
                                ring: None,
                                trips_unknown: false,
                            });
                        }
                        cur = next;
                    }
                }
            }
            if layouts.is_empty() {
                continue;
            }
            let defined_by = match f.value(v).def {
                ValueDef::BlockArg { index, .. } => format!("argument {index}"),
                ValueDef::OpResult { op, .. } => f.op(op).kind.name(),
            };
            values.push(ValueLayout {
                name: names[v.index()].clone(),
                user_name: user_names.get(&v).cloned(),
                defined_by,
                layouts,
            });
        }
        // What the passes after partitioning changed: buckets fuse all-reduces, regathering
        // gathers a parameter again for its later reads.
        let by_text: HashMap<&str, &str> = text_names
            .iter()
            .map(String::as_str)
            .zip(names.iter().map(String::as_str))
            .collect();
        // Described as planned: collectives decomposed into ring steps are described
        // whole, with the rings they run as.
        let run = match &self.decomposition {
            Some(d) => &d.before,
            None => &self.partitioned.module,
        };
        let mut collectives = match run.entry() {
            Some(per_device) => as_run(collectives, per_device, &by_text, &self.routes),
            None => collectives,
        };
        for ring in self.decomposition.iter().flat_map(|d| &d.rings) {
            let of: Vec<&str> = ring
                .of
                .iter()
                .map(|n| by_text.get(n.as_str()).copied().unwrap_or(n.as_str()))
                .collect();
            if let Some(c) = collectives
                .iter_mut()
                .find(|c| c.ring.is_none() && c.kind == ring.kind && of.contains(&c.value.as_str()))
            {
                c.ring = Some(ring.describe());
            }
        }
        // A loop body's collectives: once, before the loop, or in every iteration of
        // the unrolled loop.
        for (id, op) in f.body_ops() {
            collectives.extend(crate::local::loops::body_collectives(
                p, x, f, id, op, &names,
            ));
        }
        // The collectives the user wrote in shard_map bodies run as written.
        for (_, op) in f.body_ops() {
            collectives.extend(crate::local::manual::written_collectives(
                &self.global,
                f,
                op,
                mesh,
                &names,
            ));
            collectives.extend(crate::local::manual::branch_collectives(
                &self.global,
                f,
                op,
                mesh,
                &names,
            ));
        }
        let loops = f
            .body_ops()
            .filter_map(|(id, op)| crate::local::loops::run_of(p, x, f, id, op, &names))
            .collect();
        let predicted = self
            .partitioned
            .module
            .entry()
            .map(|f| p.cost.program_time(f))
            .unwrap_or_default();
        Explanation {
            loops,
            mesh: format!("{} = {}", p.mesh.shape_name(), p.mesh),
            propagation: p.report.clone(),
            bytes_per_device: collectives.iter().map(|c| c.bytes_per_device).sum(),
            peak_bytes_per_device: self
                .partitioned
                .module
                .entry()
                .map_or(0, crate::passes::memory::peak_bytes),
            peak_breakdown: self
                .partitioned
                .module
                .entry()
                .map(|f| crate::passes::memory::peak(f).breakdown(f))
                .unwrap_or_default(),
            values,
            collectives,
            cost_us: us(predicted.total()),
            compute_us: us(predicted.compute),
            communication_us: us(predicted.communication),
            hidden_us: us(predicted.hidden),
            cost_model: match p.cost.shared_host {
                Some(h) => format!(
                    "{}: {} devices sharing {} cores",
                    p.cost.source, h.devices, h.cores
                ),
                None => p.cost.source.clone(),
            },
        }
    }
}

/// What the partitioner decided, named as the user's program names things, for users to
/// snapshot in their own tests ([`Compiled::decisions`]).
#[derive(Clone, Debug, Serialize)]
pub struct Decisions {
    /// `mesh = <["data"=2, "model"=4]>`
    pub mesh: String,
    /// How each argument arrives, by its name.
    pub arguments: Vec<Placed>,
    /// How each result leaves.
    pub results: Vec<Placed>,
    /// Every collective the program runs, in program order.
    pub collectives: Vec<Decided>,
}

/// An argument or result and its layout: `h0.wq: f32[64,64@model]` (by position when the
/// program does not name it: `0: f32[8@data,16]`).
#[derive(Clone, Debug, Serialize)]
pub struct Placed {
    /// The user's name for it (or its position).
    pub name: String,
    /// Its layout.
    pub layout: String,
}

/// One collective: what it moves, from which layout to which, and what reads the result.
#[derive(Clone, Debug, Serialize)]
pub struct Decided {
    /// `all_reduce`, `reduce_scatter`, `all_gather`, `all_to_all`, `collective_permute`.
    pub kind: String,
    /// The mesh axes it runs over.
    pub axes: Vec<String>,
    /// The value it moves (a bucket: its members).
    pub value: String,
    /// The layout it starts from.
    pub from: String,
    /// The layout it makes.
    pub to: String,
    /// Bytes each device sends.
    pub bytes_per_device: u64,
    /// What needs it: the ops or results that read the value in its new layout.
    pub serves: Vec<String>,
}

impl Compiled {
    /// What the partitioner decided, named by what the user wrote — a snapshot to keep in
    /// one's own tests: every argument's and result's layout, then every collective the
    /// program runs (as [`explain`](Self::explain) lists them, count for count) with kind,
    /// axes, the value it moves, its layouts before and after, bytes per device and what
    /// needs it. Values are named by [`Function::stable_names`]: parameter and result names
    /// (`jax.arg_info` and `jax.result_info`, which `shardc::Lowered::with_names` writes), op paths from
    /// scopes or from JAX's debug information (`h0/attn/dot_general`); so appending a layer
    /// in its own scope adds lines and leaves the others as they were.
    pub fn decisions(&self) -> Decisions {
        let e = self.explanation(Naming::Stable);
        let p = &self.propagated;
        let eg = &p.graph.egraph;
        let f = self
            .global
            .entry()
            .expect("compiled modules have an entry function");
        let names = f.stable_names();
        let user = f.user_names();
        // An argument or result by its name, else by its position.
        let label = |v: ValueId, k: usize| user.get(&v).cloned().unwrap_or_else(|| k.to_string());
        let arguments = f
            .args()
            .iter()
            .enumerate()
            .map(|(k, &a)| Placed {
                name: label(a, k),
                layout: e
                    .values
                    .iter()
                    .find(|v| v.name == names[a.index()])
                    .and_then(|v| v.layouts.iter().find(|l| l.how == "argument"))
                    .map_or_else(|| "unused".to_string(), |l| l.layout.clone()),
            })
            .collect();
        let results = f
            .results()
            .iter()
            .zip(&self.extraction.roots)
            .enumerate()
            .map(|(k, (&r, &root))| {
                let (v, l) = eg[eg.find(root)].data;
                Placed {
                    name: label(r, k),
                    layout: describe(f.ty(v), p.graph.layout(l), &p.mesh),
                }
            })
            .collect();
        let collectives = e
            .collectives
            .into_iter()
            .map(|c| Decided {
                kind: c.kind,
                axes: c.axes,
                value: c.value,
                from: c.from,
                to: c.to,
                bytes_per_device: c.bytes_per_device,
                serves: c.needed_by,
            })
            .collect();
        Decisions {
            mesh: e.mesh,
            arguments,
            results,
            collectives,
        }
    }
}

impl Decisions {
    /// JSON for tools.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("decisions serialize")
    }
}

/// One line per argument, result and collective:
///
/// ```text
/// mesh mesh = <["data"=2, "model"=4]>
/// argument h0.wq: f32[64,64@model]
/// result loss: f32[]
/// all_reduce {model} h0/attn/dot_general (4): f32[8@data,16,64] partial(model) -> f32[8@data,16,64], 4096 B/device, for h0/attn/add
/// ```
impl fmt::Display for Decisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "mesh {}", self.mesh)?;
        for a in &self.arguments {
            writeln!(f, "argument {}: {}", a.name, a.layout)?;
        }
        for r in &self.results {
            writeln!(f, "result {}: {}", r.name, r.layout)?;
        }
        for c in &self.collectives {
            writeln!(
                f,
                "{} {{{}}} {}: {} -> {}, {} B/device, for {}",
                c.kind,
                c.axes.join(","),
                c.value,
                c.from,
                c.to,
                c.bytes_per_device,
                c.serves.join(", ")
            )?;
        }
        Ok(())
    }
}

impl Explanation {
    /// The compact summary: every value's layouts, then every collective with kind, axes
    /// and bytes per device, values by their `%N` in the program text (shardc's own
    /// snapshot tests use it; users snapshot [`Compiled::decisions`], whose names do not
    /// renumber).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "mesh {}", self.mesh);
        if self.propagation.stop != StopReason::Saturated {
            let _ = writeln!(
                s,
                "WARNING: propagation stopped early: {:?}",
                self.propagation.stop
            );
        }
        let width = self.values.iter().map(|v| v.name.len()).max().unwrap_or(0);
        for v in &self.values {
            let ls: Vec<&str> = v.layouts.iter().map(|l| l.layout.as_str()).collect();
            let named = v
                .user_name
                .as_ref()
                .map_or(String::new(), |n| format!("  ({n})"));
            let _ = writeln!(s, "{:width$}  {}{named}", v.name, ls.join(" | "));
        }
        for c in &self.collectives {
            let _ = writeln!(
                s,
                "{} {{{}}} {}: {} -> {}, {} B/device",
                c.kind,
                c.axes.join(","),
                c.value,
                c.from,
                c.to,
                c.bytes_per_device
            );
        }
        let _ = writeln!(s, "total {} B/device", self.bytes_per_device);
        s
    }

    /// JSON for tools.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("explanations serialize")
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "mesh {}", self.mesh)?;
        let r = &self.propagation;
        writeln!(
            f,
            "propagation: {:?} after {} op visits; {} classes, {} nodes",
            r.stop, r.visits, r.classes, r.nodes
        )?;
        writeln!(f, "values:")?;
        for v in &self.values {
            let named = v
                .user_name
                .as_ref()
                .map_or(String::new(), |n| format!(" ({n})"));
            for l in &v.layouts {
                writeln!(
                    f,
                    "  {} = {}{named} as {} [{}]; from {}",
                    v.name, v.defined_by, l.layout, l.how, l.origin
                )?;
            }
        }
        writeln!(f, "collectives:")?;
        for c in &self.collectives {
            writeln!(
                f,
                "  {} {{{}}} on {}: {} -> {}, {} B/device, needed by {}{}",
                c.kind,
                c.axes.join(","),
                c.value,
                c.from,
                c.to,
                c.bytes_per_device,
                c.needed_by.join(", "),
                if c.trips_unknown {
                    "; runs a number of times not known when compiling"
                } else {
                    ""
                }
            )?;
            writeln!(f, "    chosen: {}", cost_text(c.cost_us))?;
            if let Some(r) = &c.route {
                writeln!(f, "    route:  {}", route_text(r))?;
            }
            if let Some(r) = &c.ring {
                writeln!(f, "    ring:   {r}")?;
            }
            if let Some(k) = &c.compressed {
                writeln!(
                    f,
                    "    compressed: {}{}, {} -> {} B/device",
                    k.compression.attribute(),
                    if k.compression.feeds_back() {
                        " (error fed back)"
                    } else {
                        ""
                    },
                    k.bytes_before,
                    k.bytes_after
                )?;
            }
            for a in &c.alternatives {
                writeln!(f, "    lost:   {}  {}", cost_text(a.cost_us), a.what)?;
            }
        }
        if !self.loops.is_empty() {
            writeln!(f, "loops:")?;
            for l in &self.loops {
                let trips = match (l.trips, l.at_most) {
                    (Some(t), _) => format!("{t} trips"),
                    (None, Some(n)) => format!("at most {n} trips, costed for {n}"),
                    (None, None) => format!(
                        "trips unknown, costed for {}",
                        crate::local::loops::ASSUMED_TRIPS
                    ),
                };
                writeln!(f, "  {} (stablehlo.while, {trips}): {}", l.value, l.how)?;
            }
        }
        let b = &self.peak_breakdown;
        write!(
            f,
            "peak held: arguments {} B, collective results {} B, computed {} B",
            b.arguments, b.communication, b.computed
        )?;
        if b.regions > 0 {
            write!(f, ", inside the running loop {} B", b.regions)?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "total {} B/device sent, peak {} B/device held, predicted {} a step ({} compute, {} communication{}, {} starting and joining the devices) by the cost model {}",
            self.bytes_per_device,
            self.peak_bytes_per_device,
            // Predicted times (`CostModel::program_time`): no priority penalties in them,
            // however long.
            time_text(self.cost_us),
            time_text(self.compute_us),
            time_text(self.communication_us),
            match self.hidden_us > 0.0 {
                true => format!(" of which {} behind compute", time_text(self.hidden_us)),
                false => String::new(),
            },
            time_text(self.cost_us - self.compute_us - self.communication_us + self.hidden_us),
            self.cost_model
        )
    }
}

/// `hierarchical over nodes of 4 devices: 3500.0 us predicted (ring 14000.0 us)`.
fn route_text(r: &RouteChoice) -> String {
    let ring = us(r.ring_s);
    match (r.algorithm, r.hierarchical_s) {
        (Algorithm::Hierarchical { devices_per_node }, Some(h)) => format!(
            "hierarchical over nodes of {devices_per_node} devices: {} us predicted (ring {ring} us)",
            us(h)
        ),
        (_, Some(h)) => format!(
            "ring: {ring} us predicted (hierarchical over nodes {} us)",
            us(h)
        ),
        (_, None) => format!("ring: {ring} us predicted (the group has no hierarchy of nodes)"),
    }
}

/// A predicted time in microseconds.
fn time_text(us: f64) -> String {
    format!("{us:.3} µs")
}

/// A cost in microseconds, with the priority penalties it includes spelled out.
fn cost_text(us: f64) -> String {
    let penalty_us = crate::passes::extract::PRIORITY_PENALTY * 1e6;
    let levels = (us / penalty_us).floor();
    if levels >= 1.0 {
        format!(
            "{:.3} µs + {levels} priority level(s) given up",
            us - levels * penalty_us
        )
    } else {
        format!("{us:.3} µs")
    }
}

/// The global program with the layout chosen for every value written on it as its
/// sharding (`sdy.sharding` on each op, a loop's carried values among them, with `{?}`
/// for a result nothing reads, and on the arguments), as a JAX user
/// reads `jax.debug.visualize_array_sharding` or the compiled program's shardings: what
/// `--dump-dir` writes as `02-propagated.mlir` and [`crate::Stage::Propagated`] prints.
/// A value used in several layouts shows the one its op computes; a partial sum (pending
/// its all-reduce) has no Shardy spelling and is left unannotated.
pub fn annotate(
    global: &shardc_ir::Module,
    p: &crate::passes::propagate::Propagated,
    x: &crate::passes::extract::Extraction,
) -> shardc_ir::Module {
    let Some(f) = global.entry() else {
        return global.clone();
    };
    let eg = &p.graph.egraph;
    let mut chosen: Vec<(&Id, &PNode)> = x.choice.iter().collect();
    chosen.sort_by_key(|(c, _)| **c);
    let mut computed: HashMap<ValueId, &Layout> = HashMap::new();
    for (&c, n) in chosen {
        if matches!(n, PNode::Local { .. } | PNode::Arg { .. }) {
            let (v, l) = eg[eg.find(c)].data;
            computed.entry(v).or_insert_with(|| p.graph.layout(l));
        }
    }
    let sharding = |v: ValueId| computed.get(&v).and_then(|l| l.to_sharding(&p.mesh.name));
    let mut g = f.clone();
    // A result no layout was chosen for (nothing reads it) is left open (`{?}`).
    let open = |v: ValueId| {
        let dims = vec![
            shardc_ir::DimSharding {
                axes: Vec::new(),
                open: true,
                priority: None,
            };
            f.ty(v).rank()
        ];
        shardc_ir::Sharding::new(&p.mesh.name, dims)
    };
    for (id, op) in f.body_ops() {
        if op.results.iter().any(|&r| sharding(r).is_some()) {
            let all = op
                .results
                .iter()
                .map(|&r| sharding(r).unwrap_or_else(|| open(r)))
                .collect();
            g.ops[id.index()].shardings = Some(all);
        }
    }
    for (k, &a) in f.args().iter().enumerate() {
        if let (Some(attrs), Some(s)) = (g.arg_attrs.get_mut(k), sharding(a)) {
            attrs.sharding = Some(s);
        }
    }
    global.with_function(g)
}

/// The longest provenance chain `explain` prints whole: a longer one keeps its origin and
/// the ops nearest it, and the ops nearest the value, and says how many it leaves out (a
/// sharding that travels along a 48-layer residual stream would fill a screen).
const CHAIN_KEPT: usize = 8;

fn elide_middle(mut parts: Vec<String>) -> Vec<String> {
    if parts.len() <= CHAIN_KEPT {
        return parts;
    }
    let head = CHAIN_KEPT / 2 - 1;
    let tail = CHAIN_KEPT / 2;
    let left = parts.len() - head - tail;
    parts.splice(head..parts.len() - tail, [format!("... ({left} ops)")]);
    parts
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_chain_keeps_its_ends_and_counts_the_middle() {
        let chain = |n: usize| (0..n).map(|i| format!("%{i}")).collect::<Vec<_>>();
        assert_eq!(super::elide_middle(chain(8)), chain(8));
        let long = super::elide_middle(chain(20));
        assert_eq!(
            long.join(" -> "),
            "%0 -> %1 -> %2 -> ... (13 ops) -> %16 -> %17 -> %18 -> %19"
        );
    }
}
