//! `CudaMesh`: logical devices on GPUs, one host thread per device.
//!
//! A run: the programs of the executable's segments are checked against every GPU
//! ([`super::target::check`]) and loaded once per GPU (cached in the mesh); NCCL
//! communicators are made for the groups the program needs ([`plan::communicators`],
//! cached); then each device's thread binds its GPU's context and, on its own stream,
//! uploads its arguments, walks the steps — each segment's launches with their
//! parameters, each per-device op through NCCL, locally, or on the host ring — frees
//! each buffer after its last reader, and downloads its results. CUDA events around
//! every step give the spans of the report (GPU time, since the device's first event).
//!
//! There is no overlap of compute and communication yet: both are enqueued on the one
//! stream of the device, in program order ([`RunOptions::overlap`] has no effect).

use super::driver::{self, DeviceMemory, DriverInfo, Event, GpuInfo, Loaded, guarded};
use super::plan::{self, Collectives, Copy2d, NcclData, NcclReduce, Route};
use super::program::{
    Buffer, GpuKernel, GpuProgram, Param, element_bytes, from_device_bytes, tensor_bytes,
    to_device_bytes,
};
use super::target;
use crate::backend::collective::Kind;
use crate::backend::cpu::{Mailbox, mailboxes};
use crate::backend::device::{assemble, joined};
use crate::backend::report::SpanKind;
use crate::backend::{
    DeviceError, Exchange, Executable, Lane, Mesh, Planned, RunOptions, RunReport, RuntimeError,
    Span,
};
use cudarc::driver::{CudaContext, CudaStream, result, sys};
use cudarc::nccl::{result as nccl, sys as nccl_sys};
use shardc_ir::{Elements, Literal, Scalar, ValueId};
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How to make a mesh.
#[derive(Clone, Debug, Default)]
pub struct CudaOptions {
    /// `None`: NCCL when every logical device has a GPU of its own and `libnccl` loads,
    /// else host-staged. `Some(Nccl)` fails where NCCL cannot run the mesh.
    pub collectives: Option<Collectives>,
}

/// An NCCL communicator handle, destroyed once by the mesh.
#[derive(Clone, Copy, Debug)]
pub(super) struct Comm(pub(super) nccl_sys::ncclComm_t);

// SAFETY: an NCCL communicator may be used from any thread, one thread at a time; each
// handle is used only by the thread of the device that is its rank during a run, and
// destroyed (or aborted) by the mesh when no run uses it.
unsafe impl Send for Comm {}
// SAFETY: as above.
unsafe impl Sync for Comm {}

/// `N` logical devices on the machine's GPUs: device `d` on GPU `d % gpus`.
pub struct CudaMesh {
    devices: usize,
    info: DriverInfo,
    /// The context of each GPU the mesh uses.
    contexts: Vec<Arc<CudaContext>>,
    /// One stream per logical device.
    streams: Vec<Arc<CudaStream>>,
    mode: Collectives,
    loaded: Mutex<HashMap<(usize, u64), Arc<Loaded>>>,
    /// Per group (devices in group order), each member's communicator.
    comms: Mutex<HashMap<Vec<usize>, Vec<Comm>>>,
}

impl std::fmt::Debug for CudaMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaMesh")
            .field("devices", &self.devices)
            .field("gpus", &self.contexts.len())
            .field("collectives", &self.mode)
            .finish_non_exhaustive()
    }
}

fn cuda(e: String) -> RuntimeError {
    RuntimeError::Cuda(e)
}

impl CudaMesh {
    /// A mesh of `devices` logical devices on this machine's GPUs.
    pub fn new(devices: usize) -> Result<CudaMesh, RuntimeError> {
        CudaMesh::with_options(devices, &CudaOptions::default())
    }

    /// [`CudaMesh::new`] with options (collectives over NCCL or staged through the host).
    pub fn with_options(devices: usize, options: &CudaOptions) -> Result<CudaMesh, RuntimeError> {
        if devices == 0 {
            return Err(RuntimeError::EmptyMesh);
        }
        let info = driver::probe()?;
        let gpus = info.gpus.len().min(devices);
        let contexts = (0..gpus)
            .map(driver::context)
            .collect::<Result<Vec<_>, _>>()
            .map_err(cuda)?;
        let streams = (0..devices)
            .map(|d| {
                let ctx = &contexts[d % gpus];
                guarded(&format!("create a stream for device {d}"), || {
                    ctx.new_stream()
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(cuda)?;
        let own_gpus = devices <= info.gpus.len();
        let nccl = info.nccl.is_some();
        let mode = match options.collectives {
            Some(Collectives::HostStaged) => Collectives::HostStaged,
            Some(Collectives::Nccl) if !own_gpus => {
                return Err(RuntimeError::Cuda(format!(
                    "NCCL needs a GPU per device, but the mesh has {devices} devices on {} GPUs (NCCL refuses a GPU twice in a communicator); use host-staged collectives",
                    info.gpus.len()
                )));
            }
            Some(Collectives::Nccl) if !nccl => {
                return Err(RuntimeError::Cuda(format!(
                    "{}; or use host-staged collectives",
                    super::driver::NO_NCCL
                )));
            }
            Some(Collectives::Nccl) => Collectives::Nccl,
            None if own_gpus && nccl => Collectives::Nccl,
            None => Collectives::HostStaged,
        };
        Ok(CudaMesh {
            devices,
            info,
            contexts,
            streams,
            mode,
            loaded: Mutex::new(HashMap::new()),
            comms: Mutex::new(HashMap::new()),
        })
    }

    /// The GPU (ordinal) of logical device `device`.
    pub fn gpu_of(&self, device: usize) -> usize {
        device % self.contexts.len().max(1)
    }

    /// How the mesh runs collectives.
    pub fn collectives(&self) -> Collectives {
        self.mode
    }

    /// What the driver reported when the mesh was made.
    pub fn driver(&self) -> &DriverInfo {
        &self.info
    }

    /// The chip and PTX ISA version to compile for, so that every GPU of the mesh loads the
    /// PTX: the chip of the lowest compute capability among them, and its lowest PTX ISA
    /// version (the most drivers read).
    pub fn target(&self) -> Result<(String, u32), RuntimeError> {
        let used = &self.info.gpus[..self.contexts.len()];
        let cc = used.iter().map(|g| g.capability).min().unwrap_or((0, 0));
        target_for(cc, self.info.version)
    }

    /// The GPU program of every compute step (`None` for per-device ops).
    fn programs(&self, exe: &Executable) -> Result<Vec<Option<Arc<GpuProgram>>>, RuntimeError> {
        gpu_programs(
            exe,
            &self.info.gpus[..self.contexts.len()],
            self.info.version,
        )
    }

    /// The program loaded on GPU `gpu`, loading it the first time.
    fn load(&self, gpu: usize, program: &GpuProgram) -> Result<Arc<Loaded>, RuntimeError> {
        let mut cache = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = cache.get(&(gpu, program.id)) {
            return Ok(Arc::clone(l));
        }
        let l = Arc::new(
            Loaded::new(&self.contexts[gpu], program)
                .map_err(|e| RuntimeError::Cuda(format!("GPU {gpu}: {e}")))?,
        );
        cache.insert((gpu, program.id), Arc::clone(&l));
        Ok(l)
    }

    /// The communicators of `groups`, making those the mesh does not have yet (one
    /// `ncclCommInitAll` per group: rank `i` on the GPU of the group's `i`-th device).
    fn communicators(&self, groups: &[Vec<usize>]) -> Result<(), RuntimeError> {
        let mut cache = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        for g in groups {
            if cache.contains_key(g) {
                continue;
            }
            let devlist: Vec<i32> = g.iter().map(|&d| self.gpu_of(d) as i32).collect();
            let mut comms: Vec<nccl_sys::ncclComm_t> = vec![std::ptr::null_mut(); g.len()];
            let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: `comms` has room for one handle per device of `devlist`, which
                // lists distinct GPUs (the mesh uses NCCL only with a GPU per device).
                unsafe {
                    nccl::comm_init_all(comms.as_mut_ptr(), devlist.len() as i32, devlist.as_ptr())
                }
            }));
            match made {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    return Err(RuntimeError::Cuda(format!(
                        "ncclCommInitAll for devices {g:?} (GPUs {devlist:?}): {}",
                        nccl_text(&e)
                    )));
                }
                Err(_) => {
                    return Err(RuntimeError::Cuda(format!(
                        "ncclCommInitAll for devices {g:?}: the NCCL library lacks a symbol (too old an NCCL?)"
                    )));
                }
            }
            cache.insert(g.clone(), comms.into_iter().map(Comm).collect());
        }
        Ok(())
    }

    /// Aborts every communicator (a device failed: peers blocked in NCCL return) and
    /// forgets them; the next run makes new ones.
    fn abort_communicators(&self) {
        let mut cache = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        for (_, comms) in cache.drain() {
            for c in comms {
                // SAFETY: a live communicator, aborted once and then forgotten.
                let _ = std::panic::catch_unwind(|| unsafe { nccl::comm_abort(c.0) });
            }
        }
    }
}

impl Drop for CudaMesh {
    fn drop(&mut self) {
        let mut cache = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        for (_, comms) in cache.drain() {
            for c in comms {
                // SAFETY: no run is in progress (a run borrows the mesh); destroyed once.
                let _ = std::panic::catch_unwind(|| unsafe { nccl::comm_destroy(c.0) });
            }
        }
    }
}

/// The chip and PTX ISA version to compile for GPUs whose lowest compute capability is
/// `cc`, under a driver of `version` (see [`CudaMesh::target`]).
pub(super) fn target_for(cc: (u32, u32), version: i32) -> Result<(String, u32), RuntimeError> {
    let (chip, ptx) = target::chip_for(cc).ok_or_else(|| {
        RuntimeError::Cuda(format!(
            "the GPU has compute capability {}.{}; the cuda backend needs 7.0 or later",
            cc.0, cc.1
        ))
    })?;
    target::check(chip, ptx, cc, version).map_err(cuda)?;
    Ok((chip.to_string(), ptx))
}

/// The GPU program of every compute step of `exe` (`None` for per-device ops), each
/// checked against its segment's types and against every GPU in `gpus` (driver `version`).
pub(super) fn gpu_programs(
    exe: &Executable,
    gpus: &[GpuInfo],
    version: i32,
) -> Result<Vec<Option<Arc<GpuProgram>>>, RuntimeError> {
    let mut segment = 0;
    let mut out = Vec::with_capacity(exe.steps.len());
    for s in &exe.steps {
        let Planned::Compute {
            segment: seg,
            ops,
            kernel,
        } = s
        else {
            out.push(None);
            continue;
        };
        let program = kernel
            .as_any()
            .and_then(|a| a.downcast_ref::<GpuKernel>())
            .map(|k| Arc::clone(&k.0))
            .ok_or_else(|| {
                RuntimeError::Cuda(format!(
                    "segment {segment} ({ops}) was prepared by an engine whose kernels run on the host; prepare the executable with a GPU engine (shardc_compiler::lower::gpu_program::PtxCompiler)"
                ))
            })?;
        let types = |vs: &[ValueId]| -> Vec<shardc_ir::TensorType> {
            vs.iter()
                .map(|v| exe.value_types[v.index()].clone())
                .collect()
        };
        if program.inputs != types(&seg.inputs) || program.outputs != types(&seg.outputs) {
            return Err(RuntimeError::Cuda(format!(
                "segment {segment} ({ops}): its GPU program takes {:?} and gives {:?}, but the segment reads {:?} and defines {:?}",
                program.inputs,
                program.outputs,
                types(&seg.inputs),
                types(&seg.outputs)
            )));
        }
        for g in gpus {
            target::check(&program.chip, program.ptx_version, g.capability, version).map_err(
                |e| {
                    RuntimeError::Cuda(format!(
                        "segment {segment} on GPU {} ({}): {e}",
                        g.ordinal, g.name
                    ))
                },
            )?;
        }
        out.push(Some(program));
        segment += 1;
    }
    Ok(out)
}

/// An NCCL error with NCCL's own text.
pub(super) fn nccl_text(e: &nccl::NcclError) -> String {
    let text = std::panic::catch_unwind(|| {
        // SAFETY: ncclGetErrorString returns a static NUL-terminated string.
        unsafe {
            let p = nccl_sys::ncclGetErrorString(e.0);
            (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    })
    .ok()
    .flatten();
    match text {
        Some(t) => format!("{:?} ({t})", e.0),
        None => format!("{:?}", e.0),
    }
}

/// Where a logical device runs: its GPU (the key of [`Shared::loaded`]), that GPU's
/// context, and the device's stream.
pub(super) struct Place {
    pub(super) gpu: usize,
    pub(super) context: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
}

/// What the devices of a run share: every device of a [`CudaMesh`] (one thread each), or
/// the one device of a process (`super::rank::CudaMpiMesh`).
pub(super) struct Shared<'m> {
    pub(super) exe: &'m Executable,
    pub(super) programs: Vec<Option<Arc<GpuProgram>>>,
    /// Per step, per GPU, the loaded program.
    pub(super) loaded: Vec<HashMap<usize, Arc<Loaded>>>,
    pub(super) routes: Vec<Option<Route>>,
    pub(super) frees: Vec<Vec<ValueId>>,
    /// Per step, per device: the device's communicator for the step's NCCL op, and the
    /// device's rank in it.
    pub(super) comms: Vec<Vec<Option<(Comm, usize)>>>,
    /// Per device, where it runs (`None` for the devices of other processes).
    pub(super) places: Vec<Option<Place>>,
    /// Set when a device of a [`CudaMesh`] failed (its communicators are then aborted).
    pub(super) failed: AtomicBool,
}

/// How a device runs a per-device op that is staged through host memory: between the
/// threads of a [`CudaMesh`] on the cpu backend's rings ([`Mailbox`]), or between
/// processes over MPI (`super::rank`).
pub(super) trait HostStage {
    /// Runs `ex` (the op at `step`) on `device`, its operand `input`: the result and the
    /// bytes the device sent.
    fn exchange(
        &mut self,
        step: usize,
        device: usize,
        ex: &Exchange,
        input: Option<&Literal>,
    ) -> Result<(Literal, u64), DeviceError>;
}

impl HostStage for Mailbox {
    fn exchange(
        &mut self,
        step: usize,
        device: usize,
        ex: &Exchange,
        input: Option<&Literal>,
    ) -> Result<(Literal, u64), DeviceError> {
        self.step = step;
        ex.run(device, input, self)
    }
}

/// How far a device's run got: the step it was at, and per step whether the device made
/// its part of the step's collective call (NCCL, or the host stage's exchange). A process
/// that fails learns from it which calls its peers still wait for (`super::rank`).
pub(super) struct Progress {
    pub(super) step: Cell<usize>,
    pub(super) issued: Vec<Cell<bool>>,
}

impl Progress {
    pub(super) fn new(steps: usize) -> Progress {
        Progress {
            step: Cell::new(0),
            issued: vec![Cell::new(false); steps],
        }
    }
}

/// What a device's run gives back.
pub(super) struct DeviceRun {
    pub(super) results: Vec<Literal>,
    pub(super) spans: Vec<Span>,
    pub(super) bytes: Vec<u64>,
}

impl Mesh for CudaMesh {
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
        super::plan::refuse_loops(exe)?;
        if options.offload.is_some() {
            return Err(RuntimeError::Arguments {
                device: 0,
                problem: "the cuda backend keeps every value on its GPUs: offloading values to files (RunOptions::offload) runs on the cpu and mpi backends".into(),
            });
        }
        if args.len() != n {
            return Err(RuntimeError::DeviceCount {
                want: n,
                got: args.len(),
            });
        }
        let programs = self.programs(exe)?;
        let gpus: Vec<usize> = {
            let mut g: Vec<usize> = (0..n).map(|d| self.gpu_of(d)).collect();
            g.sort_unstable();
            g.dedup();
            g
        };
        let mut loaded = Vec::with_capacity(programs.len());
        for p in &programs {
            let mut per_gpu = HashMap::new();
            if let Some(p) = p {
                for &g in &gpus {
                    per_gpu.insert(g, self.load(g, p)?);
                }
            }
            loaded.push(per_gpu);
        }
        let routes = plan::routes(exe, self.mode);
        let groups = plan::communicators(exe.exchanges(), n, self.mode);
        self.communicators(&groups)?;
        let comms = {
            let cache = self.comms.lock().unwrap_or_else(|p| p.into_inner());
            exe.steps
                .iter()
                .zip(&routes)
                .map(|(s, r)| {
                    (0..n)
                        .map(|d| {
                            let (Planned::PerDevice { exchange, .. }, Some(Route::Nccl)) = (s, r)
                            else {
                                return None;
                            };
                            let group: Vec<usize> = if exchange.is_permute() {
                                (0..n).collect()
                            } else {
                                exchange.groups().into_iter().find(|g| g.contains(&d))?
                            };
                            let rank = group.iter().position(|&x| x == d)?;
                            cache.get(&group).map(|c| (c[rank], rank))
                        })
                        .collect()
                })
                .collect()
        };
        let places = (0..n)
            .map(|d| {
                Some(Place {
                    gpu: self.gpu_of(d),
                    context: Arc::clone(&self.contexts[self.gpu_of(d)]),
                    stream: Arc::clone(&self.streams[d]),
                })
            })
            .collect();
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
        let clock = Instant::now();
        let outcomes: Vec<Result<DeviceRun, DeviceError>> = thread::scope(|scope| {
            let mut handles = Vec::with_capacity(n);
            for (device, (args, mut link)) in args.into_iter().zip(mailboxes(n)).enumerate() {
                let shared = &shared;
                let h = thread::Builder::new()
                    .name(format!("cuda device {device}"))
                    .spawn_scoped(scope, move || {
                        let progress = Progress::new(shared.exe.steps.len());
                        // A panic too must abort the communicators, or peers wait in NCCL.
                        let r = joined(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                            || run_device(shared, device, args, &mut link, &progress),
                        )));
                        if r.is_err() && !shared.failed.swap(true, Ordering::SeqCst) {
                            self.abort_communicators();
                        }
                        r
                    });
                match h {
                    Ok(h) => handles.push(h),
                    Err(source) => {
                        // Threads already started may wait for this device in NCCL.
                        shared.failed.store(true, Ordering::SeqCst);
                        self.abort_communicators();
                        for h in handles {
                            let _ = h.join();
                        }
                        return Err(RuntimeError::Spawn { device, source });
                    }
                }
            }
            Ok(handles.into_iter().map(|h| joined(h.join())).collect())
        })?;
        let wall = clock.elapsed();
        let mut root: Option<(usize, DeviceError)> = None;
        let mut consequence: Option<(usize, DeviceError)> = None;
        let mut outputs = Vec::with_capacity(n);
        let mut spans = Vec::new();
        let mut per_step = vec![vec![0u64; n]; exe.steps.len()];
        for (device, o) in outcomes.into_iter().enumerate() {
            match o {
                Ok(run) => {
                    outputs.push(run.results);
                    spans.extend(run.spans);
                    for (step, b) in run.bytes.into_iter().enumerate() {
                        per_step[step][device] = b;
                    }
                }
                Err(e) => {
                    let slot = if e.is_consequence() {
                        &mut consequence
                    } else {
                        &mut root
                    };
                    slot.get_or_insert((device, e));
                }
            }
        }
        if let Some((device, source)) = root.or(consequence) {
            return Err(RuntimeError::Device { device, source });
        }
        Ok(assemble(exe, outputs, spans, per_step, &[], &[], wall))
    }
}

/// A value on a device: its buffer (shared by nothing else) and element size.
struct Value {
    mem: DeviceMemory,
}

/// One device's run.
pub(super) struct Device<'s, 'm> {
    shared: &'s Shared<'m>,
    device: usize,
    gpu: usize,
    stream: sys::CUstream,
    env: Vec<Option<Value>>,
    progress: &'s Progress,
}

/// A failure of a device: its own, or the consequence of a peer's (the run had already
/// failed when it happened, and NCCL was aborted under it).
fn fail(shared: &Shared, problem: String) -> DeviceError {
    if shared.failed.load(Ordering::SeqCst) {
        DeviceError::CommunicationStopped
    } else {
        DeviceError::Cuda(problem)
    }
}

/// Runs device `device`'s steps on its GPU and stream (bound to the calling thread),
/// from the upload of `args` to the download of its results; `host` runs the collectives
/// staged through host memory; `progress` records how far it got.
pub(super) fn run_device<'s, 'm>(
    shared: &'s Shared<'m>,
    device: usize,
    args: Vec<Literal>,
    host: &mut dyn HostStage,
    progress: &'s Progress,
) -> Result<DeviceRun, DeviceError> {
    let exe = shared.exe;
    let mut d = Device::new(shared, device, progress)?;
    let start = Event::new().map_err(|e| fail(shared, e))?;
    start.record(d.stream).map_err(|e| fail(shared, e))?;
    for (&v, a) in exe.args.iter().zip(&args) {
        let mem = d.upload(a)?;
        d.env[v.index()] = Some(Value { mem });
    }
    d.sync()?;
    drop(args);
    let mut marks: Vec<(Event, Event)> = Vec::with_capacity(exe.steps.len());
    let mut bytes = vec![0u64; exe.steps.len()];
    let mut segment = 0;
    for (step, planned) in exe.steps.iter().enumerate() {
        progress.step.set(step);
        let before = Event::new().map_err(|e| fail(shared, e))?;
        before.record(d.stream).map_err(|e| fail(shared, e))?;
        match planned {
            Planned::Compute {
                segment: seg, ops, ..
            } => {
                d.compute(step, &seg.inputs, &seg.outputs)
                    .map_err(|e| match e {
                        DeviceError::Cuda(problem) => DeviceError::Kernel {
                            segment,
                            ops: ops.clone(),
                            source: problem.into(),
                        },
                        other => other,
                    })?;
                segment += 1;
            }
            Planned::PerDevice { exchange, .. } => {
                bytes[step] = d.per_device(step, exchange, host)?;
            }
            // Refused before the run (`plan::refuse_loops`).
            Planned::Control(_) => {}
        }
        let after = Event::new().map_err(|e| fail(shared, e))?;
        after.record(d.stream).map_err(|e| fail(shared, e))?;
        marks.push((before, after));
        for v in &shared.frees[step] {
            d.env[v.index()] = None;
        }
    }
    progress.step.set(exe.steps.len());
    d.sync()?;
    let mut results = Vec::with_capacity(exe.results.len());
    for &v in &exe.results {
        results.push(d.download(v)?);
    }
    let mut spans = Vec::with_capacity(marks.len());
    let mut segment = 0;
    for (step, (before, after)) in marks.iter().enumerate() {
        let ms = |e: &Event, from: &Event| e.since(from).map_err(|e| fail(shared, e));
        let begin = Duration::from_secs_f64(f64::from(ms(before, &start)?.max(0.0)) / 1e3);
        let duration = Duration::from_secs_f64(f64::from(ms(after, before)?.max(0.0)) / 1e3);
        spans.push(match &exe.steps[step] {
            Planned::Compute { ops, .. } => {
                segment += 1;
                Span {
                    device,
                    lane: Lane::Compute,
                    kind: SpanKind::Segment,
                    name: format!("segment {}", segment - 1),
                    start: begin,
                    duration,
                    detail: ops.clone(),
                    bytes: None,
                }
            }
            Planned::PerDevice { exchange, .. } => Span {
                device,
                lane: Lane::Communication,
                kind: SpanKind::Collective,
                name: format!("{} {}", exchange.short_name(), exchange.at),
                start: begin,
                duration,
                detail: format!(
                    "group of {}, {}",
                    exchange.group_size(),
                    match &shared.routes[step] {
                        Some(Route::Nccl) => "nccl",
                        Some(Route::Local) => "local",
                        _ => "host-staged",
                    }
                ),
                bytes: Some(bytes[step]),
            },
            Planned::Control(_) => continue,
        });
    }
    Ok(DeviceRun {
        results,
        spans,
        bytes,
    })
}

impl<'s, 'm> Device<'s, 'm> {
    /// Device `device` with no values yet, its GPU's context bound to the calling thread.
    pub(super) fn new(
        shared: &'s Shared<'m>,
        device: usize,
        progress: &'s Progress,
    ) -> Result<Device<'s, 'm>, DeviceError> {
        let place = shared
            .places
            .get(device)
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                DeviceError::Internal(format!("device {device} runs in another process"))
            })?;
        guarded("bind the context", || place.context.bind_to_thread())
            .map_err(|e| fail(shared, e))?;
        Ok(Device {
            shared,
            device,
            gpu: place.gpu,
            stream: place.stream.cu_stream(),
            env: (0..shared.exe.value_types.len()).map(|_| None).collect(),
            progress,
        })
    }

    fn err(&self, problem: String) -> DeviceError {
        fail(self.shared, problem)
    }

    pub(super) fn sync(&self) -> Result<(), DeviceError> {
        // SAFETY: the device's live stream.
        guarded("synchronize the stream", || unsafe {
            result::stream::synchronize(self.stream)
        })
        .map_err(|e| self.err(e))
    }

    fn alloc(&self, bytes: u64) -> Result<DeviceMemory, DeviceError> {
        DeviceMemory::alloc(self.stream, bytes as usize).map_err(|e| self.err(e))
    }

    /// A new buffer of zeros of type `ty` (stream ordered).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(super) fn zeros(&self, ty: &shardc_ir::TensorType) -> Result<DeviceMemory, DeviceError> {
        let mem = self.alloc(tensor_bytes(ty))?;
        if mem.bytes > 0 {
            // SAFETY: `mem.bytes` bytes of a live buffer; stream ordered.
            guarded("zero a buffer", || unsafe {
                result::memset_d8_async(mem.ptr, 0, mem.bytes, self.stream)
            })
            .map_err(|e| self.err(e))?;
        }
        Ok(mem)
    }

    /// A literal in a new buffer (the copy finishes before the host data is dropped).
    fn upload(&self, l: &Literal) -> Result<DeviceMemory, DeviceError> {
        let host = to_device_bytes(l);
        let mem = self.alloc(host.len() as u64)?;
        if !host.is_empty() {
            // SAFETY: `mem` has `host.len()` bytes; the copy is waited for before `host`
            // is dropped.
            guarded("copy to the GPU", || unsafe {
                result::memcpy_htod_async(mem.ptr, &host, self.stream)
            })
            .map_err(|e| self.err(e))?;
            self.sync()?;
        }
        Ok(mem)
    }

    /// The value of `v` on the host (waits for the stream).
    fn download(&self, v: ValueId) -> Result<Literal, DeviceError> {
        let ty = &self.shared.exe.value_types[v.index()];
        let mem = self.value(v)?;
        let mut host = vec![0u8; tensor_bytes(ty) as usize];
        if !host.is_empty() {
            // SAFETY: the buffer holds `host.len()` bytes (the value's type); the copy is
            // waited for before `host` is read.
            guarded("copy from the GPU", || unsafe {
                result::memcpy_dtoh_async(&mut host, mem.ptr, self.stream)
            })
            .map_err(|e| self.err(e))?;
        }
        self.sync()?;
        from_device_bytes(ty, &host).map_err(DeviceError::Internal)
    }

    fn value(&self, v: ValueId) -> Result<&DeviceMemory, DeviceError> {
        self.env[v.index()].as_ref().map(|x| &x.mem).ok_or_else(|| {
            DeviceError::Internal(format!(
                "value #{} was read before it was computed, or after it was freed",
                v.index()
            ))
        })
    }

    /// Runs the launches of the segment at `step`.
    fn compute(
        &mut self,
        step: usize,
        inputs: &[ValueId],
        outputs: &[ValueId],
    ) -> Result<(), DeviceError> {
        let shared = self.shared;
        let program = shared.programs[step]
            .as_ref()
            .ok_or_else(|| DeviceError::Internal(format!("step {step} has no GPU program")))?;
        let loaded = shared.loaded[step].get(&self.gpu).ok_or_else(|| {
            DeviceError::Internal(format!("step {step} is not loaded on GPU {}", self.gpu))
        })?;
        let outs = program
            .outputs
            .iter()
            .map(|t| self.alloc(tensor_bytes(t)))
            .collect::<Result<Vec<_>, _>>()?;
        let temps = program
            .temps
            .iter()
            .map(|&b| self.alloc(b))
            .collect::<Result<Vec<_>, _>>()?;
        let ins = inputs
            .iter()
            .map(|&v| self.value(v).map(|m| m.ptr))
            .collect::<Result<Vec<_>, _>>()?;
        let base = |b: Buffer| -> Option<u64> {
            match b {
                Buffer::Input(i) => ins.get(i).copied(),
                Buffer::Output(i) => outs.get(i).map(|m| m.ptr),
                Buffer::Temp(i) => temps.get(i).map(|m| m.ptr),
            }
        };
        launch_all(self.stream, program, loaded, &base).map_err(|e| self.err(e))?;
        drop(temps);
        for (&v, mem) in outputs.iter().zip(outs) {
            self.env[v.index()] = Some(Value { mem });
        }
        Ok(())
    }

    fn copy2d(&self, c: &Copy2d, src: u64, dst: u64) -> Result<(), DeviceError> {
        if c.width == 0 || c.height == 0 {
            return Ok(());
        }
        let p = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src + c.src_offset,
            srcArray: std::ptr::null_mut(),
            srcPitch: c.src_pitch as usize,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: dst + c.dst_offset,
            dstArray: std::ptr::null_mut(),
            dstPitch: c.dst_pitch as usize,
            WidthInBytes: c.width as usize,
            Height: c.height as usize,
        };
        // SAFETY: both ranges lie in live device buffers (the copies of `plan` stay
        // inside the tensors they were made for); enqueued on the device's stream.
        guarded("strided copy", || unsafe {
            sys::cuMemcpy2DAsync_v2(&p, self.stream).result()
        })
        .map_err(|e| self.err(e))
    }

    fn copy(&self, src: u64, dst: u64, bytes: u64) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both ranges lie in live device buffers; stream ordered.
        guarded("device copy", || unsafe {
            result::memcpy_dtod_async(dst, src, bytes as usize, self.stream)
        })
        .map_err(|e| self.err(e))
    }

    /// Runs the per-device op at `step`; returns the bytes this device sent.
    fn per_device(
        &mut self,
        step: usize,
        ex: &Exchange,
        host: &mut dyn HostStage,
    ) -> Result<u64, DeviceError> {
        let route = self.shared.routes[step]
            .clone()
            .ok_or_else(|| DeviceError::Internal(format!("step {step} has no route")))?;
        let out = match route {
            Route::Local => self.local(ex)?,
            Route::Host(_) => return self.host_stage(step, ex, host),
            Route::Nccl => self.nccl(step, ex, self.operand(ex)?)?,
        };
        self.env[ex.result.index()] = Some(Value { mem: out });
        Ok(match route {
            Route::Nccl => ex.ring_bytes(self.device),
            _ => 0,
        })
    }

    fn local(&self, ex: &Exchange) -> Result<DeviceMemory, DeviceError> {
        match &ex.kind {
            Kind::ShardSlice { groups, blocks } => {
                let (_, me) = ex.role(groups, self.device)?;
                let src = self.operand(ex)?;
                let out = self.alloc(tensor_bytes(&ex.result_ty))?;
                let elem = element_bytes(ex.result_ty.dtype) as u64;
                let mut c = plan::pack_block(blocks, me, elem);
                c.dst_offset = 0;
                self.copy2d(&c, src, out.ptr)?;
                Ok(out)
            }
            Kind::AxisIndex { groups } => {
                let (_, me) = ex.role(groups, self.device)?;
                let l = Literal::new(
                    ex.result_ty.clone(),
                    Elements::from_scalars(ex.result_ty.dtype, &[Scalar::Int(me as i64)]),
                )
                .map_err(|e| ex.error(e.to_string()))?;
                self.upload(&l)
            }
            _ => Err(DeviceError::Internal(format!(
                "{} is not a local op",
                ex.op
            ))),
        }
    }

    fn operand(&self, ex: &Exchange) -> Result<u64, DeviceError> {
        let v = ex
            .operand
            .ok_or_else(|| ex.error("has no operand".into()))?;
        Ok(self.value(v)?.ptr)
    }

    /// The op staged through host memory: the operand downloaded, exchanged by `host`
    /// (the cpu backend's ring between device threads, or MPI), the result uploaded.
    fn host_stage(
        &mut self,
        step: usize,
        ex: &Exchange,
        host: &mut dyn HostStage,
    ) -> Result<u64, DeviceError> {
        let input = match ex.operand {
            Some(v) => Some(self.download(v)?),
            None => None,
        };
        self.progress.issued[step].set(true);
        let (out, sent) = host.exchange(step, self.device, ex, input.as_ref())?;
        let mem = self.upload(&out)?;
        self.env[ex.result.index()] = Some(Value { mem });
        Ok(sent)
    }

    /// The op through NCCL on the device's stream, its operand at `src` (a buffer of the
    /// operand's type). Marks the step issued once the NCCL call is made.
    pub(super) fn nccl(
        &self,
        step: usize,
        ex: &Exchange,
        src: u64,
    ) -> Result<DeviceMemory, DeviceError> {
        // A failed device aborts the communicators: none may be used after that.
        if self.shared.failed.load(Ordering::SeqCst) {
            return Err(DeviceError::CommunicationStopped);
        }
        let (comm, me) = self.shared.comms[step][self.device].ok_or_else(|| {
            DeviceError::Internal(format!(
                "device {} has no communicator for {} defining {}",
                self.device, ex.op, ex.at
            ))
        })?;
        let stream = self.stream as nccl_sys::cudaStream_t;
        let dtype = ex.result_ty.dtype;
        let elem = element_bytes(dtype) as u64;
        let out = self.alloc(tensor_bytes(&ex.result_ty))?;
        let call = |what: &str, f: &dyn Fn() -> Result<nccl::NcclStatus, nccl::NcclError>| {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(self.err(format!("{what} ({}): {}", ex.at, nccl_text(&e)))),
                Err(_) => Err(self.err(format!("{what}: the NCCL library lacks a symbol"))),
            }
        };
        // Sends and receives in one NCCL group, closed even when one of them fails, so
        // that no group is left open on the thread (the first error is reported).
        let grouped = |body: &dyn Fn() -> Result<(), DeviceError>| {
            call("ncclGroupStart", &nccl::group_start)?;
            let sent = body();
            let ended = call("ncclGroupEnd", &nccl::group_end);
            sent.and(ended)
        };
        let void = |p: u64| p as *mut c_void;
        let reduction = |r| {
            plan::nccl_reduction(r, dtype)
                .map(|(op, data)| (nccl_op(op), nccl_type(data)))
                .map_err(|why| ex.error(why))
        };
        let u8 = nccl_sys::ncclDataType_t::ncclUint8;
        match &ex.kind {
            Kind::AllReduce { reducer, .. } => {
                let (op, ty) = reduction(*reducer)?;
                let count = ex.result_ty.num_elements();
                // SAFETY: operand and result hold `count` elements of `ty`; the
                // communicator is this device's rank of the op's group; stream ordered.
                call("ncclAllReduce", &|| unsafe {
                    nccl::all_reduce(void(src), void(out.ptr), count, ty, op, comm.0, stream)
                })?;
                self.progress.issued[step].set(true);
            }
            Kind::ReduceScatter {
                reducer, blocks, ..
            } => {
                let (op, ty) = reduction(*reducer)?;
                let packed = if plan::contiguous(blocks) {
                    None
                } else {
                    let p = self.alloc(out.bytes as u64 * blocks.n as u64)?;
                    for j in 0..blocks.n {
                        self.copy2d(&plan::pack_block(blocks, j, elem), src, p.ptr)?;
                    }
                    Some(p)
                };
                let send = packed.as_ref().map_or(src, |p| p.ptr);
                let count = ex.result_ty.num_elements();
                // SAFETY: `send` holds the group's blocks end to end (`n · count`
                // elements), the result `count`; rank = position in the group.
                call("ncclReduceScatter", &|| unsafe {
                    nccl::reduce_scatter(void(send), void(out.ptr), count, ty, op, comm.0, stream)
                })?;
                self.progress.issued[step].set(true);
            }
            Kind::AllGather { blocks, .. } => {
                let piece = out.bytes / blocks.n.max(1);
                let packed = if plan::contiguous(blocks) {
                    None
                } else {
                    Some(self.alloc(out.bytes as u64)?)
                };
                let recv = packed.as_ref().map_or(out.ptr, |p| p.ptr);
                // SAFETY: the operand has `piece` bytes, `recv` room for the group's `n`.
                call("ncclAllGather", &|| unsafe {
                    nccl::all_gather(void(src), void(recv), piece, u8, comm.0, stream)
                })?;
                self.progress.issued[step].set(true);
                if packed.is_some() {
                    for j in 0..blocks.n {
                        self.copy2d(&plan::unpack_block(blocks, j, elem), recv, out.ptr)?;
                    }
                }
            }
            Kind::AllToAll { split, join, .. } => {
                let n = split.n;
                let block = out.bytes as u64 / n.max(1) as u64;
                let send = if plan::contiguous(split) {
                    None
                } else {
                    let p = self.alloc(out.bytes as u64)?;
                    for j in 0..n {
                        self.copy2d(&plan::pack_block(split, j, elem), src, p.ptr)?;
                    }
                    Some(p)
                };
                let recv = if plan::contiguous(join) {
                    None
                } else {
                    Some(self.alloc(out.bytes as u64)?)
                };
                let s = send.as_ref().map_or(src, |p| p.ptr);
                let r = recv.as_ref().map_or(out.ptr, |p| p.ptr);
                self.copy(s + me as u64 * block, r + me as u64 * block, block)?;
                grouped(&|| {
                    for j in (0..n).filter(|&j| j != me) {
                        let off = j as u64 * block;
                        // SAFETY: block `j` of the packed operand and of the packed
                        // result, `block` bytes each; peer `j` is a rank of the group's
                        // communicator.
                        call("ncclSend", &|| unsafe {
                            nccl::send(void(s + off), block as usize, u8, j as i32, comm.0, stream)
                        })?;
                        call("ncclRecv", &|| unsafe {
                            nccl::recv(void(r + off), block as usize, u8, j as i32, comm.0, stream)
                        })?;
                    }
                    Ok(())
                })?;
                self.progress.issued[step].set(true);
                if recv.is_some() {
                    for j in 0..n {
                        self.copy2d(&plan::unpack_block(join, j, elem), r, out.ptr)?;
                    }
                }
            }
            Kind::Permute { pairs } => {
                let d = self.device;
                let bytes = out.bytes;
                grouped(&|| {
                    if let Some(&(_, t)) = pairs.iter().find(|p| p.0 == d && p.1 != d) {
                        // SAFETY: the operand has `bytes` bytes; the world communicator's
                        // rank `t` is device `t`.
                        call("ncclSend", &|| unsafe {
                            nccl::send(void(src), bytes, u8, t as i32, comm.0, stream)
                        })?;
                    }
                    if let Some(&(s, _)) = pairs.iter().find(|p| p.1 == d && p.0 != d) {
                        // SAFETY: the result has room for `bytes` bytes.
                        call("ncclRecv", &|| unsafe {
                            nccl::recv(void(out.ptr), bytes, u8, s as i32, comm.0, stream)
                        })?;
                    }
                    Ok(())
                })?;
                self.progress.issued[step].set(true);
                match pairs.iter().find(|p| p.1 == d) {
                    Some(&(s, _)) if s == d => self.copy(src, out.ptr, bytes as u64)?,
                    Some(_) => {}
                    None if bytes > 0 => {
                        // SAFETY: `bytes` bytes of the live result; stream ordered.
                        guarded("zero a buffer", || unsafe {
                            result::memset_d8_async(out.ptr, 0, bytes, self.stream)
                        })
                        .map_err(|e| self.err(e))?;
                    }
                    None => {}
                }
            }
            Kind::ShardSlice { .. } | Kind::AxisIndex { .. } => {
                return Err(DeviceError::Internal(format!(
                    "{} is local, not an NCCL op",
                    ex.op
                )));
            }
        }
        Ok(out)
    }
}

/// Enqueues every launch of `program` on `stream`, `base` giving each buffer's address.
fn launch_all(
    stream: sys::CUstream,
    program: &GpuProgram,
    loaded: &Loaded,
    base: &dyn Fn(Buffer) -> Option<u64>,
) -> Result<(), String> {
    for (l, &f) in program.launches.iter().zip(&loaded.functions) {
        let mut values: Vec<u64> = l
            .params
            .iter()
            .map(|p| match *p {
                Param::Value(v) => Some(v),
                Param::Pointer {
                    buffer,
                    byte_offset,
                } => base(buffer).map(|b| b + byte_offset),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("launch of {} names a missing buffer", l.kernel))?;
        let mut ptrs: Vec<*mut c_void> = values
            .iter_mut()
            .map(|v| (v as *mut u64).cast::<c_void>())
            .collect();
        // SAFETY: `f` is a function of a module loaded on the context current on this
        // thread; `ptrs` has one pointer per `.param` of the entry, each to a 64-bit value
        // (checked against the PTX when the program was made) that lives until the call
        // returns (the driver copies parameters at launch); the addresses in them are of
        // live buffers of the sizes the kernel's memref types state, freed only in stream
        // order after the launch.
        guarded(&format!("launch {}", l.kernel), || unsafe {
            result::launch_kernel(
                f,
                (l.grid[0], l.grid[1], l.grid[2]),
                (l.block[0], l.block[1], l.block[2]),
                0,
                stream,
                &mut ptrs,
            )
        })?;
    }
    Ok(())
}

/// A GPU program run alone ([`CudaMesh::run_program`]).
#[derive(Clone, Debug)]
pub struct ProgramRun {
    /// The program's outputs.
    pub outputs: Vec<Literal>,
    /// GPU time of one run of all its launches, in milliseconds (the mean over the
    /// repeats, measured with CUDA events; uploads and downloads excluded).
    pub ms: f64,
}

impl CudaMesh {
    /// Runs one GPU program on device 0's GPU and stream, `repeats` times (at least once)
    /// after one warm-up run: the kernels of one segment against the reference, and their
    /// speed (the matmul benchmark of `scripts/gpu-check.sh`).
    pub fn run_program(
        &self,
        program: &GpuProgram,
        inputs: &[Literal],
        repeats: usize,
    ) -> Result<ProgramRun, RuntimeError> {
        let info = &self.info;
        for g in &info.gpus[..1] {
            target::check(
                &program.chip,
                program.ptx_version,
                g.capability,
                info.version,
            )
            .map_err(cuda)?;
        }
        if inputs.len() != program.inputs.len()
            || inputs.iter().zip(&program.inputs).any(|(l, t)| l.ty != *t)
        {
            return Err(RuntimeError::Cuda(format!(
                "the program takes {:?}; given {:?}",
                program.inputs,
                inputs.iter().map(|l| &l.ty).collect::<Vec<_>>()
            )));
        }
        guarded("bind the context", || self.contexts[0].bind_to_thread()).map_err(cuda)?;
        let loaded = self.load(0, program)?;
        let stream = self.streams[0].cu_stream();
        let sync = || {
            // SAFETY: device 0's live stream.
            guarded("synchronize", || unsafe {
                result::stream::synchronize(stream)
            })
        };
        let mut ins = Vec::with_capacity(inputs.len());
        for l in inputs {
            let host = to_device_bytes(l);
            let mem = DeviceMemory::alloc(stream, host.len()).map_err(cuda)?;
            if !host.is_empty() {
                // SAFETY: `mem` has `host.len()` bytes; waited for before `host` drops.
                guarded("copy to the GPU", || unsafe {
                    result::memcpy_htod_async(mem.ptr, &host, stream)
                })
                .map_err(cuda)?;
                sync().map_err(cuda)?;
            }
            ins.push(mem);
        }
        let alloc = |b: u64| DeviceMemory::alloc(stream, b as usize).map_err(cuda);
        let outs = program
            .outputs
            .iter()
            .map(|t| alloc(tensor_bytes(t)))
            .collect::<Result<Vec<_>, _>>()?;
        let temps = program
            .temps
            .iter()
            .map(|&b| alloc(b))
            .collect::<Result<Vec<_>, _>>()?;
        let base = |b: Buffer| -> Option<u64> {
            match b {
                Buffer::Input(i) => ins.get(i).map(|m| m.ptr),
                Buffer::Output(i) => outs.get(i).map(|m| m.ptr),
                Buffer::Temp(i) => temps.get(i).map(|m| m.ptr),
            }
        };
        launch_all(stream, program, &loaded, &base).map_err(cuda)?;
        let start = Event::new().map_err(cuda)?;
        let end = Event::new().map_err(cuda)?;
        start.record(stream).map_err(cuda)?;
        for _ in 0..repeats.max(1) {
            launch_all(stream, program, &loaded, &base).map_err(cuda)?;
        }
        end.record(stream).map_err(cuda)?;
        sync().map_err(cuda)?;
        let ms = f64::from(end.since(&start).map_err(cuda)?) / repeats.max(1) as f64;
        let mut outputs = Vec::with_capacity(outs.len());
        for (m, t) in outs.iter().zip(&program.outputs) {
            let mut host = vec![0u8; m.bytes];
            if !host.is_empty() {
                // SAFETY: the buffer has `host.len()` bytes; waited for below.
                guarded("copy from the GPU", || unsafe {
                    result::memcpy_dtoh_async(&mut host, m.ptr, stream)
                })
                .map_err(cuda)?;
            }
            sync().map_err(cuda)?;
            outputs.push(from_device_bytes(t, &host).map_err(cuda)?);
        }
        Ok(ProgramRun { outputs, ms })
    }
}

fn nccl_op(op: NcclReduce) -> nccl_sys::ncclRedOp_t {
    match op {
        NcclReduce::Sum => nccl_sys::ncclRedOp_t::ncclSum,
        NcclReduce::Prod => nccl_sys::ncclRedOp_t::ncclProd,
        NcclReduce::Max => nccl_sys::ncclRedOp_t::ncclMax,
        NcclReduce::Min => nccl_sys::ncclRedOp_t::ncclMin,
    }
}

fn nccl_type(t: NcclData) -> nccl_sys::ncclDataType_t {
    use nccl_sys::ncclDataType_t as T;
    match t {
        NcclData::F32 => T::ncclFloat32,
        NcclData::F64 => T::ncclFloat64,
        NcclData::F16 => T::ncclFloat16,
        NcclData::BF16 => T::ncclBfloat16,
        NcclData::I32 => T::ncclInt32,
        NcclData::I64 => T::ncclInt64,
        NcclData::I8 => T::ncclInt8,
        NcclData::U8 => T::ncclUint8,
        NcclData::U32 => T::ncclUint32,
        NcclData::U64 => T::ncclUint64,
    }
}
