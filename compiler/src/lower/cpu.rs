//! The CPU backend: a segment's MLIR module, fused, tiled and vectorized, bufferized,
//! lowered to LLVM and compiled by MLIR's execution engine (ORC JIT) for the host CPU.
//!
//! The pipeline, in order ([`compile`]):
//!
//! 1. `lower` (linalg.rs): tensors, one op kind per table entry;
//! 2. `fuse`: `linalg-fuse-elementwise-ops` (+ canonicalize, cse) and, by default,
//!    polynomial approximations of f32 math functions (`approx.rs`);
//! 3. `tile` (a transform-dialect script written after fusion): each f32/f64
//!    `linalg.matmul` tiled for the caches (`n` by 256, then `k` by 256 and `m` by 64
//!    when they divide), then into a register tile of `mr x nr` (8 x 32 f32 with
//!    AVX-512, 4 x 16 with AVX2) and steps of 1 along `k`, vectorized
//!    (`vector.contract` -> outer products -> FMAs); the accumulator's reads and writes
//!    hoisted out of the `k` loop; each reduction over its innermost loop tiled with
//!    results in the lanes and folded in the reference's order (`reductions.rs`; a
//!    kernel whose reductions the vectorizer refuses is compiled again without that);
//!    empty-tensor elimination (each result computed straight into the caller's
//!    buffer), one-shot bufferization (function boundaries, copies as `linalg.copy`);
//! 4. `llvm`: deallocations inserted, the other linalg ops as loops (LLVM's loop
//!    vectorizer takes the elementwise ones and reductions over outer dimensions), `convert-vector-to-scf{full-unroll}` (DESIGN.md: without
//!    full-unroll plus a JIT at -O0/-O1 the stack overflows), then everything to the
//!    LLVM dialect (math functions without an approximation call libm);
//! 5. the execution engine at `-O3` (option), with `llvm.emit_c_interface` wrappers.
//!
//! Calling convention ([`CpuKernel::run`]): every input and output is a memref
//! descriptor `{allocated, aligned, offset, sizes[rank], strides[rank]}` pointing at a
//! [`Literal`]'s own elements (inputs, read only: the kernel's arguments are
//! `bufferization.writable = false`) or at a fresh vector (outputs); i1 is one byte per
//! element, bf16/f16 two bytes, as both Rust and LLVM store them.

pub use super::Math;
pub use super::cache::DiskCache;
use super::reductions::{self, Reduction};
use super::{Flavour, KERNEL, LowerError, Matmul, kernel_context, parse, run_pipeline};
use melior::ir::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike};
use shardc_ir::{DType, Elements, Function, Literal, TensorType, for_each_elements};
use shardc_runtime::engine::{Buffers, EngineError, Kernel};
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// Options of the CPU backend.
#[derive(Clone, Debug)]
pub struct CpuOptions {
    /// LLVM's optimization level in the execution engine (0 to 3).
    pub opt_level: usize,
    /// How math functions are computed (approximations or libm).
    pub math: Math,
    /// Tile and vectorize f32/f64 matmuls (off: plain loops, for comparison).
    pub vectorize_matmuls: bool,
    /// Vectorize reductions in the reference's order (`reductions.rs`; off: plain loops
    /// with the accumulator in memory, for comparison). Same bits either way.
    pub vectorize_reductions: bool,
    /// Run f32/f64 matmuls of at least this many multiply-adds per GEMM in the `gemm`
    /// crate's GEMM, each a kernel of its own, where it was measured faster (`gemm.rs`;
    /// default [`MIN_MACS`](super::gemm::MIN_MACS); `None`: every matmul compiled).
    pub library_matmuls: Option<usize>,
    /// Where compiled kernels are kept between processes (`cache.rs`); `None`: compile
    /// every kernel in every process. Default: [`DiskCache::from_env`].
    pub cache: Option<DiskCache>,
}

impl Default for CpuOptions {
    fn default() -> CpuOptions {
        CpuOptions {
            opt_level: 3,
            math: Math::Approximate,
            vectorize_matmuls: true,
            vectorize_reductions: true,
            library_matmuls: Some(super::gemm::MIN_MACS),
            cache: DiskCache::from_env(),
        }
    }
}

/// Register tile and cache tiles of one matmul (0: that level is not tiled).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Columns of the right operand per cache block.
    pub nc: usize,
    /// Contraction elements per cache block.
    pub kc: usize,
    /// Rows of the left operand per cache block.
    pub mc: usize,
    /// Rows of the register tile.
    pub mr: usize,
    /// Columns of the register tile.
    pub nr: usize,
}

/// Whether the host has AVX-512 (32 vector registers of 64 bytes) rather than AVX2's
/// 16 of 32 bytes: it sets the register tile.
fn wide_vectors() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The largest of `max, max/2, ..., 1` that divides `n`.
pub(super) fn divisor(n: usize, max: usize) -> usize {
    let mut t = max;
    while t > 1 && !n.is_multiple_of(t) {
        t /= 2;
    }
    t.max(1)
}

impl Tiling {
    /// The tiling of a matmul on this host: a register tile of two vectors per row
    /// (`nr`) by `mr` rows, 16 accumulator registers either way; cache tiles that divide.
    pub fn for_matmul(mm: &Matmul) -> Tiling {
        let (vector_bytes, rows) = if wide_vectors() { (64, 8) } else { (32, 4) };
        let lanes = vector_bytes / mm.dtype.size_bytes();
        let mr = divisor(mm.m, rows);
        let nr = divisor(mm.n, 2 * lanes);
        let cache = |size: usize, tile: usize| {
            if size > tile && size.is_multiple_of(tile) {
                tile
            } else {
                0
            }
        };
        Tiling {
            nc: cache(mm.n, 256),
            kc: cache(mm.k, 256),
            mc: cache(mm.m, 64),
            mr,
            nr,
        }
    }
}

/// The transform-dialect script of a fused module: tiles and vectorizes its matmuls
/// (when asked) and its tagged reductions (`reductions`, see `reductions.rs`), then
/// bufferizes and lowers the vector ops.
pub(crate) fn script(matmuls: &[Matmul], vectorize: bool, reductions: &[Reduction]) -> String {
    let any = "!transform.any_op";
    let mut s = String::new();
    s.push_str(&format!(
        "  transform.named_sequence @__transform_main(%root: {any} {{transform.consumed}}) {{\n"
    ));
    let mut line = |l: String| {
        s.push_str("    ");
        s.push_str(&l);
        s.push('\n');
    };
    let tiled: Vec<&Matmul> = matmuls
        .iter()
        .filter(|m| vectorize && matches!(m.dtype, DType::F32 | DType::F64))
        .collect();
    for mm in &tiled {
        let t = mm.tag;
        let tl = Tiling::for_matmul(mm);
        line(format!(
            "%mm{t} = transform.structured.match ops{{[\"linalg.matmul\"]}} attributes {{shardc.mm = {t} : i64}} in %root : ({any}) -> {any}"
        ));
        let mut h = format!("%mm{t}");
        let mut tile = |h: &mut String,
                        name: &str,
                        sizes: [usize; 3],
                        interchange: Option<[usize; 3]>| {
            let loops = sizes.iter().filter(|&&x| x > 0).count();
            if loops == 0 {
                return;
            }
            let results = std::iter::repeat_n(any, loops + 1)
                .collect::<Vec<_>>()
                .join(", ");
            let interchange = interchange
                .map(|i| format!(" interchange = [{}, {}, {}]", i[0], i[1], i[2]))
                .unwrap_or_default();
            let loop_names = if loops == 1 {
                format!("%{name}l{t}")
            } else {
                format!("%{name}l{t}:{loops}")
            };
            line(format!(
                "%{name}{t}, {loop_names} = transform.structured.tile_using_for {h} tile_sizes [{}, {}, {}]{interchange} : ({any}) -> ({results})",
                sizes[0], sizes[1], sizes[2]
            ));
            *h = format!("%{name}{t}");
        };
        tile(&mut h, "nc", [0, tl.nc, 0], None);
        tile(&mut h, "mkc", [tl.mc, 0, tl.kc], Some([2, 0, 1]));
        tile(&mut h, "reg", [tl.mr, tl.nr, 0], Some([1, 0, 2]));
        tile(&mut h, "k", [0, 0, 1], None);
        line(format!("transform.structured.vectorize {h} : {any}"));
    }
    line(format!(
        "%f = transform.structured.match ops{{[\"func.func\"]}} in %root : ({any}) -> {any}"
    ));
    if !tiled.is_empty() {
        line(format!(
            "transform.apply_patterns to %f {{ transform.apply_patterns.linalg.tiling_canonicalization transform.apply_patterns.vector.reduction_to_contract transform.apply_patterns.vector.transfer_permutation_patterns transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers transform.apply_patterns.canonicalization }} : {any}"
        ));
        line(format!(
            "%loops = transform.structured.match ops{{[\"scf.for\"]}} in %root : ({any}) -> {any}"
        ));
        line(format!(
            "transform.loop.hoist_loop_invariant_subsets %loops : {any}"
        ));
    }
    if !reductions.is_empty() {
        for l in super::reductions::script(reductions) {
            line(l);
        }
    }
    line(format!(
        "%e = transform.structured.match ops{{[\"func.func\"]}} in %root : ({any}) -> {any}"
    ));
    line(format!(
        "transform.bufferization.eliminate_empty_tensors %e : {any}"
    ));
    line(format!(
        "%b = transform.bufferization.one_shot_bufferize layout{{IdentityLayoutMap}} %root {{bufferize_function_boundaries = true, memcpy_op = \"linalg.copy\"}} : ({any}) -> {any}"
    ));
    line(format!(
        "%g = transform.structured.match ops{{[\"func.func\"]}} in %b : ({any}) -> {any}"
    ));
    line(format!("transform.apply_cse to %g : {any}"));
    line(format!(
        "transform.apply_patterns to %g {{ transform.apply_patterns.canonicalization }} : {any}"
    ));
    if !tiled.is_empty() || !reductions.is_empty() {
        line(format!(
            "transform.apply_patterns to %g {{ transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\" transform.apply_patterns.vector.transfer_permutation_patterns transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1 transform.apply_patterns.vector.lower_transpose lowering_strategy = \"shuffle_1d\" transform.apply_patterns.vector.lower_outerproduct transform.apply_patterns.canonicalization }} : {any}"
        ));
    }
    line("transform.yield".to_string());
    s.push_str("  }\n");
    s
}

/// From bufferized memrefs to the LLVM dialect.
fn llvm_pipeline() -> String {
    let mut passes = vec![
        "buffer-deallocation-pipeline",
        "canonicalize",
        "convert-linalg-to-loops",
    ];
    passes.extend([
        "convert-vector-to-scf{full-unroll=true}",
        "lower-affine",
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "convert-vector-to-llvm",
        "finalize-memref-to-llvm",
        "convert-math-to-llvm",
        "convert-arith-to-llvm",
        "convert-index-to-llvm",
        "convert-ub-to-llvm",
        "convert-cf-to-llvm",
        "convert-func-to-llvm",
        "reconcile-unrealized-casts",
    ]);
    format!("builtin.module({})", passes.join(","))
}

/// The module after each stage of the CPU pipeline, for inspection and tests.
#[derive(Clone, Debug, Default)]
pub struct Stages {
    /// (stage name, module text) in pipeline order: `lower`, `fuse`, `tile`, `llvm`.
    pub texts: Vec<(&'static str, String)>,
}

impl Stages {
    /// The text after a stage, if it ran.
    pub fn get(&self, stage: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(s, _)| *s == stage)
            .map(|(_, t)| t.as_str())
    }
}

/// The execution engine of one kernel. The JIT'd code is reentrant (no mutable globals;
/// constants are read-only; allocations go through malloc), so the engine may be used
/// from any thread; it is destroyed once.
struct Engine(mlir_sys::MlirExecutionEngine);

/// What owns a kernel's code: the execution engine that compiled it, or the library it
/// was loaded from out of the disk cache. Held only to be dropped with the kernel.
#[allow(dead_code)]
enum Code {
    Jit(Engine),
    Cached(libloading::Library),
}

// SAFETY: see the type's docs: the engine is immutable after creation and its code is
// reentrant; `Drop` runs once.
unsafe impl Send for Engine {}
// SAFETY: as above.
unsafe impl Sync for Engine {}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: created by mlirExecutionEngineCreate, not null, destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.0) }
    }
}

type Entry = unsafe extern "C" fn(*mut *mut c_void);

/// A compiled segment: runs on literals of its input types.
pub struct CpuKernel {
    /// Owns the code `entry` points into.
    code: Code,
    entry: Entry,
    inputs: Vec<TensorType>,
    outputs: Vec<TensorType>,
    compile_time: Duration,
}

impl std::fmt::Debug for CpuKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuKernel")
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .field("compile_time", &self.compile_time)
            .finish_non_exhaustive()
    }
}

/// Compiles a segment function (see [`super::segment_function`]) for the host CPU.
pub fn compile(f: &Function, options: &CpuOptions) -> Result<CpuKernel, LowerError> {
    compile_with_stages(f, options, None)
}

/// [`compile`], keeping the module after each stage in `stages`.
pub fn compile_with_stages(
    f: &Function,
    options: &CpuOptions,
    mut stages: Option<&mut Stages>,
) -> Result<CpuKernel, LowerError> {
    let start = Instant::now();
    let lowered = super::lower(f, Flavour::Cpu, options.math)?;
    if let Some(s) = stages.as_deref_mut() {
        s.texts.push(("lower", lowered.text.clone()));
    }
    compile_lowered(&lowered, options, stages, start)
}

/// The module text of a lowered segment (its ops, without the script that tiles them:
/// that is written after fusion) and its disk-cache key when `options` has a cache.
fn module_text(lowered: &super::Lowered, options: &CpuOptions) -> (String, Option<String>) {
    let text = format!(
        "module attributes {{transform.with_named_sequence}} {{\n{}}}\n",
        lowered.ops
    );
    let how = format!(
        "{} | {} | {} | reductions in order: {} | O{}",
        super::fusion_pipeline(options.math == Math::Approximate),
        script(&lowered.matmuls, options.vectorize_matmuls, &[]),
        llvm_pipeline(),
        options.vectorize_reductions,
        options.opt_level
    );
    let key = options.cache.as_ref().map(|_| DiskCache::key(&text, &how));
    (text, key)
}

/// The kernel of a lowered segment compiled with `options` by an earlier process, out of
/// the disk cache; `None` when there is no cache or no entry.
pub(crate) fn load_lowered(
    lowered: &super::Lowered,
    options: &CpuOptions,
    start: Instant,
) -> Option<CpuKernel> {
    let (_, key) = module_text(lowered, options);
    load(options.cache.as_ref()?, &key?, lowered, start)
}

fn load(
    cache: &DiskCache,
    key: &str,
    lowered: &super::Lowered,
    start: Instant,
) -> Option<CpuKernel> {
    let loaded = cache.load(key, &format!("_mlir__mlir_ciface_{KERNEL}"))?;
    // SAFETY: the packed wrapper MLIR generates for every function has this signature.
    let entry: Entry = unsafe { std::mem::transmute::<*mut c_void, Entry>(loaded.entry) };
    Some(CpuKernel {
        code: Code::Cached(loaded.library),
        entry,
        inputs: lowered.inputs.clone(),
        outputs: lowered.outputs.clone(),
        compile_time: start.elapsed(),
    })
}

/// The CPU pipeline on a lowered segment function (`start`: when compiling it began, for
/// [`CpuKernel::compile_time`]).
pub(crate) fn compile_lowered(
    lowered: &super::Lowered,
    options: &CpuOptions,
    mut stages: Option<&mut Stages>,
    start: Instant,
) -> Result<CpuKernel, LowerError> {
    let keeping = stages.is_some();
    let ctx = kernel_context();
    let (text, key) = module_text(lowered, options);
    let name = format!("_mlir_ciface_{KERNEL}");
    // The disk cache, unless the stages are being kept (they would not be produced).
    let cache = options.cache.as_ref().filter(|_| !keeping);
    let key = key.filter(|_| cache.is_some());
    if let (Some(c), Some(k)) = (cache, &key)
        && let Some(loaded) = load(c, k, lowered, start)
    {
        return Ok(loaded);
    }
    let kept = stages.as_deref().map_or(0, |s| s.texts.len());
    let m = match to_llvm(&ctx, &text, lowered, options, true, stages.as_deref_mut()) {
        // A reduction the vectorizer refused after all: the kernel without that step.
        Err(_) if options.vectorize_reductions => {
            if let Some(s) = stages.as_deref_mut() {
                s.texts.truncate(kept);
            }
            to_llvm(&ctx, &text, lowered, options, false, stages)?
        }
        r => r?,
    };
    let engine = create_engine(&ctx, &m, options.opt_level, key.is_some())?;
    // SAFETY: the engine is valid; the name is a NUL-free string borrowed for the call.
    let ptr = unsafe {
        mlir_sys::mlirExecutionEngineLookupPacked(
            engine.0,
            mlir_sys::MlirStringRef {
                data: name.as_ptr() as *const _,
                length: name.len(),
            },
        )
    };
    if ptr.is_null() {
        return Err(LowerError::Jit(format!(
            "the compiled module has no packed entry point for {name}"
        )));
    }
    if let (Some(c), Some(k)) = (cache, &key) {
        store(c, k, &engine);
    }
    // SAFETY: the packed wrapper MLIR generates for every function has this signature.
    let entry: Entry = unsafe { std::mem::transmute::<*mut c_void, Entry>(ptr) };
    Ok(CpuKernel {
        code: Code::Jit(engine),
        entry,
        inputs: lowered.inputs.clone(),
        outputs: lowered.outputs.clone(),
        compile_time: start.elapsed(),
    })
}

/// The module of a lowered segment (`text`) through fusion, tiling and vectorization
/// (reductions too when `options` and `reductions_too` say so), bufferization and down to
/// the LLVM dialect, the module after each stage kept in `stages`.
fn to_llvm<'c>(
    ctx: &'c melior::Context,
    text: &str,
    lowered: &super::Lowered,
    options: &CpuOptions,
    reductions_too: bool,
    mut stages: Option<&mut Stages>,
) -> Result<melior::ir::Module<'c>, LowerError> {
    let mut keep = |stage: &'static str, m: &melior::ir::Module| {
        if let Some(s) = stages.as_deref_mut() {
            s.texts.push((stage, m.as_operation().to_string()));
        }
    };
    let mut m = parse(ctx, text)?;
    run_pipeline(
        ctx,
        &mut m,
        &super::fusion_pipeline(options.math == Math::Approximate),
        "fuse",
    )?;
    keep("fuse", &m);
    let reductions = if options.vectorize_reductions && reductions_too {
        reductions::tag(ctx, &mut m, wide_vectors())
    } else {
        Vec::new()
    };
    let script = format!(
        "module attributes {{transform.with_named_sequence}} {{\n{}}}\n",
        script(&lowered.matmuls, options.vectorize_matmuls, &reductions)
    );
    append_script(ctx, &mut m, &script)?;
    run_pipeline(ctx, &mut m, "builtin.module(transform-interpreter)", "tile")?;
    remove_transform_script(&mut m);
    keep("tile", &m);
    run_pipeline(ctx, &mut m, &llvm_pipeline(), "llvm")?;
    keep("llvm", &m);
    Ok(m)
}

/// Moves the named sequences of a parsed script module into `m`'s body.
fn append_script(
    ctx: &melior::Context,
    m: &mut melior::ir::Module,
    script: &str,
) -> Result<(), LowerError> {
    let s = parse(ctx, script)?;
    let body = m.body();
    while let Some(op) = s.body().first_operation() {
        // SAFETY: the op is unlinked from the script module's block and appended, owned,
        // to `m`'s: one owner at a time; both modules live in `ctx`.
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
            body.append_operation(melior::ir::Operation::from_raw(op.to_raw()));
        }
    }
    Ok(())
}

/// Stores a compiled kernel in the disk cache. A cache that cannot store (no C compiler, a
/// folder that cannot be written) says so once per process, on standard error, and the
/// kernels still run: compilation never fails for the cache's sake.
fn store(cache: &DiskCache, key: &str, engine: &Engine) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    let object =
        std::env::temp_dir().join(format!("shardc-kernel-{}.o", super::cache::this_thread()));
    let path = object.to_string_lossy().into_owned();
    // SAFETY: an engine created with object dumping on; the path is borrowed for the call.
    unsafe {
        mlir_sys::mlirExecutionEngineDumpToObjectFile(
            engine.0,
            mlir_sys::MlirStringRef {
                data: path.as_ptr() as *const _,
                length: path.len(),
            },
        );
    }
    let stored = cache.store(key, &object);
    let _ = std::fs::remove_file(&object);
    if let Err(why) = stored {
        WARNED.call_once(|| {
            eprintln!(
                "shardc: the kernel cache in {} stores nothing: {why} (kernels are compiled in every process; SHARDC_KERNEL_CACHE=off turns the cache off)",
                cache.dir().display()
            )
        });
    }
}

/// Deletes the transform script (and its module attribute) once it has run.
pub(crate) fn remove_transform_script(m: &mut melior::ir::Module) {
    let body = m.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        op = o.next_in_block();
        if o.name().as_string_ref().as_str() == Ok("transform.named_sequence") {
            // SAFETY: the op is unlinked from its block, then destroyed; no handle to it
            // outlives this loop (`op` already points at the next one).
            unsafe {
                mlir_sys::mlirOperationRemoveFromParent(o.to_raw());
                mlir_sys::mlirOperationDestroy(o.to_raw());
            }
        }
    }
    let _ = m
        .as_operation_mut()
        .remove_attribute("transform.with_named_sequence");
}

/// An execution engine for the module; `for_cache`: position-independent code, kept so
/// that it can be written to an object file ([`store`]).
fn create_engine(
    ctx: &melior::Context,
    m: &melior::ir::Module,
    opt_level: usize,
    for_cache: bool,
) -> Result<Engine, LowerError> {
    let ((raw, _), diagnostics) = super::with_diagnostics(ctx, || {
        // SAFETY: the module is valid and in the LLVM dialect; the engine copies what it
        // needs (the module may be destroyed afterwards, says the C API).
        let raw = unsafe {
            mlir_sys::mlirExecutionEngineCreate(
                m.to_raw(),
                opt_level.min(3) as i32,
                0,
                std::ptr::null(),
                for_cache,
                for_cache,
            )
        };
        (raw, ())
    });
    if raw.ptr.is_null() {
        return Err(LowerError::Jit(format!(
            "could not translate the module to LLVM IR or compile it: {diagnostics}"
        )));
    }
    // SAFETY: a valid engine, not yet looked up: math symbols bound to Rust's, then the
    // module's global constructors run (none are emitted).
    unsafe {
        super::libm::register(raw);
        mlir_sys::mlirExecutionEngineInitialize(raw);
    }
    Ok(Engine(raw))
}

/// A memref descriptor of rank `r`: `{allocated, aligned, offset, sizes[r], strides[r]}`,
/// all 64-bit.
fn descriptor(data: *mut u8, ty: &TensorType) -> Vec<i64> {
    let mut d = vec![data as i64, data as i64, 0];
    d.extend(ty.shape.iter().map(|&s| s as i64));
    d.extend(ty.strides().iter().map(|&s| s as i64));
    d
}

impl CpuKernel {
    /// The types the kernel takes.
    pub fn inputs(&self) -> &[TensorType] {
        &self.inputs
    }

    /// The types the kernel gives.
    pub fn outputs(&self) -> &[TensorType] {
        &self.outputs
    }

    /// Time spent lowering and compiling (MLIR passes and LLVM).
    /// Whether the kernel was loaded from the disk cache rather than compiled.
    pub fn loaded_from_disk(&self) -> bool {
        matches!(self.code, Code::Cached(_))
    }

    /// Time spent lowering and compiling the kernel (MLIR passes and LLVM).
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// Runs the kernel on one literal per input (splats are expanded); gives the
    /// outputs in fresh literals.
    pub fn run(&self, inputs: &[Literal]) -> Result<Vec<Literal>, LowerError> {
        self.run_refs(&inputs.iter().collect::<Vec<_>>())
    }

    /// Runs the kernel, writing into `outputs` (dense literals of the output types,
    /// reused across calls by a runtime that owns its buffers).
    pub fn run_into(&self, inputs: &[Literal], outputs: &mut [Literal]) -> Result<(), LowerError> {
        let inputs: Vec<&Literal> = inputs.iter().collect();
        self.run_refs_into(&inputs, outputs)
    }

    /// [`CpuKernel::run`] on borrowed inputs.
    pub fn run_refs(&self, inputs: &[&Literal]) -> Result<Vec<Literal>, LowerError> {
        let mut outputs: Vec<Literal> = self
            .outputs
            .iter()
            .map(|t| Literal {
                ty: t.clone(),
                elements: Elements::zeros(t.dtype, t.num_elements()),
            })
            .collect();
        self.run_refs_into(inputs, &mut outputs)?;
        Ok(outputs)
    }

    /// [`CpuKernel::run_into`] on borrowed inputs.
    pub fn run_refs_into(
        &self,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), LowerError> {
        fn check<L: std::borrow::Borrow<Literal>>(
            what: &'static str,
            given: &[L],
            types: &[TensorType],
        ) -> Result<(), LowerError> {
            if given.len() != types.len() {
                return Err(LowerError::Argument {
                    what: if what == "input" {
                        "input count"
                    } else {
                        "output count"
                    },
                    index: given.len(),
                    expected: types.len().to_string(),
                    given: given.len().to_string(),
                });
            }
            for (index, (lit, ty)) in given.iter().zip(types).enumerate() {
                let lit: &Literal = lit.borrow();
                if lit.ty != *ty {
                    return Err(LowerError::Argument {
                        what,
                        index,
                        expected: ty.to_string(),
                        given: lit.ty.to_string(),
                    });
                }
            }
            Ok(())
        }
        check("input", inputs, &self.inputs)?;
        check("output", outputs, &self.outputs)?;
        let dense: Vec<std::borrow::Cow<Literal>> = inputs
            .iter()
            .map(|lit| {
                if lit.is_splat() {
                    std::borrow::Cow::Owned(lit.to_dense())
                } else {
                    std::borrow::Cow::Borrowed(*lit)
                }
            })
            .collect();
        let mut descriptors: Vec<Vec<i64>> = Vec::new();
        for (lit, ty) in dense.iter().zip(&self.inputs) {
            // The kernel never writes its inputs (bufferization.writable = false).
            let data = for_each_elements!(&lit.elements, v => v.as_ptr() as *mut u8);
            descriptors.push(descriptor(data, ty));
        }
        // i1 results land in bytes first: LLVM leaves the upper bits of a stored i1
        // unspecified, and a Rust bool must be 0 or 1.
        let mut bools: Vec<Vec<u8>> = Vec::new();
        for (out, ty) in outputs.iter_mut().zip(&self.outputs) {
            if out.is_splat() {
                *out = out.to_dense();
            }
            let data = match &mut out.elements {
                Elements::I1(_) => {
                    bools.push(vec![0; ty.num_elements()]);
                    bools.last_mut().expect("just pushed").as_mut_ptr()
                }
                e => for_each_elements!(e, v => v.as_mut_ptr().cast::<u8>()),
            };
            descriptors.push(descriptor(data, ty));
        }
        let mut pointers: Vec<*mut i64> = descriptors.iter_mut().map(|d| d.as_mut_ptr()).collect();
        let mut packed: Vec<*mut c_void> = pointers
            .iter_mut()
            .map(|p| p as *mut *mut i64 as *mut c_void)
            .collect();
        // SAFETY: one descriptor per memref argument of `_mlir_ciface_kernel` (inputs,
        // then outputs), each describing a live buffer of exactly its type's elements
        // (types checked above, splats expanded); `packed` holds a pointer to each
        // descriptor pointer, as the packed wrapper reads.
        unsafe { (self.entry)(packed.as_mut_ptr()) };
        let mut bools = bools.into_iter();
        for out in outputs.iter_mut() {
            if let Elements::I1(v) = &mut out.elements {
                let bytes = bools.next().expect("one byte buffer per i1 output");
                *v = bytes.into_iter().map(|b| b & 1 != 0).collect();
            }
        }
        Ok(())
    }
}

impl Kernel for CpuKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let mut outputs: Vec<Literal> = self.outputs.iter().map(|t| buffers.take(t)).collect();
        self.run_refs_into(inputs, &mut outputs)?;
        Ok(outputs)
    }
}

pub use super::native::{KernelTime, NativeCompute, NativeStats};
pub use super::tier::Tiering;
