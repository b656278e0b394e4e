//! The mpi backend: one MPI process (rank) per device, on one node or many; each
//! per-device op is one MPI call.
//!
//! Every rank runs the same program (`mpirun -n 8 [--hostfile hosts] my_program`): it
//! prepares the same [`Executable`], makes an [`MpiMesh`] over a communicator, and calls
//! [`MpiMesh::run`] with *its own device's* arguments. Rank `r` of the mesh's communicator
//! is device `r`, the id replica groups name, so the communicator has exactly as many
//! ranks as the program has devices ([`RuntimeError::WorldSize`] otherwise).
//!
//! | per-device op | MPI |
//! | --- | --- |
//! | `all_reduce` | `MPI_Allreduce` on the group's communicator |
//! | `reduce_scatter` | `MPI_Reduce_scatter_block` on the group's communicator, the operand's blocks of the scatter dimension packed contiguously first |
//! | `all_gather` | `MPI_Allgather` on the group's communicator, the pieces (in group order) unpacked into the gather dimension |
//! | `all_to_all` | `MPI_Alltoall` on the group's communicator, block `j` of the split dimension packed for member `j`, the received blocks unpacked into the concat dimension |
//! | `collective_permute` | `MPI_Sendrecv` (or `MPI_Send`, `MPI_Recv` for a device that only sends or only receives) on the mesh's communicator; a device no pair targets gets zeros |
//! | `shard_slice`, `axis_index` | local, as on every backend |
//!
//! **Communicators.** One per distinct [`ReplicaGroups`]: `MPI_Comm_split` of the mesh's
//! communicator, the color the index of the device's group and the key its position in
//! it, so the new communicator's ranks are in group order (the order pieces are
//! concatenated in). They are made when a run first needs them, in program order — every
//! rank runs the same program, so every rank splits in the same order — and kept in the
//! mesh for later runs. Groups of one device need no communicator.
//!
//! **Reductions** use MPI's built-in operations where they compute exactly what
//! StableHLO's reducer does: `add`/`multiply` on f32 and f64 (`MPI_SUM`, `MPI_PROD`), on
//! i32 and i64 as their unsigned twins (so overflow wraps, bit for bit as two's complement
//! does), `maximum`/`minimum` on integers (`MPI_MAX`, `MPI_MIN`), `and`/`or`/`xor` on
//! integers (`MPI_BAND`, `MPI_BOR`, `MPI_BXOR`) and on i1 (`MPI_LAND`, `MPI_LOR`,
//! `MPI_LXOR` on `MPI_C_BOOL`; `add`/`maximum` are `or` and `multiply`/`minimum` are `and`
//! on i1). Where a built-in would differ, a user-defined operation applies the reference
//! interpreter's op ([`crate::reference::zip_elements`]): `maximum`/`minimum` on floats
//! (IEEE-754 `maximum`: a NaN wins, -0 < +0, which `MPI_MAX` does not promise), and every
//! reduction on bf16 and f16 (which MPI has no type for: they travel as their 16-bit
//! patterns and each fold rounds as the cpu backend's does). So integer, boolean,
//! `maximum` and `minimum` reductions equal the simulated mesh bit for bit; float sums and
//! products associate in the order MPI's algorithm picks, within the rounding bound of
//! `docs/runtime.md`.
//!
//! **Bytes.** How many bytes MPI's algorithms move is MPI's business (it picks ring,
//! recursive doubling or shared memory by size and topology). A run reports, per op and
//! device, the logical volume of the ring algorithm the compiler's cost model and
//! `explain` state ([`Exchange::ring_bytes`], what the cpu backend measures), so the
//! figures compare across backends.
//!
//! **Threads.** A device computes on a second thread (its kernels, as on the cpu backend)
//! while the thread that called [`MpiMesh::run`] makes every MPI call, in program order; so
//! collectives overlap with compute that does not need them, and MPI needs only
//! `MPI_THREAD_FUNNELED` ([`initialize`]), with `run` called from the main thread.
//!
//! **Failures.** A rank whose kernel fails, panics or returns a value of the wrong type
//! does not leave the others waiting: it keeps taking part in every remaining per-device
//! op (with zeros, so the MPI calls still match), and at the end the ranks agree on the
//! outcome. Every rank then returns the same error, naming the device that failed first
//! (the earliest in program order, then the lowest rank): the failing rank its own error,
//! the others [`RuntimeError::Remote`] with its text. Problems found before the run
//! (arguments, the world's size, a reducer, ranks preparing different programs) are agreed
//! on the same way before any collective of the program starts. What no rank can report —
//! a process that crashes or is killed, an MPI error (MPI's default handler aborts the job)
//! — ends the whole job through `mpirun`; a launcher may end the job with `MPI_Abort` on a
//! panic of its own as a last resort ([`abort_on_panic`]).

pub use mpi as rsmpi;

use super::collective::{Kind, concat, runs, slice};
use super::device::{Communication, Job, assemble, compute, joined};
use super::{
    DeviceError, Exchange, Executable, Link, LinkError, Planned, RunOptions, RunReport,
    RuntimeError, Span,
};
use crate::engine::Buffers;
use crate::reference::zip_elements;
use half::{bf16, f16};
use mpi::collective::{SystemOperation, UnsafeUserFunction, UnsafeUserOperation};
use mpi::datatype::{Equivalence, PartitionMut};
use mpi::environment::{Threading, Universe};
use mpi::point_to_point::send_receive_into;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use shardc_ir::{BinaryOp, DType, Elements, Literal, ReplicaGroups, TensorType};
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::{Duration, Instant};

/// Runs `$body` with `$v` bound to the elements of `$x` as a `&Vec<T>` of an MPI type,
/// and wraps the `Vec<T>` it gives back in the same variant. bf16 and f16 travel as their
/// 16-bit patterns (`u16`), i1 as `MPI_C_BOOL`.
macro_rules! typed {
    ($x:expr, |$v:ident| $body:expr) => {
        match $x {
            Elements::F32($v) => Elements::F32($body),
            Elements::F64($v) => Elements::F64($body),
            Elements::I32($v) => Elements::I32($body),
            Elements::I64($v) => Elements::I64($body),
            Elements::I1($v) => Elements::I1($body),
            Elements::I8($v) => Elements::I8($body),
            Elements::I16($v) => Elements::I16($body),
            Elements::U8($v) => Elements::U8($body),
            Elements::U16($v) => Elements::U16($body),
            Elements::U32($v) => Elements::U32($body),
            Elements::U64($v) => Elements::U64($body),
            Elements::BF16(h) => {
                let $v: &Vec<u16> = &h.iter().map(|x| x.to_bits()).collect();
                Elements::BF16($body.into_iter().map(bf16::from_bits).collect())
            }
            Elements::F16(h) => {
                let $v: &Vec<u16> = &h.iter().map(|x| x.to_bits()).collect();
                Elements::F16($body.into_iter().map(f16::from_bits).collect())
            }
        }
    };
}

/// Initializes MPI as the mpi backend needs it (`MPI_THREAD_FUNNELED`: the thread that
/// calls this makes every MPI call while devices compute on other threads). Keep the
/// universe alive while meshes are used: dropping it finalizes MPI.
pub fn initialize() -> Result<Universe, RuntimeError> {
    let (universe, provided) =
        mpi::initialize_with_threading(Threading::Funneled).ok_or_else(|| {
            RuntimeError::Mpi(
                "MPI is already initialized (or finalized); initialize it once, with \
                 shardc's `backend::mpi::initialize` or at MPI_THREAD_FUNNELED or above"
                    .into(),
            )
        })?;
    enough_threading(provided)?;
    Ok(universe)
}

fn enough_threading(provided: Threading) -> Result<(), RuntimeError> {
    if provided < Threading::Funneled {
        return Err(RuntimeError::Mpi(format!(
            "MPI provides thread support {provided:?}; the mpi backend computes on a second \
             thread while the main thread makes the MPI calls, which needs \
             MPI_THREAD_FUNNELED or above (initialize with `backend::mpi::initialize`)"
        )));
    }
    Ok(())
}

/// Whether an MPI launcher started this process (`mpirun`/`mpiexec` of Open MPI set
/// `OMPI_COMM_WORLD_SIZE`, launchers speaking PMI set `PMI_SIZE`).
pub fn launched() -> bool {
    std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() || std::env::var_os("PMI_SIZE").is_some()
}

/// Runs this program again on `ranks` processes of this machine:
/// `mpirun --allow-run-as-root --oversubscribe --timeout T -n ranks <this program> args`
/// (as root if need be, more processes than cores, the job killed after `timeout_s`
/// seconds so that nothing can hang a test run), printing the command first. Gives
/// mpirun's exit status; an error if mpirun cannot be started (Open MPI missing).
pub fn relaunch(
    ranks: usize,
    args: &[String],
    timeout_s: u64,
) -> Result<std::process::ExitStatus, RuntimeError> {
    let me = std::env::current_exe()
        .map_err(|e| RuntimeError::Mpi(format!("cannot find this program's path: {e}")))?;
    let flags = [
        "--allow-run-as-root".to_string(),
        "--oversubscribe".to_string(),
        "--timeout".to_string(),
        timeout_s.to_string(),
        "-n".to_string(),
        ranks.to_string(),
    ];
    println!(
        "running: mpirun {} {} {}",
        flags.join(" "),
        me.display(),
        args.join(" ")
    );
    std::process::Command::new("mpirun")
        .args(&flags)
        .arg(&me)
        .args(args)
        .status()
        .map_err(|e| {
            RuntimeError::Mpi(format!(
                "cannot run mpirun ({e}): the mpi backend needs Open MPI (Debian: openmpi-bin \
                 and libopenmpi-dev; scripts/setup.sh installs them)"
            ))
        })
}

/// Makes a panic on the main thread end the whole MPI job (`MPI_Abort` on the world):
/// the other ranks would otherwise wait for this one in their next collective. For
/// launchers and tests, as a last resort; the panics of device threads are the backend's
/// to report, so they are left alone. Keeps the panic hook that was set (it prints).
pub fn abort_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        if std::thread::current().name() == Some("main") {
            SimpleCommunicator::world().abort(1);
        }
    }));
}

/// What a member of a group gets from [`share_ids`]: the group's id and its position in
/// the group, or why there is no id.
pub type SharedId<const N: usize> = Result<([u8; N], usize), String>;

/// The tag of [`share_ids`]' messages.
const SHARE_TAG: mpi::Tag = 0x5d1d;

/// Shares an id of `N` bytes within each group of ranks, as NCCL's `ncclCommInitRank`
/// needs (`ncclGetUniqueId` on one member, the 128 bytes given to the others): for each
/// group of `groups`, in order, its leader (first member) calls `make(index of the
/// group)` and sends the bytes to every other member (`MPI_Send` on `comm`, whose rank `r`
/// is device `r`); each member receives them from the leader.
///
/// Gives, per group, `None` where this rank is not a member, else the id and this rank's
/// position in the group, or why there is none: the leader's own error on the leader, on
/// the others an error naming the leader, which sends a refusal in place of the id (so no
/// member waits for an id that will not come); a group naming a rank outside `comm`, or one
/// twice, is an error on every rank (nothing is sent for it). Collective: every rank of
/// `comm` calls it with the same `groups` (members of a group send and receive; the others
/// skip it), and since every rank goes through the groups in the same order, no two ranks
/// wait on each other.
pub fn share_ids<C: Communicator, const N: usize>(
    comm: &C,
    groups: &[Vec<usize>],
    mut make: impl FnMut(usize) -> Result<[u8; N], String>,
) -> Vec<Option<SharedId<N>>> {
    let me = comm.rank() as usize;
    let size = comm.size() as usize;
    let mut out = Vec::with_capacity(groups.len());
    for (index, group) in groups.iter().enumerate() {
        let Some(position) = group.iter().position(|&d| d == me) else {
            out.push(None);
            continue;
        };
        let mut sorted = group.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != group.len() || sorted.last().is_some_and(|&d| d >= size) {
            out.push(Some(Err(format!(
                "group {index} ({group:?}) must name distinct ranks of the communicator's {size}"
            ))));
            continue;
        }
        let leader = group[0];
        // The message: 1 (an id follows) or 0 (the leader has none), then the id.
        let mut message = vec![0u8; N + 1];
        let got = if position == 0 {
            let made = make(index);
            if let Ok(id) = &made {
                message[0] = 1;
                message[1..].copy_from_slice(id);
            }
            for &member in &group[1..] {
                comm.process_at_rank(member as i32)
                    .send_with_tag(&message[..], SHARE_TAG);
            }
            made
        } else {
            comm.process_at_rank(leader as i32)
                .receive_into_with_tag(&mut message[..], SHARE_TAG);
            if message[0] == 1 {
                let mut id = [0u8; N];
                id.copy_from_slice(&message[1..]);
                Ok(id)
            } else {
                Err(format!(
                    "device {leader}, the leader of group {group:?}, could not make its id"
                ))
            }
        };
        out.push(Some(got.map(|id| (id, position))));
    }
    out
}

/// The devices of a program as the ranks of an MPI communicator: this process is device
/// [`MpiMesh::device`] of [`MpiMesh::devices`].
///
/// Making a mesh and running on it are collective: every rank of the communicator must do
/// the same, in the same order. The mesh borrows the universe, so it cannot outlive MPI.
pub struct MpiMesh<'u> {
    /// A duplicate of the communicator given: the mesh's messages never meet the caller's.
    comm: SimpleCommunicator,
    device: usize,
    devices: usize,
    /// A communicator per replica groups of more than one device, made once.
    groups: RefCell<HashMap<ReplicaGroups, SimpleCommunicator>>,
    /// How long an MPI call may wait for its peers before this process ends itself
    /// (`backend::watchdog`).
    timeout: std::time::Duration,
    universe: PhantomData<&'u Universe>,
}

impl<'u> MpiMesh<'u> {
    /// A mesh of every process of the job: device `r` is world rank `r`.
    pub fn world(universe: &'u Universe) -> Result<MpiMesh<'u>, RuntimeError> {
        MpiMesh::new(universe, &universe.world())
    }

    /// A mesh of the ranks of `comm` (rank `r` of it is device `r`), e.g. a part of the
    /// world split off with `split_by_color`, to run a smaller program beside others.
    /// Collective over `comm` (it is duplicated).
    pub fn new<C: Communicator>(
        _universe: &'u Universe,
        comm: &C,
    ) -> Result<MpiMesh<'u>, RuntimeError> {
        // The same on every rank, so a refusal leaves no rank waiting in the duplicate.
        enough_threading(mpi::environment::threading_support())?;
        let timeout = super::watchdog::timeout_from_env().map_err(RuntimeError::Mpi)?;
        let comm = comm.duplicate();
        Ok(MpiMesh {
            device: comm.rank() as usize,
            devices: comm.size() as usize,
            comm,
            groups: RefCell::new(HashMap::new()),
            timeout,
            universe: PhantomData,
        })
    }

    /// The mesh with another collective timeout: an MPI call of this mesh still waiting for
    /// its peers after `timeout` ends the process (exit 124) with a message naming the call
    /// and the ranks it waited for (default: `SHARDC_COLLECTIVE_TIMEOUT` seconds, else 10
    /// minutes).
    pub fn with_collective_timeout(mut self, timeout: std::time::Duration) -> MpiMesh<'u> {
        self.timeout = timeout;
        self
    }

    /// Runs the blocking MPI call `f` under the collective watchdog: `what` names it and
    /// `ranks` the peers it waits for.
    fn guarded<T>(
        &self,
        what: impl std::fmt::Display,
        ranks: &[usize],
        f: impl FnOnce() -> T,
    ) -> T {
        let peers: Vec<usize> = ranks
            .iter()
            .copied()
            .filter(|&r| r != self.device)
            .collect();
        super::watchdog::guard(
            self.timeout,
            format!("rank {}: {what}, waiting for ranks {peers:?},", self.device),
            f,
        )
    }

    /// Every rank of the mesh.
    fn all_ranks(&self) -> Vec<usize> {
        (0..self.devices).collect()
    }

    /// This process's device: its rank in the mesh's communicator.
    pub fn device(&self) -> usize {
        self.device
    }

    /// The number of devices: the size of the mesh's communicator.
    pub fn devices(&self) -> usize {
        self.devices
    }

    /// The mesh's communicator (a duplicate of the one it was made from), for exchanging
    /// data of the caller's own between the mesh's ranks.
    pub fn communicator(&self) -> &SimpleCommunicator {
        &self.comm
    }

    /// Collective: every rank reports how its local work went, and every rank gets the
    /// same outcome — `Ok` if every rank succeeded, else the error of the lowest rank that
    /// failed ([`RuntimeError::Remote`] on the others, with its text). Use it around work
    /// that may fail on some ranks only, before the next collective call.
    pub fn agree<T>(&self, local: Result<T, RuntimeError>) -> Result<T, RuntimeError> {
        match local {
            Ok(v) => self.settle(None).map(|()| v),
            Err(e) => Err(self.fail(0, e)),
        }
    }

    /// Runs `exe` on this rank's device with its arguments, overlapping communication with
    /// compute. Collective: every rank of the mesh calls it with the same executable.
    /// The report is the whole mesh's, on every rank: every device's results, the bytes
    /// every device sent per per-device op, every device's spans.
    pub fn run(&self, exe: &Executable, args: Vec<Literal>) -> Result<RunReport, RuntimeError> {
        self.run_with(exe, args, &RunOptions::default())
    }

    /// [`MpiMesh::run`] with run options (overlap on or off).
    pub fn run_with(
        &self,
        exe: &Executable,
        args: Vec<Literal>,
        options: &RunOptions,
    ) -> Result<RunReport, RuntimeError> {
        let (mine, mut report) = self.run_here(exe, args, options)?;
        report.outputs = self.gather_outputs(exe, mine);
        Ok(report)
    }

    /// [`MpiMesh::run_with`], with this device's results left here: gives them, and the
    /// whole mesh's report without results (its `outputs` are empty lists, one per device).
    /// A training loop feeds them to the next run without gathering them. Collective.
    pub fn run_here(
        &self,
        exe: &Executable,
        args: Vec<Literal>,
        options: &RunOptions,
    ) -> Result<(Vec<Literal>, RunReport), RuntimeError> {
        self.same_program(exe)?;
        // What each rank checks on its own, agreed on before any collective of the
        // program: a rank that cannot start must not leave the others waiting.
        let how = self.agree(self.check(exe, &args).and_then(|()| self.reductions(exe)))?;
        self.make_communicators(exe);

        self.guarded("the barrier that starts a run", &self.all_ranks(), || {
            self.comm.barrier()
        });
        let clock = Instant::now();
        let device = self.device;
        let (jobs_tx, jobs_rx) = channel::<Job>();
        let (computed, communicated) = thread::scope(|scope| {
            let spawned = thread::Builder::new()
                .name(format!("device {device} compute"))
                .spawn_scoped(scope, move || {
                    compute(
                        exe,
                        device,
                        args,
                        jobs_tx,
                        options,
                        clock,
                        &mut Buffers::default(),
                    )
                });
            // If the spawn failed, the job channel is closed and every per-device op runs
            // with zeros, so the other ranks do not wait.
            let communicated = self.communicate(exe, &how, jobs_rx, clock);
            let computed = match spawned {
                Ok(handle) => {
                    joined(handle.join()).map_err(|source| RuntimeError::Device { device, source })
                }
                Err(source) => Err(RuntimeError::Spawn { device, source }),
            };
            (computed, communicated)
        });
        let wall = clock.elapsed();
        let when_stopped = communicated.stopped_at.unwrap_or(exe.steps.len()) as u64;
        let outcome = match (computed, communicated.failure) {
            (Ok(computed), None) => Ok(computed),
            // Compute stopped because communication did: the communication's error.
            (
                Err(RuntimeError::Device {
                    source: DeviceError::CommunicationStopped,
                    ..
                })
                | Ok(_),
                Some((step, source)),
            ) => Err((step as u64, RuntimeError::Device { device, source })),
            (Err(e), _) => Err((when_stopped, e)),
        };
        let computed = match outcome {
            Ok(c) => {
                self.settle(None)?;
                c
            }
            Err((_, e)) if exe.has_loops() => {
                // The other ranks may be waiting in a collective of a loop this rank
                // will not reach: they cannot be told, only stopped.
                eprintln!(
                    "rank {device}: {e}\nrank {device}: the program has a loop whose body communicates, so the other ranks cannot finish without this one: ending the job"
                );
                self.comm.abort(1)
            }
            Err((when, e)) => return Err(self.fail(when, e)),
        };
        let per_step = self.gather_bytes(exe, &communicated.bytes);
        let mut peaks = vec![0u64; self.devices];
        self.comm
            .all_gather_into(&computed.peak_bytes, &mut peaks[..]);
        let mut spans = computed.spans;
        spans.extend(communicated.spans);
        let spans = self.gather_spans(&spans)?;
        let mut longest = wall.as_nanos() as u64;
        let mine = longest;
        self.comm
            .all_reduce_into(&mine, &mut longest, SystemOperation::max());
        let report = assemble(
            exe,
            vec![Vec::new(); self.devices],
            spans,
            per_step,
            &peaks,
            &computed.runs,
            Duration::from_nanos(longest),
        );
        Ok((computed.results, report))
    }

    /// Checks every rank prepared the same program (its per-device ops and argument
    /// types): ranks running different programs would wait on each other forever.
    pub(crate) fn same_program(&self, exe: &Executable) -> Result<(), RuntimeError> {
        let mine = fingerprint(exe);
        let mut all = vec![0u64; self.devices];
        self.guarded(
            "the check that every rank runs one program",
            &self.all_ranks(),
            || self.comm.all_gather_into(&mine, &mut all[..]),
        );
        match all.iter().position(|&f| f != all[0]) {
            None => Ok(()),
            Some(d) => Err(RuntimeError::Mpi(format!(
                "device {d} prepared another program than device 0 (its per-device ops or \
                 argument types differ); every rank must run the same executable, compiled \
                 from the same module with the same options (a compile stopped by a wall-time \
                 limit on some ranks only differs: `compiler::Options::deterministic`)"
            ))),
        }
    }

    /// What this rank checks on its own before a run.
    pub(crate) fn check(&self, exe: &Executable, args: &[Literal]) -> Result<(), RuntimeError> {
        if let Some(program) = exe.devices()
            && program != self.devices
        {
            return Err(RuntimeError::WorldSize {
                program,
                ranks: self.devices,
            });
        }
        for ex in exe.exchanges() {
            ex.check_mesh(self.devices)?;
        }
        exe.check_args(self.device, args)
    }

    /// How each reduction of the program runs in MPI, by step. The same on every rank.
    pub(crate) fn reductions(&self, exe: &Executable) -> Result<HashMap<usize, How>, RuntimeError> {
        let mut out = HashMap::new();
        for (step, s) in exe.steps.iter().enumerate() {
            let Planned::PerDevice { exchange, .. } = s else {
                continue;
            };
            if let Kind::AllReduce { reducer, .. } | Kind::ReduceScatter { reducer, .. } =
                &exchange.kind
            {
                let how = How::of(*reducer, exchange.result_ty.dtype).map_err(|problem| {
                    RuntimeError::Unsupported {
                        op: exchange.op.clone(),
                        at: exchange.at.clone(),
                        problem,
                    }
                })?;
                out.insert(step, how);
            }
        }
        Ok(out)
    }

    /// Splits a communicator off for every replica groups of the program that has none
    /// yet, in program order (collective: the same order on every rank).
    pub(crate) fn make_communicators(&self, exe: &Executable) {
        let mut cache = self.groups.borrow_mut();
        for ex in exe.exchanges() {
            let groups = match &ex.kind {
                Kind::AllReduce { groups, .. }
                | Kind::ReduceScatter { groups, .. }
                | Kind::AllGather { groups, .. }
                | Kind::AllToAll { groups, .. } => groups,
                Kind::Permute { .. } | Kind::ShardSlice { .. } | Kind::AxisIndex { .. } => {
                    continue;
                }
            };
            if groups.group_size() < 2 || cache.contains_key(groups) {
                continue;
            }
            // `check_mesh` put this device in exactly one group.
            let (index, position) = groups
                .0
                .iter()
                .enumerate()
                .find_map(|(i, g)| g.iter().position(|&d| d == self.device).map(|p| (i, p)))
                .unwrap_or((0, 0));
            let split = self.guarded(
                "the split of a replica group's communicator",
                &self.all_ranks(),
                || {
                    self.comm
                        .split_by_color_with_key(Color::with_value(index as i32), position as i32)
                },
            );
            if let Some(c) = split {
                cache.insert(groups.clone(), c);
            }
        }
    }

    /// [`MpiMesh::settle`] for a rank that failed: the error every rank reports.
    pub(crate) fn fail(&self, when: u64, e: RuntimeError) -> RuntimeError {
        match self.settle(Some((when, e))) {
            Err(e) => e,
            Ok(()) => RuntimeError::Mpi(
                "the ranks did not see this rank's failure (a bug in the backend)".into(),
            ),
        }
    }

    /// Collective: the ranks agree on whether any failed (`failed`: when, in program
    /// order, and why). `Ok` if none did; else every rank gets the error of the rank that
    /// failed earliest (then the lowest rank): its own error on that rank,
    /// [`RuntimeError::Remote`] with the same text on the others.
    pub(crate) fn settle(&self, failed: Option<(u64, RuntimeError)>) -> Result<(), RuntimeError> {
        let key = failed.as_ref().map_or(u64::MAX, |(when, _)| *when);
        let mut keys = vec![0u64; self.devices];
        self.guarded(
            "the agreement on failures after a run",
            &self.all_ranks(),
            || self.comm.all_gather_into(&key, &mut keys[..]),
        );
        let Some((root, &first)) = keys.iter().enumerate().min_by_key(|&(r, k)| (*k, r)) else {
            return Ok(());
        };
        if first == u64::MAX {
            return Ok(());
        }
        let message = failed
            .as_ref()
            .map(|(_, e)| e.to_string())
            .unwrap_or_default();
        let process = self.comm.process_at_rank(root as i32);
        let mut len = message.len() as u64;
        let mut bytes = Vec::new();
        self.guarded(
            "the broadcast of a rank's failure",
            &self.all_ranks(),
            || {
                process.broadcast_into(&mut len);
                bytes = if root == self.device {
                    message.into_bytes()
                } else {
                    vec![0u8; len as usize]
                };
                process.broadcast_into(&mut bytes[..]);
            },
        );
        match failed {
            Some((_, e)) if root == self.device => Err(e),
            _ => Err(RuntimeError::Remote {
                device: root,
                message: String::from_utf8_lossy(&bytes).into_owned(),
            }),
        }
    }

    /// The communication side: every per-device op in program order, each an MPI call
    /// (or a local one). Once the device has failed (compute stopped, or an op could not
    /// run here), it goes on taking part in every op with zeros, so no rank waits forever.
    fn communicate(
        &self,
        exe: &Executable,
        how: &HashMap<usize, How>,
        jobs: Receiver<Job>,
        clock: Instant,
    ) -> Communicated {
        if exe.has_loops() {
            return self.communicate_as_asked(exe, how, jobs, clock);
        }
        let groups = self.groups.borrow();
        let mut comm = Communication::new(exe, self.device, clock);
        let mut jobs = Some(jobs);
        let mut failure: Option<(usize, DeviceError)> = None;
        let mut stopped_at = None;
        for (step, planned) in exe.steps.iter().enumerate() {
            let Planned::PerDevice { exchange, .. } = planned else {
                continue;
            };
            if planned.runs_on_compute() {
                continue;
            }
            let job = match (&failure, &jobs) {
                (None, Some(rx)) => rx.recv().ok(),
                _ => None,
            };
            let job = match job {
                Some(job) if job.step == step => Some(job),
                Some(job) => {
                    failure = Some((
                        step,
                        DeviceError::Internal(format!(
                            "compute handed over step {} where step {step} was due",
                            job.step
                        )),
                    ));
                    None
                }
                None => {
                    if failure.is_none() && stopped_at.is_none() {
                        stopped_at = Some(step);
                    }
                    None
                }
            };
            let ctx = Context {
                mesh: self,
                groups: &groups,
                how: how.get(&step),
            };
            let Some(Job { input, reply, .. }) = job else {
                // Dropping the queued jobs closes their replies: a compute thread waiting
                // for one stops.
                jobs = None;
                let zeros = zeros_operand(exe, exchange);
                let _ = ctx.exchange(exchange, zeros.as_ref());
                continue;
            };
            let start = clock.elapsed();
            let outcome = match comm.input(step, input.as_ref()) {
                Ok(x) => ctx.exchange(exchange, x),
                Err(e) => {
                    let zeros = zeros_operand(exe, exchange);
                    let _ = ctx.exchange(exchange, zeros.as_ref());
                    Err(e)
                }
            };
            let finished =
                outcome.and_then(|(out, sent)| comm.finish(step, out, sent, start, reply));
            if let Err(e) = finished {
                failure = Some((step, e));
                jobs = None;
            }
        }
        Communicated {
            spans: comm.spans,
            bytes: comm.bytes,
            failure,
            stopped_at,
        }
    }

    /// [`MpiMesh::communicate`] for a program with loops whose bodies communicate: the
    /// per-device ops in the order compute hands them over (how often a loop's run
    /// depends on values). A rank that fails cannot take part in the ops it would have
    /// run (their number is not known ahead), so the run ends at its first failure
    /// ([`MpiMesh::run_here`] ends the job).
    fn communicate_as_asked(
        &self,
        exe: &Executable,
        how: &HashMap<usize, How>,
        jobs: Receiver<Job>,
        clock: Instant,
    ) -> Communicated {
        let groups = self.groups.borrow();
        let mut comm = Communication::new(exe, self.device, clock);
        let mut failure = None;
        for Job {
            step, input, reply, ..
        } in jobs
        {
            let ctx = Context {
                mesh: self,
                groups: &groups,
                how: how.get(&step),
            };
            let start = clock.elapsed();
            let finished = comm
                .exchange(step)
                .and_then(|exchange| {
                    let x = comm.input(step, input.as_ref())?;
                    ctx.exchange(exchange, x)
                })
                .and_then(|(out, sent)| comm.finish(step, out, sent, start, reply));
            if let Err(e) = finished {
                failure = Some((step, e));
                break;
            }
        }
        Communicated {
            spans: comm.spans,
            bytes: comm.bytes,
            failure,
            stopped_at: None,
        }
    }

    /// Runs the per-device op `ex` at `step` of a program on this rank's device with MPI,
    /// its operand `input` (zeros where `None`): the result and the bytes the ring
    /// algorithm would send. For a device whose values are elsewhere (the cuda backend's
    /// one process per GPU stages collectives through host memory this way). Needs the
    /// communicators of [`MpiMesh::make_communicators`] and the reductions of
    /// [`MpiMesh::reductions`].
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn exchange(
        &self,
        how: &HashMap<usize, How>,
        step: usize,
        ex: &Exchange,
        input: Option<&Literal>,
    ) -> Result<(Literal, u64), DeviceError> {
        let groups = self.groups.borrow();
        let ctx = Context {
            mesh: self,
            groups: &groups,
            how: how.get(&step),
        };
        ctx.exchange(ex, input)
    }

    /// Every device's results, on every rank (the types are the program's, the same on
    /// every device, so each result is one all-gather of fixed-size pieces).
    pub(crate) fn gather_outputs(&self, exe: &Executable, mine: Vec<Literal>) -> Vec<Vec<Literal>> {
        let n = self.devices;
        let mut outputs: Vec<Vec<Literal>> = vec![Vec::with_capacity(mine.len()); n];
        for (k, l) in mine.into_iter().enumerate() {
            let ty = &exe.value_types[exe.results[k].index()];
            for (d, piece) in self.gather_piece(ty, &l).into_iter().enumerate() {
                outputs[d].push(piece);
            }
        }
        outputs
    }

    /// The bytes rank `root` gives, on every rank (`mine` is read on `root` only): the
    /// length, then the bytes, broadcast. Collective.
    pub fn broadcast_bytes(&self, root: usize, mine: Vec<u8>) -> Vec<u8> {
        let process = self.comm.process_at_rank(root as i32);
        let mut len = mine.len() as u64;
        self.guarded(
            format!("the broadcast of rank {root}'s bytes"),
            &self.all_ranks(),
            || {
                process.broadcast_into(&mut len);
                let mut bytes = if root == self.device {
                    mine
                } else {
                    vec![0u8; len as usize]
                };
                process.broadcast_into(&mut bytes[..]);
                bytes
            },
        )
    }

    /// Every device's piece of one value of per-device type `ty` (the same on every
    /// device), by device, on every rank: one all-gather. Collective.
    pub fn gather_piece(&self, ty: &TensorType, mine: &Literal) -> Vec<Literal> {
        let all = self.guarded("the gather of a result's pieces", &self.all_ranks(), || {
            typed!(&mine.to_dense().elements, |v| all_gather(&self.comm, v))
        });
        split_even(&all, self.devices)
            .into_iter()
            .map(|elements| Literal {
                ty: ty.clone(),
                elements,
            })
            .collect()
    }

    /// The bytes every device sent per step: `per_step[step][device]`.
    pub(crate) fn gather_bytes(&self, exe: &Executable, mine: &[u64]) -> Vec<Vec<u64>> {
        let steps = exe.steps.len();
        let mut all = vec![0u64; steps * self.devices];
        if steps > 0 {
            self.guarded("the gather of the bytes sent", &self.all_ranks(), || {
                self.comm.all_gather_into(mine, &mut all[..])
            });
        }
        (0..steps)
            .map(|s| (0..self.devices).map(|d| all[d * steps + s]).collect())
            .collect()
    }

    /// Every device's spans, on every rank (times since each rank's start of the run,
    /// which a barrier aligns).
    pub(crate) fn gather_spans(&self, mine: &[Span]) -> Result<Vec<Span>, RuntimeError> {
        let bytes = serde_json::to_vec(mine)
            .map_err(|e| RuntimeError::Mpi(format!("cannot encode the spans: {e}")))?;
        let mut counts = vec![0 as mpi::Count; self.devices];
        self.guarded("the gather of the trace", &self.all_ranks(), || {
            self.comm
                .all_gather_into(&(bytes.len() as mpi::Count), &mut counts[..])
        });
        let displs: Vec<mpi::Count> = counts
            .iter()
            .scan(0, |acc, &c| {
                let d = *acc;
                *acc += c;
                Some(d)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.guarded("the gather of the trace", &self.all_ranks(), || {
                self.comm
                    .all_gather_varcount_into(&bytes[..], &mut partition)
            });
        }
        let mut spans = Vec::new();
        for (d, (&at, &len)) in displs.iter().zip(&counts).enumerate() {
            let part = &all[at as usize..(at + len) as usize];
            let theirs: Vec<Span> = serde_json::from_slice(part).map_err(|e| {
                RuntimeError::Mpi(format!("the spans of device {d} do not decode: {e}"))
            })?;
            spans.extend(theirs);
        }
        Ok(spans)
    }
}

/// What the communication side gives back.
struct Communicated {
    spans: Vec<Span>,
    bytes: Vec<u64>,
    /// The first per-device op this device could not run, and why.
    failure: Option<(usize, DeviceError)>,
    /// The step at which compute was found stopped (it failed before it).
    stopped_at: Option<usize>,
}

/// A hash of what every rank must agree on: the function's argument types and its
/// per-device ops (kind, value, result type, groups, reducer, dimensions), in order.
fn fingerprint(exe: &Executable) -> u64 {
    let mut h = DefaultHasher::new();
    exe.func.hash(&mut h);
    for t in &exe.arg_types {
        t.to_string().hash(&mut h);
    }
    // Where loops go round (ranks must go round the same loops together).
    for (i, s) in exe.steps.iter().enumerate() {
        if let Planned::Control(c) = s {
            (i, format!("{c:?}")).hash(&mut h);
        }
    }
    for ex in exe.exchanges() {
        ex.op.hash(&mut h);
        ex.at.hash(&mut h);
        ex.result_ty.to_string().hash(&mut h);
        ex.groups().hash(&mut h);
        // The reducer, and which dimension is cut (the first element of each block).
        let blocks = match &ex.kind {
            Kind::AllReduce { reducer, .. } => {
                reducer.name().hash(&mut h);
                vec![]
            }
            Kind::ReduceScatter {
                reducer, blocks, ..
            } => {
                reducer.name().hash(&mut h);
                vec![blocks]
            }
            Kind::AllGather { blocks, .. } | Kind::ShardSlice { blocks, .. } => vec![blocks],
            Kind::AllToAll { split, join, .. } => vec![split, join],
            Kind::Permute { .. } | Kind::AxisIndex { .. } => vec![],
        };
        for b in blocks {
            for part in b.parts() {
                (part.len(), part.first()).hash(&mut h);
            }
        }
    }
    h.finish()
}

/// Zeros of an op's operand type, for a device that has failed but still takes part.
fn zeros_operand(exe: &Executable, ex: &Exchange) -> Option<Literal> {
    ex.operand.map(|v| zeros_of(&exe.value_types[v.index()]))
}

fn zeros_of(t: &TensorType) -> Literal {
    Literal {
        ty: t.clone(),
        elements: Elements::zeros(t.dtype, t.num_elements()),
    }
}

/// `x` cut into `n` runs of equal length.
fn split_even(x: &Elements, n: usize) -> Vec<Elements> {
    runs(x.len(), n.max(1))
        .into_iter()
        .map(|r| slice(x, r))
        .collect()
}

/// How a reduction runs in MPI.
#[derive(Clone, Copy)]
pub(crate) enum How {
    /// A built-in operation on the element type.
    System(SystemOperation),
    /// A built-in operation on the integers' unsigned twins: sums and products wrap.
    Unsigned(SystemOperation),
    /// A user-defined operation applying the reference interpreter's op.
    Exact(BinaryOp, DType),
}

impl How {
    fn of(reducer: BinaryOp, dtype: DType) -> Result<How, String> {
        use BinaryOp::*;
        let how = match (dtype, reducer) {
            (DType::F32 | DType::F64, Add) => How::System(SystemOperation::sum()),
            (DType::F32 | DType::F64, Multiply) => How::System(SystemOperation::product()),
            (DType::F32 | DType::F64 | DType::BF16 | DType::F16, Maximum | Minimum)
            | (DType::BF16 | DType::F16, Add | Multiply) => How::Exact(reducer, dtype),
            (d, Add) if d.is_signed_int() => How::Unsigned(SystemOperation::sum()),
            (d, Multiply) if d.is_signed_int() => How::Unsigned(SystemOperation::product()),
            // Unsigned sums and products wrap in MPI's (C's) arithmetic as in the reference.
            (d, Add) if d.is_unsigned() => How::System(SystemOperation::sum()),
            (d, Multiply) if d.is_unsigned() => How::System(SystemOperation::product()),
            (d, Maximum) if d.is_int() => How::System(SystemOperation::max()),
            (d, Minimum) if d.is_int() => How::System(SystemOperation::min()),
            (d, And) if d.is_int() => How::System(SystemOperation::bitwise_and()),
            (d, Or) if d.is_int() => How::System(SystemOperation::bitwise_or()),
            (d, Xor) if d.is_int() => How::System(SystemOperation::bitwise_xor()),
            (DType::I1, Add | Maximum | Or) => How::System(SystemOperation::logical_or()),
            (DType::I1, Multiply | Minimum | And) => How::System(SystemOperation::logical_and()),
            (DType::I1, Xor) => How::System(SystemOperation::logical_xor()),
            _ => {
                return Err(format!(
                    "its reducer stablehlo.{} is not defined on {dtype}",
                    reducer.name()
                ));
            }
        };
        Ok(how)
    }
}

/// What one per-device op needs from the mesh.
struct Context<'a, 'u> {
    mesh: &'a MpiMesh<'u>,
    groups: &'a HashMap<ReplicaGroups, SimpleCommunicator>,
    how: Option<&'a How>,
}

/// The local ops send nothing: a link that refuses.
struct NoLink;

impl Link for NoLink {
    fn send(&mut self, _: usize, _: Elements) -> Result<(), LinkError> {
        Err(LinkError::Protocol("a local op sent a message".into()))
    }
    fn recv(&mut self, _: usize) -> Result<Elements, LinkError> {
        Err(LinkError::Protocol(
            "a local op waited for a message".into(),
        ))
    }
}

impl Context<'_, '_> {
    /// Runs one per-device op on this device: its result and the bytes the ring algorithm
    /// would send. Every MPI call the op needs is made whatever the operand (a missing or
    /// misfit operand is replaced by zeros and reported after the call), so the other
    /// ranks never wait on this one.
    fn exchange(
        &self,
        ex: &Exchange,
        input: Option<&Literal>,
    ) -> Result<(Literal, u64), DeviceError> {
        let device = self.mesh.device;
        if let Kind::ShardSlice { .. } | Kind::AxisIndex { .. } = ex.kind {
            return ex.run(device, input, &mut NoLink);
        }
        let dtype = ex.result_ty.dtype;
        let want = operand_len(ex);
        let (x, misfit) = match input.map(|l| l.to_dense().elements) {
            Some(x) if x.len() == want && x.dtype() == dtype => (x, None),
            Some(x) => (
                Elements::zeros(dtype, want),
                Some(format!(
                    "its operand holds {} {} elements where {want} {dtype} were expected",
                    x.len(),
                    x.dtype()
                )),
            ),
            None => (Elements::zeros(dtype, want), None),
        };
        let out = self.call(ex, x);
        if let Some(problem) = misfit {
            return Err(ex.error(problem));
        }
        let out = out.map_err(|p| ex.error(p))?;
        let result = Literal::new(ex.result_ty.clone(), out)
            .map_err(|e| ex.error(format!("its result does not fit its type: {e}")))?;
        Ok((result, ex.ring_bytes(device)))
    }

    /// The communicator of `groups`, `None` for groups of one device.
    fn group(&self, groups: &ReplicaGroups) -> Result<Option<&SimpleCommunicator>, String> {
        if groups.group_size() < 2 {
            return Ok(None);
        }
        self.groups
            .get(groups)
            .map(Some)
            .ok_or_else(|| "its replica groups have no communicator (a bug in the backend)".into())
    }

    /// The MPI calls of an op on operand `x`, under the collective watchdog.
    fn call(&self, ex: &Exchange, x: Elements) -> Result<Elements, String> {
        let device = self.mesh.device;
        let group: Vec<usize> = if ex.is_permute() {
            ex.groups()
                .into_iter()
                .filter(|pair| pair.contains(&device))
                .flatten()
                .collect()
        } else {
            ex.groups()
                .into_iter()
                .find(|g| g.contains(&device))
                .unwrap_or_default()
        };
        self.mesh
            .guarded(format!("{} {}", ex.op, ex.at), &group, || {
                self.call_now(ex, x)
            })
    }

    fn call_now(&self, ex: &Exchange, x: Elements) -> Result<Elements, String> {
        if let Some(c) = ex.compression() {
            return Err(format!(
                "it is compressed ({}), which the cpu backend runs and the mpi backend does not (its all-reduce is one MPI_Allreduce); compile without compression (Options::compress) for mpi",
                c.attribute()
            ));
        }
        match &ex.kind {
            Kind::AllReduce { groups, .. } => {
                let Some(comm) = self.group(groups)? else {
                    return Ok(x);
                };
                self.reduce(comm, &x, false)
            }
            Kind::ReduceScatter { groups, blocks, .. } => {
                let Some(comm) = self.group(groups)? else {
                    return Ok(x);
                };
                // Block j of the scatter dimension, laid end to end, for member j.
                let n = groups.group_size();
                let packed = concat(&(0..n).map(|j| blocks.cut(&x, j)).collect::<Vec<_>>())
                    .ok_or("its blocks differ in dtype")?;
                self.reduce(comm, &packed, true)
            }
            Kind::AllGather { groups, blocks, .. } => {
                let Some(comm) = self.group(groups)? else {
                    return Ok(x);
                };
                let all = typed!(&x, |v| all_gather(comm, v));
                blocks
                    .join(&split_even(&all, groups.group_size()))
                    .ok_or_else(|| "the gathered pieces do not fit".into())
            }
            Kind::AllToAll {
                groups,
                split,
                join,
            } => {
                let Some(comm) = self.group(groups)? else {
                    return Ok(x);
                };
                let n = groups.group_size();
                let packed = concat(&(0..n).map(|j| split.cut(&x, j)).collect::<Vec<_>>())
                    .ok_or("its blocks differ in dtype")?;
                let received = typed!(&packed, |v| all_to_all(comm, v));
                join.join(&split_even(&received, n))
                    .ok_or_else(|| "the received blocks do not fit".into())
            }
            Kind::Permute { pairs } => {
                let me = self.mesh.device;
                let to = pairs.iter().find(|p| p.0 == me && p.1 != me).map(|p| p.1);
                let from = pairs.iter().find(|p| p.1 == me).map(|p| p.0);
                let comm = &self.mesh.comm;
                Ok(typed!(&x, |v| permute(comm, v, to, from, me)))
            }
            Kind::ShardSlice { .. } | Kind::AxisIndex { .. } => {
                Err("a local op reached MPI (a bug in the backend)".into())
            }
        }
    }

    /// An all-reduce (or, with `scatter`, a reduce-scatter of equal blocks) of `x`.
    fn reduce(
        &self,
        comm: &SimpleCommunicator,
        x: &Elements,
        scatter: bool,
    ) -> Result<Elements, String> {
        let how = self
            .how
            .ok_or("its reduction was not prepared (a bug in the backend)")?;
        Ok(match *how {
            How::System(op) => typed!(x, |v| reduce_with(comm, v, op, scatter)),
            How::Unsigned(op) => match x {
                Elements::I32(v) => {
                    let u: Vec<u32> = v.iter().map(|&a| a as u32).collect();
                    let r = reduce_with(comm, &u, op, scatter);
                    Elements::I32(r.into_iter().map(|a| a as i32).collect())
                }
                Elements::I64(v) => {
                    let u: Vec<u64> = v.iter().map(|&a| a as u64).collect();
                    let r = reduce_with(comm, &u, op, scatter);
                    Elements::I64(r.into_iter().map(|a| a as i64).collect())
                }
                Elements::I8(v) => {
                    let u: Vec<u8> = v.iter().map(|&a| a as u8).collect();
                    let r = reduce_with(comm, &u, op, scatter);
                    Elements::I8(r.into_iter().map(|a| a as i8).collect())
                }
                Elements::I16(v) => {
                    let u: Vec<u16> = v.iter().map(|&a| a as u16).collect();
                    let r = reduce_with(comm, &u, op, scatter);
                    Elements::I16(r.into_iter().map(|a| a as i16).collect())
                }
                other => typed!(other, |v| reduce_with(comm, v, op, scatter)),
            },
            How::Exact(op, dtype) => {
                let f = exact_function(op, dtype)
                    .ok_or("its reduction has no exact MPI operation (a bug in the backend)")?;
                // SAFETY: `fold_raw` reads and writes `*len` elements of the type its
                // parameters name at the two pointers MPI passes, and `typed!` hands MPI
                // buffers of exactly that type (bf16 and f16 as u16); it never unwinds.
                let user = unsafe { UnsafeUserOperation::commutative(f) };
                typed!(x, |v| reduce_with(comm, v, &user, scatter))
            }
        })
    }
}

/// The operand's element count, from the op's result type.
fn operand_len(ex: &Exchange) -> usize {
    let len = ex.result_ty.num_elements();
    match &ex.kind {
        Kind::ReduceScatter { groups, .. } => len * groups.group_size().max(1),
        Kind::AllGather { groups, .. } => len / groups.group_size().max(1),
        _ => len,
    }
}

/// The reducers [`How::Exact`] runs, as codes for [`fold_raw`]'s parameters.
const EXACT_OPS: [BinaryOp; 4] = [
    BinaryOp::Add,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
];
const EXACT_TYPES: [DType; 4] = [DType::F32, DType::F64, DType::BF16, DType::F16];

/// The MPI user function folding `dtype` elements with `op` exactly.
fn exact_function(op: BinaryOp, dtype: DType) -> Option<UnsafeUserFunction> {
    let o = EXACT_OPS.iter().position(|&e| e == op)?;
    let t = EXACT_TYPES.iter().position(|&e| e == dtype)?;
    macro_rules! table {
        ($($t:literal: $($o:literal)*;)*) => {
            match (t, o) {
                $($(($t, $o) => Some(fold_raw::<$t, $o> as UnsafeUserFunction),)*)*
                _ => None,
            }
        };
    }
    table! {
        0: 0 1 2 3;
        1: 0 1 2 3;
        2: 0 1 2 3;
        3: 0 1 2 3;
    }
}

/// MPI's user function for reducer `EXACT_OPS[OP]` on `EXACT_TYPES[DT]` (bf16 and f16 as
/// their 16-bit patterns): `inout[i] = in[i] op inout[i]` by the reference interpreter's
/// semantics ([`zip_elements`]).
///
/// # Safety
///
/// MPI calls it with `*len` elements of the operation's datatype at `invec` and
/// `inoutvec`; the backend uses it only on buffers of `EXACT_TYPES[DT]`'s MPI type. The
/// elements are read and written unaligned, so the pointers need no alignment.
unsafe extern "C" fn fold_raw<const DT: usize, const OP: usize>(
    invec: *mut std::ffi::c_void,
    inoutvec: *mut std::ffi::c_void,
    len: *mut std::ffi::c_int,
    _: *mut mpi::ffi::MPI_Datatype,
) {
    // SAFETY: `len` points at the element count (MPI's contract); a null one means none.
    let n = if len.is_null() {
        0
    } else {
        unsafe { *len }.max(0) as usize
    };
    if n == 0 || invec.is_null() || inoutvec.is_null() {
        return;
    }
    macro_rules! fold_as {
        ($raw:ty, $variant:ident, $to:expr, $from:expr) => {{
            let (a, b) = (invec as *const $raw, inoutvec as *mut $raw);
            // SAFETY: both buffers hold `n` elements of `$raw` (see the function's contract).
            let read = |p: *const $raw| -> Vec<_> {
                (0..n)
                    .map(|i| $to(unsafe { p.add(i).read_unaligned() }))
                    .collect()
            };
            let x = Elements::$variant(read(a));
            let y = Elements::$variant(read(b));
            match zip_elements(EXACT_OPS[OP], &x, &y) {
                Some(Elements::$variant(z)) => {
                    for (i, z) in z.into_iter().enumerate() {
                        // SAFETY: as above; `i < n`.
                        unsafe { b.add(i).write_unaligned($from(z)) };
                    }
                    true
                }
                _ => false,
            }
        }};
    }
    let folded = match EXACT_TYPES[DT] {
        DType::F32 => fold_as!(f32, F32, |v| v, |v| v),
        DType::F64 => fold_as!(f64, F64, |v| v, |v| v),
        DType::BF16 => fold_as!(u16, BF16, bf16::from_bits, |v: bf16| v.to_bits()),
        DType::F16 => fold_as!(u16, F16, f16::from_bits, |v: f16| v.to_bits()),
        _ => false,
    };
    if !folded {
        // Nothing can be returned from MPI's callback, and unwinding out of it is not
        // allowed; `How::of` only picks defined pairs, so this is a bug.
        eprintln!(
            "shardc mpi backend: stablehlo.{} is not defined on {} (a bug); aborting",
            EXACT_OPS[OP].name(),
            EXACT_TYPES[DT]
        );
        std::process::abort();
    }
}

fn reduce_with<T, O>(comm: &SimpleCommunicator, x: &[T], op: O, scatter: bool) -> Vec<T>
where
    T: Equivalence + Default + Clone,
    O: mpi::collective::Operation,
{
    if scatter {
        let mut out = vec![T::default(); x.len() / comm.size() as usize];
        comm.reduce_scatter_block_into(x, &mut out[..], op);
        out
    } else {
        let mut out = vec![T::default(); x.len()];
        comm.all_reduce_into(x, &mut out[..], op);
        out
    }
}

/// Every member's `mine`, laid end to end in rank (group) order.
fn all_gather<T: Equivalence + Default + Clone>(comm: &SimpleCommunicator, mine: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); mine.len() * comm.size() as usize];
    comm.all_gather_into(mine, &mut out[..]);
    out
}

/// Block `j` of `x` (its `n` equal runs) to member `j`; what member `j` sent as block `j`
/// of the result.
fn all_to_all<T: Equivalence + Default + Clone>(comm: &SimpleCommunicator, x: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); x.len()];
    comm.all_to_all_into(x, &mut out[..]);
    out
}

/// Sends `x` to `to`, receives from `from`: this device's piece if it is its own source,
/// zeros if no pair targets it.
fn permute<T: Equivalence + Default + Clone>(
    comm: &SimpleCommunicator,
    x: &[T],
    to: Option<usize>,
    from: Option<usize>,
    me: usize,
) -> Vec<T> {
    let mut buf = vec![T::default(); x.len()];
    match (to, from.filter(|&s| s != me)) {
        (Some(t), Some(s)) => {
            send_receive_into(
                x,
                &comm.process_at_rank(t as i32),
                &mut buf[..],
                &comm.process_at_rank(s as i32),
            );
        }
        (Some(t), None) => comm.process_at_rank(t as i32).send(x),
        (None, Some(s)) => {
            comm.process_at_rank(s as i32).receive_into(&mut buf[..]);
        }
        (None, None) => {}
    }
    match from {
        Some(s) if s == me => x.to_vec(),
        _ => buf,
    }
}
