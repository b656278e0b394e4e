//! Backends: run a per-device (partitioned) program on a mesh of real devices.
//!
//! What every backend shares lives here: an [`Executable`] is a per-device program
//! prepared once — cut into steps ([`crate::engine::steps_waiting_late`]), each compute
//! segment prepared into a kernel by a [`Compute`] engine, each per-device op into an
//! [`Exchange`] (the collective's algorithm, [`collective`]) — and a [`Mesh`] runs it on
//! its devices, every device getting its own arguments. A run gives a [`RunReport`]: each
//! device's results, the bytes each device sent per collective, and a trace of every
//! device's compute and communication ([`report`]).
//!
//! Backends: [`cpu`] (one thread per device and one for its communication, collectives as
//! ring algorithms over shared-memory channels); `mpi` (feature `mpi`: one MPI process per
//! device, on one node or many, each per-device op one MPI call); [`cuda`] (feature `cuda`
//! for its `CudaMesh`: one GPU per device, PTX kernels, NCCL collectives).

pub mod collective;
pub mod cpu;
pub mod cuda;
mod device;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod offload;
pub mod report;
pub mod shared;
pub mod watchdog;

pub use collective::{Exchange, Link, LinkError};
pub use offload::Offload;
pub use report::{DeviceStats, Lane, OpStats, RunReport, Span, Stats};

use crate::engine::{self, Compute, EngineError, Kernel, Segment};
use shardc_ir::{Function, IrError, Literal, Module, TensorType, ValueId};
use std::collections::HashSet;
use thiserror::Error;

/// Why a program cannot be prepared or run.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The program has no function of that name (the one asked to run).
    #[error("the per-device program has no function @{0}")]
    UnknownFunction(String),
    /// The per-device program fails verification.
    #[error("the per-device program is invalid: {0}")]
    Invalid(Box<IrError>),
    /// An op this backend cannot run.
    #[error("{op} defining {at} cannot run: {problem}")]
    Unsupported {
        /// The op's name (`stablehlo.all_to_all`).
        op: String,
        /// The value it defines (`%12`).
        at: String,
        /// What is wrong, and what to do.
        problem: String,
    },
    /// The engine refused a segment while preparing the program.
    #[error("the engine cannot prepare segment {segment} ({ops}): {source}")]
    Prepare {
        /// The segment's index in the program's plan.
        segment: usize,
        /// Its ops, as traces name them.
        ops: String,
        /// The engine's error.
        #[source]
        source: EngineError,
    },
    /// A mesh of no devices.
    #[error("a mesh needs at least one device")]
    EmptyMesh,
    /// More devices than the cpu backend runs as threads of one process.
    #[error(
        "the cpu backend runs each device as threads of this process, and a mesh of {devices} devices is more than it runs ({max} at most); run it one process per device (`shardc launch -n {devices} -- shardc run --backend mpi ...`), or inspect its plan without running it (`shardc compile --explain`)"
    )]
    TooManyDevices {
        /// The mesh's devices.
        devices: usize,
        /// [`cpu::MAX_DEVICES`].
        max: usize,
    },
    /// Arguments given for another number of devices than the mesh has.
    #[error("the mesh has {want} devices, but arguments were given for {got}")]
    DeviceCount {
        /// The mesh's devices.
        want: usize,
        /// The devices arguments were given for.
        got: usize,
    },
    /// A collective names a device beyond the mesh.
    #[error(
        "{op} defining {at} names device {device}, but the mesh has {devices} devices (0..{devices}); run it on a mesh of the program's size"
    )]
    MeshTooSmall {
        /// The collective's name.
        op: String,
        /// The value it defines.
        at: String,
        /// The device it names.
        device: usize,
        /// The mesh's devices.
        devices: usize,
    },
    /// A collective whose replica groups leave a device out.
    #[error("{op} defining {at} leaves device {device} out of every replica group")]
    NotInAGroup {
        /// The collective's name.
        op: String,
        /// The value it defines.
        at: String,
        /// The device no group holds.
        device: usize,
    },
    /// A device's arguments do not match the program's parameters.
    #[error("device {device}: {problem}")]
    Arguments {
        /// The device.
        device: usize,
        /// Which argument, and how it differs.
        problem: String,
    },
    /// The mpi backend: one rank is one device, so the communicator must have as many
    /// ranks as the program has devices.
    #[error(
        "the program runs on {program} devices, but the MPI communicator has {ranks} ranks (one rank runs one device): launch it with `mpirun -n {program}`"
    )]
    WorldSize {
        /// The program's devices.
        program: usize,
        /// The communicator's ranks.
        ranks: usize,
    },
    /// The mpi backend cannot start (MPI's threading level, ranks that disagree on the
    /// program).
    #[error("mpi: {0}")]
    Mpi(String),
    /// The mpi backend: rank `device` failed; `message` is its error as that rank reports
    /// it, so every rank of a failed run reports the same text (the other ranks get this;
    /// `MpiMesh::agree` and `shardc::run_mpi` also wrap a rank's own local failure in it).
    #[error("{message}")]
    Remote {
        /// The rank (device) that failed.
        device: usize,
        /// Its error, as it reports it.
        message: String,
    },
    /// The cuda backend: no NVIDIA driver on this machine (`libcuda` cannot be loaded).
    #[error("{0}")]
    NoCudaDriver(String),
    /// The cuda backend cannot start or prepare a run (no GPU, a program compiled for
    /// another GPU, a module the driver refuses, NCCL missing or failing).
    #[error("cuda: {0}")]
    Cuda(String),
    /// The operating system refused a device's threads.
    #[error("cannot start the threads of device {device}: {source}")]
    Spawn {
        /// The device.
        device: usize,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A device failed while running; the first device that failed for a reason of its
    /// own (not because a peer stopped) is named.
    #[error("device {device}: {source}")]
    Device {
        /// The device.
        device: usize,
        /// Why it stopped.
        #[source]
        source: DeviceError,
    },
}

/// Why one device stopped.
#[derive(Debug, Error)]
pub enum DeviceError {
    /// A segment's kernel failed.
    #[error("segment {segment} ({ops}) failed: {source}")]
    Kernel {
        /// The segment's index in the plan.
        segment: usize,
        /// Its ops, as traces name them.
        ops: String,
        /// The engine's error.
        #[source]
        source: EngineError,
    },
    /// A kernel returned outputs other than its segment's (count or types).
    #[error("the kernel of segment {segment} ({ops}) {problem}")]
    KernelOutput {
        /// The segment's index in the plan.
        segment: usize,
        /// Its ops.
        ops: String,
        /// What it returned instead.
        problem: String,
    },
    /// A collective failed on this device.
    #[error("{op} defining {at}: {problem}")]
    Collective {
        /// The collective's name.
        op: String,
        /// The value it defines.
        at: String,
        /// What went wrong.
        problem: String,
    },
    /// A peer stopped before sending this device its part of a collective.
    #[error("{op} defining {at}: device {peer} stopped before its part arrived")]
    PeerLeft {
        /// The collective's name.
        op: String,
        /// The value it defines.
        at: String,
        /// The device that stopped.
        peer: usize,
    },
    /// The device's channels closed (another device stopped first).
    #[error("its communication stopped")]
    CommunicationStopped,
    /// The device waited in a collective its peers never joined, none of them having
    /// failed: in a program whose loops or branches communicate, they went another way.
    #[error(
        "{0}; no device failed, so the others went another way: in a program whose loops or branches communicate, every device must go the same way at each loop's condition and branch's index (compute them from values the same on every device, not from axis_index or a device's own piece; `shardc run --backend simulated` names the value that differed)"
    )]
    WentAnotherWay(Box<DeviceError>),
    /// An offloaded value could not be read from its file or written to it.
    #[error("{0}")]
    Offload(String),
    /// A CUDA driver or NCCL call failed on the device's GPU.
    #[error("cuda: {0}")]
    Cuda(String),
    /// A thread of the device panicked (its message).
    #[error("a thread of the device panicked: {0}")]
    Panicked(String),
    /// An invariant of the backend broke (a bug; its description).
    #[error("{0} (a bug in the backend)")]
    Internal(String),
}

impl DeviceError {
    /// Whether the device stopped only because another one did.
    pub fn is_consequence(&self) -> bool {
        matches!(
            self,
            DeviceError::PeerLeft { .. } | DeviceError::CommunicationStopped
        )
    }
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Start each collective and keep computing until a step reads its result (`true`),
    /// or wait for every collective as soon as it starts (`false`).
    pub overlap: bool,
    /// The cpu backend runs a collective of groups whose result has at least this many
    /// bytes through shared memory, a smaller one as a ring algorithm over channels (same
    /// results bit for bit, same bytes counted). `usize::MAX`: rings only, for comparison;
    /// `0`: shared memory only. Other backends ignore it.
    pub shared_memory_min_bytes: usize,
    /// The cpu backend emulates this topology on its host: a message between devices of
    /// different nodes takes at least the inter-node link's time (latency plus bytes over
    /// bandwidth; the sender waits out the rest), and collectives whose groups span nodes
    /// run over messages rather than shared memory. Messages inside a node move at the
    /// host's own speed. `None`: no emulation. Other backends ignore it.
    pub emulated_topology: Option<shardc_ir::Topology>,
    /// Values kept in files rather than by the devices between their uses (ZeRO-Infinity's
    /// NVMe tier for optimizer state): the cpu and mpi backends read each offloaded
    /// argument when a step first reads it and write each offloaded result once no step
    /// reads it any more. `None`: every value stays in memory. The cuda backend refuses
    /// it.
    pub offload: Option<Offload>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            overlap: true,
            shared_memory_min_bytes: shared::MIN_BYTES,
            emulated_topology: None,
            offload: None,
        }
    }
}

/// A set of devices that runs executables.
pub trait Mesh {
    /// The number of devices; device ids are `0..devices()`, the ids replica groups name.
    fn devices(&self) -> usize;

    /// Runs `exe` on every device, device `d` getting `args[d]`. Called by
    /// [`Executable::run_with`] after it has checked the arguments and the mesh.
    fn execute(
        &self,
        exe: &Executable,
        args: Vec<Vec<Literal>>,
        options: &RunOptions,
    ) -> Result<RunReport, RuntimeError>;
}

/// One step of a prepared program.
pub enum Planned {
    /// A segment of compute ops run by the engine's kernel.
    Compute {
        /// The ops, their inputs and outputs.
        segment: Segment,
        /// What the engine prepared for it.
        kernel: Box<dyn Kernel>,
        /// The ops, for traces and errors: `stablehlo.dot_general %3, stablehlo.add %4`.
        ops: String,
    },
    /// A collective or another op that runs per device (a shard slice, an axis index).
    PerDevice {
        /// What it sends and receives, and between which devices.
        exchange: Box<Exchange>,
        /// Its operand is the result of an earlier per-device op (else of a compute step
        /// or an argument).
        operand_from_per_device: bool,
        /// Its result is read by a compute step or returned.
        result_to_compute: bool,
        /// Its result is read by a later per-device op.
        result_to_per_device: bool,
    },
    /// A step of a loop whose body communicates, on the compute side.
    Control(engine::Control),
}

impl Planned {
    /// Whether this is a per-device op the compute side runs itself rather than handing
    /// it to the communication side: one that moves nothing ([`Exchange::is_local`]: a
    /// `shard_slice`, an `axis_index`) of a value compute holds, whose result only compute
    /// reads (`device.rs`).
    pub(crate) fn runs_on_compute(&self) -> bool {
        matches!(
            self,
            Planned::PerDevice {
                exchange,
                operand_from_per_device: false,
                result_to_per_device: false,
                ..
            } if exchange.is_local()
        )
    }
}

/// A per-device program prepared to run on any mesh of its size.
pub struct Executable {
    pub(crate) func: String,
    pub(crate) steps: Vec<Planned>,
    pub(crate) args: Vec<ValueId>,
    pub(crate) arg_types: Vec<TensorType>,
    pub(crate) results: Vec<ValueId>,
    pub(crate) num_values: usize,
    /// The type of every value, by index.
    pub(crate) value_types: Vec<TensorType>,
    /// Per step, the values compute no longer needs after it.
    pub(crate) last_reads: Vec<Vec<ValueId>>,
    /// Per step, the results of per-device ops no later per-device op reads.
    pub(crate) per_device_last_reads: Vec<Vec<ValueId>>,
    /// Per step, the values it defines that a later step of the compute side reads (a
    /// loop's [`engine::Control::Bind`] defines the others for nothing).
    pub(crate) kept: Vec<Vec<ValueId>>,
}

impl Executable {
    /// Prepares function `func` of a per-device program: verifies it, cuts it into steps
    /// and prepares every compute segment with `engine` once.
    pub fn new(
        module: &Module,
        func: &str,
        engine: &dyn Compute,
    ) -> Result<Executable, RuntimeError> {
        Executable::streaming(module, func, engine, &[])
    }

    /// [`Executable::new`] for runs that offload the arguments at positions `streamed`
    /// ([`RunOptions::offload`]): a segment is also cut before each op that reads one of
    /// them first ([`engine::steps_streaming`]), so each is read when needed.
    pub fn streaming(
        module: &Module,
        func: &str,
        engine: &dyn Compute,
        streamed: &[usize],
    ) -> Result<Executable, RuntimeError> {
        let f = module
            .function(func)
            .ok_or_else(|| RuntimeError::UnknownFunction(func.to_string()))?;
        shardc_ir::verify_module(module).map_err(|e| RuntimeError::Invalid(Box::new(e)))?;
        // Loops whose bodies communicate run rotated, their tests joining their bodies'
        // last kernels (`shardc_ir::rotate`); values keep the names the program gives them.
        let rotated = shardc_ir::rotate::rotate_communicating_loops(f)
            .map_err(|e| RuntimeError::Invalid(Box::new(e)))?;
        let mut names = f.value_names();
        let owned;
        let (module, f) = match rotated {
            None => (module, f),
            Some((g, moved)) => {
                let mut renamed = vec![String::new(); g.values.len()];
                for (new, old) in moved {
                    renamed[new.index()] = names[old.index()].clone();
                }
                for (i, name) in renamed.iter_mut().enumerate() {
                    if name.is_empty() {
                        *name = format!("%rotated{i}");
                    }
                }
                names = renamed;
                let mut m = module.clone();
                if let Some(slot) = m.functions.iter_mut().find(|h| h.name == func) {
                    *slot = g;
                }
                owned = m;
                let f = owned
                    .function(func)
                    .ok_or_else(|| RuntimeError::UnknownFunction(func.to_string()))?;
                (&owned, f)
            }
        };
        let streamed: HashSet<ValueId> = streamed
            .iter()
            .filter_map(|&i| f.args().get(i).copied())
            .collect();
        let steps = engine::steps_streaming(f, &streamed);
        // Who reads each value: compute steps (or the results), per-device ops.
        let mut per_device_results: HashSet<ValueId> = HashSet::new();
        let mut read_by_compute: HashSet<ValueId> = f.results().iter().copied().collect();
        let mut read_by_per_device: HashSet<ValueId> = HashSet::new();
        for s in &steps {
            match s {
                engine::Step::Compute(seg) => read_by_compute.extend(seg.inputs.iter().copied()),
                engine::Step::PerDevice(o) => {
                    let op = f.op(*o);
                    read_by_per_device.extend(op.operands.iter().copied());
                    per_device_results.extend(op.results.iter().copied());
                }
                engine::Step::Control(c) => read_by_compute.extend(c.reads().iter().copied()),
            }
        }
        let segments: Vec<&engine::Segment> = steps
            .iter()
            .filter_map(|s| match s {
                engine::Step::Compute(seg) => Some(seg),
                _ => None,
            })
            .collect();
        let mut kernels = engine.prepare_all(module, f, &segments).into_iter();
        let mut planned = Vec::with_capacity(steps.len());
        let mut segment = 0;
        for s in &steps {
            planned.push(match s {
                engine::Step::Compute(seg) => {
                    let ops = describe(f, seg, &names);
                    let kernel = kernels
                        .next()
                        .unwrap_or_else(|| {
                            Err("the engine prepared fewer kernels than there are segments".into())
                        })
                        .map_err(|source| RuntimeError::Prepare {
                            segment,
                            ops: ops.clone(),
                            source,
                        })?;
                    segment += 1;
                    Planned::Compute {
                        segment: seg.clone(),
                        kernel,
                        ops,
                    }
                }
                engine::Step::PerDevice(o) => {
                    let op = f.op(*o);
                    let exchange = Exchange::new(f, op, &names)?;
                    Planned::PerDevice {
                        operand_from_per_device: exchange
                            .operand
                            .is_some_and(|v| per_device_results.contains(&v)),
                        result_to_compute: read_by_compute.contains(&exchange.result),
                        result_to_per_device: read_by_per_device.contains(&exchange.result),
                        exchange: Box::new(exchange),
                    }
                }
                engine::Step::Control(c) => Planned::Control(c.clone()),
            });
        }
        let (compute_side, per_device_last_reads) = last_reads(f, &steps, &planned);
        let (last_reads, kept) = compute_side.into_iter().map(|l| (l.dead, l.kept)).unzip();
        Ok(Executable {
            func: func.to_string(),
            steps: planned,
            args: f.args().to_vec(),
            arg_types: f.arg_types(),
            results: f.results().to_vec(),
            num_values: f.values.len(),
            value_types: (0..f.values.len())
                .map(|i| f.ty(ValueId::from_index(i)).clone())
                .collect(),
            last_reads,
            per_device_last_reads,
            kept,
        })
    }

    /// Whether the program has a loop whose body communicates (its steps run again,
    /// [`engine::Control`]).
    pub fn has_loops(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Planned::Control(_)))
    }

    /// The function this executable runs.
    pub fn function(&self) -> &str {
        &self.func
    }

    /// The per-device type of result `k` (the same on every device), if there is one.
    pub fn result_type(&self, k: usize) -> Option<&TensorType> {
        self.results
            .get(k)
            .and_then(|v| self.value_types.get(v.index()))
    }

    /// How many results the program has.
    pub fn result_count(&self) -> usize {
        self.results.len()
    }

    /// The prepared steps, in program order.
    pub fn steps(&self) -> &[Planned] {
        &self.steps
    }

    /// The number of devices the program runs on, as its per-device ops name them: the
    /// devices of the replica groups of any op but a permute (those groups cover every
    /// device). `None` if it has no such op (it then runs on a mesh of any size its permutes
    /// fit in).
    pub fn devices(&self) -> Option<usize> {
        self.exchanges()
            .filter(|e| !e.is_permute())
            .map(|e| e.groups().iter().flatten().max().map_or(0, |&d| d + 1))
            .max()
    }

    /// The per-device ops, in program order.
    pub fn exchanges(&self) -> impl Iterator<Item = &Exchange> {
        self.steps.iter().filter_map(|s| match s {
            Planned::PerDevice { exchange, .. } => Some(&**exchange),
            _ => None,
        })
    }

    /// Runs on every device of `mesh`, overlapping communication with compute.
    pub fn run(&self, mesh: &dyn Mesh, args: Vec<Vec<Literal>>) -> Result<RunReport, RuntimeError> {
        self.run_with(mesh, args, &RunOptions::default())
    }

    /// Runs on every device of `mesh`, device `d` getting `args[d]`.
    pub fn run_with(
        &self,
        mesh: &dyn Mesh,
        args: Vec<Vec<Literal>>,
        options: &RunOptions,
    ) -> Result<RunReport, RuntimeError> {
        let n = mesh.devices();
        if args.len() != n {
            return Err(RuntimeError::DeviceCount {
                want: n,
                got: args.len(),
            });
        }
        for ex in self.exchanges() {
            ex.check_mesh(n)?;
        }
        for (device, a) in args.iter().enumerate() {
            self.check_args(device, a)?;
        }
        mesh.execute(self, args, options)
    }

    fn check_args(&self, device: usize, args: &[Literal]) -> Result<(), RuntimeError> {
        let bad = |problem: String| RuntimeError::Arguments { device, problem };
        if args.len() != self.arg_types.len() {
            return Err(bad(format!(
                "@{} takes {} arguments, {} were given",
                self.func,
                self.arg_types.len(),
                args.len()
            )));
        }
        for (i, (a, t)) in args.iter().zip(&self.arg_types).enumerate() {
            if let Some(problem) = misfit(a, t) {
                return Err(bad(format!(
                    "argument {i} {problem}, but @{} takes {t}",
                    self.func
                )));
            }
        }
        Ok(())
    }
}

/// Why `l` is not a value of type `t` (its type, or elements that do not fill it), if it
/// is not.
pub(crate) fn misfit(l: &Literal, t: &TensorType) -> Option<String> {
    if l.ty != *t {
        return Some(format!("is {}", l.ty));
    }
    let n = l.elements.len();
    if l.elements.dtype() != t.dtype || (n != t.num_elements() && n != 1) {
        return Some(format!("holds {n} {} elements", l.elements.dtype()));
    }
    None
}

/// The ops of a segment, for traces and errors.
fn describe(f: &Function, seg: &Segment, names: &[String]) -> String {
    let ops: Vec<String> = seg
        .ops
        .iter()
        .map(|&o| {
            let op = f.op(o);
            match op.results.first() {
                Some(r) => format!("{} {}", op.kind.name(), names[r.index()]),
                None => op.kind.name(),
            }
        })
        .collect();
    ops.join(", ")
}

/// Per step, the values whose last reader it is ([`engine::flow`]: a loop's steps run
/// again): on the compute side (segments, per-device ops fed by compute, the steps of
/// loops; results are read at the end), and on the per-device side.
fn last_reads(
    f: &Function,
    steps: &[engine::Step],
    planned: &[Planned],
) -> (Vec<engine::Liveness>, Vec<Vec<ValueId>>) {
    let none: &[ValueId] = &[];
    let defines: Vec<Vec<ValueId>> = steps.iter().map(|s| engine::step_defines(f, s)).collect();
    let side = |per_device: bool| -> Vec<engine::Liveness> {
        let reads: Vec<&[ValueId]> = planned
            .iter()
            .map(|s| match s {
                Planned::Compute { segment, .. } if !per_device => &segment.inputs[..],
                Planned::Control(c) if !per_device => c.reads(),
                Planned::PerDevice {
                    exchange,
                    operand_from_per_device,
                    ..
                } if *operand_from_per_device == per_device => exchange.operand.as_slice(),
                _ => none,
            })
            .collect();
        let results = if per_device { none } else { f.results() };
        engine::flow(steps, results, |i| (reads[i], &defines[i][..]))
    };
    let per_device = side(true).into_iter().map(|l| l.dead).collect();
    (side(false), per_device)
}
