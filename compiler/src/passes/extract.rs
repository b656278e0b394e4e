//! Extraction: pick one way to obtain every physical value the results need, minimising
//! the cost of the whole program counted as a DAG (a value computed or communicated once
//! is paid once, however many consumers read it).
//!
//! Exact DAG extraction is NP-hard. Plain tree extraction (every consumer pays for its
//! inputs in full) is also wrong at scale: a value read by two consumers doubles the cost
//! of everything before it, and the doubling compounds block after block, so a transformer
//! of 16 blocks compares alternatives by how often they re-read the past, not by what they
//! cost. So costs here are *premiums*: every alternative way to obtain a layout of `v`
//! reads the same values (an op's operands, or `v` itself), only in other layouts, so what
//! those values cost in their cheapest layout is common to all alternatives and is left
//! out. A class's premium is its node's cost plus, for each operand, how much more the
//! layout it reads costs than that operand's cheapest layout.
//!
//! Rounds then refine sharing: after each round, a premium paid for a layout that several
//! chosen nodes read is split among them. Each round's solution is evaluated by its exact
//! DAG cost (every chosen node once) and the best wins. Within one value, reshard edges
//! form cycles between layouts; they are relaxed to a fixpoint (costs are positive).
//!
//! Each round's choice is then repaired by single swaps (`refine`): a class that one
//! reshard from another chosen layout of its value can give takes it when the exact DAG
//! cost drops, which catches the second collective premiums cannot see is redundant.

use crate::error::CompileError;
use crate::passes::propagate::{Propagated, Root};
use crate::sharding::egraph::PNode;
use egg::{Id, Language};
use shardc_ir::{Function, OpKind, TensorType, ValueId};
use std::collections::HashMap;

/// The chosen node of each class.
type Choice = HashMap<Id, PNode>;

/// The index of the chosen node of each class, in its class.
type Pick = HashMap<Id, usize>;

/// Rounds of use-count re-weighting after the first (tree) round.
const ROUNDS: usize = 4;

/// The chosen node of every class the results need, and what it costs.
#[derive(Clone, Debug)]
pub struct Extraction {
    /// The node chosen in each class the program needs.
    pub choice: HashMap<Id, PNode>,
    /// One class per function result.
    pub roots: Vec<Id>,
    /// Exact DAG cost of the chosen program, in seconds (plus the memory tie-breaker).
    pub cost: f64,
    /// The exact DAG cost of the first (tree) round's solution, to measure what sharing bought.
    pub tree_round_cost: f64,
    /// The cheapest cost found for each class in the winning round (what `explain` compares
    /// alternatives against).
    pub best: HashMap<Id, f64>,
}

/// The printed name of a value of the propagated function (`%3`).
fn value_name(p: &Propagated, v: ValueId) -> String {
    p.names
        .get(v.index())
        .cloned()
        .unwrap_or_else(|| v.to_string())
}

/// The values of a function in program order: arguments, then op results in body order.
pub fn program_order(f: &Function) -> Vec<ValueId> {
    let mut order: Vec<ValueId> = f.args().to_vec();
    for (_, op) in f.body_ops() {
        order.extend(op.results.iter().copied());
    }
    order
}

/// The global type and local type of a class.
pub fn class_types(p: &Propagated, f: &Function, id: Id) -> (TensorType, TensorType) {
    let (v, l) = p.graph.egraph[id].data;
    let global = f.ty(v).clone();
    let local = p
        .graph
        .layout(l)
        .local_type(&p.mesh, &global)
        .unwrap_or_else(|| global.clone());
    (global, local)
}

/// The cost of one node on its own (not counting its children).
pub fn node_cost(p: &Propagated, f: &Function, class: Id, node: &PNode) -> f64 {
    let (global, local) = class_types(p, f, class);
    let memory = p.cost.memory(&local);
    match node {
        PNode::Arg { .. } => memory,
        PNode::Local {
            op: id,
            result,
            layout,
            children,
        } if f.op(*id).kind == OpKind::While => {
            let time = p
                .loop_plan(*id, children, *result as usize, p.graph.layout(*layout))
                .map_or(f64::INFINITY, |l| l.cost);
            time / f.op(*id).results.len().max(1) as f64 + memory
        }
        PNode::Local { op, children, .. } => {
            let op = f.op(*op);
            let operands: Vec<TensorType> = children
                .iter()
                .map(|&c| class_types(p, f, p.graph.egraph.find(c)).1)
                .collect();
            let rotations = local_rotations(p, class, node);
            p.cost
                .op_time(&op.kind, &operands, std::slice::from_ref(&local))
                / op.results.len().max(1) as f64
                + crate::local::rotate::time(&p.cost, &rotations, &local)
                + memory
        }
        PNode::Reshard { plan, child, .. } => {
            let key = p.graph.egraph[child[0]].data;
            let from = p.graph.layout(key.1);
            p.cost
                .plan_cost(p.graph.plan(*plan), &p.mesh, &global, from)
                .0
                + memory
                + priority_penalty(p, key)
        }
    }
}

/// The block rotations a `Local` node's result needs (`rotate.rs`): collective permutes
/// after the op; empty for every other node.
pub fn local_rotations(
    p: &Propagated,
    class: Id,
    node: &PNode,
) -> Vec<crate::local::rotate::BlockRotation> {
    let PNode::Local { op, result, .. } = node else {
        return Vec::new();
    };
    let Some(rule) = p.rules.get(op.index()).and_then(Option::as_ref) else {
        return Vec::new();
    };
    let (_, l) = p.graph.egraph[class].data;
    crate::local::rotate::of_result(rule, *result as usize, p.graph.layout(l), &p.mesh, p.uneven)
}

/// Seconds charged for resharding away from a layout a prioritized annotation implies:
/// more than any communication, so priorities decide before cost does.
pub const PRIORITY_PENALTY: f64 = 1.0;

/// The penalty of resharding away from a class: `PRIORITY_PENALTY` times how many levels
/// stronger than the weakest priority in the module its annotation is (`p0` costs most);
/// nothing for classes no prioritized annotation implies, or modules without priorities.
fn priority_penalty(p: &Propagated, key: (ValueId, crate::sharding::egraph::LayoutId)) -> f64 {
    let Some(pr) = &p.priorities else { return 0.0 };
    match pr.of_class.get(&key) {
        Some(&level) => PRIORITY_PENALTY * f64::from(pr.weakest + 1 - level.min(pr.weakest)),
        None => 0.0,
    }
}

/// The cheapest node of each class in one round, by dense class index: the premium and
/// the index of the node in its class.
struct Round {
    best: Vec<Option<(f64, usize)>>,
}

impl Round {
    fn get(&self, c: Id) -> Option<(f64, usize)> {
        self.best.get(usize::from(c)).copied().flatten()
    }
}

/// Cheapest node per class, children weighted by `share` (how many consumers split them).
fn round(
    p: &Propagated,
    order: &[ValueId],
    classes_of: &[Vec<Id>],
    costs: &[Vec<f64>],
    share: &[f64],
) -> Round {
    let eg = &p.graph.egraph;
    let mut best: Vec<Option<(f64, usize)>> = vec![None; costs.len()];
    // The cheapest premium of each value so far.
    let mut floor: Vec<f64> = vec![0.0; p.names.len()];
    let weight = |best: &[Option<(f64, usize)>], floor: &[f64], c: Id| -> f64 {
        let c = eg.find(c);
        let base = floor[eg[c].data.0.index()];
        match best[usize::from(c)] {
            Some((x, _)) => (x - base) / share[usize::from(c)],
            None => f64::INFINITY,
        }
    };
    for (&v, classes) in order.iter().zip(classes_of) {
        // Nodes reading earlier values first.
        for &c in classes {
            for (i, n) in eg[c].nodes.iter().enumerate() {
                if matches!(n, PNode::Reshard { .. }) {
                    continue;
                }
                let total = costs[usize::from(c)][i]
                    + n.children()
                        .iter()
                        .map(|&ch| weight(&best, &floor, ch))
                        .sum::<f64>();
                if best[usize::from(c)].is_none_or(|(b, _)| total < b) {
                    best[usize::from(c)] = Some((total, i));
                }
            }
        }
        // Then reshards among this value's layouts, to a fixpoint.
        for _ in 0..=classes.len() {
            let mut changed = false;
            for &c in classes {
                for (i, n) in eg[c].nodes.iter().enumerate() {
                    let PNode::Reshard { child, .. } = n else {
                        continue;
                    };
                    // Within a value, children count in full: shared weights could make a
                    // cycle of reshards look cheaper each time around.
                    let full =
                        best[usize::from(eg.find(child[0]))].map_or(f64::INFINITY, |(x, _)| x);
                    let total = costs[usize::from(c)][i] + full;
                    if best[usize::from(c)].is_none_or(|(b, _)| total < b - 1e-18) {
                        best[usize::from(c)] = Some((total, i));
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let m = classes
            .iter()
            .filter_map(|&c| best[usize::from(c)])
            .map(|(x, _)| x)
            .fold(f64::INFINITY, f64::min);
        if m.is_finite() {
            floor[v.index()] = m;
        }
    }
    Round { best }
}

/// Resolves the roots of a round: fixed classes, or the cheapest complete layout.
fn resolve_roots(p: &Propagated, r: &Round) -> Result<Vec<Id>, CompileError> {
    p.roots
        .iter()
        .map(|root| match root {
            Root::Fixed(id) => Ok(p.graph.egraph.find(*id)),
            Root::Free(v) => p
                .graph
                .layouts_of(*v)
                .iter()
                .filter(|&&l| !p.graph.layout(l).is_partial())
                .filter_map(|&l| p.graph.class(*v, l))
                .filter_map(|c| r.get(c).map(|(x, _)| (c, x)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(c, _)| c)
                .ok_or_else(|| CompileError::Unreachable {
                    value: format!("result value {}", value_name(p, *v)),
                    layout: "any complete layout".into(),
                    why: "propagation gave it none".into(),
                }),
        })
        .collect()
}

/// The classes a round's choices reach from the roots, how many consumers use each, and
/// the exact DAG cost (every chosen node once).
fn reach(
    p: &Propagated,
    r: &Round,
    roots: &[Id],
    costs: &[Vec<f64>],
) -> Result<(Pick, Vec<f64>, f64), CompileError> {
    let eg = &p.graph.egraph;
    // Node index chosen per class: the round's, except that an argument arrives in one
    // layout only (an unannotated argument may have several `Arg` classes; the others are
    // resharded from the one most read, and that reshard is paid for).
    let mut pick: HashMap<Id, usize> = HashMap::new();
    let mut arrivals: HashMap<u32, Vec<Id>> = HashMap::new();
    let mut uses = vec![0.0; costs.len()];
    let mut stack: Vec<Id> = roots.to_vec();
    let visit = |stack: &mut Vec<Id>,
                 pick: &mut HashMap<Id, usize>,
                 uses: &mut Vec<f64>,
                 arrivals: &mut HashMap<u32, Vec<Id>>,
                 forced: Option<(Id, usize)>|
     -> Result<(), CompileError> {
        if let Some((c, i)) = forced {
            pick.insert(c, i);
            for &ch in eg[c].nodes[i].children() {
                uses[usize::from(eg.find(ch))] += 1.0;
                stack.push(ch);
            }
        }
        while let Some(c) = stack.pop() {
            let c = eg.find(c);
            if pick.contains_key(&c) {
                continue;
            }
            let Some((_, i)) = r.get(c) else {
                let (v, l) = eg[c].data;
                return Err(CompileError::Unreachable {
                    value: value_name(p, v),
                    layout: p.graph.layout(l).to_string(),
                    why: "no node of its class has all of its inputs available".into(),
                });
            };
            let node = &eg[c].nodes[i];
            if let PNode::Arg { index, .. } = node {
                arrivals.entry(*index).or_default().push(c);
            }
            for &ch in node.children() {
                uses[usize::from(eg.find(ch))] += 1.0;
                stack.push(ch);
            }
            pick.insert(c, i);
        }
        Ok(())
    };
    visit(&mut stack, &mut pick, &mut uses, &mut arrivals, None)?;
    let mut extra: Vec<(u32, Vec<Id>)> = arrivals
        .into_iter()
        .filter(|(_, cs)| cs.len() > 1)
        .collect();
    extra.sort();
    for (_, classes) in extra {
        let primary = *classes
            .iter()
            .max_by(|a, b| {
                uses[usize::from(**a)]
                    .total_cmp(&uses[usize::from(**b)])
                    .then(b.cmp(a))
            })
            .expect("more than one class");
        for c in classes.into_iter().filter(|&c| c != primary) {
            let from_primary = eg[c].nodes.iter().enumerate().filter(
                |(_, n)| matches!(n, PNode::Reshard { child, .. } if eg.find(child[0]) == primary),
            );
            let Some((i, _)) = from_primary
                .min_by(|a, b| costs[usize::from(c)][a.0].total_cmp(&costs[usize::from(c)][b.0]))
            else {
                let (v, l) = eg[c].data;
                return Err(CompileError::Unreachable {
                    value: value_name(p, v),
                    layout: p.graph.layout(l).to_string(),
                    why: "the argument arrives in another layout and no reshard reaches this one"
                        .into(),
                });
            };
            visit(
                &mut stack,
                &mut pick,
                &mut uses,
                &mut HashMap::new(),
                Some((c, i)),
            )?;
        }
    }
    // Summed in class order: a float sum in hash order differs in its last bits from run
    // to run, which made equal rounds win by chance (and `explain`'s costs vary).
    let mut picked: Vec<(Id, usize)> = pick.iter().map(|(&c, &i)| (c, i)).collect();
    picked.sort();
    let cost = picked.iter().map(|&(c, i)| costs[usize::from(c)][i]).sum();
    Ok((pick, uses, cost))
}

/// The chosen nodes themselves.
fn choice_of(p: &Propagated, pick: &Pick) -> Choice {
    let eg = &p.graph.egraph;
    pick.iter()
        .map(|(&c, &i)| (c, eg[c].nodes[i].clone()))
        .collect()
}

/// Improves a chosen program by single swaps the rounds can miss: a class that can be
/// obtained by one reshard from another chosen layout of its value takes that reshard
/// when the exact DAG cost drops, counting what its old node stops reading and no other
/// chosen node reads as freed. (The premiums compare alternatives as if their inputs were
/// paid separately, so a layout obtained anyway can lose to a second collective of equal
/// premium: `x` all-reduced for one consumer and reduce-scattered for another, where a
/// local slice of the all-reduced `x` serves both.) Each pass applies the swaps in order
/// of what they save, each re-evaluated against the program as it then is; swaps that
/// would close a cycle of reshards are skipped. Gives the new cost.
fn refine(
    p: &Propagated,
    pick: &mut Pick,
    uses: &mut [f64],
    roots: &[Id],
    costs: &[Vec<f64>],
    mut cost: f64,
) -> f64 {
    let eg = &p.graph.egraph;
    for &r in roots {
        uses[usize::from(r)] += 1.0;
    }
    for _ in 0..ROUNDS {
        let mut candidates: Vec<(f64, Id, usize)> = Vec::new();
        let mut classes: Vec<Id> = pick.keys().copied().collect();
        classes.sort();
        for &c in &classes {
            for j in 0..eg[c].nodes.len() {
                if let Some(swap) = swap(p, pick, uses, costs, c, j) {
                    candidates.push((swap.change, c, j));
                }
            }
        }
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut improved = false;
        for (_, c, j) in candidates {
            let Some(s) = swap(p, pick, uses, costs, c, j) else {
                continue;
            };
            for (d, x) in s.uses {
                uses[usize::from(d)] += x;
            }
            for d in s.freed {
                pick.remove(&d);
            }
            pick.insert(c, j);
            cost += s.change;
            improved = true;
        }
        if !improved {
            break;
        }
    }
    cost
}

/// A swap `refine` may make: what it changes the cost by (negative), the change of every
/// class's use count, and the classes no chosen node reads any more.
struct Swap {
    change: f64,
    uses: HashMap<Id, f64>,
    freed: Vec<Id>,
}

/// Class `c` obtained by its node `j`, a reshard from a chosen class of the same value,
/// instead of its chosen node, if that lowers the program's exact DAG cost.
fn swap(
    p: &Propagated,
    pick: &Pick,
    uses: &[f64],
    costs: &[Vec<f64>],
    c: Id,
    j: usize,
) -> Option<Swap> {
    let eg = &p.graph.egraph;
    let &i = pick.get(&c)?;
    let PNode::Reshard { child, .. } = &eg[c].nodes[j] else {
        return None;
    };
    let from = eg.find(child[0]);
    if j == i || !pick.contains_key(&from) {
        return None;
    }
    // A cycle: `from` is itself obtained (through reshards of the same value) from `c`.
    let v = eg[c].data.0;
    let mut k = from;
    for _ in 0..=pick.len() {
        if k == c {
            return None;
        }
        match &eg[k].nodes[pick[&k]] {
            PNode::Reshard { child, .. } if eg[eg.find(child[0])].data.0 == v => {
                k = eg.find(child[0]);
            }
            _ => break,
        }
    }
    // What the swap frees: the old node's inputs no chosen node reads any more, and
    // theirs in turn.
    let mut delta: HashMap<Id, f64> = HashMap::from([(from, 1.0)]);
    let mut stack: Vec<Id> = eg[c].nodes[i]
        .children()
        .iter()
        .map(|&ch| eg.find(ch))
        .collect();
    let mut freed = Vec::new();
    while let Some(d) = stack.pop() {
        let x = delta.entry(d).or_insert(0.0);
        *x -= 1.0;
        if uses[usize::from(d)] + *x <= 0.0
            && let Some(&n) = pick.get(&d)
        {
            freed.push(d);
            stack.extend(eg[d].nodes[n].children().iter().map(|&ch| eg.find(ch)));
        }
    }
    let saved: f64 = freed.iter().map(|&d| costs[usize::from(d)][pick[&d]]).sum();
    let change = costs[usize::from(c)][j] - costs[usize::from(c)][i] - saved;
    (change < -1e-18).then_some(Swap {
        change,
        uses: delta,
        freed,
    })
}

/// Extracts the cheapest program (see the module docs).
pub fn extract(p: &Propagated, f: &Function) -> Result<Extraction, CompileError> {
    extract_saturated(p, f).map_err(|e| limit_reached(p, e))
}

/// A value without the layout asked of it, after a propagation stopped by a limit: the
/// layout may well exist past the limit, so the error says which limit and how to raise it.
fn limit_reached(p: &Propagated, e: CompileError) -> CompileError {
    let Some(raise) = crate::passes::propagate::stopped_early(&p.report.stop) else {
        return e;
    };
    match e {
        CompileError::Unreachable { value, layout, why } => CompileError::Unreachable {
            value,
            layout,
            why: format!("{why} ({raise}; the layout may be reachable past it)"),
        },
        other => other,
    }
}

fn extract_saturated(p: &Propagated, f: &Function) -> Result<Extraction, CompileError> {
    let eg = &p.graph.egraph;
    let order = program_order(f);
    let classes_of: Vec<Vec<Id>> = order
        .iter()
        .map(|&v| {
            p.graph
                .layouts_of(v)
                .iter()
                .filter_map(|&l| p.graph.class(v, l))
                .collect()
        })
        .collect();
    let size = p
        .graph
        .keys()
        .map(|(_, c)| usize::from(c) + 1)
        .max()
        .unwrap_or(0);
    let mut costs: Vec<Vec<f64>> = vec![Vec::new(); size];
    for (_, c) in p.graph.keys() {
        costs[usize::from(c)] = eg[c].nodes.iter().map(|n| node_cost(p, f, c, n)).collect();
    }
    let mut share: Vec<f64> = vec![1.0; size];
    let mut winner: Option<Extraction> = None;
    let mut tree_round_cost = 0.0;
    for i in 0..=ROUNDS {
        let r = round(p, &order, &classes_of, &costs, &share);
        let roots = resolve_roots(p, &r)?;
        let (mut pick, mut uses, cost) = reach(p, &r, &roots, &costs)?;
        if i == 0 {
            tree_round_cost = cost;
        }
        share = uses.iter().map(|&u| u.max(1.0)).collect();
        let cost = refine(p, &mut pick, &mut uses, &roots, &costs, cost);
        let choice = choice_of(p, &pick);
        if winner.as_ref().is_none_or(|w| cost < w.cost) {
            let best = p
                .graph
                .keys()
                .filter_map(|(_, c)| r.get(c).map(|(x, _)| (c, x)))
                .collect();
            winner = Some(Extraction {
                choice,
                roots,
                cost,
                tree_round_cost,
                best,
            });
        }
    }
    let mut w = winner.expect("at least one round ran");
    w.tree_round_cost = tree_round_cost;
    Ok(w)
}
