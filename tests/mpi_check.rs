//! The mpi backend end to end, one process per device: compiled programs run with
//! `shardc::run_mpi` give the reference's numbers, and every device sends the bytes
//! `explain` states for each collective.
//!
//! Programs: the canonical cases of `tests/partition/`, the JAX fixtures of
//! `tests/fixtures/jax/`, pipelined training steps (GPipe and 1F1B), and 24 random programs that communicate
//! (`shardc_ir::testing::gen_program_f32` from fixed seeds). A program of `k` devices runs when `k` divides the number of ranks
//! `W`: the world is split into `W/k` meshes of `k` ranks (rank `r` of a mesh is device
//! `r`), each running it; the others are listed as skipped.
//!
//! A test binary without the libtest harness. Run plainly (as `cargo test` does), it
//! launches itself twice: `mpirun -n 4` (the 4- and 2-device programs) and `mpirun -n 8`
//! (everything, the 8-device JAX fixtures included). Under `mpirun` (`mpirun -n 8
//! [--hostfile hosts] <this binary>` runs it across nodes) every rank checks every result,
//! rank 0 reports, and every rank exits non-zero if any check failed anywhere.

use shardc::compiler::{Compiled, Options, Stage, compile};
use shardc::ir::testing::jax::{excess_error, jax_fixtures};
use shardc::ir::testing::{Choices, gen_program_f32};
use shardc::ir::{Literal, Module};
use shardc::runtime::backend::RunOptions;
use shardc::runtime::backend::mpi::rsmpi::collective::SystemOperation;
use shardc::runtime::backend::mpi::rsmpi::environment::Universe;
use shardc::runtime::backend::mpi::rsmpi::topology::Color;
use shardc::runtime::backend::mpi::rsmpi::traits::*;
use shardc::runtime::backend::mpi::{MpiMesh, abort_on_panic, initialize, launched, relaunch};
use shardc::runtime::engine::Interpreted;
use shardc::runtime::reference;
use shardc::{MpiProgram, Resident, Run, run_mpi};
use std::collections::HashMap;
use std::process::ExitCode;

/// World sizes the plain run launches.
const WORLDS: [usize; 2] = [4, 8];
/// Random programs checked (of those that communicate and whose device count divides the
/// world size).
const RANDOM: usize = 24;

fn main() -> ExitCode {
    if !launched() {
        if !selected("mpi_check") {
            return ExitCode::SUCCESS;
        }
        // 30 minutes a world: every rank compiles every program to completion (work
        // limits only, `Options::deterministic`), and 8 debug-built ranks on 2 cores of a
        // slow host took over 10 minutes (2026-12-07).
        for ranks in WORLDS {
            match relaunch(ranks, &[], 1800) {
                Ok(s) if s.success() => {}
                Ok(s) => {
                    eprintln!("mpi_check: mpirun -n {ranks} failed ({s})");
                    return ExitCode::FAILURE;
                }
                Err(e) => {
                    eprintln!("mpi_check: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    let universe = match initialize() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("mpi_check: {e}");
            return ExitCode::FAILURE;
        }
    };
    abort_on_panic();
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let mut checker = Checker {
        universe: &universe,
        world_size: size,
        rank,
        meshes: HashMap::new(),
        failures: 0,
        ran: 0,
        skipped: Vec::new(),
    };
    for (name, m, opts, args, want, abs, rel) in programs() {
        checker.check(&name, &m, &opts, &args, want.as_deref(), abs, rel);
    }
    checker.errors();
    checker.resident();
    // Every rank exits non-zero if a check failed on any rank.
    let mut failures = 0u64;
    world.all_reduce_into(&checker.failures, &mut failures, SystemOperation::sum());
    if rank == 0 {
        let skipped = if checker.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " (their device count does not divide {size}: {})",
                checker.skipped.join(", ")
            )
        };
        println!(
            "mpi_check ({size} ranks): {} programs ran, {} skipped{skipped}, {failures} failed",
            checker.ran,
            checker.skipped.len(),
        );
    }
    drop(checker);
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Whether `cargo test`'s arguments select this check (`cargo test FILTER` passes the
/// filter to every test binary; `--skip NAME` leaves it out), and whether they only ask for
/// the list of tests (`--list`, which then prints it).
fn selected(name: &str) -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut filters = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--list" => {
                println!("{name}: test");
                return false;
            }
            // The guard takes the skipped name, matching or not.
            "--skip" if it.next().is_some_and(|s| name.contains(s.as_str())) => return false,
            "--test-threads" | "--format" | "--color" | "--logfile" | "-Z" => {
                it.next();
            }
            f if !f.starts_with('-') => filters.push(f),
            _ => {}
        }
    }
    filters.is_empty() || filters.iter().any(|f| name.contains(f))
}

/// A program to check: name, module, compile options, global inputs, the expected outputs
/// if they are not the reference's, and the tolerance (absolute, relative).
type Program = (
    String,
    Module,
    Options,
    Vec<Literal>,
    Option<Vec<Literal>>,
    f64,
    f64,
);

/// Every program, in the same order on every rank.
fn programs() -> Vec<Program> {
    let mut out = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/partition");
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/partition")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    cases.sort();
    for path in cases {
        let text = std::fs::read_to_string(&path).expect("a canonical case");
        // `// options: pad_uneven`: the case pads its uneven shardings.
        let opts = Options {
            pad_uneven: text.lines().any(|l| l.trim() == "// options: pad_uneven"),
            ..Options::default()
        }
        .deterministic();
        let m = shardc::ir::text::parse_module_with(&text, opts.uneven())
            .expect("a canonical case parses");
        let args = det_inputs(&m);
        let name = format!(
            "tests/partition/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        out.push((name, m, opts, args, None, 1e-5, 1e-5));
    }
    for fx in jax_fixtures().expect("the JAX fixtures") {
        let name = format!("tests/fixtures/jax/{}", fx.name);
        out.push((
            name,
            fx.module,
            Options::default().deterministic(),
            fx.inputs,
            Some(fx.outputs),
            fx.abs,
            fx.rel,
        ));
    }
    out.extend(pipelines());
    let world = std::env::var("OMPI_COMM_WORLD_SIZE")
        .or_else(|_| std::env::var("PMI_SIZE"))
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1);
    let mut taken = 0;
    for seed in 0..10_000u32 {
        if taken == RANDOM {
            break;
        }
        let p = gen_program_f32(&mut Choices::new(choices(seed)));
        let devices = p.module.meshes.first().map_or(1, |m| m.num_devices());
        if devices < 2 || !world.is_multiple_of(devices) || !communicates(&p.module) {
            continue;
        }
        taken += 1;
        let name = format!("random program {seed} ({devices} devices)");
        out.push((
            name,
            p.module,
            Options::default().deterministic(),
            p.inputs,
            None,
            1e-4,
            1e-4,
        ));
    }
    out
}

/// Pipelined training steps (`docs/pipeline.md`), GPipe and 1F1B, on `pipe=4` and on
/// `data=2 x pipe=4`: the stage hand-offs are `MPI_Sendrecv`s between neighbouring ranks.
fn pipelines() -> Vec<Program> {
    use shardc::{DType, Mesh, Tensor, TensorType};
    use shardc_train::pipelining::{Schedule, Stages, train_step};
    use shardc_train::step::Optimizer;
    const S: usize = 4;
    const D: usize = 8;
    fn stage(w: &[Tensor], x: &Tensor) -> Tensor {
        x + &x.matmul(&w[0]).gelu().matmul(&w[1])
    }
    fn loss(out: &Tensor, target: &Tensor) -> Tensor {
        let e = out - target;
        (&e * &e).mean(&[1, 2])
    }
    let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
    let lit = |shape: &[usize], k: f64| {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|i| (0.37 * i as f64 + k).sin() * 0.3).collect();
        Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
    };
    let params = [f32(&[S, D, 16]), f32(&[S, 16, D])];
    let batch = [f32(&[16, D]), f32(&[16, D])];
    let mut out = Vec::new();
    for axes in [vec![("pipe", S)], vec![("data", 2), ("pipe", S)]] {
        let mesh = Mesh::new("mesh", &axes).expect("a mesh");
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            let ts = train_step(
                "mlp",
                Stages { stage, loss },
                &params,
                &batch,
                &mesh,
                schedule,
                4,
                Optimizer::Sgd {
                    lr: 0.05,
                    momentum: 0.9,
                },
            )
            .expect("a pipelined step");
            let p: Vec<Literal> = params.iter().map(|t| lit(&t.shape, 1.0)).collect();
            let b = [lit(&batch[0].shape, 2.0), lit(&batch[1].shape, 3.0)];
            let args = ts.args(&p, &ts.init_state(), 1, &b);
            out.push((
                format!("pipelined step, {} on {mesh}", schedule.name()),
                ts.program.module().clone(),
                ts.options(),
                args,
                None,
                1e-5,
                1e-5,
            ));
        }
    }
    out
}

/// Whether the partitioned program moves data between devices (random programs often
/// need no collective, or only local slices).
fn communicates(m: &Module) -> bool {
    use shardc::ir::OpKind::*;
    compile(m, &Options::default().deterministic()).is_ok_and(|c| {
        c.partitioned.module.entry().is_some_and(|f| {
            f.body_ops().any(|(_, op)| {
                matches!(
                    op.kind,
                    AllReduce { .. }
                        | AllGather { .. }
                        | ReduceScatter { .. }
                        | AllToAll { .. }
                        | CollectivePermute { .. }
                )
            })
        })
    })
}

/// The choices of random program `seed` (as `shardc_ir::testing`'s own tests draw them).
fn choices(seed: u32) -> Vec<u32> {
    (0..600u32)
        .map(|i| {
            seed.wrapping_mul(2_654_435_761)
                .wrapping_add(i.wrapping_mul(40_503))
                .rotate_left(i % 31)
        })
        .collect()
}

/// Deterministic inputs in [-0.5, 0.5].
fn det_inputs(m: &Module) -> Vec<Literal> {
    m.entry()
        .expect("a main function")
        .arg_types()
        .iter()
        .enumerate()
        .map(|(k, t)| Literal::deterministic(t, k).expect("inputs of the argument's type"))
        .collect()
}

struct Checker<'u> {
    universe: &'u Universe,
    world_size: usize,
    rank: usize,
    /// A mesh of `k` ranks per device count `k` (this rank's part of the world).
    meshes: HashMap<usize, MpiMesh<'u>>,
    failures: u64,
    ran: usize,
    skipped: Vec<String>,
}

impl<'u> Checker<'u> {
    /// The mesh of `k` ranks holding this rank (collective the first time, in the same
    /// order on every rank).
    fn mesh(&mut self, k: usize) -> &MpiMesh<'u> {
        let (universe, rank) = (self.universe, self.rank);
        self.meshes.entry(k).or_insert_with(|| {
            let part = universe
                .world()
                .split_by_color(Color::with_value((rank / k) as i32))
                .expect("every rank has a color");
            MpiMesh::new(universe, &part).expect("a mesh of part of the world")
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        name: &str,
        m: &Module,
        opts: &Options,
        args: &[Literal],
        want: Option<&[Literal]>,
        abs: f64,
        rel: f64,
    ) {
        let k = m.meshes.first().map_or(1, |m| m.num_devices());
        if !self.world_size.is_multiple_of(k) {
            self.skipped.push(format!("{name} ({k} devices)"));
            return;
        }
        self.ran += 1;
        let outcome = (|| -> Result<String, String> {
            let c = compile(m, opts).map_err(|e| format!("compile: {e}"))?;
            let reference;
            let want = match want {
                Some(w) => w,
                None => {
                    reference = reference::run(m, "main", args).map_err(|e| e.to_string())?;
                    &reference[..]
                }
            };
            let run = run_mpi(self.mesh(k), &c, args, &Interpreted, 0.0)
                .map_err(|e| format!("{e}\n{}", c.as_text(Stage::Partitioned)))?;
            for (i, (g, w)) in run.outputs.iter().zip(want).enumerate() {
                let excess = excess_error(g, w, abs, rel)?;
                if excess > 0.0 {
                    return Err(format!("result {i} is off by {excess:e}"));
                }
            }
            let (got, stated) = (measured(&run, &c), stated(&c));
            if got != stated {
                return Err(format!(
                    "bytes per device {got:?}, but explain states {stated:?}\n{}",
                    c.explain()
                ));
            }
            Ok(if got.is_empty() {
                "no collectives".to_string()
            } else {
                got.join(", ")
            })
        })();
        match outcome {
            Ok(bytes) if self.rank == 0 => println!(
                "mpi_check: ok   {name} on {} mesh(es) of {k}: matches, bytes as explain states ({bytes})",
                self.world_size / k
            ),
            Ok(_) => {}
            Err(e) => {
                self.failures += 1;
                eprintln!("mpi_check: FAIL {name} on rank {}: {e}", self.rank);
            }
        }
    }
}

impl Checker<'_> {
    /// `run_mpi`'s refusals reach every rank, with the same text, and nothing hangs: a
    /// program of 2 devices on the whole world; one rank (device 1 of each mesh of 2)
    /// passing too few arguments.
    fn errors(&mut self) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/partition/priorities.mlir"
        );
        let text = std::fs::read_to_string(path).expect("a canonical case");
        let m = shardc::ir::text::parse_module(&text).expect("it parses");
        let c = compile(&m, &Options::default().deterministic()).expect("it compiles");
        let args = det_inputs(&m);
        let w = self.world_size;
        let world = self.mesh(w);
        let got = run_mpi(world, &c, &args, &Interpreted, 0.0)
            .err()
            .map(|e| e.to_string());
        let want = format!(
            "the program runs on 2 devices, but the MPI communicator has {w} ranks (one rank runs one device): launch it with `mpirun -n 2`"
        );
        self.expect("a program of 2 devices on the whole world", got, &want);
        let pair = self.mesh(2);
        let mine = if pair.device() == 1 {
            &args[..1]
        } else {
            &args[..]
        };
        let got = run_mpi(pair, &c, mine, &Interpreted, 0.0)
            .err()
            .map(|e| e.to_string());
        self.expect(
            "too few arguments on device 1",
            got,
            "the program takes 2 arguments, 1 were given",
        );
    }

    /// `MpiProgram`: three calls with the state `w` kept on the ranks (`next_args` carries
    /// it) equal three `run_mpi` calls from global values, bit for bit, whether `w` leaves
    /// in the layout it arrives in (it stays where it is) or in another (gathered and
    /// sharded again); a bad carry is every rank's error.
    fn resident(&mut self) {
        if !self.world_size.is_multiple_of(4) {
            self.skipped
                .push("state kept on the ranks (4 devices)".into());
            return;
        }
        for out in [r#"[{"model"}, {}]"#, r#"[{}, {"model"}]"#] {
            self.ran += 1;
            let outcome = self.resident_case(out);
            match outcome {
                Ok(()) if self.rank == 0 => println!(
                    "mpi_check: ok   state kept on the ranks, w leaving as {out}: 3 calls equal run_mpi's bit for bit"
                ),
                Ok(()) => {}
                Err(e) => {
                    self.failures += 1;
                    eprintln!(
                        "mpi_check: FAIL state kept on the ranks ({out}) on rank {}: {e}",
                        self.rank
                    );
                }
            }
        }
    }

    fn resident_case(&mut self, out: &str) -> Result<(), String> {
        let text = include_str!("fixtures/stateful.mlir")
            .replace("@MESH@", r#"["data"=2, "model"=2]"#)
            .replace("@OUT@", out);
        let m = shardc::ir::text::parse_module(&text).map_err(|e| e.to_string())?;
        let c = compile(&m, &Options::default().deterministic()).map_err(|e| e.to_string())?;
        let mesh = self.mesh(4);
        let program = MpiProgram::new(mesh, &c, &Interpreted).map_err(|e| e.to_string())?;
        let mut global = det_inputs(&m);
        let x0 = global[1].clone();
        let x = |i: usize| {
            let v: Vec<f64> = x0.to_f64_vec().iter().map(|e| e * (i + 1) as f64).collect();
            Literal::from_f64(x0.ty.dtype, &x0.ty.shape, &v).expect("sizes match")
        };
        global[1] = x(0);
        let e = |e: shardc::Error| e.to_string();
        let mut args = program.put(&c, &global).map_err(e)?;
        // Arguments are not results (x's pieces are not y's type): every rank refuses.
        let refused = program.get(&c, &args, 1, 0.0).err().map(e);
        if !refused
            .as_deref()
            .is_some_and(|r| r.starts_with("these values are not this program's results"))
        {
            return Err(format!("get on the arguments gave {refused:?}"));
        }
        for i in 0..3 {
            global[1] = x(i);
            let want = run_mpi(mesh, &c, &global, &Interpreted, 0.0)
                .map_err(e)?
                .outputs;
            let (results, _) = program.call(args, &RunOptions::default()).map_err(e)?;
            for k in [1, 0] {
                let got = program.get(&c, &results, k, 0.0).map_err(e)?;
                if got.to_f64_vec() != want[k].to_f64_vec() {
                    return Err(format!("result {k} of call {i} differs from run_mpi's"));
                }
            }
            global[0] = want[0].clone();
            if i == 2 {
                let refused = program.next_args(&c, results, &[(0, 0)], &[]).err().map(e);
                let want = "next_args: argument 1 is neither carried from a result nor given fresh";
                if refused.as_deref() != Some(want) {
                    return Err(format!("a bad carry gave {refused:?}, not {want:?}"));
                }
                break;
            }
            args = program
                .next_args(&c, results, &[(0, 0)], &[(1, x(i + 1))])
                .map_err(e)?;
        }
        Ok(())
    }

    fn expect(&mut self, what: &str, got: Option<String>, want: &str) {
        if got.as_deref() == Some(want) {
            if self.rank == 0 {
                println!("mpi_check: ok   {what}: every rank reports {want:?}");
            }
        } else {
            self.failures += 1;
            eprintln!("mpi_check: FAIL {what} on rank {}: {got:?}", self.rank);
        }
    }
}

/// The measured bytes of every collective, as `explain` states them (for a permute, what a
/// device that moves its block sends; for the rest, the mean over devices), sorted.
/// A collective run once per iteration of a loop counts once per run, but once in all when
/// `explain` lists it once (`trips_unknown`: a loop bounded by an input).
fn measured(run: &Run, c: &Compiled) -> Vec<String> {
    let once: Vec<String> = c
        .explain()
        .collectives
        .iter()
        .filter(|c| c.trips_unknown)
        .map(|c| format!("{} {}", c.kind, c.bytes_per_device))
        .collect();
    let mut got: Vec<String> = run
        .report
        .stats
        .ops
        .iter()
        .filter(|o| !matches!(o.kind.as_str(), "shard_slice" | "axis_index"))
        .flat_map(|o| {
            let bytes = if o.kind == "collective_permute" {
                o.max_bytes()
            } else {
                o.mean_bytes()
            };
            let runs = o.runs.max(1);
            let mut entry = format!("{} {}", o.kind, bytes / runs as u64);
            // A branch not taken sent nothing: it stands for what explain lists of its
            // kind once (as `tests/it/util.rs` reads it).
            if o.runs == 0 {
                let prefix = format!("{} ", o.kind);
                if let Some(stated) = once.iter().filter(|e| e.starts_with(&prefix)).min() {
                    entry = stated.clone();
                }
            }
            let listed = if once.contains(&entry) { 1 } else { runs };
            std::iter::repeat_n(entry, listed)
        })
        .collect();
    got.sort();
    got
}

/// The collectives `explain` states, with their bytes per device, sorted.
fn stated(c: &Compiled) -> Vec<String> {
    let mut want: Vec<String> = c
        .explain()
        .collectives
        .iter()
        .map(|c| format!("{} {}", c.kind, c.bytes_per_device))
        .collect();
    want.sort();
    want
}
