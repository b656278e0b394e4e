//! The cpu backend: every per-device op against the simulated mesh (bit for bit, or within
//! the stated rounding bound for floating-point sums and products), the bytes every device
//! sends against the ring algorithms' volumes, overlap and traces, and failures.

mod common;

use common::*;
use shardc_ir::text::parse_module;
use shardc_ir::{DType, Literal, Module};
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::report::SpanKind;
use shardc_runtime::backend::{Executable, Lane, RunOptions, RunReport, RuntimeError};
use shardc_runtime::engine::Interpreted;
use shardc_runtime::simulate;

fn run_cpu(m: &Module, args: Vec<Vec<Literal>>) -> RunReport {
    let exe = Executable::new(m, "main", &Interpreted).unwrap_or_else(|e| panic!("{e}"));
    let mesh = CpuMesh::new(args.len()).unwrap();
    exe.run(&mesh, args).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_collective_equals_the_simulator() {
    for (t, reducers) in CASES {
        for r in *reducers {
            let m = parse_module(&collectives(t, r)).unwrap_or_else(|e| panic!("{t} {r}: {e}"));
            let args = args_for(&m, DEVICES, 7);
            let got = run_cpu(&m, args.clone()).outputs;
            check_against_simulator(t, r, &m, &args, &got);
        }
    }
}

#[test]
fn integer_and_extremum_reductions_are_bitwise_and_sums_round_within_the_bound() {
    // The same f32 sum in ring order and in the simulator's order: within the bound, and
    // (for these inputs) not always bit for bit, which is why the bound is stated.
    let m = parse_module(&collectives("f32", "add")).unwrap();
    let args = args_for(&m, DEVICES, 11);
    let devices: Vec<shardc_ir::DeviceId> = (0..DEVICES).map(shardc_ir::DeviceId).collect();
    let want = simulate::run(&m, "main", &devices, &args).unwrap();
    let got = run_cpu(&m, args).outputs;
    let differing = (0..DEVICES)
        .filter(|&d| got[d][0] != want[d][0] || got[d][2] != want[d][2])
        .count();
    assert!(
        differing > 0,
        "ring order rounded exactly like a left fold everywhere"
    );
}

/// Every device sends what the ring algorithms move: all-reduce `2(n-1)/n·S`, reduce-scatter
/// `(n-1)/n·S_in`, all-gather `(n-1)/n·S_out`, all-to-all `(n-1)/n·S`, permute `S` from every
/// device whose block moves; nothing for the local ops.
#[test]
fn bytes_sent_are_the_algorithms_volumes() {
    let m = parse_module(&collectives("f32", "add")).unwrap();
    let report = run_cpu(&m, args_for(&m, DEVICES, 3));
    let s = 4 * 8 * 4; // a 4x8 f32 piece
    let every = |b: u64| vec![b; DEVICES];
    let ops = &report.stats.ops;
    let kinds: Vec<&str> = ops.iter().map(|o| o.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "all_reduce",
            "all_reduce",
            "all_reduce",
            "reduce_scatter",
            "reduce_scatter",
            "all_gather",
            "all_gather",
            "all_to_all",
            "all_to_all",
            "collective_permute",
            "shard_slice",
            "axis_index"
        ]
    );
    assert_eq!(ops[0].bytes_sent, every(2 * 3 * s / 4), "all_reduce over 4");
    assert_eq!(
        ops[1].bytes_sent,
        every(2 * 3 * s / 4),
        "all_reduce, shuffled groups"
    );
    // 3 f32 (12 B) over 8 devices: chunks of 0 or 1 element (chunk j starts at element
    // 3j/8: sizes 0,0,1,0,0,1,0,1), so devices send unequal amounts: each sends every
    // chunk but its own, then every chunk but its right neighbour's, 2(n-1)·S in all.
    assert_eq!(ops[2].bytes_sent.iter().sum::<u64>(), 2 * 7 * 12);
    assert_eq!(ops[2].bytes_sent, [24, 20, 20, 24, 20, 20, 20, 20]);
    assert_eq!(ops[3].bytes_sent, every(3 * s / 4), "reduce_scatter over 4");
    assert_eq!(ops[4].bytes_sent, every(s / 2), "reduce_scatter over 2");
    assert_eq!(
        ops[5].bytes_sent,
        every(3 * (4 * s) / 4),
        "all_gather over 4"
    );
    assert_eq!(
        ops[6].bytes_sent,
        every(7 * (8 * s) / 8),
        "all_gather over 8"
    );
    assert_eq!(ops[7].bytes_sent, every(3 * s / 4), "all_to_all over 4");
    assert_eq!(ops[8].bytes_sent, every(s / 2), "all_to_all over 2");
    assert_eq!(ops[9].bytes_sent, [s, s, s, s, s, s, 0, 0], "permute");
    assert_eq!(ops[10].bytes_sent, every(0));
    assert_eq!(ops[11].bytes_sent, every(0));
    for (d, stats) in report.stats.devices.iter().enumerate() {
        let sum: u64 = ops.iter().map(|o| o.bytes_sent[d]).sum();
        assert_eq!(stats.bytes_sent, sum, "device {d}");
    }
}

/// `Exchange::ring_bytes` (what backends whose collectives are not rings report, from the
/// types alone) is what the cpu backend's rings measure, for every op, device and type,
/// including an all-reduce whose chunks are uneven.
#[test]
fn ring_bytes_from_types_are_the_measured_bytes() {
    for t in ["f32", "bf16", "i64", "i1"] {
        let m = parse_module(&collectives(t, if t == "i1" { "or" } else { "add" })).unwrap();
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        let report = run_cpu(&m, args_for(&m, DEVICES, 3));
        let exchanges: Vec<_> = exe.exchanges().collect();
        assert_eq!(exchanges.len(), report.stats.ops.len());
        for (ex, op) in exchanges.iter().zip(&report.stats.ops) {
            let stated: Vec<u64> = (0..DEVICES).map(|d| ex.ring_bytes(d)).collect();
            assert_eq!(stated, op.bytes_sent, "{t} {} {}", op.kind, op.value);
        }
    }
}

/// Runs `f` on another thread and fails the test if it takes longer than a minute (a
/// device that hangs would otherwise hang the test).
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the run hung")
}

#[test]
fn bad_arguments_and_meshes_are_errors() {
    let m = parse_module(&collectives("f32", "add")).unwrap();
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let mut args = args_for(&m, DEVICES, 1);
    let e = exe.run(&mesh, args[..7].to_vec()).unwrap_err();
    assert!(
        matches!(e, RuntimeError::DeviceCount { want: 8, got: 7 }),
        "{e}"
    );
    // Device 3's first piece has the wrong type.
    args[3][0] = Literal::from_f64(DType::F32, &[8, 4], &[0.0; 32]).unwrap();
    let e = exe.run(&mesh, args.clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "device 3: argument 0 is tensor<8x4xf32>, but @main takes tensor<4x8xf32>"
    );
    args[3].pop();
    let e = exe.run(&mesh, args).unwrap_err();
    assert_eq!(
        e.to_string(),
        "device 3: @main takes 2 arguments, 1 were given"
    );
    // The program names devices 0..8; a mesh of 4 cannot run it.
    let small = CpuMesh::new(4).unwrap();
    let e = exe.run(&small, args_for(&m, 4, 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "stablehlo.all_reduce defining %0 names device 4, but the mesh has 4 devices (0..4); run it on a mesh of the program's size"
    );
    // A mesh of 9 leaves device 8 out of every group.
    let e = exe
        .run(&CpuMesh::new(9).unwrap(), args_for(&m, 9, 1))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "stablehlo.all_reduce defining %0 leaves device 8 out of every replica group"
    );
    assert!(matches!(
        CpuMesh::new(0).unwrap_err(),
        RuntimeError::EmptyMesh
    ));
    // A mesh of more threads than one process runs: refused before any is started,
    // pointing at one process per device.
    let e = CpuMesh::new(shardc_runtime::backend::cpu::MAX_DEVICES + 1).unwrap_err();
    assert!(
        e.to_string().contains("1025 devices") && e.to_string().contains("--backend mpi"),
        "{e}"
    );
    assert!(CpuMesh::new(shardc_runtime::backend::cpu::MAX_DEVICES).is_ok());
    assert!(matches!(
        Executable::new(&m, "nope", &Interpreted).err(),
        Some(RuntimeError::UnknownFunction(_))
    ));
}

#[test]
fn a_reducer_the_ring_cannot_reorder_is_refused() {
    let m = parse_module(&collectives("f32", "subtract")).unwrap();
    let e = Executable::new(&m, "main", &Interpreted).err().unwrap();
    assert!(matches!(e, RuntimeError::Unsupported { .. }), "{e}");
    assert!(e.to_string().starts_with(
        "stablehlo.all_reduce defining %0 cannot run: the reducer applies stablehlo.subtract; a ring reduces in any order"
    ), "{e}");
}

#[test]
fn a_device_that_fails_is_named_and_the_others_stop() {
    let m = parse_module(FAILING).unwrap();
    let args = args_for(&m, DEVICES, 5);
    // Without sabotage it runs, and every device adds 0+1+...+7 = 28 to the sum.
    let ok = run_cpu(&m, args.clone());
    let sum: f64 = (0..DEVICES).map(|d| args[d][0].to_f64_vec()[0]).sum();
    assert!((ok.outputs[0][0].to_f64_vec()[0] - sum - 28.0).abs() < 1e-4);
    // Waiting for every collective at once gives the same bits.
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let sync = exe
        .run_with(
            &mesh,
            args.clone(),
            &RunOptions {
                overlap: false,
                ..RunOptions::default()
            },
        )
        .unwrap();
    assert_eq!(sync.outputs, ok.outputs);
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
        let m = m.clone();
        let args = args.clone();
        let e = within_a_minute(move || {
            let exe = Executable::new(&m, "main", &Sabotaged(sabotage)).unwrap();
            exe.run(&CpuMesh::new(DEVICES).unwrap(), args)
                .err()
                .map(|e| e.to_string())
        });
        assert_eq!(e.as_deref(), Some(want));
    }
}

/// One mesh for many runs: its threads are started once and kept; a run that fails
/// (an error, a panic) leaves them usable; runs started at once from three threads on the
/// same mesh take turns and all finish with the same results (before the mesh kept its
/// threads, such runs could each hold some devices' buffer pools and wait forever).
#[test]
fn a_mesh_keeps_its_threads_through_failures_and_concurrent_runs() {
    let m = parse_module(FAILING).unwrap();
    let args = args_for(&m, DEVICES, 5);
    let want = run_cpu(&m, args.clone()).outputs;
    let done = within_a_minute(move || {
        let mesh = std::sync::Arc::new(CpuMesh::new(DEVICES).unwrap());
        assert_eq!(mesh.kept_threads(), 0);
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        assert_eq!(exe.run(&*mesh, args.clone()).unwrap().outputs, want);
        assert_eq!(mesh.kept_threads(), 2 * DEVICES);
        for sabotage in [Sabotage::Panic, Sabotage::Fail, Sabotage::Panic] {
            let bad = Executable::new(&m, "main", &Sabotaged(sabotage)).unwrap();
            assert!(bad.run(&*mesh, args.clone()).is_err());
            assert_eq!(exe.run(&*mesh, args.clone()).unwrap().outputs, want);
        }
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let (mesh, m, args) = (mesh.clone(), m.clone(), args.clone());
                std::thread::spawn(move || {
                    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
                    (0..4)
                        .map(|_| exe.run(&*mesh, args.clone()).unwrap().outputs)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for r in runs {
            for outputs in r.join().unwrap() {
                assert_eq!(outputs, want);
            }
        }
        mesh.kept_threads()
    });
    assert_eq!(done, 2 * DEVICES);
}

/// Two gradients all-reduced in the middle of other compute (data parallel):
/// `g2 = x·w2` is all-reduced while `g1 = (x·w1)·w1` is computed, `g1` while `h = x·x` is;
/// the updates `w - r` read the reduced gradients last.
const TWO_CHAINS: &str = r#"module @two_chains {
  func.func public @main(%x: tensor<40x40xf32>, %w1: tensor<40x40xf32>, %w2: tensor<40x40xf32>) -> (tensor<40x40xf32>, tensor<40x40xf32>, tensor<40x40xf32>) {
    %g2 = stablehlo.dot_general %x, %w2, contracting_dims = [1] x [0] : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
    %r2 = "stablehlo.all_reduce"(%g2) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<40x40xf32>) -> tensor<40x40xf32>
    %a1 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
    %g1 = stablehlo.dot_general %a1, %w1, contracting_dims = [1] x [0] : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
    %r1 = "stablehlo.all_reduce"(%g1) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<40x40xf32>) -> tensor<40x40xf32>
    %h = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
    %u2 = stablehlo.subtract %w2, %r2 : tensor<40x40xf32>
    %u1 = stablehlo.subtract %w1, %r1 : tensor<40x40xf32>
    return %u1, %u2, %h : tensor<40x40xf32>, tensor<40x40xf32>, tensor<40x40xf32>
  }
}"#;

/// The spans of device `d` on `lane`, in time order.
fn lane(r: &RunReport, d: usize, lane: Lane) -> Vec<&shardc_runtime::backend::Span> {
    r.spans
        .iter()
        .filter(|s| s.device == d && s.lane == lane)
        .collect()
}

#[test]
fn collectives_overlap_compute_that_does_not_need_them() {
    let m = parse_module(TWO_CHAINS).unwrap();
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    let ars: Vec<String> = exe
        .exchanges()
        .map(|e| format!("{} {}", e.short_name(), e.at))
        .collect();
    assert_eq!(ars, ["all_reduce %1", "all_reduce %5"]);
    let args = args_for(&m, DEVICES, 9);
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let devices: Vec<shardc_ir::DeviceId> = (0..DEVICES).map(shardc_ir::DeviceId).collect();
    let want = simulate::run(&m, "main", &devices, &args).unwrap();
    let mut overlapped = 0;
    // Whether spans overlap in wall time is up to the OS scheduler: on a loaded machine one
    // run can serialize every device, so the overlapped run is tried up to 10 times (the
    // structural checks below hold on every run).
    for overlap in std::iter::repeat_n(true, 10).chain([false]) {
        if overlap && overlapped > 0 {
            continue;
        }
        let r = exe
            .run_with(
                &mesh,
                args.clone(),
                &RunOptions {
                    overlap,
                    ..RunOptions::default()
                },
            )
            .unwrap();
        for (d, want) in want.iter().enumerate() {
            // Everything equals the simulator; %h = x·x involves no collective: bit for bit.
            assert_eq!(r.outputs[d][2], want[2]);
            for (got, want) in r.outputs[d].iter().zip(want).take(2) {
                let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
                assert!(
                    g.iter()
                        .zip(&w)
                        .all(|(g, w)| (g - w).abs() <= 1e-3 * w.abs().max(1.0))
                );
            }
            let compute = lane(&r, d, Lane::Compute);
            let comm = lane(&r, d, Lane::Communication);
            // Each lane runs one thing at a time.
            for pair in compute.windows(2).chain(comm.windows(2)) {
                assert!(pair[0].end() <= pair[1].start, "{pair:?}");
            }
            let segments: Vec<&str> = compute
                .iter()
                .filter(|s| s.kind == SpanKind::Segment)
                .map(|s| s.name.as_str())
                .collect();
            // x·w2 | x·w1, ·w1 | x·x | w2 - r2 | w1 - r1: cut where a result is first read.
            assert_eq!(
                segments,
                [
                    "segment 0",
                    "segment 1",
                    "segment 2",
                    "segment 3",
                    "segment 4"
                ]
            );
            let seg = |name: &str| compute.iter().find(|s| s.name == name).unwrap();
            let ar = |k: usize| comm.iter().find(|s| s.name == ars[k]).unwrap();
            // A segment that reads a result starts after its collective ended, and every
            // wait ends after the collective it waited for.
            assert!(seg("segment 3").start >= ar(0).end());
            assert!(seg("segment 4").start >= ar(1).end());
            for w in compute.iter().filter(|s| s.kind == SpanKind::Wait) {
                let k = ars.iter().position(|a| w.name.ends_with(&a[11..])).unwrap();
                assert!(w.end() >= ar(k).end(), "{w:?}");
            }
            let overlaps = comm.iter().any(|c| {
                compute
                    .iter()
                    .any(|s| s.kind == SpanKind::Segment && c.overlaps(s))
            });
            if overlap {
                // Compute hands each all-reduce off and goes on: it waits only after the
                // independent segments, where the updates read the results.
                for w in compute.iter().filter(|s| s.kind == SpanKind::Wait) {
                    assert!(w.start >= seg("segment 2").end(), "{w:?}");
                }
                overlapped += overlaps as usize;
            } else {
                // Compute waits for every collective: nothing runs beside it.
                assert!(!overlaps, "device {d} overlapped without overlap");
            }
        }
        // The trace is Chrome's JSON with one complete event per span.
        let trace: serde_json::Value = serde_json::from_str(&r.trace_json()).unwrap();
        let events = trace["traceEvents"].as_array().unwrap();
        let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(complete.len(), r.spans.len());
        for e in &complete {
            assert!(e["pid"].as_u64().unwrap() < DEVICES as u64);
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0);
            let tid = e["tid"].as_u64().unwrap();
            assert_eq!(tid == 1, e["cat"] == "collective", "{e}");
            if tid == 1 {
                assert_eq!(e["args"]["bytes"], 2 * 7 * 40 * 40 * 4 / 8, "{e}");
            }
        }
        assert!(
            events
                .iter()
                .any(|e| e["ph"] == "M" && e["args"]["name"] == "device 7")
        );
        // A report whose results stayed on the devices (a program's `call`) names every
        // device's tracks too.
        let mut kept = r.clone();
        kept.outputs.clear();
        let trace: serde_json::Value = serde_json::from_str(&kept.trace_json()).unwrap();
        let named = |what: &str| {
            trace["traceEvents"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["ph"] == "M" && e["name"] == what)
                .count()
        };
        assert_eq!(named("process_name"), DEVICES);
        assert_eq!(named("thread_name"), 2 * DEVICES);
    }
    // On 8 devices sharing a few cores, some device's all-reduce runs beside its compute
    // (in one of the runs).
    assert!(
        overlapped > 0,
        "no device overlapped communication with compute"
    );
}

/// The collectives through shared memory give the ring's results bit for bit (they fold
/// in the ring's order) and count the same bytes, for every op, dtype and reducer, with
/// the groups of the cases (contiguous, strided, shuffled).
#[test]
fn shared_memory_collectives_equal_the_rings_bit_for_bit() {
    for (t, reducers) in CASES {
        for r in *reducers {
            let m = parse_module(&collectives(t, r)).unwrap_or_else(|e| panic!("{t} {r}: {e}"));
            let args = args_for(&m, DEVICES, 5);
            let exe = Executable::new(&m, "main", &Interpreted).unwrap();
            let mesh = CpuMesh::new(DEVICES).unwrap();
            let run = |shared: bool| {
                let options = RunOptions {
                    shared_memory_min_bytes: if shared { 0 } else { usize::MAX },
                    ..RunOptions::default()
                };
                exe.run_with(&mesh, args.clone(), &options)
                    .unwrap_or_else(|e| panic!("{t} {r}: {e}"))
            };
            let (shared, ring) = (run(true), run(false));
            for (d, (a, b)) in shared.outputs.iter().zip(&ring.outputs).enumerate() {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    assert_eq!(
                        x.to_le_bytes(),
                        y.to_le_bytes(),
                        "{t} {r}: device {d} output {i}"
                    );
                }
            }
            let bytes = |rep: &RunReport| -> Vec<Vec<u64>> {
                rep.stats.ops.iter().map(|o| o.bytes_sent.clone()).collect()
            };
            assert_eq!(bytes(&shared), bytes(&ring), "{t} {r}");
        }
    }
}

/// [`collectives`] with every all-reduce, reduce-scatter and all-gather routed as `route`
/// says (`shardc.route`).
fn routed(t: &str, r: &str, route: &str) -> Module {
    let attr = format!("{{shardc.route = \"{route}\"}}");
    let mut out = collectives(t, r);
    for (op, end) in [
        ("\"stablehlo.all_reduce\"", "}) : ("),
        ("\"stablehlo.reduce_scatter\"", "}) : ("),
        ("\"stablehlo.all_gather\"", "}> : ("),
    ] {
        let mut parts = out.split(op);
        let mut text = parts.next().unwrap_or_default().to_string();
        for p in parts {
            text.push_str(op);
            let (head, tail) = end.split_at(2);
            text.push_str(&p.replacen(end, &format!("{head} {attr}{tail}"), 1));
        }
        out = text;
    }
    let m = parse_module(&out).unwrap_or_else(|e| panic!("{t} {r} {route}: {e}"));
    let f = m.entry().unwrap();
    let routed = f
        .body_ops()
        .filter(|(_, op)| op.route().is_ok_and(|a| a.attribute().is_some()))
        .count();
    assert_eq!(
        routed, 7,
        "{t} {r} {route}: the route attributes did not parse"
    );
    m
}

/// Hierarchical all-reduces, reduce-scatters and all-gathers (nodes of 2 and of 4
/// devices, over the groups of the cases: rows, columns, shuffled, all) give the
/// simulator's results for every dtype and reducer —
/// bit for bit where the ring is, within the rounding bound for float sums — and every
/// device sends exactly the bytes `Exchange::ring_bytes` states for it (what explain
/// lists). A group with no hierarchy (one node, or uneven) runs the ring.
#[test]
fn hierarchical_collectives_equal_the_simulator_and_send_what_they_state() {
    for route in ["hierarchical:2", "hierarchical:4"] {
        for (t, reducers) in CASES {
            for r in *reducers {
                let m = routed(t, r, route);
                let args = args_for(&m, DEVICES, 13);
                let exe = Executable::new(&m, "main", &Interpreted).unwrap();
                let report = exe
                    .run(&CpuMesh::new(DEVICES).unwrap(), args.clone())
                    .unwrap_or_else(|e| panic!("{t} {r} {route}: {e}"));
                check_against_simulator(t, r, &m, &args, &report.outputs);
                let stated: Vec<Vec<u64>> = exe
                    .exchanges()
                    .map(|x| (0..DEVICES).map(|d| x.ring_bytes(d)).collect())
                    .collect();
                let sent: Vec<Vec<u64>> = report
                    .stats
                    .ops
                    .iter()
                    .map(|o| o.bytes_sent.clone())
                    .collect();
                assert_eq!(sent, stated, "{t} {r} {route}");
            }
        }
    }
}

/// Under an emulated topology (2 nodes of 4, 20 ms per message across nodes), a ring
/// all-reduce over all 8 devices waits for the slow link at each of its 14 steps, the
/// hierarchical one at 2 of them: the emulation holds each message across nodes for its
/// link's time (a lower bound on the wall time, which no load can undercut).
#[test]
fn an_emulated_topology_holds_messages_across_nodes_for_the_slow_links_time() {
    use shardc_ir::topology::{LinkClass, Topology};
    let program = |route: Option<&str>| {
        let attr = route.map_or(String::new(), |r| format!(" {{shardc.route = \"{r}\"}}"));
        parse_module(&format!(
            r#"module {{
  func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {{
    %0 = "stablehlo.all_reduce"(%x) <{{replica_groups = {ALL}}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}){attr} : (tensor<64xf32>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }}
}}"#
        ))
        .unwrap()
    };
    let topology =
        Topology::new(2, 4, LinkClass::new(1e12, 0.0), LinkClass::new(1e12, 0.020)).unwrap();
    let options = RunOptions {
        emulated_topology: Some(topology),
        ..RunOptions::default()
    };
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let run = |m: &Module| {
        let exe = Executable::new(m, "main", &Interpreted).unwrap();
        let args = args_for(m, DEVICES, 1);
        exe.run_with(&mesh, args, &options).unwrap()
    };
    let ring = run(&program(None));
    let hierarchical = run(&program(Some("hierarchical:4")));
    assert!(
        ring.stats.wall.as_secs_f64() >= 14.0 * 0.020,
        "the ring took {:?}: fewer than 14 slow steps",
        ring.stats.wall
    );
    assert!(
        hierarchical.stats.wall.as_secs_f64() >= 2.0 * 0.020,
        "the hierarchy took {:?}",
        hierarchical.stats.wall
    );
    // Both send 2(n-1)/n of the 256 B buffer from every device (the hierarchy: 3/4 inside
    // the node twice, and 2 x 1/8 across), the hierarchy only 64 B of it across nodes.
    for r in [&ring, &hierarchical] {
        assert_eq!(r.stats.ops[0].bytes_sent, vec![448; DEVICES]);
    }
    for (a, b) in ring.outputs.iter().zip(&hierarchical.outputs) {
        let (a, b) = (a[0].to_f64_vec(), b[0].to_f64_vec());
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "{x} vs {y}");
        }
    }
}

/// Compressed all-reduces of f32 sums over all 8 devices: bf16 and int8 results within
/// their quantization bounds of the exact sum, replicas equal bit for bit, every device
/// sending exactly what `ring_bytes` states (a half and about a quarter of the plain
/// ring's); with int8's error feedback, the mean of repeated calls on the same input
/// converges on the exact sum while each call's error does not shrink.
#[test]
fn compressed_all_reduces_stay_within_their_bounds_and_feed_their_error_back() {
    let program = |compress: &str| {
        let attr = if compress.is_empty() {
            String::new()
        } else {
            format!(" {{shardc.compress = \"{compress}\"}}")
        };
        parse_module(&format!(
            r#"module {{
  func.func @main(%x: tensor<1000xf32>) -> tensor<1000xf32> {{
    %0 = "stablehlo.all_reduce"(%x) <{{replica_groups = {ALL}}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}){attr} : (tensor<1000xf32>) -> tensor<1000xf32>
    return %0 : tensor<1000xf32>
  }}
}}"#
        ))
        .unwrap()
    };
    let plain = program("");
    let args = args_for(&plain, DEVICES, 21);
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let exact: Vec<f64> = (0..1000)
        .map(|i| args.iter().map(|a| a[0].to_f64_vec()[i]).sum())
        .collect();
    let largest = args
        .iter()
        .flat_map(|a| a[0].to_f64_vec())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let ring_bytes = run_cpu(&plain, args.clone()).stats.ops[0].bytes_sent[0];
    let worst = |outputs: &[Vec<Literal>]| {
        for d in 1..DEVICES {
            assert_eq!(outputs[d][0], outputs[0][0], "device {d} differs");
        }
        outputs[0][0]
            .to_f64_vec()
            .iter()
            .zip(&exact)
            .fold(0.0f64, |m, (g, w)| m.max((g - w).abs()))
    };
    for (compress, bound, ratio) in [
        // bf16 keeps 8 bits of mantissa: each of 8 contributions and the sum rounded once.
        (
            "bf16",
            (DEVICES as f64 + 1.0) * largest * 8.0 * 2f64.powi(-9),
            0.5,
        ),
        // int8: half a step of each block's scale (max/127), per contribution and sum.
        (
            "int8:64",
            (DEVICES as f64 + DEVICES as f64) * largest / 254.0,
            0.27,
        ),
    ] {
        let m = program(compress);
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        let x = exe.exchanges().next().unwrap();
        let report = exe.run(&mesh, args.clone()).unwrap();
        let error = worst(&report.outputs);
        assert!(error <= bound, "{compress}: off by {error}, bound {bound}");
        assert!(error > 0.0, "{compress}: no rounding at all?");
        let sent = &report.stats.ops[0].bytes_sent;
        for (d, &b) in sent.iter().enumerate() {
            assert_eq!(b, x.ring_bytes(d), "{compress} device {d}");
        }
        let r = sent[0] as f64 / ring_bytes as f64;
        assert!(r <= ratio, "{compress}: {} of the ring's bytes", r);
        if compress.starts_with("int8") {
            // The same input 32 more times: each call is off by as much, the mean of
            // all 33 by far less (the errors fed back cancel).
            let mut sum = report.outputs[0][0].to_f64_vec();
            for _ in 0..32 {
                let r = exe.run(&mesh, args.clone()).unwrap();
                assert!(worst(&r.outputs) > error / 10.0);
                sum.iter_mut()
                    .zip(r.outputs[0][0].to_f64_vec())
                    .for_each(|(s, v)| *s += v);
            }
            let mean_error = sum
                .iter()
                .zip(&exact)
                .fold(0.0f64, |m, (s, w)| m.max((s / 33.0 - w).abs()));
            assert!(
                mean_error < error / 8.0,
                "error feedback: the mean is off by {mean_error}, one call by {error}"
            );
        }
    }
}

/// PowerSGD rank 4 over all 8 devices: a sum of rank 1 comes back exact (one power
/// iteration finds it); a full-rank one is approximated, each device sending the bytes
/// `ring_bytes` states (the two factors' ring all-reduces, under a sixth of the plain
/// ring's), replicas equal bit for bit; with the error fed back and `Q` kept, the mean
/// of repeated calls converges on the exact sum.
#[test]
fn power_sgd_finds_low_rank_sums_and_feeds_its_error_back() {
    let m = parse_module(&format!(
        r#"module {{
  func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {{
    %0 = "stablehlo.all_reduce"(%x) <{{replica_groups = {ALL}}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}) {{shardc.compress = "powersgd:4"}} : (tensor<1024xf32>) -> tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }}
}}"#
    ))
    .unwrap();
    let mesh = CpuMesh::new(DEVICES).unwrap();
    let exact = |args: &[Vec<Literal>]| -> Vec<f64> {
        (0..1024)
            .map(|i| args.iter().map(|a| a[0].to_f64_vec()[i]).sum())
            .collect()
    };
    let error = |outputs: &[Vec<Literal>], want: &[f64]| {
        for d in 1..DEVICES {
            assert_eq!(outputs[d][0], outputs[0][0], "device {d} differs");
        }
        outputs[0][0]
            .to_f64_vec()
            .iter()
            .zip(want)
            .fold(0.0f64, |e, (g, w)| e.max((g - w).abs()))
    };
    // Device d holds (d+1) u vᵀ on the 32 x 32 view: the sum is rank 1.
    let rank_one: Vec<Vec<Literal>> = (0..DEVICES)
        .map(|d| {
            let v: Vec<f64> = (0..1024)
                .map(|at| {
                    let (i, j) = (at / 32, at % 32);
                    (d as f64 + 1.0) * ((i as f64 * 0.37).sin() + 0.1) * ((j as f64 * 0.11).cos())
                })
                .collect();
            vec![Literal::from_f64(DType::F32, &[1024], &v).unwrap()]
        })
        .collect();
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    let r = exe.run(&mesh, rank_one.clone()).unwrap();
    let want = exact(&rank_one);
    let largest = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let e = error(&r.outputs, &want);
    assert!(
        e < 1e-4 * largest,
        "rank 1 sum off by {e} (largest {largest})"
    );
    // Bytes: P (32 x 4) and Q (32 x 4) all-reduced by rings.
    let x = exe.exchanges().next().unwrap();
    for (d, &b) in r.stats.ops[0].bytes_sent.iter().enumerate() {
        assert_eq!(b, x.ring_bytes(d), "device {d}");
    }
    assert_eq!(r.stats.ops[0].bytes_sent[0], 2 * 2 * 7 * 16 * 4);
    // A full-rank sum, on a fresh executable: each call is off, the mean converges.
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    let args = args_for(&m, DEVICES, 5);
    let want = exact(&args);
    let first = exe.run(&mesh, args.clone()).unwrap();
    let one = error(&first.outputs, &want);
    let mut sum = first.outputs[0][0].to_f64_vec();
    let calls = 64;
    for _ in 1..calls {
        let r = exe.run(&mesh, args.clone()).unwrap();
        sum.iter_mut()
            .zip(r.outputs[0][0].to_f64_vec())
            .for_each(|(s, v)| *s += v);
    }
    let mean = sum
        .iter()
        .zip(&want)
        .fold(0.0f64, |e, (s, w)| e.max((s / calls as f64 - w).abs()));
    assert!(
        mean < one / 4.0,
        "mean of {calls} calls off by {mean}, one call by {one}"
    );
}

#[test]
fn ops_that_move_nothing_run_on_the_compute_thread() {
    // %s slices compute's own value and %i is the device's index: they run inline. %t
    // slices an all-gather's result, which stays with the communication side: it runs
    // there. (Spans name values by their position: %s is %1.)
    let m = parse_module(
        r#"module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<i64>) {
    %y = stablehlo.multiply %x, %x : tensor<4xf32>
    %s = "shardc.shard_slice"(%y) <{dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<4xf32>) -> tensor<1xf32>
    %g = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    %t = "shardc.shard_slice"(%g) <{dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<8xf32>) -> tensor<2xf32>
    %i = "shardc.axis_index"() <{replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>}> : () -> tensor<i64>
    %r = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %z = stablehlo.add %y, %r : tensor<4xf32>
    return %z, %t, %i : tensor<4xf32>, tensor<2xf32>, tensor<i64>
  }
}"#,
    )
    .unwrap();
    let args = args_for(&m, DEVICES, 3);
    let devices: Vec<shardc_ir::DeviceId> = (0..DEVICES).map(shardc_ir::DeviceId).collect();
    let want = simulate::run(&m, "main", &devices, &args).unwrap();
    let r = run_cpu(&m, args);
    assert_eq!(r.outputs, want);
    for d in 0..DEVICES {
        let names = |l| -> Vec<String> {
            lane(&r, d, l)
                .iter()
                .filter(|s| s.kind == SpanKind::Collective)
                .map(|s| s.name.clone())
                .collect()
        };
        assert_eq!(
            names(Lane::Compute),
            ["shard_slice %1", "axis_index %4"],
            "device {d}"
        );
        assert_eq!(
            names(Lane::Communication),
            ["all_gather %2", "shard_slice %3"],
            "device {d}"
        );
    }
}

/// A loop whose body all-reduces and permutes, run as often as an argument says (no
/// trip count when compiling): the cpu backend runs its steps again each iteration, like
/// the simulator, and counts the bytes of every iteration.
#[test]
fn a_loop_whose_body_communicates_runs_as_often_as_its_condition_says() {
    let m = parse_module(&communicating_loop(
        "dense<[[0, 1]]> : tensor<1x2xi64>",
        "dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>",
    ))
    .unwrap();
    let x = |d: f64| Literal::from_f64(DType::F32, &[4], &[d, 1.0 + d, -2.0, 0.5 * d]).unwrap();
    let n = |k: i64| Literal::from_f64(DType::I32, &[], &[k as f64]).unwrap();
    let devices: Vec<shardc_ir::DeviceId> = (0..2).map(shardc_ir::DeviceId).collect();
    for trips in [0, 1, 5] {
        let args = vec![vec![x(1.0), n(trips)], vec![x(3.0), n(trips)]];
        // By hand: acc_{k+1} = (acc_0 + acc_1)/4 + x on each device.
        let mut acc = [x(1.0).to_f64_vec(), x(3.0).to_f64_vec()];
        for _ in 0..trips {
            let sum: Vec<f64> = (0..4).map(|j| acc[0][j] + acc[1][j]).collect();
            for (d, a) in acc.iter_mut().enumerate() {
                let xd = x(1.0 + 2.0 * d as f64).to_f64_vec();
                *a = (0..4).map(|j| sum[j] * 0.25 + xd[j]).collect();
            }
        }
        let want = simulate::run(&m, "main", &devices, &args).unwrap();
        let exe = Executable::new(&m, "main", &Interpreted).unwrap();
        assert!(exe.has_loops());
        let report = exe.run(&CpuMesh::new(2).unwrap(), args).unwrap();
        for d in 0..2 {
            assert_eq!(want[d][0].to_f64_vec(), acc[d], "simulator, {trips} trips");
            assert_eq!(report.outputs[d], want[d], "{trips} trips, device {d}");
            assert_eq!(report.outputs[d][1].to_f64_vec(), [trips as f64]);
        }
        // Per iteration, each device sends half of the 16-byte all-reduce's operand twice
        // (reduce-scatter, all-gather) and its 16 bytes to the other.
        let sent: Vec<u64> = report.stats.ops.iter().map(|o| o.bytes_sent[0]).collect();
        assert_eq!(
            sent,
            [16 * trips as u64, 16 * trips as u64],
            "{trips} trips"
        );
    }
    // Devices whose conditions disagree cannot run the loop together: the simulator says so.
    let args = vec![vec![x(1.0), n(2)], vec![x(3.0), n(3)]];
    let e = simulate::run(&m, "main", &devices, &args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("differs between devices"), "{e}");
}

/// A branch whose regions communicate (`lax.cond` with a `psum` in a shard_map body): the
/// cpu backend runs the steps of the branch the devices take, like the simulator, the
/// all-reduce only when its branch is taken; an index out of range takes the last branch.
/// Devices that would take different branches are an error naming the index, on the
/// simulator and on the cpu backend, not a hang.
#[test]
fn a_branch_whose_regions_communicate_runs_where_the_devices_go() {
    let m = parse_module(&communicating_branch("dense<[[0, 1]]> : tensor<1x2xi64>")).unwrap();
    let x = |d: f64| Literal::from_f64(DType::F32, &[4], &[d, 1.0 + d, -2.0, 0.5 * d]).unwrap();
    let k = |k: i64| Literal::from_f64(DType::I32, &[], &[k as f64]).unwrap();
    let devices: Vec<shardc_ir::DeviceId> = (0..2).map(shardc_ir::DeviceId).collect();
    let exe = Executable::new(&m, "main", &Interpreted).unwrap();
    assert!(exe.has_loops());
    for index in [0, 1, 7, -1] {
        let args = vec![vec![x(1.0), k(index)], vec![x(3.0), k(index)]];
        let want = simulate::run(&m, "main", &devices, &args).unwrap();
        let report = exe.run(&CpuMesh::new(2).unwrap(), args).unwrap();
        for (d, (want, got)) in want.iter().zip(&report.outputs).enumerate() {
            let mine = x(1.0 + 2.0 * d as f64).to_f64_vec();
            let by_hand: Vec<f64> = if index == 0 {
                let (a, b) = (x(1.0).to_f64_vec(), x(3.0).to_f64_vec());
                (0..4).map(|j| a[j] + b[j]).collect()
            } else {
                mine.iter().map(|v| -2.0 * v).collect()
            };
            assert_eq!(want[0].to_f64_vec(), by_hand, "simulator, index {index}");
            assert_eq!(got, want, "index {index}, device {d}");
        }
        let runs: Vec<usize> = report.stats.ops.iter().map(|o| o.runs).collect();
        assert_eq!(runs, [usize::from(index == 0)], "index {index}");
    }
    let args = vec![vec![x(1.0), k(0)], vec![x(3.0), k(1)]];
    let e = simulate::run(&m, "main", &devices, &args)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("differs between devices") && e.contains("[0, 1]"),
        "{e}"
    );
    let e = exe
        .run(&CpuMesh::new(2).unwrap(), args)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("went another way"), "{e}");
}
