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
    /// Where the program goes next, other than on to the next step: a loop whose body
    /// communicates runs as steps of the device's program, not inside a kernel.
    Control(Control),
}

/// The steps of a loop whose body holds per-device ops (a `stablehlo.while` of a
/// per-device program that communicates: a scan of layers whose weights are gathered
/// one layer at a time, a ring of `ppermute`s). Every device runs the loop's steps in
/// lockstep with the others, since its condition reads values that are the same on
/// every device. A loop is laid out as
///
/// ```text
/// Bind(init -> cond args)
/// head:  the condition's steps
///        Branch(cond result, exit)
///        Bind(cond args -> body args)
///        the body's steps
///        Bind(body results -> cond args)
///        Jump(head)
/// exit:  Bind(cond args -> loop results)
/// ```
///
/// A branch whose regions hold per-device ops (a `lax.cond` in a shard_map body that
/// averages with a `psum` every few steps) is laid out as
///
/// ```text
///        Switch(index, [b0, b1, ...])
/// b0:    branch 0's steps
///        Bind(branch 0's results -> case results)
///        Jump(end)
/// b1:    branch 1's steps ...
/// end:
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Each of `from` copied into the value of `to` at its position: moved where this
    /// is its last read ([`flow`]).
    Bind {
        /// The values read.
        from: Vec<ValueId>,
        /// The values defined, one per read value.
        to: Vec<ValueId>,
    },
    /// Go on with the next step if `cond` (an `i1` scalar, the same on every device)
    /// holds, else at step `exit`.
    Branch {
        /// The loop's test.
        cond: ValueId,
        /// The step after the loop.
        exit: usize,
    },
    /// Go on at step `to` (a loop's head, or the step after a branch).
    Jump(usize),
    /// Go on at `targets[index]`: `index` is an integer scalar, the same on every
    /// device; one out of range goes to the last target, as `stablehlo.case` runs its
    /// last branch.
    Switch {
        /// The branch to take.
        index: ValueId,
        /// The first step of each branch.
        targets: Vec<usize>,
    },
}

impl Control {
    /// The values the step reads.
    pub fn reads(&self) -> &[ValueId] {
        match self {
            Control::Bind { from, .. } => from,
            Control::Branch { cond, .. } => std::slice::from_ref(cond),
            Control::Switch { index, .. } => std::slice::from_ref(index),
            Control::Jump(_) => &[],
        }
    }

    /// The values the step defines.
    pub fn defines(&self) -> &[ValueId] {
        match self {
            Control::Bind { to, .. } => to,
            _ => &[],
        }
    }
}

/// The first step of the branch a [`Control::Switch`] to `targets` takes for `index`:
/// the last branch for an index out of range, as `stablehlo.case` runs it.
pub fn branch_target(targets: &[usize], index: i64) -> usize {
    let last = targets.len().saturating_sub(1);
    let k = usize::try_from(index).map_or(last, |k| k.min(last));
    targets.get(k).copied().unwrap_or_default()
}

impl Step {
    /// The steps that may run after step `at` (this one): the next, a loop's exit, a
    /// jump's target or a switch's branches.
    pub fn successors(&self, at: usize) -> Vec<usize> {
        match self {
            Step::Control(Control::Jump(to)) => vec![*to],
            Step::Control(Control::Branch { exit, .. }) => vec![at + 1, *exit],
            Step::Control(Control::Switch { targets, .. }) => targets.clone(),
            _ => vec![at + 1],
        }
    }
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

/// Whether loop (or branch) `op` of `f` runs as steps of the device's program: its
/// regions hold per-device ops.
pub fn runs_as_steps(f: &Function, op: &shardc_ir::Op) -> bool {
    matches!(op.kind, OpKind::While | OpKind::Case)
        && shardc_ir::unroll::communicates(f, &op.regions)
}

/// Values computed from constants alone (constants, iotas, and broadcasts, reshapes and
/// conversions of them) that only compute ops read: each segment that reads one computes
/// it itself rather than reading what an earlier segment wrote (a splat of `0.1` read
/// after a collective would otherwise be written in full by one kernel and read by the
/// next).
pub fn recomputed(f: &Function) -> HashMap<ValueId, OpId> {
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
    // Not those a per-device op (anywhere) or a loop run as steps reads, or the function
    // returns: they are written once.
    let mut written: Vec<ValueId> = f.results().to_vec();
    for op in &f.ops {
        if op.kind.is_per_device() || runs_as_steps(f, op) {
            written.extend(op.operands.iter().copied());
        }
        if runs_as_steps(f, op) {
            for &r in &op.regions {
                written.extend(f.block(r).results.iter().copied());
            }
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

/// Cuts a function's ops into steps (see [`cut`]).
struct Cutter<'f> {
    f: &'f Function,
    recomputed: HashMap<ValueId, OpId>,
    at_reads_of_per_device: bool,
    steps: Vec<Step>,
    current: Vec<OpId>,
    /// The recomputed ops the current segment holds.
    pulled: HashSet<OpId>,
    /// Results of per-device ops (and the streamed values, waited for alike).
    per_device: HashSet<ValueId>,
    /// Those of `per_device` the current segment already reads.
    read: HashSet<ValueId>,
    /// The step that defines each value defined so far (not the function's arguments).
    placed: HashMap<ValueId, usize>,
}

impl Cutter<'_> {
    /// Puts `v`'s op (after those it reads) into the current segment unless it is there.
    fn pull(&mut self, v: ValueId) {
        let Some(&id) = self.recomputed.get(&v) else {
            return;
        };
        if self.pulled.insert(id) {
            for &w in &self.f.op(id).operands {
                self.pull(w);
            }
            self.current.push(id);
        }
    }

    fn flush(&mut self) {
        self.pulled.clear();
        self.read.clear();
        if !self.current.is_empty() {
            let at = self.steps.len();
            for &o in &self.current {
                self.placed
                    .extend(self.f.op(o).results.iter().map(|&v| (v, at)));
            }
            self.steps.push(Step::Compute(Segment {
                ops: std::mem::take(&mut self.current),
                inputs: Vec::new(),
                outputs: Vec::new(),
            }));
        }
    }

    fn block(&mut self, ops: &[OpId]) {
        let f = self.f;
        // The segments a scalar op may join: this block's own, not those of a loop or
        // branch nested in it (which may run another number of times).
        let start = self.steps.len();
        let mut nested: Vec<std::ops::Range<usize>> = Vec::new();
        for &id in ops {
            let op = f.op(id);
            if runs_as_steps(f, op) {
                self.flush();
                let from = self.steps.len();
                if op.kind == OpKind::While {
                    self.while_loop(op);
                } else {
                    self.case(op);
                }
                nested.push(from..self.steps.len());
                continue;
            }
            if op.kind.is_per_device() {
                self.flush();
                let at = self.steps.len();
                self.placed.extend(op.results.iter().map(|&v| (v, at)));
                self.steps.push(Step::PerDevice(id));
                self.per_device.extend(op.results.iter().copied());
                continue;
            }
            if self.current.is_empty() && self.hoisted(id, start, &nested) {
                continue;
            }
            let waits = op
                .operands
                .iter()
                .any(|v| self.per_device.contains(v) && !self.read.contains(v));
            if self.at_reads_of_per_device && waits {
                self.flush();
            }
            self.read.extend(
                op.operands
                    .iter()
                    .filter(|v| self.per_device.contains(v))
                    .copied(),
            );
            if op.results.iter().any(|v| self.recomputed.contains_key(v)) {
                continue;
            }
            for &v in &op.operands {
                self.pull(v);
            }
            self.current.push(id);
        }
    }

    /// Whether scalar op `id` (a loop's counter stepped after the body's collectives or
    /// branches, its rotated test: `shardc_ir::rotate`) went into the last compute segment
    /// of the block that began at step `start` (not one of the loops or branches `nested`
    /// in it), which already has what it reads: a segment of a few scalar ops after a
    /// collective would cost a kernel launch of its own.
    fn hoisted(&mut self, id: OpId, start: usize, nested: &[std::ops::Range<usize>]) -> bool {
        let f = self.f;
        let op = f.op(id);
        let scalar = |v: &ValueId| f.ty(*v).num_elements() == 1;
        if !op.regions.is_empty() || op.results.is_empty() || !op.results.iter().all(scalar) {
            return false;
        }
        let Some(k) = (start..self.steps.len()).rev().find(|&k| {
            matches!(self.steps[k], Step::Compute(_)) && !nested.iter().any(|r| r.contains(&k))
        }) else {
            return false;
        };
        // Made by then, and not a value a backend hands over when a step asks for it (a
        // streamed argument, [`steps_streaming`]).
        let ready = |v: &ValueId| {
            !self.per_device.contains(v)
                && (self.recomputed.contains_key(v) || self.placed.get(v).is_none_or(|&j| j <= k))
        };
        if !op.operands.iter().all(ready) {
            return false;
        }
        // What it reads from constants alone, computed in that segment too.
        let mut pulled: Vec<OpId> = Vec::new();
        let mut todo: Vec<ValueId> = op.operands.clone();
        while let Some(v) = todo.pop() {
            if let Some(&o) = self.recomputed.get(&v)
                && !pulled.contains(&o)
            {
                pulled.push(o);
                todo.extend(f.op(o).operands.iter().copied());
            }
        }
        let Step::Compute(seg) = &mut self.steps[k] else {
            return false;
        };
        // Pulled in the order of the function (a constant before what broadcasts it).
        pulled.sort();
        for o in pulled {
            if !seg.ops.contains(&o) {
                seg.ops.push(o);
            }
        }
        seg.ops.push(id);
        self.placed.extend(op.results.iter().map(|&v| (v, k)));
        true
    }

    /// A branch whose regions communicate, laid out as [`Control`] says.
    fn case(&mut self, op: &shardc_ir::Op) {
        let f = self.f;
        let Some(&index) = op.operands.first() else {
            return;
        };
        let switch = self.steps.len();
        self.steps.push(Step::Control(Control::Switch {
            index,
            targets: Vec::new(),
        }));
        let mut targets = Vec::new();
        let mut jumps = Vec::new();
        for &r in &op.regions {
            targets.push(self.steps.len());
            let branch = f.block(r);
            self.block(&branch.ops);
            self.flush();
            self.steps.push(Step::Control(Control::Bind {
                from: branch.results.clone(),
                to: op.results.clone(),
            }));
            jumps.push(self.steps.len());
            self.steps.push(Step::Control(Control::Jump(0)));
        }
        let end = self.steps.len();
        for j in jumps {
            self.steps[j] = Step::Control(Control::Jump(end));
        }
        self.steps[switch] = Step::Control(Control::Switch { index, targets });
        self.placed.extend(op.results.iter().map(|&v| (v, end)));
    }

    /// A loop whose body communicates, laid out as [`Control`] says.
    fn while_loop(&mut self, op: &shardc_ir::Op) {
        let f = self.f;
        let [cond, body] = op.regions.as_slice() else {
            return;
        };
        let (cond, body) = (f.block(*cond), f.block(*body));
        let bind = |from: &[ValueId], to: &[ValueId]| {
            Step::Control(Control::Bind {
                from: from.to_vec(),
                to: to.to_vec(),
            })
        };
        self.steps.push(bind(op.written_operands(), &cond.args));
        let head = self.steps.len();
        self.block(&cond.ops);
        self.flush();
        let branch = self.steps.len();
        let Some(&test) = cond.results.first() else {
            return;
        };
        self.steps.push(Step::Control(Control::Branch {
            cond: test,
            exit: 0,
        }));
        self.steps.push(bind(&cond.args, &body.args));
        self.block(&body.ops);
        self.flush();
        self.steps.push(bind(&body.results, &cond.args));
        self.steps.push(Step::Control(Control::Jump(head)));
        let exit = self.steps.len();
        self.steps[branch] = Step::Control(Control::Branch { cond: test, exit });
        self.placed.extend(op.results.iter().map(|&v| (v, exit)));
        self.steps.push(bind(&cond.args, &op.results));
    }
}

fn cut(f: &Function, at_reads_of_per_device: bool, streamed: &HashSet<ValueId>) -> Vec<Step> {
    let mut c = Cutter {
        f,
        recomputed: recomputed(f),
        at_reads_of_per_device,
        steps: Vec::new(),
        current: Vec::new(),
        pulled: HashSet::new(),
        per_device: streamed.clone(),
        read: HashSet::new(),
        placed: HashMap::new(),
    };
    c.block(&f.body().ops);
    c.flush();
    let mut steps = c.steps;
    // Inputs of each segment: what its ops read that they do not define.
    for s in steps.iter_mut() {
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
    }
    // Outputs: what it defines that a step that may run later reads.
    let defs: Vec<Vec<ValueId>> = steps.iter().map(|s| step_defines(f, s)).collect();
    let reads: Vec<Vec<ValueId>> = steps.iter().map(|s| step_reads(f, s)).collect();
    let live = flow(&steps, f.results(), |i| (&reads[i][..], &defs[i][..]));
    for (s, live) in steps.iter_mut().zip(live) {
        if let Step::Compute(seg) = s {
            seg.outputs = live.kept;
        }
    }
    steps
}

/// What step `s` of `f` reads from earlier steps (a segment's inputs).
pub fn step_reads(f: &Function, s: &Step) -> Vec<ValueId> {
    match s {
        Step::Compute(seg) => seg.inputs.clone(),
        Step::PerDevice(op) => f.op(*op).operands.clone(),
        Step::Control(c) => c.reads().to_vec(),
    }
}

/// What step `s` of `f` defines (every result of a segment's ops, in order).
pub fn step_defines(f: &Function, s: &Step) -> Vec<ValueId> {
    match s {
        Step::Compute(seg) => seg
            .ops
            .iter()
            .flat_map(|&o| f.op(o).results.iter().copied())
            .collect(),
        Step::PerDevice(op) => f.op(*op).results.clone(),
        Step::Control(c) => c.defines().to_vec(),
    }
}

/// What one step does with values, as [`flow`] finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Liveness {
    /// The values it reads that no step that may run after it reads before they are
    /// defined again: their last read (in program order).
    pub dead: Vec<ValueId>,
    /// The values it defines that a step that may run after it (or the program's
    /// results) reads (in the order it defines them).
    pub kept: Vec<ValueId>,
}

/// Liveness over the steps of a program, loops included: for each step, given by
/// `uses(i)` as (what step `i` reads, what it defines), the values whose last read it is
/// and the values it defines that are read later; `results` are read at the end.
/// Straight-line steps take one backward pass; each loop (a jump back) another until
/// nothing changes.
pub fn flow<'a>(
    steps: &[Step],
    results: &[ValueId],
    uses: impl Fn(usize) -> (&'a [ValueId], &'a [ValueId]),
) -> Vec<Liveness> {
    let n = steps.len();
    // What is live on entry to each step some jump or branch goes to.
    let mut targets: HashMap<usize, HashSet<ValueId>> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        for t in s.successors(i) {
            if t != i + 1 {
                targets.insert(t, HashSet::new());
            }
        }
    }
    let mut out = vec![Liveness::default(); n];
    loop {
        let mut changed = false;
        let mut live: HashSet<ValueId> = results.iter().copied().collect();
        for i in (0..n).rev() {
            // Live after step i: what its successors need.
            let mut after: HashSet<ValueId> = HashSet::new();
            for t in steps[i].successors(i) {
                if t == i + 1 {
                    after.extend(live.drain());
                } else if let Some(l) = targets.get(&t) {
                    after.extend(l.iter().copied());
                }
            }
            let (reads, defines) = uses(i);
            let mut dead = Vec::new();
            for &v in reads {
                if !after.contains(&v) && !dead.contains(&v) {
                    dead.push(v);
                }
            }
            let kept: Vec<ValueId> = defines
                .iter()
                .filter(|v| after.contains(v))
                .copied()
                .collect();
            out[i] = Liveness { dead, kept };
            live = after;
            for v in defines {
                live.remove(v);
            }
            live.extend(reads.iter().copied());
            if let Some(l) = targets.get_mut(&i)
                && *l != live
            {
                *l = live.clone();
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
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

    /// Runs on `inputs`, some handed over at their last read ([`Input::Owned`]): a kernel
    /// that runs in parts gives each one's storage back to `buffers` as soon as no later
    /// part reads it, for the outputs that follow (a fused optimizer update then holds one
    /// parameter's old and new values at a time, not every old one beside every new one,
    /// as the plan counts). By default [`Kernel::run_reusing`], the owned inputs given
    /// back after it, every output held beside every input.
    fn run_owning(
        &self,
        inputs: Vec<Input<'_>>,
        buffers: &mut Buffers,
    ) -> Result<Ran, EngineError> {
        let refs: Vec<&Literal> = inputs.iter().map(Input::literal).collect();
        let outputs = self.run_reusing(&refs, buffers)?;
        drop(refs);
        for input in inputs {
            if let Input::Owned(l) = input {
                buffers.give(l);
            }
        }
        let peak = outputs.iter().map(stored_bytes).sum();
        Ok(Ran { outputs, peak })
    }

    /// The kernel as `Any`, for backends that run kernels of their own kind on their
    /// devices rather than through [`Kernel::run`] (the cuda backend finds the GPU
    /// program of a `backend::cuda::GpuKernel` this way). `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// A segment's input as [`Kernel::run_owning`] gets it.
#[derive(Debug)]
pub enum Input<'a> {
    /// Read again after the segment: the kernel only reads it.
    Borrowed(&'a Literal),
    /// Read last by this segment, handed over: the kernel frees it when done with it.
    Owned(Literal),
}

impl Input<'_> {
    /// The value.
    pub fn literal(&self) -> &Literal {
        match self {
            Input::Borrowed(l) => l,
            Input::Owned(l) => l,
        }
    }
}

/// What [`Kernel::run_owning`] gives: the outputs, and the most bytes the run held at
/// once beyond what it was given (the values it computed then, its outputs and the
/// temporaries between its parts, less the owned inputs already given back; 0 before it
/// computes anything), which a device adds to what it held before the run for its
/// measured peak.
#[derive(Debug)]
pub struct Ran {
    /// The segment's outputs, in order.
    pub outputs: Vec<Literal>,
    /// The most bytes held at once beyond the inputs.
    pub peak: u64,
}

/// The bytes a value's storage takes (a splat's one element).
pub fn stored_bytes(l: &Literal) -> u64 {
    (l.elements.len() * l.ty.dtype.size_bytes()) as u64
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
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let inputs = inputs.iter().map(|&l| Input::Borrowed(l)).collect();
        Ok(self.run_owning(inputs, buffers)?.outputs)
    }

    fn run_owning(
        &self,
        inputs: Vec<Input<'_>>,
        _buffers: &mut Buffers,
    ) -> Result<Ran, EngineError> {
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
/// its last read (`moves`, from [`last_reads`]) and copying it before (a borrowed input
/// is copied once, an owned one taken); with `timed`, tells it each op and how long it
/// took, its operands' copies included (profilers). Its peak counts op by op, as the
/// plan does: each op's results beside what is live, the values it read last (owned
/// inputs among them) freed after it.
pub fn interpret(
    module: &Module,
    f: &Function,
    segment: &Segment,
    moves: &[Vec<bool>],
    inputs: Vec<Input<'_>>,
    mut timed: Option<&mut OpTimer>,
) -> Result<Ran, EngineError> {
    // Values counted in the peak: what the segment computes and its owned inputs (a
    // borrowed input's copy is the device's value, counted there).
    let mut counted: HashSet<ValueId> = HashSet::new();
    let mut env: HashMap<ValueId, Literal> = HashMap::new();
    for (&v, input) in segment.inputs.iter().zip(inputs) {
        let l = match input {
            Input::Borrowed(l) => l.clone(),
            Input::Owned(l) => {
                counted.insert(v);
                l
            }
        };
        env.insert(v, l);
    }
    let (mut held, mut peak) = (0i64, 0i64);
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
        held += outs.iter().map(stored_bytes).sum::<u64>() as i64;
        peak = peak.max(held);
        for (&v, (l, &last)) in op.operands.iter().zip(ins.iter().zip(moves)) {
            if last && counted.contains(&v) {
                held -= stored_bytes(l) as i64;
            }
        }
        counted.extend(op.results.iter().copied());
        env.extend(op.results.iter().copied().zip(outs));
    }
    let outputs = segment
        .outputs
        .iter()
        .map(|v| {
            env.remove(v)
                .ok_or_else(|| "an output of the segment is not defined".into())
        })
        .collect::<Result<Vec<_>, EngineError>>()?;
    Ok(Ran {
        outputs,
        peak: peak.max(0) as u64,
    })
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

    /// An input handed over at its last read is freed after the op that reads it, so a
    /// chain holds one value at a time beyond its input, as the plan counts; a borrowed
    /// input stays the device's and the chain holds two.
    #[test]
    fn owned_inputs_are_freed_after_their_last_reader() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %a = stablehlo.negate %x : tensor<2xf32>
    %b = stablehlo.add %a, %a : tensor<2xf32>
    %c = stablehlo.multiply %b, %b : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let [Step::Compute(seg)] = &s[..] else {
            panic!("{s:?}")
        };
        let k = Interpreted.prepare(&m, f, seg).unwrap();
        let x = Literal::from_f64(DType::F32, &[2], &[1.0, -3.0]).unwrap();
        let mut pool = Buffers::default();
        let borrowed = k.run_owning(vec![Input::Borrowed(&x)], &mut pool).unwrap();
        let owned = k
            .run_owning(vec![Input::Owned(x.clone())], &mut pool)
            .unwrap();
        assert_eq!(borrowed.outputs, owned.outputs);
        assert_eq!(owned.outputs[0].to_f64_vec(), [4.0, 36.0]);
        assert_eq!((borrowed.peak, owned.peak), (16, 8));
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
                    _ => 0,
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

    /// A loop whose body all-reduces is laid out as control steps around its condition's
    /// and body's steps; liveness over the jump back keeps what the body reads from
    /// before the loop alive until the loop ends, and the carried values move.
    #[test]
    fn a_loop_that_communicates_is_laid_out_as_steps_with_liveness_over_its_jump() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %y = stablehlo.negate %x : tensor<4xf32>
    %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %s = "stablehlo.all_reduce"(%acc) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %t = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        %a = stablehlo.add %s, %y : tensor<4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i2, %a : tensor<i32>, tensor<4xf32>
      }
    return %r#1, %y : tensor<4xf32>, tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let shape: Vec<&str> = s
            .iter()
            .map(|s| match s {
                Step::Compute(_) => "compute",
                Step::PerDevice(_) => "per-device",
                Step::Control(Control::Bind { .. }) => "bind",
                Step::Control(Control::Branch { .. }) => "branch",
                Step::Control(Control::Jump(_)) => "jump",
                Step::Control(Control::Switch { .. }) => "switch",
            })
            .collect();
        // Before the loop; the entry bind; the condition; the branch; the body's args;
        // the all-reduce; the rest of the body; the carried values back; the jump; exit.
        assert_eq!(
            shape,
            [
                "compute",
                "bind",
                "compute",
                "branch",
                "bind",
                "per-device",
                "compute",
                "bind",
                "jump",
                "bind"
            ]
        );
        let (Step::Control(Control::Branch { exit, .. }), Step::Control(Control::Jump(head))) =
            (&s[3], &s[8])
        else {
            panic!("{s:?}")
        };
        assert_eq!((*exit, *head), (9, 2));
        let defs: Vec<Vec<ValueId>> = s.iter().map(|x| step_defines(f, x)).collect();
        let reads: Vec<Vec<ValueId>> = s.iter().map(|x| step_reads(f, x)).collect();
        let live = flow(&s, f.results(), |i| (&reads[i][..], &defs[i][..]));
        let names = f.value_names();
        let named = |vs: &[ValueId]| -> Vec<String> {
            vs.iter().map(|v| names[v.index()].clone()).collect()
        };
        // %y (the negate, read by the body and returned) is never dead in the loop; %n
        // (read by every test) neither; nothing the first segment makes dies there.
        let y = f.op(f.body().ops[1]).results[0];
        let n = f.args()[1];
        for l in &live[..9] {
            assert!(!l.dead.contains(&y) && !l.dead.contains(&n), "{live:?}");
        }
        assert!(live[0].kept.contains(&y));
        // The condition's arguments move into the body's (dead after that bind), the
        // body's results into the condition's, and out at the exit.
        assert_eq!(named(&live[4].dead), named(&reads[4]));
        assert_eq!(named(&live[7].dead), named(&reads[7]));
        assert_eq!(named(&live[9].dead), named(&reads[9]));
        // The loop's first result is not read: the exit binds only the second.
        assert_eq!(live[9].kept, [f.op(f.body().ops[2]).results[1]]);
    }

    /// A loop's counter stepped after the body's collective (as JAX writes a `fori_loop`)
    /// goes into the segment before the collective, which has what it reads: the body is
    /// one kernel, not a second one of two scalar ops after the collective. A segment that
    /// reads the collective's result stays after it.
    #[test]
    fn scalar_ops_after_a_collective_join_the_segment_before_it() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %b = stablehlo.negate %acc : tensor<4xf32>
        %s = "stablehlo.all_reduce"(%b) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %t = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        %sum = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
        %big = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> tensor<4xf32>
        stablehlo.return %i2, %big : tensor<i32>, tensor<4xf32>
      }
    return %r#1 : tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let names = f.value_names();
        let segments: Vec<Vec<String>> = s
            .iter()
            .filter_map(|s| match s {
                Step::Compute(seg) => Some(
                    seg.ops
                        .iter()
                        .filter_map(|&o| f.op(o).results.first())
                        .map(|v| names[v.index()].clone())
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        let body = f.block(f.op(f.body().ops[2]).regions[1]);
        let body_name = |k: usize| names[f.op(body.ops[k]).results[0].index()].clone();
        // The constants the loop reads; the condition's segment; the body's first
        // segment, with the counter (`%one`, `%i2`); the reduction of the all-reduce's
        // result after it.
        assert_eq!(segments.len(), 4, "{segments:?}");
        assert_eq!(
            segments[2],
            [body_name(0), body_name(2), body_name(3)],
            "{segments:?}"
        );
        assert_eq!(segments[3], [body_name(4), body_name(5)], "{segments:?}");
    }

    /// A counter stepped after a branch that communicates joins the segment before the
    /// branch (a loop of local SGD steps averaging every few steps), never one of the
    /// branch's own segments, which run only when it is taken.
    #[test]
    fn scalar_ops_after_a_branch_join_the_segment_before_it() {
        let m = parse_module(
            r#"module {
  func.func @main(%x: tensor<4xf32>, %k: tensor<i32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %b = stablehlo.negate %acc : tensor<4xf32>
        %c = "stablehlo.case"(%k) ({
          %s = "stablehlo.all_reduce"(%b) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
          ^bb0(%p: tensor<f32>, %q: tensor<f32>):
            %t = stablehlo.add %p, %q : tensor<f32>
            stablehlo.return %t : tensor<f32>
          }) : (tensor<4xf32>) -> tensor<4xf32>
          %e = stablehlo.exponential %s : tensor<4xf32>
          stablehlo.return %e : tensor<4xf32>
        }, {
          stablehlo.return %b : tensor<4xf32>
        }) : (tensor<i32>) -> tensor<4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i2, %c : tensor<i32>, tensor<4xf32>
      }
    return %r#1 : tensor<4xf32>
  }
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let s = steps(f);
        let names = f.value_names();
        let body = f.block(f.op(f.body().ops[1]).regions[1]);
        let name = |k: usize| names[f.op(body.ops[k]).results[0].index()].clone();
        let segments: Vec<Vec<String>> = s
            .iter()
            .filter_map(|s| match s {
                Step::Compute(seg) => Some(
                    seg.ops
                        .iter()
                        .filter_map(|&o| f.op(o).results.first())
                        .map(|v| names[v.index()].clone())
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        // The loop's initial counter; the condition's; the body's, with the counter; the
        // first branch's exponential.
        assert_eq!(segments.len(), 4, "{segments:?}");
        assert_eq!(segments[2], [name(0), name(2), name(3)], "{segments:?}");
        assert!(
            s.iter()
                .any(|x| matches!(x, Step::Control(Control::Switch { .. })))
        );
    }
}
