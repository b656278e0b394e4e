//! Gradients through `shard_map` (`sdy.manual_computation`): the body differentiated per
//! device, its collectives transposed, against finite differences on the reference
//! interpreter (which runs the body per device), then partitioned and run.

use super::*;

/// `psum` of a per-device matmul: the result replicated over `data` (each device's copy
/// carries its share of the cotangent), a second result split over `data`; `w`
/// replicated over `data` (its cotangent summed over the devices' copies).
const PSUM: &str = r#"
sdy.mesh @mesh = <["data"=4]>
func.func @main(%x: tensor<8x3xf64>, %w: tensor<3x2xf64>) -> tensor<f64> {
  %0:2 = sdy.manual_computation(%x, %w) in_shardings=[<@mesh, [{"data"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"data"}, {}]>] manual_axes={"data"} (%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
    %t = stablehlo.tanh %d : tensor<2x2xf64>
    %s = "stablehlo.all_reduce"(%t) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
    ^bb0(%p: tensor<f64>, %q: tensor<f64>):
      %r = stablehlo.add %p, %q : tensor<f64>
      stablehlo.return %r : tensor<f64>
    }) : (tensor<2x2xf64>) -> tensor<2x2xf64>
    %u = stablehlo.multiply %s, %t : tensor<2x2xf64>
    sdy.return %s, %u : tensor<2x2xf64>, tensor<2x2xf64>
  } : (tensor<8x3xf64>, tensor<3x2xf64>) -> (tensor<2x2xf64>, tensor<8x2xf64>)
  %c = stablehlo.constant dense<[[0.5, -1.0], [2.0, 0.25]]> : tensor<2x2xf64>
  %m = stablehlo.multiply %0#0, %c : tensor<2x2xf64>
  %sq = stablehlo.multiply %0#1, %0#1 : tensor<8x2xf64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %l0 = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<f64>
  %l1 = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf64>, tensor<f64>) -> tensor<f64>
  %l = stablehlo.add %l0, %l1 : tensor<f64>
  return %l : tensor<f64>
}
"#;

/// `all_gather`, `psum_scatter`, `all_to_all` and `ppermute` (a shift that leaves
/// device 0 with zeros and sends device 3's piece nowhere) in one body.
const COLLECTIVES: &str = r#"
sdy.mesh @mesh = <["data"=4]>
func.func @main(%x: tensor<8x4xf64>) -> tensor<f64> {
  %0:3 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>, <@mesh, [{"data"}, {}]>, <@mesh, [{"data"}, {}]>] manual_axes={"data"} (%a: tensor<2x4xf64>) {
    %g = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<2x4xf64>) -> tensor<8x4xf64>
    %t = stablehlo.sine %g : tensor<8x4xf64>
    %rs = "stablehlo.reduce_scatter"(%t) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%p: tensor<f64>, %q: tensor<f64>):
      %r = stablehlo.add %p, %q : tensor<f64>
      stablehlo.return %r : tensor<f64>
    }) : (tensor<8x4xf64>) -> tensor<2x4xf64>
    %sq = stablehlo.multiply %a, %a : tensor<2x4xf64>
    %aa = "stablehlo.all_to_all"(%sq) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf64>) -> tensor<8x1xf64>
    %e = stablehlo.exponential %a : tensor<2x4xf64>
    %cp = "stablehlo.collective_permute"(%e) <{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<2x4xf64>) -> tensor<2x4xf64>
    sdy.return %rs, %aa, %cp : tensor<2x4xf64>, tensor<8x1xf64>, tensor<2x4xf64>
  } : (tensor<8x4xf64>) -> (tensor<8x4xf64>, tensor<32x1xf64>, tensor<8x4xf64>)
  %w = stablehlo.constant dense<[[1.0, -0.5, 0.25, 2.0]]> : tensor<1x4xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [0, 1] : (tensor<1x4xf64>) -> tensor<8x4xf64>
  %m0 = stablehlo.multiply %0#0, %wb : tensor<8x4xf64>
  %t1 = stablehlo.tanh %0#1 : tensor<32x1xf64>
  %m2 = stablehlo.multiply %0#2, %wb : tensor<8x4xf64>
  %m2s = stablehlo.multiply %m2, %0#0 : tensor<8x4xf64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %l0 = stablehlo.reduce(%m0 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf64>, tensor<f64>) -> tensor<f64>
  %l1 = stablehlo.reduce(%t1 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x1xf64>, tensor<f64>) -> tensor<f64>
  %l2 = stablehlo.reduce(%m2s init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf64>, tensor<f64>) -> tensor<f64>
  %l01 = stablehlo.add %l0, %l1 : tensor<f64>
  %l = stablehlo.add %l01, %l2 : tensor<f64>
  return %l : tensor<f64>
}
"#;

/// JAX's partial `shard_map` (`shard_map_partial_manual_fwd`'s form): manual over
/// `model` only, the rows of `x` left to automatic partitioning over `data`; the
/// contraction split over `model` and summed by a `psum` whose reducer carries JAX's
/// sharding constraint.
const PARTIAL: &str = r#"
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%x: tensor<4x8xf64> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %w: tensor<8x3xf64> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> tensor<f64> {
  %0 = sdy.manual_computation(%x, %w) in_shardings=[<@mesh, [{?}, {"model", ?}]>, <@mesh, [{"model", ?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={"model"} (%a: tensor<4x2xf64>, %b: tensor<2x3xf64>) {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x2xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
    %c = sdy.sharding_constraint %d <@mesh, [{?}, {?}]> : tensor<4x3xf64>
    %s = "stablehlo.all_reduce"(%c) <{replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
    ^bb0(%p: tensor<f64>, %q: tensor<f64>):
      %r = stablehlo.add %p, %q : tensor<f64>
      %rc = sdy.sharding_constraint %r <@mesh, []> : tensor<f64>
      stablehlo.return %rc : tensor<f64>
    }) : (tensor<4x3xf64>) -> tensor<4x3xf64>
    %t = stablehlo.tanh %s : tensor<4x3xf64>
    sdy.return %t : tensor<4x3xf64>
  } : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
  %sq = stablehlo.multiply %0, %0 : tensor<4x3xf64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %l = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
"#;

fn programs() -> Vec<(&'static str, Module, Vec<Literal>, Vec<usize>)> {
    let mut rng = Rng(41);
    [
        ("psum", PSUM),
        ("collectives", COLLECTIVES),
        ("partial", PARTIAL),
    ]
    .into_iter()
    .map(|(name, text)| {
        let m = parse_module(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let types = m.entry().unwrap().arg_types();
        let args: Vec<Literal> = types
            .iter()
            .map(|t| random_lit(&mut rng, &t.shape, -1.0, 1.0))
            .collect();
        let wrt = (0..args.len()).collect();
        (name, m, args, wrt)
    })
    .collect()
}

/// Every operand's gradient through the body's collectives matches central differences:
/// a wrong transpose, a missing share of a replicated result's cotangent, or a missing
/// sum over a replicated operand's copies is off by a whole factor.
#[test]
fn shard_map_gradients_match_finite_differences() {
    for (name, m, args, wrt) in programs() {
        check_fd(name, &m, &args, &wrt);
    }
}

/// The gradient programs partition (the VJP is a manual computation over the same axes)
/// and run on the simulated mesh and the cpu backend as on the reference.
#[test]
fn shard_map_gradients_partition_and_run() {
    for (name, m, args, wrt) in programs() {
        let vg = value_and_grad(&m, &wrt).unwrap();
        let c = shardc::compiler::compile(&vg, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = reference::run(&vg, "main", &args).unwrap();
        let simulated = shardc::run_simulated(&c, &args, 1e-9).unwrap();
        let cpu = shardc::run_cpu(&c, &args, &shardc::runtime::engine::Interpreted, 1e-9)
            .unwrap()
            .outputs;
        for got in [&simulated, &cpu] {
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let excess = excess_error(g, w, 1e-12, 1e-9).unwrap();
                assert!(excess <= 0.0, "{name}: result {k} is off by {excess:e}");
            }
        }
    }
}

/// The corpus's shard_map losses with `jax.grad`'s gradients recorded (ring attention's
/// ppermute in a fori_loop, MoE dispatch's all_to_all, psum_scatter/all_gather/pmean/
/// ppermute and a replicated psum, a shard_map manual over one axis of two):
/// `value_and_grad` of JAX's exported forward program gives JAX's loss and gradients,
/// on the reference interpreter and, partitioned, on the simulated mesh and the cpu
/// backend with the MLIR JIT.
#[test]
fn shard_map_gradients_match_jax() {
    let fixtures: Vec<_> = jax_fixtures()
        .unwrap()
        .into_iter()
        .filter(|f| !f.gradients.is_empty())
        .collect();
    let names: Vec<&str> = fixtures.iter().map(|f| f.name.as_str()).collect();
    for want in [
        "shard_map_ring_attention_loss",
        "shard_map_moe_dispatch_loss",
        "shard_map_collectives_loss",
        "shard_map_partial_manual_loss",
    ] {
        assert!(names.contains(&want), "{want} has no recorded gradients");
    }
    let jit = shardc::compiler::lower::cpu::NativeCompute::new(
        shardc::compiler::lower::cpu::CpuOptions::default(),
    );
    for fx in &fixtures {
        let wrt: Vec<usize> = (0..fx.inputs.len())
            .filter(|&i| fx.inputs[i].ty.dtype.is_float())
            .collect();
        assert_eq!(
            wrt.len(),
            fx.gradients.len(),
            "{}: one gradient per float input",
            fx.name
        );
        let vg = value_and_grad(&fx.module, &wrt).unwrap_or_else(|e| panic!("{}: {e}", fx.name));
        let c = shardc::compiler::compile(&vg, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", fx.name));
        let reference = reference::run(&vg, "main", &fx.inputs).unwrap();
        let simulated = shardc::run_simulated(&c, &fx.inputs, 1e-4).unwrap();
        let jitted = shardc::run_cpu(&c, &fx.inputs, &jit, 1e-4)
            .unwrap_or_else(|e| panic!("{}: {e}", fx.name))
            .outputs;
        let n = fx.outputs.len();
        for (run, got) in [
            ("reference", &reference),
            ("simulated", &simulated),
            ("cpu backend, MLIR JIT", &jitted),
        ] {
            let want = fx.outputs.iter().chain(&fx.gradients);
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                let what = if k < n { "output" } else { "gradient" };
                let excess = excess_error(g, w, fx.abs, fx.rel).unwrap();
                assert!(
                    excess <= 0.0,
                    "{} ({run}): {what} {} is off JAX by {excess:e}",
                    fx.name,
                    if k < n { k } else { k - n }
                );
            }
        }
    }
}

/// A `pmax` (an all-reduce by maximum) on the gradient's path has no transpose: the
/// error names the shard_map, the body and the rule.
#[test]
fn a_pmax_in_a_shard_map_body_is_refused_by_name() {
    let text = PSUM.replace("stablehlo.add %p, %q", "stablehlo.maximum %p, %q");
    let m = parse_module(&text).unwrap();
    let err = value_and_grad(&m, &[0, 1]).unwrap_err();
    assert!(
        matches!(err, CompileError::NotDifferentiable { .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    for want in [
        "sdy.manual_computation",
        "its body does not differentiate",
        "stablehlo.all_reduce",
        "only a sum (psum, psum_scatter)",
        "jax.grad of the shard_map",
    ] {
        assert!(msg.contains(want), "{want:?} not in: {msg}");
    }
}
