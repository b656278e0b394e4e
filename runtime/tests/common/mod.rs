//! What the backend tests share: every per-device op on a type and reducer, arguments,
//! the check against the simulated mesh (bit for bit, or within the stated rounding bound
//! for floating-point sums and products), and kernels that fail on purpose.
#![allow(dead_code)]

use shardc_ir::{DType, Literal, Module};
use shardc_runtime::engine::{Buffers, Compute, EngineError, Interpreted, Kernel, Segment};
use shardc_runtime::simulate;

pub const DEVICES: usize = 8;

/// Rows of a 2x4 mesh ("model" groups), its columns ("data" groups), and all 8 devices.
pub const ROWS: &str = "dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>";
pub const COLUMNS: &str = "dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>";
pub const ALL: &str = "dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>";
/// A group order that is not the device order.
pub const SHUFFLED: &str = "dense<[[5, 2, 7, 0], [1, 6, 3, 4]]> : tensor<2x4xi64>";

/// Every per-device op on element type `t` with reducer `r`: per device `%x` is 4x8 and
/// `%y` has 3 elements (fewer than the 8 devices that all-reduce it).
pub fn collectives(t: &str, r: &str) -> String {
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
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Per-device arguments of `f`: floats in [0.5, 2) with random signs (products stay in
/// range), integers in [-50, 50), booleans.
pub fn args_for(m: &Module, devices: usize, seed: u64) -> Vec<Vec<Literal>> {
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

/// The unit roundoff of a float type: half the distance from 1 to the next float.
pub fn unit_roundoff(t: DType) -> f64 {
    match t {
        DType::F32 => f32::EPSILON as f64 / 2.0,
        DType::F64 => f64::EPSILON / 2.0,
        DType::BF16 => 2f64.powi(-8),
        DType::F16 => 2f64.powi(-11),
        _ => 0.0,
    }
}

/// The reductions that may round differently in ring order than in the simulator's.
pub fn rounds(t: DType, reducer: &str) -> bool {
    t.is_float() && matches!(reducer, "add" | "multiply")
}

/// The stated tolerance: a float reduction of `n` pieces folded in any order rounds at
/// most `n-1` times, each time by a relative `u` of the partial result, so two orders
/// differ by at most `2(n-1)·u·Σ|xᵢ|` for a sum and `2(n-1)·u·Π|xᵢ|` (to first order)
/// for a product. Elementwise, from the pieces of the group.
pub fn bound(reducer: &str, u: f64, pieces: &[f64]) -> f64 {
    let n = pieces.len() as f64;
    let size = match reducer {
        "add" => pieces.iter().map(|x| x.abs()).sum::<f64>(),
        _ => pieces.iter().map(|x| x.abs()).product::<f64>(),
    };
    2.0 * (n - 1.0) * u * size * 1.0001
}

/// Checks a float reduction against the simulator's within [`bound`], elementwise.
#[allow(clippy::too_many_arguments)]
pub fn check_rounding(
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
pub fn groups_of(text: &str) -> Vec<Vec<usize>> {
    let inner = &text[text.find("[[").unwrap() + 2..text.find("]]").unwrap()];
    inner
        .split("], [")
        .map(|g| g.split(", ").map(|d| d.parse().unwrap()).collect())
        .collect()
}

/// How [`Sabotaged`] kernels misbehave on the device whose axis index is 3.
#[derive(Clone, Copy)]
pub enum Sabotage {
    Fail,
    Panic,
    WrongType,
}

/// The interpreter, except on the device that feeds its kernel the scalar 3 (its axis
/// index): there the kernel fails, panics or gives a value of the wrong type.
pub struct Sabotaged(pub Sabotage);

pub struct SabotagedKernel(Box<dyn Kernel>, Sabotage);

impl Kernel for SabotagedKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let device_3 = inputs
            .iter()
            .any(|l| l.ty.rank() == 0 && l.ty.dtype == DType::I64 && l.get(0).as_i64() == 3);
        if !device_3 {
            return self.0.run_reusing(inputs, buffers);
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
pub const FAILING: &str = r#"module @failing {
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

/// The type/reducer pairs [`collectives`] is run with.
pub const CASES: &[(&str, &[&str])] = &[
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

/// Checks a backend's results `got` of [`collectives`]`(t, r)` on `args` against the
/// simulated mesh: the reductions that round (float sums and products) within [`bound`],
/// everything else bit for bit.
pub fn check_against_simulator(
    t: &str,
    r: &str,
    m: &Module,
    args: &[Vec<Literal>],
    got: &[Vec<Literal>],
) {
    let devices: Vec<shardc_ir::DeviceId> = (0..DEVICES).map(shardc_ir::DeviceId).collect();
    let want = simulate::run(m, "main", &devices, args).unwrap();
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
                check_rounding(t, r, d, k, g, w, args, arg, groups);
            } else {
                assert_eq!(g, w, "{t} {r}: device {d} result {k}");
            }
        }
    }
}

/// A loop whose body all-reduces over `groups` and permutes around them, run as often as
/// its second argument says (no trip count when compiling): `acc <- sum(acc)/4 + x`, then
/// the permuted `acc` added to a second carried value. Returns the final `acc`, the
/// counter, the second carried value and `-x`.
pub fn communicating_loop(groups: &str, pairs: &str) -> String {
    format!(
        r#"module {{
  func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>) {{
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %r:3 = stablehlo.while(%i = %c0, %acc = %x, %rot = %z) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
      cond {{
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      }} do {{
        %s = "stablehlo.all_reduce"(%acc) <{{replica_groups = {groups}}}> ({{
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %t = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }}) : (tensor<4xf32>) -> tensor<4xf32>
        %h = stablehlo.constant dense<2.500000e-01> : tensor<4xf32>
        %m = stablehlo.multiply %s, %h : tensor<4xf32>
        %a = stablehlo.add %m, %x : tensor<4xf32>
        %p = "stablehlo.collective_permute"(%a) <{{source_target_pairs = {pairs}}}> : (tensor<4xf32>) -> tensor<4xf32>
        %r2 = stablehlo.add %rot, %p : tensor<4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i2, %a, %r2 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
      }}
    %y = stablehlo.negate %x : tensor<4xf32>
    return %r#1, %r#0, %r#2, %y : tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }}
}}"#
    )
}

/// A per-device program whose branch communicates: `case %k` all-reduces `%x` over
/// `groups` and halves it in branch 0, negates it in branch 1 (and for any other index,
/// as `stablehlo.case` runs its last branch); the result is then doubled.
pub fn communicating_branch(groups: &str) -> String {
    format!(
        r#"module {{
  func.func @main(%x: tensor<4xf32>, %k: tensor<i32>) -> tensor<4xf32> {{
    %r = "stablehlo.case"(%k) ({{
      %s = "stablehlo.all_reduce"(%x) <{{replica_groups = {groups}}}> ({{
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %t = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }}) : (tensor<4xf32>) -> tensor<4xf32>
      %h = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>
      %m = stablehlo.multiply %s, %h : tensor<4xf32>
      stablehlo.return %m : tensor<4xf32>
    }}, {{
      %n = stablehlo.negate %x : tensor<4xf32>
      stablehlo.return %n : tensor<4xf32>
    }}) : (tensor<i32>) -> tensor<4xf32>
    %y = stablehlo.add %r, %r : tensor<4xf32>
    return %y : tensor<4xf32>
  }}
}}"#
    )
}
