//! The CUDA driver and NCCL, loaded at run time through cudarc, and the few owned handles
//! the backend needs (device memory, modules, events), each released once.
//!
//! cudarc panics when a library or a symbol is missing (`dynamic-loading` resolves them
//! at the first call). So [`probe`] checks that `libcuda` can be loaded before any call,
//! and every first call is made inside `catch_unwind`: a machine without an NVIDIA
//! driver gets [`RuntimeError::NoCudaDriver`], never a panic.

use super::super::RuntimeError;
use cudarc::driver::{CudaContext, DriverError, result, sys};
use std::ffi::{CString, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// The message of a machine without the driver.
pub(crate) const NO_DRIVER: &str = "no CUDA driver found (libcuda.so.1): the cuda backend needs an NVIDIA GPU and driver; use the cpu backend";

/// One GPU the driver sees.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    /// Its index among the driver's GPUs.
    pub ordinal: usize,
    /// Its name (`NVIDIA H200`).
    pub name: String,
    /// Compute capability (major, minor): (9, 0) for an H100.
    pub capability: (u32, u32),
    /// Bytes of device memory.
    pub memory: usize,
}

/// What the driver reports.
#[derive(Clone, Debug)]
pub struct DriverInfo {
    /// `cuDriverGetVersion`: 12080 for CUDA 12.8.
    pub version: i32,
    /// The GPUs it sees.
    pub gpus: Vec<GpuInfo>,
    /// NCCL's version (22304 for 2.23.4) when `libnccl` loads.
    pub nccl: Option<i32>,
}

/// The panic message of a payload.
fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Runs a driver call, turning a panic of cudarc's loader (a missing library or symbol)
/// and a driver error into the message of a `RuntimeError::Cuda`.
pub(crate) fn guarded<T>(
    what: &str,
    f: impl FnOnce() -> Result<T, DriverError>,
) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(format!("{what}: {}", describe(&e))),
        Err(p) => Err(format!("{what}: {}", panic_text(p))),
    }
}

/// A driver error as `CUDA_ERROR_OUT_OF_MEMORY (out of memory)`.
pub(crate) fn describe(e: &DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name} ({})", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// Whether `libcuda` can be loaded (no call into it is made).
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library names cudarc knows; calls nothing in them.
    catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

/// Why NCCL is not used where `libnccl` does not load.
pub(crate) const NO_NCCL: &str = "no NCCL library loads (cudarc looks for libnccl.so, not libnccl.so.2: install libnccl-dev, or put a link libnccl.so -> libnccl.so.2 on the library path)";

/// Whether `libnccl` can be loaded (no call into it is made): cudarc asks the dynamic
/// loader for `libnccl.so` (and `libnccl.so.12`, `.11`, ...), not NCCL's `libnccl.so.2`.
pub(crate) fn nccl_present() -> bool {
    // SAFETY: as for `driver_present`.
    catch_unwind(|| unsafe { cudarc::nccl::sys::is_culib_present() }).unwrap_or(false)
}

/// Loads the driver, initializes it and lists the GPUs. Fails with
/// [`RuntimeError::NoCudaDriver`] where `libcuda` is missing, and with
/// [`RuntimeError::Cuda`] where it cannot initialize or sees no GPU.
pub fn probe() -> Result<DriverInfo, RuntimeError> {
    if !driver_present() {
        return Err(RuntimeError::NoCudaDriver(NO_DRIVER.into()));
    }
    let cuda = RuntimeError::Cuda;
    guarded("cuInit", result::init).map_err(cuda)?;
    let version = guarded("cuDriverGetVersion", || {
        let mut v = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut v) }.result()?;
        Ok(v)
    })
    .map_err(cuda)?;
    let count = guarded("cuDeviceGetCount", result::device::get_count).map_err(cuda)?;
    if count <= 0 {
        return Err(RuntimeError::Cuda(
            "the NVIDIA driver sees no GPU (cuDeviceGetCount = 0): check CUDA_VISIBLE_DEVICES and nvidia-smi; use the cpu backend".into(),
        ));
    }
    let mut gpus = Vec::new();
    for ordinal in 0..count {
        let info = guarded("query a GPU", || {
            let dev = result::device::get(ordinal)?;
            let attr = |a| {
                // SAFETY: `dev` is a device handle the driver gave.
                unsafe { result::device::get_attribute(dev, a) }
            };
            let major =
                attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
            let minor =
                attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
            Ok(GpuInfo {
                ordinal: ordinal as usize,
                name: result::device::get_name(dev)?,
                capability: (major.max(0) as u32, minor.max(0) as u32),
                // SAFETY: as above.
                memory: unsafe { result::device::total_mem(dev) }?,
            })
        })
        .map_err(cuda)?;
        gpus.push(info);
    }
    let nccl = if nccl_present() {
        catch_unwind(|| cudarc::nccl::result::get_nccl_version().ok())
            .ok()
            .flatten()
    } else {
        None
    };
    Ok(DriverInfo {
        version,
        gpus,
        nccl,
    })
}

/// The primary context of GPU `ordinal`.
pub(crate) fn context(ordinal: usize) -> Result<Arc<CudaContext>, String> {
    guarded(&format!("open GPU {ordinal}"), || CudaContext::new(ordinal))
}

/// Device memory allocated on a stream and freed on it (stream-ordered), with the
/// stream's context current on the thread that drops it.
pub(crate) struct DeviceMemory {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) bytes: usize,
    stream: sys::CUstream,
}

impl DeviceMemory {
    /// `bytes` bytes (none for 0: the pointer is then 0 and never dereferenced).
    pub(crate) fn alloc(stream: sys::CUstream, bytes: usize) -> Result<DeviceMemory, String> {
        let ptr = if bytes == 0 {
            0
        } else {
            // SAFETY: a live stream of the current context; the memory is only used on it.
            guarded(&format!("allocate {bytes} bytes"), || unsafe {
                result::malloc_async(stream, bytes)
            })?
        };
        Ok(DeviceMemory { ptr, bytes, stream })
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if self.ptr != 0 {
            // SAFETY: allocated on this stream by `alloc`, freed once, in stream order
            // (after every use enqueued before). A failure leaks the memory; it cannot be
            // reported from a destructor.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
                result::free_async(self.ptr, self.stream)
            }));
        }
    }
}

/// The modules and functions of one program on one GPU.
pub(crate) struct Loaded {
    modules: Vec<sys::CUmodule>,
    /// One per launch of the program.
    pub(crate) functions: Vec<sys::CUfunction>,
    ctx: Arc<CudaContext>,
}

// SAFETY: module and function handles belong to a context, not a thread; every use binds
// the context first, and the modules are unloaded once (`Drop`).
unsafe impl Send for Loaded {}
// SAFETY: as above; launching a function from several threads is allowed by the driver.
unsafe impl Sync for Loaded {}

impl Loaded {
    /// Loads every module of `program` into `ctx` (the driver compiles the PTX for the
    /// GPU: its errors come with the JIT's log) and finds each launch's function.
    pub(crate) fn new(
        ctx: &Arc<CudaContext>,
        program: &super::GpuProgram,
    ) -> Result<Loaded, String> {
        guarded("bind the context", || ctx.bind_to_thread())?;
        let mut loaded = Loaded {
            modules: Vec::new(),
            functions: Vec::new(),
            ctx: Arc::clone(ctx),
        };
        for m in &program.modules {
            let module = load_ptx(&m.ptx).map_err(|e| format!("module {}: {e}", m.name))?;
            loaded.modules.push(module);
        }
        for l in &program.launches {
            let module = loaded.modules[l.module];
            let name = CString::new(l.kernel.as_str())
                .map_err(|_| format!("kernel name {:?} has a NUL byte", l.kernel))?;
            // SAFETY: a module loaded above and not unloaded.
            let f = guarded(&format!("find kernel {}", l.kernel), || unsafe {
                result::module::get_function(module, name)
            })?;
            loaded.functions.push(f);
        }
        Ok(loaded)
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for &m in &self.modules {
            // SAFETY: loaded by `Loaded::new`, unloaded once; no launch is pending on a
            // stream once a mesh drops its modules (runs synchronize before returning).
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { result::module::unload(m) }));
        }
    }
}

/// Loads PTX text into the current context, with the JIT compiler's error log.
fn load_ptx(ptx: &str) -> Result<sys::CUmodule, String> {
    let image = CString::new(ptx).map_err(|_| "the PTX has a NUL byte".to_string())?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut module = std::ptr::null_mut();
    let status = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a NUL-terminated image; two options whose values are a buffer of
        // `log.len()` bytes and that size passed by value, as the driver API specifies.
        unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        }
    }))
    .map_err(panic_text)?;
    match status.result() {
        Ok(()) => Ok(module),
        Err(e) => {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let text = String::from_utf8_lossy(&log[..end]).trim().to_string();
            Err(format!(
                "the driver could not load the PTX: {}{}",
                describe(&e),
                if text.is_empty() {
                    String::new()
                } else {
                    format!("; JIT log: {text}")
                }
            ))
        }
    }
}

/// A CUDA event with timing, destroyed once.
pub(crate) struct Event(pub(crate) sys::CUevent);

impl Event {
    pub(crate) fn new() -> Result<Event, String> {
        guarded("create an event", || {
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
        })
        .map(Event)
    }

    pub(crate) fn record(&self, stream: sys::CUstream) -> Result<(), String> {
        // SAFETY: a live event and stream of the current context.
        guarded("record an event", || unsafe {
            result::event::record(self.0, stream)
        })
    }

    /// Milliseconds from `start` to this event (both recorded and complete).
    pub(crate) fn since(&self, start: &Event) -> Result<f32, String> {
        // SAFETY: two live, recorded events.
        guarded("time events", || unsafe {
            result::event::elapsed(start.0, self.0)
        })
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by `Event::new`, destroyed once.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
            result::event::destroy(self.0)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where `libcuda` cannot be loaded (this project's machines), probing is the clear
    /// error, not cudarc's panic.
    #[test]
    fn probing_without_a_driver_is_an_error() {
        if driver_present() {
            eprintln!("skipped: libcuda loads here");
            return;
        }
        match probe() {
            Err(RuntimeError::NoCudaDriver(m)) => assert_eq!(m, NO_DRIVER),
            other => panic!("{other:?}"),
        }
        // A call made anyway is caught and reported.
        let e = guarded("cuInit", result::init).unwrap_err();
        assert!(e.starts_with("cuInit: Unable to dynamically load"), "{e}");
    }
}
