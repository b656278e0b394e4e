//! Kernels through MLIR: a compute segment of a per-device function becomes one MLIR
//! module, then native code (CPU: [`cpu`], a JIT through MLIR's execution engine) or PTX
//! text (GPU: [`gpu`]).
//!
//! ```text
//!  Segment (runtime::engine::steps)      straight run of compute ops
//!     | segment_function                 a shardc Function: inputs -> outputs
//!     | lower (linalg.rs, scalar.rs)     func.func @kernel over tensors: linalg / tensor /
//!     |                                  arith / math, one table entry per op kind
//!     | fuse                             linalg-fuse-elementwise-ops: chains of
//!     |                                  elementwise ops become one linalg.generic
//!     | approximate (approx.rs)          math.exp & co -> polynomials (f32)
//!   cpu.rs: tile + vectorize matmuls (transform dialect), one-shot-bufferize, LLVM, JIT
//!   gpu.rs: bufferize, linalg ops -> blocks x threads (transform dialect), a tiled
//!           shared-memory matmul kernel (gpu_matmul.rs), NVVM, PTX text
//! ```
//!
//! Every stage is MLIR text: [`Lowered::text`], [`fused`], and the module after each
//! pipeline stage (`cpu::compile_with_stages`, `gpu::compile_with_stages`), so tests
//! compare text. What the lowering does per op, the pipelines and the measured figures
//! are in `docs/kernels.md`.

mod approx;
pub mod cache;
pub mod cluster;
mod conv;
pub mod cpu;
pub mod gemm;
pub mod gpu;
mod gpu_matmul;
pub mod gpu_program;
mod libm;
pub mod linalg;
pub mod native;
mod reductions;
mod scalar;
pub mod tier;

use melior::Context;
use melior::pass::PassManager;
use shardc_ir::{Function, FunctionBuilder, IrError, TensorType, ValueId};
use shardc_runtime::engine::Segment;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use thiserror::Error;

/// Why a segment could not become a kernel.
#[derive(Debug, Error)]
pub enum LowerError {
    /// An op kernels do not lower (or an op of a reducer body, or an element type an op
    /// is not defined on); says which op, where, why, and what to do instead.
    #[error("{op} defining {at}: {why}; {fix}")]
    Unsupported {
        /// The op.
        op: String,
        /// Where it is (its value and function).
        at: String,
        /// Why it is not lowered.
        why: String,
        /// What to do instead.
        fix: String,
    },

    /// MLIR refused a module or a pass failed on it. The lowering must only produce
    /// what MLIR accepts, so this is a shardc bug; the diagnostics say where.
    #[error("MLIR could not {stage} the kernel module:\n{diagnostics}")]
    Mlir {
        /// What MLIR was asked to do (`parse`, `lower`, ...).
        stage: String,
        /// The diagnostics MLIR emitted.
        diagnostics: String,
    },

    /// A GPU target LLVM cannot compile for (it would abort the process).
    #[error("GPU target {chip} with PTX ISA {ptx}: {why}; {fix}")]
    Target {
        /// The chip asked for.
        chip: String,
        /// The PTX ISA version asked for.
        ptx: String,
        /// Why LLVM cannot compile for it.
        why: String,
        /// A target that works.
        fix: String,
    },

    /// Values handed to a kernel that do not match its signature.
    #[error("kernel {what} {index}: expected {expected}, got {given}")]
    Argument {
        /// `input` or `output`.
        what: &'static str,
        /// Which one.
        index: usize,
        /// The type the kernel takes.
        expected: String,
        /// The type it was given.
        given: String,
    },

    /// The execution engine could not be created or has no kernel entry point.
    #[error("the MLIR execution engine failed: {0}")]
    Jit(String),

    /// The IR the kernel was built from broke a typing rule.
    #[error(transparent)]
    Ir(#[from] IrError),
}

/// What the emitted tensor program is shaped for: the CPU path tiles and vectorizes
/// named matmuls; the GPU path writes its own shared-memory matmul kernel and gives
/// every loop nest at least one parallel dimension (a GPU grid needs one).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// For the CPU: named matmuls tiled and vectorized.
    Cpu,
    /// For a GPU: shared-memory matmul kernels, parallel loop nests.
    Gpu,
}

/// How math functions (`exp`, `log`, `tanh`, `sin`, `pow`, ...) are computed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Math {
    /// f32: MLIR's polynomial approximations (a few ulp from libm; vectorizable, like
    /// XLA's CPU backend; the only choice on GPUs without libdevice); `pow` as
    /// `exp(y log|x|)` with C's special cases; f64: libm (CPU) or libdevice (GPU).
    Approximate,
    /// libm's functions (`expf`, `powf`, ...), as the reference interpreter calls them
    /// (CPU only).
    Libm,
}

/// A segment as one MLIR module: `func.func @kernel(inputs) -> outputs` over tensors.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The module text (linalg, tensor, arith, math, scf; gpu for GPU matmuls).
    pub text: String,
    /// The module's ops without the `module { }` around them: `func.func @kernel` and
    /// declarations of the libm functions it calls.
    pub ops: String,
    /// The kernel's argument types.
    pub inputs: Vec<TensorType>,
    /// The kernel's result types.
    pub outputs: Vec<TensorType>,
    /// The named matmuls of the module (CPU), tagged `shardc.mm = i`, for tiling.
    pub matmuls: Vec<Matmul>,
}

/// One `linalg.matmul` of a lowered module: `[m, k] x [k, n]` of `dtype`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matmul {
    /// Its `shardc.mm` tag.
    pub tag: usize,
    /// Rows of the left operand and the result.
    pub m: usize,
    /// Columns of the right operand and the result.
    pub n: usize,
    /// The contracted size.
    pub k: usize,
    /// The operands' element type.
    pub dtype: shardc_ir::DType,
}

/// The name of the kernel function in every lowered module.
pub const KERNEL: &str = "kernel";

/// The segment as a function of its own: its inputs are the arguments, its outputs the
/// results. Op shardings and extra attributes are dropped (they do not change what a
/// device computes), so identical local programs print identically.
pub fn segment_function(f: &Function, segment: &Segment) -> Result<Function, LowerError> {
    let types: Vec<TensorType> = segment.inputs.iter().map(|&v| f.ty(v).clone()).collect();
    let mut b = FunctionBuilder::new(KERNEL, &types);
    let mut map: HashMap<ValueId, ValueId> = segment.inputs.iter().copied().zip(b.args()).collect();
    for &o in &segment.ops {
        let op = f.op(o);
        let results = b.copy_op(f, op, &mut map)?;
        if let Some(&r) = results.first() {
            let id = b.func().defining_op(r).expect("copy_op made an op");
            let copied = b.op_mut(id);
            copied.shardings = None;
            copied.attrs.clear();
        }
    }
    let results: Vec<ValueId> = segment.outputs.iter().map(|v| map[v]).collect();
    Ok(b.finish(&results))
}

/// The whole body of `f` as one segment (no per-device ops allowed).
pub fn whole_function(f: &Function) -> Result<Function, LowerError> {
    let steps = shardc_runtime::engine::steps(f);
    if let Some(shardc_runtime::engine::Step::PerDevice(o)) = steps
        .iter()
        .find(|s| matches!(s, shardc_runtime::engine::Step::PerDevice(_)))
    {
        let op = f.op(*o);
        return Err(LowerError::Unsupported {
            op: op.kind.name(),
            at: format!("@{}", f.name),
            why: "it is a per-device op (a collective), which the device runs between kernels"
                .into(),
            fix: "cut the function into segments with shardc_runtime::engine::steps and lower each"
                .into(),
        });
    }
    let segment = Segment {
        ops: f.body().ops.clone(),
        inputs: f.args().to_vec(),
        outputs: f.results().to_vec(),
    };
    segment_function(f, &segment)
}

/// Emits the tensor-level MLIR module of a segment function (see [`linalg`]).
pub fn lower(f: &Function, flavour: Flavour, math: Math) -> Result<Lowered, LowerError> {
    linalg::emit(f, flavour, math)
}

/// Prepares MLIR for kernels once per process: every upstream pass, and the
/// polynomial approximations of math functions ([`approx`]).
fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        melior::utility::register_all_passes();
        approx::register();
    });
}

/// A fresh MLIR context for one kernel compilation (MLIR contexts are not `Send`;
/// each compilation owns one), single-threaded (kernels are small; the caller
/// decides about threads). Every upstream dialect is registered but none loaded up front:
/// the parser and the passes load the ones a kernel uses (loading all of them took
/// ~10 ms per kernel, a third of an O0 compile; now ~0.4 ms).
pub(crate) fn kernel_context() -> Context {
    init();
    let registry = melior::dialect::DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let ctx = Context::new_with_registry(&registry, false);
    ctx.set_allow_unregistered_dialects(true);
    ctx.enable_multi_threading(false);
    // GPU modules are serialized through LLVM IR (gpu-module-to-binary).
    melior::utility::register_all_llvm_translations(&ctx);
    ctx
}

/// Runs `f` while collecting the context's diagnostics.
pub(crate) fn with_diagnostics<T>(ctx: &Context, f: impl FnOnce() -> T) -> (T, String) {
    let diagnostics: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = Rc::clone(&diagnostics);
    let handler = ctx.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {d}", d.location()));
        true
    });
    let out = f();
    ctx.detach_diagnostic_handler(handler);
    let text = diagnostics.borrow().join("\n");
    (out, text)
}

/// Parses and verifies module text.
pub(crate) fn parse<'c>(
    ctx: &'c Context,
    text: &str,
) -> Result<melior::ir::Module<'c>, LowerError> {
    crate::passes::mlir::parse_and_verify(ctx, text).map_err(|e| match e {
        crate::error::CompileError::Mlir { stage, diagnostics } => LowerError::Mlir {
            stage: stage.to_string(),
            diagnostics: format!("{diagnostics}\n--- module ---\n{text}"),
        },
        other => LowerError::Mlir {
            stage: "parse".into(),
            diagnostics: other.to_string(),
        },
    })
}

/// Runs a textual pass pipeline (`builtin.module(...)`) on a module; `stage` names it
/// in errors.
pub(crate) fn run_pipeline(
    ctx: &Context,
    module: &mut melior::ir::Module,
    pipeline: &str,
    stage: &str,
) -> Result<(), LowerError> {
    let pm = PassManager::new(ctx);
    let parsed = melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline);
    if let Err(e) = parsed {
        return Err(LowerError::Mlir {
            stage: format!("build the pass pipeline for {stage}"),
            diagnostics: format!("{e}: {pipeline}"),
        });
    }
    let (result, diagnostics) = with_diagnostics(ctx, || pm.run(module));
    result.map_err(|_| LowerError::Mlir {
        stage: stage.to_string(),
        diagnostics: format!(
            "{diagnostics}\n--- module before {stage} failed (after partial rewriting) ---\n{}",
            module.as_operation()
        ),
    })
}

/// The tensor-level module after elementwise fusion (canonicalized), as text: what the
/// backends start from. `approximate` also replaces f32 transcendental functions by
/// polynomials.
pub fn fused(lowered: &Lowered, approximate: bool) -> Result<String, LowerError> {
    let ctx = kernel_context();
    let mut m = parse(&ctx, &lowered.text)?;
    run_pipeline(&ctx, &mut m, &fusion_pipeline(approximate), "fuse")?;
    Ok(m.as_operation().to_string())
}

/// Elementwise fusion and, when asked, polynomial approximation of math functions.
///
/// No `cse` on tensors: it would merge identical results (two outputs computing the
/// same thing) into one value, and a buffer returned twice crashes
/// `buffer-results-to-out-params` (MLIR 22); CSE runs after bufferization instead.
pub(crate) fn fusion_pipeline(approximate: bool) -> String {
    let mut passes = vec![
        "canonicalize",
        "linalg-fuse-elementwise-ops",
        "canonicalize",
    ];
    if approximate {
        passes.extend(approx::PASSES);
    }
    format!("builtin.module({})", passes.join(","))
}
