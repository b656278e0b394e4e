//! The cpu backend: a mesh of `N` devices in one process, each device a compute thread and
//! a communication thread, collectives through shared memory ([`super::shared`]) and
//! channels.
//!
//! Every ordered pair of devices has a channel (a mailbox of messages from one to the
//! other, in order); a message is a buffer moved, not copied. A run gives each device's two
//! jobs to threads the mesh keeps from run to run (spawning 16 threads took about 0.6 ms
//! on the reference host, most of a small program's step); runs on one mesh take turns.
//! The jobs borrow the executable and end with the run:
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

use super::device::{Communication, Computed, Job, assemble, compute, joined};
use super::shared::Board;
use super::{
    DeviceError, Executable, Link, LinkError, Mesh, RunOptions, RunReport, RuntimeError, Span,
};
use crate::engine::Buffers;
use shardc_ir::{Elements, Literal, Topology};
use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// The most devices a [`CpuMesh`] runs: two threads each, in one process (a mesh of 65536
/// ran the host out of memory starting them).
pub const MAX_DEVICES: usize = 1024;

/// `N` devices on the host's cores, as threads.
///
/// Each device keeps a pool of spare storage ([`Buffers`]) from run to run: the values a
/// run no longer needs give their storage to the kernels' outputs of this run and the next
/// (a training loop's steps allocate almost nothing after the first).
#[derive(Debug)]
pub struct CpuMesh {
    devices: usize,
    pools: Vec<Mutex<Buffers>>,
    /// Two threads per device, started by the first run and kept (`None` until then, or
    /// when they could not be started). A run holds them from start to end, so runs on
    /// one mesh take turns (as a device runs one program at a time: two at once would
    /// each hold some devices' buffer pools and wait for the other's).
    workers: Mutex<Option<Workers>>,
}

impl CpuMesh {
    /// A mesh of `devices` devices (ids `0..devices`); any number up to [`MAX_DEVICES`],
    /// however many cores.
    pub fn new(devices: usize) -> Result<CpuMesh, RuntimeError> {
        if devices == 0 {
            return Err(RuntimeError::EmptyMesh);
        }
        if devices > MAX_DEVICES {
            return Err(RuntimeError::TooManyDevices {
                devices,
                max: MAX_DEVICES,
            });
        }
        Ok(CpuMesh {
            devices,
            pools: (0..devices).map(|_| Mutex::default()).collect(),
            workers: Mutex::new(None),
        })
    }

    /// Runs each device's communication and compute jobs, each on a thread of its own, and
    /// gives their outcomes (a panic as [`DeviceError::Panicked`]) once all have ended.
    fn run_devices<M, C>(&self, work: Vec<(M, C)>) -> Result<Vec<Outcome>, RuntimeError>
    where
        M: FnOnce() -> Result<Communicated, DeviceError> + Send,
        C: FnOnce() -> Result<Computed, DeviceError> + Send,
    {
        // Held for the whole run: runs on one mesh take turns.
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        if workers.is_none() {
            *workers = Workers::start(self.devices).ok();
        }
        if let Some(w) = workers.as_ref() {
            let mut slots: Vec<Slots> = (0..work.len()).map(|_| (None, None)).collect();
            let mut jobs: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::new();
            for ((m, c), (cs, ms)) in work.into_iter().zip(slots.iter_mut()) {
                jobs.push(Box::new(move || {
                    *ms = Some(joined(catch_unwind(AssertUnwindSafe(m))))
                }));
                jobs.push(Box::new(move || {
                    *cs = Some(joined(catch_unwind(AssertUnwindSafe(c))))
                }));
            }
            w.run(jobs);
            // A job that never gave anything was dropped unrun: its thread had gone.
            return Ok(slots
                .into_iter()
                .map(|(c, m)| {
                    (
                        c.unwrap_or(Err(DeviceError::CommunicationStopped)),
                        m.unwrap_or(Err(DeviceError::CommunicationStopped)),
                    )
                })
                .collect());
        }
        // No threads could be kept: this run's own, scoped.
        thread::scope(|scope| {
            let mut handles = Vec::with_capacity(work.len());
            let mut spawn_error = None;
            for (device, (m, c)) in work.into_iter().enumerate() {
                let comm = thread::Builder::new()
                    .name(format!("device {device} communication"))
                    .spawn_scoped(scope, m);
                let comm = match comm {
                    Ok(h) => h,
                    Err(source) => {
                        spawn_error = Some(RuntimeError::Spawn { device, source });
                        break;
                    }
                };
                // If this spawn fails, the compute job (and its sender of jobs) is
                // dropped and the communication thread ends; every thread spawned so far
                // ends as its peers' channels close.
                let compute = thread::Builder::new()
                    .name(format!("device {device} compute"))
                    .spawn_scoped(scope, c);
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
        })
    }

    /// The threads the mesh keeps for its runs (two per device once a run has started
    /// them; 0 before).
    pub fn kept_threads(&self) -> usize {
        let workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        workers.as_ref().map_or(0, |w| w.tasks.len())
    }

    /// Bytes each device keeps for reuse, by device id.
    pub fn pooled_bytes(&self) -> Vec<usize> {
        self.pools
            .iter()
            .map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).bytes())
            .collect()
    }
}

/// A mesh of as many devices, with empty pools and threads of its own.
impl Clone for CpuMesh {
    fn clone(&self) -> CpuMesh {
        CpuMesh {
            devices: self.devices,
            pools: (0..self.devices).map(|_| Mutex::default()).collect(),
            workers: Mutex::new(None),
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

/// What a device's compute and communication jobs gave.
type Outcome = (
    Result<Computed, DeviceError>,
    Result<Communicated, DeviceError>,
);

/// Where a device's jobs leave what they gave.
type Slots = (
    Option<Result<Computed, DeviceError>>,
    Option<Result<Communicated, DeviceError>>,
);

/// A job for a kept thread, its borrows erased (see [`Workers::run`]).
type Task = Box<dyn FnOnce() + Send + 'static>;

/// Threads kept from run to run, each running the jobs it is handed one after another:
/// thread `2d` device `d`'s communication, `2d + 1` its compute.
#[derive(Debug)]
struct Workers {
    tasks: Vec<Sender<Task>>,
    threads: Vec<thread::JoinHandle<()>>,
}

/// Sends once when dropped: a job's end, whether it ran, panicked or was never run.
struct Done(Sender<()>);

impl Drop for Done {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Workers {
    fn start(devices: usize) -> std::io::Result<Workers> {
        let mut w = Workers {
            tasks: Vec::new(),
            threads: Vec::new(),
        };
        for i in 0..2 * devices {
            let (tx, rx) = channel::<Task>();
            let name = format!("device {} {}", i / 2, ["communication", "compute"][i % 2]);
            // On an error `w` is dropped: the threads started so far end.
            w.threads
                .push(thread::Builder::new().name(name).spawn(move || {
                    for task in rx {
                        // A job catches its own panics; this keeps the thread for the next.
                        let _ = catch_unwind(AssertUnwindSafe(task));
                    }
                })?);
            w.tasks.push(tx);
        }
        Ok(w)
    }

    /// Runs `jobs[i]` on thread `i`, all at once, and returns when every one has ended.
    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        let (done_tx, done_rx) = channel::<()>();
        // Waits for every job to end, also when this function unwinds: no job outlives
        // the borrows it holds.
        struct Wait(Receiver<()>, usize);
        impl Drop for Wait {
            fn drop(&mut self) {
                for _ in 0..self.1 {
                    if self.0.recv().is_err() {
                        break;
                    }
                }
            }
        }
        let mut wait = Wait(done_rx, 0);
        for (job, tasks) in jobs.into_iter().zip(&self.tasks) {
            let done = Done(done_tx.clone());
            let job: Box<dyn FnOnce() + Send + 'a> = Box::new(move || {
                let _done = done;
                job();
            });
            // SAFETY: only the lifetime is changed. The job borrows for `'a`, and this
            // function does not return (nor unwind past `wait`) before the job has
            // ended: `wait` receives one message per job sent, which its `Done` sends
            // when dropped — after running, after a panic, or unrun when the thread is
            // gone (the `Sender` then drops the job here).
            let task: Task =
                unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Task>(job) };
            wait.1 += 1;
            let _ = tasks.send(task);
        }
        drop(done_tx);
        drop(wait);
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.tasks.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
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
        let mut work = Vec::with_capacity(n);
        for (device, (args, mut mailbox)) in args.into_iter().zip(boxes).enumerate() {
            mailbox.emulated = options.emulated_topology.clone();
            let (jobs_tx, jobs_rx) = channel::<Job>();
            let pool = &self.pools[device];
            work.push((
                move || communicate(exe, device, jobs_rx, mailbox, board, options, clock),
                move || {
                    let mut buffers = pool.lock().unwrap_or_else(|e| e.into_inner());
                    compute(exe, device, args, jobs_tx, options, clock, &mut buffers)
                },
            ));
        }
        let outcomes = self.run_devices(work)?;
        let wall = clock.elapsed();
        let mut root: Option<(usize, DeviceError)> = None;
        let mut consequence: Option<(usize, DeviceError)> = None;
        let mut outputs = Vec::with_capacity(n);
        let mut spans = Vec::new();
        let mut per_step = vec![vec![0u64; n]; exe.steps.len()];
        let mut peaks = vec![0u64; n];
        let mut runs = Vec::new();
        for (device, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                (Ok(computed), Ok(communicated)) => {
                    peaks[device] = computed.peak_bytes;
                    // The same on every device: they go round their loops together.
                    runs = computed.runs;
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
        if let Some((device, source)) = root.or(consequence.map(|(device, source)| {
            // Stranded with no device failing: only a divergent loop or branch does that.
            if exe.has_loops() {
                (device, DeviceError::WentAnotherWay(Box::new(source)))
            } else {
                (device, source)
            }
        })) {
            return Err(RuntimeError::Device { device, source });
        }
        Ok(assemble(exe, outputs, spans, per_step, &peaks, &runs, wall))
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
        // Collectives crossing emulated nodes go by messages.
        let crosses_nodes = options.emulated_topology.as_ref().is_some_and(|t| {
            exchange
                .groups()
                .iter()
                .any(|g| g.iter().any(|&d| t.node_of(d) != t.node_of(g[0])))
        });
        let (out, sent) =
            if !exchange.on_shared_memory(options.shared_memory_min_bytes) || crosses_nodes {
                let input = comm.input(job.step, job.input.as_ref())?;
                exchange.run(device, input, &mut link)?
            } else {
                // The operand is moved onto the board, not copied, when this op is its last
                // reader.
                let input = match comm.take_input(job.step)? {
                    Some(kept) => Some(kept),
                    None => job.input.map(Cow::Owned),
                };
                exchange.run_shared(device, input, board, job.storage)?
            };
        comm.finish(job.step, out, sent, start, job.reply)?;
    }
    Ok(Communicated {
        spans: comm.spans,
        bytes: comm.bytes,
    })
}
