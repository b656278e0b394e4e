//! One device of a run, as the backends that give each device a compute thread and a
//! communication side run it ([`super::cpu`], and `super::mpi`).
//!
//! - [`compute`] walks the program's steps on the compute thread: it runs each compute
//!   segment's kernel and hands each per-device op to the communication side as a [`Job`]
//!   without waiting; it waits for a per-device op's result only when a later step reads it
//!   (with [`RunOptions::overlap`] off, right away).
//! - A [`Communication`] keeps what the communication side needs between per-device ops
//!   (results that later per-device ops read, spans, bytes); the backend moves the data.
//! - [`assemble`] turns every device's results, spans and bytes into a [`RunReport`].

use super::Offload;
use super::collective::{Link, LinkError};
use super::misfit;
use super::offload::Io;
use super::report::SpanKind;
use super::{
    DeviceError, DeviceStats, Exchange, Executable, Lane, OpStats, Planned, RunOptions, RunReport,
    Span, Stats,
};
use crate::engine::{Buffers, Control, Input, stored_bytes};
use shardc_ir::{Elements, Literal, ValueId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, SyncSender, TryRecvError, sync_channel};
use std::thread;
use std::time::{Duration, Instant};

/// A per-device op handed from a device's compute thread to its communication side.
pub(crate) struct Job {
    pub(crate) step: usize,
    /// The operand, when compute holds it (else the communication side does).
    pub(crate) input: Option<Literal>,
    /// Where the result goes, when compute wants it.
    pub(crate) reply: Option<SyncSender<Literal>>,
    /// Storage for the result from the device's pool (a dead value of its dtype and
    /// length), which a collective through shared memory writes into rather than
    /// allocating.
    pub(crate) storage: Option<Elements>,
}

/// What a compute thread gives back.
pub(crate) struct Computed {
    pub(crate) results: Vec<Literal>,
    pub(crate) spans: Vec<Span>,
    /// The most bytes of values the compute side held at once.
    pub(crate) peak_bytes: u64,
    /// How many times each step ran (a loop's steps once per iteration).
    pub(crate) runs: Vec<usize>,
}

/// A thread's result, a panic turned into the device's error.
pub(crate) fn joined<T>(r: thread::Result<Result<T, DeviceError>>) -> Result<T, DeviceError> {
    r.unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Err(DeviceError::Panicked(msg))
    })
}

/// A value on the compute side.
enum Slot {
    Empty,
    Ready(Literal),
    /// The result of the per-device op at this step, on its way, and the bytes in flight
    /// for it: the operand handed over (moved, or copied when compute still reads it) and
    /// the result, held from the hand-off until the result arrives.
    Pending(Receiver<Literal>, usize, u64),
    /// The result of a per-device op the communication side keeps for the next one that
    /// reads it, and the bytes held for it there (counted as the device's, as the plan
    /// counts every value).
    Away(u64),
    /// In the file of this stem ([`Offload`]): read when a step needs it.
    Offloaded(String),
    /// Being read from its file by the device's I/O thread (its bytes already held).
    Loading(Receiver<Result<Literal, String>>, u64),
}

/// The compute side of a device.
struct Device<'e> {
    exe: &'e Executable,
    device: usize,
    /// The I/O thread of an offloading run, and the offloaded arguments not asked for
    /// yet, in the order steps first read them: each is asked for when the one before
    /// it arrives (one parameter's state read ahead, while the previous one is updated).
    io: Option<Io>,
    ahead: std::collections::VecDeque<(ValueId, String)>,
    env: Vec<Slot>,
    spans: Vec<Span>,
    clock: Instant,
    /// Bytes of the values ready in `env`, and the most there were at once.
    held: u64,
    peak: u64,
    /// The results of the per-device ops handed to the communication side whose slots
    /// still count what was handed over with them, by hand-over number
    /// ([`Device::handed_over`], [`Device::done_before`]).
    handed: Vec<(ValueId, u64)>,
    /// Per-device ops handed over so far.
    hand_overs: u64,
}

impl Device<'_> {
    /// Puts `slot` in place of `v`'s, keeping count of the bytes held.
    fn set(&mut self, v: ValueId, slot: Slot) -> Slot {
        let bytes = |s: &Slot| match s {
            Slot::Ready(l) => stored_bytes(l),
            Slot::Loading(_, b) | Slot::Pending(_, _, b) | Slot::Away(b) => *b,
            _ => 0,
        };
        self.held += bytes(&slot);
        let old = std::mem::replace(&mut self.env[v.index()], slot);
        self.held -= bytes(&old);
        // Values handed to the I/O thread are held until written.
        let writing = self
            .io
            .as_ref()
            .map_or(0, |io| io.writing.load(std::sync::atomic::Ordering::SeqCst));
        self.peak = self.peak.max(self.held + writing);
        old
    }

    /// The device's I/O thread (an offloading run has one).
    fn io(&self, v: ValueId) -> Result<&Io, DeviceError> {
        self.io.as_ref().ok_or_else(|| {
            DeviceError::Internal(format!(
                "value #{} is offloaded, but the run offloads nothing",
                v.index()
            ))
        })
    }

    /// Asks for the next offloaded argument still in its file.
    fn read_ahead(&mut self) -> Result<(), DeviceError> {
        while let Some((v, stem)) = self.ahead.pop_front() {
            if matches!(&self.env[v.index()], Slot::Offloaded(s) if *s == stem) {
                let ty = self.exe.value_types[v.index()].clone();
                let rx = self.io(v)?.load(&stem, &ty)?;
                self.set(v, Slot::Loading(rx, ty.size_bytes() as u64));
                break;
            }
        }
        Ok(())
    }

    fn span(&mut self, kind: SpanKind, name: String, start: Duration, detail: String) {
        let lane = Lane::Compute;
        self.spans.push(Span {
            device: self.device,
            lane,
            kind,
            name,
            start,
            duration: self.clock.elapsed().saturating_sub(start),
            detail,
            bytes: None,
        });
    }

    /// Makes `v` ready, waiting for it if a per-device op is still computing it.
    fn wait(&mut self, v: ValueId) -> Result<(), DeviceError> {
        if let Slot::Offloaded(stem) = &self.env[v.index()] {
            // Not asked for yet: asked for now.
            let ty = self.exe.value_types[v.index()].clone();
            let rx = self.io(v)?.load(stem, &ty)?;
            self.set(v, Slot::Loading(rx, ty.size_bytes() as u64));
        }
        if let Slot::Loading(rx, _) = &self.env[v.index()] {
            let value = match rx.try_recv() {
                Ok(got) => got,
                Err(_) => {
                    let start = self.clock.elapsed();
                    let got = rx
                        .recv()
                        .map_err(|_| DeviceError::Offload("the offload thread stopped".into()))?;
                    self.span(
                        SpanKind::Wait,
                        "wait for a load".into(),
                        start,
                        String::new(),
                    );
                    got
                }
            }
            .map_err(DeviceError::Offload)?;
            self.set(v, Slot::Ready(value));
            return self.read_ahead();
        }
        let Slot::Pending(rx, step, _) = &self.env[v.index()] else {
            return Ok(());
        };
        let step = *step;
        let value = match rx.try_recv() {
            Ok(l) => l,
            Err(TryRecvError::Disconnected) => return Err(DeviceError::CommunicationStopped),
            Err(TryRecvError::Empty) => {
                let start = self.clock.elapsed();
                let l = rx.recv().map_err(|_| DeviceError::CommunicationStopped)?;
                let at = match &self.exe.steps[step] {
                    Planned::PerDevice { exchange, .. } => exchange.at.clone(),
                    _ => String::new(),
                };
                self.span(
                    SpanKind::Wait,
                    format!("wait {at}"),
                    start,
                    format!("step {step}"),
                );
                l
            }
        };
        self.set(v, Slot::Ready(value));
        if let Some(k) = self.handed.iter().position(|&(w, _)| w == v) {
            let (_, number) = self.handed.swap_remove(k);
            self.done_before(number);
        }
        Ok(())
    }

    /// Records that the per-device op with result `r` was handed over (its slot counting
    /// the operand handed with it).
    fn handed_over(&mut self, r: ValueId) {
        self.handed.retain(|&(w, _)| w != r);
        self.handed.push((r, self.hand_overs));
        self.hand_overs += 1;
    }

    /// The communication side runs its ops in the order they are handed over: once the
    /// result of hand-over `number` is here, every op handed over before it is done, and
    /// what it was handed (its operand) is gone. Their slots count their results only
    /// from here on.
    fn done_before(&mut self, number: u64) {
        let mut k = 0;
        while k < self.handed.len() {
            let (w, n) = self.handed[k];
            if n > number {
                k += 1;
                continue;
            }
            self.handed.swap_remove(k);
            let result = self.exe.value_types[w.index()].size_bytes() as u64;
            if let Slot::Pending(_, _, b) | Slot::Away(b) = &mut self.env[w.index()]
                && *b > result
            {
                self.held -= *b - result;
                *b = result;
            }
        }
    }

    /// Hands `v` to the I/O thread to be written to the file of `stem`; the device
    /// holds it until it is written.
    fn store(&mut self, v: ValueId, stem: &str) -> Result<(), DeviceError> {
        self.wait(v)?;
        self.io(v)?;
        if let Slot::Ready(value) = self.set(v, Slot::Offloaded(stem.to_string()))
            && let Some(io) = &self.io
        {
            io.store(stem, value)?;
        }
        Ok(())
    }

    /// Makes the file of `stem` hold `v`: written if `v` is in memory, copied if it is in
    /// another value's file (an offloaded argument returned unread).
    fn place(&mut self, v: ValueId, stem: &str) -> Result<(), DeviceError> {
        match &self.env[v.index()] {
            Slot::Offloaded(have) if have == stem => Ok(()),
            Slot::Offloaded(have) => {
                let have = have.clone();
                self.io(v)?.copy(&have, stem)
            }
            _ => self.store(v, stem),
        }
    }

    /// The value of `v`, ready, borrowed.
    fn get(&self, v: ValueId) -> Result<&Literal, DeviceError> {
        match &self.env[v.index()] {
            Slot::Ready(l) => Ok(l),
            _ => Err(DeviceError::Internal(format!(
                "value #{} was read before it was computed",
                v.index()
            ))),
        }
    }

    /// The value of `v`, moved out when `last` (no later step reads it), else copied.
    fn read(&mut self, v: ValueId, last: bool) -> Result<Literal, DeviceError> {
        self.wait(v)?;
        let value = if last {
            self.set(v, Slot::Empty)
        } else {
            match &self.env[v.index()] {
                Slot::Ready(l) => Slot::Ready(l.clone()),
                _ => Slot::Empty,
            }
        };
        match value {
            Slot::Ready(l) => Ok(l),
            _ => Err(DeviceError::Internal(format!(
                "value #{} was read before it was computed",
                v.index()
            ))),
        }
    }
}

/// Runs device `device`'s compute side; its kernels' outputs take the storage of values
/// the device no longer needs from `buffers`, where those values are given back.
pub(crate) fn compute(
    exe: &Executable,
    device: usize,
    args: Vec<Literal>,
    jobs: Sender<Job>,
    options: &RunOptions,
    clock: Instant,
    buffers: &mut Buffers,
) -> Result<Computed, DeviceError> {
    let offload = options.offload.as_ref();
    let io = offload.map(|o| Io::start(o, device, clock)).transpose()?;
    let mut d = Device {
        exe,
        device,
        io,
        ahead: Default::default(),
        env: (0..exe.num_values).map(|_| Slot::Empty).collect(),
        spans: Vec::new(),
        clock,
        held: 0,
        peak: 0,
        handed: Vec::new(),
        hand_overs: 0,
    };
    let offloaded_arg =
        |i: usize| offload.and_then(|o| o.args.iter().find(|a| a.0 == i).map(|a| a.1.clone()));
    let mut first_read: Vec<(usize, ValueId, String)> = Vec::new();
    for (i, (&v, a)) in exe.args.iter().zip(args).enumerate() {
        match offloaded_arg(i) {
            Some(stem) => {
                if let Some(at) = exe.steps.iter().position(|s| touches(s, v)) {
                    first_read.push((at, v, stem.clone()));
                }
                d.set(v, Slot::Offloaded(stem))
            }
            None => d.set(v, Slot::Ready(a)),
        };
    }
    first_read.sort_by_key(|r| r.0);
    d.ahead = first_read
        .into_iter()
        .map(|(_, v, stem)| (v, stem))
        .collect();
    // Each offloaded result is written after the last step that reads it (or the one that
    // makes it): `(step, value, stem)`.
    let mut stores: Vec<(usize, ValueId, &str)> = offload
        .map(|o| {
            o.results
                .iter()
                .filter_map(|(k, stem)| {
                    let v = *exe.results.get(*k)?;
                    let at = exe.steps.iter().rposition(|s| touches(s, v))?;
                    Some((after_loops(exe, at), v, stem.as_str()))
                })
                .collect()
        })
        .unwrap_or_default();
    stores.sort_by_key(|s| s.0);
    let mut next_store = 0;
    // The last per-device op whose result the communication side keeps (`Slot::Away`).
    let mut away: Option<ValueId> = None;
    // Each compute step's number among the segments, for spans and errors.
    let numbers: Vec<usize> = exe
        .steps
        .iter()
        .scan(0, |n, s| {
            let k = *n;
            *n += usize::from(matches!(s, Planned::Compute { .. }));
            Some(k)
        })
        .collect();
    let mut runs = vec![0; exe.steps.len()];
    let mut next = 0;
    while let Some(planned) = exe.steps.get(next) {
        let step = next;
        next += 1;
        runs[step] += 1;
        let segment_index = numbers[step];
        let last = &exe.last_reads[step];
        match planned {
            Planned::Compute {
                segment,
                kernel,
                ops,
            } => {
                for &v in &segment.inputs {
                    d.wait(v)?;
                }
                // Inputs read last here are handed over, for the kernel to free as soon as
                // it is done with each; the bytes held count them until then.
                let before = d.held;
                let mut owned: Vec<Option<Literal>> = Vec::with_capacity(segment.inputs.len());
                for (k, &v) in segment.inputs.iter().enumerate() {
                    let hand_over = last.contains(&v) && !segment.inputs[k + 1..].contains(&v);
                    owned.push(match hand_over {
                        true => match d.set(v, Slot::Empty) {
                            Slot::Ready(l) => Some(l),
                            _ => None,
                        },
                        false => None,
                    });
                }
                let inputs = segment
                    .inputs
                    .iter()
                    .zip(owned)
                    .map(|(&v, o)| match o {
                        Some(l) => Ok(Input::Owned(l)),
                        None => d.get(v).map(Input::Borrowed),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let start = clock.elapsed();
                let ran =
                    kernel
                        .run_owning(inputs, buffers)
                        .map_err(|source| DeviceError::Kernel {
                            segment: segment_index,
                            ops: ops.clone(),
                            source,
                        })?;
                d.peak = d.peak.max(before + ran.peak);
                let outs = ran.outputs;
                d.span(
                    SpanKind::Segment,
                    format!("segment {segment_index}"),
                    start,
                    ops.clone(),
                );
                let bad = |problem: String| DeviceError::KernelOutput {
                    segment: segment_index,
                    ops: ops.clone(),
                    problem,
                };
                if outs.len() != segment.outputs.len() {
                    return Err(bad(format!(
                        "gave {} values for {} outputs",
                        outs.len(),
                        segment.outputs.len()
                    )));
                }
                for (k, (&v, l)) in segment.outputs.iter().zip(outs).enumerate() {
                    let want = &exe.value_types[v.index()];
                    if let Some(problem) = misfit(&l, want) {
                        return Err(bad(format!("output {k} {problem}, but its type is {want}")));
                    }
                    d.set(v, Slot::Ready(l));
                }
            }
            Planned::Control(Control::Bind { from, to }) => {
                let mut values = Vec::with_capacity(from.len());
                for (k, &v) in from.iter().enumerate() {
                    // Moved at its last read here (a value bound twice is copied first).
                    let moved = last.contains(&v) && !from[k + 1..].contains(&v);
                    values.push(d.read(v, moved)?);
                }
                for (&v, value) in to.iter().zip(values) {
                    if exe.kept[step].contains(&v) {
                        d.set(v, Slot::Ready(value));
                    } else {
                        buffers.give(value);
                    }
                }
            }
            Planned::Control(Control::Branch { cond, exit }) => {
                d.wait(*cond)?;
                if !d.get(*cond)?.elements.get(0).as_bool() {
                    next = *exit;
                }
            }
            Planned::Control(Control::Jump(head)) => next = *head,
            Planned::Control(Control::Switch { index, targets }) => {
                d.wait(*index)?;
                let k = d.get(*index)?.elements.get(0).as_i64();
                next = crate::engine::branch_target(targets, k);
            }
            Planned::PerDevice { exchange, .. } if planned.runs_on_compute() => {
                // A slice of the device's own piece (or its index) moves nothing: it runs
                // here rather than being handed to the communication thread and back, a
                // hand-off that costs a wake-up (milliseconds on a machine with fewer
                // cores than devices) for a microsecond's work.
                let input = match exchange.operand {
                    Some(v) => {
                        d.wait(v)?;
                        Some(d.get(v)?)
                    }
                    None => None,
                };
                let start = clock.elapsed();
                let (out, _) = exchange.run(device, input, &mut Nowhere)?;
                d.spans.push(Span {
                    device,
                    lane: Lane::Compute,
                    kind: SpanKind::Collective,
                    name: format!("{} {}", exchange.short_name(), exchange.at),
                    start,
                    duration: clock.elapsed().saturating_sub(start),
                    detail: format!("group of {}, local", exchange.group_size()),
                    bytes: Some(0),
                });
                d.set(exchange.result, Slot::Ready(out));
            }
            Planned::PerDevice {
                exchange,
                operand_from_per_device,
                result_to_compute,
                ..
            } => {
                // The communication side runs its ops in order: the op before this one is
                // done with its operand (as the plan has it, each op at its place).
                if let Some(v) = away.take()
                    && matches!(d.env[v.index()], Slot::Away(_))
                {
                    d.set(
                        v,
                        Slot::Away(exe.value_types[v.index()].size_bytes() as u64),
                    );
                }
                // An operand the communication side kept from the op before is counted
                // with this op from here on.
                let mut kept = 0;
                let input = match exchange.operand {
                    Some(v) if !operand_from_per_device => Some(d.read(v, last.contains(&v))?),
                    Some(v) => {
                        // (Compute may hold a copy it reads too: that one stays its own.)
                        if matches!(d.env[v.index()], Slot::Away(_)) {
                            d.set(v, Slot::Empty);
                            kept = exe.value_types[v.index()].size_bytes() as u64;
                        }
                        None
                    }
                    None => None,
                };
                let wanted = *result_to_compute || !options.overlap;
                let (reply, result) = if wanted {
                    let (tx, rx) = sync_channel(1);
                    (Some(tx), Some(rx))
                } else {
                    (None, None)
                };
                let ty = &exchange.result_ty;
                let storage = (wanted && ty.size_bytes() >= options.shared_memory_min_bytes)
                    .then(|| buffers.take(ty).elements);
                let in_flight =
                    input.as_ref().map_or(0, stored_bytes) + kept + ty.size_bytes() as u64;
                jobs.send(Job {
                    step,
                    input,
                    reply,
                    storage,
                })
                .map_err(|_| DeviceError::CommunicationStopped)?;
                d.handed_over(exchange.result);
                if let Some(rx) = result {
                    let r = exchange.result;
                    d.set(r, Slot::Pending(rx, step, in_flight));
                    if !options.overlap {
                        d.wait(r)?;
                        if !result_to_compute {
                            d.set(r, Slot::Empty);
                        }
                    }
                } else {
                    d.set(exchange.result, Slot::Away(in_flight));
                    away = Some(exchange.result);
                }
            }
        }
        for &v in last {
            if let Slot::Ready(dead) = d.set(v, Slot::Empty) {
                buffers.give(dead);
            }
        }
        while let Some(&(at, v, stem)) = stores.get(next_store)
            && at == step
        {
            // A value returned at two offloaded positions is written once here and
            // copied at the end.
            if matches!(
                d.env[v.index()],
                Slot::Ready(_) | Slot::Pending(..) | Slot::Loading(..)
            ) {
                d.store(v, stem)?;
            }
            next_store += 1;
        }
    }
    // Each result moves out at its last position among the results (a value returned
    // twice is copied once); an offloaded one is in its file, a placeholder in its place.
    let offloaded_result =
        |k: usize| offload.and_then(|o| o.results.iter().find(|r| r.0 == k).map(|r| r.1.as_str()));
    let results = exe
        .results
        .iter()
        .enumerate()
        .map(|(i, &v)| match offloaded_result(i) {
            Some(stem) => {
                d.place(v, stem)?;
                Ok(Offload::placeholder(&exe.value_types[v.index()]))
            }
            None => d.read(v, !exe.results[i + 1..].contains(&v)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    drop(jobs);
    // Every write done before the run ends (the next run reads these files).
    let mut spans = d.spans;
    if let Some(io) = d.io.take() {
        spans.extend(io.finish()?);
    }
    Ok(Computed {
        results,
        spans,
        peak_bytes: d.peak,
        runs,
    })
}

/// Whether step `s` of the compute side makes or reads `v`.
fn touches(s: &Planned, v: ValueId) -> bool {
    match s {
        Planned::Compute { segment, .. } => {
            segment.inputs.contains(&v) || segment.outputs.contains(&v)
        }
        Planned::PerDevice {
            exchange,
            operand_from_per_device,
            result_to_compute,
            ..
        } => {
            (exchange.operand == Some(v) && !operand_from_per_device)
                || (exchange.result == v && *result_to_compute)
        }
        Planned::Control(c) => c.reads().contains(&v) || c.defines().contains(&v),
    }
}

/// `step` of `exe`, or where the loop holding it ends (the step after its jump back) when
/// it is in a loop: a value a loop reads is not written away while the loop runs.
fn after_loops(exe: &Executable, step: usize) -> usize {
    let mut at = step;
    for (j, s) in exe.steps.iter().enumerate() {
        if let Planned::Control(Control::Jump(head)) = s
            && (*head..=j).contains(&at)
        {
            at = j + 1;
        }
    }
    at
}

/// The link of a per-device op that moves nothing ([`Exchange::is_local`]).
struct Nowhere;

impl Link for Nowhere {
    fn send(&mut self, to: usize, _: shardc_ir::Elements) -> Result<(), LinkError> {
        Err(LinkError::Protocol(format!(
            "an op that moves nothing sent to device {to}"
        )))
    }
    fn recv(&mut self, from: usize) -> Result<shardc_ir::Elements, LinkError> {
        Err(LinkError::Protocol(format!(
            "an op that moves nothing received from device {from}"
        )))
    }
}

/// The communication side of a device between per-device ops: the results later
/// per-device ops read, and the spans and bytes of the ops run so far.
pub(crate) struct Communication<'e> {
    exe: &'e Executable,
    device: usize,
    kept: HashMap<ValueId, Literal>,
    clock: Instant,
    pub(crate) spans: Vec<Span>,
    /// Bytes sent, per step (0 for compute steps).
    pub(crate) bytes: Vec<u64>,
}

impl<'e> Communication<'e> {
    pub(crate) fn new(exe: &'e Executable, device: usize, clock: Instant) -> Communication<'e> {
        Communication {
            exe,
            device,
            kept: HashMap::new(),
            clock,
            spans: Vec::new(),
            bytes: vec![0; exe.steps.len()],
        }
    }

    /// The per-device op at `step`.
    pub(crate) fn exchange(&self, step: usize) -> Result<&'e Exchange, DeviceError> {
        match &self.exe.steps.get(step) {
            Some(Planned::PerDevice { exchange, .. }) => Ok(exchange),
            _ => Err(DeviceError::Internal(format!(
                "step {step} was sent to communication but is not a per-device op"
            ))),
        }
    }

    /// The operand of the per-device op at `step`: the one compute handed over with the
    /// job, or the result of an earlier per-device op kept here.
    pub(crate) fn input<'a>(
        &'a self,
        step: usize,
        from_compute: Option<&'a Literal>,
    ) -> Result<Option<&'a Literal>, DeviceError> {
        let Some(Planned::PerDevice {
            exchange,
            operand_from_per_device,
            ..
        }) = self.exe.steps.get(step)
        else {
            return Err(DeviceError::Internal(format!(
                "step {step} was sent to communication but is not a per-device op"
            )));
        };
        match (exchange.operand, operand_from_per_device) {
            (Some(v), true) => self.kept.get(&v).map(Some).ok_or_else(|| {
                DeviceError::Internal(format!(
                    "the operand of {} defining {} was not kept",
                    exchange.op, exchange.at
                ))
            }),
            _ => Ok(from_compute),
        }
    }

    /// The operand of the per-device op at `step` when it is the result of an earlier
    /// per-device op kept here: moved out when no later per-device op reads it, else
    /// borrowed. `None` when compute holds the operand.
    pub(crate) fn take_input(
        &mut self,
        step: usize,
    ) -> Result<Option<Cow<'_, Literal>>, DeviceError> {
        let Some(Planned::PerDevice {
            exchange,
            operand_from_per_device: true,
            ..
        }) = self.exe.steps.get(step)
        else {
            return self.input(step, None).map(|_| None);
        };
        let Some(v) = exchange.operand else {
            return Ok(None);
        };
        if self.exe.per_device_last_reads[step].contains(&v)
            && let Some(owned) = self.kept.remove(&v)
        {
            return Ok(Some(Cow::Owned(owned)));
        }
        self.input(step, None).map(|kept| kept.map(Cow::Borrowed))
    }

    /// Records the per-device op at `step`, which started at `start` and sent `sent`
    /// bytes: its span and bytes; keeps its result if a later per-device op reads it, and
    /// hands it to compute through `reply` if compute asked for it.
    pub(crate) fn finish(
        &mut self,
        step: usize,
        out: Literal,
        sent: u64,
        start: Duration,
        reply: Option<SyncSender<Literal>>,
    ) -> Result<(), DeviceError> {
        let Some(Planned::PerDevice {
            exchange,
            result_to_per_device,
            ..
        }) = self.exe.steps.get(step)
        else {
            return Err(DeviceError::Internal(format!(
                "step {step} is not a per-device op"
            )));
        };
        self.spans.push(Span {
            device: self.device,
            lane: Lane::Communication,
            kind: SpanKind::Collective,
            name: format!("{} {}", exchange.short_name(), exchange.at),
            start,
            duration: self.clock.elapsed().saturating_sub(start),
            detail: format!("group of {}", exchange.group_size()),
            bytes: Some(sent),
        });
        // (A loop's step runs once per iteration.)
        self.bytes[step] += sent;
        for v in &self.exe.per_device_last_reads[step] {
            self.kept.remove(v);
        }
        match (result_to_per_device, reply) {
            (true, Some(reply)) => {
                self.kept.insert(exchange.result, out.clone());
                // A compute thread that is gone has failed; its error is reported.
                let _ = reply.send(out);
            }
            (true, None) => {
                self.kept.insert(exchange.result, out);
            }
            (false, Some(reply)) => {
                let _ = reply.send(out);
            }
            (false, None) => {}
        }
        Ok(())
    }
}

/// The report of a run from every device's results and spans, and the bytes each device
/// sent per step (`per_step[step][device]`).
pub(crate) fn assemble(
    exe: &Executable,
    outputs: Vec<Vec<Literal>>,
    mut spans: Vec<Span>,
    per_step: Vec<Vec<u64>>,
    peaks: &[u64],
    runs: &[usize],
    wall: Duration,
) -> RunReport {
    spans.sort_by_key(|s| (s.device, s.lane as u8, s.start));
    let mut devices: Vec<DeviceStats> = (0..outputs.len())
        .map(|d| DeviceStats {
            peak_bytes: peaks.get(d).copied().unwrap_or(0),
            ..DeviceStats::default()
        })
        .collect();
    for s in &spans {
        let Some(d) = devices.get_mut(s.device) else {
            continue;
        };
        match s.kind {
            SpanKind::Segment => d.compute += s.duration,
            SpanKind::Wait => d.waiting += s.duration,
            SpanKind::Collective => {
                d.communication += s.duration;
                d.bytes_sent += s.bytes.unwrap_or(0);
            }
            SpanKind::Offload => {
                d.offload += s.duration;
                d.offloaded_bytes += s.bytes.unwrap_or(0);
            }
        }
    }
    let ops = exe
        .steps
        .iter()
        .zip(per_step)
        .enumerate()
        .filter_map(|(step, (s, bytes_sent))| match s {
            Planned::PerDevice { exchange, .. } => Some(OpStats {
                runs: runs.get(step).copied().unwrap_or(1),
                kind: exchange.short_name().to_string(),
                value: exchange.at.clone(),
                of: exchange.of.clone(),
                group_size: exchange.group_size(),
                bytes_sent,
            }),
            _ => None,
        })
        .fold(Vec::<OpStats>::new(), |mut ops, o| {
            // One op in two places (a loop's rotated test, `shardc_ir::rotate`) is one op.
            match ops
                .iter_mut()
                .find(|p| p.value == o.value && p.kind == o.kind)
            {
                Some(p) => {
                    p.runs += o.runs;
                    p.bytes_sent
                        .iter_mut()
                        .zip(&o.bytes_sent)
                        .for_each(|(a, b)| *a += b);
                }
                None => ops.push(o),
            }
            ops
        });
    RunReport {
        outputs,
        stats: Stats { ops, devices, wall },
        spans,
    }
}
