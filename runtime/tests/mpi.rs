//! The mpi backend, one process per device: every per-device op on every element type and
//! reducer against the simulated mesh (bit for bit, or within the stated rounding bound
//! for float sums and products) and the cpu backend's bytes; NaN and signed zeros in
//! `maximum`/`minimum`; integer sums that wrap; failures (a kernel that fails, panics or
//! returns the wrong type on one rank; bad arguments on one rank; a world of the wrong
//! size; ranks preparing different programs), each reported with the same text on every
//! rank and never a hang; a rank failing inside a loop whose body communicates ending the
//! job (its own `mpirun -n 4`); loops run as often as an argument says; a mesh over part
//! of the world; overlap off; the gathered report.
//! And what the cuda backend's one process per GPU (`CudaMpiMesh`) does over MPI: the NCCL
//! ids shared in every replica group of a 2x2 mesh (`share_ids`, with fake ids: no NCCL
//! needed); without a driver (here, CI), the same clear error on every rank; with one,
//! collectives through it against the simulated mesh.
//!
//! A test binary without the libtest harness: run plainly (as `cargo test` does), it
//! launches itself under `mpirun -n 8`; under `mpirun` every rank runs every check, and a
//! failed check aborts the whole job (`MPI_Abort`), so `mpirun` exits non-zero.

mod common;

use common::*;
use shardc_ir::text::parse_module;
use shardc_ir::{DType, Elements, Literal, Module};
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::cuda::Collectives;
use shardc_runtime::backend::cuda::plan::communicators;
use shardc_runtime::backend::mpi::rsmpi::environment::Universe;
use shardc_runtime::backend::mpi::rsmpi::topology::Color;
use shardc_runtime::backend::mpi::rsmpi::traits::*;
use shardc_runtime::backend::mpi::{
    MpiMesh, abort_on_panic, initialize, launched, relaunch, share_ids,
};
use shardc_runtime::backend::{Executable, RunOptions, RunReport, RuntimeError};
use shardc_runtime::engine::Interpreted;
use shardc_runtime::simulate;
use std::process::ExitCode;

const RANKS: usize = DEVICES;

/// One check: every rank runs it on the world's mesh.
type Check = fn(&Universe, &MpiMesh);

fn main() -> ExitCode {
    if launched() && std::env::args().nth(1).as_deref() == Some(LOOP_FAILURE) {
        return fail_inside_a_loop();
    }
    if !launched() {
        if !selected("mpi") {
            return ExitCode::SUCCESS;
        }
        if let Err(e) = a_rank_failing_inside_a_loop_ends_the_job() {
            eprintln!("mpi: {e}");
            return ExitCode::FAILURE;
        }
        return match relaunch(RANKS, &[], 300) {
            Ok(s) if s.success() => ExitCode::SUCCESS,
            Ok(s) => {
                eprintln!("mpi: mpirun failed ({s})");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("mpi: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let universe = match initialize() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    // The kernel that panics on purpose (device 3, `failing_device`) need not be printed.
    let print = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let on_purpose = info
            .payload()
            .downcast_ref::<&str>()
            .is_some_and(|m| m.ends_with("on purpose"));
        if !on_purpose {
            print(info);
        }
    }));
    abort_on_panic();
    let mesh = MpiMesh::world(&universe).unwrap();
    assert_eq!(mesh.devices(), RANKS, "run me with mpirun -n {RANKS}");
    let mut checks: Vec<(&str, Check)> = vec![
        ("every collective equals the simulator", every_collective),
        ("NaN and signed zeros", nan_and_signed_zeros),
        ("integer sums and products wrap", integers_wrap),
        ("a failing device is named on every rank", failing_device),
        ("bad arguments on one rank", bad_arguments),
        ("the world's size and a part of the world", world_size),
        ("ranks preparing different programs", different_programs),
        ("overlap off, and the report", overlap_off_and_report),
        ("agree", agree),
        ("a loop whose body communicates", communicating_loop_runs),
        (
            "a branch whose regions communicate",
            communicating_branch_runs,
        ),
        (
            "ids shared in every replica group of a 2x2 mesh",
            ids_in_groups,
        ),
    ];
    if cfg!(feature = "cuda") {
        checks.push(("cuda: one process per device", cuda::one_process_per_device));
    }
    for (name, check) in &checks {
        check(&universe, &mesh);
        mesh.communicator().barrier();
        if mesh.device() == 0 {
            println!("mpi: {name} ... ok");
        }
    }
    if mesh.device() == 0 {
        println!("mpi: {} checks passed on {RANKS} ranks", checks.len());
    }
    ExitCode::SUCCESS
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

fn exe_of(m: &Module) -> Executable {
    Executable::new(m, "main", &Interpreted).unwrap_or_else(|e| panic!("{e}"))
}

fn run_mpi(mesh: &MpiMesh, m: &Module, args: &[Vec<Literal>]) -> RunReport {
    mesh.run(&exe_of(m), args[mesh.device()].clone())
        .unwrap_or_else(|e| panic!("device {}: {e}", mesh.device()))
}

/// More types and reducers than the cpu backend's test: each maps to a different MPI
/// operation or datatype.
const MPI_CASES: &[(&str, &[&str])] = &[
    ("f32", &["add", "multiply", "maximum", "minimum"]),
    ("f64", &["add", "multiply", "maximum", "minimum"]),
    ("bf16", &["add", "multiply", "maximum", "minimum"]),
    ("f16", &["add", "maximum"]),
    (
        "i32",
        &["add", "multiply", "maximum", "minimum", "and", "or", "xor"],
    ),
    ("i64", &["add", "multiply", "maximum", "minimum", "xor"]),
    ("i1", &["and", "or", "xor", "add", "minimum"]),
];

fn every_collective(_: &Universe, mesh: &MpiMesh) {
    for (t, reducers) in MPI_CASES {
        for r in *reducers {
            let m = parse_module(&collectives(t, r)).unwrap_or_else(|e| panic!("{t} {r}: {e}"));
            let args = args_for(&m, DEVICES, 7);
            let report = run_mpi(mesh, &m, &args);
            check_against_simulator(t, r, &m, &args, &report.outputs);
            // The bytes are the ring volumes the cpu backend measures.
            let exe = exe_of(&m);
            let cpu = exe.run(&CpuMesh::new(DEVICES).unwrap(), args).unwrap();
            for ((ex, got), want) in exe.exchanges().zip(&report.stats.ops).zip(&cpu.stats.ops) {
                assert_eq!(got.kind, want.kind);
                assert_eq!(got.bytes_sent, want.bytes_sent, "{t} {r} {}", got.value);
                let stated: Vec<u64> = (0..DEVICES).map(|d| ex.ring_bytes(d)).collect();
                assert_eq!(got.bytes_sent, stated);
            }
        }
    }
}

/// Arguments with NaNs and zeros of both signs among ordinary values.
fn with_specials(m: &Module, dtype: DType) -> Vec<Vec<Literal>> {
    let specials = [f64::NAN, -0.0, 0.0, 1.5, -2.0];
    args_for(m, DEVICES, 9)
        .into_iter()
        .enumerate()
        .map(|(d, args)| {
            args.into_iter()
                .map(|a| {
                    let v: Vec<f64> = a
                        .to_f64_vec()
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| {
                            if (i + d) % 3 == 0 {
                                specials[(i * 7 + d) % specials.len()]
                            } else {
                                x
                            }
                        })
                        .collect();
                    Literal::from_f64(dtype, &a.ty.shape, &v).unwrap()
                })
                .collect()
        })
        .collect()
}

fn nan_and_signed_zeros(_: &Universe, mesh: &MpiMesh) {
    for t in ["f32", "f64", "bf16"] {
        for r in ["maximum", "minimum"] {
            let m = parse_module(&collectives(t, r)).unwrap();
            let args = with_specials(&m, DType::from_name(t).unwrap());
            let report = run_mpi(mesh, &m, &args);
            // Bit for bit, NaNs and signs of zeros included.
            check_against_simulator(t, r, &m, &args, &report.outputs);
            let nans = report.outputs[0][0]
                .to_f64_vec()
                .iter()
                .filter(|x| x.is_nan())
                .count();
            assert!(nans > 0, "{t} {r}: no NaN reached the result");
        }
    }
}

fn integers_wrap(_: &Universe, mesh: &MpiMesh) {
    for r in ["add", "multiply"] {
        let m = parse_module(&collectives("i32", r)).unwrap();
        let args: Vec<Vec<Literal>> = args_for(&m, DEVICES, 4)
            .into_iter()
            .map(|args| {
                args.into_iter()
                    .map(|a| {
                        let n = a.ty.num_elements();
                        let v: Vec<i32> = (0..n).map(|i| i32::MAX - 3 * i as i32).collect();
                        Literal::new(a.ty.clone(), Elements::I32(v)).unwrap()
                    })
                    .collect()
            })
            .collect();
        let report = run_mpi(mesh, &m, &args);
        check_against_simulator("i32", r, &m, &args, &report.outputs);
    }
}

fn failing_device(_: &Universe, mesh: &MpiMesh) {
    let m = parse_module(FAILING).unwrap();
    let args = args_for(&m, DEVICES, 5);
    for (sabotage, want) in [
        (
            Sabotage::Fail,
            "device 3: segment 0 (stablehlo.convert %1, stablehlo.broadcast_in_dim %2, stablehlo.add %3) failed: this kernel fails on purpose",
        ),
        (
            Sabotage::Panic,
            "device 3: a thread of the device panicked: this kernel panics on purpose",
        ),
        (
            Sabotage::WrongType,
            "device 3: the kernel of segment 0 (stablehlo.convert %1, stablehlo.broadcast_in_dim %2, stablehlo.add %3) output 0 is tensor<f32>, but its type is tensor<8xf32>",
        ),
    ] {
        let exe = Executable::new(&m, "main", &Sabotaged(sabotage)).unwrap();
        let e = mesh
            .run(&exe, args[mesh.device()].clone())
            .expect_err("device 3 fails");
        assert_eq!(e.to_string(), want, "on device {}", mesh.device());
        match &e {
            RuntimeError::Device { device: 3, .. } => assert_eq!(mesh.device(), 3),
            RuntimeError::Remote { device: 3, .. } => assert_ne!(mesh.device(), 3),
            other => panic!("device {}: {other:?}", mesh.device()),
        }
    }
    // The mesh runs again after a failed run, and every device added 0+1+...+7 = 28.
    let ok = run_mpi(mesh, &m, &args);
    let sum: f64 = (0..DEVICES).map(|d| args[d][0].to_f64_vec()[0]).sum();
    assert!((ok.outputs[0][0].to_f64_vec()[0] - sum - 28.0).abs() < 1e-4);
}

fn bad_arguments(_: &Universe, mesh: &MpiMesh) {
    let m = parse_module(&collectives("f32", "add")).unwrap();
    let exe = exe_of(&m);
    let mut args = args_for(&m, DEVICES, 1);
    args[5][0] = Literal::from_f64(DType::F32, &[8, 4], &[0.0; 32]).unwrap();
    let e = mesh.run(&exe, args[mesh.device()].clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "device 5: argument 0 is tensor<8x4xf32>, but @main takes tensor<4x8xf32>"
    );
    args[2].pop();
    let e = mesh.run(&exe, args[mesh.device()].clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "device 2: @main takes 2 arguments, 1 were given"
    );
}

/// A program of 4 devices: an all-reduce and an all-gather over all of them.
const FOUR: &str = r#"module @four {
  func.func public @main(%x: tensor<6xf32>) -> tensor<24xf32> {
    %r = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<6xf32>) -> tensor<6xf32>
    %g = "stablehlo.all_gather"(%r) <{all_gather_dim = 0 : i64, replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>}> : (tensor<6xf32>) -> tensor<24xf32>
    return %g : tensor<24xf32>
  }
}"#;

fn world_size(universe: &Universe, mesh: &MpiMesh) {
    let m = parse_module(FOUR).unwrap();
    let exe = exe_of(&m);
    let args = args_for(&m, DEVICES, 2);
    let e = mesh.run(&exe, args[mesh.device()].clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the program runs on 4 devices, but the MPI communicator has 8 ranks (one rank runs one device): launch it with `mpirun -n 4`"
    );
    // Each half of the world is a mesh of 4 that runs it; the halves do not meet.
    let world = universe.world();
    let half = world
        .split_by_color(Color::with_value(world.rank() / 4))
        .unwrap();
    let small = MpiMesh::new(universe, &half).unwrap();
    assert_eq!((small.device(), small.devices()), (mesh.device() % 4, 4));
    let first = (mesh.device() / 4) * 4;
    let mine: Vec<Vec<Literal>> = args[first..first + 4].to_vec();
    let report = small.run(&exe, mine[small.device()].clone()).unwrap();
    let want = simulate::run(&m, "main", &[0, 1, 2, 3].map(shardc_ir::DeviceId), &mine).unwrap();
    for (d, want) in want.iter().enumerate() {
        let (g, w) = (report.outputs[d][0].to_f64_vec(), want[0].to_f64_vec());
        let off = g
            .iter()
            .zip(&w)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(off < 1e-5, "device {d}: {g:?} vs {w:?}");
    }
    assert_eq!(report.stats.ops[0].bytes_sent, [36; 4]); // 2·3/4 of 24 B
    assert_eq!(report.stats.ops[1].bytes_sent, [72; 4]); // 3/4 of 96 B
}

fn different_programs(_: &Universe, mesh: &MpiMesh) {
    let text = if mesh.device() == 2 {
        collectives("f32", "maximum")
    } else {
        collectives("f32", "add")
    };
    let m = parse_module(&text).unwrap();
    let args = args_for(&m, DEVICES, 1);
    let e = match mesh.run(&exe_of(&m), args[mesh.device()].clone()) {
        Ok(_) => panic!("device {}: ran different programs", mesh.device()),
        Err(e) => e,
    };
    // Every rank compares the programs' fingerprints with device 0's.
    let want = "mpi: device 2 prepared another program than device 0 (its per-device ops or argument types differ); every rank must run the same executable, compiled from the same module with the same options (a compile stopped by a wall-time limit on some ranks only differs: `compiler::Options::deterministic`)";
    assert_eq!(e.to_string(), want);
}

fn overlap_off_and_report(_: &Universe, mesh: &MpiMesh) {
    let m = parse_module(&collectives("i32", "add")).unwrap();
    let exe = exe_of(&m);
    let args = args_for(&m, DEVICES, 8);
    let on = mesh.run(&exe, args[mesh.device()].clone()).unwrap();
    let off = mesh
        .run_with(
            &exe,
            args[mesh.device()].clone(),
            &RunOptions {
                overlap: false,
                ..RunOptions::default()
            },
        )
        .unwrap();
    assert_eq!(on.outputs, off.outputs);
    // Every device's results, stats and spans, on every rank.
    assert_eq!(on.outputs.len(), DEVICES);
    assert_eq!(on.stats.devices.len(), DEVICES);
    for d in 0..DEVICES {
        let spans: Vec<_> = on.spans.iter().filter(|s| s.device == d).collect();
        assert!(
            spans.iter().any(|s| s.name.starts_with("all_reduce")),
            "{d}"
        );
        let sent: u64 = on.stats.ops.iter().map(|o| o.bytes_sent[d]).sum();
        assert_eq!(on.stats.devices[d].bytes_sent, sent);
    }
    let trace: serde_json::Value = serde_json::from_str(&on.trace_json()).unwrap();
    let pids: std::collections::BTreeSet<u64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["pid"].as_u64())
        .collect();
    assert_eq!(pids, (0..DEVICES as u64).collect());
    assert!(on.stats.wall > std::time::Duration::ZERO);
}

fn agree(_: &Universe, mesh: &MpiMesh) {
    assert_eq!(mesh.agree(Ok(mesh.device())).unwrap(), mesh.device());
    let local = if mesh.device() == 6 || mesh.device() == 7 {
        Err(RuntimeError::Mpi(format!("rank {} says no", mesh.device())))
    } else {
        Ok(())
    };
    let e = mesh.agree(local).unwrap_err();
    assert_eq!(e.to_string(), "mpi: rank 6 says no");
}

/// A program of a 2x2 mesh (`data` x `model`, devices `[[0, 1], [2, 3]]`): a sum along
/// `model`, one along `data`, an all-gather over the whole mesh, a reduce-scatter whose
/// groups list their members in another order, and a permute (the whole mesh).
/// A loop whose body all-reduces over the rows of the 2x4 mesh and permutes around each
/// row, run as often as an argument says: the communication thread follows compute's
/// jobs; results equal the simulator's, bytes add up over the iterations.
fn communicating_loop_runs(_: &Universe, mesh: &MpiMesh) {
    let m = parse_module(&communicating_loop(
        ROWS,
        "dense<[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]> : tensor<8x2xi64>",
    ))
    .unwrap();
    let devices: Vec<shardc_ir::DeviceId> = (0..RANKS).map(shardc_ir::DeviceId).collect();
    for trips in [0, 3, 20] {
        let args: Vec<Vec<Literal>> = (0..RANKS)
            .map(|d| {
                vec![
                    Literal::from_f64(DType::F32, &[4], &[d as f64, 0.5, -1.0, 0.25 * d as f64])
                        .unwrap(),
                    Literal::from_f64(DType::I32, &[], &[trips as f64]).unwrap(),
                ]
            })
            .collect();
        let want = simulate::run(&m, "main", &devices, &args).unwrap();
        let report = run_mpi(mesh, &m, &args);
        assert_eq!(report.outputs, want, "{trips} trips");
        let cpu = exe_of(&m).run(&CpuMesh::new(RANKS).unwrap(), args).unwrap();
        for (o, c) in report.stats.ops.iter().zip(&cpu.stats.ops) {
            assert_eq!(o.bytes_sent, c.bytes_sent, "{trips} trips: {}", o.kind);
        }
    }
}

/// A branch whose first region all-reduces over the rows of the 2x4 mesh, taken or not
/// as an argument says (the same on every rank): results equal the simulator's, the
/// all-reduce runs only when its branch is taken.
fn communicating_branch_runs(_: &Universe, mesh: &MpiMesh) {
    let m = parse_module(&communicating_branch(ROWS)).unwrap();
    let devices: Vec<shardc_ir::DeviceId> = (0..RANKS).map(shardc_ir::DeviceId).collect();
    for index in [0, 1] {
        let args: Vec<Vec<Literal>> = (0..RANKS)
            .map(|d| {
                vec![
                    Literal::from_f64(DType::F32, &[4], &[d as f64, 0.5, -1.0, 0.25 * d as f64])
                        .unwrap(),
                    Literal::from_f64(DType::I32, &[], &[index as f64]).unwrap(),
                ]
            })
            .collect();
        let want = simulate::run(&m, "main", &devices, &args).unwrap();
        let report = run_mpi(mesh, &m, &args);
        assert_eq!(report.outputs, want, "index {index}");
        let runs: Vec<usize> = report.stats.ops.iter().map(|o| o.runs).collect();
        assert_eq!(runs, [usize::from(index == 0)], "index {index}");
    }
}

/// The argument that runs [`fail_inside_a_loop`] under `mpirun`.
const LOOP_FAILURE: &str = "fail-inside-a-loop";

/// A rank whose kernel fails inside a loop whose body communicates (the others wait for
/// it in the loop's permute, and nobody can count the collectives it owes) prints its
/// error and ends the job, rather than leaving the others waiting: `mpirun` exits
/// non-zero within seconds, the failing rank's error on its standard error.
fn a_rank_failing_inside_a_loop_ends_the_job() -> Result<(), String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    let out = std::process::Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "--timeout",
            "120",
            "-n",
            "4",
        ])
        .arg(&me)
        .arg(LOOP_FAILURE)
        .output()
        .map_err(|e| format!("cannot run mpirun: {e}"))?;
    let took = start.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return Err(format!("the job with a failing rank succeeded:\n{err}"));
    }
    for want in [
        "rank 2: device 2: segment",
        "this kernel fails on purpose",
        "rank 2: the program has a loop whose body communicates, so the other ranks cannot finish without this one: ending the job",
    ] {
        if !err.contains(want) {
            return Err(format!("the failing rank's message lacks {want:?}:\n{err}"));
        }
    }
    if took > 60.0 {
        return Err(format!(
            "the job took {took:.0} s to end after a rank failed"
        ));
    }
    println!("mpi: a rank failing inside a loop ends the job ({took:.1} s) ... ok");
    Ok(())
}

/// Under `mpirun -n 4`: the loop of [`communicating_loop`] for 5 trips, whose body's
/// kernel fails on device 2 (its input marked 999) in the first iteration.
fn fail_inside_a_loop() -> ExitCode {
    let Ok(universe) = initialize() else {
        return ExitCode::FAILURE;
    };
    let mesh = MpiMesh::world(&universe).unwrap();
    let m = parse_module(&communicating_loop(
        "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>",
        "dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>",
    ))
    .unwrap();
    let d = mesh.device();
    let marker = if d == 2 { 999.0 } else { d as f64 };
    let args = vec![
        Literal::from_f64(DType::F32, &[4], &[marker, 0.5, -1.0, 0.25]).unwrap(),
        Literal::from_f64(DType::I32, &[], &[5.0]).unwrap(),
    ];
    let exe = Executable::new(&m, "main", &FailsOnMarker).unwrap();
    // Device 2 ends the job; the others never return from this run.
    let _ = mesh.run(&exe, args);
    ExitCode::SUCCESS
}

/// Kernels that fail on purpose when an input's first element is 999.
struct FailsOnMarker;

struct MarkedKernel(Box<dyn shardc_runtime::engine::Kernel>);

impl shardc_runtime::engine::Kernel for MarkedKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut shardc_runtime::engine::Buffers,
    ) -> Result<Vec<Literal>, shardc_runtime::engine::EngineError> {
        let marked = inputs.iter().any(|l| {
            l.ty.dtype == DType::F32 && l.elements.len() > 1 && l.get(0).as_f64() == 999.0
        });
        if marked {
            return Err("this kernel fails on purpose".into());
        }
        self.0.run_reusing(inputs, buffers)
    }
}

impl shardc_runtime::engine::Compute for FailsOnMarker {
    fn prepare(
        &self,
        module: &Module,
        f: &shardc_ir::Function,
        segment: &shardc_runtime::engine::Segment,
    ) -> Result<Box<dyn shardc_runtime::engine::Kernel>, shardc_runtime::engine::EngineError> {
        Ok(Box::new(MarkedKernel(
            Interpreted.prepare(module, f, segment)?,
        )))
    }
}

const MESH_2X2: &str = r#"module @mesh2x2 {
  func.func public @main(%x: tensor<8xf32>) -> (tensor<32xf32>, tensor<4xf32>, tensor<8xf32>) {
    %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8xf32>) -> tensor<8xf32>
    %b = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8xf32>) -> tensor<8xf32>
    %g = "stablehlo.all_gather"(%b) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<8xf32>) -> tensor<32xf32>
    %r = "stablehlo.reduce_scatter"(%x) <{scatter_dimension = 0 : i64, replica_groups = dense<[[3, 1], [2, 0]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8xf32>) -> tensor<4xf32>
    %c = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<8xf32>) -> tensor<8xf32>
    return %g, %r, %c : tensor<32xf32>, tensor<4xf32>, tensor<8xf32>
  }
}"#;

/// A fake NCCL id: the world rank of the process that made it, the group's index, and a
/// pattern to the end.
fn fake_id(world_rank: usize, group: usize) -> [u8; 128] {
    let mut id = [0xa5u8; 128];
    id[..8].copy_from_slice(&(world_rank as u64).to_le_bytes());
    id[8..16].copy_from_slice(&(group as u64).to_le_bytes());
    id
}

fn ids_in_groups(universe: &Universe, _: &MpiMesh) {
    // Each half of the world (4 ranks) is a 2x2 mesh.
    let world = universe.world();
    let wr = world.rank() as usize;
    let half = world
        .split_by_color(Color::with_value(world.rank() / 4))
        .unwrap();
    let me = half.rank() as usize;
    let first = wr - me;
    // The groups the cuda backend makes NCCL communicators for, in program order: each
    // replica group (members in group order), the whole mesh once.
    let exe = exe_of(&parse_module(MESH_2X2).unwrap());
    let groups = communicators(exe.exchanges(), 4, Collectives::Nccl);
    assert_eq!(
        groups,
        [
            vec![0, 1],
            vec![2, 3],
            vec![0, 2],
            vec![1, 3],
            vec![0, 1, 2, 3],
            vec![3, 1],
            vec![2, 0]
        ]
    );
    let mut made = Vec::new();
    let got = share_ids::<_, 128>(&half, &groups, |index| {
        made.push(index);
        Ok(fake_id(wr, index))
    });
    assert_eq!(got.len(), groups.len());
    for (index, (g, got)) in groups.iter().zip(&got).enumerate() {
        match g.iter().position(|&d| d == me) {
            None => assert!(got.is_none(), "rank {wr}, group {g:?}: {got:?}"),
            Some(position) => {
                let (id, p) = got
                    .as_ref()
                    .unwrap()
                    .as_ref()
                    .unwrap_or_else(|e| panic!("rank {wr}, group {g:?}: {e}"));
                // The leader's id, made by the leader of this half, and my position.
                assert_eq!(id, &fake_id(first + g[0], index), "rank {wr}, group {g:?}");
                assert_eq!(*p, position, "rank {wr}, group {g:?}");
            }
        }
    }
    // Only leaders made ids, once per group they lead.
    let led: Vec<usize> = (0..groups.len()).filter(|&i| groups[i][0] == me).collect();
    assert_eq!(made, led, "rank {wr}");

    // A leader that cannot make its id refuses; its members are told, nobody waits, and
    // the next group is shared as usual.
    let got = share_ids::<_, 128>(&half, &groups[..4], |index| {
        if index == 1 {
            Err("no id here".to_string())
        } else {
            Ok(fake_id(wr, index))
        }
    });
    let text = |i: usize| got[i].as_ref().map(|r| r.as_ref().map(|(_, p)| *p));
    match me {
        2 => assert_eq!(text(1), Some(Err(&"no id here".to_string()))),
        3 => assert_eq!(
            text(1),
            Some(Err(
                &"device 2, the leader of group [2, 3], could not make its id".to_string()
            ))
        ),
        _ => assert_eq!(text(1), None),
    }
    assert_eq!(text(2), [0, 2].iter().position(|&d| d == me).map(Ok));

    // A group naming a rank the communicator does not have is refused on its members,
    // with nothing sent.
    let got = share_ids::<_, 128>(&half, &[vec![0, 4], vec![1, 1]], |i| Ok(fake_id(wr, i)));
    let want = |g: &str| {
        Some(Err(format!(
            "{g} must name distinct ranks of the communicator's 4"
        )))
    };
    let errs: Vec<Option<Result<usize, String>>> = got
        .into_iter()
        .map(|r| r.map(|r| r.map(|(_, p)| p)))
        .collect();
    match me {
        0 => assert_eq!(errs, [want("group 0 ([0, 4])"), None]),
        1 => assert_eq!(errs, [None, want("group 1 ([1, 1])")]),
        _ => assert_eq!(errs, [None, None]),
    }
}

/// Without the feature `cuda` there is no cuda backend to check.
#[cfg(not(feature = "cuda"))]
mod cuda {
    use super::*;
    pub fn one_process_per_device(_: &Universe, _: &MpiMesh) {}
}

/// The cuda backend's one process per GPU.
#[cfg(feature = "cuda")]
mod cuda {
    use super::*;
    use shardc_runtime::backend::cuda::{CudaMpiMesh, CudaOptions, probe};
    use shardc_runtime::backend::mpi::rsmpi::environment::processor_name;

    pub fn one_process_per_device(universe: &Universe, mesh: &MpiMesh) {
        let host = processor_name().unwrap();
        let made = CudaMpiMesh::world(universe, &CudaOptions::default());
        let cuda = match (probe(), made) {
            // No NVIDIA driver (this project's machines, CI), or one that sees no GPU:
            // every rank returns the error of the first rank, naming it and its host,
            // and nobody waits.
            (Err(why), Err(e)) => {
                let want = format!("device 0 (MPI rank 0 on {host}): {why}");
                assert_eq!(e.to_string(), want, "rank {}", mesh.device());
                if let RuntimeError::NoCudaDriver(text) = &why {
                    assert!(text.starts_with("no CUDA driver found (libcuda.so.1)"));
                }
                assert!(matches!(e, RuntimeError::Remote { device: 0, .. }), "{e:?}");
                // The same on a mesh of half the world, whose device 0 is world rank 0 or 4.
                let world = universe.world();
                let half = world
                    .split_by_color(Color::with_value(world.rank() / 4))
                    .unwrap();
                let e = CudaMpiMesh::new(universe, &half, &CudaOptions::default()).unwrap_err();
                assert_eq!(e.to_string(), want);
                return;
            }
            (Ok(_), Ok(cuda)) => cuda,
            (probed, made) => panic!(
                "rank {}: the driver probe gave {probed:?} but the mesh {made:?}",
                mesh.device()
            ),
        };
        // A GPU machine: 8 ranks on the node's GPUs; NCCL only with a GPU per rank.
        assert_eq!((cuda.device(), cuda.devices()), (mesh.device(), DEVICES));
        for (t, r) in [
            ("f32", "add"),
            ("i32", "maximum"),
            ("bf16", "add"),
            ("i1", "or"),
        ] {
            let m = parse_module(&collectives(t, r)).unwrap();
            let args = args_for(&m, DEVICES, 11);
            let report = cuda
                .run(&exe_of(&m), args[cuda.device()].clone())
                .unwrap_or_else(|e| panic!("{t} {r}: {e}"));
            check_against_simulator(t, r, &m, &args, &report.outputs);
        }
        // Every rank alone: a mesh of one device each, through NCCL where it loads
        // (ncclGetUniqueId, ncclCommInitRank of one rank, every NCCL op).
        let world = universe.world();
        let alone = world
            .split_by_color(Color::with_value(world.rank()))
            .unwrap();
        let one = CudaMpiMesh::new(universe, &alone, &CudaOptions::default()).unwrap();
        let want = if one.driver().nccl.is_some() {
            Collectives::Nccl
        } else {
            Collectives::HostStaged
        };
        assert_eq!(one.collectives(), want);
        let m = parse_module(ONE).unwrap();
        let args = args_for(&m, 1, 3);
        for _ in 0..2 {
            // Twice: the second run reuses the communicators.
            let report = one.run(&exe_of(&m), args[0].clone()).unwrap();
            let want = simulate::run(&m, "main", &[shardc_ir::DeviceId(0)], &args).unwrap();
            assert_eq!(report.outputs, want, "rank {}", mesh.device());
        }
    }

    /// A program of one device: every NCCL op on a group of one.
    const ONE: &str = r#"module @one {
  func.func public @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
    %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0]]> : tensor<1x1xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = "stablehlo.all_gather"(%x) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %c = "stablehlo.all_to_all"(%x) <{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %d = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e = "stablehlo.reduce_scatter"(%a) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}"#;
}
