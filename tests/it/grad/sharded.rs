//! JAX's training step, and gradients of a sharded program.

use super::*;

/// `mlp_dp_train_step` is JAX's `value_and_grad` of `mean((relu(x @ w1) @ w2 - y)^2)`
/// and an SGD step (lr 0.1) on `(w1, w2, x, y)`; its outputs are `(loss, w1', w2')`.
#[test]
fn sgd_step_matches_jax_value_and_grad() {
    let fx = jax_fixtures()
        .unwrap()
        .into_iter()
        .find(|f| f.name == "mlp_dp_train_step")
        .expect("the mlp_dp_train_step fixture");
    let types: Vec<TensorType> = fx.inputs.iter().map(|l| l.ty.clone()).collect();
    let vg = jit(mlp_loss)
        .lower(&types)
        .unwrap()
        .value_and_grad(&[0, 1])
        .unwrap();
    let out = vg.run_reference(&fx.inputs).unwrap();
    let step = |w: &Literal, g: &Literal| {
        let v: Vec<f64> = w
            .to_f64_vec()
            .iter()
            .zip(g.to_f64_vec())
            .map(|(w, g)| (*w as f32 - 0.1f32 * g as f32) as f64)
            .collect();
        Literal::from_f64(DType::F32, &w.ty.shape, &v).unwrap()
    };
    let got = [
        out[0].clone(),
        step(&fx.inputs[0], &out[1]),
        step(&fx.inputs[1], &out[2]),
    ];
    for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
        let excess = excess_error(g, w, fx.abs, fx.rel).unwrap();
        assert!(excess <= 0.0, "output {k} is off JAX by {excess:e}");
    }
    // The gradients themselves, recovered from JAX's step: g = (w - w') / 0.1.
    for k in 0..2 {
        let (w, w_new) = (fx.inputs[k].to_f64_vec(), fx.outputs[k + 1].to_f64_vec());
        let jax_g: Vec<f64> = w.iter().zip(&w_new).map(|(a, b)| (a - b) / 0.1).collect();
        let worst = out[k + 1]
            .to_f64_vec()
            .iter()
            .zip(&jax_g)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-4, "gradient {k} is off JAX's by {worst:e}");
    }
}

/// Data parallelism: the batch split over `data` (4 devices), the parameters replicated.
/// Each device's gradient is a partial sum over its rows, so each parameter gradient is
/// all-reduced over `data`.
#[test]
fn data_parallel_gradients_are_all_reduced_over_data() {
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let l = jit(mlp_loss)
        .mesh(&mesh)
        .in_shardings([P![], P![], P!["data", None], P!["data", None]])
        .lower(&[
            f32t(&[16, 32]),
            f32t(&[32, 16]),
            f32t(&[16, 16]),
            f32t(&[16, 16]),
        ])
        .unwrap();
    let vg = l.value_and_grad(&[0, 1]).unwrap();
    let c = vg.compile(&Options::default()).unwrap();
    let args = Rng(31).args_of(&vg);
    let want = vg.run_reference(&args).unwrap();
    let got = shardc::run_simulated(&c, &args, 1e-5).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let excess = excess_error(g, w, 1e-5, 1e-4).unwrap();
        assert!(
            excess <= 0.0,
            "result {k} is off the reference by {excess:e}"
        );
    }
    let e = c.explain();
    let all_reduces: Vec<String> = e
        .collectives
        .iter()
        .map(|col| format!("{} {:?} {}", col.kind, col.axes, col.from))
        .collect();
    insta::assert_snapshot!(e.summary());
    let over_data = e
        .collectives
        .iter()
        .filter(|col| col.kind == "all_reduce" && col.axes == ["data"])
        .count();
    // One for the loss, one per parameter gradient: nothing else moves.
    assert_eq!(over_data, 3, "{all_reduces:#?}");
    assert_eq!(e.collectives.len(), 3, "{all_reduces:#?}");
    // The gradients leave replicated, as their parameters arrived.
    for k in [1, 2] {
        assert_eq!(
            c.partitioned.outputs[k].to_sharding("mesh"),
            Some(Sharding::split("mesh", &[&[], &[]]))
        );
    }
}

/// Megatron: a transformer block with Q, K, V, W1 split by columns and Wo, W2 by rows over
/// `model`, the batch over `data`. The backward pass mirrors the forward's two all-reduces
/// over `model` (the cotangents of the two layer norms' outputs, which feed
/// column-parallel matmuls), and every weight gradient (partial over the batch) is
/// all-reduced over `data`, in the layout of its weight.
#[test]
fn megatron_block_gradients_partition_and_match_the_reference() {
    let d = TransformerDims {
        batch: 4,
        seq: 8,
        d_model: 16,
        heads: 4,
        d_ff: 32,
    };
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
    let mut types = vec![f32t(&[d.batch, d.seq, d.d_model])];
    types.extend(block_weight_types(&d));
    let mut specs = vec![P!["data", None, None]];
    specs.extend(block_weight_specs());
    let l = jit(move |a: &[Tensor]| {
        let y = transformer_block(&a[0], &a[1..], &d);
        (&y * &y).mean(&[0, 1, 2])
    })
    .mesh(&mesh)
    .in_shardings(specs)
    .lower(&types)
    .unwrap();
    let wrt: Vec<usize> = (1..types.len()).collect();
    let vg = l.value_and_grad(&wrt).unwrap();
    let c = vg.compile(&Options::default()).unwrap();
    let mut r = Rng(41);
    let args: Vec<Literal> = types
        .iter()
        .map(|t| {
            let v = r.values(t.num_elements(), -0.5, 0.5);
            Literal::from_f64(DType::F32, &t.shape, &v).unwrap()
        })
        .collect();
    let want = vg.run_reference(&args).unwrap();
    let got = shardc::run_simulated(&c, &args, 1e-4).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let excess = excess_error(g, w, 1e-4, 1e-3).unwrap();
        assert!(
            excess <= 0.0,
            "result {k} is off the reference by {excess:e}"
        );
    }
    let e = c.explain();
    let count = |axis: &str| {
        e.collectives
            .iter()
            .filter(|col| col.kind == "all_reduce" && col.axes == [axis])
            .count()
    };
    let summary = e.summary();
    assert_eq!(count("model"), 2 + 2, "{summary}");
    assert_eq!(count("data"), 1 + BLOCK_WEIGHTS.len(), "{summary}");
    assert_eq!(
        e.collectives.len(),
        4 + 1 + BLOCK_WEIGHTS.len(),
        "{summary}"
    );
    // Each gradient leaves laid out like its weight.
    let f = vg.module().entry().unwrap();
    for (k, &i) in wrt.iter().enumerate() {
        let want = f.arg_attrs[i].sharding.as_ref();
        assert_eq!(f.result_attrs[1 + k].sharding.as_ref(), want);
        assert_eq!(
            c.partitioned.outputs[1 + k].to_sharding("mesh").as_ref(),
            want,
            "gradient of {}",
            BLOCK_WEIGHTS[i - 1]
        );
    }
}

/// A convolutional layer differentiated by shardc, then partitioned: the batch split over
/// `data`, the kernel replicated. The kernel's cotangent convolution contracts the batch
/// (a partial sum over `data`, all-reduced); the input's stays split. Plain and depthwise
/// (whose kernel cotangent is a convolution with batch groups), on the simulated mesh and
/// the cpu backend against the reference.
#[test]
fn convolution_gradients_of_a_split_batch_partition() {
    for (groups, k_in, k_out) in [(1, 3, 4), (3, 1, 3)] {
        let text = format!(
            r#"
sdy.mesh @mesh = <["data"=4]>
func.func @main(%x: tensor<8x6x6x3xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}, {{}}, {{}}]>}}, %k: tensor<3x3x{k_in}x{k_out}xf32>) -> tensor<f32> {{
  %y = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [2, 2], pad = [[1, 1], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : (tensor<8x6x6x3xf32>, tensor<3x3x{k_in}x{k_out}xf32>) -> tensor<8x3x3x{k_out}xf32>
  %t = stablehlo.tanh %y : tensor<8x3x3x{k_out}xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<8x3x3x{k_out}xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}}
"#
        );
        let m = parse_module(&text).unwrap();
        let vg = value_and_grad(&m, &[0, 1]).unwrap();
        let c = shardc::compiler::compile(&vg, &Options::default()).unwrap();
        let types = vg.entry().unwrap().arg_types();
        let mut rng = Rng(7 + groups as u64);
        let args: Vec<Literal> = types
            .iter()
            .map(|t| {
                let v = rng.values(t.num_elements(), -1.0, 1.0);
                Literal::from_f64(t.dtype, &t.shape, &v).unwrap()
            })
            .collect();
        let want = reference::run(&vg, "main", &args).unwrap();
        let simulated = shardc::run_simulated(&c, &args, 1e-5).unwrap();
        let cpu = shardc::run_cpu(&c, &args, &shardc::runtime::engine::Interpreted, 1e-5)
            .unwrap()
            .outputs;
        for got in [&simulated, &cpu] {
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let excess = excess_error(g, w, 1e-5, 1e-4).unwrap();
                assert!(
                    excess <= 0.0,
                    "groups {groups}: result {k} is off by {excess:e}"
                );
            }
        }
        let e = c.explain();
        assert!(
            e.collectives.iter().any(|c| c.kind == "all_reduce"),
            "groups {groups}: the kernel's cotangent is summed over data\n{e}"
        );
    }
}

/// Max pooling differentiated by shardc, then partitioned with the batch split over
/// `data`: the `select_and_scatter` of its gradient runs on each device's rows, no
/// collective needed; on the simulated mesh and the cpu backend against the reference.
#[test]
fn max_pooling_gradients_of_a_split_batch_partition() {
    let text = r#"
sdy.mesh @mesh = <["data"=4]>
func.func @main(%x: tensor<8x6x6x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}) -> tensor<f32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p = "stablehlo.reduce_window"(%x, %init) <{padding = dense<[[0, 0], [1, 0], [1, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<8x6x6x2xf32>, tensor<f32>) -> tensor<8x3x3x2xf32>
  %t = stablehlo.tanh %p : tensor<8x3x3x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<8x3x3x2xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
"#;
    let m = parse_module(text).unwrap();
    let vg = value_and_grad(&m, &[0]).unwrap();
    let c = shardc::compiler::compile(&vg, &Options::default()).unwrap();
    let t = &vg.entry().unwrap().arg_types()[0];
    let v = Rng(5).values(t.num_elements(), -1.0, 1.0);
    let args = vec![Literal::from_f64(t.dtype, &t.shape, &v).unwrap()];
    let want = reference::run(&vg, "main", &args).unwrap();
    let simulated = shardc::run_simulated(&c, &args, 1e-5).unwrap();
    let cpu = shardc::run_cpu(&c, &args, &shardc::runtime::engine::Interpreted, 1e-5)
        .unwrap()
        .outputs;
    // The MLIR JIT's kernels too: select_and_scatter and the packed reduce_window.
    let jit = shardc::compiler::lower::cpu::NativeCompute::new(
        shardc::compiler::lower::cpu::CpuOptions::default(),
    );
    let jitted = shardc::run_cpu(&c, &args, &jit, 1e-5).unwrap().outputs;
    for got in [&simulated, &cpu, &jitted] {
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let excess = excess_error(g, w, 1e-5, 1e-4).unwrap();
            assert!(excess <= 0.0, "result {k} is off by {excess:e}");
        }
    }
    let e = c.explain();
    let gathers = e
        .collectives
        .iter()
        .filter(|c| c.kind == "all_gather")
        .count();
    assert_eq!(gathers, 0, "{e}");
}
