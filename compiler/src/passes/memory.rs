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

/// The peak of live bytes walking `f`'s body in order, counting its arguments or not.
fn walk(f: &Function, args: bool) -> u64 {
    let size = |v: ValueId| f.ty(v).size_bytes() as u64;
    let ops: Vec<_> = f.body_ops().collect();
    // The last body position reading each value (results: past the end).
    let mut last_use: HashMap<ValueId, usize> = HashMap::new();
    for (i, (_, op)) in ops.iter().enumerate() {
        for &v in &op.operands {
            last_use.insert(v, i);
        }
    }
    for &v in f.results() {
        last_use.insert(v, ops.len());
    }
    let is_arg = |v: ValueId| f.args().contains(&v);
    let mut live: u64 = if args {
        f.args().iter().map(|&v| size(v)).sum()
    } else {
        0
    };
    let mut peak = live;
    for (i, (_, op)) in ops.iter().enumerate() {
        live += op.results.iter().map(|&v| size(v)).sum::<u64>();
        peak = peak.max(live);
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
}
