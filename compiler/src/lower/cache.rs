//! The CPU kernels' cache on disk, shared by processes (as JAX's persistent compilation
//! cache): a kernel compiled once is kept as a shared library and loaded by later
//! processes instead of being compiled again (LLVM's code generation is about two thirds of
//! a kernel's compile time; a process then starts its first step in milliseconds).
//!
//! **Key**: the kernel's MLIR text (its tiling script included), the pass pipelines and
//! LLVM optimisation level it is compiled with, the host CPU (its model and feature flags)
//! and [`FORMAT`] with this compiler's version. An entry is `HASH.so` beside `HASH.key`
//! holding the whole key, compared when loading: a hash collision is a miss, never another
//! kernel.
//!
//! **Storing**: the execution engine's object code (position independent) is linked into a
//! shared library by the system's C compiler (`cc -shared`), written under a temporary name
//! and renamed into place, so that processes filling the cache at once never see half an
//! entry. Where no C compiler is found nothing is stored (kernels compile as without a
//! cache). A kernel calling a math function that `libm.rs` binds to Rust's own is not
//! stored: a shared library would bind it to the C library's, which may round differently.
//!
//! **Folder**: `SHARDC_KERNEL_CACHE` (`off` turns the cache off), else
//! `$XDG_CACHE_HOME/shardc/kernels`, else `$HOME/.cache/shardc/kernels`. Entries are
//! code this user's processes run: keep the folder as private as the user's own files.

use std::ffi::c_void;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bumped when what an entry holds or how it is called changes.
pub const FORMAT: u32 = 1;

/// A folder of cached kernels.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
}

/// A kernel loaded from the cache: the library (kept open while the kernel lives) and its
/// packed entry point.
pub(crate) struct Loaded {
    pub(crate) library: libloading::Library,
    pub(crate) entry: *mut c_void,
}

impl DiskCache {
    /// A cache in `dir` (created when the first kernel is stored).
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The cache the environment names (see the module docs); `None` when turned off or
    /// no folder can be named.
    pub fn from_env() -> Option<DiskCache> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        match var("SHARDC_KERNEL_CACHE") {
            Some(v) if v == "off" => None,
            Some(v) => Some(DiskCache::new(v)),
            None => var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))
                .map(|d| DiskCache::new(d.join("shardc").join("kernels"))),
        }
    }

    /// The directory kernels are kept in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of a kernel: its text and how it is compiled, on this host.
    pub(crate) fn key(text: &str, how: &str) -> String {
        format!(
            "shardc-kernel/{FORMAT} shardc {}\nhost {}\nhow {how}\n{text}",
            env!("CARGO_PKG_VERSION"),
            host_cpu()
        )
    }

    fn paths(&self, key: &str) -> (PathBuf, PathBuf) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let stem = format!("{:016x}", h.finish());
        (
            self.dir.join(format!("{stem}.so")),
            self.dir.join(format!("{stem}.key")),
        )
    }

    /// The kernel stored under `key`, with its entry point `symbol`; `None` on a miss (no
    /// entry, another key, or a library that does not load).
    pub(crate) fn load(&self, key: &str, symbol: &str) -> Option<Loaded> {
        let (so, key_path) = self.paths(key);
        if std::fs::read_to_string(&key_path).ok()? != key {
            return None;
        }
        // SAFETY: the library is one this cache stored for exactly this key (compared in
        // full above): MLIR's object code for the kernel, with no initialisers of its own.
        let library = unsafe { libloading::Library::new(&so) }.ok()?;
        // SAFETY: the symbol is the packed entry point MLIR emits, a function pointer.
        let entry = unsafe {
            library
                .get::<*mut c_void>(symbol.as_bytes())
                .ok()
                .map(|s| *s)?
        };
        (!entry.is_null()).then_some(Loaded { library, entry })
    }

    /// Stores the object code `object` (a relocatable ELF file) under `key`, unless it
    /// imports a symbol other than the C library's memory functions and the compiler's
    /// helpers (then `Ok(false)`: such kernels are not kept). An error says why the cache
    /// could not store it.
    pub(crate) fn store(&self, key: &str, object: &Path) -> Result<bool, String> {
        let bytes = std::fs::read(object).map_err(|e| format!("{}: {e}", object.display()))?;
        if imports_foreign(&bytes)? {
            return Ok(false);
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let (so, key_path) = self.paths(key);
        let tmp = |p: &Path| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            p.with_file_name(format!(
                "{}.tmp-{}",
                name.unwrap_or_default(),
                this_thread()
            ))
        };
        let (so_tmp, key_tmp) = (tmp(&so), tmp(&key_path));
        let out = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
            .arg("-shared")
            .arg("-o")
            .arg(&so_tmp)
            .arg(object)
            .output()
            .map_err(|e| format!("no C compiler to link the kernel with (cc: {e})"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&so_tmp);
            return Err(format!(
                "cc -shared failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let written = std::fs::write(&key_tmp, key)
            .and_then(|()| std::fs::rename(&key_tmp, &key_path))
            .and_then(|()| std::fs::rename(&so_tmp, &so));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&so_tmp);
            let _ = std::fs::remove_file(&key_tmp);
            return Err(format!("{}: {e}", self.dir.display()));
        }
        Ok(true)
    }
}

/// `PROCESS-THREAD`: a name part no other thread of any process uses at the same time.
pub(crate) fn this_thread() -> String {
    let id = format!("{:?}", std::thread::current().id());
    let digits: String = id.chars().filter(char::is_ascii_digit).collect();
    format!("{}-{digits}", std::process::id())
}

/// Whether `object` imports a symbol a cached library must not take from the process:
/// anything but the C library's memory functions, the compiler's `__` helpers and the
/// linker's global offset table.
fn imports_foreign(bytes: &[u8]) -> Result<bool, String> {
    use object::{Object, ObjectSymbol};
    let file = object::File::parse(bytes).map_err(|e| format!("the kernel's object code: {e}"))?;
    const ALLOWED: &[&str] = &[
        "memcpy",
        "memmove",
        "memset",
        "malloc",
        "free",
        "aligned_alloc",
        "posix_memalign",
        // What the linker itself provides to position-independent code.
        "_GLOBAL_OFFSET_TABLE_",
    ];
    Ok(file
        .symbols()
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok())
        .any(|n| !n.is_empty() && !n.starts_with("__") && !ALLOWED.contains(&n)))
}

/// The host CPU as the cache keys it: its model and feature flags (Linux), or the target.
fn host_cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map_or("", |(_, v)| v.trim())
            .to_string()
    };
    format!(
        "{} {} | {} | {}",
        std::env::consts::ARCH,
        std::env::consts::OS,
        field("model name"),
        field("flags")
    )
}
