//! `shardc run`: compile a program and run it on a backend, from inputs in a file (a
//! recorded run's JSON, safetensors) or made up deterministically; print the outputs and
//! the run's collectives, check them against the reference interpreter and against
//! recorded outputs, write them and the trace.

use safetensors::SafeTensors;
use shardc::compiler::{Compiled, Options, compile};
use shardc::ir::record::{Record, reordering_tolerance, worst_mismatch};
use shardc::ir::{DType, Literal, Module, TensorType};
use shardc::runtime::backend::{RunOptions, RunReport};
use shardc::{Engine, run_simulated_with};
use shardc_train::checkpoint::{dtype_from_st, dtype_to_st};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// A thread per device, ring collectives.
    Cpu,
    /// The devices simulated one after another, collectives by the reference.
    Simulated,
    /// A process per device (start under mpirun or shardc launch with -n DEVICES).
    Mpi,
    /// GPUs through the CUDA driver (one process).
    Cuda,
}

/// What to run and how.
pub struct Run {
    /// The program: StableHLO + Shardy text, as JAX prints it.
    pub file: PathBuf,
    /// Its inputs (a recorded run's JSON or safetensors); deterministic ones when `None`.
    pub inputs: Option<PathBuf>,
    /// Where it runs.
    pub backend: Backend,
    /// What computes each device's segments.
    pub engine: Engine,
    /// Where to write the run's trace (Chrome's JSON), if anywhere.
    pub trace: Option<PathBuf>,
    /// Also run the reference interpreter on the global program and compare.
    pub check_reference: bool,
    /// Where to write the outputs (safetensors), if anywhere.
    pub out: Option<PathBuf>,
    /// Calls after the first, timed (the cpu and mpi backends).
    pub steps: usize,
    /// How to compile it.
    pub options: Options,
    /// Shardings that split a dimension their axes do not divide: see [`read_program`].
    pub pad: Option<bool>,
}

/// What a run gave, for the caller to print: the text, and whether every check passed.
pub struct Outcome {
    /// What to print: outputs, collectives, checks.
    pub text: String,
    /// Whether every check passed.
    pub passed: bool,
    /// Whether this process prints (rank 0 of an mpi run; always otherwise).
    pub prints: bool,
}

/// A program file as text. MLIR bytecode (what `jax.export`'s `mlir_module_serialized`
/// holds) is refused naming how to print it as text; other bytes that are not UTF-8 are an
/// error at their line and column.
pub fn read_text(file: &Path) -> Result<String, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if bytes.starts_with(b"ML\xefR") {
        return Err(format!(
            "{}: this is MLIR bytecode (as `jax.export`'s `mlir_module_serialized` holds it), and shardc reads MLIR text; write the text instead (`exported.mlir_module()`, or `jax.jit(f).lower(...).as_text()`)",
            file.display()
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        format!(
            "{}:{line}:{col}: byte 0x{:02x} is not UTF-8; MLIR text is UTF-8 (re-save the file as UTF-8)",
            file.display(),
            e.as_bytes()[good.len()]
        )
    })
}

/// Reads an exported program (StableHLO + Shardy text). A sharding that splits a
/// dimension its axes do not divide is padded, as JAX pads it (GSPMD's uneven shardings:
/// each shard holds `ceil(n / shards)` elements, the last ones padding), with a note naming
/// the first such value; `pad` `Some(true)` (`--pad`) pads without a note and lets
/// propagation choose uneven layouts anywhere, `Some(false)` (`--no-pad`) refuses them.
/// Returns the module, whether to compile it with `Options::pad_uneven`, and the notes
/// for the user: that one, then the reader's
/// ([`parse_module_noted`](shardc::ir::text::parse_module_noted): callbacks left out,
/// equinox's checks).
pub fn read_program(
    text: &str,
    pad: Option<bool>,
) -> Result<(Module, bool, Vec<String>), shardc::ir::IrError> {
    use shardc::ir::{IrError, Uneven, text::parse_module_noted, verify_module_with};
    if pad == Some(true) {
        let (m, notes) = parse_module_noted(text, Uneven::Pad)?;
        return Ok((m, true, notes));
    }
    let refused = match parse_module_noted(text, Uneven::Refuse) {
        Ok((m, notes)) => return Ok((m, false, notes)),
        Err(e) if pad == Some(false) => return Err(e),
        Err(e) => e,
    };
    // Another error than an uneven sharding is reported as read without padding.
    let Ok((m, mut notes)) = parse_module_noted(text, Uneven::Pad) else {
        return Err(refused);
    };
    match verify_module_with(&m, Uneven::Refuse) {
        Err(IrError::NotDivisible {
            at,
            dim,
            size,
            axes,
            shards,
        }) => {
            notes.insert(0, format!(
                "note: dimension {dim} of {at} has size {size}, which {axes} ({shards} shards) does not divide: padded as JAX pads it, each shard holding {} (`--pad` says so and silences this note; `--no-pad` refuses)",
                size.div_ceil(shards)
            ));
            Ok((m, true, notes))
        }
        _ => Err(refused),
    }
}

/// Runs `r`.
pub fn run(r: &Run) -> Result<Outcome, Box<dyn std::error::Error>> {
    let text = read_text(&r.file)?;
    let (m, padded, read_notes) =
        read_program(&text, r.pad).map_err(|e| format!("{}:{e}", r.file.display()))?;
    let options = Options {
        pad_uneven: padded,
        ..r.options.clone()
    };
    let types = input_types(&m)?;
    let platform = platform_index_args(&m);
    let (mut record, input_notes) = match &r.inputs {
        None => (None, Vec::new()),
        Some(p) => {
            let (record, notes) = read_inputs(p, &types, &platform)?;
            (Some(record), notes)
        }
    };
    let platform_value = |k: usize| match &record {
        Some(rec) => rec.inputs[k].clone(),
        None => platform_zero(),
    };
    // The platform is known now: compiled for it, its `case`s fold away.
    let mut notes = String::new();
    for note in read_notes.iter().chain(&input_notes) {
        writeln!(notes, "{note}")?;
    }
    let m = if platform.is_empty() {
        m
    } else {
        let fixed: Vec<(usize, Literal)> =
            platform.iter().map(|&k| (k, platform_value(k))).collect();
        for (k, v) in &fixed {
            writeln!(
                notes,
                "argument {k} is the platform index of a multi-platform jax.export (`jax.global_constant = \"_platform_index\"`): compiled for platform {} (0, the first platform, when the inputs leave it out; every platform's branch computes the same values)",
                v.get(0).as_i64()
            )?;
        }
        for &k in platform.iter().rev() {
            if let Some(rec) = &mut record {
                rec.inputs.remove(k);
            }
        }
        fix_arguments(&m, &fixed)?
    };
    let c = compile(&m, &options)?;
    fits_this_host(r, &c, &input_types(&m)?)?;
    let args = match &record {
        Some(rec) => rec.inputs.clone(),
        None => input_types(&m)?
            .iter()
            .enumerate()
            .map(|(k, t)| Literal::deterministic(t, k))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let tolerance = record.as_ref().map_or(1e-4, |r| r.abs.max(r.rel));
    let (outputs, report, prints, walls) = execute(r, &c, &args, tolerance)?;

    let mut out = String::new();
    let f = m.entry().ok_or("the module has no function to run")?;
    writeln!(
        out,
        "ran @{} of {} on the {} backend ({} devices, mesh {}){}",
        c.entry_name(),
        r.file.display(),
        backend_name(r.backend),
        c.partitioned.mesh.num_devices(),
        c.partitioned.mesh,
        match &r.inputs {
            Some(p) => format!(", inputs from {}", p.display()),
            None => ", deterministic inputs".into(),
        }
    )?;
    out.push_str(&notes);
    for (k, v) in outputs.iter().enumerate() {
        let name = f
            .result_attrs
            .get(k)
            .and_then(|a| a.attrs.iter().find(|(n, _)| n == "jax.result_info"))
            .map(|(_, v)| format!(" {v}"))
            .unwrap_or_default();
        writeln!(out, "result {k}{name}: {}", describe(v))?;
    }
    if let Some(report) = &report {
        let ops = &report.stats.ops;
        let held = report.stats.devices.iter().map(|d| d.peak_bytes).max();
        writeln!(
            out,
            "{:.3} ms; {} per-device ops, {} B sent per device, at most {} B held per device ({} B planned)",
            report.stats.wall.as_secs_f64() * 1e3,
            ops.len(),
            ops.iter().map(|o| o.max_bytes()).sum::<u64>(),
            held.unwrap_or(0),
            c.explain().peak_bytes_per_device
        )?;
        for op in ops {
            let of = if op.of.is_empty() {
                String::new()
            } else {
                format!(" moving {}", op.of.join(", "))
            };
            let runs = if op.runs > 1 {
                format!(", {} runs (a loop's iterations)", op.runs)
            } else {
                String::new()
            };
            writeln!(
                out,
                "  {} {}{of} (groups of {}{runs}): {} B/device",
                op.kind,
                op.value,
                op.group_size,
                op.max_bytes()
            )?;
        }
        if !walls.is_empty() {
            steps_text(&mut out, &walls, report)?;
        }
        if let Some(path) = &r.trace {
            report.write_trace(path)?;
            writeln!(
                out,
                "trace: {} (open it in ui.perfetto.dev)",
                path.display()
            )?;
        }
    }
    let mut passed = true;
    if r.check_reference {
        let want = shardc::runtime::reference::run(&m, c.entry_name(), &args)?;
        let f = m.entry().ok_or("the module has no function to run")?;
        let (tol, why) = reordering_tolerance(f);
        let what = match why {
            Some(why) => format!("the reference interpreter ({why})"),
            None => "the reference interpreter".into(),
        };
        passed &= compare(&mut out, &what, &outputs, &want, tol, tol)?;
    }
    if let Some(rec) = record.filter(|rec| !rec.outputs.is_empty()) {
        let what = format!(
            "the outputs recorded in {}",
            r.inputs
                .as_deref()
                .map_or(String::new(), |p| p.display().to_string())
        );
        passed &= compare(&mut out, &what, &outputs, &rec.outputs, rec.abs, rec.rel)?;
    }
    if let (Some(path), true) = (&r.out, prints) {
        write_safetensors(path, &outputs)?;
        writeln!(out, "outputs written to {}", path.display())?;
    }
    Ok(Outcome {
        text: out,
        passed,
        prints,
    })
}

fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Cpu => "cpu",
        Backend::Simulated => "simulated",
        Backend::Mpi => "mpi",
        Backend::Cuda => "cuda",
    }
}

/// The arguments a multi-platform `jax.export` adds for the platform to run
/// (`jax.global_constant = "_platform_index"`, an `i32` scalar that `stablehlo.case` ops
/// branch on): inputs may leave them out, and they are then 0, the first platform.
fn platform_index_args(m: &Module) -> Vec<usize> {
    m.entry().map_or_else(Vec::new, |f| {
        f.arg_attrs
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                a.attrs
                    .iter()
                    .any(|(k, v)| k == "jax.global_constant" && v == "\"_platform_index\"")
            })
            .map(|(k, _)| k)
            .collect()
    })
}

/// Whether this host has the memory the run needs, before any of it is taken: the global
/// inputs, and every device's planned peak where the devices share this process (the cpu
/// and simulated backends; an MPI rank holds one device's), twice the inputs with
/// `--check-reference` (the interpreter's copy of the global program's values). An error
/// says how much and why, where the allocation would otherwise abort the process.
fn fits_this_host(r: &Run, c: &Compiled, types: &[TensorType]) -> Result<(), String> {
    let Some(available) = available_memory() else {
        return Ok(());
    };
    let inputs: u64 = types.iter().map(|t| t.size_bytes() as u64).sum();
    let peak = c
        .partitioned
        .module
        .entry()
        .map_or(0, |f| shardc::compiler::passes::memory::peak(f).bytes);
    let devices = match r.backend {
        Backend::Mpi => 1,
        _ => c.partitioned.mesh.num_devices() as u64,
    };
    let reference = if r.check_reference { 2 * inputs } else { 0 };
    let need = inputs + devices * peak + reference;
    if need <= available {
        return Ok(());
    }
    let gb = |b: u64| format!("{:.1} GB", b as f64 / 1e9);
    Err(format!(
        "this run needs about {} of memory on this host ({} of global inputs, {devices} device(s) x {} planned peak each{}), but {} is available: run smaller shapes, on more hosts (`--backend mpi` under `shardc launch`), or compile with `shardc compile --explain` to see what each device holds",
        gb(need),
        gb(inputs),
        gb(peak),
        if r.check_reference {
            format!(", {} for the reference interpreter", gb(reference))
        } else {
            String::new()
        },
        gb(available)
    ))
}

/// The host's available memory (`MemAvailable` of /proc/meminfo), where it is known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `m` with arguments `fixed` replaced by constants of the given values (the entry
/// function takes the others, in order).
fn fix_arguments(m: &Module, fixed: &[(usize, Literal)]) -> Result<Module, String> {
    use shardc::ir::{FunctionBuilder, OpKind};
    let f = m.entry().ok_or("the module has no function to run")?;
    let is_fixed = |k: usize| fixed.iter().any(|(j, _)| *j == k);
    let kept: Vec<usize> = (0..f.args().len()).filter(|&k| !is_fixed(k)).collect();
    let types = f.arg_types();
    let kept_types: Vec<TensorType> = kept.iter().map(|&k| types[k].clone()).collect();
    let mut b = FunctionBuilder::new(&f.name, &kept_types);
    b.set_visibility(f.visibility);
    let mut map: std::collections::HashMap<_, _> = kept
        .iter()
        .zip(b.args())
        .map(|(&k, v)| (f.args()[k], v))
        .collect();
    for (k, v) in fixed {
        let c = b
            .push1(OpKind::Constant(v.clone()), &[])
            .map_err(|e| e.to_string())?;
        map.insert(f.args()[*k], c);
    }
    for (_, op) in f.body_ops() {
        b.copy_op(f, op, &mut map).map_err(|e| e.to_string())?;
    }
    let results: Vec<_> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = kept.iter().map(|&k| f.arg_attrs[k].clone()).collect();
    g.result_attrs = f.result_attrs.clone();
    Ok(m.with_function(g))
}

/// A platform index argument left out: the export's first platform.
fn platform_zero() -> Literal {
    Literal::scalar(shardc::ir::DType::I32, shardc::ir::Scalar::Int(0))
}

fn input_types(m: &Module) -> Result<Vec<TensorType>, String> {
    let f = m.entry().ok_or("the module has no function to run")?;
    Ok(f.arg_types())
}

/// A run's global outputs, its report (none for the simulated backend), and whether this
/// process prints.
/// The outputs, the last call's report, whether this process prints, and the wall time
/// of each call after the first ([`Run::steps`]).
type Executed = (
    Vec<Literal>,
    Option<RunReport>,
    bool,
    Vec<std::time::Duration>,
);

/// `10 more calls: median 12.3 ms (11.9-13.0); in the last, per device: ...`.
fn steps_text(
    out: &mut String,
    walls: &[std::time::Duration],
    report: &RunReport,
) -> Result<(), std::fmt::Error> {
    let mut ms: Vec<f64> = walls.iter().map(|w| w.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    writeln!(
        out,
        "{} more call{}: median {median:.3} ms ({:.3}-{:.3}); in the last, per device:",
        ms.len(),
        if ms.len() == 1 { "" } else { "s" },
        ms[0],
        ms[ms.len() - 1]
    )?;
    for (d, s) in report.stats.devices.iter().enumerate() {
        let comm = s.communication.as_secs_f64() * 1e3;
        let waited = s.waiting.as_secs_f64() * 1e3;
        let exposed = if comm > 0.0 {
            format!(" ({:.0}% of it)", 100.0 * waited / comm)
        } else {
            String::new()
        };
        writeln!(
            out,
            "  device {d}: compute {:.3} ms, communication {comm:.3} ms, compute waited {waited:.3} ms{exposed}",
            s.compute.as_secs_f64() * 1e3
        )?;
    }
    Ok(())
}

/// Runs on the chosen backend.
fn execute(
    r: &Run,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Executed, Box<dyn std::error::Error>> {
    let engine = r.engine.compute();
    let timed = |backend: &str| -> Result<(), String> {
        match r.steps {
            0 => Ok(()),
            _ => Err(format!(
                "--steps times the cpu and mpi backends; the {backend} backend runs the program once"
            )),
        }
    };
    match r.backend {
        Backend::Simulated => {
            timed("simulated")?;
            Ok((
                run_simulated_with(engine.as_ref(), c, args, tolerance)?,
                None,
                true,
                Vec::new(),
            ))
        }
        Backend::Cpu => {
            let program = shardc::CpuProgram::new(c, engine.as_ref())?;
            let options = RunOptions::default();
            let mut run = program.run_with(c, args, tolerance, &options)?;
            let mut walls = Vec::new();
            for _ in 0..r.steps {
                run = program.run_with(c, args, tolerance, &options)?;
                walls.push(run.report.stats.wall);
            }
            Ok((run.outputs, Some(run.report), true, walls))
        }
        Backend::Mpi => {
            use shardc::runtime::backend::mpi::{MpiMesh, abort_on_panic, initialize, launched};
            if !launched() {
                return Err(format!(
                    "the mpi backend runs one process per device: start it as `shardc launch -n {} -- shardc run --backend mpi {}` (or under mpirun -n {})",
                    c.partitioned.mesh.num_devices(),
                    r.file.display(),
                    c.partitioned.mesh.num_devices()
                )
                .into());
            }
            let universe = initialize()?;
            abort_on_panic();
            let mesh = MpiMesh::world(&universe)?;
            let rank = mesh.device();
            let mut run = shardc::run_mpi(&mesh, c, args, engine.as_ref(), tolerance)?;
            let mut walls = Vec::new();
            for _ in 0..r.steps {
                run = shardc::run_mpi(&mesh, c, args, engine.as_ref(), tolerance)?;
                walls.push(run.report.stats.wall);
            }
            Ok((run.outputs, Some(run.report), rank == 0, walls))
        }
        Backend::Cuda => {
            timed("cuda")?;
            let run = shardc::run_cuda(c, args, tolerance)?;
            Ok((run.outputs, Some(run.report), true, Vec::new()))
        }
    }
}

/// `f32[8,4] = [0.1, 0.2, ...] (min -1, max 1, mean 0.01)`.
fn describe(v: &Literal) -> String {
    let xs = v.to_f64_vec();
    // Each element as its type prints it (an f32 to the digits an f32 has).
    let show = |x: f64| match v.ty.dtype {
        DType::F64 => format!("{x}"),
        d if d.is_float() => format!("{}", x as f32),
        _ => format!("{}", x as i128),
    };
    let shown: Vec<String> = xs.iter().take(6).map(|&x| show(x)).collect();
    let more = if xs.len() > 6 { ", ..." } else { "" };
    let mut s = format!("{} = [{}{more}]", v.ty, shown.join(", "));
    if xs.len() > 1 {
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                (l.min(x), h.max(x))
            });
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        write!(s, " (min {}, max {}, mean {mean:.6})", show(lo), show(hi))
            .expect("writing to a String");
    }
    s
}

/// Compares outputs with `want`, writing a line per output; whether all are within.
fn compare(
    out: &mut String,
    what: &str,
    got: &[Literal],
    want: &[Literal],
    abs: f64,
    rel: f64,
) -> Result<bool, std::fmt::Error> {
    if got.len() != want.len() {
        writeln!(
            out,
            "FAILED: {} outputs, but {what} has {}",
            got.len(),
            want.len()
        )?;
        return Ok(false);
    }
    let mut ok = true;
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        match worst_mismatch(g, w, abs, rel) {
            Ok(None) => {}
            Ok(Some((i, got, want, _))) => {
                ok = false;
                writeln!(
                    out,
                    "FAILED: result {k} differs from {what}: element {i} is {got:e} where {want:e} is wanted, |d| = {:.3e} > {abs:e} + {rel:e}|want|",
                    (got - want).abs()
                )?;
            }
            Err(e) => {
                ok = false;
                writeln!(out, "FAILED: result {k}: {e} ({what})")?;
            }
        }
    }
    if ok {
        writeln!(
            out,
            "every result matches {what} within |d| <= {abs:e} + {rel:e}|want|"
        )?;
    }
    Ok(ok)
}

/// The inputs in `path`: a recorded run (`.json`) or a safetensors file whose tensors are
/// named `0`, `1`, ... or `arg0`, `arg1`, ... (one per argument of the entry function).
/// Platform index arguments (`platform`) the inputs leave out are 0. A 64-bit input for a
/// 32-bit argument is given in 32 bits, as JAX gives it ([`in_32_bits`]), with a note.
fn read_inputs(
    path: &Path,
    types: &[TensorType],
    platform: &[usize],
) -> Result<(Record, Vec<String>), String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let record = match ext {
        "json" => Record::read(path)?,
        "safetensors" => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let st = SafeTensors::deserialize(&bytes)
                .map_err(|e| format!("{}: not a safetensors file: {e}", path.display()))?;
            let mut inputs = Vec::with_capacity(types.len());
            for (k, ty) in types.iter().enumerate() {
                let named = |n: &str| st.names().contains(&n);
                if platform.contains(&k) && !named(&k.to_string()) && !named(&format!("arg{k}")) {
                    inputs.push(platform_zero());
                    continue;
                }
                let view = st
                    .tensor(&k.to_string())
                    .or_else(|_| st.tensor(&format!("arg{k}")))
                    .map_err(|_| {
                        format!(
                            "{}: no tensor `{k}` or `arg{k}` for argument {k} ({ty}); name the tensors by argument number (it has {:?})",
                            path.display(),
                            st.names()
                        )
                    })?;
                let got = TensorType::new(
                    dtype_from_st(view.dtype()).ok_or_else(|| {
                        format!("{}: tensor for argument {k} has dtype {:?}, which shardc does not have", path.display(), view.dtype())
                    })?,
                    view.shape(),
                );
                if &got != ty && !runs_in_32_bits(&got, ty) {
                    return Err(format!(
                        "{}: argument {k} is {ty}, but the file's tensor is {got}",
                        path.display()
                    ));
                }
                inputs.push(
                    Literal::from_le_bytes(&got, view.data())
                        .map_err(|e| format!("{}: argument {k}: {e}", path.display()))?,
                );
            }
            Record {
                inputs,
                outputs: Vec::new(),
                gradients: Vec::new(),
                abs: 1e-4,
                rel: 1e-4,
            }
        }
        _ => {
            return Err(format!(
                "{}: give inputs as a recorded run (.json: what tests/fixtures/jax/corpus.py writes beside a JAX export) or a .safetensors file (tensors named 0, 1, ...)",
                path.display()
            ));
        }
    };
    let mut record = record;
    if !platform.is_empty() && record.inputs.len() + platform.len() == types.len() {
        for &k in platform {
            record.inputs.insert(k, platform_zero());
        }
    }
    if record.inputs.len() != types.len() {
        // jax.jit leaves out of the module the arguments the function never reads.
        let pruned = if record.inputs.len() > types.len() {
            "; jax.jit drops arguments the function never reads (an optimizer's unused state, say): record only the kept ones (`lowered._lowering.compile_args[\"kept_var_idx\"]`), or jit with `keep_unused=True`"
        } else {
            ""
        };
        return Err(format!(
            "{}: {} inputs, but the program takes {} ({}){pruned}",
            path.display(),
            record.inputs.len(),
            types.len(),
            types
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut notes = Vec::new();
    for (k, (got, want)) in record.inputs.iter_mut().zip(types).enumerate() {
        if &got.ty == want {
            continue;
        }
        match in_32_bits(got, want) {
            Some(Ok(narrowed)) => {
                notes.push(format!(
                    "note: input {k} is {}, given to argument {k} ({want}) in 32 bits, as JAX runs 64-bit arrays with `jax_enable_x64` off",
                    got.ty
                ));
                *got = narrowed;
            }
            Some(Err(e)) => return Err(format!("{}: input {k}: {e}", path.display())),
            None => {
                return Err(format!(
                    "{}: input {k} is {}, but the program's argument {k} is {want}",
                    path.display(),
                    got.ty
                ));
            }
        }
    }
    Ok((record, notes))
}

/// Whether JAX runs an array of type `got` given for an argument of type `want` in 32 bits
/// (see [`in_32_bits`]).
fn runs_in_32_bits(got: &TensorType, want: &TensorType) -> bool {
    let narrowing = [
        (DType::I64, DType::I32),
        (DType::U64, DType::U32),
        (DType::F64, DType::F32),
    ];
    got.shape == want.shape && narrowing.contains(&(got.dtype, want.dtype))
}

/// A 64-bit input for a 32-bit argument of the same shape, in 32 bits, as JAX with
/// `jax_enable_x64` off (its default) runs the 64-bit arrays a jitted function is given
/// (`i64` as `i32`, `ui64` as `ui32`, `f64` rounded to `f32`): a record written from
/// NumPy holds a Python int as an int64. `None` for other pairs of types; an error when
/// an integer does not fit.
fn in_32_bits(got: &Literal, want: &TensorType) -> Option<Result<Literal, String>> {
    if !runs_in_32_bits(&got.ty, want) {
        return None;
    }
    let elements = if want.dtype.is_float() {
        shardc::ir::Elements::from_f64(want.dtype, &got.to_f64_vec())
    } else {
        let range = if want.dtype == DType::I32 {
            i64::from(i32::MIN)..=i64::from(i32::MAX)
        } else {
            0..=i64::from(u32::MAX)
        };
        let n = got.ty.num_elements();
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            // A ui64 above i64::MAX reads as a negative i64: out of range either way.
            let v = got.get(i).as_i64();
            if !range.contains(&v) {
                return Some(Err(format!(
                    "element {i} is {}, which the argument's {} cannot hold (JAX with `jax_enable_x64` off would wrap it); give it as {} or export with `jax_enable_x64` on",
                    if got.ty.dtype == DType::U64 {
                        (v as u64).to_string()
                    } else {
                        v.to_string()
                    },
                    want.dtype,
                    want.dtype
                )));
            }
            values.push(shardc::ir::Scalar::Int(v));
        }
        shardc::ir::Elements::from_scalars(want.dtype, &values)
    };
    Some(Literal::new(want.clone(), elements).map_err(|e| e.to_string()))
}

fn write_safetensors(path: &Path, outputs: &[Literal]) -> Result<(), String> {
    let bytes: Vec<Vec<u8>> = outputs.iter().map(Literal::to_le_bytes).collect();
    let mut views = Vec::with_capacity(outputs.len());
    for (k, (v, data)) in outputs.iter().zip(&bytes).enumerate() {
        let view =
            safetensors::tensor::TensorView::new(dtype_to_st(v.ty.dtype), v.ty.shape.clone(), data)
                .map_err(|e| format!("result {k}: {e}"))?;
        views.push((k.to_string(), view));
    }
    let file = safetensors::serialize(views, None).map_err(|e| e.to_string())?;
    std::fs::write(path, file).map_err(|e| format!("{}: {e}", path.display()))
}
