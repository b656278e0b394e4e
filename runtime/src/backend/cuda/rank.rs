//! `CudaMpiMesh`: one MPI process per GPU, on one node or many (features `cuda` and `mpi`).
//!
//! Under `mpirun -n N`, rank `r` of the mesh's communicator is logical device `r` (as on
//! the mpi backend) and runs only its own device's steps, on GPU `l % g` of its node (`l`
//! its rank among the mesh's ranks on the node, `MPI_Comm_split_type(SHARED)`; `g` the
//! GPUs the driver shows the process). The device's run is the one a thread of
//! [`CudaMesh`](super::CudaMesh) makes ([`super::mesh::run_device`]): the same programs,
//! buffers, launches and NCCL calls; only the collectives staged through host memory and
//! the agreement on failures differ.
//!
//! **Collectives.** Through NCCL when every rank has `libnccl` and no two ranks of a node
//! share a GPU (NCCL refuses a GPU twice in a communicator; compared by GPU UUID, so
//! launchers that give each rank its own `CUDA_VISIBLE_DEVICES` are seen right), else
//! staged through host memory over MPI: the operand downloaded, the mpi backend's
//! exchange (`MpiMesh`'s per-device op: `MPI_Allreduce`, `MPI_Allgather`, ... on the
//! group's communicator), the result uploaded. Ops NCCL cannot compute as the reference
//! does (float `maximum`/`minimum`, bitwise reductions) take that path op by op, as on
//! `CudaMesh`.
//!
//! **Communicators.** One NCCL communicator per device group the program's NCCL ops use
//! ([`plan::communicators`]: each replica group, the whole mesh for permutes), made when a
//! run first needs it, in program order on every rank, and kept: the group's first member
//! calls `ncclGetUniqueId`, the 128-byte id goes to the other members over MPI
//! ([`share_ids`]), and each member calls `ncclCommInitRank(group size, id, its position)`.
//!
//! **Failures.** What each rank checks alone — the driver, its GPU, the program's PTX
//! against the GPU, its arguments, the NCCL id — is agreed before any collective
//! ([`MpiMesh::agree`]): every rank returns the same error, naming the device (rank) and
//! host that failed. A device that fails during the run goes on taking part in every
//! collective it has not made yet, with zeros, so the calls of its peers complete, and
//! the ranks then agree on the outcome as on the mpi backend. A rank that cannot take
//! part any more (its GPU fails under it, `ncclCommInitRank` fails while the other members
//! may wait in it) prints why and ends the whole job with `MPI_Abort`: no rank is left
//! waiting.

use super::driver::{self, DriverInfo, Loaded, guarded};
use super::mesh::{
    Comm, Device, HostStage, Place, Progress, Shared, gpu_programs, nccl_text, run_device,
    target_for,
};
use super::plan::{self, Collectives, Route};
use super::{CudaOptions, GpuProgram};
use crate::backend::device::{assemble, joined};
use crate::backend::mpi::rsmpi::collective::SystemOperation;
use crate::backend::mpi::rsmpi::traits::*;
use crate::backend::mpi::{How, MpiMesh, share_ids};
use crate::backend::{
    DeviceError, Exchange, Executable, Planned, RunOptions, RunReport, RuntimeError,
};
use cudarc::driver::result;
use cudarc::nccl::{result as nccl, sys as nccl_sys};
use shardc_ir::Literal;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The bytes of an NCCL unique id (`NCCL_UNIQUE_ID_BYTES`).
const ID_BYTES: usize = 128;

/// One logical device per MPI process, on a GPU of its node: this process is device
/// [`CudaMpiMesh::device`] of [`CudaMpiMesh::devices`], on local GPU
/// [`CudaMpiMesh::gpu`].
///
/// Making a mesh and running on it are collective: every rank of the communicator does the
/// same, in the same order, from the thread that initialized MPI.
pub struct CudaMpiMesh<'u> {
    mpi: MpiMesh<'u>,
    host: String,
    /// This rank's position among the mesh's ranks on its node, and their number.
    local: (usize, usize),
    gpu: usize,
    info: DriverInfo,
    place: Place,
    /// The lowest compute capability and driver version among the mesh's ranks.
    lowest: ((u32, u32), i32),
    mode: Collectives,
    loaded: RefCell<HashMap<u64, Arc<Loaded>>>,
    /// The NCCL communicator of each group this device is in, and its position there, in
    /// the order they were made (the same on every rank; destroyed in that order).
    comms: RefCell<Vec<(Vec<usize>, Comm, usize)>>,
    /// Every group whose communicators were made (by its members): the same on every rank.
    made: RefCell<HashSet<Vec<usize>>>,
}

impl std::fmt::Debug for CudaMpiMesh<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaMpiMesh")
            .field("device", &self.mpi.device())
            .field("devices", &self.mpi.devices())
            .field("host", &self.host)
            .field("gpu", &self.gpu)
            .field("collectives", &self.mode)
            .finish_non_exhaustive()
    }
}

/// Why a rank cannot take part in NCCL collectives, as a code every rank can gather.
const NCCL_OK: u8 = 0;
const NO_NCCL: u8 = 1;
const SHARED_GPU: u8 = 2;

impl<'u> CudaMpiMesh<'u> {
    /// A mesh of every process of the job: device `r` is world rank `r`.
    pub fn world(
        universe: &'u crate::backend::mpi::rsmpi::environment::Universe,
        options: &CudaOptions,
    ) -> Result<CudaMpiMesh<'u>, RuntimeError> {
        CudaMpiMesh::new(universe, &universe.world(), options)
    }

    /// A mesh of the ranks of `comm` (rank `r` of it is device `r`). Collective over
    /// `comm`: every rank gets the mesh, or the same error — the first rank (lowest) that
    /// could not open its GPU, named with its host: `device 2 (MPI rank 2 on node7): no
    /// CUDA driver found ...`.
    pub fn new<C: Communicator>(
        universe: &'u crate::backend::mpi::rsmpi::environment::Universe,
        comm: &C,
        options: &CudaOptions,
    ) -> Result<CudaMpiMesh<'u>, RuntimeError> {
        let mpi = MpiMesh::new(universe, comm)?;
        let device = mpi.device();
        let host = crate::backend::mpi::rsmpi::environment::processor_name()
            .unwrap_or_else(|_| "an unnamed host".into());
        let node = mpi.communicator().split_shared(device as i32);
        let local = (node.rank() as usize, node.size() as usize);
        let named = |e: RuntimeError| RuntimeError::Remote {
            device,
            message: format!("device {device} (MPI rank {device} on {host}): {e}"),
        };
        let opened = open(local.0).map_err(named);
        let (info, gpu, place, uuid) = mpi.agree(opened)?;

        // Which ranks can take part in NCCL: libnccl loads, and no other rank of the node
        // has the same GPU (compared by UUID).
        let mut uuids = vec![0u8; 16 * local.1];
        node.all_gather_into(&uuid[..], &mut uuids[..]);
        let mine = readiness(info.nccl.is_some(), &uuids, local.0);
        let world = mpi.communicator();
        let mut codes = vec![0u8; mpi.devices()];
        world.all_gather_into(&mine, &mut codes[..]);
        let g = &info.gpus[gpu];
        let cc = g.capability.0 * 1000 + g.capability.1;
        let mut lowest_cc = cc;
        world.all_reduce_into(&cc, &mut lowest_cc, SystemOperation::min());
        let mut lowest_version = info.version;
        world.all_reduce_into(&info.version, &mut lowest_version, SystemOperation::min());
        let lowest = ((lowest_cc / 1000, lowest_cc % 1000), lowest_version);

        // Decided from what every rank gathered: the same on every rank.
        let mode = decide(options.collectives, &codes)?;
        Ok(CudaMpiMesh {
            mpi,
            host,
            local,
            gpu,
            info,
            place,
            lowest,
            mode,
            loaded: RefCell::new(HashMap::new()),
            comms: RefCell::new(Vec::new()),
            made: RefCell::new(HashSet::new()),
        })
    }

    /// This process's device: its rank in the mesh's communicator.
    pub fn device(&self) -> usize {
        self.mpi.device()
    }

    /// The number of devices: the size of the mesh's communicator.
    pub fn devices(&self) -> usize {
        self.mpi.devices()
    }

    /// The GPU (ordinal, as this process's driver numbers them) this device runs on.
    pub fn gpu(&self) -> usize {
        self.gpu
    }

    /// This rank's position among the mesh's ranks on its node, and their number.
    pub fn local_rank(&self) -> (usize, usize) {
        self.local
    }

    /// The host this process runs on (`MPI_Get_processor_name`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// How the mesh runs collectives (the same on every rank).
    pub fn collectives(&self) -> Collectives {
        self.mode
    }

    /// What this process's driver reported.
    pub fn driver(&self) -> &DriverInfo {
        &self.info
    }

    /// The MPI mesh under it, for exchanging data of the caller's own between the ranks
    /// ([`MpiMesh::communicator`]) and agreeing on local work ([`MpiMesh::agree`]).
    pub fn mpi(&self) -> &MpiMesh<'u> {
        &self.mpi
    }

    /// The chip and PTX ISA version to compile for so that every rank's GPU loads the PTX:
    /// that of the lowest compute capability among the mesh's GPUs, checked against the
    /// oldest driver among its ranks. The same on every rank.
    pub fn target(&self) -> Result<(String, u32), RuntimeError> {
        target_for(self.lowest.0, self.lowest.1)
    }

    /// Runs `exe` on this rank's device with its arguments. Collective: every rank of the
    /// mesh calls it with the same executable. The report is the whole mesh's, on every
    /// rank: every device's results, the bytes every device sent per per-device op, every
    /// device's spans (GPU time since the device's first event, as on `CudaMesh`).
    pub fn run(&self, exe: &Executable, args: Vec<Literal>) -> Result<RunReport, RuntimeError> {
        self.run_with(exe, args, &RunOptions::default())
    }

    /// [`CudaMpiMesh::run`] with run options (`overlap` has no effect yet: a device's
    /// kernels and collectives share one stream, as on `CudaMesh`).
    pub fn run_with(
        &self,
        exe: &Executable,
        args: Vec<Literal>,
        _options: &RunOptions,
    ) -> Result<RunReport, RuntimeError> {
        let mpi = &self.mpi;
        let (device, n) = (mpi.device(), mpi.devices());
        mpi.same_program(exe)?;
        // The same on every rank: no rank is left waiting.
        plan::refuse_loops(exe)?;
        // What each rank checks on its own, agreed on before any collective.
        let Prepared {
            how,
            programs,
            loaded,
        } = mpi.agree(self.prepare(exe, &args))?;
        mpi.make_communicators(exe);
        let routes = plan::routes(exe, self.mode);
        self.nccl_communicators(exe)?;
        let comms = {
            let mine = self.comms.borrow();
            exe.steps
                .iter()
                .zip(&routes)
                .map(|(s, r)| {
                    let mut per_device = vec![None; n];
                    if let (Planned::PerDevice { exchange, .. }, Some(Route::Nccl)) = (s, r) {
                        per_device[device] = group_of(exchange, device, n).and_then(|g| {
                            mine.iter()
                                .find(|(made, ..)| *made == g)
                                .map(|&(_, c, p)| (c, p))
                        });
                    }
                    per_device
                })
                .collect()
        };
        let mut places: Vec<Option<Place>> = (0..n).map(|_| None).collect();
        places[device] = Some(Place {
            gpu: self.gpu,
            context: Arc::clone(&self.place.context),
            stream: Arc::clone(&self.place.stream),
        });
        let shared = Shared {
            exe,
            programs,
            loaded,
            routes,
            frees: plan::last_uses(exe),
            comms,
            places,
            failed: AtomicBool::new(false),
        };

        mpi.communicator().barrier();
        let clock = Instant::now();
        let progress = Progress::new(exe.steps.len());
        let mut stage = MpiStage { mpi, how: &how };
        let ran = joined(catch_unwind(AssertUnwindSafe(|| {
            run_device(&shared, device, args, &mut stage, &progress)
        })));
        let run = match ran {
            Ok(run) => {
                mpi.settle(None)?;
                run
            }
            Err(source) => {
                self.take_part(&shared, &progress, &mut stage, &source);
                let when = progress.step.get() as u64;
                return Err(mpi.fail(when, RuntimeError::Device { device, source }));
            }
        };
        let wall = clock.elapsed();
        let outputs = mpi.gather_outputs(exe, run.results);
        let per_step = mpi.gather_bytes(exe, &run.bytes);
        let spans = mpi.gather_spans(&run.spans)?;
        let mut longest = wall.as_nanos() as u64;
        let mine = longest;
        mpi.communicator()
            .all_reduce_into(&mine, &mut longest, SystemOperation::max());
        Ok(assemble(
            exe,
            outputs,
            spans,
            per_step,
            &[],
            &[],
            Duration::from_nanos(longest),
        ))
    }

    /// What this rank checks and prepares alone: the program's size and this device's
    /// arguments, its reductions, its GPU programs checked against this GPU and loaded.
    fn prepare(&self, exe: &Executable, args: &[Literal]) -> Result<Prepared, RuntimeError> {
        self.mpi.check(exe, args)?;
        let how = self.mpi.reductions(exe)?;
        let named = |e: RuntimeError| RuntimeError::Remote {
            device: self.device(),
            message: format!(
                "device {} (GPU {} on {}): {e}",
                self.device(),
                self.gpu,
                self.host
            ),
        };
        let gpu = std::slice::from_ref(&self.info.gpus[self.gpu]);
        let programs = gpu_programs(exe, gpu, self.info.version).map_err(named)?;
        let mut loaded = Vec::with_capacity(programs.len());
        for p in &programs {
            let mut on = HashMap::new();
            if let Some(p) = p {
                on.insert(self.gpu, self.load(p).map_err(named)?);
            }
            loaded.push(on);
        }
        Ok(Prepared {
            how,
            programs,
            loaded,
        })
    }

    /// `program` loaded on this rank's GPU, the first time it is asked for.
    fn load(&self, program: &GpuProgram) -> Result<Arc<Loaded>, RuntimeError> {
        let mut cache = self.loaded.borrow_mut();
        if let Some(l) = cache.get(&program.id) {
            return Ok(Arc::clone(l));
        }
        let l = Arc::new(Loaded::new(&self.place.context, program).map_err(RuntimeError::Cuda)?);
        cache.insert(program.id, Arc::clone(&l));
        Ok(l)
    }

    /// Makes the NCCL communicators of the program's groups that have none yet, in
    /// program order (the same on every rank): ids shared over MPI, then
    /// `ncclCommInitRank` by every member.
    fn nccl_communicators(&self, exe: &Executable) -> Result<(), RuntimeError> {
        let device = self.device();
        let groups: Vec<Vec<usize>> =
            plan::communicators(exe.exchanges(), self.devices(), self.mode)
                .into_iter()
                .filter(|g| !self.made.borrow().contains(g))
                .collect();
        if groups.is_empty() {
            return Ok(());
        }
        let bound = guarded("bind the context", || self.place.context.bind_to_thread())
            .map_err(RuntimeError::Cuda);
        let ids = share_ids::<_, ID_BYTES>(self.mpi.communicator(), &groups, |_| unique_id());
        let mine: Result<Vec<(usize, [u8; ID_BYTES], usize)>, RuntimeError> =
            bound.and_then(|()| {
                ids.into_iter()
                    .enumerate()
                    .filter_map(|(i, id)| id.map(|id| (i, id)))
                    .map(|(i, id)| {
                        id.map(|(id, position)| (i, id, position)).map_err(|e| {
                            RuntimeError::Cuda(format!(
                                "the NCCL id of devices {:?}: {e}",
                                groups[i]
                            ))
                        })
                    })
                    .collect()
            });
        let named = |e: RuntimeError| RuntimeError::Remote {
            device,
            message: format!("device {device} (MPI rank {device} on {}): {e}", self.host),
        };
        let mine = self.mpi.agree(mine.map_err(named))?;
        for (i, id, position) in mine {
            let group = &groups[i];
            let mut comm: nccl_sys::ncclComm_t = std::ptr::null_mut();
            let mut unique = nccl_sys::ncclUniqueId {
                internal: [0; ID_BYTES],
            };
            for (to, &from) in unique.internal.iter_mut().zip(&id) {
                *to = from as std::ffi::c_char;
            }
            let made = catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: `comm` receives one handle; the id was made by the group's
                // leader for this group alone; `position` is this device's distinct
                // position in it; this rank's GPU context is current on this thread.
                unsafe {
                    nccl::comm_init_rank(&mut comm, group.len() as i32, unique, position as i32)
                }
            }));
            match made {
                Ok(Ok(_)) => {
                    self.comms
                        .borrow_mut()
                        .push((group.clone(), Comm(comm), position));
                }
                Ok(Err(e)) => self.abort_job(&format!(
                    "ncclCommInitRank for devices {group:?} (position {position}) failed: {}",
                    nccl_text(&e)
                )),
                Err(_) => self.abort_job(&format!(
                    "ncclCommInitRank for devices {group:?}: the NCCL library lacks a symbol (too old an NCCL?)"
                )),
            }
        }
        self.made.borrow_mut().extend(groups);
        Ok(())
    }

    /// After this device failed during a run: makes every collective call it has not made
    /// yet, with zeros, so that its peers' calls complete; ends the job if it cannot.
    fn take_part(
        &self,
        shared: &Shared,
        progress: &Progress,
        stage: &mut MpiStage,
        failure: &DeviceError,
    ) {
        let device = self.device();
        let issued: Vec<bool> = progress.issued.iter().map(Cell::get).collect();
        let pending: Vec<(usize, &Exchange, &Route)> =
            pending_calls(shared.exe, &shared.routes, &issued)
                .into_iter()
                .filter_map(
                    |step| match (&shared.exe.steps[step], &shared.routes[step]) {
                        (Planned::PerDevice { exchange, .. }, Some(r)) => {
                            Some((step, &**exchange, r))
                        }
                        _ => None,
                    },
                )
                .collect();
        let on_gpu = shared.routes.iter().any(|r| r == &Some(Route::Nccl));
        let mut gpu = if on_gpu {
            Some(Device::new(shared, device, progress))
        } else {
            None
        };
        for (step, ex, route) in pending {
            match route {
                Route::Nccl => {
                    let made = match &gpu {
                        Some(Ok(d)) => {
                            let operand = ex.operand.map(|v| &shared.exe.value_types[v.index()]);
                            match operand {
                                Some(ty) => d.zeros(ty).and_then(|z| d.nccl(step, ex, z.ptr)),
                                None => Err(DeviceError::Internal(format!(
                                    "{} defining {} has no operand",
                                    ex.op, ex.at
                                ))),
                            }
                        }
                        Some(Err(e)) => Err(DeviceError::Cuda(e.to_string())),
                        None => Err(DeviceError::Internal("no GPU for an NCCL op".into())),
                    };
                    if let Err(e) = made {
                        self.abort_job(&format!(
                            "{failure}; then it could not make its part of {} defining {} (step {step}), which the other ranks wait for: {e}",
                            ex.op, ex.at
                        ));
                    }
                }
                _ => {
                    // The mpi backend's exchange makes every MPI call the op needs, with
                    // zeros for a missing operand; its result is not needed.
                    let _ = stage.exchange(step, device, ex, None);
                }
            }
        }
        // The NCCL calls this device made must complete on its GPU, or its peers wait.
        if let Some(d) = gpu.as_mut() {
            let synced = match d {
                Ok(d) => d.sync(),
                Err(e) => Err(DeviceError::Cuda(e.to_string())),
            };
            if let Err(e) = synced {
                self.abort_job(&format!(
                    "{failure}; then its GPU could not complete the NCCL calls the other ranks wait for: {e}"
                ));
            }
        }
    }

    /// Ends the whole job: this rank cannot take part in what the others wait for.
    fn abort_job(&self, why: &str) -> ! {
        eprintln!(
            "shardc cuda backend: device {} (MPI rank {} on {}, GPU {}): {why}; ending the job (MPI_Abort) so that no rank waits for it",
            self.device(),
            self.device(),
            self.host,
            self.gpu
        );
        self.mpi.communicator().abort(1)
    }
}

impl Drop for CudaMpiMesh<'_> {
    fn drop(&mut self) {
        for (_, c, _) in self.comms.borrow_mut().drain(..) {
            // SAFETY: no run is in progress (a run borrows the mesh); destroyed once.
            let _ = catch_unwind(|| unsafe { nccl::comm_destroy(c.0) });
        }
    }
}

/// What a rank prepares alone before a run.
struct Prepared {
    /// How each reduction runs in MPI (for the ops staged through the host), by step.
    how: HashMap<usize, How>,
    /// The GPU program of each compute step.
    programs: Vec<Option<Arc<GpuProgram>>>,
    /// Per step, the program loaded on this rank's GPU.
    loaded: Vec<HashMap<usize, Arc<Loaded>>>,
}

/// Whether a rank can take part in NCCL collectives: `libnccl` loads (`nccl`), and no
/// other rank of its node has its GPU (`uuids`: every rank of the node's GPU UUID, 16 bytes
/// each, in node order; `me`: this rank's position). One of [`NCCL_OK`], [`NO_NCCL`],
/// [`SHARED_GPU`].
fn readiness(nccl: bool, uuids: &[u8], me: usize) -> u8 {
    let mine = uuids.chunks(16).nth(me);
    let shared = uuids
        .chunks(16)
        .enumerate()
        .any(|(r, u)| r != me && Some(u) == mine);
    match (nccl, shared) {
        (false, _) => NO_NCCL,
        (true, true) => SHARED_GPU,
        (true, false) => NCCL_OK,
    }
}

/// How a mesh runs collectives, from every rank's [`readiness`] (`codes`, by device) and
/// what was `asked`: NCCL where every rank can, else host-staged over MPI; asked for NCCL
/// where a rank cannot, an error naming the first such device.
fn decide(asked: Option<Collectives>, codes: &[u8]) -> Result<Collectives, RuntimeError> {
    let refusal = codes.iter().position(|&c| c != NCCL_OK).map(|r| {
        if codes[r] == NO_NCCL {
            format!("device {r}: {}", super::driver::NO_NCCL)
        } else {
            format!(
                "device {r} shares its GPU with another rank of its node (NCCL refuses a GPU twice in a communicator; launch at most one rank per GPU)"
            )
        }
    });
    match (asked, refusal) {
        (Some(Collectives::HostStaged), _) => Ok(Collectives::HostStaged),
        (Some(Collectives::Nccl), Some(why)) => Err(RuntimeError::Cuda(format!(
            "NCCL cannot run this mesh: {why}; use host-staged collectives (over MPI)"
        ))),
        (Some(Collectives::Nccl), None) | (None, None) => Ok(Collectives::Nccl),
        (None, Some(_)) => Ok(Collectives::HostStaged),
    }
}

/// The steps whose collective call a device that failed has not made (`issued`, by step)
/// and its peers wait for: the per-device ops routed through NCCL or the host, in program
/// order (local ops need no peer).
fn pending_calls(exe: &Executable, routes: &[Option<Route>], issued: &[bool]) -> Vec<usize> {
    exe.steps
        .iter()
        .enumerate()
        .filter(|&(step, s)| {
            matches!(s, Planned::PerDevice { .. })
                && !issued.get(step).copied().unwrap_or(false)
                && matches!(routes.get(step), Some(Some(Route::Nccl | Route::Host(_))))
        })
        .map(|(step, _)| step)
        .collect()
}

/// Opens local GPU `local % gpus`: the driver's report, the ordinal, its context and a
/// stream, and its UUID.
fn open(local: usize) -> Result<(DriverInfo, usize, Place, [u8; 16]), RuntimeError> {
    let info = driver::probe()?;
    let gpu = local % info.gpus.len().max(1);
    let context = driver::context(gpu).map_err(RuntimeError::Cuda)?;
    let stream = guarded(&format!("create a stream on GPU {gpu}"), || {
        context.new_stream()
    })
    .map_err(RuntimeError::Cuda)?;
    let uuid = guarded(&format!("the UUID of GPU {gpu}"), || {
        let dev = result::device::get(gpu as i32)?;
        result::device::get_uuid(dev)
    })
    .map_err(RuntimeError::Cuda)?;
    let mut bytes = [0u8; 16];
    for (b, &c) in bytes.iter_mut().zip(&uuid.bytes) {
        *b = c as u8;
    }
    Ok((
        info,
        gpu,
        Place {
            gpu,
            context,
            stream,
        },
        bytes,
    ))
}

/// A new NCCL unique id (on a group's leader).
fn unique_id() -> Result<[u8; ID_BYTES], String> {
    let id = catch_unwind(nccl::get_uniqueid)
        .map_err(|_| "ncclGetUniqueId: the NCCL library could not be loaded".to_string())?
        .map_err(|e| format!("ncclGetUniqueId: {}", nccl_text(&e)))?;
    let mut out = [0u8; ID_BYTES];
    for (o, &c) in out.iter_mut().zip(&id.internal) {
        *o = c as u8;
    }
    Ok(out)
}

/// The group of `device` for an NCCL op: its replica group, or the whole mesh for a
/// permute (the groups [`plan::communicators`] lists).
fn group_of(ex: &Exchange, device: usize, devices: usize) -> Option<Vec<usize>> {
    if ex.is_permute() {
        Some((0..devices).collect())
    } else {
        ex.groups().into_iter().find(|g| g.contains(&device))
    }
}

/// Collectives staged through host memory, between processes over MPI: the mpi backend's
/// exchange of each per-device op.
struct MpiStage<'a, 'u> {
    mpi: &'a MpiMesh<'u>,
    how: &'a HashMap<usize, How>,
}

impl HostStage for MpiStage<'_, '_> {
    fn exchange(
        &mut self,
        step: usize,
        _device: usize,
        ex: &Exchange,
        input: Option<&Literal>,
    ) -> Result<(Literal, u64), DeviceError> {
        self.mpi.exchange(self.how, step, ex, input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Interpreted;
    use shardc_ir::text::parse_module;

    #[test]
    fn ranks_sharing_a_gpu_or_lacking_nccl_are_not_ready() {
        let uuids: Vec<u8> = [[1u8; 16], [2; 16], [1; 16], [3; 16]].concat();
        // Ranks 0 and 2 of the node have the same GPU; 1 and 3 have their own.
        assert_eq!(readiness(true, &uuids, 0), SHARED_GPU);
        assert_eq!(readiness(true, &uuids, 2), SHARED_GPU);
        assert_eq!(readiness(true, &uuids, 1), NCCL_OK);
        assert_eq!(readiness(false, &uuids, 3), NO_NCCL);
        assert_eq!(readiness(true, &[7; 16], 0), NCCL_OK);
    }

    #[test]
    fn the_mode_is_nccl_only_where_every_rank_can() {
        assert_eq!(decide(None, &[NCCL_OK; 4]).unwrap(), Collectives::Nccl);
        assert_eq!(
            decide(None, &[NCCL_OK, SHARED_GPU, NCCL_OK, NO_NCCL]).unwrap(),
            Collectives::HostStaged
        );
        assert_eq!(
            decide(Some(Collectives::HostStaged), &[NCCL_OK; 4]).unwrap(),
            Collectives::HostStaged
        );
        assert_eq!(
            decide(
                Some(Collectives::Nccl),
                &[NCCL_OK, NCCL_OK, NO_NCCL, SHARED_GPU]
            )
            .unwrap_err()
            .to_string(),
            format!(
                "cuda: NCCL cannot run this mesh: device 2: {}; use host-staged collectives (over MPI)",
                super::driver::NO_NCCL
            )
        );
        assert!(
            decide(Some(Collectives::Nccl), &[NCCL_OK, SHARED_GPU])
                .unwrap_err()
                .to_string()
                .contains("device 1 shares its GPU with another rank of its node")
        );
    }

    const PROGRAM: &str = r#"module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<16xf32>) {
    %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %n = stablehlo.negate %a : tensor<4xf32>
    %m = "stablehlo.all_reduce"(%n) <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %i = "shardc.axis_index"() <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : () -> tensor<i64>
    %g = "stablehlo.all_gather"(%m) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<4xf32>) -> tensor<16xf32>
    return %a, %m, %i, %g : tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<16xf32>
  }
}"#;

    #[test]
    fn a_failed_device_owes_the_calls_it_has_not_made() {
        let m = parse_module(PROGRAM).unwrap();
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        let routes: Vec<Option<Route>> = exe
            .steps
            .iter()
            .map(|s| match s {
                Planned::PerDevice { exchange, .. } => {
                    Some(plan::route(exchange, Collectives::Nccl))
                }
                _ => None,
            })
            .collect();
        // Steps: the sum (NCCL), the negate, the float max (host: NCCL's max is not
        // IEEE's), the axis index (local), the all-gather (NCCL).
        assert_eq!(exe.steps.len(), 5);
        assert!(matches!(routes[2], Some(Route::Host(_))));
        assert_eq!(routes[3], Some(Route::Local));
        // Failed before anything: every call but the local one.
        assert_eq!(pending_calls(&exe, &routes, &[false; 5]), [0, 2, 4]);
        // Failed in the negate, after the sum was made.
        assert_eq!(
            pending_calls(&exe, &routes, &[true, false, false, false, false]),
            [2, 4]
        );
        // Failed after the last call was made (downloading its results): none owed.
        assert!(pending_calls(&exe, &routes, &[true, false, true, false, true]).is_empty());
        // Host-staged everywhere: the same calls, through MPI.
        let host: Vec<Option<Route>> = exe
            .steps
            .iter()
            .map(|s| match s {
                Planned::PerDevice { exchange, .. } => {
                    Some(plan::route(exchange, Collectives::HostStaged))
                }
                _ => None,
            })
            .collect();
        assert_eq!(pending_calls(&exe, &host, &[false; 5]), [0, 2, 4]);
    }
}
