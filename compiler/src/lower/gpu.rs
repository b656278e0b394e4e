//! The GPU backend: a segment's MLIR module through the `gpu` dialect to NVVM and PTX
//! text, with no CUDA installation (LLVM's NVPTX back end writes the PTX; nothing runs).
//!
//! The pipeline ([`compile`]):
//!
//! 1. [`Target::validate`] — before MLIR sees the target: LLVM aborts the whole process
//!    on a chip / PTX ISA pair it cannot compile (`LLVM ERROR: PTX version 7.0 does not
//!    support target 'sm_90'`), and silently ignores chips and PTX versions it does not
//!    know;
//! 2. `lower` (GPU flavour): every loop nest has a parallel loop; `dot_general` is the
//!    tiled shared-memory kernel of `gpu_matmul.rs`;
//! 3. `fuse`, with polynomial approximations of f32 math functions (no libdevice);
//!    f64 math functions need [`Target::libdevice`];
//! 4. one-shot bufferization (copies as `linalg.copy`), results as out-parameters,
//!    named ops generalized;
//! 5. `map` (transform dialect, `mapping_script`): each `linalg.generic` tiled into
//!    blocks (`scf.forall` mapped to `#gpu.block<x/y/z>`, the innermost parallel loop
//!    on x) and threads (up to 256 per block, consecutive threads on consecutive
//!    elements of the innermost dimension), then `gpu.launch`es;
//! 6. `gpu-kernel-outlining`; the host function must hold only allocations, views and
//!    launches (`check_host`); the launches are read off ([`Launch`]);
//! 7. `gpu-lower-to-nvvm-pipeline{cubin-format=isa cubin-chip=.. cubin-features=+ptxNN}`
//!    (remaining `math` ops — fma, floor, sqrt, ... — go to LLVM intrinsics first, which
//!    NVPTX has natively, unless a libdevice path is given), and the PTX text is read
//!    from each `gpu.binary`.

use super::{Flavour, LowerError, kernel_context, parse, run_pipeline};
use melior::ir::attribute::{ArrayAttribute, AttributeLike};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, Module as MlirModule};
use melior::ir::{BlockLike, RegionLike, ValueLike};
use shardc_ir::Function;
use std::path::PathBuf;

/// An NVIDIA GPU to compile for: a chip (`sm_90`) and a PTX ISA version (80 = 8.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The chip, `sm_80` or `sm_90`.
    pub chip: String,
    /// The PTX ISA version times ten (80 = 8.0).
    pub ptx: u32,
    /// CUDA's `libdevice.10.bc`, linked for math functions without approximations here
    /// (f64 `exp`, `log`, `sin`, ...). Not needed for f32.
    pub libdevice: Option<PathBuf>,
}

/// Chips LLVM 22's NVPTX back end knows, with the lowest PTX ISA version each needs
/// (LLVM's own table; a lower version aborts the process).
pub const CHIPS: &[(&str, u32)] = &[
    ("sm_70", 60),
    ("sm_72", 61),
    ("sm_75", 63),
    ("sm_80", 70),
    ("sm_86", 71),
    ("sm_87", 74),
    ("sm_89", 78),
    ("sm_90", 78),
    ("sm_90a", 80),
    ("sm_100", 86),
    ("sm_100a", 86),
    ("sm_101", 86),
    ("sm_120", 87),
    ("sm_120a", 87),
];

/// PTX ISA versions LLVM 22 can emit (`llc -march=nvptx64 -mattr=help`); others are
/// ignored with a warning, and the default version used instead.
pub const PTX_VERSIONS: &[u32] = &[
    60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88,
    90,
];

impl Target {
    /// `sm_80` (A100) with PTX ISA 7.0.
    pub fn sm80() -> Target {
        Target {
            chip: "sm_80".into(),
            ptx: 70,
            libdevice: None,
        }
    }

    /// `sm_90` (H100) with PTX ISA 8.0.
    pub fn sm90() -> Target {
        Target {
            chip: "sm_90".into(),
            ptx: 80,
            libdevice: None,
        }
    }

    /// The target linking CUDA's `libdevice.10.bc` from `path`.
    pub fn with_libdevice(mut self, path: impl Into<PathBuf>) -> Target {
        self.libdevice = Some(path.into());
        self
    }

    /// `7.0` for 70.
    fn ptx_text(&self) -> String {
        format!("{}.{}", self.ptx / 10, self.ptx % 10)
    }

    fn error(&self, why: String, fix: String) -> LowerError {
        LowerError::Target {
            chip: self.chip.clone(),
            ptx: self.ptx_text(),
            why,
            fix,
        }
    }

    /// Checks the pair against LLVM's tables (see [`CHIPS`], [`PTX_VERSIONS`]).
    pub fn validate(&self) -> Result<(), LowerError> {
        let Some(&(_, min)) = CHIPS.iter().find(|(c, _)| *c == self.chip) else {
            let known: Vec<&str> = CHIPS.iter().map(|(c, _)| *c).collect();
            return Err(self.error(
                "LLVM's NVPTX back end does not know this chip".into(),
                format!("use one of {}", known.join(", ")),
            ));
        };
        if !PTX_VERSIONS.contains(&self.ptx) {
            let max = PTX_VERSIONS.last().copied().unwrap_or(min);
            return Err(self.error(
                "LLVM 22 cannot emit this PTX ISA version".into(),
                format!(
                    "use a version from {}.{} to {}.{} (ptx: {min} to {max})",
                    min / 10,
                    min % 10,
                    max / 10,
                    max % 10
                ),
            ));
        }
        if self.ptx < min {
            return Err(self.error(
                format!(
                    "{} needs PTX ISA {}.{} or later (LLVM would abort the process)",
                    self.chip,
                    min / 10,
                    min % 10
                ),
                format!("raise ptx to at least {min}"),
            ));
        }
        if let Some(p) = &self.libdevice
            && !p.is_file()
        {
            return Err(self.error(
                format!("libdevice {} is not a file", p.display()),
                "give the path of CUDA's nvvm/libdevice/libdevice.10.bc, or none".into(),
            ));
        }
        Ok(())
    }
}

/// One kernel launch of a compiled segment, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The kernel's entry point in the PTX (`.visible .entry NAME`).
    pub kernel: String,
    /// Blocks per grid, x y z.
    pub grid: [u64; 3],
    /// Threads per block, x y z.
    pub block: [u64; 3],
}

/// A segment compiled for a GPU: the PTX of each kernel and the launches that run it.
#[derive(Clone, Debug)]
pub struct Ptx {
    /// The GPU it was compiled for.
    pub target: Target,
    /// (kernel module name, PTX text), one per kernel.
    pub modules: Vec<(String, String)>,
    /// The kernel launches, in program order.
    pub launches: Vec<Launch>,
}

impl Ptx {
    /// Every module's PTX after a header naming its launch: what snapshots compare.
    pub fn as_text(&self) -> String {
        let mut s = String::new();
        for ((name, ptx), l) in self.modules.iter().zip(&self.launches) {
            s.push_str(&format!(
                "// ===== {name}: {} grid {:?} block {:?}\n{ptx}\n",
                l.kernel, l.grid, l.block
            ));
        }
        s
    }
}

/// Threads per block (at most), along the innermost parallel loop first.
pub const BLOCK_THREADS: u64 = 256;

/// The loops of one `linalg.generic`: iterator types and static ranges.
struct LoopNest {
    parallel: Vec<bool>,
    ranges: Vec<i64>,
}

/// Reads the loop nest of a (bufferized) `linalg.generic`: iterator types from
/// `iterator_types`, each loop's range from an operand dimension its index maps to.
fn loop_nest(op: &melior::ir::OperationRef) -> Option<LoopNest> {
    let iters = ArrayAttribute::try_from(op.attribute("iterator_types").ok()?).ok()?;
    let parallel: Vec<bool> = (0..iters.len())
        .map(|i| {
            iters
                .element(i)
                .map(|a| a.to_string().contains("parallel"))
                .unwrap_or(false)
        })
        .collect();
    let maps = ArrayAttribute::try_from(op.attribute("indexing_maps").ok()?).ok()?;
    let mut ranges = vec![-1i64; parallel.len()];
    for i in 0..maps.len() {
        let attr: Attribute = maps.element(i).ok()?;
        let operand = op.operand(i).ok()?;
        // SAFETY: plain C API queries on live attributes, types and values of `op`.
        unsafe {
            let map = mlir_sys::mlirAffineMapAttrGetValue(attr.to_raw());
            let ty = mlir_sys::mlirValueGetType(operand.to_raw());
            for r in 0..mlir_sys::mlirAffineMapGetNumResults(map) {
                let e = mlir_sys::mlirAffineMapGetResult(map, r);
                if mlir_sys::mlirAffineExprIsADim(e) {
                    let d = mlir_sys::mlirAffineDimExprGetPosition(e) as usize;
                    ranges[d] = mlir_sys::mlirShapedTypeGetDimSize(ty, r);
                }
            }
        }
    }
    if ranges.iter().any(|&r| r < 0) {
        return None;
    }
    Some(LoopNest { parallel, ranges })
}

/// How one loop nest is laid out on the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Mapping {
    /// Tile of each loop per block (0: not tiled: the block loops over all of it).
    block_tile: Vec<i64>,
    /// Threads along each loop in a block (0: not distributed).
    threads: Vec<i64>,
    block_dims: [i64; 3],
}

fn mapping(nest: &LoopNest) -> Option<Mapping> {
    let par: Vec<usize> = (0..nest.parallel.len())
        .filter(|&d| nest.parallel[d])
        .collect();
    let n = nest.parallel.len();
    let mut block_tile = vec![0; n];
    let mut threads = vec![0; n];
    // x: the innermost parallel loop; y, z: the next ones outwards.
    let x = *par.last()?;
    let tx = nest.ranges[x].min(BLOCK_THREADS as i64).max(1);
    block_tile[x] = tx;
    threads[x] = tx;
    let mut block_dims = [tx, 1, 1];
    if par.len() >= 2 {
        let y = par[par.len() - 2];
        let ty = nest.ranges[y].min(BLOCK_THREADS as i64 / tx).max(1);
        block_tile[y] = ty;
        if ty > 1 {
            threads[y] = ty;
            block_dims[1] = ty;
        }
    }
    if par.len() >= 3 {
        block_tile[par[par.len() - 3]] = 1;
    }
    Some(Mapping {
        block_tile,
        threads,
        block_dims,
    })
}

/// The transform script distributing each tagged generic (`shardc.gpu = i`) over
/// blocks and threads.
fn mapping_script(maps: &[Mapping]) -> String {
    let any = "!transform.any_op";
    let mut s = format!(
        "  transform.named_sequence @__transform_main(%root: {any} {{transform.readonly}}) {{\n"
    );
    let dims = ["x", "y", "z"];
    for (i, m) in maps.iter().enumerate() {
        let list = |v: &[i64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The mapping attribute lists one id per tiled loop, outermost first.
        let tiled: Vec<usize> = (0..m.block_tile.len())
            .filter(|&d| m.block_tile[d] > 0)
            .collect();
        let blocks: Vec<String> = tiled
            .iter()
            .enumerate()
            .map(|(k, _)| format!("#gpu.block<{}>", dims[tiled.len() - 1 - k]))
            .collect();
        let distributed: Vec<usize> = (0..m.threads.len()).filter(|&d| m.threads[d] > 0).collect();
        let threads: Vec<String> = distributed
            .iter()
            .enumerate()
            .map(|(k, _)| format!("#gpu.thread<{}>", dims[distributed.len() - 1 - k]))
            .collect();
        s.push_str(&format!(
            "    %o{i} = transform.structured.match attributes {{shardc.gpu = {i} : i64}} in %root : ({any}) -> {any}\n\
             \x20   %t{i}, %f{i} = transform.structured.tile_using_forall %o{i} tile_sizes [{}] (mapping = [{}]) : ({any}) -> ({any}, {any})\n\
             \x20   %u{i}, %g{i} = transform.structured.tile_using_forall %t{i} num_threads [{}] (mapping = [{}]) : ({any}) -> ({any}, {any})\n\
             \x20   %l{i} = transform.gpu.map_forall_to_blocks %f{i} generate_gpu_launch : ({any}) -> {any}\n\
             \x20   transform.gpu.map_nested_forall_to_threads %l{i} block_dims = [{}] : ({any}) -> {any}\n",
            list(&m.block_tile),
            blocks.join(", "),
            list(&m.threads),
            threads.join(", "),
            list(&m.block_dims),
        ));
    }
    s.push_str("    transform.yield\n  }\n");
    s
}

/// The module after each stage of the GPU pipeline, for inspection and tests.
pub type Stages = super::cpu::Stages;

/// Compiles a segment function to PTX for `target`.
pub fn compile(f: &Function, target: &Target) -> Result<Ptx, LowerError> {
    compile_with_stages(f, target, None)
}

/// [`compile`], keeping the module after each stage.
pub fn compile_with_stages(
    f: &Function,
    target: &Target,
    mut stages: Option<&mut Stages>,
) -> Result<Ptx, LowerError> {
    target.validate()?;
    let lowered = super::lower(f, Flavour::Gpu, super::Math::Approximate)?;
    let mut keep = |stage: &'static str, text: String| {
        if let Some(s) = stages.as_deref_mut() {
            s.texts.push((stage, text));
        }
    };
    keep("lower", lowered.text.clone());
    let ctx = kernel_context();
    let bufferize = "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {\n    %f = transform.structured.match ops{[\"func.func\"]} in %root : (!transform.any_op) -> !transform.any_op\n    transform.bufferization.eliminate_empty_tensors %f : !transform.any_op\n    %b = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %root {bufferize_function_boundaries = true, memcpy_op = \"linalg.copy\"} : (!transform.any_op) -> !transform.any_op\n    transform.yield\n  }\n";
    let text = format!(
        "module attributes {{transform.with_named_sequence}} {{\n{}{bufferize}}}\n",
        lowered.ops
    );
    let mut m = parse(&ctx, &text)?;
    run_pipeline(&ctx, &mut m, &super::fusion_pipeline(true), "fuse")?;
    keep("fuse", m.as_operation().to_string());
    if target.libdevice.is_none() {
        check_math(&m)?;
        to_intrinsics(&ctx, &m)?;
    }
    run_pipeline(
        &ctx,
        &mut m,
        "builtin.module(transform-interpreter)",
        "bufferize",
    )?;
    super::cpu::remove_transform_script(&mut m);
    run_pipeline(
        &ctx,
        &mut m,
        "builtin.module(linalg-generalize-named-ops,canonicalize,cse)",
        "bufferize",
    )?;
    keep("bufferize", m.as_operation().to_string());
    let maps = tag_loop_nests(&ctx, &mut m)?;
    let text = format!(
        "module attributes {{transform.with_named_sequence}} {{\n{}{}}}\n",
        module_body(&m),
        mapping_script(&maps)
    );
    let mut m = parse(&ctx, &text)?;
    run_pipeline(&ctx, &mut m, "builtin.module(transform-interpreter)", "map")?;
    super::cpu::remove_transform_script(&mut m);
    run_pipeline(
        &ctx,
        &mut m,
        "builtin.module(canonicalize,convert-linalg-to-loops)",
        "outline",
    )?;
    sink_globals(&m);
    run_pipeline(
        &ctx,
        &mut m,
        "builtin.module(gpu-launch-sink-index-computations,gpu-kernel-outlining,canonicalize,cse)",
        "outline",
    )?;
    keep("outline", m.as_operation().to_string());
    check_host(&m)?;
    let launches = read_launches(&m)?;
    let mut passes = Vec::new();
    if let Some(p) = &target.libdevice {
        passes.push(format!(
            "nvvm-attach-target{{chip={} features=+ptx{} O=3 l={}}}",
            target.chip,
            target.ptx,
            p.display()
        ));
    } else {
        passes.push("gpu.module(convert-math-to-llvm)".to_string());
    }
    passes.push(format!(
        "gpu-lower-to-nvvm-pipeline{{cubin-format=isa cubin-chip={} cubin-features=+ptx{} opt-level=3}}",
        target.chip, target.ptx
    ));
    run_pipeline(
        &ctx,
        &mut m,
        &format!("builtin.module({})", passes.join(",")),
        "nvvm",
    )?;
    let modules = read_ptx(&m, target.libdevice.is_some())?;
    if target.libdevice.is_none()
        && let Some((name, _)) = modules
            .iter()
            .find(|(_, p)| p.contains(".extern .func __nv_"))
    {
        return Err(LowerError::Unsupported {
            op: "a math function".into(),
            at: format!("kernel {name}"),
            why: "it calls CUDA's libdevice".into(),
            fix: "give Target::with_libdevice(path to libdevice.10.bc)".into(),
        });
    }
    Ok(Ptx {
        target: target.clone(),
        modules,
        launches,
    })
}

/// The text of a module's top-level ops (without the `module { }` around them).
fn module_body(m: &MlirModule) -> String {
    let mut s = String::new();
    let mut op = m.body().first_operation();
    while let Some(o) = op {
        s.push_str(&o.to_string());
        s.push('\n');
        op = o.next_in_block();
    }
    s
}

/// Math functions that NVPTX lowers by itself (the rest come from libdevice).
const NATIVE_MATH: &[&str] = &[
    "math.fma",
    "math.absf",
    "math.absi",
    "math.floor",
    "math.ceil",
    "math.sqrt",
    "math.rsqrt",
    "math.copysign",
    "math.roundeven",
    "math.round",
    "math.trunc",
    "math.ctlz",
    "math.cttz",
    "math.ctpop",
    "math.fpowi",
];

/// Fails on a math function that would need libdevice (f64 transcendentals: the
/// polynomial approximations are f32 only).
fn check_math(m: &MlirModule) -> Result<(), LowerError> {
    let mut bad: Option<String> = None;
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
            if name.starts_with("math.") && !NATIVE_MATH.contains(&name.as_str()) && bad.is_none() {
                let ty = op
                    .result(0)
                    .map(|r| r.r#type().to_string())
                    .unwrap_or_default();
                bad = Some(format!("{name} on {ty}"));
            }
            melior::ir::operation::WalkResult::Advance
        });
    match bad {
        None => Ok(()),
        Some(op) => Err(LowerError::Unsupported {
            op,
            at: "a GPU kernel".into(),
            why: "only f32 math functions have polynomial approximations here; this one would call CUDA's libdevice".into(),
            fix: "compute it in f32, or give Target::with_libdevice(path to libdevice.10.bc)".into(),
        }),
    }
}

/// Math ops that NVPTX implements itself but that `convert-gpu-to-nvvm` turns into
/// libdevice calls (it marks their LLVM intrinsics illegal): called as LLVM
/// intrinsics instead.
const INTRINSICS: &[(&str, &str)] = &[
    ("math.absf", "llvm.fabs"),
    ("math.floor", "llvm.floor"),
    ("math.ceil", "llvm.ceil"),
    ("math.sqrt", "llvm.sqrt"),
    ("math.roundeven", "llvm.roundeven"),
    ("math.round", "llvm.round"),
    ("math.trunc", "llvm.trunc"),
    ("math.copysign", "llvm.copysign"),
];

/// Replaces each op of [`INTRINSICS`] by `llvm.call_intrinsic` of the LLVM intrinsic.
fn to_intrinsics(ctx: &melior::Context, m: &MlirModule) -> Result<(), LowerError> {
    use melior::ir::attribute::{DenseI32ArrayAttribute, StringAttribute};
    use melior::ir::operation::OperationBuilder;
    use melior::ir::{Identifier, Type, Value};
    let mut found: Vec<mlir_sys::MlirOperation> = Vec::new();
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
            if INTRINSICS.iter().any(|(n, _)| *n == name) {
                found.push(op.to_raw());
            }
            melior::ir::operation::WalkResult::Advance
        });
    for raw in found {
        // SAFETY: each handle is a live op found above; ops are only erased after their
        // own replacement, and no two handles alias.
        let op = unsafe { melior::ir::OperationRef::from_raw(raw) };
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let intrinsic = INTRINSICS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, i)| *i)
            .expect("collected above");
        let result = op.result(0).map_err(|e| LowerError::Mlir {
            stage: "call intrinsics".into(),
            diagnostics: e.to_string(),
        })?;
        let ty: Type = result.r#type();
        let suffix = ty.to_string();
        let operands: Vec<Value> = op.operands().collect();
        let call = OperationBuilder::new("llvm.call_intrinsic", op.location())
            .add_attributes(&[
                (
                    Identifier::new(ctx, "intrin"),
                    StringAttribute::new(ctx, &format!("{intrinsic}.{suffix}")).into(),
                ),
                (
                    Identifier::new(ctx, "op_bundle_sizes"),
                    DenseI32ArrayAttribute::new(ctx, &[]).into(),
                ),
                (
                    Identifier::new(ctx, "operandSegmentSizes"),
                    DenseI32ArrayAttribute::new(ctx, &[operands.len() as i32, 0]).into(),
                ),
            ])
            .add_operands(&operands)
            .add_results(&[ty])
            .build()
            .map_err(|e| LowerError::Mlir {
                stage: "call intrinsics".into(),
                diagnostics: format!("{e}: {op}"),
            })?;
        let block = op.block().ok_or_else(|| LowerError::Mlir {
            stage: "call intrinsics".into(),
            diagnostics: format!("no block around {op}"),
        })?;
        let call = block.insert_operation_before(op, call);
        // SAFETY: both values are live results of ops in this module; the old op is
        // unlinked and destroyed once nothing uses it.
        unsafe {
            let new = mlir_sys::mlirOperationGetResult(call.to_raw(), 0);
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), new);
            mlir_sys::mlirOperationRemoveFromParent(raw);
            mlir_sys::mlirOperationDestroy(raw);
        }
    }
    Ok(())
}

/// Tags every top-level `linalg.generic` with `shardc.gpu = i` and plans its mapping;
/// generics with an empty loop (nothing to do on buffers) are erased.
fn tag_loop_nests(ctx: &melior::Context, m: &mut MlirModule) -> Result<Vec<Mapping>, LowerError> {
    let mut maps = Vec::new();
    let mut func = m.body().first_operation();
    while let Some(f) = func {
        func = f.next_in_block();
        if f.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let Ok(region) = f.region(0) else { continue };
        let Some(block) = region.first_block() else {
            continue;
        };
        let mut op = block.first_operation();
        while let Some(o) = op {
            op = o.next_in_block();
            let name = o.name().as_string_ref().as_str().unwrap_or("").to_string();
            if !name.starts_with("linalg.") {
                continue;
            }
            let nest = (name == "linalg.generic")
                .then(|| loop_nest(&o))
                .flatten()
                .ok_or_else(|| LowerError::Mlir {
                    stage: "map loops to the GPU".into(),
                    diagnostics: format!("no loop nest to map in {o}"),
                })?;
            if nest.ranges.contains(&0) {
                // SAFETY: unlinked from its block, then destroyed; `op` already points
                // at the next op.
                unsafe {
                    mlir_sys::mlirOperationRemoveFromParent(o.to_raw());
                    mlir_sys::mlirOperationDestroy(o.to_raw());
                }
                continue;
            }
            let attr = melior::ir::attribute::IntegerAttribute::new(
                melior::ir::r#type::IntegerType::new(ctx, 64).into(),
                maps.len() as i64,
            );
            // SAFETY: sets a discardable attribute on a live op of this module.
            unsafe {
                let name = "shardc.gpu";
                mlir_sys::mlirOperationSetDiscardableAttributeByName(
                    o.to_raw(),
                    mlir_sys::MlirStringRef {
                        data: name.as_ptr() as *const _,
                        length: name.len(),
                    },
                    attr.to_raw(),
                );
            }
            maps.push(mapping(&nest).ok_or_else(|| LowerError::Mlir {
                stage: "map loops to the GPU".into(),
                diagnostics: format!("a loop nest without a parallel loop: {o}"),
            })?);
        }
    }
    Ok(maps)
}

/// Whether `op` is nested (at any depth) inside `ancestor`.
///
/// # Safety
/// Both must be live ops.
unsafe fn is_inside(op: mlir_sys::MlirOperation, ancestor: mlir_sys::MlirOperation) -> bool {
    let mut cur = op;
    loop {
        // SAFETY: walking parents of a live op.
        cur = unsafe { mlir_sys::mlirOperationGetParentOperation(cur) };
        if cur.ptr.is_null() {
            return false;
        }
        if cur.ptr == ancestor.ptr {
            return true;
        }
    }
}

/// Views (of a constant global) the host function may make with no operand but the
/// viewed buffer: sunk into kernels with the global they view.
const VIEWS: &[&str] = &[
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
];

/// The name of an op.
///
/// # Safety
/// `op` must be a live op.
unsafe fn op_name(op: mlir_sys::MlirOperation) -> String {
    // SAFETY: the name of a live op is a string owned by its context.
    unsafe {
        let id = mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op));
        let bytes = std::slice::from_raw_parts(id.data as *const u8, id.length);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Constants with distinct elements are module globals (`memref.get_global`) read on
/// the host, possibly through views (a slice or transpose of a constant folded into the
/// global). Each `gpu.launch` that reads one gets its own copy of the global read and of
/// the views on the way, at the start of its body, so outlining copies the global into
/// the kernel's module (device memory); host reads left without uses are erased.
fn sink_globals(m: &MlirModule) {
    let mut launches = Vec::new();
    // Global reads and views of them, definitions before uses (pre-order).
    let mut chain: Vec<mlir_sys::MlirOperation> = Vec::new();
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let raw = op.to_raw();
            match op.name().as_string_ref().as_str() {
                Ok("gpu.launch") => launches.push(raw),
                Ok("memref.get_global") => chain.push(raw),
                Ok(name) if VIEWS.contains(&name) && op.operand_count() == 1 => {
                    let source = op.operand(0).ok().and_then(|v| {
                        melior::ir::operation::OperationResult::try_from(v)
                            .ok()
                            .map(|r| r.owner().to_raw())
                    });
                    if source.is_some_and(|s| chain.iter().any(|c| c.ptr == s.ptr)) {
                        chain.push(raw);
                    }
                }
                _ => {}
            }
            melior::ir::operation::WalkResult::Advance
        });
    // SAFETY: C API calls on live ops of this module. Uses are collected before any op
    // is cloned; clones are inserted at the start of a launch body (a view after its
    // source's clone) and uses inside that launch are redirected to them; host ops left
    // without uses are erased, views before the reads they view; no handle outlives
    // its op.
    unsafe {
        chain.retain(|&c| !launches.iter().any(|&l| is_inside(c, l)));
        for &launch in &launches {
            let uses: Vec<Vec<(mlir_sys::MlirOperation, isize)>> = chain
                .iter()
                .map(|&c| {
                    let mut uses = Vec::new();
                    let mut u =
                        mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(c, 0));
                    while !mlir_sys::mlirOpOperandIsNull(u) {
                        let owner = mlir_sys::mlirOpOperandGetOwner(u);
                        if is_inside(owner, launch) {
                            uses.push((owner, mlir_sys::mlirOpOperandGetOperandNumber(u) as isize));
                        }
                        u = mlir_sys::mlirOpOperandGetNextUse(u);
                    }
                    uses
                })
                .collect();
            if uses.iter().all(Vec::is_empty) {
                continue;
            }
            let body =
                mlir_sys::mlirRegionGetFirstBlock(mlir_sys::mlirOperationGetRegion(launch, 0));
            // The clone of each chain op in this launch, made on first need.
            let mut clones: Vec<Option<mlir_sys::MlirValue>> = vec![None; chain.len()];
            let mut at = 0;
            for k in 0..chain.len() {
                if uses[k].is_empty() {
                    continue;
                }
                // The ops from the global read to chain[k], each cloned once.
                let mut path = vec![k];
                while let Some(&j) = path.last() {
                    if clones[j].is_some() || op_name(chain[j]) == "memref.get_global" {
                        break;
                    }
                    let source = mlir_sys::mlirOpResultGetOwner(mlir_sys::mlirOperationGetOperand(
                        chain[j], 0,
                    ));
                    match chain.iter().position(|c| c.ptr == source.ptr) {
                        Some(i) => path.push(i),
                        None => break,
                    }
                }
                for &j in path.iter().rev() {
                    if clones[j].is_some() {
                        continue;
                    }
                    let clone = mlir_sys::mlirOperationClone(chain[j]);
                    if op_name(chain[j]) != "memref.get_global" {
                        let source = mlir_sys::mlirOpResultGetOwner(
                            mlir_sys::mlirOperationGetOperand(chain[j], 0),
                        );
                        if let Some(new) = chain
                            .iter()
                            .position(|c| c.ptr == source.ptr)
                            .and_then(|i| clones[i])
                        {
                            mlir_sys::mlirOperationSetOperand(clone, 0, new);
                        }
                    }
                    mlir_sys::mlirBlockInsertOwnedOperation(body, at, clone);
                    at += 1;
                    clones[j] = Some(mlir_sys::mlirOperationGetResult(clone, 0));
                }
                if let Some(new) = clones[k] {
                    for &(owner, index) in &uses[k] {
                        mlir_sys::mlirOperationSetOperand(owner, index, new);
                    }
                }
            }
        }
        for &c in chain.iter().rev() {
            if mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(
                mlir_sys::mlirOperationGetResult(c, 0),
            )) {
                mlir_sys::mlirOperationRemoveFromParent(c);
                mlir_sys::mlirOperationDestroy(c);
            }
        }
    }
}

/// Ops a GPU segment's host function may hold after outlining.
const HOST_OPS: &[&str] = &[
    "func.func",
    "func.return",
    "arith.constant",
    "memref.alloc",
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
    "gpu.launch_func",
];

/// Every computation must be in a kernel: the host function only allocates, makes
/// views and launches.
fn check_host(m: &MlirModule) -> Result<(), LowerError> {
    let mut func = m.body().first_operation();
    while let Some(f) = func {
        func = f.next_in_block();
        if f.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let mut stray: Option<String> = None;
        f.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
            if !HOST_OPS.contains(&name.as_str()) && stray.is_none() {
                stray = Some(op.to_string());
            }
            melior::ir::operation::WalkResult::Advance
        });
        if let Some(op) = stray {
            return Err(LowerError::Mlir {
                stage: "put every computation in a GPU kernel".into(),
                diagnostics: format!("left on the host: {op}"),
            });
        }
    }
    Ok(())
}

/// The value of an `arith.constant` index operand.
fn constant_operand(op: &melior::ir::OperationRef, i: usize) -> Option<u64> {
    let v = op.operand(i).ok()?;
    // SAFETY: C API queries on a live value and its defining op.
    unsafe {
        let def = mlir_sys::mlirOpResultGetOwner(v.to_raw());
        if def.ptr.is_null() {
            return None;
        }
        let name = "value";
        let attr = mlir_sys::mlirOperationGetAttributeByName(
            def,
            mlir_sys::MlirStringRef {
                data: name.as_ptr() as *const _,
                length: name.len(),
            },
        );
        if attr.ptr.is_null() || !mlir_sys::mlirAttributeIsAInteger(attr) {
            return None;
        }
        u64::try_from(mlir_sys::mlirIntegerAttrGetValueInt(attr)).ok()
    }
}

/// The `gpu.launch_func`s of the host function, in order: operands 0-5 are the grid
/// and block sizes (no async dependencies are created).
fn read_launches(m: &MlirModule) -> Result<Vec<Launch>, LowerError> {
    let mut launches = Vec::new();
    let mut failed: Option<String> = None;
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            if op.name().as_string_ref().as_str() == Ok("gpu.launch_func") {
                let sizes: Option<Vec<u64>> = (0..6).map(|i| constant_operand(&op, i)).collect();
                let kernel = op
                    .attribute("kernel")
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                let kernel = kernel.rsplit("::@").next().unwrap_or("").to_string();
                match sizes {
                    Some(s) => launches.push(Launch {
                        kernel,
                        grid: [s[0], s[1], s[2]],
                        block: [s[3], s[4], s[5]],
                    }),
                    None => failed = Some(op.to_string()),
                }
            }
            melior::ir::operation::WalkResult::Advance
        });
    match failed {
        None => Ok(launches),
        Some(op) => Err(LowerError::Mlir {
            stage: "read the launch sizes".into(),
            diagnostics: format!("not constant: {op}"),
        }),
    }
}

/// The PTX of every `gpu.binary` (the object whose target links libdevice, when asked).
fn read_ptx(m: &MlirModule, linked: bool) -> Result<Vec<(String, String)>, LowerError> {
    let mut out = Vec::new();
    let mut op = m.body().first_operation();
    while let Some(o) = op {
        op = o.next_in_block();
        if o.name().as_string_ref().as_str() != Ok("gpu.binary") {
            continue;
        }
        let name = o
            .attribute("sym_name")
            .map(|a| a.to_string().trim_matches('"').to_string())
            .unwrap_or_default();
        let objects = o
            .attribute("objects")
            .ok()
            .and_then(|a| ArrayAttribute::try_from(a).ok())
            .ok_or_else(|| LowerError::Mlir {
                stage: "read PTX".into(),
                diagnostics: format!("gpu.binary without objects: {o}"),
            })?;
        let mut chosen: Option<String> = None;
        for i in 0..objects.len() {
            let Ok(obj) = objects.element(i) else {
                continue;
            };
            // SAFETY: C API queries on a live #gpu.object attribute.
            let (text, target) = unsafe {
                if !mlir_sys::mlirAttributeIsAGPUObjectAttr(obj.to_raw()) {
                    continue;
                }
                let s = mlir_sys::mlirGPUObjectAttrGetObject(obj.to_raw());
                let bytes = std::slice::from_raw_parts(s.data as *const u8, s.length);
                let target =
                    Attribute::from_raw(mlir_sys::mlirGPUObjectAttrGetTarget(obj.to_raw()));
                (
                    String::from_utf8_lossy(bytes).into_owned(),
                    target.to_string(),
                )
            };
            if chosen.is_none() || (linked && target.contains("link")) {
                chosen = Some(text);
            }
        }
        let ptx = chosen.ok_or_else(|| LowerError::Mlir {
            stage: "read PTX".into(),
            diagnostics: format!("no object in {o}"),
        })?;
        out.push((name, ptx));
    }
    Ok(out)
}
