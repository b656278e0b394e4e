//! The cpu backend: a mesh of `N` devices in one process, each device a compute thread and
//! a communication thread, collectives as ring algorithms ([`super::collective`]) over
//! shared-memory channels.
//!
//! Every ordered pair of devices has a channel (a mailbox of messages from one to the
//! other, in order); a message is a buffer moved, not copied. A run spawns the threads
//! (scoped: they borrow the executable and end with the run) and:
//!
//! - the **compute thread** walks the program's steps: it runs each compute segment's
//!   kernel, and hands each per-device op to its communication thread without waiting;
//!   it waits for a per-device op's result only when a later step reads it (with
//!   [`RunOptions::overlap`] off, right away);
//! - the **communication thread** runs the per-device ops in program order, exchanging
//!   buffers with the other devices' communication threads, and hands results back.
//!
//! Every device runs the same ops in the same order, so the messages between two devices
//! arrive in the order the algorithms expect (each carries its op's step, checked). When a
//! device fails, its threads end and drop their channels; peers waiting on them see the
//! channel close and stop too, so a run always ends, and the error names the device that
//! failed first for a reason of its own.

use super::misfit;
use super::report::SpanKind;
use super::{
    DeviceError, DeviceStats, Executable, Lane, Link, LinkError, Mesh, OpStats, Planned,
    RunOptions, RunReport, RuntimeError, Span, Stats,
};
use shardc_ir::{Elements, Literal, ValueId};
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, SyncSender, TryRecvError, channel, sync_channel};
use std::thread;
use std::time::{Duration, Instant};

/// `N` devices on the host's cores, as threads.
#[derive(Clone, Debug)]
pub struct CpuMesh {
    devices: usize,
}

impl CpuMesh {
    /// A mesh of `devices` devices (ids `0..devices`); any number, however many cores.
    pub fn new(devices: usize) -> Result<CpuMesh, RuntimeError> {
        if devices == 0 {
            return Err(RuntimeError::EmptyMesh);
        }
        Ok(CpuMesh { devices })
    }
}

/// A buffer on its way from one device to another, tagged with the step of its op.
struct Message {
    step: usize,
    data: Elements,
}

/// One device's ends of the channels: to every other device and from every other device.
struct Mailbox {
    device: usize,
    /// The step of the op being run, which every message must carry.
    step: usize,
    to: Vec<Option<Sender<Message>>>,
    from: Vec<Option<Receiver<Message>>>,
}

impl Link for Mailbox {
    fn send(&mut self, to: usize, data: Elements) -> Result<(), LinkError> {
        let tx = self.to.get(to).and_then(Option::as_ref).ok_or_else(|| {
            LinkError::Protocol(format!(
                "device {} has no channel to device {to}",
                self.device
            ))
        })?;
        tx.send(Message {
            step: self.step,
            data,
        })
        .map_err(|_| LinkError::PeerLeft(to))
    }

    fn recv(&mut self, from: usize) -> Result<Elements, LinkError> {
        let rx = self
            .from
            .get(from)
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                LinkError::Protocol(format!(
                    "device {} has no channel from device {from}",
                    self.device
                ))
            })?;
        let m = rx.recv().map_err(|_| LinkError::PeerLeft(from))?;
        if m.step != self.step {
            return Err(LinkError::Protocol(format!(
                "device {from} sent a message of step {} during step {}",
                m.step, self.step
            )));
        }
        Ok(m.data)
    }
}

/// A per-device op handed from a device's compute thread to its communication thread.
struct Job {
    step: usize,
    /// The operand, when compute holds it (else the communication thread does).
    input: Option<Literal>,
    /// Where the result goes, when compute wants it.
    reply: Option<SyncSender<Literal>>,
}

/// What a compute thread gives back.
struct Computed {
    results: Vec<Literal>,
    spans: Vec<Span>,
}

/// What a communication thread gives back.
struct Communicated {
    spans: Vec<Span>,
    /// Bytes sent, per step (0 for compute steps).
    bytes: Vec<u64>,
}

impl Mesh for CpuMesh {
    fn devices(&self) -> usize {
        self.devices
    }

    fn execute(
        &self,
        exe: &Executable,
        args: Vec<Vec<Literal>>,
        options: &RunOptions,
    ) -> Result<RunReport, RuntimeError> {
        let n = self.devices;
        if args.len() != n {
            return Err(RuntimeError::DeviceCount {
                want: n,
                got: args.len(),
            });
        }
        // to[s][t] sends from s to t; from[t][s] receives it.
        let mut to: Vec<Vec<Option<Sender<Message>>>> =
            (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
        let mut from: Vec<Vec<Option<Receiver<Message>>>> =
            (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
        for s in 0..n {
            for t in (0..n).filter(|&t| t != s) {
                let (tx, rx) = channel();
                to[s][t] = Some(tx);
                from[t][s] = Some(rx);
            }
        }
        let clock = Instant::now();
        let outcomes = thread::scope(|scope| {
            let mut handles = Vec::with_capacity(n);
            let mut spawn_error = None;
            for (device, ((args, to), from)) in args.into_iter().zip(to).zip(from).enumerate() {
                let (jobs_tx, jobs_rx) = channel::<Job>();
                let mailbox = Mailbox {
                    device,
                    step: 0,
                    to,
                    from,
                };
                let comm = thread::Builder::new()
                    .name(format!("device {device} communication"))
                    .spawn_scoped(scope, move || {
                        communicate(exe, device, jobs_rx, mailbox, clock)
                    });
                let comm = match comm {
                    Ok(h) => h,
                    Err(source) => {
                        spawn_error = Some(RuntimeError::Spawn { device, source });
                        break;
                    }
                };
                // If this spawn fails, `jobs_tx` is dropped and the communication thread
                // ends; every thread spawned so far ends as its peers' channels close.
                let compute = thread::Builder::new()
                    .name(format!("device {device} compute"))
                    .spawn_scoped(scope, move || {
                        compute(exe, device, args, jobs_tx, options, clock)
                    });
                match compute {
                    Ok(h) => handles.push((Some(h), comm)),
                    Err(source) => {
                        spawn_error = Some(RuntimeError::Spawn { device, source });
                        handles.push((None, comm));
                        break;
                    }
                }
            }
            let outcomes: Vec<_> = handles
                .into_iter()
                .map(|(c, m)| {
                    let c = c.map_or(Err(DeviceError::CommunicationStopped), |c| joined(c.join()));
                    (c, joined(m.join()))
                })
                .collect();
            match spawn_error {
                Some(e) => Err(e),
                None => Ok(outcomes),
            }
        })?;
        let wall = clock.elapsed();
        let mut root: Option<(usize, DeviceError)> = None;
        let mut consequence: Option<(usize, DeviceError)> = None;
        let mut outputs = Vec::with_capacity(n);
        let mut spans = Vec::new();
        let mut per_step = vec![vec![0u64; n]; exe.steps.len()];
        for (device, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                (Ok(computed), Ok(communicated)) => {
                    outputs.push(computed.results);
                    spans.extend(computed.spans);
                    spans.extend(communicated.spans);
                    for (step, b) in communicated.bytes.into_iter().enumerate() {
                        per_step[step][device] = b;
                    }
                }
                (c, m) => {
                    // The device's own error rather than the consequence of a peer's.
                    let own = [c.err(), m.err()]
                        .into_iter()
                        .flatten()
                        .min_by_key(DeviceError::is_consequence);
                    if let Some(e) = own {
                        let slot = if e.is_consequence() {
                            &mut consequence
                        } else {
                            &mut root
                        };
                        slot.get_or_insert((device, e));
                    }
                }
            }
        }
        if let Some((device, source)) = root.or(consequence) {
            return Err(RuntimeError::Device { device, source });
        }
        spans.sort_by_key(|s| (s.device, s.lane as u8, s.start));
        let mut devices = vec![DeviceStats::default(); n];
        for s in &spans {
            let d = &mut devices[s.device];
            match s.kind {
                SpanKind::Segment => d.compute += s.duration,
                SpanKind::Wait => d.waiting += s.duration,
                SpanKind::Collective => {
                    d.communication += s.duration;
                    d.bytes_sent += s.bytes.unwrap_or(0);
                }
            }
        }
        let ops = exe
            .steps
            .iter()
            .zip(per_step)
            .filter_map(|(s, bytes_sent)| match s {
                Planned::PerDevice { exchange, .. } => Some(OpStats {
                    kind: exchange.short_name().to_string(),
                    value: exchange.at.clone(),
                    group_size: exchange.group_size(),
                    bytes_sent,
                }),
                Planned::Compute { .. } => None,
            })
            .collect();
        Ok(RunReport {
            outputs,
            stats: Stats { ops, devices, wall },
            spans,
        })
    }
}

/// A thread's result, a panic turned into the device's error.
fn joined<T>(r: thread::Result<Result<T, DeviceError>>) -> Result<T, DeviceError> {
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
    /// The result of the per-device op at this step, on its way.
    Pending(Receiver<Literal>, usize),
}

/// The compute side of a device.
struct Device<'e> {
    exe: &'e Executable,
    device: usize,
    env: Vec<Slot>,
    spans: Vec<Span>,
    clock: Instant,
}

impl Device<'_> {
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
        let Slot::Pending(rx, step) = &self.env[v.index()] else {
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
                    Planned::Compute { .. } => String::new(),
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
        self.env[v.index()] = Slot::Ready(value);
        Ok(())
    }

    /// The value of `v`, moved out when `last` (no later step reads it), else copied.
    fn read(&mut self, v: ValueId, last: bool) -> Result<Literal, DeviceError> {
        self.wait(v)?;
        let slot = &mut self.env[v.index()];
        let value = if last {
            std::mem::replace(slot, Slot::Empty)
        } else {
            match slot {
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

fn compute(
    exe: &Executable,
    device: usize,
    args: Vec<Literal>,
    jobs: Sender<Job>,
    options: &RunOptions,
    clock: Instant,
) -> Result<Computed, DeviceError> {
    let mut d = Device {
        exe,
        device,
        env: (0..exe.num_values).map(|_| Slot::Empty).collect(),
        spans: Vec::new(),
        clock,
    };
    for (&v, a) in exe.args.iter().zip(args) {
        d.env[v.index()] = Slot::Ready(a);
    }
    let mut segment_index = 0;
    for (step, planned) in exe.steps.iter().enumerate() {
        let last = &exe.last_reads[step];
        match planned {
            Planned::Compute {
                segment,
                kernel,
                ops,
            } => {
                let inputs = segment
                    .inputs
                    .iter()
                    .map(|&v| d.read(v, last.contains(&v)))
                    .collect::<Result<Vec<_>, _>>()?;
                let start = clock.elapsed();
                let outs = kernel.run(&inputs).map_err(|source| DeviceError::Kernel {
                    segment: segment_index,
                    ops: ops.clone(),
                    source,
                })?;
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
                    d.env[v.index()] = Slot::Ready(l);
                }
                segment_index += 1;
            }
            Planned::PerDevice {
                exchange,
                operand_from_per_device,
                result_to_compute,
                ..
            } => {
                let input = match exchange.operand {
                    Some(v) if !operand_from_per_device => Some(d.read(v, last.contains(&v))?),
                    _ => None,
                };
                let wanted = *result_to_compute || !options.overlap;
                let (reply, result) = if wanted {
                    let (tx, rx) = sync_channel(1);
                    (Some(tx), Some(rx))
                } else {
                    (None, None)
                };
                jobs.send(Job { step, input, reply })
                    .map_err(|_| DeviceError::CommunicationStopped)?;
                if let Some(rx) = result {
                    let r = exchange.result;
                    d.env[r.index()] = Slot::Pending(rx, step);
                    if !options.overlap {
                        d.wait(r)?;
                        if !result_to_compute {
                            d.env[r.index()] = Slot::Empty;
                        }
                    }
                }
            }
        }
        for v in last {
            d.env[v.index()] = Slot::Empty;
        }
    }
    let results = exe
        .results
        .iter()
        .map(|&v| d.read(v, false))
        .collect::<Result<Vec<_>, _>>()?;
    drop(jobs);
    Ok(Computed {
        results,
        spans: d.spans,
    })
}

fn communicate(
    exe: &Executable,
    device: usize,
    jobs: Receiver<Job>,
    mut link: Mailbox,
    clock: Instant,
) -> Result<Communicated, DeviceError> {
    let mut kept: HashMap<ValueId, Literal> = HashMap::new();
    let mut spans = Vec::new();
    let mut bytes = vec![0; exe.steps.len()];
    // Ends when the compute thread is done (or gone) and every job has run.
    for job in jobs {
        let Planned::PerDevice {
            exchange,
            operand_from_per_device,
            result_to_per_device,
            ..
        } = &exe.steps[job.step]
        else {
            return Err(DeviceError::Internal(format!(
                "step {} was sent to communication but is not a per-device op",
                job.step
            )));
        };
        let input = match (exchange.operand, operand_from_per_device) {
            (Some(v), true) => Some(kept.get(&v).ok_or_else(|| {
                DeviceError::Internal(format!(
                    "the operand of {} defining {} was not kept",
                    exchange.op, exchange.at
                ))
            })?),
            _ => job.input.as_ref(),
        };
        link.step = job.step;
        let start = clock.elapsed();
        let (out, sent) = exchange.run(device, input, &mut link)?;
        spans.push(Span {
            device,
            lane: Lane::Communication,
            kind: SpanKind::Collective,
            name: format!("{} {}", exchange.short_name(), exchange.at),
            start,
            duration: clock.elapsed().saturating_sub(start),
            detail: format!("group of {}", exchange.group_size()),
            bytes: Some(sent),
        });
        bytes[job.step] = sent;
        for v in &exe.per_device_last_reads[job.step] {
            kept.remove(v);
        }
        match (result_to_per_device, job.reply) {
            (true, Some(reply)) => {
                kept.insert(exchange.result, out.clone());
                // A compute thread that is gone has failed; its error is reported.
                let _ = reply.send(out);
            }
            (true, None) => {
                kept.insert(exchange.result, out);
            }
            (false, Some(reply)) => {
                let _ = reply.send(out);
            }
            (false, None) => {}
        }
    }
    Ok(Communicated { spans, bytes })
}
