//! Per-device memory of a per-device program: the peak of the bytes live at once, walking
//! the body in order (arguments live from the start, every value until its last use,
//! results until the end).
//!
//! A value made from constants alone (a learning rate broadcast to a weight's shape) is
//! not held between the device's compute segments: each segment that reads it makes it
//! again ([`shardc_runtime::engine::recomputed`]), and the JIT computes it inside the
//! kernels reading it. It is counted from its first reader in each segment to its last
//! there. Counted from where the program defines it to its last reader anywhere, the
//! plan held a Megatron step's three GELU-constant splats across both all-reduces: 11%
//! over the measured peak.
//!
//! What a device hands its communication side with a collective — the operand, moved, or
//! a copy where compute reads it again — is held with the result until compute waits for
//! that result or for the result of a collective handed over after it (the
//! communication side runs them in order), as the device counts it
//! (`shardc_runtime::backend`'s `Device::done_before`). Left out, ZeRO-3's prefetched
//! gathers measured 1.13-1.15x the plan. With both, the reference engine measures the
//! plan within 8 B on every strategy (`docs/runtime.md`, "Run reports").

use shardc_ir::{Function, ValueId};
use std::collections::{HashMap, HashSet};

/// The peak live bytes of one device running `f` (the body's ops in order).
pub fn peak_bytes(f: &Function) -> u64 {
    walk(f, true).bytes
}

/// The peak live bytes of the values `f` computes, its arguments left out: what a device
/// allocates while running `f` on top of what its caller holds (for a training step: the
/// activations, gradients and temporaries, not the parameters, optimizer state or batch).
pub fn peak_computed_bytes(f: &Function) -> u64 {
    walk(f, false).bytes
}

/// Where a device holds the most: the peak, the body position (op index) it is reached
/// at, and the values live there, largest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Peak {
    /// Bytes held at the peak.
    pub bytes: u64,
    /// The body position (op index) it is reached at.
    pub at: usize,
    /// The values live there and their bytes, largest first.
    pub live: Vec<(ValueId, u64)>,
    /// Copies of collectives' operands in flight there (an operand read again later is
    /// handed to the communication side as a copy, held until compute waits for the
    /// result), and their bytes.
    pub in_flight: Vec<(ValueId, u64)>,
}

/// What a device holds at its peak, by what the values are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Breakdown {
    /// The function's arguments still live: parameters, optimizer state, the batch.
    pub arguments: u64,
    /// Results of collectives: gathered weights, reduced gradients, exchanged activations.
    pub communication: u64,
    /// Values the device computed: activations kept for the backward pass, gradients,
    /// temporaries.
    pub computed: u64,
    /// What the loop or branch running at the peak holds inside its regions (one
    /// iteration's activations).
    pub regions: u64,
}

impl Peak {
    /// The peak of `f` by what is live there (the parts add up to [`Peak::bytes`]).
    pub fn breakdown(&self, f: &Function) -> Breakdown {
        let mut b = Breakdown {
            communication: self.in_flight.iter().map(|&(_, bytes)| bytes).sum(),
            ..Breakdown::default()
        };
        for &(v, bytes) in &self.live {
            let slot = if f.args().contains(&v) {
                &mut b.arguments
            } else if f
                .defining_op(v)
                .is_some_and(|o| f.op(o).kind.is_collective())
            {
                &mut b.communication
            } else {
                &mut b.computed
            };
            *slot += bytes;
        }
        b.regions = self
            .bytes
            .saturating_sub(b.arguments + b.communication + b.computed);
        b
    }
}

/// The peak of `f` (arguments counted) and what is live at it.
pub fn peak(f: &Function) -> Peak {
    walk(f, true)
}

/// Where each value made from constants alone is held: from the first to the last body
/// position reading it within each compute segment (segments end at per-device ops and
/// at loops or branches run as steps), through the values made from it (a scalar constant
/// is made again with the broadcast of it). Values read inside a region are left to the
/// plain walk.
struct Remade {
    /// The values, each counted only between its marks below.
    values: HashSet<ValueId>,
    /// At each body position, those that come in before the op there runs.
    comes: HashMap<usize, Vec<ValueId>>,
    /// At each body position, those that go once the op there has run.
    goes: HashMap<usize, Vec<ValueId>>,
}

impl Remade {
    fn of(f: &Function, ops: &[(shardc_ir::OpId, &shardc_ir::Op)]) -> Remade {
        let made = shardc_runtime::engine::recomputed(f);
        let top: HashSet<shardc_ir::OpId> = ops.iter().map(|(id, _)| *id).collect();
        let nested: HashSet<ValueId> = f
            .blocks
            .iter()
            .flat_map(|b| &b.ops)
            .filter(|id| !top.contains(id))
            .flat_map(|&id| f.op(id).operands.iter().copied())
            .collect();
        // The segment of each body position.
        let mut segments = Vec::with_capacity(ops.len());
        let mut segment = 0;
        for (_, op) in ops {
            let boundary = op.kind.is_per_device() || shardc_runtime::engine::runs_as_steps(f, op);
            segment += usize::from(boundary);
            segments.push(segment);
            segment += usize::from(boundary);
        }
        let remade_op = |op: &shardc_ir::Op| op.results.iter().any(|r| made.contains_key(r));
        // Each value's readers that are not themselves remade, through the remade ops
        // reading it (a scalar constant is pulled into a segment with the broadcast of it).
        let mut readers: HashMap<ValueId, Vec<usize>> = HashMap::new();
        for (i, (_, op)) in ops.iter().enumerate() {
            if !remade_op(op) {
                for &v in op.operands.iter().filter(|v| made.contains_key(v)) {
                    readers.entry(v).or_default().push(i);
                }
            }
        }
        for (_, op) in ops.iter().rev().filter(|(_, op)| remade_op(op)) {
            let through: Vec<usize> = op
                .results
                .iter()
                .flat_map(|r| readers.get(r).cloned().unwrap_or_default())
                .collect();
            for &v in op.operands.iter().filter(|v| made.contains_key(v)) {
                readers.entry(v).or_default().extend(&through);
            }
        }
        // By segment: (first, last).
        let mut spans: HashMap<(ValueId, usize), (usize, usize)> = HashMap::new();
        for (v, at) in readers.into_iter().filter(|(v, _)| !nested.contains(v)) {
            for i in at {
                let span = spans.entry((v, segments[i])).or_insert((i, i));
                span.0 = span.0.min(i);
                span.1 = span.1.max(i);
            }
        }
        let mut r = Remade {
            values: spans.keys().map(|(v, _)| *v).collect(),
            comes: HashMap::new(),
            goes: HashMap::new(),
        };
        for ((v, _), (first, last)) in spans {
            r.comes.entry(first).or_default().push(v);
            r.goes.entry(last).or_default().push(v);
        }
        r
    }
}

/// The peak of live bytes walking `f`'s body in order, counting its arguments or not,
/// and what is live at it.
fn walk(f: &Function, args: bool) -> Peak {
    let size = |v: ValueId| f.ty(v).size_bytes() as u64;
    let ops: Vec<_> = f.body_ops().collect();
    let last_use = last_uses(f, &ops);
    let remade = Remade::of(f, &ops);
    let lent = lent(f, &ops, &last_use);
    let results: HashSet<ValueId> = f.results().iter().copied().collect();
    // Operand copies in flight: the operand and the position its collective's result is
    // first read at.
    let mut flying: Vec<(ValueId, usize)> = Vec::new();
    let mut best_flying: Vec<(ValueId, usize)> = Vec::new();
    // Where each value stops being live: after its last reader (a value no op reads,
    // where it is made; a result never), a value made from constants after its
    // segment's last reader.
    let mut dies: HashMap<usize, Vec<ValueId>> = remade.goes.clone();
    let made = ops
        .iter()
        .enumerate()
        .flat_map(|(i, (_, op))| op.results.iter().map(move |&r| (r, i)));
    for (v, made_at) in f.args().iter().map(|&a| (a, 0)).chain(made) {
        if !results.contains(&v) && !remade.values.contains(&v) {
            let at = last_use.get(&v).copied().unwrap_or(made_at).max(made_at);
            dies.entry(at).or_default().push(v);
        }
    }
    let mut live = Live::default();
    if args {
        for &a in f.args() {
            live.insert(a);
        }
    }
    let mut held: u64 = live.values.iter().map(|&v| size(v)).sum();
    let mut best = Peak {
        bytes: held,
        ..Peak::default()
    };
    let mut best_live = live.values.clone();
    for (i, (_, op)) in ops.iter().enumerate() {
        for &v in remade.comes.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            if live.insert(v) {
                held += size(v);
            }
        }
        // Copies whose collective's result this op waits for are dropped before it runs.
        flying.retain(|&(v, until)| {
            let keep = until > i;
            if !keep {
                held -= size(v);
            }
            keep
        });
        let handed = lent.get(&i).copied();
        if let Some((v, until, true)) = handed {
            flying.push((v, until));
            held += size(v);
        }
        // A value made from constants is made where it is read, not here.
        let remade_here =
            !op.results.is_empty() && op.results.iter().all(|r| remade.values.contains(r));
        let now = held + if remade_here { 0 } else { running(f, op) };
        // A loop's or branch's results are its regions' (counted there) until it ends.
        let regions_hold_results = inside_counts_results(op);
        if regions_hold_results && now > best.bytes {
            best_live.clone_from(&live.values);
            best_flying.clone_from(&flying);
        }
        for &r in &op.results {
            if !remade.values.contains(&r) && live.insert(r) {
                held += size(r);
            }
        }
        if now > best.bytes {
            best.bytes = now;
            best.at = i;
            if !regions_hold_results {
                best_live.clone_from(&live.values);
                best_flying.clone_from(&flying);
            }
        }
        for &v in dies.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            if live.remove(v) {
                held -= size(v);
            }
        }
        // An operand read for the last time is moved to the communication side, held
        // there with the result until compute waits for it.
        if let Some((v, until, false)) = handed {
            flying.push((v, until));
            held += size(v);
        }
    }
    let mut sized: Vec<(ValueId, u64)> = best_live.into_iter().map(|v| (v, size(v))).collect();
    sized.sort_by_key(|&(v, b)| (std::cmp::Reverse(b), v.index()));
    best.live = sized;
    best.in_flight = best_flying.into_iter().map(|(v, _)| (v, size(v))).collect();
    best
}

/// The values a walk holds: removal in constant time (their order does not matter).
#[derive(Default)]
struct Live {
    values: Vec<ValueId>,
    at: HashMap<ValueId, usize>,
}

impl Live {
    /// Whether `v` was not held yet.
    fn insert(&mut self, v: ValueId) -> bool {
        let std::collections::hash_map::Entry::Vacant(e) = self.at.entry(v) else {
            return false;
        };
        e.insert(self.values.len());
        self.values.push(v);
        true
    }

    /// Whether `v` was held.
    fn remove(&mut self, v: ValueId) -> bool {
        let Some(i) = self.at.remove(&v) else {
            return false;
        };
        self.values.swap_remove(i);
        if let Some(&moved) = self.values.get(i) {
            self.at.insert(moved, i);
        }
        true
    }
}

/// The operands handed to the communication side, by body position of the per-device op
/// they are handed to: the operand, the position where the device stops counting it,
/// and whether it is a copy (the operand is read again after the op, so compute keeps
/// its own) or the operand itself (moved over). The device counts what it handed over
/// with the result until compute waits for the result (at the result's first reader on
/// the compute side, or at the end for a result the function returns) or for the result
/// of an op handed over after it (the communication side runs its ops in order), or, for
/// a result only later per-device ops read, until it hands over the next op. The ops that move nothing (a slice of the device's own piece that
/// compute reads) run on the compute side and hand nothing over.
fn lent(
    f: &Function,
    ops: &[(shardc_ir::OpId, &shardc_ir::Op)],
    last_use: &HashMap<ValueId, usize>,
) -> HashMap<usize, (ValueId, usize, bool)> {
    let by_op: HashMap<shardc_ir::OpId, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    let readers = |v: ValueId| {
        ops.iter()
            .enumerate()
            .filter(move |(_, (_, o))| o.operands.contains(&v))
    };
    // Which per-device ops run on the communication side, in order.
    let mut comm: Vec<bool> = vec![false; ops.len()];
    for (i, (_, op)) in ops.iter().enumerate() {
        if !op.kind.is_per_device() {
            continue;
        }
        let from_comm = op.operands.iter().any(|&x| {
            f.defining_op(x)
                .and_then(|d| by_op.get(&d))
                .is_some_and(|&k| comm[k])
        });
        let to_comm = op
            .results
            .iter()
            .any(|&r| readers(r).any(|(_, (_, o))| o.kind.is_per_device()));
        comm[i] = op.kind.is_collective() || from_comm || to_comm;
    }
    let on_compute = |k: usize| !comm[k];
    // Where compute waits for each per-device op's result: its first reader there.
    let waits: Vec<Option<usize>> = ops
        .iter()
        .enumerate()
        .map(|(i, (_, op))| {
            let r = op.results.first()?;
            (comm[i])
                .then(|| {
                    readers(*r)
                        .map(|(k, _)| k)
                        .find(|&k| k > i && on_compute(k))
                })
                .flatten()
        })
        .collect();
    // The communication side runs its ops in order: once compute has the result of one,
    // every op handed over before it is done with what it was handed.
    let mut done_by = vec![ops.len(); ops.len() + 1];
    for i in (0..ops.len()).rev() {
        done_by[i] = done_by[i + 1].min(waits[i].unwrap_or(ops.len()));
    }
    let mut out = HashMap::new();
    for (i, (_, op)) in ops.iter().enumerate() {
        let ([x], [r]) = (op.operands.as_slice(), op.results.as_slice()) else {
            continue;
        };
        if !comm[i] {
            continue;
        }
        // Compute waits at the result's first reader there, or at the end for a result
        // the function returns; a result only per-device ops read stays over there,
        // counted with its operand until the next op is handed over.
        let own = match waits[i] {
            Some(k) => k,
            None if f.results().contains(r) => ops.len(),
            None => (i + 1..ops.len()).find(|&k| comm[k]).unwrap_or(ops.len()),
        };
        let until = own.min(done_by[i + 1]);
        // An operand the communication side holds (a result compute never reads) is
        // moved along; one compute holds and reads again is copied.
        let kept_there = f
            .defining_op(*x)
            .and_then(|d| by_op.get(&d))
            .is_some_and(|&k| comm[k] && !readers(*x).any(|(j, _)| on_compute(j)));
        let copied = !kept_there && last_use.get(x).is_some_and(|&u| u > i);
        out.insert(i, (*x, until, copied));
    }
    out
}

/// The bytes op `op` holds while it runs, beyond what is live before it: its results
/// beside its operands; for a branch, what its taken region computes at once
/// ([`inside`]), whose last values are its results; for a loop, what its body computes
/// at once with the carried values the previous iteration computed, each held until the
/// body last reads it. A carried value the body passes on unchanged (a scan's stacked
/// weights) stays the operand's storage: counting every result on top of the operands
/// planned `flax_scan_blocks_adamw_step` at 1.6x the peak its run measured.
fn running(f: &Function, op: &shardc_ir::Op) -> u64 {
    if op.kind == shardc_ir::OpKind::While {
        let [cond, body] = op.regions[..] else {
            return inside(f, op);
        };
        // The carried values an iteration changes, live from its start to their last use.
        let b = f.block(body);
        let changing: Vec<ValueId> = b
            .args
            .iter()
            .zip(&b.results)
            .filter(|(a, r)| a != r)
            .map(|(&a, _)| a)
            .collect();
        block_peak(f, body, &changing).max(block_peak(f, cond, &[]))
    } else if inside_counts_results(op) {
        inside(f, op)
    } else {
        op.results
            .iter()
            .map(|&v| f.ty(v).size_bytes() as u64)
            .sum()
    }
}

/// Whether `op` is a loop or branch, whose regions compute its results.
fn inside_counts_results(op: &shardc_ir::Op) -> bool {
    matches!(op.kind, shardc_ir::OpKind::While | shardc_ir::OpKind::Case)
}

/// The most any one of a loop's or branch's regions computes at once (a loop's body:
/// the activations of one iteration and the next carried values; a branch: the one
/// taken, at most its largest). 0 for other ops (a reduction's or sort's region
/// combines scalars).
fn inside(f: &Function, op: &shardc_ir::Op) -> u64 {
    if !inside_counts_results(op) {
        return 0;
    }
    op.regions
        .iter()
        .map(|&r| block_peak(f, r, &[]))
        .max()
        .unwrap_or(0)
}

/// The peak of the bytes a block's ops compute (what it reads from outside and its
/// arguments left out, but for `live_args`, held from its start to their last use), its
/// results held to its end, nested regions counted.
fn block_peak(f: &Function, block: shardc_ir::BlockId, live_args: &[ValueId]) -> u64 {
    let b = f.block(block);
    let size = |v: ValueId| f.ty(v).size_bytes() as u64;
    let mut last_use: HashMap<ValueId, usize> = HashMap::new();
    for (i, &id) in b.ops.iter().enumerate() {
        for &v in &f.op(id).operands {
            last_use.insert(v, i);
        }
    }
    let computed: std::collections::HashSet<ValueId> = b
        .ops
        .iter()
        .flat_map(|&id| f.op(id).results.iter().copied())
        .chain(live_args.iter().copied())
        .collect();
    let mut live: u64 = live_args.iter().map(|&a| size(a)).sum();
    // An argument nothing reads is dropped at the start.
    for &a in live_args {
        if !last_use.contains_key(&a) && !b.results.contains(&a) {
            live = live.saturating_sub(size(a));
        }
    }
    let mut peak = live;
    for (i, &id) in b.ops.iter().enumerate() {
        let op = f.op(id);
        peak = peak.max(live + running(f, op));
        live += op.results.iter().map(|&v| size(v)).sum::<u64>();
        for &v in &op.operands {
            if computed.contains(&v) && last_use.get(&v) == Some(&i) && !b.results.contains(&v) {
                live = live.saturating_sub(size(v));
            }
        }
        for &r in &op.results {
            if !last_use.contains_key(&r) && !b.results.contains(&r) {
                live = live.saturating_sub(size(r));
            }
        }
    }
    peak
}

/// The last body position reading each value (results: past the end).
fn last_uses(f: &Function, ops: &[(shardc_ir::OpId, &shardc_ir::Op)]) -> HashMap<ValueId, usize> {
    let mut last_use: HashMap<ValueId, usize> = HashMap::new();
    for (i, (_, op)) in ops.iter().enumerate() {
        for &v in &op.operands {
            last_use.insert(v, i);
        }
    }
    for &v in f.results() {
        last_use.insert(v, ops.len());
    }
    last_use
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::{BinaryOp, DType, FunctionBuilder, TensorType, UnaryOp};

    #[test]
    fn peak_counts_what_is_live_together() {
        // x (64 B) -> a = -x -> b = a + a -> return b: x and a live together (128), then
        // a and b (128); x freed after its last read.
        let t = TensorType::new(DType::F32, [16]);
        let mut b = FunctionBuilder::new("f", std::slice::from_ref(&t));
        let a = b.unary(UnaryOp::Negate, b.arg(0)).unwrap();
        let s = b.binary(BinaryOp::Add, a, a).unwrap();
        let f = b.finish(&[s]);
        assert_eq!(peak_bytes(&f), 128);
        // Without x: a (64), then a and b (128).
        assert_eq!(peak_computed_bytes(&f), 128);
    }

    #[test]
    fn the_peak_names_what_is_live_there() {
        // x (64 B) -> a = -x (64) -> b = a + a (64) -> c = b * b: x and a at op 0 (128),
        // then a and b (128); the first position reaching the most wins.
        let t = TensorType::new(DType::F32, [16]);
        let w = TensorType::new(DType::F32, [32]);
        let mut b = FunctionBuilder::new("f", &[t.clone(), w]);
        let a = b.unary(UnaryOp::Negate, b.arg(0)).unwrap();
        let s = b.binary(BinaryOp::Add, a, a).unwrap();
        let w = b.arg(1);
        let f = b.finish(&[s, w]);
        let p = peak(&f);
        assert_eq!(p.bytes, peak_bytes(&f));
        assert_eq!(p.bytes, 64 + 128 + 64);
        assert_eq!(p.at, 0);
        assert_eq!(p.live[0], (f.args()[1], 128), "the largest first");
        assert_eq!(p.live.len(), 3);
    }

    #[test]
    fn computed_bytes_leave_the_arguments_out() {
        // x (64 B), y (64 B) -> a = -x -> b = a + y -> return b: x, y and a live together
        // (192), then y, a and b; computed: a, then a and b (128).
        let t = TensorType::new(DType::F32, [16]);
        let mut b = FunctionBuilder::new("f", &[t.clone(), t]);
        let a = b.unary(UnaryOp::Negate, b.arg(0)).unwrap();
        let s = b.binary(BinaryOp::Add, a, b.arg(1)).unwrap();
        let f = b.finish(&[s]);
        assert_eq!(peak_bytes(&f), 192);
        assert_eq!(peak_computed_bytes(&f), 128);
    }

    #[test]
    fn a_loop_holds_what_its_body_computes_while_it_runs() {
        // x: f32[16] (64 B) -> while (i < 3) { t = x * x; x' = t + t } -> return: in an
        // iteration the loop holds t and x' (128) beside x (64); its results are its last
        // iteration's carried values, not more.
        let t = TensorType::new(DType::F32, [16]);
        let text = r#"
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.while(%i = %0, %v = %x) : tensor<i32>, tensor<16xf32>
    cond {
      %c = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %t = stablehlo.multiply %v, %v : tensor<16xf32>
      %u = stablehlo.add %t, %t : tensor<16xf32>
      stablehlo.return %n, %u : tensor<i32>, tensor<16xf32>
    }
  return %1#1 : tensor<16xf32>
}"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        assert_eq!(f.arg_types(), vec![t]);
        // x (64) + the constant (4) + in an iteration: the carried values the previous
        // one computed (i, v: 4 + 64), i freed once the counter's next value n (4) is
        // computed, v once t (64) is: 4 + 64 + 64 at t, and at u (n, t, u) again. The
        // loop's results are its last iteration's n and u, not more.
        assert_eq!(peak(f).bytes, 64 + 4 + 4 + 64 + 64);
        assert_eq!(peak_bytes(f), peak(f).bytes);
        let b = peak(f).breakdown(f);
        assert_eq!(
            (b.arguments, b.communication, b.computed, b.regions),
            (64, 0, 4, 4 + 64 + 64)
        );
        // A loop passing v on unchanged: it stays x's storage, not counted again; t and
        // u (computed, unused) are.
        let passing = text.replace(
            "stablehlo.return %n, %u : tensor<i32>, tensor<16xf32>",
            "stablehlo.return %n, %v : tensor<i32>, tensor<16xf32>",
        );
        let m = shardc_ir::text::parse_module(&passing).unwrap();
        assert_eq!(peak(m.entry().unwrap()).bytes, 64 + 4 + 4 + 64 + 64);
    }

    #[test]
    fn the_peak_is_broken_down_into_arguments_collective_results_and_computed_values() {
        // A data-parallel gradient: w (64 B) and x (64 B) in, g = x * w (64), r =
        // all_reduce(g) (64), w' = w - r + x: at the all-reduce, w, x, g and r are live
        // (256 B; the first position to hold that much).
        let text = r#"
func.func @main(%w: tensor<16xf32>, %x: tensor<16xf32>) -> tensor<16xf32> {
  %g = stablehlo.multiply %x, %w : tensor<16xf32>
  %r = "stablehlo.all_reduce"(%g) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<16xf32>) -> tensor<16xf32>
  %n = stablehlo.subtract %w, %r : tensor<16xf32>
  %o = stablehlo.add %n, %x : tensor<16xf32>
  return %o : tensor<16xf32>
}"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        let p = peak(f);
        let b = p.breakdown(f);
        assert_eq!(
            (b.arguments, b.communication, b.computed, b.regions),
            (128, 64, 64, 0)
        );
        assert_eq!(
            b.arguments + b.communication + b.computed + b.regions,
            p.bytes
        );
    }

    /// A learning rate broadcast to a weight's shape, read before a collective and after
    /// it, is made again in the segment after (as the device runs it), not held across.
    #[test]
    fn a_value_made_from_constants_is_held_only_where_it_is_read() {
        let text = r#"
func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<256xf32>
  %a = stablehlo.multiply %x, %b : tensor<256xf32>
  %r = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<256xf32>) -> tensor<1024xf32>
  %s = stablehlo.slice %r [0:256] : (tensor<1024xf32>) -> tensor<256xf32>
  %y = stablehlo.multiply %s, %b : tensor<256xf32>
  return %y : tensor<256xf32>
}"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        // At the gather: a (1 KiB, moved to the communication side) and r (4 KiB); at the
        // slice, r and s. Held across the gather, %b would add 1 KiB there.
        let p = peak(f);
        assert_eq!(p.bytes, 5120, "{p:?}");
        let b = f.results()[0];
        let broadcast = f.op(f.defining_op(b).unwrap()).operands[1];
        assert!(p.live.iter().all(|&(v, _)| v != broadcast), "{p:?}");
        assert_eq!(peak_bytes(f), 5120);
    }

    /// A gather of an argument read again later is handed a copy, which the device holds
    /// (with the result) until compute waits for the result.
    #[test]
    fn a_collective_holds_a_copy_of_an_operand_read_again() {
        let text = r#"
func.func @main(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %r = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<256xf32>) -> tensor<1024xf32>
  %y = stablehlo.multiply %x, %x : tensor<256xf32>
  %s = stablehlo.slice %r [0:256] : (tensor<1024xf32>) -> tensor<256xf32>
  return %y, %s : tensor<256xf32>, tensor<256xf32>
}"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        // At the multiply: x, its copy in flight, r and y (1 + 1 + 4 + 1 KiB).
        let p = peak(f);
        assert_eq!((p.bytes, p.at), (7168, 1), "{p:?}");
        assert_eq!(p.in_flight, vec![(f.args()[0], 1024)]);
        let parts = p.breakdown(f);
        assert_eq!(
            (parts.arguments, parts.communication, parts.computed),
            (1024, 1024 + 4096, 1024),
            "{parts:?}"
        );
    }

    /// The communication side runs its collectives in order: once compute has the
    /// result of one, an all-reduce handed over before it (whose result the function
    /// returns unread) is done with its operand too.
    #[test]
    fn a_later_result_arriving_frees_what_earlier_collectives_were_handed() {
        let text = r#"
func.func @main(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<1024xf32>) {
  %a = stablehlo.multiply %x, %x : tensor<256xf32>
  %r = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) : (tensor<256xf32>) -> tensor<256xf32>
  %g = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<256xf32>) -> tensor<1024xf32>
  %m = stablehlo.multiply %g, %g : tensor<1024xf32>
  return %r, %m : tensor<256xf32>, tensor<1024xf32>
}"#;
        let m = shardc_ir::text::parse_module(text).unwrap();
        let f = m.entry().unwrap();
        // At the multiply: r (1 KiB) and g and m (4 KiB each); a, handed to the
        // all-reduce, is gone once g is here (held to the end, 10 KiB).
        let p = peak(f);
        assert_eq!((p.bytes, p.at), (9216, 3), "{p:?}");
        assert!(p.in_flight.is_empty(), "{p:?}");
    }
}
