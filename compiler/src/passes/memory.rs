//! Per-device memory of a per-device program: the peak of the bytes live at once, walking
//! the body in order (arguments live from the start, every value until its last use,
//! results until the end).

use shardc_ir::{Function, ValueId};
use std::collections::HashMap;

/// The peak live bytes of one device running `f` (the body's ops in order).
pub fn peak_bytes(f: &Function) -> u64 {
    walk(f, true)
}

/// The peak live bytes of the values `f` computes, its arguments left out: what a device
/// allocates while running `f` on top of what its caller holds (for a training step: the
/// activations, gradients and temporaries, not the parameters, optimizer state or batch).
pub fn peak_computed_bytes(f: &Function) -> u64 {
    walk(f, false)
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
        let mut b = Breakdown::default();
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
    let size = |v: ValueId| f.ty(v).size_bytes() as u64;
    let ops: Vec<_> = f.body_ops().collect();
    let last_use = last_uses(f, &ops);
    let results: std::collections::HashSet<ValueId> = f.results().iter().copied().collect();
    let mut live: Vec<ValueId> = f.args().to_vec();
    let mut held: u64 = live.iter().map(|&v| size(v)).sum();
    let mut best = Peak {
        bytes: held,
        ..Peak::default()
    };
    let mut best_live = live.clone();
    for (i, (_, op)) in ops.iter().enumerate() {
        let now = held + running(f, op);
        // A loop's or branch's results are its regions' (counted there) until it ends.
        let regions_hold_results = inside_counts_results(op);
        if regions_hold_results && now > best.bytes {
            best_live.clone_from(&live);
        }
        live.extend(op.results.iter().copied());
        held += op.results.iter().map(|&v| size(v)).sum::<u64>();
        if now > best.bytes {
            best.bytes = now;
            best.at = i;
            if !regions_hold_results {
                best_live.clone_from(&live);
            }
        }
        live.retain(|v| {
            let keep = last_use.get(v).is_some_and(|&u| u > i) || results.contains(v);
            if !keep {
                held -= size(*v);
            }
            keep
        });
    }
    let mut sized: Vec<(ValueId, u64)> = best_live.into_iter().map(|v| (v, size(v))).collect();
    sized.sort_by_key(|&(v, b)| (std::cmp::Reverse(b), v.index()));
    best.live = sized;
    best
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

/// The peak of live bytes walking `f`'s body in order, counting its arguments or not.
fn walk(f: &Function, args: bool) -> u64 {
    let size = |v: ValueId| f.ty(v).size_bytes() as u64;
    let ops: Vec<_> = f.body_ops().collect();
    let mut last_use = last_uses(f, &ops);
    let is_arg = |v: ValueId| f.args().contains(&v);
    let mut live: u64 = if args {
        f.args().iter().map(|&v| size(v)).sum()
    } else {
        0
    };
    let mut peak = live;
    for (i, (_, op)) in ops.iter().enumerate() {
        peak = peak.max(live + running(f, op));
        live += op.results.iter().map(|&v| size(v)).sum::<u64>();
        // Free what this op read for the last time, and results nothing reads.
        for &v in op.operands.iter().chain(&op.results) {
            if last_use.get(&v).is_none_or(|&u| u == i) && !f.results().contains(&v) {
                if args || !is_arg(v) {
                    live = live.saturating_sub(size(v));
                }
                last_use.insert(v, usize::MAX);
            }
        }
    }
    peak
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
}
