//! Partitioning: every decision is also a numerics test. A program is compiled, its
//! inputs sharded as the partitioned program expects, the program run on a simulated mesh
//! (one reference interpreter per device, exact collectives), the outputs reassembled
//! and compared with the single-device reference run.

use shardc::compiler::{Compiled, Options, compile};
use shardc::ir::testing::jax::{excess_error, jax_fixtures};
use shardc::ir::{Literal, Module};
use shardc::runtime::reference;

/// Runs a compiled program on the simulated mesh; returns the reassembled results.
pub fn run_simulated(c: &Compiled, args: &[Literal]) -> Vec<Literal> {
    shardc::run_simulated(c, args, 1e-4)
        .unwrap_or_else(|e| panic!("{e}\n{}", c.as_text(shardc::compiler::Stage::Partitioned)))
}

/// Compiles, runs on the simulated mesh and on the reference, and checks they agree.
pub fn check_against_reference(m: &Module, args: &[Literal], abs: f64, rel: f64) -> Compiled {
    check_against_reference_with(m, &Options::default(), args, abs, rel)
}

/// [`check_against_reference`] with compile options.
pub fn check_against_reference_with(
    m: &Module,
    opts: &Options,
    args: &[Literal],
    abs: f64,
    rel: f64,
) -> Compiled {
    let c = compile(m, opts).unwrap_or_else(|e| panic!("{e}"));
    let want = reference::run(m, &m.entry().unwrap().name, args).unwrap();
    let got = run_simulated(&c, args);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let excess = excess_error(g, w, abs, rel).unwrap();
        assert!(
            excess <= 0.0,
            "result {k} is off the reference by {excess:e}\n{}",
            c.as_text(shardc::compiler::Stage::Partitioned)
        );
    }
    c
}

#[test]
fn jax_fixtures_partition_and_match_jax() {
    for fx in jax_fixtures().unwrap() {
        let c =
            compile(&fx.module, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", fx.name));
        let got = run_simulated(&c, &fx.inputs);
        for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
            let excess = excess_error(g, w, fx.abs, fx.rel).unwrap();
            assert!(
                excess <= 0.0,
                "{} result {k} is off JAX by {excess:e}",
                fx.name
            );
        }
    }
}

/// Every layout of a rank-2 tensor on a 2x4 mesh: each axis unused, on dimension 0 or on
/// dimension 1 (both orders when two axes share a dimension), optionally partial over the
/// axes that split nothing (sources only).
fn rank2_layouts(partial: bool) -> Vec<shardc::ir::Sharding> {
    use shardc::ir::{AxisRef, Sharding};
    let axes = ["data", "model"];
    let mut out = Vec::new();
    for a in 0..3 {
        for b in 0..3 {
            let mut dims: Vec<Vec<&str>> = vec![vec![], vec![]];
            if a > 0 {
                dims[a - 1].push(axes[0]);
            }
            if b > 0 {
                dims[b - 1].push(axes[1]);
            }
            let mut variants = vec![dims.clone()];
            if a == b && a > 0 {
                let mut rev = dims.clone();
                rev[a - 1].reverse();
                variants.push(rev);
            }
            for d in variants {
                let s = Sharding::split("mesh", &[&d[0], &d[1]]);
                let unused: Vec<&str> = axes
                    .iter()
                    .copied()
                    .filter(|x| !d.iter().flatten().any(|y| y == x))
                    .collect();
                out.push(s.clone());
                if partial && !unused.is_empty() {
                    let mut p = s.clone();
                    p.unreduced = unused.iter().map(|x| AxisRef::new(x)).collect();
                    out.push(p);
                }
            }
        }
    }
    out
}

#[test]
fn every_rank2_layout_pair_reshards_correctly_on_a_2x4_mesh() {
    use shardc::ir::{DType, FunctionBuilder, Mesh, TensorType, UnaryOp};
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
    let ty = TensorType::new(DType::F32, [8, 16]);
    let x: Vec<f64> = (0..128).map(|i| (i as f64 * 0.37).sin()).collect();
    let arg = Literal::from_f64(DType::F32, &[8, 16], &x).unwrap();
    let (sources, targets) = (rank2_layouts(true), rank2_layouts(false));
    assert_eq!(targets.len(), 11);
    let mut pairs = 0;
    for s in &sources {
        for t in &targets {
            // y = -x: x arrives as `s`, y leaves as `t`.
            let mut b = FunctionBuilder::new("main", std::slice::from_ref(&ty));
            b.set_arg_sharding(0, s.clone());
            let y = b.unary(UnaryOp::Negate, b.arg(0)).unwrap();
            let mut f = b.finish(&[y]);
            f.result_attrs[0].sharding = Some(t.clone());
            let m = Module {
                meshes: vec![mesh.clone()],
                functions: vec![f],
                ..Module::default()
            };
            let c = compile(&m, &Options::default()).unwrap_or_else(|e| panic!("{s} -> {t}: {e}"));
            assert_eq!(
                c.partitioned.outputs[0].to_sharding("mesh").as_ref(),
                Some(t),
                "{s} -> {t}"
            );
            let got = run_simulated(&c, std::slice::from_ref(&arg));
            let want: Vec<f64> = x.iter().map(|v| -(*v as f32) as f64).collect();
            assert_eq!(got[0].to_f64_vec(), want, "{s} -> {t}\n{}", c.explain());
            pairs += 1;
        }
    }
    // 11 complete layouts; the 5 that leave an axis unused also come partial over it.
    assert_eq!(sources.len(), 16);
    assert_eq!(pairs, 176);
}

/// Deterministic inputs, as the JAX fixtures make them: `sin(0.37 * i + k) * 0.5`.
pub fn det_inputs(m: &Module) -> Vec<Literal> {
    m.entry()
        .unwrap()
        .arg_types()
        .iter()
        .enumerate()
        .map(|(k, t)| Literal::deterministic(t, k).unwrap())
        .collect()
}

/// A canonical case and the compile options its `// options:` line asks for
/// (`pad_uneven`: uneven shardings are padded, and parsed as such).
pub fn parse_case(text: &str, path: &std::path::Path) -> (Module, Options) {
    let mut opts = Options::default();
    for o in text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// options: "))
        .flat_map(str::split_whitespace)
    {
        match o {
            "pad_uneven" => opts.pad_uneven = true,
            other => panic!("{}: unknown option {other}", path.display()),
        }
    }
    let m = shardc::ir::text::parse_module_with(text, opts.uneven())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m, opts)
}

/// The `// expect: <kind> {<axes>} <bytes>` lines of a case, in order.
fn expectations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("// expect: "))
        .map(str::to_string)
        .collect()
}

/// The canonical cases in `tests/partition/`: each states the collectives it must get
/// (kind, axes, bytes per device) in `// expect:` lines; each is run on the simulated
/// mesh against the reference; the explanation summary and the partitioned program are
/// snapshotted (and the full explanation, with the alternatives that lost).
#[test]
fn canonical_cases() {
    insta::glob!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests"),
        "partition/*.mlir",
        |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let (m, opts) = parse_case(&text, path);
            let c = check_against_reference_with(&m, &opts, &det_inputs(&m), 1e-5, 1e-5);
            // The partitioned program's generic form parses and verifies in MLIR (melior).
            let ctx = shardc::compiler::passes::mlir::context();
            shardc::compiler::passes::mlir::import(&ctx, &c.partitioned.module)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let e = c.explain();
            let got: Vec<String> = e
                .collectives
                .iter()
                .map(|c| format!("{} {{{}}} {}", c.kind, c.axes.join(","), c.bytes_per_device))
                .collect();
            assert_eq!(got, expectations(&text), "{}\n{e}", path.display());
            insta::assert_snapshot!(format!(
                "{}\n{}\n{}",
                e.summary(),
                c.as_text(shardc::compiler::Stage::Partitioned),
                e
            ));
        }
    );
}

/// The JAX fixtures' partitioning decisions: Megatron MLP and attention with heads on
/// "model" each need one all-reduce over "model"; data-parallel layer norm needs none; the
/// data-parallel training step all-reduces the loss and the two gradients over "data".
#[test]
fn jax_fixture_decisions() {
    let want: &[(&str, &[&str])] = &[
        ("attention_heads_tp", &["all_reduce {model}"]),
        ("layer_norm_dp", &[]),
        (
            "mlp_dp_train_step",
            &[
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        ("mlp_megatron_fwd", &["all_reduce {model}"]),
        // The corpus (corpus.py): data-parallel steps all-reduce the loss and every
        // parameter's gradient (an MLP has 4 leaves, the Flax block 16); Megatron adds
        // one all-reduce over model for the row-parallel layer's output; FSDP gathers
        // each kernel and reduce-scatters its gradient (biases stay replicated); the
        // vocabulary-split table (2 KB) is gathered, cheaper than all-reducing the 4 KB
        // lookup; `x[0:1, 0:1]` of the batch-split operand needs the first row gathered.
        ("flax_block_adamw_step", &["all_reduce {data}"; 17]),
        ("flax_embed_vocab_parallel_fwd", &["all_gather {model}"]),
        ("flax_mlp_adam_step", &["all_reduce {data}"; 5]),
        ("flax_mlp_adamw_clip_step", &["all_reduce {data}"; 5]),
        (
            "flax_mlp_adamw_megatron_step",
            &[
                "all_reduce {model}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        ("flax_mlp_adamw_step", &["all_reduce {data}"; 5]),
        ("flax_mlp_momentum_step", &["all_reduce {data}"; 5]),
        (
            "flax_mlp_sgd_fsdp_step",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "reduce_scatter {data}",
                "all_reduce {data}",
                "reduce_scatter {data}",
            ],
        ),
        ("flax_mlp_sgd_step", &["all_reduce {data}"; 5]),
        ("flax_rmsnorm_swiglu_adamw_step", &["all_reduce {data}"; 5]),
        ("jnp_unary_fwd", &["all_gather {data}"]),
        // A cumsum along the split dimension reads every earlier row: the operand is
        // gathered (the window's dimension runs replicated) and each device keeps its rows.
        ("jnp_cumsum_split_fwd", &["all_gather {data}"]),
        // A dynamic slice along the unsplit dimension runs on each device's rows (its
        // sizes made local); along the split one the operand is gathered first.
        ("lax_dynamic_slice_fwd", &["all_gather {data}"]),
        ("optax_xent_onehot_fwd", &["all_reduce {data}"]),
        // jax.checkpoint's barrier passes each value through in its layout: the
        // data-parallel gradient is all-reduced once, as XLA does.
        ("jax_checkpoint_step", &["all_reduce {data}"]),
        // Loops and branches run whole on every device (their regions are not
        // partitioned yet): what they read split is gathered first, and each device keeps
        // its rows of what they give (XLA partitions the regions and needs none).
        ("lax_cond_fwd", &["all_gather {data}"]),
        // The gradient of a lookup is a scatter-add into zeros: each device adds its own
        // rows' cotangents, and one all-reduce completes the table's gradient (as XLA).
        (
            "flax_embed_sgd_step",
            &["all_reduce {data}", "all_reduce {data}"],
        ),
        // Integer labels: the label's log-probability is picked by a gather whose gradient
        // scatters back on each device's rows; the loss and the weight gradient reduce.
        (
            "optax_xent_int_labels_step",
            &["all_reduce {data}", "all_reduce {data}"],
        ),
        // Loops over row-split carries run on each device's rows.
        ("lax_fori_loop_fwd", &[]),
        ("lax_scan_fwd", &[]),
        // The corpus of issue 12 (transformers, nn.scan, CNN training, routing, random):
        // data-parallel steps all-reduce the loss, batch statistics and every gradient;
        // nn.scan loops run on each device's rows.
        ("flax_cnn_bn_sgd_step", &["all_reduce {data}"; 10]),
        // Issue 12, stop 23: optimizers, jnp idioms, shard_map with axis indices and
        // automatic axes, transformers encoders and vision models.
        ("optax_adafactor_step", &["all_reduce {data}"; 5]),
        ("optax_lion_step", &["all_reduce {data}"; 5]),
        ("optax_lamb_step", &["all_reduce {data}"; 5]),
        ("optax_adamw_cosine_step", &["all_reduce {data}"; 5]),
        ("optax_multisteps_step", &["all_reduce {data}"; 5]),
        ("optax_muon_step", &["all_reduce {data}"; 5]),
        (
            "jnp_reductions_fwd",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        ("jax_segment_sum_fwd", &["all_reduce {data}"]),
        ("jnp_cumulative_fwd", &["all_gather {data}"]),
        ("jnp_sorting_fwd", &["all_gather {data}"]),
        // The loop runs whole on every device (its condition reduces over the whole batch).
        ("lax_while_converge_fwd", &["all_gather {data}"]),
        ("jax_custom_vjp_grad", &["all_reduce {data}"]),
        // bf16 gradients all-reduced in bf16: half the f32 step's bytes.
        ("flax_mlp_bf16_grad", &["all_reduce {data}"; 5]),
        (
            "shard_map_axis_index_fwd",
            &[
                "reduce_scatter {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // A shard_map manual over model only runs its body whole over data: the operand is
        // gathered over data first (XLA partitions the body over data and needs no gather).
        (
            "shard_map_partial_manual_fwd",
            &["all_gather {data}", "all_reduce {model}"],
        ),
        ("hf_bert_adamw_step", &["all_reduce {data}"; 43]),
        ("flax_mlp_debug_info_step", &["all_reduce {data}"; 5]),
        ("flax_nnx_adam_step", &["all_reduce {data}"; 7]),
        ("flax_dropout_mlp_sgd_step", &["all_reduce {data}"; 5]),
        // nn.scan runs on each device's rows: no collective forward. The training step's
        // data-parallel plan (both loops on the rows, the stacked gradients summed through
        // the backward loop, 7 all-reduces after it) is predicted slower than gathering
        // the batch and running the loops whole on this tiny model (1.76 vs 0.77 ms; the
        // two measure alike, 3.87 vs 3.90 ms), so the loops run whole.
        ("flax_scan_blocks_fwd", &[]),
        (
            "flax_scan_blocks_adamw_step",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_gather {data}",
            ],
        ),
        ("hf_gpt2_adamw_step", &["all_reduce {data}"; 29]),
        ("hf_llama_adamw_step", &["all_reduce {data}"; 22]),
        ("moe_top2_router_grad", &["all_reduce {data}"]),
        // The scanned LM: the model predicts its loops run whole (activations gathered)
        // faster than on the rows (4.29 vs 5.93 ms) and keeps them whole, though the
        // data-parallel plan measures 2.2x faster (12.2 vs 27.0 ms, `shardc bench plans`):
        // the model undercounts the whole loops' compute.
        (
            "flax_scan_lm_adamw_step",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_gather {data}",
            ],
        ),
        // shard_map bodies run as written: their collectives (unrolled with their loop)
        // are in explain, with what each device sends.
        (
            "shard_map_moe_dispatch_fwd",
            &["all_to_all {data}", "all_to_all {data}"],
        ),
        ("shard_map_psum_fwd", &["all_reduce {data}"]),
        // The shard_map tutorial's collectives by hand, six bodies: the layouts between
        // them gathered first (their out_specs replicate), then each body's collectives
        // as written — a collective matmul's 4 permutes (its fori_loop unrolled), the
        // psum_scatter and its gathers, pmax / pmin / pmean, an all_to_all, a scan's 5
        // permutes, a psum.
        // Convergence loops of the incomplete gamma and beta functions run whole: their
        // conditions read every element (`any(not converged)`).
        ("jax_scipy_stats_logpdfs_fwd", &["all_gather {data}"; 3]),
        ("jnp_interp_convolve2d_map_coordinates_fwd", &[]),
        // Solvers on replicated values: their while loops run on every device, no
        // communication.
        ("jax_odeint_fwd", &[]),
        ("jax_scipy_minimize_bfgs_fwd", &[]),
        // BatchNorm's batch statistics summed across the devices (`psum` over `data`).
        ("flax_sync_batchnorm_shard_map_fwd", &["all_reduce {data}"]),
        // Flax's logical rules as JAX resolves them: the MLP's hidden units on `model`
        // (its second matmul's partial sums all-reduced), the gradients summed over
        // `data`, the first bias gathered for its replicated result.
        // Float8 values held as f32 and rounded where computed: the rounding is
        // element-wise, so the decisions are those of the f32 program. Flax's fp8_ops: the
        // inputs' and output gradients' amax over the batch (max over `data`, two a
        // layer), the loss and the four parameters' gradients summed over `data`.
        ("jnp_float8_edges_fwd", &[]),
        ("flax_fp8_dense_grad", &["all_reduce {data}"; 9]),
        // GShard's einsum dispatch with the experts on `expert`: the capacity positions
        // are a cumsum over every token, so the routing mask is gathered over `data`; the
        // combine (and the dispatch's gradient) sums over the experts (`expert`); the
        // gradients are summed over `data`.
        (
            "moe_gshard_einsum_adamw_step",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {expert}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {expert}",
                "all_reduce {data}",
            ],
        ),
        // A shard_map manual over `data` only: the operands resharded to its in_specs
        // (XLA's three collectives, the same kinds), the body's psum over `data`.
        (
            "shard_map_partial_auto_fwd",
            &[
                "all_to_all {data}",
                "all_gather {model}",
                "all_reduce {data}",
            ],
        ),
        ("hf_big_bird_block_sparse_fwd", &[]),
        ("int8_quantized_matmul_fwd", &[]),
        // Weight-only int4: the dequantized bf16 weight columns are gathered for the
        // row-sharded matmul; the int4 weights (for the replicated results), the int4 max,
        // the column sums and the requantized activations are gathered in their narrowest
        // type (int8 holding int4, i32 sums).
        ("int4_weight_only_quant_fwd", &["all_gather {data}"; 5]),
        ("jax_softmax_where_fwd", &[]),
        // A grouped convolution's kernel gradient (batch groups) sums over the data batch:
        // each device convolves its examples, then the kernel and bias gradients are
        // all-reduced together (not the activations gathered, 33.6 KB a device).
        ("flax_grouped_dilated_conv_grad", &["all_reduce {data}"; 2]),
        // The body's bf16 pmax and int32 psum, as written.
        (
            "shard_map_pmax_bf16_psum_int_fold_in_fwd",
            &["all_reduce {data}", "all_reduce {data}"],
        ),
        // Replicated scatters and gathers: nothing to move.
        ("jnp_scatter_modes_fwd", &[]),
        // The per-example sums of a constraint's model-split columns: one all-reduce.
        ("jax_vmap_spmd_axis_fwd", &["all_reduce {model}"]),
        // The explicit reshard to replicated columns is honoured: one gather.
        (
            "jax_explicit_einsum_out_sharding_fwd",
            &["all_gather {model}"],
        ),
        // Data parallel without parameters to reduce: no collectives.
        ("flax_max_pool_grad", &[]),
        ("jax_dpa_causal_grad", &[]),
        ("lax_cummax_grad", &[]),
        ("flax_nnx_scan_remat_fwd", &[]),
        // The body's own collectives, as written.
        (
            "shard_map_psum_scatter_dim1_fwd",
            &[
                "reduce_scatter {data}",
                "collective_permute {data}",
                "all_gather {data}",
            ],
        ),
        ("jax_random_rbg_fwd", &[]),
        (
            "flax_logical_rules_sgd_step",
            &[
                "all_reduce {model}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_gather {model}",
            ],
        ),
        (
            "shard_map_tutorial_fwd",
            &[
                "all_gather {model}",
                "all_gather {data}",
                "all_to_all {model}",
                "all_gather {model}",
                "all_gather {data}",
                "all_gather {data}",
                "all_gather {model}",
                "all_gather {data}",
                "all_gather {data}",
                "all_gather {model}",
                "all_gather {model}",
                "all_gather {model}",
                "all_gather {model}",
                "all_gather {data}",
                "collective_permute {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "reduce_scatter {model}",
                "all_gather {model}",
                "all_gather {model}",
                "all_reduce {data}",
                "all_reduce {data,model}",
                "all_reduce {model}",
                "all_to_all {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "collective_permute {model}",
                "all_reduce {model}",
            ],
        ),
        // A placement annotation is its operand: row-parallel elementwise work, no
        // collective.
        ("offload_device_put_fwd", &[]),
        (
            "shard_map_ring_attention_fwd",
            &["collective_permute {data}"; 16],
        ),
        // GPT-2's Conv1D kernels are read transposed: three kernels change their split
        // dimension by all-to-all where XLA gathers less often (10 all-reduces, 2
        // all-gathers); a plan to revisit under issue 13.
        (
            "hf_gpt2_megatron_fwd",
            &[
                "all_to_all {model}",
                "all_to_all {model}",
                "all_to_all {model}",
                "all_reduce {model}",
                "all_gather {model}",
                "all_reduce {model}",
                "all_reduce {model}",
                "all_gather {model}",
            ],
        ),
        // Stop 24's programs. Data-parallel steps: the loss and each leaf's gradient (the
        // group-norm CNN has 6 leaves, the tied-embedding LM 3, OPT 36); a recurrent
        // net's 560-byte batch is gathered rather than its gradients all-reduced; a
        // cumulative min down the split rows needs them all; `lax.switch` runs whole
        // (branches are not partitioned inside yet), so its split operand is gathered.
        ("optax_clip_cosine_adamw_step", &["all_reduce {data}"; 5]),
        // The recurrences could run on each device's rows, the weight gradients summed
        // through the loop and all-reduced once after it (10 or 12 all-reduces and the
        // loss); on these 560-byte batches the model predicts gathering the batch once
        // and running the loops whole faster (measured so: 2.1 ms vs 4.1 ms, `shardc bench
        // plans`, `docs/bench/loops-2026-12-05.json`), and the program-level check keeps
        // that.
        ("flax_lstm_rnn_grad", &["all_gather {data}"]),
        ("flax_gru_rnn_grad", &["all_gather {data}"]),
        ("flax_groupnorm_conv_grad", &["all_reduce {data}"; 7]),
        ("flax_tied_embed_grad", &["all_reduce {data}"; 4]),
        ("lax_cumulative_more_fwd", &["all_gather {data}"]),
        ("lax_switch_fwd", &["all_gather {data}"]),
        ("hf_opt_grad", &["all_reduce {data}"; 37]),
        (
            "optax_mechanic_step",
            &[
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // CTC's loop bodies would communicate on each device's sequences (even with
        // communication free no plan takes them), so the loops run whole: the batch
        // gathered.
        (
            "optax_ctc_grad",
            &["all_gather {data}", "all_gather {data}"],
        ),
        // Mixup pairs each row with a row elsewhere in the batch (jax.random.permutation):
        // both x and y gathered; then the loss and the MLP's 4 gradients all-reduced.
        (
            "flax_mixup_beta_sgd_step",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // BatchNorm in training: the batch mean and variance all-reduced in the forward,
        // then the loss and the six gradients (Dense, BatchNorm scale and bias).
        ("flax_batchnorm_train_step", &["all_reduce {data}"; 10]),
        // nn.remat's optimization barriers: at 16 rows the batch is cheaper gathered before
        // each barrier (1.8 KB) than split through the recomputed layers; the barrier itself
        // passes each operand's layout through (`each_through`).
        (
            "flax_remat_dots_adam_step",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_gather {data}",
                "all_gather {data}",
            ],
        ),
        // nn.vmap's members over model: their mean is a sum over model.
        ("flax_vmap_ensemble_fwd", &["all_reduce {model}"]),
        // GPT-2 in training mode: the loss and its 28 parameters' gradients, dropout masks
        // drawn per row on each device from the replicated key.
        ("hf_gpt2_dropout_train_step", &["all_reduce {data}"; 29]),
        // permutation(independent=True) along the batch: the rows gathered, sorted whole.
        ("jax_random_more_fwd", &["all_gather {data}"]),
        // The constraint splits the hidden over model; the second matmul contracts it.
        ("jax_sharding_constraint_fwd", &["all_reduce {model}"]),
        // flip, rot90, repeat and median along the batch read every row: one gather.
        ("jnp_array_manip_fwd", &["all_gather {data}"]),
        // approx_min_k along the rows (split over data) sorts whole rows of scores: one
        // gather; approx_max_k along the queries stays local; the sum all-reduced.
        (
            "lax_approx_top_k_fwd",
            &["all_gather {data}", "all_reduce {data}"],
        ),
        // Explicit sharding mode: reshard(h, P("data", None)) of a model-split matmul is
        // an all-gather over model, as JAX's own partitioner does it.
        ("jax_explicit_reshard_fwd", &["all_gather {model}"]),
        // The unconstrained dimension stays on model; the second matmul contracts it.
        ("jax_unconstrained_fwd", &["all_reduce {model}"]),
        // The ellipsis einsums stay on the batch; their scalar sum is all-reduced.
        ("jnp_einsum_ellipsis_fwd", &["all_reduce {data}"]),
        // f16 Adam: the loss and four gradients, as in f32 (in f16: half the bytes).
        ("flax_f16_adam_step", &["all_reduce {data}"; 5]),
        // unique, lexsort, argsort and the two-key sort order the rows split over data:
        // the rows and their ids gathered.
        (
            "jnp_unique_lexsort_bincount_fwd",
            &["all_gather {data}", "all_gather {data}"],
        ),
        // nanmean over the rows: the sum and the count of non-NaN values.
        (
            "jax_nn_activations_where_fwd",
            &["all_reduce {data}", "all_reduce {data}"],
        ),
        // The cumulative window down the rows reads them all: the argument is gathered
        // once, and the scan then runs whole on it.
        ("lax_scan_carried_key_fwd", &["all_gather {data}"]),
        // Seven losses, each a mean over the rows: seven scalar sums.
        ("optax_losses_fwd", &["all_reduce {data}"; 7]),
        // betainc, gammainc and gammaincc are while loops (continued fractions and
        // series), which run whole: every operand of every loop gathered (26 in all).
        // On pieces, their bodies would gather in every iteration: measured 3.7-5.6x slower
        // (`docs/bench/loops-2026-12-06.json`).
        (
            "jax_scipy_special_incomplete_fwd",
            &["all_gather {data}"; 26],
        ),
        // data x fsdp x model: each kernel gathered over fsdp (FSDP), the hidden over model
        // reduced once (TP), then the loss and four gradients all-reduced over (data, fsdp)
        // and sliced back to fsdp: at 2 KB a tensor one all-reduce costs less than an
        // all-reduce over data and a reduce-scatter over fsdp (explain lists both).
        (
            "flax_mlp_adamw_3d_mesh_step",
            &[
                "all_gather {fsdp}",
                "all_gather {fsdp}",
                "all_reduce {model}",
                "all_reduce {data,fsdp}",
                "all_reduce {data,fsdp}",
                "all_reduce {data,fsdp}",
                "all_reduce {data,fsdp}",
                "all_reduce {data,fsdp}",
            ],
        ),
        // psum over (data, model) together, pmean over model.
        (
            "shard_map_two_axes_fwd",
            &["all_reduce {data,model}", "all_reduce {model}"],
        ),
        // lax.map is a while loop, which runs whole.
        ("lax_map_fwd", &["all_gather {data}"]),
        // optax optimizers: the loss and four gradients; Prodigy also sums its four
        // gradient-parameter products, as scalars, before the gradients.
        ("optax_adabelief_step", &["all_reduce {data}"; 5]),
        ("optax_adafactor_momentum_step", &["all_reduce {data}"; 5]),
        ("optax_adagrad_step", &["all_reduce {data}"; 5]),
        ("optax_adamax_step", &["all_reduce {data}"; 5]),
        ("optax_adan_step", &["all_reduce {data}"; 5]),
        ("optax_amsgrad_step", &["all_reduce {data}"; 5]),
        ("optax_fromage_step", &["all_reduce {data}"; 5]),
        ("optax_lars_step", &["all_reduce {data}"; 5]),
        ("optax_nesterov_step", &["all_reduce {data}"; 5]),
        ("optax_noisy_sgd_step", &["all_reduce {data}"; 5]),
        ("optax_novograd_step", &["all_reduce {data}"; 5]),
        ("optax_prodigy_step", &["all_reduce {data}"; 9]),
        ("optax_radam_step", &["all_reduce {data}"; 5]),
        ("optax_rmsprop_step", &["all_reduce {data}"; 5]),
        ("optax_schedule_free_adamw_step", &["all_reduce {data}"; 5]),
        ("optax_sm3_step", &["all_reduce {data}"; 5]),
        (
            "optax_warmup_cosine_adamw_ema_step",
            &["all_reduce {data}"; 5],
        ),
        ("optax_yogi_step", &["all_reduce {data}"; 5]),
        // Shampoo-style: the loss and four gradients all-reduced, then each device forms
        // the statistics and their eigendecompositions whole (replicated, as XLA does).
        ("jax_shampoo_eigh_step", &["all_reduce {data}"; 5]),
        // shard_map's explicit psum_scatter, all_gather, all_to_all, pmax and pmean.
        (
            "shard_map_collectives_fwd",
            &[
                "reduce_scatter {data}",
                "all_gather {data}",
                "all_to_all {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // The incomplete gamma's while loops run whole: their operands are gathered
        // (XLA runs them on the blocks; loops are not partitioned inside yet).
        ("jax_special_gamma_fwd", &["all_gather {data}"; 5]),
        // Each device factors its own matrices of the batch; inv's pivots become a
        // permutation in a while loop, which runs on each device's matrices.
        ("jnp_linalg_batched_fwd", &[]),
        // Stop 31's batch. T5 and LongT5 forwards, RoBERTa-PreLayerNorm, local/GQA
        // attention and the edge-value programs are data-parallel or replicated: no
        // collective. Data-parallel steps all-reduce the loss and each gradient (T5 with
        // Adafactor: 28 leaves; the UNet: 54; the optax chain: 4, its finiteness check
        // reading the reduced gradients).
        ("hf_t5_adafactor_step", &["all_reduce {data}"; 29]),
        ("flax_unet_diffusion_step", &["all_reduce {data}"; 55]),
        ("optax_inject_masked_finite_step", &["all_reduce {data}"; 5]),
        // Rows over data, indices replicated: the clip- and fill-mode gathers read the
        // rows each device holds and sum the pieces (two all-reduces of the 8x8 result);
        // the scatter-max writes rows any device may hold, so its operand is gathered.
        (
            "jnp_gather_modes_grad",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // Loops run whole (not partitioned inside): the vmapped while's rows and the
        // accumulation loop's micro-batches are gathered first (XLA keeps them split).
        ("jax_vmap_while_cond_fwd", &["all_gather {data}"]),
        // The accumulation loop's body would all-reduce each micro-batch's gradient (the
        // partial sum does not cross the nested scan), and a body that communicates is
        // not taken: the loop runs whole, its micro-batches gathered first.
        ("lax_nested_scan_accumulate_step", &["all_gather {data}"]),
        // A 16x16 batch of two tanh layers: gathering the batch and its first projection
        // (2 x 896 B) costs less than all-reducing the 2 KB weight gradient and the loss,
        // so the whole (tiny) backward runs on every device.
        ("jax_checkpoint_names_grad", &["all_gather {data}"; 2]),
        // Sorting for searchsorted/unique reads every value: the data-split vector is
        // gathered once.
        ("jnp_search_count_fwd", &["all_gather {data}"]),
        // The grouped conv's kernel gradient (a conv with batch_group_count, contracting
        // the batch) is split by batch: each device convolves its examples and the 576 B
        // gradient is all-reduced, as XLA does (gathering both operands moved 25.5 KB).
        ("lax_conv_variants_grad", &["all_reduce {data}"]),
        // The column sums over the batch (split over b) are all-reduced over b; the result
        // asked over (c, a), computed over (a, c), is permuted into that device order.
        (
            "mesh3_multiaxis_dims_fwd",
            &["all_reduce {b}", "collective_permute {c,a}"],
        ),
        // Megatron: the row-parallel output summed over model, the loss's batch sum over
        // data, the L1 term of each model-split weight over model, each weight gradient
        // over data, and the global norm's squared sum of each over model.
        (
            "optax_l1_huber_tp_step",
            &[
                "all_reduce {model}",
                "all_reduce {data}",
                "all_reduce {model}",
                "all_reduce {model}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {model}",
                "all_reduce {model}",
            ],
        ),
        // x64: the f64 Adam step all-reduces the loss and four gradients; the f64 rows
        // are gathered once for x x^T, the inverse and the rest.
        ("x64_adam_step", &["all_reduce {data}"; 5]),
        ("x64_mixed_fwd", &["all_gather {data}"]),
        // Flax NNX, data-parallel: the loss, BatchNorm's batch statistics and every
        // parameter's gradient all-reduced (13 in all).
        ("flax_nnx_cnn_attn_train_step", &["all_reduce {data}"; 13]),
        // The replicated attention bias's gradient is summed over the batch.
        ("jax_dpa_bias_mask_grad", &["all_reduce {data}"]),
        // Rows over data: padding along the rows and the percentiles across them read every
        // row (two gathers); the integer sums and the mean over the labels are all-reduced.
        (
            "jnp_labels_pads_fwd",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_gather {data}",
            ],
        ),
        // A loop with a traced trip count runs on each device's rows: its body does not
        // communicate, so it needs no trip count when compiling.
        ("lax_dynamic_trip_count_fwd", &[]),
        // Data-parallel: the loss and the two weight gradients all-reduced (in f32: the
        // bf16 operands are widened before their dots, as preferred_element_type asks);
        // the int8 matmul's rows stay on their devices.
        ("jax_preferred_element_type_step", &["all_reduce {data}"; 3]),
        // The gradient of a replicated weight over batch rows, with the activation
        // offloaded to host memory (annotations shardc reads and runs as copies): the rows
        // gathered (twice: the forward and the recomputation read them apart), the same
        // bytes as all-reducing the 16x16 gradient (1792 B a device either way).
        ("jax_checkpoint_offload_grad", &["all_gather {data}"; 2]),
        // nonzero, unique, sort-based median and percentile read every row: gathered once.
        ("jnp_nonzero_pad_unique_fwd", &["all_gather {data}"]),
        // 20 scanned Megatron blocks: the three stacked model-split weights gathered once
        // before the loop (the scan carries them unchanged), the loop then runs on each
        // device's batch rows without communicating; per-layer all-reduces in a loop of
        // the per-device program are predicted slower at this size (150 µs each).
        ("flax_scan20_tp_fwd", &["all_gather {model}"; 3]),
        // 24 scanned blocks under FSDP, a training step: the tiny model's two stacked
        // kernels and the batch gathered, both loops whole on every device, the loss
        // all-reduced; a layer gathered per iteration is predicted slower (48 collectives
        // of 2 KB at 150 µs each).
        (
            "flax_scan24_fsdp_adamw_step",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_gather {data}",
                "all_reduce {data}",
                "all_gather {data}",
            ],
        ),
        // A while bounded by an input (trips unknown when compiling, costed for 100):
        // the weight and the input gathered once and the loop run whole, rather than the
        // column-split activations gathered in every iteration (measured 2.8x faster at
        // this input's 21 trips, `docs/bench/loops-2026-12-06.json`: the prior errs
        // towards what cannot go badly wrong).
        ("lax_while_input_trips_tp_fwd", &["all_gather {model}"; 2]),
        // shard_map: 24 ppermutes of a fori_loop, one per iteration (run as a loop of the
        // per-device program).
        ("shard_map_ring_24_fwd", &["collective_permute {data}"; 24]),
        // shard_map local SGD: a psum in a lax.cond taken every 4th of 8 steps, listed once
        // (it runs when the branch is taken: twice, `jax_fixtures_partition_and_match_jax`).
        ("shard_map_local_sgd_cond_fwd", &["all_reduce {data}"]),
        // Losses through shard_map bodies (their gradients are checked against jax.grad in
        // `grad::shard_map`): the body's collectives as written, then the loss's sum over
        // the rows the devices hold.
        (
            "shard_map_collectives_loss",
            &[
                "all_reduce {data}",
                "reduce_scatter {data}",
                "all_gather {data}",
                "collective_permute {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        (
            "shard_map_moe_dispatch_loss",
            &[
                "all_reduce {data}",
                "all_to_all {data}",
                "all_to_all {data}",
            ],
        ),
        // shard_maps inside a scan: the psum in every iteration of the loop of the
        // per-device program (the loop's body compiled per device though every value
        // it carries is whole, so that the shard_map runs per device).
        ("lax_scan_shard_map_fwd", &["all_reduce {data}"; 3]),
        // Its gradient (JAX's): the forward loop twice (JAX's residuals and the value),
        // then two backward loops whose cotangent sums are all-reduced in each iteration.
        ("lax_scan_shard_map_grad", &["all_reduce {data}"; 12]),
        // Two lax.conds with a shard_map psum in one branch: the rows gathered once for
        // both (the branches read the whole value), each psum listed once, run when its
        // branch is taken.
        (
            "lax_cond_shard_map_fwd",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_reduce {data}",
            ],
        ),
        // GPipe with shard_map: 4 ppermutes a tick forward and back as written; the last
        // stage's outputs gathered over the stages for the loss.
        (
            "shard_map_gpipe_grad",
            &[
                "all_gather {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
                "collective_permute {stages}",
            ],
        ),
        // Dots naming algorithms partition as dots: the gradient with respect to the
        // replicated weight sums the rows' contributions over data.
        ("jax_dot_algorithm_presets_fwd", &["all_reduce {data}"]),
        // Ring attention's 16 ppermutes, then the weighted sum of the rows each device holds.
        (
            "shard_map_ring_attention_loss",
            &[
                "all_reduce {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
                "collective_permute {data}",
            ],
        ),
        // Manual over model only: the rows gathered over data first, as the forward fixture.
        (
            "shard_map_partial_manual_loss",
            &["all_gather {data}", "all_reduce {model}"],
        ),
        // transformers' greedy generate: the decoding loop runs on each device's rows,
        // its KV cache split by batch; its condition (are all sequences done?) reduces
        // the rows' flags, one all-reduce per token. The loop stops at 12 tokens or
        // sooner: costed for its 7 trips at most, where 100 (unknown trips) made running
        // it whole on every device, the prompt's keys and values gathered, look cheaper.
        ("hf_gpt2_greedy_generate", &["all_reduce {data}"]),
        // A composite read as a call of its decomposition: elementwise on the rows.
        ("lax_composite_fwd", &[]),
        // SAM (its default mode: one gradient a step, an ascent or a descent step as its
        // counter says): the gradient summed over data once.
        ("optax_sam_step", &["all_reduce {data}"]),
        // MoMo: the gradient, the loss and the loss's gradient norm term summed over data.
        ("optax_momo_step", &["all_reduce {data}"; 3]),
        // A sort along the dimension split on data: its three operands gathered, sorted
        // whole, each device keeping its block.
        (
            "lax_sort_two_keys_fwd",
            &[
                "all_gather {data}",
                "all_gather {data}",
                "all_gather {data}",
            ],
        ),
        // An LSTM classifier's SGD step, tiny (6 KB of inputs): at the default model's
        // 100 TFLOP/s the sequence is gathered once and both scans run whole, where
        // running them on pieces costs a sum per weight after the backward scan (the
        // cpu backend's model chooses that: one bucketed all-reduce, `shardc compile`).
        (
            "flax_lstm_rnn_step",
            &[
                "all_gather {data}",
                "all_reduce {data}",
                "all_gather {data}",
            ],
        ),
        // Both directions' scans run on each device's rows: nothing to send.
        ("flax_bigru_fwd", &[]),
        // Scans along the unsplit dimension, each device on its rows.
        ("lax_associative_scan_fwd", &[]),
        // The factorisation of the replicated matrix on every device, the solves on each
        // device's columns.
        ("jnp_cholesky_solve_fwd", &[]),
        // Sorts and bit counts along the unsplit dimension, each device on its rows.
        ("jnp_quantile_bits_fwd", &[]),
        // T5's greedy generate: the encoder on each device's prompts, its output (3.5 KB)
        // gathered once and the decoding loop run whole on every device, where running
        // it on pieces costs an all-reduce of the done flags at each of its 7 trips
        // (XLA's plan: 1 all-reduce in the loop).
        ("hf_t5_greedy_generate", &["all_gather {data}"]),
        // Probed as a new user would (2026-12-06). The batch stays split (data
        // parallel): the locally connected kernel's gradient all-reduced with the others.
        // Gathering the batch for ConvLocal's patches (XLA's plan, and shardc's before the
        // plan was weighed as a whole program) measured 1.15 ms a step against 0.70.
        ("flax_convlocal_circular_grad", &["all_reduce {data}"; 4]),
        ("optax_bce_smooth_ema_step", &["all_reduce {data,model}"; 5]),
        // shard_map's own collectives, as written: psum_scatter, all_gather, pmax.
        (
            "shard_map_zero_by_hand_fwd",
            &[
                "reduce_scatter {data}",
                "all_gather {data}",
                "all_reduce {data}",
            ],
        ),
        // The batch-split operand gathered for the replicated concatenation, its sum
        // all-reduced; the zero-sized one is nowhere.
        (
            "jnp_zero_size_fwd",
            &["all_gather {data}", "all_reduce {data}"],
        ),
        ("lax_scan_length0_fwd", &[]),
        // jnp.pad's modes pad the split axis 0 by (0, 0) through slices of its first and
        // last rows broadcast to no rows: pruned, nothing moves, as in XLA (before, the
        // rows were gathered for them: 168 B/device).
        ("jnp_pad_modes_fwd", &[]),
        ("jnp_uint8_image_fwd", &[]),
        ("jax_random_permutation_fwd", &[]),
        // An argument returned both split and replicated: gathered once.
        ("jnp_passthrough_fwd", &["all_gather {data}"]),
        ("mesh_reversed_axes_fwd", &["all_gather {model}"]),
        // The axis of size 1 trimmed from every sharding: nothing moves (before, the
        // batch was gathered over ("x", "data") and sliced over "data").
        ("mesh_axis_size_one_fwd", &[]),
        (
            "jnp_mixed_outputs_fwd",
            &[
                "all_gather {model}",
                "all_reduce {data,model}",
                "all_reduce {model}",
            ],
        ),
        // Probed as a new user would (2026-12-07). Ulysses attention by hand: the four
        // all_to_alls as written, as XLA.
        ("shard_map_ulysses_attention_fwd", &["all_to_all {data}"; 4]),
        ("hf_vision_encoder_decoder_fwd", &[]),
        // Four gradients and the loss summed over data (one bucket when run).
        ("optax_multi_transform_step", &["all_reduce {data}"; 5]),
        ("optax_lookahead_adopt_step", &["all_reduce {data}"; 5]),
        // The 3-trip scan runs whole on every device: its weights and batch gathered once
        // before it, the carry sliced back to its rows after (XLA: 2 all-gathers and 2
        // all-reduces).
        (
            "lax_scan_constraint_fwd",
            &["all_gather {model}", "all_gather {data}"],
        ),
        ("shard_map_pmean_two_axes_fwd", &["all_reduce {data,model}"]),
        ("lax_reduce_precision_lse_fwd", &[]),
        // Complex values as pairs (`ir/src/text/complex.rs`): rows over data transformed
        // along the other dimensions need nothing; the FNO step all-reduces the loss and
        // its three gradients (the mode weights' real and imaginary parts, the linear
        // layer; XLA: 2 all-reduces, 3 all-gathers); the fft2 over both dimensions of
        // the row-sharded input, and the replicated results, gather (XLA: 10 all-gathers);
        // the scan, cumsum and indexing gather the complex input once (XLA: 10
        // collectives); rotary embeddings keep batch and heads where they are.
        ("jnp_fft_fwd", &[]),
        ("jnp_fft_spectral_step", &["all_reduce {data}"; 4]),
        ("jnp_complex_ops_fwd", &["all_gather {data}"; 8]),
        ("jnp_complex_scan_index_fwd", &["all_gather {data}"]),
        ("rotary_complex_fwd", &[]),
        // Elementwise but for vdot, whose row sums are summed over data (XLA: the same).
        ("jnp_complex_functions_fwd", &["all_reduce {data}"]),
        // Products, a multiplying scatter and Welch's estimate, each within a row: none
        // (XLA: 3 all-gathers).
        ("jnp_complex_reductions_fwd", &[]),
        // Both loops run on each device's rows of the batch, the stacked rows written in
        // place: none (XLA: none).
        ("lax_scan_stacked_rows_fwd", &[]),
        // Solvers on replicated operands: every device runs them whole, none (XLA: none).
        ("jax_scipy_iterative_solvers_fwd", &[]),
        // Beyond Flax (2026-12-08): equinox, haiku and diffrax programs. Batch-split
        // equinox and haiku forwards whose weights are replicated: none (XLA: none).
        ("eqx_attention_conv_fwd", &[]),
        ("haiku_deep_rnn_fwd", &[]),
        // An equinox MLP Adam step, the hidden layers' rows over model: the batch's rows
        // gathered over model where the column-split layer needs them whole (and its
        // output's gradient reduce-scattered), the row-split layer's partial sums
        // all-reduced over model, the loss and the replicated leaves' gradients over data
        // (XLA: 3 all-reduces, 5 all-gathers).
        (
            "eqx_mlp_adam_tp_step",
            &[
                "all_gather {model}",
                "all_reduce {model}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "reduce_scatter {model}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_reduce {data}",
                "all_gather {model}",
                "all_gather {model}",
                "all_gather {model}",
            ],
        ),
        // Adaptive step control reads an error norm over every state: the 16 x 4 initial
        // state (256 B) gathered once and the solve run whole on each device, where XLA
        // all-reduces the norm at every step (5 all-reduces in the loop); the neural ODE's
        // gradient likewise gathers its states.
        ("diffrax_tsit5_adaptive_fwd", &["all_gather {data}"]),
        ("diffrax_neural_ode_grad", &["all_gather {data}"; 3]),
        // ormqr batched over data runs on each device's matrices; the optimistix solves
        // run whole on replicated operands, or gather the 16 unknowns (a 64 B vector) once for
        // the Newton step's dense Jacobian solve.
        ("lax_ormqr_fwd", &[]),
        ("optx_levenberg_marquardt_fwd", &[]),
        ("optx_newton_root_fwd", &["all_gather {data}"]),
        // flax.training: a TrainState step sums the loss and its MLP's 4 gradients over
        // data (the clipping norm then computed on every device); the f16 DynamicScale
        // step the loss and its one gradient.
        (
            "flax_train_state_clip_adamw_step",
            &["all_reduce {data}"; 5],
        ),
        ("flax_dynamic_scale_f16_step", &["all_reduce {data}"; 2]),
        // Replicated linear algebra: none. NNX's Megatron split: the row-parallel
        // layer's partial sums all-reduced over model.
        ("jnp_linalg_norms_lstsq_fwd", &[]),
        ("nnx_with_partitioning_fwd", &["all_reduce {model}"]),
        // shard_alike's group is a hint left out: the product computed on each device's
        // rows and gathered for the replicated result. An unreduced
        // einsum's partial sum held through its constraint, then summed over data.
        ("jax_shard_alike_fwd", &["all_gather {data}"]),
        ("jax_unreduced_einsum_fwd", &["all_reduce {data}"]),
        // The loss and the gradient summed over data; the debug print left out.
        ("jax_debug_print_step", &["all_reduce {data}"; 2]),
    ];
    // Programs with too many collectives to list one by one: how many of each kind.
    let counted: &[(&str, &[(&str, usize)])] = &[
        // A haiku ResNet's data-parallel step: the gradient of each of its leaves and the
        // batch norms' batch statistics (mean and mean square, forward and backward)
        // summed over data (XLA: 20 all-reduces, after combining them).
        ("haiku_resnet_bn_sgd_step", &[("all_reduce {data}", 81)]),
        // Flax BART with every 2-D weight split by columns over model (a tensor-parallel
        // layout that does not follow the layers' structure): the activations gathered
        // over model before the layers that need their whole width, partial sums
        // all-reduced, the attention's heads moved by all_to_all, the gradients of the
        // replicated weights summed over data. (Weighed as a whole program, not value by
        // value: `shardc bench plans` measured this plan's bucketed form at 16.6 ms a step
        // against 28.0 for the one extraction alone chooses.)
        (
            "hf_bart_adamw_tp_step",
            &[
                ("all_gather {data,model}", 4),
                ("all_gather {model}", 44),
                ("all_reduce {data,model}", 33),
                ("all_reduce {data}", 17),
                ("all_to_all {model}", 14),
                ("reduce_scatter {model}", 10),
            ],
        ),
        // Gemma's gradient with Megatron-style weights over model, the batch over data:
        // the weights gathered where a layer needs them whole, the gradients of the
        // replicated ones summed over data x model.
        (
            "hf_gemma_tp_grad",
            &[
                ("all_gather {model}", 7),
                ("all_reduce {data,model}", 10),
                ("all_reduce {data}", 2),
                ("all_to_all {model}", 3),
                ("reduce_scatter {model}", 2),
            ],
        ),
        // BLOOM's gradient under FSDP, as a textbook FSDP step runs: each parameter
        // gathered, each gradient reduce-scattered, the loss all-reduced. (Extracted one
        // value at a time, the plan moved the sequence onto data and back with 8
        // all_to_alls: twice the bytes.)
        (
            "hf_bloom_fsdp_grad",
            &[
                ("all_gather {data}", 18),
                ("reduce_scatter {data}", 17),
                ("all_reduce {data}", 1),
            ],
        ),
        // transformers' beam search over batch-split prompts: the beams' KV caches, scores
        // and token ids gathered where a flat index picks the kept beams from any row (XLA
        // gathers there too: 24 all-gathers), the done flags reduced.
        (
            "hf_gpt2_beam_generate",
            &[("all_gather {data}", 17), ("all_reduce {data}", 3)],
        ),
        // Top-k sampling: the KV caches written at each new position, the top-k filter's
        // scatter operands and the token ids gathered (XLA: 6 all-gathers); the sampling's
        // random bits drawn whole on every device.
        ("hf_gpt2_topk_sample_generate", &[("all_gather {data}", 7)]),
        // AdamW with bf16 moments over parameters split on data (FSDP), the batch over
        // data x model: the batch gathered for the first layer, whose kernel stays split
        // (its partial products reduce-scattered, moved back to the batch by an
        // all-to-all); the second kernel gathered for the forward and again for the
        // backward; the first kernel's gradient all-reduced whole (14 KB, the largest);
        // the gradient norm and the loss all-reduced.
        (
            "optax_adamw_bf16_mu_fsdp_step",
            &[
                ("all_gather {data}", 3),
                ("all_gather {data,model}", 2),
                ("reduce_scatter {data}", 1),
                ("all_to_all {data}", 1),
                ("all_reduce {data,model}", 2),
                ("all_reduce {data}", 1),
            ],
        ),
    ];
    // Every fixture whose collectives are not the ones expected, reported together.
    let mut wrong = Vec::new();
    for fx in jax_fixtures().unwrap() {
        let c = compile(&fx.module, &Options::default()).unwrap();
        let e = c.explain();
        let got: Vec<String> = e
            .collectives
            .iter()
            .map(|c| format!("{} {{{}}}", c.kind, c.axes.join(",")))
            .collect();
        if let Some((_, counts)) = counted.iter().find(|(n, _)| *n == fx.name) {
            let mut tally: std::collections::BTreeMap<&str, usize> = Default::default();
            for g in &got {
                *tally.entry(g.as_str()).or_default() += 1;
            }
            let want: std::collections::BTreeMap<&str, usize> = counts.iter().copied().collect();
            if tally != want {
                wrong.push(format!("{}: got {tally:?}, want {want:?}\n{e}", fx.name));
            }
            insta::assert_snapshot!(format!("jax_{}", fx.name), e.summary());
            continue;
        }
        let expected = want
            .iter()
            .find(|(n, _)| *n == fx.name)
            .map(|(_, w)| w.to_vec())
            .unwrap_or_default();
        if got != expected {
            wrong.push(format!("{}: got {got:?}, want {expected:?}\n{e}", fx.name));
        }
        insta::assert_snapshot!(format!("jax_{}", fx.name), e.summary());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// A program exported with debug information (`lowered.as_text(debug_info=True)`) names
/// its arguments by their pytree paths in locations; explain shows them beside the values,
/// as it shows the results' `jax.result_info`.
#[test]
fn explain_names_values_as_the_program_does() {
    let fx = jax_fixtures()
        .unwrap()
        .into_iter()
        .find(|f| f.name == "flax_mlp_debug_info_step")
        .expect("the fixture");
    let c = compile(&fx.module, &Options::default()).unwrap();
    let e = c.explain();
    let named = |v: &str| {
        e.values
            .iter()
            .find(|x| x.name == v)
            .and_then(|x| x.user_name.clone())
    };
    assert_eq!(
        named("%arg1").as_deref(),
        Some("params['params']['Dense_0']['kernel']")
    );
    assert_eq!(named("%arg4").as_deref(), Some("x"));
    let summary = e.summary();
    assert!(
        summary.contains("(params['params']['Dense_1']['kernel'])"),
        "{summary}"
    );
    assert!(summary.contains("(result[0])"), "{summary}");
    assert!(e.to_string().contains("argument 5 (y) as"), "{e}");
    // Intermediate values by the op's path in JAX's trace (its location), without the
    // outer `jit(step)/`: the first layer's matmul, and its gradient's.
    assert_eq!(named("%0").as_deref(), Some("jvp(Mlp)/Dense_0/dot_general"));
    assert!(
        summary.contains("(transpose(jvp(Mlp))/Dense_0/dot_general)"),
        "{summary}"
    );
}

mod random_programs {
    use super::*;
    use proptest::prelude::*;
    use shardc::ir::testing::arb_program_f32;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

        /// Random DAGs of elementwise ops, dot_general, reduce, transpose, reshape and
        /// broadcast, with random valid annotations on random 1-D and 2-D meshes: the
        /// partitioned program on the simulated mesh equals the reference.
        #[test]
        fn partitioned_equals_reference(p in arb_program_f32()) {
            let m = &p.module;
            let c = compile(m, &Options::default()).map_err(|e| TestCaseError::fail(format!("{e}\n{}", shardc::ir::text::print_module(m))))?;
            let want = reference::run(m, "main", &p.inputs).unwrap();
            let got = run_simulated(&c, &p.inputs);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let excess = excess_error(g, w, 1e-4, 1e-4).unwrap();
                prop_assert!(excess <= 0.0, "result {k} off by {excess:e}\n{}\n{}", shardc::ir::text::print_module(m), c.as_text(shardc::compiler::Stage::Partitioned));
            }
        }
    }
}

/// Random programs run inside loops: a random program's body becomes the body of a
/// `fori_loop` of 1 to 3 iterations that carries the arguments unchanged and sums each
/// result into an accumulator started from zeros (the shape of a gradient-accumulation
/// loop), its annotations kept on the arguments and the accumulators.
mod loop_programs {
    use super::*;
    use proptest::prelude::*;
    use shardc::ir::testing::{Program, arb_program_f32};
    use shardc::ir::{
        BinaryOp, ComparisonDirection, DType, FunctionBuilder, Literal, Module, OpKind, Scalar,
        TensorType, ValueId,
    };
    use std::collections::HashMap;

    /// `p`'s `main` as the body of a loop of `trips` iterations (see the module's doc).
    fn looped(p: &Program, trips: i64) -> Module {
        let f = p.module.entry().unwrap();
        let counter = TensorType::new(DType::I32, []);
        let mut b = FunctionBuilder::new("main", &f.arg_types());
        let zero = b.constant(Literal::scalar(DType::I32, Scalar::Int(0)));
        let mut init = vec![zero];
        init.extend(b.args());
        for &r in f.results() {
            let ty = f.ty(r).clone();
            let z = b.constant(Literal::scalar(ty.dtype, Scalar::Float(0.0)));
            init.push(
                b.push1_typed(OpKind::BroadcastInDim { dims: vec![] }, &[z], ty)
                    .unwrap(),
            );
        }
        let types: Vec<TensorType> = init.iter().map(|&v| b.ty(v).clone()).collect();
        let args = b.begin_block(&types);
        let limit = b.constant(Literal::scalar(DType::I32, Scalar::Int(trips)));
        let go = b
            .push1(
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    compare_type: None,
                },
                &[args[0], limit],
            )
            .unwrap();
        let cond = b.end_block(&[go]);
        let args = b.begin_block(&types);
        let n = f.args().len();
        let mut map: HashMap<ValueId, ValueId> = f
            .args()
            .iter()
            .copied()
            .zip(args[1..=n].iter().copied())
            .collect();
        for (_, op) in f.body_ops() {
            b.copy_op(f, op, &mut map).unwrap();
        }
        let one = b.constant(Literal::scalar(DType::I32, Scalar::Int(1)));
        let mut next = vec![b.binary(BinaryOp::Add, args[0], one).unwrap()];
        next.extend(args[1..=n].iter().copied());
        for (k, &r) in f.results().iter().enumerate() {
            next.push(b.binary(BinaryOp::Add, args[1 + n + k], map[&r]).unwrap());
        }
        let body = b.end_block(&next);
        let w = b
            .push_region_op(OpKind::While, &init, Some(&types), vec![cond, body])
            .unwrap();
        let outs: Vec<ValueId> = b.func().op(w).results[1 + n..].to_vec();
        let mut g = b.finish(&outs);
        g.arg_attrs = f.arg_attrs.clone();
        g.result_attrs = f.result_attrs.clone();
        assert_eq!(counter.rank(), 0);
        Module {
            functions: vec![g],
            ..p.module.clone()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// The loop partitioned on the pieces of its carried values (or run whole, as the
        /// cost model chooses) equals the reference on the simulated mesh, and explain
        /// states every collective the per-device program runs, loop bodies included.
        #[test]
        fn looped_programs_equal_reference(p in arb_program_f32(), trips in 1i64..4) {
            let m = looped(&p, trips);
            let c = compile(&m, &Options::default()).map_err(|e| TestCaseError::fail(format!("{e}\n{}", shardc::ir::text::print_module(&m))))?;
            let want = reference::run(&m, "main", &p.inputs).unwrap();
            let got = run_simulated(&c, &p.inputs);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let excess = excess_error(g, w, 1e-4, 1e-4).unwrap();
                prop_assert!(excess <= 0.0, "result {k} off by {excess:e}\n{}\n{}", shardc::ir::text::print_module(&m), c.as_text(shardc::compiler::Stage::Partitioned));
            }
            let per_device = c.partitioned.module.entry().unwrap();
            let ran = per_device.body_ops().filter(|(_, o)| o.kind.is_collective()).count();
            prop_assert_eq!(ran, c.explain().collectives.len(), "{}", c.explain());
        }
    }

    /// A data-parallel accumulation loop: the batch rows split on `data`, the weight
    /// replicated. The loop runs on each device's rows (its body has no collective), the
    /// accumulated gradient-like sum stays partial through it and is all-reduced once,
    /// after it; with loops run whole, the rows are gathered first instead.
    #[test]
    fn a_data_parallel_accumulation_loop_reduces_once_after_it() {
        let text = r#"
sdy.mesh @mesh = <["data"=4]>
func.func @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<8x8xf32>
  %r:4 = stablehlo.while(%i = %c0, %a = %x, %v = %w, %acc = %z) : tensor<i32>, tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %h = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
      %t = stablehlo.tanh %h : tensor<16x8xf32>
      %g = stablehlo.dot_general %a, %t, contracting_dims = [0] x [0] : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
      %acc2 = stablehlo.add %acc, %g : tensor<8x8xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %a, %v, %acc2 : tensor<i32>, tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
    }
  return %r#3 : tensor<8x8xf32>
}
"#;
        let m = shardc::ir::text::parse_module(text).unwrap();
        let args: Vec<Literal> = m
            .entry()
            .unwrap()
            .arg_types()
            .iter()
            .enumerate()
            .map(|(k, t)| Literal::deterministic(t, k).unwrap())
            .collect();
        let want = reference::run(&m, "main", &args).unwrap();
        let kinds = |c: &Compiled| -> Vec<String> {
            c.explain()
                .collectives
                .iter()
                .map(|c| c.kind.clone())
                .collect()
        };
        let c = compile(&m, &Options::default()).unwrap();
        let per_device = c.as_text(shardc::compiler::Stage::Partitioned);
        assert_eq!(kinds(&c), ["all_reduce"], "{}", c.explain());
        assert!(per_device.contains("stablehlo.while"), "{per_device}");
        assert!(
            per_device.contains("tensor<4x8xf32>"),
            "the loop carries 4 of 16 rows:\n{per_device}"
        );
        // The propagated program shows the loop's carried layouts: the accumulator a
        // partial sum over `data` through the loop.
        let propagated = c.as_text(shardc::compiler::Stage::Propagated);
        let w = propagated
            .lines()
            .find(|l| l.starts_with("    }) {sdy.sharding"))
            .unwrap_or_else(|| panic!("{propagated}"));
        assert!(w.contains(r#"[{}, {}], unreduced={"data"}>]>"#), "{w}");
        shardc::ir::text::parse_module(&propagated).unwrap();
        let got = run_simulated(&c, &args);
        assert!(excess_error(&got[0], &want[0], 1e-4, 1e-4).unwrap() <= 0.0);
        let whole = compile(
            &m,
            &Options {
                partition_loops: false,
                ..Options::default()
            },
        )
        .unwrap();
        assert_eq!(kinds(&whole), ["all_gather"], "{}", whole.explain());
        let got = run_simulated(&whole, &args);
        assert!(excess_error(&got[0], &want[0], 1e-4, 1e-4).unwrap() <= 0.0);
    }
}

mod padded_programs {
    use super::*;
    use proptest::prelude::*;
    use shardc::ir::testing::{arb_program_f32, arb_program_f32_uneven};

    fn padded() -> Options {
        Options {
            pad_uneven: true,
            ..Options::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

        /// Random programs with dimension sizes the mesh axes mostly do not divide, and
        /// shardings that split them anyway, compiled with padding: the partitioned program
        /// on the simulated mesh equals the reference. Inputs are padded with NaN, so any
        /// padding an op reads unmasked shows in the results.
        #[test]
        fn padded_partitioned_equals_reference(p in arb_program_f32_uneven()) {
            let m = &p.module;
            let c = compile(m, &padded()).map_err(|e| TestCaseError::fail(format!("{e}\n{}", shardc::ir::text::print_module(m))))?;
            let want = reference::run(m, "main", &p.inputs).unwrap();
            let got = run_simulated(&c, &p.inputs);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let excess = excess_error(g, w, 1e-4, 1e-4).unwrap();
                prop_assert!(excess <= 0.0, "result {k} off by {excess:e}\n{}\n{}\n{}", shardc::ir::text::print_module(m), c.as_text(shardc::compiler::Stage::Partitioned), c.explain());
            }
        }

        /// Padding changes nothing where every sharding divides: the same program, the
        /// same explanation.
        #[test]
        fn padding_leaves_even_programs_alone(p in arb_program_f32()) {
            let m = &p.module;
            let (Ok(even), Ok(pad)) = (compile(m, &Options::default()), compile(m, &padded())) else {
                return Err(TestCaseError::fail("one compiles, the other not"));
            };
            prop_assert_eq!(even.as_text(shardc::compiler::Stage::Partitioned), pad.as_text(shardc::compiler::Stage::Partitioned));
            prop_assert_eq!(even.explain().to_string(), pad.explain().to_string(), "{}", shardc::ir::text::print_module(m));
        }
    }

    /// Without padding asked for, an uneven program is refused, naming the value, the
    /// dimension and the axes, and saying how to ask for padding.
    #[test]
    fn uneven_programs_need_padding_asked_for() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/partition/padded_contracting.mlir"
        ))
        .unwrap();
        let m = shardc::ir::text::parse_module_with(&text, shardc::ir::Uneven::Pad).unwrap();
        let e = compile(&m, &Options::default()).err().unwrap().to_string();
        assert_eq!(
            e,
            "dimension 1 of argument 0 (%arg0) of @main has size 10, which \"model\" (4 shards) does not divide; make the dimension a multiple of 4, shard it over fewer axes, or ask for padding (`jit(f).pad_uneven()` when tracing, `Options { pad_uneven: true, .. }` when compiling, `--pad` on the command line): shardc never pads or truncates silently"
        );
        assert!(shardc::ir::text::parse_module(&text).is_err());
    }
}

/// From Rust: an MLP on a batch of 6 over "data" (4 devices: blocks of 2, the last all
/// padding) with its hidden layer over "model", traced with `pad_uneven`, and its
/// gradients: the weight gradients contract over the padded batch (masked), and the mean
/// loss sums over it (masked). Forward and training step match the reference on the
/// simulated mesh and on the cpu backend.
#[test]
fn padded_batch_mlp_and_its_gradients_from_rust() {
    use shardc::ir::{DType, Mesh, TensorType};
    use shardc::runtime::engine::Interpreted;
    use shardc::{P, Tensor, jit};
    let mesh = Mesh::new("mesh", &[("data", 4), ("model", 2)]).unwrap();
    let t = |s: &[usize]| TensorType::new(DType::F32, s);
    let types = [t(&[6, 8]), t(&[8, 16]), t(&[16, 8]), t(&[6, 8])];
    let f = |x: Tensor, w1: Tensor, w2: Tensor, y: Tensor| {
        let e = &x.matmul(&w1).relu().matmul(&w2) - &y;
        (&e * &e).mean(&[0, 1])
    };
    let specs = || {
        [
            P!["data", None],
            P![None, "model"],
            P!["model", None],
            P!["data", None],
        ]
    };
    // Not without asking: the error names the batch dimension and the fix.
    let refused = jit(f)
        .mesh(&mesh)
        .in_shardings(specs())
        .lower(&types)
        .err()
        .unwrap()
        .to_string();
    assert!(refused.contains("dimension 0 of argument 0"), "{refused}");
    assert!(refused.contains("--pad"), "{refused}");
    let lowered = jit(f)
        .mesh(&mesh)
        .in_shardings(specs())
        .pad_uneven()
        .lower(&types)
        .unwrap();
    let step = lowered.value_and_grad(&[1, 2]).unwrap();
    let args = det_inputs(lowered.module());
    for program in [&lowered, &step] {
        let c = program.compile(&Options::default()).unwrap();
        let summary = c.explain().summary();
        assert!(summary.contains("f32[6@data(pad 2),8]"), "{summary}");
        // The batch stays split: the reductions over it are masked, not gathered.
        let text = c.as_text(shardc::compiler::Stage::Partitioned);
        assert!(text.contains("shardc.axis_index"), "{text}");
        assert!(!text.contains("all_gather"), "{summary}");
        let want = program.run_reference(&args).unwrap();
        let simulated = run_simulated(&c, &args);
        let cpu = shardc::run_cpu(&c, &args, &Interpreted, 0.0).unwrap();
        for (k, w) in want.iter().enumerate() {
            for got in [&simulated[k], &cpu.outputs[k]] {
                let excess = excess_error(got, w, 1e-5, 1e-5).unwrap();
                assert!(excess <= 0.0, "result {k} off by {excess:e}\n{summary}");
            }
        }
    }
}

/// A sharding constraint on a dimension split down to fewer elements per device than its
/// axis has devices (8 columns over "model" = 4 leave 2). The constraint has done its work
/// once the layouts are chosen; the per-device program must not restate the global
/// sharding on the 8x2 piece, where 2 does not split over 4 and the partitioned program
/// would not verify ("this is a bug in shardc's partitioner"). Nothing moves.
#[test]
fn sharding_constraint_on_a_small_split_dimension() {
    let text = r#"
module @constraint_on_small_split {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%x: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) {
    %y = stablehlo.negate %x : tensor<8x8xf32>
    %c = sdy.sharding_constraint %y <@mesh, [{}, {"model"}]> : tensor<8x8xf32>
    return %c : tensor<8x8xf32>
  }
}"#;
    let m = shardc::ir::text::parse_module(text).unwrap();
    let c = check_against_reference(&m, &det_inputs(&m), 1e-5, 1e-5);
    let e = c.explain();
    assert!(e.collectives.is_empty(), "{e}");
    let partitioned = c.as_text(shardc::compiler::Stage::Partitioned);
    assert!(
        !partitioned.contains("sdy.sharding_constraint"),
        "{partitioned}"
    );
}

/// DDP bucketing on JAX's data-parallel training step: its three all-reduces (the loss,
/// 4 B, and two 2048 B gradients) fuse into one 25 MB bucket; with a 2100 B limit the loss
/// and the first gradient share a bucket and the second gradient goes alone. Either way
/// the results still match JAX's.
#[test]
fn ddp_buckets_fuse_all_reduces() {
    let fx = jax_fixtures()
        .unwrap()
        .into_iter()
        .find(|f| f.name == "mlp_dp_train_step")
        .unwrap();
    let count = |c: &Compiled| {
        c.partitioned
            .module
            .entry()
            .unwrap()
            .ops
            .iter()
            .filter(|o| matches!(o.kind, shardc::ir::OpKind::AllReduce { .. }))
            .count()
    };
    let plain = compile(&fx.module, &Options::default()).unwrap();
    assert_eq!(count(&plain), 3);
    for (limit, all_reduces, buckets) in [
        (25 << 20, 1, vec![4 + 2048 + 2048]),
        (2100, 2, vec![4 + 2048]),
    ] {
        let opts = Options {
            bucket_bytes: Some(limit),
            ..Options::default()
        };
        let c = compile(&fx.module, &opts).unwrap();
        assert_eq!(
            count(&c),
            all_reduces,
            "limit {limit}\n{}",
            c.as_text(shardc::compiler::Stage::Partitioned)
        );
        assert_eq!(
            c.buckets.iter().map(|b| b.bytes).collect::<Vec<_>>(),
            buckets
        );
        let got = run_simulated(&c, &fx.inputs);
        for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
            assert!(
                excess_error(g, w, fx.abs, fx.rel).unwrap() <= 0.0,
                "result {k} with limit {limit}"
            );
        }
    }
}

/// SyncBatchNorm semantics: with the batch split over "data", batch-norm statistics are
/// still those of the whole batch (propagation reduces them across devices), so the
/// partitioned program equals the single-device reference; normalising each device's
/// shard with its own statistics (what plain per-GPU BatchNorm does) gives other numbers.
#[test]
fn batch_norm_statistics_are_global_when_the_batch_is_split() {
    use shardc::ir::{DType, Mesh, TensorType};
    use shardc::{P, Tensor, jit};
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
    let l = jit(|x: Tensor, g: Tensor, b: Tensor| x.batch_norm(&g, &b, 1e-5))
        .mesh(&mesh)
        .in_shardings([P!["data", None], P![], P![]])
        .out_shardings([P!["data", None]])
        .lower(&[f32(&[8, 3]), f32(&[3]), f32(&[3])])
        .unwrap();
    let m = l.module().clone();
    // Shards with very different statistics: rows 2i, 2i+1 around 10*i.
    let x: Vec<f64> = (0..24)
        .map(|i| (i / 6) as f64 * 10.0 + (i % 6) as f64 * 0.25)
        .collect();
    let args = vec![
        Literal::from_f64(DType::F32, &[8, 3], &x).unwrap(),
        Literal::from_f64(DType::F32, &[3], &[1.0, 2.0, 0.5]).unwrap(),
        Literal::from_f64(DType::F32, &[3], &[0.0, 0.1, -0.1]).unwrap(),
    ];
    let c = check_against_reference(&m, &args, 1e-5, 1e-5);
    // The statistics cross devices: a reduction over "data".
    let e = c.explain();
    assert!(
        e.collectives
            .iter()
            .any(|c| c.kind == "all_reduce" && c.axes == ["data"]),
        "{e}"
    );
    // Per-shard statistics would give something else.
    let global = reference::run(&m, "main", &args).unwrap()[0].to_f64_vec();
    let mut per_shard = Vec::new();
    for shard in 0..4 {
        let rows = &x[shard * 6..(shard + 1) * 6];
        for r in 0..2 {
            for c in 0..3 {
                let col: Vec<f64> = (0..2).map(|k| rows[k * 3 + c]).collect();
                let mu = col.iter().sum::<f64>() / 2.0;
                let var = col.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / 2.0;
                let g = [1.0, 2.0, 0.5][c];
                let b = [0.0, 0.1, -0.1][c];
                per_shard.push((rows[r * 3 + c] - mu) / (var + 1e-5).sqrt() * g + b);
            }
        }
    }
    let gap = global
        .iter()
        .zip(&per_shard)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        gap > 0.5,
        "per-shard statistics should differ from the global ones, gap {gap}"
    );
}

/// Dropout from the counter-based random op: the same global mask however the input is
/// split, bit for bit.
#[test]
fn dropout_masks_are_the_same_on_every_mesh() {
    use shardc::ir::{DType, Mesh, TensorType};
    use shardc::{P, Tensor, jit};
    let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
    let x: Vec<f64> = (0..64).map(|i| 1.0 + i as f64 / 64.0).collect();
    let args = [
        Literal::from_f64(DType::F32, &[8, 8], &x).unwrap(),
        Literal::from_f64(DType::I64, &[], &[1234.0]).unwrap(),
    ];
    let mut masks = Vec::new();
    for (axes, spec) in [
        (vec![("data", 2), ("model", 4)], P!["data", "model"]),
        (vec![("data", 2), ("model", 4)], P!["model", "data"]),
        (vec![("data", 8)], P![None, "data"]),
        (vec![("data", 1)], P![]),
    ] {
        let mesh = Mesh::new("mesh", &axes).unwrap();
        let l = jit(|x: Tensor, seed: Tensor| x.dropout(&seed, 0.5))
            .mesh(&mesh)
            .in_shardings([spec.clone(), P![]])
            .out_shardings([spec])
            .lower(&[f32(&[8, 8]), TensorType::new(DType::I64, [])])
            .unwrap();
        let c = compile(l.module(), &Options::default()).unwrap();
        let mut got = run_simulated(&c, &args);
        let want = reference::run(l.module(), "main", &args).unwrap();
        assert_eq!(got[0], want[0], "mesh {axes:?}: not bit for bit");
        masks.push(got.remove(0));
    }
    assert!(masks.windows(2).all(|w| w[0] == w[1]));
    let kept = masks[0].to_f64_vec().iter().filter(|v| **v != 0.0).count();
    assert!((20..=44).contains(&kept), "{kept} of 64 kept at rate 0.5");
}

/// An unannotated argument arrives in one layout: if consumers want it in two, one is
/// resharded from the other and that collective is paid for and explained (found by the
/// cpu backend's byte counts: a free second layout slipped an uncounted all-to-all in).
#[test]
fn an_argument_arrives_in_one_layout() {
    let text = r#"
module @two_layouts {
  sdy.mesh @mesh = <["model"=2]>
  func.func @main(%x: tensor<8x8x4xf32>) -> (tensor<8x8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>}, tensor<8x8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}) {
    %a = stablehlo.sine %x : tensor<8x8x4xf32>
    %b = stablehlo.cosine %x : tensor<8x8x4xf32>
    return %a, %b : tensor<8x8x4xf32>, tensor<8x8x4xf32>
  }
}"#;
    let m = shardc::ir::text::parse_module(text).unwrap();
    let c = check_against_reference(&m, &det_inputs(&m), 1e-6, 1e-6);
    let per_device = c
        .partitioned
        .module
        .entry()
        .unwrap()
        .ops
        .iter()
        .filter(|o| o.kind.is_collective())
        .count();
    let e = c.explain();
    assert_eq!(
        per_device,
        e.collectives.len(),
        "{e}\n{}",
        c.as_text(shardc::compiler::Stage::Partitioned)
    );
    assert_eq!(e.collectives.len(), 1, "{e}");
}

/// Reordering a dimension's axes around an axis of size 1 moves no data: no collective is
/// emitted or charged (found by the cpu backend measuring 0 B where explain said 16).
#[test]
fn reordering_around_a_size_one_axis_is_free() {
    let text = r#"
module @size_one {
  sdy.mesh @mesh = <["x"=1, "model"=2]>
  func.func @main(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "model"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model", "x"}]>}) {
    %b = stablehlo.negate %a : tensor<8xf32>
    return %b : tensor<8xf32>
  }
}"#;
    let m = shardc::ir::text::parse_module(text).unwrap();
    let c = check_against_reference(&m, &det_inputs(&m), 0.0, 0.0);
    assert!(c.explain().collectives.is_empty(), "{}", c.explain());
    assert!(
        !c.as_text(shardc::compiler::Stage::Partitioned)
            .contains("collective_permute")
    );
}

/// A loop of 20 (or an input's number of) tensor-parallel layers: the carried activations
/// split by columns over `model`, the weight by rows, so each iteration's product is a
/// partial sum reduce-scattered before its `tanh`. More trips than are unrolled, or trips not
/// known when compiling: on a machine whose collectives take 10 µs (the built-in cpu
/// figures' 150 µs per collective make gathering the 256 KiB weight and computing every
/// column on every device the faster plan at this size), the loop runs on pieces as a
/// loop of the per-device program whose body communicates, every device going round
/// together. It matches the reference on the simulated mesh and on the cpu backend,
/// whose run sends what `explain` states: one reduce-scatter per iteration.
#[test]
fn a_loop_whose_body_reduces_runs_on_pieces_for_any_number_of_trips() {
    for (bound, trips) in [
        ("%n = stablehlo.constant dense<20> : tensor<i32>", 20),
        (
            "%n = stablehlo.reshape %k : (tensor<1xi32>) -> tensor<i32>",
            23,
        ),
    ] {
        let text = format!(
            r#"
sdy.mesh @mesh = <["model"=4]>
func.func @main(%x: tensor<64x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{"model"}}]>}}, %w: tensor<256x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"model"}}, {{}}]>}}, %k: tensor<1xi32>) -> (tensor<64x256xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{"model"}}]>}}) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<64x256xf32>
    cond {{
      {bound}
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
      %t = stablehlo.tanh %p : tensor<64x256xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %t : tensor<i32>, tensor<64x256xf32>
    }}
  return %r#1 : tensor<64x256xf32>
}}
"#
        );
        let m = shardc::ir::text::parse_module(&text).unwrap();
        let mut args: Vec<Literal> = m.entry().unwrap().arg_types()[..2]
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let l = Literal::deterministic(t, k).unwrap();
                Literal::from_f64(
                    t.dtype,
                    &t.shape,
                    &l.to_f64_vec().iter().map(|v| v / 16.0).collect::<Vec<_>>(),
                )
                .unwrap()
            })
            .collect();
        args.push(Literal::from_f64(shardc::ir::DType::I32, &[1], &[trips as f64]).unwrap());
        let fast_links = Options {
            cost: shardc::compiler::CostModel {
                latency: 10e-6,
                ..shardc::compiler::CostModel::cpu(2)
            },
            ..Options::default()
        };
        let c = check_against_reference_with(&m, &fast_links, &args, 1e-4, 1e-4);
        let e = c.explain();
        assert_eq!(e.loops.len(), 1);
        assert!(
            e.loops[0]
                .how
                .starts_with("on pieces, a loop every device runs together"),
            "{}",
            e.loops[0].how
        );
        let per_device = c.partitioned.module.entry().unwrap();
        assert!(
            shardc::ir::unroll::has_communicating_loops(per_device),
            "{}",
            c.as_text(shardc::compiler::Stage::Partitioned)
        );
        let stated: Vec<&str> = e.collectives.iter().map(|c| c.kind.as_str()).collect();
        let known = bound.contains("constant");
        assert_eq!(
            stated,
            vec!["reduce_scatter"; if known { trips } else { 1 }],
            "{e}"
        );
        // On the cpu backend: the same numbers, each trip reduce-scattering the 64 KiB
        // partial product (a ring sends 3/4 of it from each device).
        let cpu = shardc::CpuProgram::new(&c, &shardc::runtime::engine::Interpreted).unwrap();
        let run = cpu.run(&c, &args, 1e-4).unwrap();
        let want = reference::run(&m, "main", &args).unwrap();
        assert!(excess_error(&run.outputs[0], &want[0], 1e-4, 1e-4).unwrap() <= 0.0);
        let sent: u64 = run.report.stats.ops.iter().map(|o| o.bytes_sent[0]).sum();
        assert_eq!(sent, trips as u64 * 3 * (64 * 256 * 4) / 4, "{trips} trips");
    }
}

/// A convergence loop on split values: the rows of `x` split over `model`, halved until
/// their largest magnitude falls below a tolerance. The condition reads the split value:
/// its plan reduces each device's maximum and all-reduces it (every device then decides
/// the same), so the loop runs on pieces, the condition and the body's steps run again
/// on every device; rather than `x` gathered and halved whole on every device (on a
/// machine whose collectives take 10 µs). The same numbers as the reference on the
/// simulated mesh and the cpu backend, which runs one all-reduce per test (trips + 1).
#[test]
fn a_convergence_loop_on_split_values_tests_them_with_an_all_reduce() {
    let text = r#"
sdy.mesh @mesh = <["model"=4]>
func.func @main(%x: tensor<64x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<64x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<64x1024xf32>
    cond {
      %a = stablehlo.abs %h : tensor<64x1024xf32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = stablehlo.reduce(%a init: %ninf) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<f32>
      %tol = stablehlo.constant dense<1.000000e-03> : tensor<f32>
      %go = stablehlo.compare GT, %m, %tol, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %half = stablehlo.constant dense<5.000000e-01> : tensor<64x1024xf32>
      %h2 = stablehlo.multiply %h, %half : tensor<64x1024xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2 : tensor<i32>, tensor<64x1024xf32>
    }
  return %r#1, %r#0 : tensor<64x1024xf32>, tensor<i32>
}
"#;
    let m = shardc::ir::text::parse_module(text).unwrap();
    let args: Vec<Literal> = m
        .entry()
        .unwrap()
        .arg_types()
        .iter()
        .enumerate()
        .map(|(k, t)| Literal::deterministic(t, k).unwrap())
        .collect();
    let fast_links = Options {
        cost: shardc::compiler::CostModel {
            latency: 10e-6,
            ..shardc::compiler::CostModel::cpu(2)
        },
        ..Options::default()
    };
    let c = check_against_reference_with(&m, &fast_links, &args, 0.0, 0.0);
    let e = c.explain();
    assert!(
        e.loops[0]
            .how
            .starts_with("on pieces, a loop every device runs together"),
        "{}",
        e.loops[0].how
    );
    assert!(
        e.collectives
            .iter()
            .all(|c| c.kind == "all_reduce" && c.trips_unknown),
        "{e}"
    );
    let want = reference::run(&m, "main", &args).unwrap();
    let trips = want[1].to_f64_vec()[0] as usize;
    assert!(trips > 3, "{trips} trips");
    let cpu = shardc::CpuProgram::new(&c, &shardc::runtime::engine::Interpreted).unwrap();
    let run = cpu.run(&c, &args, 0.0).unwrap();
    assert_eq!(run.outputs, want);
    let all_reduces: Vec<usize> = run
        .report
        .stats
        .ops
        .iter()
        .filter(|o| o.kind == "all_reduce")
        .map(|o| o.runs)
        .collect();
    assert_eq!(all_reduces, [trips + 1], "{e}");
}

/// Slices computed on their window (`passes::narrow`): a causal mask made for the longest
/// sequence and sliced to the one run (transformers' Gemma and Llama), a transposed and
/// strided window, a `select` on a scalar predicate, a splat constant, an iota sliced
/// from elsewhere than 0 (sliced there), and a value read twice (sliced where it is) —
/// each equal to the reference on a mesh, the mask never made whole.
#[test]
fn slices_are_computed_on_their_window_and_equal_the_reference() {
    let text = r#"
sdy.mesh @mesh = <["data"=2]>
func.func @main(%x: tensor<4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}, %p: tensor<i1>) -> (tensor<4x16x16xf32>, tensor<3x5xf32>, tensor<6xi32>, tensor<4x8xf32>) {
  %i = stablehlo.iota dim = 0 : tensor<4096xi32>
  %r = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<4096xi32>) -> tensor<4096x4096xi32>
  %c = stablehlo.broadcast_in_dim %i, dims = [1] : (tensor<4096xi32>) -> tensor<4096x4096xi32>
  %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<4096x4096xi32>, tensor<4096x4096xi32>) -> tensor<4096x4096xi1>
  %m1 = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<4096x4096xi1>) -> tensor<1x4096x4096xi1>
  %ms = stablehlo.slice %m1 [0:1, 0:16, 0:16] : (tensor<1x4096x4096xi1>) -> tensor<1x16x16xi1>
  %mb = stablehlo.broadcast_in_dim %ms, dims = [0, 1, 2] : (tensor<1x16x16xi1>) -> tensor<4x16x16xi1>
  %ninf = stablehlo.constant dense<-1.0e9> : tensor<4x16x16xf32>
  %y = stablehlo.select %mb, %x, %ninf : (tensor<4x16x16xi1>, tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %f = stablehlo.iota dim = 1 : tensor<12x10xf32>
  %two = stablehlo.constant dense<2.0> : tensor<12x10xf32>
  %g = stablehlo.multiply %f, %two : tensor<12x10xf32>
  %t = stablehlo.transpose %g, dims = [1, 0] : (tensor<12x10xf32>) -> tensor<10x12xf32>
  %z = stablehlo.constant dense<0.0> : tensor<10x12xf32>
  %s = stablehlo.select %p, %t, %z : (tensor<i1>, tensor<10x12xf32>, tensor<10x12xf32>) -> tensor<10x12xf32>
  %w = stablehlo.slice %s [1:7:2, 2:12:2] : (tensor<10x12xf32>) -> tensor<3x5xf32>
  %k = stablehlo.iota dim = 0 : tensor<64xi32>
  %ks = stablehlo.slice %k [5:11] : (tensor<64xi32>) -> tensor<6xi32>
  %e = stablehlo.exponential %x : tensor<4x16x16xf32>
  %es = stablehlo.slice %e [0:4, 0:1, 0:8] : (tensor<4x16x16xf32>) -> tensor<4x1x8xf32>
  %er = stablehlo.reshape %es : (tensor<4x1x8xf32>) -> tensor<4x8xf32>
  %sum = stablehlo.add %y, %e : tensor<4x16x16xf32>
  return %sum, %w, %ks, %er : tensor<4x16x16xf32>, tensor<3x5xf32>, tensor<6xi32>, tensor<4x8xf32>
}
"#;
    let m = shardc::ir::text::parse_module(text).unwrap();
    let x = Literal::from_f64(
        shardc::ir::DType::F32,
        &[4, 16, 16],
        &(0..1024)
            .map(|i| (i as f64 * 0.37).sin())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for p in [true, false] {
        let pred = Literal::from_f64(shardc::ir::DType::I1, &[], &[p as u8 as f64]).unwrap();
        let c = check_against_reference(&m, &[x.clone(), pred], 0.0, 1e-6);
        // The mask's and the transposed window's slices narrowed, and the iota's (sliced
        // from 5, so taken whole); the exponential, read twice, sliced where it stands.
        assert_eq!(c.narrowed, 3);
        let global = shardc::ir::text::print_module(&c.global);
        assert!(!global.contains("4096x4096"), "{global}");
        assert!(global.contains("tensor<64xi32>"), "{global}");
        assert!(global.contains("stablehlo.exponential"), "{global}");
    }
}
