//! The cpu backend: a mesh of `N` devices in one process, each device a compute thread and
//! a communication thread, collectives through shared memory ([`super::shared`]) and
//! channels.
//!
//! Every ordered pair of devices has a channel (a mailbox of messages from one to the
//! other, in order); a message is a buffer moved, not copied. A run spawns the threads
//! (scoped: they borrow the executable and end with the run) and:
//!
//! - the **compute thread** walks the program's steps: it runs each compute segment's
//!   kernel, and hands each per-device op to its communication thread without waiting;
//!   it waits for a per-device op's result only when a later step reads it (with
//!   [`RunOptions::overlap`] off, right away);
//! - the **communication thread** runs the per-device ops in program order and hands
//!   results back: the collectives of groups of [`RunOptions::shared_memory_min_bytes`] or more through
//!   shared memory (each device reads its peers' operands in place, [`super::shared`]),
//!   smaller ones as ring algorithms and a `collective_permute` as one message, over
//!   channels.
//!
//! Every device runs the same ops in the same order, so the messages between two devices
//! arrive in the order the algorithms expect (each carries its op's step, checked). When a
//! device fails, its threads end and drop their channels; peers waiting on them see the
//! channel close and stop too, so a run always ends, and the error names the device that
//! failed first for a reason of its own.

use super::device::{Communication, Job, assemble, compute, joined};
use super::shared::Board;
use super::{
    DeviceError, Executable, Link, LinkError, Mesh, RunOptions, RunReport, RuntimeError, Span,
};
use crate::engine::Buffers;
use shardc_ir::topology::Algorithm;
use shardc_ir::{Elements, Literal, Topology};
use std::borrow::Cow;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// `N` devices on the host's cores, as threads.
///
/// Each device keeps a pool of spare storage ([`Buffers`]) from run to run: the values a
/// run no longer needs give their storage to the kernels' outputs of this run and the next
/// (a training loop's steps allocate almost nothing after the first).
#[derive(Debug)]
pub struct CpuMesh {
    devices: usize,
    pools: Vec<Mutex<Buffers>>,
}

impl CpuMesh {
    /// A mesh of `devices` devices (ids `0..devices`); any number, however many cores.
    pub fn new(devices: usize) -> Result<CpuMesh, RuntimeError> {
        if devices == 0 {
            return Err(RuntimeError::EmptyMesh);
        }
        Ok(CpuMesh {
            devices,
            pools: (0..devices).map(|_| Mutex::default()).collect(),
        })
    }

    /// Bytes each device keeps for reuse, by device id.
    pub fn pooled_bytes(&self) -> Vec<usize> {
        self.pools
            .iter()
            .map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).bytes())
            .collect()
    }
}

/// A mesh of as many devices, with empty pools.
impl Clone for CpuMesh {
    fn clone(&self) -> CpuMesh {
        CpuMesh {
            devices: self.devices,
            pools: (0..self.devices).map(|_| Mutex::default()).collect(),
        }
    }
}

/// A buffer on its way from one device to another, tagged with the step of its op.
struct Message {
    step: usize,
    data: Elements,
}

/// One device's ends of the channels: to every other device and from every other device.
/// The cuda backend's host-staged collectives use the same mailboxes.
pub(crate) struct Mailbox {
    device: usize,
    /// The step of the op being run, which every message must carry.
    pub(crate) step: usize,
    to: Vec<Option<Sender<Message>>>,
    from: Vec<Option<Receiver<Message>>>,
    /// The topology whose inter-node links a message must take the time of, if emulated.
    pub(crate) emulated: Option<Topology>,
}

/// The mailboxes of `n` devices: a channel for every ordered pair.
pub(crate) fn mailboxes(n: usize) -> Vec<Mailbox> {
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
    to.into_iter()
        .zip(from)
        .enumerate()
        .map(|(device, (to, from))| Mailbox {
            device,
            step: 0,
            to,
            from,
            emulated: None,
        })
        .collect()
}

impl Link for Mailbox {
    fn send(&mut self, to: usize, data: Elements) -> Result<(), LinkError> {
        let tx = self.to.get(to).and_then(Option::as_ref).ok_or_else(|| {
            LinkError::Protocol(format!(
                "device {} has no channel to device {to}",
                self.device
            ))
        })?;
        if let Some(t) = &self.emulated
            && t.node_of(self.device) != t.node_of(to)
        {
            // The wire time of the emulated inter-node link, as the sender of a real one
            // waits for its transfer.
            let wire = t.inter.time(super::collective::bytes_of(&data) as f64);
            thread::sleep(Duration::from_secs_f64(wire));
        }
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
        let boxes = mailboxes(n);
        let board = Board::new(n);
        let board = &board;
        let clock = Instant::now();
        let outcomes = thread::scope(|scope| {
            let mut handles = Vec::with_capacity(n);
            let mut spawn_error = None;
            for (device, (args, mut mailbox)) in args.into_iter().zip(boxes).enumerate() {
                mailbox.emulated = options.emulated_topology.clone();
                let (jobs_tx, jobs_rx) = channel::<Job>();
                let comm = thread::Builder::new()
                    .name(format!("device {device} communication"))
                    .spawn_scoped(scope, move || {
                        communicate(exe, device, jobs_rx, mailbox, board, options, clock)
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
                let pool = &self.pools[device];
                let compute = thread::Builder::new()
                    .name(format!("device {device} compute"))
                    .spawn_scoped(scope, move || {
                        let mut buffers = pool.lock().unwrap_or_else(|e| e.into_inner());
                        compute(exe, device, args, jobs_tx, options, clock, &mut buffers)
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
        let mut peaks = vec![0u64; n];
        for (device, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                (Ok(computed), Ok(communicated)) => {
                    peaks[device] = computed.peak_bytes;
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
        Ok(assemble(exe, outputs, spans, per_step, &peaks, wall))
    }
}

fn communicate(
    exe: &Executable,
    device: usize,
    jobs: Receiver<Job>,
    mut link: Mailbox,
    board: &Board,
    options: &RunOptions,
    clock: Instant,
) -> Result<Communicated, DeviceError> {
    // However this thread ends, peers waiting on it at the board stop waiting.
    struct Leaves<'b>(&'b Board, usize);
    impl Drop for Leaves<'_> {
        fn drop(&mut self) {
            self.0.leave(self.1);
        }
    }
    let _leaves = Leaves(board, device);
    let mut comm = Communication::new(exe, device, clock);
    // Ends when the compute thread is done (or gone) and every job has run.
    for job in jobs {
        let exchange = comm.exchange(job.step)?;
        link.step = job.step;
        let start = clock.elapsed();
        let small = exchange.result_ty.size_bytes() < options.shared_memory_min_bytes;
        // Routed or compressed collectives, and those crossing emulated nodes, go by
        // messages.
        let by_messages = exchange.route() != Algorithm::Ring
            || exchange.compression().is_some()
            || options.emulated_topology.as_ref().is_some_and(|t| {
                exchange
                    .groups()
                    .iter()
                    .any(|g| g.iter().any(|&d| t.node_of(d) != t.node_of(g[0])))
            });
        let (out, sent) = if exchange.is_permute() || exchange.is_local() || small || by_messages {
            let input = comm.input(job.step, job.input.as_ref())?;
            exchange.run(device, input, &mut link)?
        } else {
            // The operand is moved onto the board, not copied, when this op is its last
            // reader.
            let input = match comm.take_input(job.step)? {
                Some(kept) => Some(kept),
                None => job.input.map(Cow::Owned),
            };
            exchange.run_shared(device, input, board)?
        };
        comm.finish(job.step, out, sent, start, job.reply)?;
    }
    Ok(Communicated {
        spans: comm.spans,
        bytes: comm.bytes,
    })
}
