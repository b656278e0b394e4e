//! The cuda backend's checks on a machine with an NVIDIA GPU (`scripts/gpu-check.sh` runs
//! it): differential tests of the cuda backend against the reference, and the matmul
//! benchmark next to cuBLAS.
//!
//! ```sh
//! cargo run --release --example gpu_check -- [--part kernels|programs|collectives|bench|train|all]
//!     [--random N] [--sizes 512,1024,4096] [--steps N] [--compile-only]
//! ```
//!
//! - `kernels`: every op family (elementwise f32 with transcendentals, integer and f64
//!   arithmetic, compare/select/convert, dot_general plain and batched, reductions,
//!   transpose, reshape, broadcast, concatenate, slice, iota) as a one-device program on
//!   the cuda backend against the reference interpreter;
//! - `programs`: the canonical partitioned programs of `tests/partition/` and `--random`
//!   random f32 programs (random meshes and shardings), global in and global out through
//!   `run_cuda`, against the reference, with each collective's bytes against `explain`;
//! - `collectives`: every per-device op on f32, i32, bf16 and i1 with each reducer on an
//!   8-device mesh against the simulated mesh (NCCL where every device has its own GPU,
//!   host-staged otherwise), and the same ops on one device through NCCL where NCCL loads;
//! - `bench`: `n x n` f32 matmuls, shardc's PTX kernel and cuBLAS `sgemm`, GFLOP/s as JSON
//!   lines, with the largest relative difference between their results;
//! - `train`: the main demo's training step (a 4-layer GPT, d_model 128, AdamW) on the
//!   cuda backend, on 8 logical devices sharing the GPUs (`data=2 x model=4`, DP x TP) and
//!   on one, `--steps` steps (3), each against the reference interpreter from the same
//!   state; the step's wall time on the GPU.
//!
//! One process per GPU is `examples/gpu_check_mpi.rs`, which uses this file's checks.
//!
//! Floats are compared within `|got - want| <= abs + rel·|want|`: f32 `abs = rel = 1e-4`
//! (PTX computes `exp`, `log`, `tanh`, `sin`, ... with MLIR's polynomial approximations,
//! a few ulp from libm, and partitioned programs sum in another order), f64 1e-10, bf16 and
//! f16 2e-2; integers and booleans exactly. `--compile-only` does everything but run: it
//! compiles every program to PTX for sm_90 (on any machine). The last lines are a summary
//! to paste into `docs/runtime.md`; the exit status is 1 if a check failed, 2 if there is no
//! GPU.

use shardc::compiler::lower::gpu::Target;
use shardc::compiler::lower::gpu_program::{PtxCompiler, program};
use shardc::compiler::lower::whole_function;
use shardc::compiler::{Compiled, Options, compile};
use shardc::ir::testing::jax::excess_error;
use shardc::ir::testing::{Choices, gen_program_f32};
use shardc::ir::text::parse_module;
use shardc::ir::{DType, Literal, Module};
use shardc::runtime::backend::cuda::{Collectives, CudaMesh, CudaOptions, probe};
use shardc::runtime::backend::{Executable, RunReport};
use shardc::runtime::{reference, simulate};
use std::time::Instant;

/// What one part found.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) pass: usize,
    pub(crate) fail: Vec<String>,
    /// Programs the GPU path does not compile (the kernels issue's), with the error.
    pub(crate) unlowered: Vec<String>,
    /// Programs not run (`gpu_check_mpi`: of a size the ranks cannot make a mesh of).
    pub(crate) skipped: usize,
}

impl Tally {
    pub(crate) fn line(&self, what: &str) -> String {
        let mut s = format!("{what}: {} pass, {} fail", self.pass, self.fail.len());
        if !self.unlowered.is_empty() {
            s.push_str(&format!(", {} do not lower to PTX", self.unlowered.len()));
        }
        if self.skipped > 0 {
            s.push_str(&format!(", {} skipped", self.skipped));
        }
        s
    }
}

struct Ctx {
    mesh: Option<CudaMesh>,
    target: Target,
    compile_only: bool,
}

/// Deterministic values.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Arguments of `m`'s entry: floats in [lo, hi), integers in [-50, 50), booleans.
pub(crate) fn args_of(m: &Module, seed: u64, lo: f64, hi: f64) -> Vec<Literal> {
    let mut rng = Lcg(seed);
    m.entry()
        .unwrap()
        .arg_types()
        .iter()
        .map(|t| {
            let v: Vec<f64> = (0..t.num_elements())
                .map(|_| {
                    let u = rng.next();
                    match t.dtype {
                        DType::I1 => (u < 0.5) as u8 as f64,
                        d if d.is_int() => (u * 100.0).floor() - 50.0,
                        _ => lo + (hi - lo) * u,
                    }
                })
                .collect();
            Literal::from_f64(t.dtype, &t.shape, &v).unwrap()
        })
        .collect()
}

pub(crate) fn tolerance(dt: DType) -> (f64, f64) {
    match dt {
        DType::F32 => (1e-4, 1e-4),
        DType::F64 => (1e-10, 1e-10),
        DType::BF16 | DType::F16 => (2e-2, 2e-2),
        _ => (0.0, 0.0),
    }
}

/// `Ok` when every result is within the tolerance of its type.
pub(crate) fn compare(got: &[Literal], want: &[Literal]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} results for {}", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let (abs, rel) = tolerance(w.ty.dtype);
        let excess = excess_error(g, w, abs, rel)?;
        if excess > 0.0 {
            return Err(format!(
                "result {k} ({}) off by {excess:e} beyond {abs:e} + {rel:e}·|want|",
                w.ty
            ));
        }
    }
    Ok(())
}

fn module(args: &str, results: &str, body: &str, ret: &str) -> String {
    format!(
        "module {{\n  func.func @main({args}) -> ({results}) {{\n{body}    return {ret} : {results}\n  }}\n}}\n"
    )
}

/// One program per op family: (name, module text, input range).
fn op_programs() -> Vec<(String, String, (f64, f64))> {
    let mut out = Vec::new();
    let t = "tensor<8x37xf32>";
    for (op, lo, hi) in [
        ("negate", -2.0, 2.0),
        ("abs", -2.0, 2.0),
        ("exponential", -4.0, 4.0),
        ("exponential_minus_one", -1.0, 1.0),
        ("log", 0.05, 8.0),
        ("log_plus_one", -0.5, 4.0),
        ("sqrt", 0.0, 9.0),
        ("rsqrt", 0.1, 9.0),
        ("tanh", -4.0, 4.0),
        ("logistic", -6.0, 6.0),
        ("sine", -3.0, 3.0),
        ("cosine", -3.0, 3.0),
        ("floor", -5.0, 5.0),
        ("ceil", -5.0, 5.0),
        ("sign", -2.0, 2.0),
        ("round_nearest_even", -5.0, 5.0),
    ] {
        out.push((
            format!("f32 {op}"),
            module(
                &format!("%x: {t}"),
                t,
                &format!("    %0 = stablehlo.{op} %x : {t}\n"),
                "%0",
            ),
            (lo, hi),
        ));
    }
    for op in [
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
    ] {
        out.push((
            format!("f32 {op}"),
            module(
                &format!("%x: {t}, %y: {t}"),
                t,
                &format!("    %0 = stablehlo.{op} %x, %y : {t}\n"),
                "%0",
            ),
            (0.25, 2.0),
        ));
    }
    let i = "tensor<8x37xi32>";
    for op in ["add", "subtract", "multiply", "maximum", "and", "xor"] {
        out.push((
            format!("i32 {op}"),
            module(
                &format!("%x: {i}, %y: {i}"),
                i,
                &format!("    %0 = stablehlo.{op} %x, %y : {i}\n"),
                "%0",
            ),
            (0.0, 1.0),
        ));
    }
    let d = "tensor<8x37xf64>";
    out.push((
        "f64 multiply, add, sqrt".into(),
        module(
            &format!("%x: {d}, %y: {d}"),
            d,
            &format!(
                "    %0 = stablehlo.multiply %x, %y : {d}\n    %1 = stablehlo.add %0, %x : {d}\n    %2 = stablehlo.sqrt %1 : {d}\n"
            ),
            "%2",
        ),
        (0.5, 2.0),
    ));
    out.push((
        "compare, select".into(),
        module(
            &format!("%x: {t}, %y: {t}"),
            t,
            &format!(
                "    %c = stablehlo.compare GT, %x, %y, FLOAT : ({t}, {t}) -> tensor<8x37xi1>\n    %0 = stablehlo.select %c, %x, %y : tensor<8x37xi1>, {t}\n"
            ),
            "%0",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "convert f32 -> i32 -> f32".into(),
        module(
            &format!("%x: {t}"),
            t,
            &format!(
                "    %0 = stablehlo.convert %x : ({t}) -> {i}\n    %1 = stablehlo.convert %0 : ({i}) -> {t}\n"
            ),
            "%1",
        ),
        (-50.0, 50.0),
    ));
    out.push((
        "dot_general 64x96 x 96x80".into(),
        module(
            "%x: tensor<64x96xf32>, %w: tensor<96x80xf32>",
            "tensor<64x80xf32>",
            "    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>\n",
            "%0",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "dot_general batched 4x32x48 x 4x48x16".into(),
        module(
            "%x: tensor<4x32x48xf32>, %w: tensor<4x48x16xf32>",
            "tensor<4x32x16xf32>",
            "    %0 = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x32x48xf32>, tensor<4x48x16xf32>) -> tensor<4x32x16xf32>\n",
            "%0",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "reduce add and max".into(),
        module(
            "%x: tensor<64x1000xf32>",
            "tensor<64xf32>, tensor<1000xf32>",
            "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>\n    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<1000xf32>\n",
            "%s, %m",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "transpose, reshape, broadcast_in_dim".into(),
        module(
            &format!("%x: {t}, %b: tensor<37xf32>"),
            "tensor<37x8xf32>, tensor<296xf32>, tensor<8x37xf32>",
            &format!(
                "    %0 = stablehlo.transpose %x, dims = [1, 0] : ({t}) -> tensor<37x8xf32>\n    %1 = stablehlo.reshape %x : ({t}) -> tensor<296xf32>\n    %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<37xf32>) -> {t}\n    %3 = stablehlo.add %2, %x : {t}\n"
            ),
            "%0, %1, %3",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "concatenate, slice, iota".into(),
        module(
            &format!("%x: {t}, %y: {t}"),
            "tensor<16x37xf32>, tensor<4x18xf32>, tensor<8x37xi32>",
            &format!(
                "    %0 = stablehlo.concatenate %x, %y, dim = 0 : ({t}, {t}) -> tensor<16x37xf32>\n    %1 = stablehlo.slice %x [2:6, 1:37:2] : ({t}) -> tensor<4x18xf32>\n    %2 = stablehlo.iota dim = 1 : {i}\n"
            ),
            "%0, %1, %2",
        ),
        (-1.0, 1.0),
    ));
    out.push((
        "softmax (fused chain)".into(),
        module(
            "%x: tensor<64x1000xf32>",
            "tensor<64x1000xf32>",
            "    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n    %z = stablehlo.constant dense<0.0> : tensor<f32>\n    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>\n    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>\n    %d = stablehlo.subtract %x, %mb : tensor<64x1000xf32>\n    %e = stablehlo.exponential %d : tensor<64x1000xf32>\n    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>\n    %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>\n    %r = stablehlo.divide %e, %sb : tensor<64x1000xf32>\n",
            "%r",
        ),
        (-3.0, 3.0),
    ));
    out
}

/// Runs a one-device module on the cuda backend (or only compiles it).
fn run_one(ctx: &Ctx, m: &Module, args: &[Literal]) -> Result<Option<Vec<Literal>>, String> {
    let compiler = PtxCompiler::new(ctx.target.clone());
    let exe = Executable::new(m, "main", &compiler).map_err(|e| format!("lower: {e}"))?;
    let Some(mesh) = &ctx.mesh else {
        return Ok(None);
    };
    let mut report = exe
        .run(mesh_of(mesh, 1)?, vec![args.to_vec()])
        .map_err(|e| format!("run: {e}"))?;
    Ok(Some(report.outputs.remove(0)))
}

/// The mesh when it has `n` devices.
fn mesh_of(mesh: &CudaMesh, n: usize) -> Result<&CudaMesh, String> {
    use shardc::runtime::backend::Mesh;
    if mesh.devices() == n {
        Ok(mesh)
    } else {
        Err(format!("the mesh has {} devices, not {n}", mesh.devices()))
    }
}

fn kernels(ctx: &Ctx) -> Tally {
    let mut t = Tally::default();
    for (k, (name, text, (lo, hi))) in op_programs().into_iter().enumerate() {
        let m = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                t.fail.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let args = args_of(&m, 17 + k as u64, lo, hi);
        let want = match reference::run(&m, "main", &args) {
            Ok(w) => w,
            Err(e) => {
                t.fail.push(format!("{name}: the reference fails: {e}"));
                continue;
            }
        };
        match run_one(ctx, &m, &args) {
            Ok(None) => t.pass += 1,
            Ok(Some(got)) => match compare(&got, &want) {
                Ok(()) => t.pass += 1,
                Err(e) => t.fail.push(format!("{name}: {e}")),
            },
            Err(e) if e.starts_with("lower") => t.unlowered.push(format!("{name}: {e}")),
            Err(e) => t.fail.push(format!("{name}: {e}")),
        }
    }
    t
}

pub(crate) fn case_files() -> Vec<std::path::PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/partition");
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    cases.sort();
    cases
}

/// Deterministic inputs in [-0.5, 0.5] (as `tests/it/partition.rs`).
pub(crate) fn det_inputs(m: &Module) -> Vec<Literal> {
    m.entry()
        .unwrap()
        .arg_types()
        .iter()
        .enumerate()
        .map(|(k, t)| Literal::deterministic(t, k).unwrap())
        .collect()
}

/// A partitioned program through `run_cuda` against the reference, and its measured
/// bytes against `explain`.
fn global(ctx: &Ctx, m: &Module, args: &[Literal], options: &Options) -> Result<(), String> {
    let compile_only = ctx.compile_only.then_some(&ctx.target);
    let run = |c: &Compiled| {
        shardc::run_cuda(c, args, 1e-4)
            .map(|r| Some((r.outputs, r.report)))
            .map_err(|e| format!("run: {e}"))
    };
    check_global(compile_only, m, args, options, &run).map(|_| ())
}

/// How a check runs a compiled program: its global results and report, or `None` where
/// it does not run it (a program of another size than the meshes at hand).
pub(crate) type RunGlobal<'a> =
    dyn Fn(&Compiled) -> Result<Option<(Vec<Literal>, RunReport)>, String> + 'a;

/// A partitioned program run by `run` against the reference, and its measured bytes
/// against `explain`; with `compile_only`, only compiled to PTX for that target. `false`
/// where `run` did not run it.
pub(crate) fn check_global(
    compile_only: Option<&Target>,
    m: &Module,
    args: &[Literal],
    options: &Options,
    run: &RunGlobal,
) -> Result<bool, String> {
    let c = compile(m, options).map_err(|e| format!("compile: {e}"))?;
    let want = reference::run(m, "main", args).map_err(|e| format!("reference: {e}"))?;
    if let Some(target) = compile_only {
        let compiler = PtxCompiler::new(target.clone());
        Executable::new(&c.partitioned.module, "main", &compiler)
            .map_err(|e| format!("lower: {e}"))?;
        return Ok(true);
    }
    let Some((outputs, report)) = run(&c)? else {
        return Ok(false);
    };
    compare(&outputs, &want)?;
    let mut measured: Vec<String> = report
        .stats
        .ops
        .iter()
        .filter(|o| !matches!(o.kind.as_str(), "shard_slice" | "axis_index"))
        .map(|o| {
            let b = if o.kind == "collective_permute" {
                o.max_bytes()
            } else {
                o.mean_bytes()
            };
            format!("{} {b}", o.kind)
        })
        .collect();
    measured.sort();
    let mut stated: Vec<String> = c
        .explain()
        .collectives
        .iter()
        .map(|c| format!("{} {}", c.kind, c.bytes_per_device))
        .collect();
    stated.sort();
    if measured != stated {
        return Err(format!("bytes {measured:?}, explain states {stated:?}"));
    }
    Ok(true)
}

/// Checks a program on its inputs with options: `Ok(true)` passed, `Ok(false)` skipped.
pub(crate) type CheckProgram<'a> =
    dyn Fn(&Module, &[Literal], &Options) -> Result<bool, String> + 'a;

/// The canonical partitioned programs and `random` random f32 programs, each checked by
/// `check(module, inputs, options)`: `Ok(true)` passed, `Ok(false)` skipped.
pub(crate) fn programs_with(random: usize, check: &CheckProgram) -> (Tally, Tally) {
    let mut canonical = Tally::default();
    for path in case_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        // `// options: pad_uneven`: the case pads its uneven shardings.
        let options = Options {
            pad_uneven: text.lines().any(|l| l.trim() == "// options: pad_uneven"),
            ..Options::default()
        };
        let r = shardc::ir::text::parse_module_with(&text, options.uneven())
            .map_err(|e| e.to_string())
            .and_then(|m| check(&m, &det_inputs(&m), &options));
        match r {
            Ok(true) => canonical.pass += 1,
            Ok(false) => canonical.skipped += 1,
            Err(e) if e.starts_with("lower") => canonical.unlowered.push(format!("{name}: {e}")),
            Err(e) => canonical.fail.push(format!("{name}: {e}")),
        }
    }
    let mut rand = Tally::default();
    let mut rng = Lcg(0x5eed);
    for i in 0..random {
        let values: Vec<u32> = (0..1024).map(|_| (rng.next() * 4e9) as u32).collect();
        let p = gen_program_f32(&mut Choices::new(values));
        match check(&p.module, &p.inputs, &Options::default()) {
            Ok(true) => rand.pass += 1,
            Ok(false) => rand.skipped += 1,
            Err(e) => {
                let text = shardc::ir::text::print_module(&p.module);
                let entry = format!("random program {i}: {e}\n{text}");
                if e.starts_with("lower") {
                    rand.unlowered.push(entry)
                } else {
                    rand.fail.push(entry)
                }
            }
        }
    }
    (canonical, rand)
}

fn programs(ctx: &Ctx, random: usize) -> (Tally, Tally) {
    programs_with(random, &|m, args, options| {
        global(ctx, m, args, options).map(|()| true)
    })
}

const ROWS: &str = "dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>";
const COLUMNS: &str = "dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>";
const ALL: &str = "dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>";
const SHUFFLED: &str = "dense<[[5, 2, 7, 0], [1, 6, 3, 4]]> : tensor<2x4xi64>";
const ONE: &str = "dense<[[0]]> : tensor<1x1xi64>";

/// Every per-device op on element type `t` with reducer `r` over 8 devices (as
/// `runtime/tests/common/mod.rs`), or over one device (`groups` all `[[0]]`).
pub(crate) fn collectives(t: &str, r: &str, one: bool) -> String {
    let g = |s: &'static str| if one { ONE } else { s };
    let n = |k: usize| if one { 1 } else { k };
    let reducer = format!(
        "({{\n    ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):\n      %s = stablehlo.{r} %a, %b : tensor<{t}>\n      stablehlo.return %s : tensor<{t}>\n    }})"
    );
    let x = format!("tensor<4x8x{t}>");
    let pairs = if one {
        "dense<[[0, 0]]> : tensor<1x2xi64>"
    } else {
        "dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [6, 6]]> : tensor<7x2xi64>"
    };
    let ops = [
        format!(
            r#""stablehlo.all_reduce"(%x) <{{replica_groups = {}}}> {reducer} : ({x}) -> {x}"#,
            g(ROWS)
        ),
        format!(
            r#""stablehlo.all_reduce"(%y) <{{replica_groups = {}}}> {reducer} : (tensor<3x{t}>) -> tensor<3x{t}>"#,
            g(ALL)
        ),
        format!(
            r#""stablehlo.reduce_scatter"(%x) <{{scatter_dimension = 1 : i64, replica_groups = {}}}> {reducer} : ({x}) -> tensor<4x{}x{t}>"#,
            g(ROWS),
            8 / n(4)
        ),
        format!(
            r#""stablehlo.reduce_scatter"(%x) <{{scatter_dimension = 0 : i64, replica_groups = {}}}> {reducer} : ({x}) -> tensor<{}x8x{t}>"#,
            g(COLUMNS),
            4 / n(2)
        ),
        format!(
            r#""stablehlo.all_gather"(%x) <{{all_gather_dim = 1 : i64, replica_groups = {}}}> : ({x}) -> tensor<4x{}x{t}>"#,
            g(SHUFFLED),
            8 * n(4)
        ),
        format!(
            r#""stablehlo.all_gather"(%x) <{{all_gather_dim = 0 : i64, replica_groups = {}}}> : ({x}) -> tensor<{}x8x{t}>"#,
            g(ALL),
            4 * n(8)
        ),
        format!(
            r#""stablehlo.all_to_all"(%x) <{{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = {} : i64, replica_groups = {}}}> : ({x}) -> tensor<{}x{}x{t}>"#,
            n(4),
            g(ROWS),
            4 * n(4),
            8 / n(4)
        ),
        format!(
            r#""stablehlo.collective_permute"(%x) <{{source_target_pairs = {pairs}}}> : ({x}) -> {x}"#
        ),
        format!(
            r#""shardc.shard_slice"(%x) <{{dimension = 1 : i64, replica_groups = {}}}> : ({x}) -> tensor<4x{}x{t}>"#,
            g(SHUFFLED),
            8 / n(4)
        ),
        format!(
            r#""shardc.axis_index"() <{{replica_groups = {}}}> : () -> tensor<i64>"#,
            g(SHUFFLED)
        ),
    ];
    let mut body = String::new();
    let mut types = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        body.push_str(&format!("    %r{i} = {op}\n"));
        types.push(op.rsplit("-> ").next().unwrap_or("").to_string());
    }
    let names: Vec<String> = (0..ops.len()).map(|i| format!("%r{i}")).collect();
    format!(
        "module @collectives {{\n  func.func public @main(%x: {x}, %y: tensor<3x{t}>) -> ({}) {{\n{body}    return {} : {}\n  }}\n}}\n",
        types.join(", "),
        names.join(", "),
        types.join(", ")
    )
}

/// Runs an executable on every device's arguments: every device's results.
pub(crate) type RunAll<'a> =
    dyn Fn(&Executable, Vec<Vec<Literal>>) -> Result<Vec<Vec<Literal>>, String> + 'a;

/// Every per-device op against the simulated mesh on `mesh`.
fn collectives_on(ctx: &Ctx, mesh: Option<&CudaMesh>, n: usize, what: &str, t: &mut Tally) {
    let run = |exe: &Executable, args| {
        let mesh = mesh.ok_or("no mesh")?;
        exe.run(mesh, args)
            .map(|r| r.outputs)
            .map_err(|e| e.to_string())
    };
    let run: Option<&RunAll> = if mesh.is_some() { Some(&run) } else { None };
    collectives_with(&ctx.target, run, n, what, t);
}

/// Every per-device op against the simulated mesh, run by `run` (compiled only where
/// `None`).
pub(crate) fn collectives_with(
    target: &Target,
    run: Option<&RunAll>,
    n: usize,
    what: &str,
    t: &mut Tally,
) {
    for (ty, dt) in [
        ("f32", DType::F32),
        ("i32", DType::I32),
        ("bf16", DType::BF16),
        ("i1", DType::I1),
    ] {
        let reducers: &[&str] = match dt {
            DType::I1 => &["or", "and", "xor"],
            DType::I32 => &["add", "multiply", "maximum", "xor"],
            _ => &["add", "maximum", "minimum"],
        };
        for r in reducers {
            let name = format!("{what}: {ty} {r}");
            let text = collectives(ty, r, n == 1);
            let m = match parse_module(&text) {
                Ok(m) => m,
                Err(e) => {
                    t.fail.push(format!("{name}: does not parse: {e}"));
                    continue;
                }
            };
            let args: Vec<Vec<Literal>> = (0..n)
                .map(|d| args_of(&m, 100 + d as u64, 0.5, 2.0))
                .collect();
            let devices: Vec<shardc::ir::DeviceId> = (0..n).map(shardc::ir::DeviceId).collect();
            let want = match simulate::run(&m, "main", &devices, &args) {
                Ok(w) => w,
                Err(e) => {
                    t.fail.push(format!("{name}: the simulator fails: {e}"));
                    continue;
                }
            };
            let compiler = PtxCompiler::new(target.clone());
            let exe = match Executable::new(&m, "main", &compiler) {
                Ok(e) => e,
                Err(e) => {
                    t.fail.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let Some(run) = run else {
                t.pass += 1;
                continue;
            };
            match run(&exe, args) {
                Ok(outputs) => {
                    let bad = outputs
                        .iter()
                        .zip(&want)
                        .enumerate()
                        .find_map(|(d, (g, w))| compare(g, w).err().map(|e| (d, e)));
                    match bad {
                        None => t.pass += 1,
                        Some((d, e)) => t.fail.push(format!("{name}: device {d}: {e}")),
                    }
                }
                Err(e) => t.fail.push(format!("{name}: {e}")),
            }
        }
    }
}

fn collective_checks(ctx: &Ctx) -> (Tally, String) {
    let mut t = Tally::default();
    if ctx.compile_only {
        collectives_on(ctx, None, 8, "8 devices", &mut t);
        return (t, "compile only".into());
    }
    let mut modes = Vec::new();
    match CudaMesh::new(8) {
        Ok(m) => {
            modes.push(format!("8 devices: {:?}", m.collectives()));
            collectives_on(ctx, Some(&m), 8, "8 devices", &mut t);
            if m.collectives() == Collectives::Nccl {
                let opts = CudaOptions {
                    collectives: Some(Collectives::HostStaged),
                };
                if let Ok(h) = CudaMesh::with_options(8, &opts) {
                    collectives_on(ctx, Some(&h), 8, "8 devices host-staged", &mut t);
                }
            }
        }
        Err(e) => t.fail.push(format!("8-device mesh: {e}")),
    }
    let opts = CudaOptions {
        collectives: Some(Collectives::Nccl),
    };
    match CudaMesh::with_options(1, &opts) {
        Ok(m) => {
            modes.push("1 device: Nccl".into());
            collectives_on(ctx, Some(&m), 1, "1 device through NCCL", &mut t);
        }
        Err(e) => modes.push(format!("1 device through NCCL not run: {e}")),
    }
    (t, modes.join("; "))
}

/// Matmuls of `n x n` f32: shardc's PTX and cuBLAS, one JSON line each.
fn bench(ctx: &Ctx, sizes: &[usize]) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    for &n in sizes {
        let text = module(
            &format!("%x: tensor<{n}x{n}xf32>, %w: tensor<{n}x{n}xf32>"),
            &format!("tensor<{n}x{n}xf32>"),
            &format!(
                "    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>\n"
            ),
            "%0",
        );
        let m = parse_module(&text).map_err(|e| e.to_string())?;
        let f = whole_function(m.entry().unwrap()).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let p = program(&f, &ctx.target).map_err(|e| e.to_string())?;
        let compile_s = start.elapsed().as_secs_f64();
        let Some(mesh) = &ctx.mesh else {
            lines.push(format!(
                r#"{{"bench":"matmul","n":{n},"compile_s":{compile_s:.3},"launches":{}}}"#,
                p.launches.len()
            ));
            continue;
        };
        let args = args_of(&m, 7, -1.0, 1.0);
        let repeats = if n >= 4096 { 5 } else { 20 };
        let run = mesh
            .run_program(&p, &args, repeats)
            .map_err(|e| e.to_string())?;
        let flops = 2.0 * (n as f64).powi(3);
        let (cublas_ms, cublas_out) = cublas::sgemm(n, &args, repeats)?;
        let got = run.outputs[0].to_f64_vec();
        let max_rel = got
            .iter()
            .zip(&cublas_out)
            .map(|(a, b)| (a - *b as f64).abs() / (1.0 + (*b as f64).abs()))
            .fold(0.0f64, f64::max);
        lines.push(format!(
            r#"{{"bench":"matmul","n":{n},"shardc_ms":{:.4},"shardc_gflops":{:.1},"cublas_ms":{:.4},"cublas_gflops":{:.1},"max_rel_diff":{max_rel:.2e},"compile_s":{compile_s:.3}}}"#,
            run.ms,
            flops / (run.ms * 1e6),
            cublas_ms,
            flops / (cublas_ms * 1e6)
        ));
    }
    Ok(lines)
}

mod cublas {
    use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys};
    use cudarc::driver::CudaContext;
    use shardc::ir::Literal;

    /// `x · w` (row major, `n x n`) with cuBLAS `sgemm` on GPU 0: milliseconds per call
    /// (mean of `repeats` after a warm-up) and the result.
    pub fn sgemm(n: usize, args: &[Literal], repeats: usize) -> Result<(f64, Vec<f32>), String> {
        let e = |e: &dyn std::fmt::Debug| format!("cuBLAS: {e:?}");
        let ctx = CudaContext::new(0).map_err(|x| e(&x))?;
        let stream = ctx.default_stream();
        let blas = CudaBlas::new(stream.clone()).map_err(|x| e(&x))?;
        let host = |l: &Literal| -> Vec<f32> { l.to_f64_vec().iter().map(|&v| v as f32).collect() };
        let x = stream.clone_htod(&host(&args[0])).map_err(|x| e(&x))?;
        let w = stream.clone_htod(&host(&args[1])).map_err(|x| e(&x))?;
        let mut c = stream.alloc_zeros::<f32>(n * n).map_err(|x| e(&x))?;
        let ni = n as i32;
        // Column-major cuBLAS computes C' = W' X', which is X W in row-major order.
        let cfg = GemmConfig {
            transa: sys::cublasOperation_t::CUBLAS_OP_N,
            transb: sys::cublasOperation_t::CUBLAS_OP_N,
            m: ni,
            n: ni,
            k: ni,
            alpha: 1.0f32,
            lda: ni,
            ldb: ni,
            beta: 0.0f32,
            ldc: ni,
        };
        // SAFETY: three n x n f32 buffers on this stream, as the config states.
        unsafe { blas.gemm(cfg, &w, &x, &mut c) }.map_err(|x| e(&x))?;
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = stream.record_event(flags).map_err(|x| e(&x))?;
        for _ in 0..repeats.max(1) {
            // SAFETY: as above.
            unsafe { blas.gemm(cfg, &w, &x, &mut c) }.map_err(|x| e(&x))?;
        }
        let end = stream.record_event(flags).map_err(|x| e(&x))?;
        let ms = start.elapsed_ms(&end).map_err(|x| e(&x))? as f64 / repeats.max(1) as f64;
        let out = stream.clone_dtoh(&c).map_err(|x| e(&x))?;
        Ok((ms, out))
    }
}

/// The main demo's GPT training step on the cuda backend (see the module docs).
fn train(ctx: &Ctx, steps: usize) -> Result<Vec<String>, String> {
    use shardc::{Mesh, P, Tensor, TensorType};
    use shardc_train::data::CharDataset;
    use shardc_train::models::gpt_loss;
    use shardc_train::step::{Optimizer, train_step};
    use shardc_train::strategy::Strategy;
    let data = CharDataset::new(include_str!("data/corpus.txt"));
    let cfg = shardc_train::presets::demo_config();
    let tokens = TensorType::new(DType::I32, [cfg.block.batch, cfg.block.seq]);
    let mut lines = Vec::new();
    for (axes, specs) in [
        (vec![("data", 2), ("model", 4)], cfg.param_specs()),
        (
            vec![("data", 1), ("model", 1)],
            vec![P![]; cfg.param_specs().len()],
        ),
    ] {
        let mesh = Mesh::new("mesh", &axes).map_err(|e| e.to_string())?;
        let model = cfg;
        let ts = train_step(
            "gpt",
            move |p: &[Tensor], b: &[Tensor]| gpt_loss(&model, &b[0], &b[1], p),
            &cfg.param_types(),
            &[tokens.clone(), tokens.clone()],
            &mesh,
            Strategy::dp_tp(specs),
            Optimizer::AdamW {
                lr: 3e-3,
                warmup: 10.0,
                total: 150.0,
                min_ratio: 0.1,
                adam: Default::default(),
            },
        )
        .map_err(|e| format!("trace: {e}"))?;
        let c = ts
            .program
            .compile(&ts.options())
            .map_err(|e| format!("compile: {e}"))?;
        let n = mesh.num_devices();
        if ctx.compile_only {
            let compiler = PtxCompiler::new(ctx.target.clone());
            Executable::new(&c.partitioned.module, "main", &compiler)
                .map_err(|e| format!("lower ({n} devices): {e}"))?;
            lines.push(format!("GPT training step on {n} devices: compiled to PTX"));
            continue;
        }
        let start = Instant::now();
        let program = shardc::CudaProgram::new(&c, &CudaOptions::default())
            .map_err(|e| format!("prepare ({n} devices): {e}"))?;
        let prepare = start.elapsed().as_secs_f64();
        let (mut params, mut state) = (cfg.init(0), ts.init_state());
        let (mut times, mut worst) = (Vec::new(), 0.0f64);
        for t in 1..=steps {
            let (x, y) = data.batch(t as u64, cfg.block.batch, cfg.block.seq);
            let args = ts.args(&params, &state, t, &[x, y]);
            let start = Instant::now();
            let run = program
                .run(&c, &args, 1e-3)
                .map_err(|e| format!("step {t} ({n} devices): {e}"))?;
            times.push(start.elapsed().as_secs_f64());
            let want = ts
                .program
                .run_reference(&args)
                .map_err(|e| format!("reference: {e}"))?;
            compare(&run.outputs, &want).map_err(|e| format!("step {t} ({n} devices): {e}"))?;
            worst = worst.max((run.outputs[0].to_f64_vec()[0] - want[0].to_f64_vec()[0]).abs());
            let (_, p, s) = ts.split(want);
            (params, state) = (p, s);
        }
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        lines.push(format!(
            "GPT training step (4 layers, d_model 128, AdamW) on {n} device(s) ({}): {steps} steps match the reference (loss within {worst:.1e}); step {:.1} ms (best of {steps}, first {:.1} ms), prepare {:.1} s",
            mesh,
            best * 1e3,
            times[0] * 1e3,
            prepare
        ));
    }
    Ok(lines)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let part = opt("--part").unwrap_or_else(|| "all".into());
    let random: usize = opt("--random").and_then(|v| v.parse().ok()).unwrap_or(24);
    let sizes: Vec<usize> = opt("--sizes")
        .unwrap_or_else(|| "512,1024,4096".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let steps: usize = opt("--steps").and_then(|v| v.parse().ok()).unwrap_or(3);
    let compile_only = args.iter().any(|a| a == "--compile-only");
    if part == "mpi" {
        eprintln!(
            "gpu_check: one process per GPU is the example gpu_check_mpi (`mpirun -n <GPUs> target/release/examples/gpu_check_mpi`), a binary of its own so that this one needs no MPI library"
        );
        std::process::exit(2);
    }
    let mut summary = Vec::new();
    let ctx = if compile_only {
        summary.push("compile only: every program compiled to PTX for sm_90, nothing run".into());
        Ctx {
            mesh: None,
            target: Target::sm90(),
            compile_only,
        }
    } else {
        let info = match probe() {
            Ok(i) => i,
            Err(e) => {
                println!(r#"{{"error":{:?}}}"#, e.to_string());
                eprintln!("gpu_check: {e}");
                std::process::exit(2);
            }
        };
        for g in &info.gpus {
            println!(
                r#"{{"gpu":{},"name":{:?},"capability":"{}.{}","memory_gib":{:.1}}}"#,
                g.ordinal,
                g.name,
                g.capability.0,
                g.capability.1,
                g.memory as f64 / (1u64 << 30) as f64
            );
        }
        let nccl = info
            .nccl
            .map_or("not found".to_string(), |v| format!("{v}"));
        summary.push(format!(
            "GPUs: {} ({}); driver CUDA {}.{}; NCCL {nccl}",
            info.gpus.len(),
            info.gpus
                .iter()
                .map(|g| format!("{} sm_{}{}", g.name, g.capability.0, g.capability.1))
                .collect::<Vec<_>>()
                .join(", "),
            info.version / 1000,
            (info.version % 1000) / 10
        ));
        let mesh = match CudaMesh::new(1) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("gpu_check: {e}");
                std::process::exit(2);
            }
        };
        let target = match shardc::target_of(&mesh) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("gpu_check: {e}");
                std::process::exit(2);
            }
        };
        summary.push(format!("PTX target: {} ISA {}", target.chip, target.ptx));
        Ctx {
            mesh: Some(mesh),
            target,
            compile_only,
        }
    };
    let mut failed = false;
    let mut report = |t: &Tally, what: &str, summary: &mut Vec<String>| {
        for f in &t.fail {
            println!("FAIL {f}");
        }
        for u in &t.unlowered {
            println!("UNLOWERED {u}");
        }
        failed |= !t.fail.is_empty();
        summary.push(t.line(what));
    };
    let all = part == "all";
    if all || part == "kernels" {
        let start = Instant::now();
        let t = kernels(&ctx);
        report(&t, "op families vs reference (1 device)", &mut summary);
        eprintln!("kernels: {:.1}s", start.elapsed().as_secs_f64());
    }
    if all || part == "programs" {
        let start = Instant::now();
        let (c, r) = programs(&ctx, random);
        report(
            &c,
            "canonical partitioned programs vs reference, bytes vs explain",
            &mut summary,
        );
        report(
            &r,
            &format!("{random} random f32 programs vs reference"),
            &mut summary,
        );
        eprintln!("programs: {:.1}s", start.elapsed().as_secs_f64());
    }
    if all || part == "collectives" {
        let start = Instant::now();
        let (t, modes) = collective_checks(&ctx);
        report(
            &t,
            &format!("collectives vs simulated mesh ({modes})"),
            &mut summary,
        );
        eprintln!("collectives: {:.1}s", start.elapsed().as_secs_f64());
    }
    if all || part == "bench" {
        match bench(&ctx, &sizes) {
            Ok(lines) => {
                for l in &lines {
                    println!("{l}");
                }
                summary.push(format!("matmul f32: {}", lines.join(" ")));
            }
            Err(e) => {
                println!("FAIL bench: {e}");
                failed = true;
                summary.push(format!("matmul benchmark failed: {e}"));
            }
        }
    }
    if all || part == "train" {
        let start = Instant::now();
        match train(&ctx, steps) {
            Ok(lines) => {
                for l in lines {
                    println!("{l}");
                    summary.push(l);
                }
            }
            Err(e) => {
                println!("FAIL train: {e}");
                failed = true;
                summary.push(format!("GPT training step failed: {e}"));
            }
        }
        eprintln!("train: {:.1}s", start.elapsed().as_secs_f64());
    }
    println!("=== gpu_check summary ===");
    for s in &summary {
        println!("- {s}");
    }
    std::process::exit(if failed { 1 } else { 0 });
}
