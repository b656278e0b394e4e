//! How a device computes: a per-device program is cut into *segments* (straight runs of
//! compute ops) separated by per-device ops (collectives, shard slices, axis indices),
//! which the backend runs itself. A [`Compute`] engine prepares each segment once into a
//! [`Kernel`] that any device thread can run many times.
//!
//! [`Interpreted`] runs segments with the reference interpreter; the native engine of
//! `shardc-compiler` (MLIR kernels) implements the same traits.

use crate::reference;
use shardc_ir::{DType, Elements, Function, Literal, Module, OpId, OpKind, TensorType, ValueId};
use std::collections::{HashMap, HashSet};

/// A straight run of compute ops of a per-device function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The ops, in program order (all body ops; none is a per-device op).
    pub ops: Vec<OpId>,
    /// Values the segment reads that it does not define, in first-use order.
    pub inputs: Vec<ValueId>,
    /// Values the segment defines that later steps or the function's results read.
    pub outputs: Vec<ValueId>,
}

/// One step of a per-device program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A segment of compute ops the engine runs as one kernel.
    Compute(Segment),
    /// A per-device op (`OpKind::is_per_device`) the backend runs.
    PerDevice(OpId),
}

/// Cuts a per-device function's body into compute segments and per-device ops.
pub fn steps(f: &Function) -> Vec<Step> {
    cut(f, false, &HashSet::new())
}

/// Like [`steps`], and also cuts a segment before each op that reads the result of a
/// per-device op the segment does not read yet: a backend that runs collectives in the
/// background then waits for a result only when an op needs it, not when the segment
/// holding that op starts.
pub fn steps_waiting_late(f: &Function) -> Vec<Step> {
    cut(f, true, &HashSet::new())
}

/// Like [`steps_waiting_late`], and also cuts a segment before each op that reads one of
/// `streamed` (arguments read from files, [`crate::backend::Offload`]) the segment does
/// not read yet: each is read just before the ops that need it, so an optimizer update
/// over offloaded state holds one parameter's state at a time.
pub fn steps_streaming(f: &Function, streamed: &HashSet<ValueId>) -> Vec<Step> {
    cut(f, true, streamed)
}

/// Values computed from constants alone (constants, iotas, and broadcasts, reshapes and
/// conversions of them) that only compute ops read: each segment that reads one computes
/// it itself rather than reading what an earlier segment wrote (a splat of `0.1` read
/// after a collective would otherwise be written in full by one kernel and read by the
/// next).
fn recomputed(f: &Function) -> HashMap<ValueId, OpId> {
    let mut made: HashMap<ValueId, OpId> = HashMap::new();
    for (id, op) in f.body_ops() {
        let from_constants = match op.kind {
            OpKind::Constant(_) | OpKind::Iota { .. } => true,
            OpKind::BroadcastInDim { .. } | OpKind::Reshape | OpKind::Convert => {
                op.operands.iter().all(|v| made.contains_key(v))
            }
            _ => false,
        };
        if from_constants && op.results.len() == 1 {
            made.insert(op.results[0], id);
        }
    }
    // Not those a per-device op reads or the function returns: they are written once.
    let mut written: Vec<ValueId> = f.results().to_vec();
    for (_, op) in f.body_ops() {
        if op.kind.is_per_device() {
            written.extend(op.operands.iter().copied());
        }
    }
    // ... nor what those are computed from.
    while let Some(v) = written.pop() {
        if let Some(id) = made.remove(&v) {
            written.extend(f.op(id).operands.iter().copied());
        }
    }
    made
}

fn cut(f: &Function, at_reads_of_per_device: bool, streamed: &HashSet<ValueId>) -> Vec<Step> {
    let recomputed = recomputed(f);
    // Puts `v`'s op (after those it reads) into `current` unless it is there already.
    fn pull(
        f: &Function,
        recomputed: &HashMap<ValueId, OpId>,
        v: ValueId,
        current: &mut Vec<OpId>,
        pulled: &mut HashSet<OpId>,
    ) {
        let Some(&id) = recomputed.get(&v) else {
            return;
        };
        if pulled.insert(id) {
            for &w in &f.op(id).operands {
                pull(f, recomputed, w, current, pulled);
            }
            current.push(id);
        }
    }
    let mut pulled: HashSet<OpId> = HashSet::new();
    let mut steps = Vec::new();
    let mut current: Vec<OpId> = Vec::new();
    let flush = |current: &mut Vec<OpId>, steps: &mut Vec<Step>, pulled: &mut HashSet<OpId>| {
        pulled.clear();
        if !current.is_empty() {
            steps.push(Step::Compute(Segment {
                ops: std::mem::take(current),
                inputs: Vec::new(),
                outputs: Vec::new(),
            }));
        }
    };
    // Results of per-device ops (and the streamed values, waited for alike), and those
    // the current segment already reads.
    let mut per_device: HashSet<ValueId> = streamed.clone();
    let mut read: HashSet<ValueId> = HashSet::new();
    for (id, op) in f.body_ops() {
        if op.kind.is_per_device() {
            flush(&mut current, &mut steps, &mut pulled);
            read.clear();
            steps.push(Step::PerDevice(id));
            per_device.extend(op.results.iter().copied());
            continue;
        }
        let waits = op
            .operands
            .iter()
            .any(|v| per_device.contains(v) && !read.contains(v));
        if at_reads_of_per_device && waits {
            flush(&mut current, &mut steps, &mut pulled);
            read.clear();
        }
        read.extend(op.operands.iter().filter(|v| per_device.contains(v)));
        if op.results.iter().any(|v| recomputed.contains_key(v)) {
            continue;
        }
        for &v in &op.operands {
            pull(f, &recomputed, v, &mut current, &mut pulled);
        }
        current.push(id);
    }
    flush(&mut current, &mut steps, &mut pulled);
    // Inputs and outputs of each segment.
    let mut read_after: Vec<HashSet<ValueId>> = vec![Default::default(); steps.len()];
    let mut later: HashSet<ValueId> = f.results().iter().copied().collect();
    for (i, s) in steps.iter().enumerate().rev() {
        read_after[i] = later.clone();
        let ops: Vec<OpId> = match s {
            Step::Compute(seg) => seg.ops.clone(),
            Step::PerDevice(op) => vec![*op],
        };
        // What the step reads from earlier steps (not what it computes itself, such as
        // the values it recomputes from constants).
        let defined: HashSet<ValueId> = ops
            .iter()
            .flat_map(|&o| f.op(o).results.iter().copied())
            .collect();
        for o in ops {
            later.extend(f.op(o).operands.iter().filter(|v| !defined.contains(v)));
        }
    }
    for (i, s) in steps.iter_mut().enumerate() {
        let Step::Compute(seg) = s else { continue };
        let mut defined = HashSet::new();
        for &o in &seg.ops {
            let op = f.op(o);
            for &v in &op.operands {
                if !defined.contains(&v) && !seg.inputs.contains(&v) {
                    seg.inputs.push(v);
                }
            }
            defined.extend(op.results.iter().copied());
        }
        for &o in &seg.ops {
            for &r in &f.op(o).results {
                if read_after[i].contains(&r) {
                    seg.outputs.push(r);
                }
            }
        }
    }
    steps
}

/// Errors of engines (the interpreter's, MLIR's, a device's), boxed.
pub type EngineError = Box<dyn std::error::Error + Send + Sync>;

/// A prepared segment: runs on the values of `Segment::inputs`, gives `Segment::outputs`.
pub trait Kernel: Send + Sync {
    /// Runs on borrowed `inputs`, taking the storage of its outputs from `buffers` where
    /// the kernel can (a backend gives back there the values its device no longer needs).
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError>;

    /// [`Kernel::run_reusing`] on owned inputs, every output freshly allocated.
    fn run(&self, inputs: &[Literal]) -> Result<Vec<Literal>, EngineError> {
        let refs: Vec<&Literal> = inputs.iter().collect();
        self.run_reusing(&refs, &mut Buffers::default())
    }

    /// The kernel as `Any`, for backends that run kernels of their own kind on their
    /// devices rather than through [`Kernel::run`] (the cuda backend finds the GPU
    /// program of a `backend::cuda::GpuKernel` this way). `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// A device's spare storage: the elements of values it no longer needs, by dtype and
/// length, handed out again for kernels' outputs instead of allocating (as XLA's buffer
/// assignment reuses a dead buffer for a later value of its size). Allocating a large
/// buffer costs a system call, page faults and zeroing every page; reusing one costs
/// nothing, and every kernel overwrites every element of its outputs.
///
/// A pool holds at most [`Buffers::LIMIT`] bytes by default; what is given beyond its
/// limit is freed.
#[derive(Debug)]
pub struct Buffers {
    free: HashMap<(DType, usize), Vec<Elements>>,
    bytes: usize,
    limit: usize,
}

impl Default for Buffers {
    fn default() -> Buffers {
        Buffers::with_limit(Buffers::LIMIT)
    }
}

impl Buffers {
    /// The most bytes a pool keeps by default.
    pub const LIMIT: usize = 256 << 20;

    /// An empty pool that keeps at most `limit` bytes.
    pub fn with_limit(limit: usize) -> Buffers {
        Buffers {
            free: HashMap::new(),
            bytes: 0,
            limit,
        }
    }

    /// Storage for a value of type `ty`: a dead value's elements if one of the same
    /// dtype and length was given back (holding stale data, which the caller overwrites),
    /// else zeros.
    pub fn take(&mut self, ty: &TensorType) -> Literal {
        let n = ty.num_elements();
        let elements = match self.free.get_mut(&(ty.dtype, n)).and_then(Vec::pop) {
            Some(e) => {
                self.bytes -= n * ty.dtype.size_bytes();
                e
            }
            None => Elements::zeros(ty.dtype, n),
        };
        Literal {
            ty: ty.clone(),
            elements,
        }
    }

    /// Gives back the storage of a value no longer needed. Splats (one element standing
    /// for many) and empty values are dropped, as is anything past the pool's limit.
    pub fn give(&mut self, value: Literal) {
        let n = value.elements.len();
        let bytes = n * value.ty.dtype.size_bytes();
        if value.is_splat() || n == 0 || self.bytes + bytes > self.limit {
            return;
        }
        self.bytes += bytes;
        self.free
            .entry((value.ty.dtype, n))
            .or_default()
            .push(value.elements);
    }

    /// Bytes held for reuse.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Prepares segments into kernels.
pub trait Compute: Send + Sync {
    /// The kernel of one segment of `f` (the error names the op it cannot prepare).
    fn prepare(
        &self,
        module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError>;

    /// Prepares every compute segment of `f` at once, one result per segment in order: an
    /// engine may share work between them (compile what they have in common once, in
    /// parallel). By default, [`Compute::prepare`] on each in turn.
    fn prepare_all(
        &self,
        module: &Module,
        f: &Function,
        segments: &[&Segment],
    ) -> Vec<Result<Box<dyn Kernel>, EngineError>> {
        segments
            .iter()
            .map(|s| self.prepare(module, f, s))
            .collect()
    }

    /// Brings every kernel prepared so far to its final form now and waits for it: an
    /// engine that first compiles kernels quickly and optimises hot ones later
    /// (`compiler::lower::tier`) does all of that now, so that what follows (a
    /// benchmark's timed steps) runs the final code. Nothing by default.
    fn finish_tiering(&self) {}
}

/// Runs segments with the reference interpreter, op by op.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interpreted;

struct InterpretedKernel {
    module: Module,
    func: String,
    segment: Segment,
    /// [`last_reads`] of the segment.
    moves: Vec<Vec<bool>>,
}

/// For each op of `segment`, for each of its operands, whether that read is the value's
/// last in the segment and the segment does not return it: an interpreter may then move
/// the value to the op instead of copying it (and frees it as soon as it is used).
pub fn last_reads(f: &Function, segment: &Segment) -> Vec<Vec<bool>> {
    let mut read_later: HashSet<ValueId> = segment.outputs.iter().copied().collect();
    let mut moves: Vec<Vec<bool>> = Vec::with_capacity(segment.ops.len());
    for &o in segment.ops.iter().rev() {
        let operands = &f.op(o).operands;
        let mut last = vec![false; operands.len()];
        // The last position an op reads a value at is its last read.
        for (i, v) in operands.iter().enumerate().rev() {
            last[i] = read_later.insert(*v);
        }
        moves.push(last);
    }
    moves.reverse();
    moves
}

impl Kernel for InterpretedKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        _buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let f = self
            .module
            .function(&self.func)
            .ok_or("the kernel's function is not in its module")?;
        interpret(&self.module, f, &self.segment, &self.moves, inputs, None)
    }
}

/// What [`interpret`] tells a profiler after each op: the op and its time.
pub type OpTimer<'a> = dyn FnMut(&shardc_ir::Op, std::time::Duration) + 'a;

/// Runs `segment` of `f` on the reference interpreter, moving each operand to its op at
/// its last read (`moves`, from [`last_reads`]) and copying it before; with `timed`,
/// tells it each op and how long it took, its operands' copies included (profilers).
pub fn interpret(
    module: &Module,
    f: &Function,
    segment: &Segment,
    moves: &[Vec<bool>],
    inputs: &[&Literal],
    mut timed: Option<&mut OpTimer>,
) -> Result<Vec<Literal>, EngineError> {
    let mut env: HashMap<ValueId, Literal> = segment
        .inputs
        .iter()
        .copied()
        .zip(inputs.iter().map(|&l| l.clone()))
        .collect();
    for (&o, moves) in segment.ops.iter().zip(moves) {
        let op = f.op(o);
        let start = timed.as_ref().map(|_| std::time::Instant::now());
        let ins = op
            .operands
            .iter()
            .zip(moves)
            .map(|(v, &last)| {
                if last {
                    env.remove(v)
                } else {
                    env.get(v).cloned()
                }
            })
            .collect::<Option<Vec<Literal>>>()
            .ok_or("an operand of the segment is not defined before it is read")?;
        let outs = reference::eval_op(module, f, op, &ins)?;
        if let (Some(t), Some(start)) = (timed.as_mut(), start) {
            t(op, start.elapsed());
        }
        env.extend(op.results.iter().copied().zip(outs));
    }
    segment
        .outputs
        .iter()
        .map(|v| {
            env.remove(v)
                .ok_or_else(|| "an output of the segment is not defined".into())
        })
        .collect()
}

impl Compute for Interpreted {
    fn prepare(
        &self,
        module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        Ok(Box::new(InterpretedKernel {
            module: module.clone(),
            func: f.name.clone(),
            segment: segment.clone(),
            moves: last_reads(f, segment),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    /// A buffer given back is handed out again for a value of its dtype and length (the
    /// same storage), not for another; splats are not kept; nothing past the limit is.
    #[test]
    fn buffers_hand_out_dead_storage_again() {
        let t = TensorType::new(DType::F32, [4, 8]);
        let mut b = Buffers::default();
        let fresh = b.take(&t);
        assert_eq!(fresh.to_f64_vec(), vec![0.0; 32]);
        let storage = |l: &Literal| match &l.elements {
            Elements::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        let at = storage(&fresh);
        b.give(fresh);
        assert_eq!(b.bytes(), 128);
        assert_eq!(
            b.take(&TensorType::new(DType::I32, [4, 8]))
                .elements
                .dtype(),
            DType::I32
        );
        let other = b.take(&TensorType::new(DType::F32, [32]));
        assert_eq!(other.ty.shape, vec![32]);
        assert_eq!(
            storage(&other),
            at,
            "a [32] f32 has the length of a [4, 8] one"
        );
        assert_eq!(b.bytes(), 0);
        let ones = Literal {
            ty: t.clone(),
            elements: Elements::F32(vec![1.0; 32]),
        };
        let ones_at = storage(&ones);
        b.give(ones);
        let again = b.take(&t);
        assert_eq!(storage(&again), ones_at);
        assert_eq!(
            again.to_f64_vec(),
            vec![1.0; 32],
            "stale contents, not zeroed"
        );
        b.give(Literal::splat(t.clone(), shardc_ir::Scalar::Float(1.0)));
        assert_eq!(b.bytes(), 0, "a splat is not kept");
        let mut small = Buffers::with_limit(200);
        small.give(again);
        small.give(Literal {
            ty: t.clone(),
            elements: Elements::F32(vec![2.0; 32]),
        });
        assert_eq!(small.bytes(), 128, "the second would pass the limit");
    }

    #[test]
    fn segments_split_at_collectives_with_their_inputs_and_outputs() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %a = stablehlo.negate %x : tensor<4xf32>
    %b = stablehlo.exponential %a : tensor<4xf32>
    %c = "stablehlo.all_reduce"(%b) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %d = stablehlo.add %c, %a : tensor<4xf32>
    return %d, %b : tensor<4xf32>, tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        assert_eq!(s.len(), 3);
        let Step::Compute(first) = &s[0] else {
            panic!("{s:?}")
        };
        assert_eq!(first.inputs, f.args().to_vec());
        // %a is read after the collective, %b by it and by the results.
        let names = f.value_names();
        let out: Vec<&str> = first
            .outputs
            .iter()
            .map(|v| names[v.index()].as_str())
            .collect();
        assert_eq!(out, ["%0", "%1"]);
        assert!(matches!(s[1], Step::PerDevice(_)));
        let Step::Compute(last) = &s[2] else { panic!() };
        assert_eq!(last.outputs.len(), 1);
        // The interpreted kernel of the first segment computes exp(-x).
        let k = Interpreted.prepare(&m, f, first).unwrap();
        let x = Literal::from_f64(shardc_ir::DType::F32, &[4], &[0.0, 1.0, 2.0, 3.0]).unwrap();
        let out = k.run(&[x]).unwrap();
        assert_eq!(out[1].to_f64_vec()[0], 1.0);
        assert!((out[1].to_f64_vec()[1] - (-1.0f32).exp() as f64).abs() < 1e-7);
    }

    #[test]
    fn values_of_constants_alone_are_computed_by_each_segment_that_reads_them() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %k = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %s = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %a = stablehlo.multiply %x, %s : tensor<4xf32>
    %c = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %d = stablehlo.multiply %c, %s : tensor<4xf32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %e = "stablehlo.all_reduce"(%z) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %d, %e : tensor<4xf32>, tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let kinds = |seg: &Segment| -> Vec<String> {
            seg.ops.iter().map(|&o| f.op(o).kind.name()).collect()
        };
        let Step::Compute(first) = &s[0] else {
            panic!("{s:?}")
        };
        let Step::Compute(second) = &s[2] else {
            panic!("{s:?}")
        };
        // The splat of 0.1 is made again after the collective rather than written by the
        // first segment and read by the second.
        let splat = ["stablehlo.constant", "stablehlo.broadcast_in_dim"];
        assert_eq!(kinds(first)[..2], splat);
        assert_eq!(kinds(second)[..2], splat, "{:?}", kinds(second));
        assert_eq!(
            first.outputs.len(),
            1,
            "only x * 0.1 leaves the first segment"
        );
        assert_eq!(
            second.inputs.len(),
            1,
            "only the all-reduced value enters the second"
        );
        // A constant a collective reads is computed once, by a segment, as before.
        let Step::PerDevice(last) = &s[3] else {
            panic!("{s:?}")
        };
        let zero = f.op(*last).operands[0];
        assert!(second.outputs.contains(&zero), "{s:?}");
    }

    #[test]
    fn interpreted_kernels_move_values_at_their_last_read() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %a = stablehlo.negate %x : tensor<2xf32>
    %b = stablehlo.add %a, %a : tensor<2xf32>
    %c = stablehlo.multiply %b, %b : tensor<2xf32>
    %d = stablehlo.add %c, %x : tensor<2xf32>
    return %d, %a : tensor<2xf32>, tensor<2xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let [Step::Compute(seg)] = &s[..] else {
            panic!("{s:?}")
        };
        // %x is read again by the last op, %a is returned, %b is read twice by one op.
        assert_eq!(
            last_reads(f, seg),
            [
                vec![false],
                vec![false, false],
                vec![false, true],
                vec![true, true]
            ]
        );
        let k = Interpreted.prepare(&m, f, seg).unwrap();
        let x = Literal::from_f64(shardc_ir::DType::F32, &[2], &[1.0, -3.0]).unwrap();
        let out = k.run(&[x]).unwrap();
        // The segment's outputs in the order it defines them: %a, then %d.
        assert_eq!(out[0].to_f64_vec(), [-1.0, 3.0]);
        assert_eq!(out[1].to_f64_vec(), [5.0, 33.0]);
    }

    #[test]
    fn waiting_late_cuts_before_the_first_reader_of_a_collective() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %a = stablehlo.negate %x : tensor<4xf32>
    %b = stablehlo.exponential %a : tensor<4xf32>
    %d = stablehlo.add %c, %b : tensor<4xf32>
    %e = stablehlo.multiply %d, %c : tensor<4xf32>
    return %e : tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let sizes = |s: &[Step]| -> Vec<usize> {
            s.iter()
                .map(|s| match s {
                    Step::Compute(seg) => seg.ops.len(),
                    Step::PerDevice(_) => 0,
                })
                .collect()
        };
        assert_eq!(sizes(&steps(f)), [0, 4]);
        // negate and exponential run while the all-reduce is in flight; the add waits.
        let late = steps_waiting_late(f);
        assert_eq!(sizes(&late), [0, 2, 2]);
        let Step::Compute(waiting) = &late[2] else {
            panic!("{late:?}")
        };
        let Step::PerDevice(ar) = late[0] else {
            panic!("{late:?}")
        };
        assert!(waiting.inputs.contains(&f.op(ar).results[0]));
    }
}
