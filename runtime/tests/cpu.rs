//! The cpu backend: every per-device op against the simulated mesh (bit for bit, or within
//! the stated rounding bound for floating-point sums and products), the bytes every device
//! sends against the ring algorithms' volumes, overlap and traces, and failures.

use shardc_ir::text::parse_module;
use shardc_ir::{DType, Literal, Module};
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::report::SpanKind;
use shardc_runtime::backend::{Executable, Lane, RunOptions, RunReport, RuntimeError};
use shardc_runtime::engine::{Compute, EngineError, Interpreted, Kernel, Segment};
use shardc_runtime::simulate;

const DEVICES: usize = 8;

/// Rows of a 2x4 mesh ("model" groups), its columns ("data" groups), and all 8 devices.
const ROWS: &str = "dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>";
const COLUMNS: &str = "dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>";
const ALL: &str = "dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>";
/// A group order that is not the device order.
const SHUFFLED: &str = "dense<[[5, 2, 7, 0], [1, 6, 3, 4]]> : tensor<2x4xi64>";

/// Every per-device op on element type `t` with reducer `r`: per device `%x` is 4x8 and
/// `%y` has 3 elements (fewer than the 8 devices that all-reduce it).
fn collectives(t: &str, r: &str) -> String {
    let reducer = format!(
        r#"({{
    ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
      %s = stablehlo.{r} %a, %b : tensor<{t}>
      stablehlo.return %s : tensor<{t}>
    }})"#
    );
    let x = format!("tensor<4x8x{t}>");
    let ops = [
        format!(
            r#""stablehlo.all_reduce"(%x) <{{replica_groups = {ROWS}}}> {reducer} : ({x}) -> {x}"#
        ),
        format!(
            r#""stablehlo.all_reduce"(%x) <{{replica_groups = {SHUFFLED}}}> {reducer} : ({x}) -> {x}"#
        ),
        format!(
            r#""stablehlo.all_reduce"(%y) <{{replica_groups = {ALL}}}> {reducer} : (tensor<3x{t}>) -> tensor<3x{t}>"#
        ),
        format!(
            r#""stablehlo.reduce_scatter"(%x) <{{scatter_dimension = 1 : i64, replica_groups = {ROWS}}}> {reducer} : ({x}) -> tensor<4x2x{t}>"#
        ),
        format!(
            r#""stablehlo.reduce_scatter"(%x) <{{scatter_dimension = 0 : i64, replica_groups = {COLUMNS}}}> {reducer} : ({x}) -> tensor<2x8x{t}>"#
        ),
        format!(
            r#""stablehlo.all_gather"(%x) <{{all_gather_dim = 1 : i64, replica_groups = {SHUFFLED}}}> : ({x}) -> tensor<4x32x{t}>"#
        ),
        format!(
            r#""stablehlo.all_gather"(%x) <{{all_gather_dim = 0 : i64, replica_groups = {ALL}}}> : ({x}) -> tensor<32x8x{t}>"#
        ),
        format!(
            r#""stablehlo.all_to_all"(%x) <{{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = {ROWS}}}> : ({x}) -> tensor<16x2x{t}>"#
        ),
        format!(
            r#""stablehlo.all_to_all"(%x) <{{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = {COLUMNS}}}> : ({x}) -> {x}"#
        ),
        // A ring shift on 0..5, device 6 kept, device 7 left out (it gets zeros).
        format!(
            r#""stablehlo.collective_permute"(%x) <{{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [6, 6]]> : tensor<7x2xi64>}}> : ({x}) -> {x}"#
        ),
        format!(
            r#""shardc.shard_slice"(%x) <{{dimension = 1 : i64, replica_groups = {SHUFFLED}}}> : ({x}) -> tensor<4x2x{t}>"#
        ),
        format!(r#""shardc.axis_index"() <{{replica_groups = {SHUFFLED}}}> : () -> tensor<i64>"#),
    ];
    let mut body = String::new();
    let mut types = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        body.push_str(&format!("    %r{i} = {op}\n"));
        let ty = op.rsplit("-> ").next().unwrap().to_string();
        types.push(ty);
    }
    let names: Vec<String> = (0..ops.len()).map(|i| format!("%r{i}")).collect();
    format!(
        "module @collectives {{\n  func.func public @main(%x: {x}, %y: tensor<3x{t}>) -> ({}) {{\n{body}    return {} : {}\n  }}\n}}\n",
        types.join(", "),
        names.join(", "),
        types.join(", ")
    )
}

/// A deterministic pseudo-random stream.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Per-device arguments of `f`: floats in [0.5, 2) with random signs (products stay in
/// range), integers in [-50, 50), booleans.
fn args_for(m: &Module, devices: usize, seed: u64) -> Vec<Vec<Literal>> {
    let f = m.entry().unwrap();
    let mut rng = Lcg(seed);
    (0..devices)
        .map(|_| {
            f.arg_types()
                .iter()
                .map(|t| {
                    let v: Vec<f64> = (0..t.num_elements())
                        .map(|_| {
                            let u = rng.next();
                            match t.dtype {
                                DType::I1 => (u < 0.5) as u8 as f64,
                                d if d.is_int() => (u * 100.0).floor() - 50.0,
                                _ => {
                                    let sign = if rng.next() < 0.5 { -1.0 } else { 1.0 };
                                    sign * (0.5 + 1.5 * u)
                                }
                            }
                        })
                        .collect();
                    Literal::from_f64(t.dtype, &t.shape, &v).unwrap()
                })
                .collect()
        })
        .collect()
}

fn run_cpu(m: &Module, args: Vec<Vec<Literal>>) -> RunReport {
    let exe = Executable::new(m, "main", &Interpreted).unwrap_or_else(|e| panic!("{e}"));
    let mesh = CpuMesh::new(args.len()).unwrap();
    exe.run(&mesh, args).unwrap_or_else(|e| panic!("{e}"))
}

/// The unit roundoff of a float type: half the distance from 1 to the next float.
fn unit_roundoff(t: DType) -> f64 {
    match t {
        DType::F32 => f32::EPSILON as f64 / 2.0,
        DType::F64 => f64::EPSILON / 2.0,
        DType::BF16 => 2f64.powi(-8),
        DType::F16 => 2f64.powi(-11),
        _ => 0.0,
    }
}

/// The reductions that may round differently in ring order than in the simulator's.
fn rounds(t: DType, reducer: &str) -> bool {
    t.is_float() && matches!(reducer, "add" | "multiply")
}

/// The stated tolerance: a float reduction of `n` pieces folded in any order rounds at
/// most `n-1` times, each time by a relative `u` of the partial result, so two orders
/// differ by at most `2(n-1)·u·Σ|xᵢ|` for a sum and `2(n-1)·u·Π|xᵢ|` (to first order)
/// for a product. Elementwise, from the pieces of the group.
fn bound(reducer: &str, u: f64, pieces: &[f64]) -> f64 {
    let n = pieces.len() as f64;
    let size = match reducer {
        "add" => pieces.iter().map(|x| x.abs()).sum::<f64>(),
        _ => pieces.iter().map(|x| x.abs()).product::<f64>(),
    };
    2.0 * (n - 1.0) * u * size * 1.0001
}

#[test]
fn every_collective_equals_the_simulator() {
    let cases: &[(&str, &[&str])] = &[
        ("f32", &["add", "maximum", "minimum", "multiply"]),
        ("f64", &["add"]),
        ("bf16", &["add", "maximum"]),
        (
            "i32",
            &["add", "multiply", "maximum", "minimum", "and", "or", "xor"],
        ),
        ("i64", &["add"]),
        ("i1", &["and", "or"]),
    ];
    for (t, reducers) in cases {
        for r in *reducers {
            let m = parse_module(&collectives(t, r)).unwrap_or_else(|e| panic!("{t} {r}: {e}"));
            let args = args_for(&m, DEVICES, 7);
            let devices: Vec<usize> = (0..DEVICES).collect();
            let want = simulate::run(&m, "main", &devices, &args).unwrap();
            let got = run_cpu(&m, args.clone()).outputs;
            let dtype = DType::from_name(t).unwrap();
            for d in 0..DEVICES {
                for (k, (g, w)) in got[d].iter().zip(&want[d]).enumerate() {
                    assert_eq!(g.ty, w.ty, "{t} {r}: device {d} result {k}");
                    // Results 0-4 reduce; the others move data and must be exact.
                    if k <= 4 && rounds(dtype, r) {
                        let (arg, groups) = match k {
                            0 => (0, ROWS),
                            1 => (0, SHUFFLED),
                            2 => (1, ALL),
                            3 => (0, ROWS),
                            _ => (0, COLUMNS),
                        };
                        check_rounding(t, r, d, k, g, w, &args, arg, groups);
                    } else {
                        assert_eq!(g, w, "{t} {r}: device {d} result {k}");
                    }
                }
            }
        }
    }
}

/// Checks a float reduction against the simulator's within [`bound`], elementwise.
#[allow(clippy::too_many_arguments)]
fn check_rounding(
    t: &str,
    r: &str,
    d: usize,
    k: usize,
    got: &Literal,
    want: &Literal,
    args: &[Vec<Literal>],
    arg: usize,
    groups: &str,
) {
    let group: Vec<usize> = groups_of(groups)
        .into_iter()
        .find(|g| g.contains(&d))
        .unwrap();
    let u = unit_roundoff(got.ty.dtype);
    let inputs: Vec<Vec<f64>> = group.iter().map(|&m| args[m][arg].to_f64_vec()).collect();
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    // A reduce-scatter keeps block `position` of its dimension: map result elements back.
    let index = |i: usize| -> usize {
        let pos = group.iter().position(|&m| m == d).unwrap();
        match k {
            3 => (i / 2) * 8 + pos * 2 + i % 2, // 4x8 -> 4x2 along dim 1
            4 => pos * 16 + i,                  // 4x8 -> 2x8 along dim 0
            _ => i,
        }
    };
    for i in 0..g.len() {
        let pieces: Vec<f64> = inputs.iter().map(|x| x[index(i)]).collect();
        let b = bound(r, u, &pieces);
        assert!(
            (g[i] - w[i]).abs() <= b,
            "{t} {r}: device {d} result {k}[{i}]: {} vs {} (bound {b:e})",
            g[i],
            w[i]
        );
    }
}

/// The groups of a `dense<[[...], ...]>` attribute.
fn groups_of(text: &str) -> Vec<Vec<usize>> {
    let inner = &text[text.find("[[").unwrap() + 2..text.find("]]").unwrap()];
    inner
        .split("], [")
        .map(|g| g.split(", ").map(|d| d.parse().unwrap()).collect())
        .collect()
}

#[test]
fn integer_and_extremum_reductions_are_bitwise_and_sums_round_within_the_bound() {
    // The same f32 sum in ring order and in the simulator's order: within the bound, and
    // (for these inputs) not always bit for bit, which is why the bound is stated.
    let m = parse_module(&collectives("f32", "add")).unwrap();
    let args = args_for(&m, DEVICES, 11);
    let devices: Vec<usize> = (0..DEVICES).collect();
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

/// How [`Sabotaged`] kernels misbehave on the device whose axis index is 3.
#[derive(Clone, Copy)]
enum Sabotage {
    Fail,
    Panic,
    WrongType,
}

/// The interpreter, except on the device that feeds its kernel the scalar 3 (its axis
/// index): there the kernel fails, panics or gives a value of the wrong type.
struct Sabotaged(Sabotage);

struct SabotagedKernel(Box<dyn Kernel>, Sabotage);

impl Kernel for SabotagedKernel {
    fn run(&self, inputs: &[Literal]) -> Result<Vec<Literal>, EngineError> {
        let device_3 = inputs
            .iter()
            .any(|l| l.ty.rank() == 0 && l.ty.dtype == DType::I64 && l.get(0).as_i64() == 3);
        if !device_3 {
            return self.0.run(inputs);
        }
        match self.1 {
            Sabotage::Fail => Err("this kernel fails on purpose".into()),
            Sabotage::Panic => panic!("this kernel panics on purpose"),
            Sabotage::WrongType => Ok(vec![Literal::scalar(
                DType::F32,
                shardc_ir::Scalar::Float(0.0),
            )]),
        }
    }
}

impl Compute for Sabotaged {
    fn prepare(
        &self,
        module: &Module,
        f: &shardc_ir::Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        Ok(Box::new(SabotagedKernel(
            Interpreted.prepare(module, f, segment)?,
            self.0,
        )))
    }
}

/// Every device adds its axis index to its piece, then all-reduces and all-gathers: the
/// other devices wait on device 3 in both collectives.
const FAILING: &str = r#"module @failing {
  func.func public @main(%x: tensor<8xf32>) -> tensor<64xf32> {
    %i = "shardc.axis_index"() <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : () -> tensor<i64>
    %c = stablehlo.convert %i : (tensor<i64>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %y = stablehlo.add %x, %b : tensor<8xf32>
    %r = "stablehlo.all_reduce"(%y) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<8xf32>) -> tensor<8xf32>
    %g = "stablehlo.all_gather"(%r) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> : (tensor<8xf32>) -> tensor<64xf32>
    return %g : tensor<64xf32>
  }
}"#;

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
        .run_with(&mesh, args.clone(), &RunOptions { overlap: false })
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
    let devices: Vec<usize> = (0..DEVICES).collect();
    let want = simulate::run(&m, "main", &devices, &args).unwrap();
    let mut overlapped = 0;
    for overlap in [true, false] {
        let r = exe
            .run_with(&mesh, args.clone(), &RunOptions { overlap })
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
    }
    // On 8 devices sharing a few cores, some device's all-reduce runs beside its compute.
    assert!(
        overlapped > 0,
        "no device overlapped communication with compute"
    );
}
