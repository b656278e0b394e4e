//! The main demo: a small GPT-style transformer learns the characters of a text on 8 CPU
//! devices (a 2 x 4 `data` x `model` mesh: the batch over `data`, Megatron's attention and
//! MLP weights over `model`), with AdamW — the whole training step traced, differentiated,
//! propagated, partitioned and run on the cpu backend (one thread per device, ring
//! collectives), every device's compute compiled to native code by the MLIR JIT (fusion
//! clusters, each distinct one compiled once). Every tenth step is rerun on one device
//! (the reference interpreter) from the same parameters: loss and updated parameters must
//! agree. (The free-running curves
//! of two f32 runs drift apart over many steps — Adam amplifies 1e-7 differences — so the
//! check is made step by step.)
//!
//! Run with `./scripts/demo.sh` (README's first command), or
//! `cargo run --release --example demo -- [--steps N] [--trace FILE] [--bf16]
//! [--offload-state DIR]` (`--trace` writes the last step's Chrome trace of every device's
//! compute and collectives, for ui.perfetto.dev; `--offload-state` keeps AdamW's state in
//! files under DIR).

use shardc::compiler::lower::cpu::{CpuOptions, NativeCompute};
use shardc::ir::{DType, TensorType};
use shardc::runtime::backend::RunOptions;
use shardc::{CpuProgram, Literal, Mesh, Tensor};
use shardc_train::checkpoint::Checkpoint;
use shardc_train::data::CharDataset;
use shardc_train::models::gpt_loss;
use shardc_train::progress::Progress;
use shardc_train::session::Session;
use shardc_train::step::{Optimizer, train_step};
use shardc_train::strategy::Strategy;
use std::time::Instant;

const CORPUS: &str = include_str!("data/corpus.txt");
/// The mean loss of the last steps must fall this far below the unigram entropy of the text
/// (the best a model can do without looking at the preceding characters).
const MARGIN: f64 = 0.15;
/// Every `CHECK_EVERY` steps the step is rerun on one device from the same parameters, and
/// loss and updated parameters must agree within `TOLERANCE` (f32 sums in another order).
const CHECK_EVERY: usize = 10;
const TOLERANCE: f64 = 1e-4;
/// With `--bf16` (the loss computed in bf16 on f32 master weights): the loss is a bf16
/// value, 8 bits of mantissa, so sums in another order may round it a unit or two apart:
/// two units of a loss in [4, 8) (2^-5 each).
const TOLERANCE_BF16: f64 = 6.25e-2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flag = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let steps: usize = flag("--steps")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(150);
    let trace = flag("--trace");
    // `--bf16`: mixed precision, the loss in bf16 on f32 master weights and AdamW state.
    let bf16 = std::env::args().any(|a| a == "--bf16");
    let tolerance = if bf16 { TOLERANCE_BF16 } else { TOLERANCE };
    let data = CharDataset::new(CORPUS);
    // The model `shardc bench step` times beside JAX.
    let cfg = shardc_train::presets::demo_config();
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)])?;
    println!(
        "shardc demo: a {}-layer GPT (d_model {}, {} heads, {} parameters) learning {} characters ({} symbols)",
        cfg.layers,
        cfg.block.d_model,
        cfg.block.heads,
        cfg.param_types()
            .iter()
            .map(|t| t.num_elements())
            .sum::<usize>(),
        data.tokens.len(),
        cfg.vocab
    );
    println!(
        "mesh {mesh}: {} CPU devices, one thread each; batch over data, attention heads and MLP over model; AdamW{}",
        mesh.num_devices(),
        if bf16 {
            "; the loss in bf16 on f32 master weights"
        } else {
            ""
        }
    );

    let t0 = Instant::now();
    let tokens = TensorType::new(DType::I32, [cfg.block.batch, cfg.block.seq]);
    let model = cfg;
    let f32_loss = move |p: &[Tensor], b: &[Tensor]| gpt_loss(&model, &b[0], &b[1], p);
    let bf16_loss = shardc_train::precision::mixed(f32_loss, DType::BF16);
    let loss = move |p: &[Tensor], b: &[Tensor]| {
        if bf16 {
            bf16_loss(p, b)
        } else {
            f32_loss(p, b)
        }
    };
    let optimizer = Optimizer::AdamW {
        lr: 3e-3,
        warmup: 10.0,
        total: steps as f64,
        min_ratio: 0.1,
        adam: shardc_train::optim::AdamW::default(),
    };
    let ts = train_step(
        "gpt",
        loss,
        &cfg.param_types(),
        &[tokens.clone(), tokens],
        &mesh,
        Strategy::dp_tp(cfg.param_specs()),
        optimizer,
    )?
    .with_param_names(&cfg.param_names())?;
    let traced = t0.elapsed();
    let t1 = Instant::now();
    let compiled = ts.program.compile(&ts.options())?;
    let compile_time = t1.elapsed();
    let explained = compiled.explain();
    println!(
        "traced in {:.0} ms (forward, backward, update: {} ops); compiled in {:.0} ms: {} collectives per step, {:.2} MB sent per device per step (planned)",
        traced.as_secs_f64() * 1e3,
        ts.program.module().entry().map_or(0, |f| f.ops.len()),
        compile_time.as_secs_f64() * 1e3,
        explained.collectives.len(),
        explained.bytes_per_device as f64 / 1e6
    );
    let engine = NativeCompute::new(CpuOptions::default());
    let t_jit = Instant::now();
    // `--offload-state DIR`: AdamW's moments kept in files under DIR, read just before each
    // parameter's update and written right after (ZeRO-Infinity's NVMe tier).
    let offload = flag("--offload-state");
    let program = match &offload {
        Some(dir) => CpuProgram::offloaded(&compiled, &engine, ts.offloading_state(dir))?,
        None => CpuProgram::new(&compiled, &engine)?,
    };
    let jit = engine.stats();
    println!(
        "JIT: {} compute segments cut into {} fusion clusters; {} distinct kernels ready in {:.1} s ({} loaded from the kernel cache, {} compiled at O0 to start, optimised in the background once hot)",
        jit.segments,
        jit.kernels,
        jit.compiled,
        t_jit.elapsed().as_secs_f64(),
        jit.loaded,
        jit.first_level
    );

    // A bar on a terminal, a line every 10 steps otherwise (a log, a pipe).
    let mut bar = Progress::new(steps, 0).every(10).prefix("8 devices");
    // Parameters and optimizer state stay on the devices from step to step (a `Session`);
    // a step gets the step number and its batch, and only the loss comes back.
    let start_state = Checkpoint {
        step: 0,
        params: cfg.init(0),
        state: ts.init_state(),
        data: None,
        loss_scale: None,
    };
    let mut session = Session::new(&ts, &compiled, &program, start_state);
    let mut curve = Vec::with_capacity(steps);
    let start = Instant::now();
    let mut sent = 0u64;
    let (mut peak, mut offloaded) = (0u64, 0u64);
    let (mut worst_loss, mut worst_param, mut checked, mut checking) =
        (0.0f64, 0.0f64, 0usize, 0.0f64);
    let unigram = data.unigram_entropy();
    for t in 1..=steps {
        let (x, y) = data.batch(t as u64, cfg.block.batch, cfg.block.seq);
        let batch = [x, y];
        // On a checked step, the state before it, gathered, for the reference.
        let check = t == 1 || t % CHECK_EVERY == 0;
        let t_check = Instant::now();
        let before = if check {
            Some(session.checkpoint()?)
        } else {
            None
        };
        checking += t_check.elapsed().as_secs_f64();
        let stepped = session.step(&batch, &RunOptions::default())?;
        let (loss, report) = (stepped.loss, stepped.report);
        let step_bytes: u64 = report.stats.ops.iter().map(|o| o.max_bytes()).sum();
        let devices = &report.stats.devices;
        peak = devices.iter().map(|d| d.peak_bytes).max().unwrap_or(0);
        offloaded = devices.iter().map(|d| d.offloaded_bytes).max().unwrap_or(0);
        sent += step_bytes;
        if let Some(before) = before {
            let t_ref = Instant::now();
            let args = ts.args(&before.params, &before.state, t, &batch);
            let (ref_loss, ref_params, _) = ts.split(ts.program.run_reference(&args)?);
            let after = session.checkpoint()?;
            checking += t_ref.elapsed().as_secs_f64();
            worst_loss = worst_loss.max((loss - ref_loss).abs());
            worst_param = worst_param.max(max_difference(&after.params, &ref_params));
            checked += 1;
        }
        curve.push(loss);
        if let (Some(path), true) = (&trace, t == steps) {
            report.write_trace(path)?;
        }
        let tokens_per_s = (t * cfg.block.batch * cfg.block.seq) as f64
            / (start.elapsed().as_secs_f64() - checking);
        bar.step(
            t,
            &format!(
                "loss {loss:.3} | {tokens_per_s:.0} tokens/s | {:.2} MB/step sent per device",
                step_bytes as f64 / 1e6
            ),
        );
    }
    bar.finish();
    if let Some(path) = &trace {
        println!("wrote the last step's trace to {path} (open it in ui.perfetto.dev)");
    }
    let elapsed = start.elapsed().as_secs_f64() - checking;
    println!(
        "trained {steps} steps in {elapsed:.1} s (not counting the checks): {:.0} tokens/s, {:.2} MB sent per device per step; loss {:.3} -> {:.3}",
        (steps * cfg.block.batch * cfg.block.seq) as f64 / elapsed,
        sent as f64 / steps as f64 / 1e6,
        curve[0],
        curve[steps - 1]
    );

    let state = ts.memory_per_device()?.optimizer;
    let r = ts.memory_report(&compiled)?;
    println!(
        "per device, planned before running: {} B at the peak ({} B parameters, {} B AdamW state, {} B batch, {} B collective results, {} B computed)",
        r.peak, r.params, r.optimizer, r.batch, r.communication, r.computed
    );
    match &offload {
        Some(dir) => println!(
            "per device: {peak} B held at the peak (measured, last step); AdamW state {state} B in files under {dir}, {offloaded} B read and written per step"
        ),
        None => println!(
            "per device: {peak} B held at the peak (measured, last step), AdamW state {state} B of it (`--offload-state DIR` keeps it in files)"
        ),
    }
    let tail = &curve[steps.saturating_sub(10)..];
    let last = tail.iter().sum::<f64>() / tail.len() as f64;
    println!(
        "{checked} of the steps rerun on 1 device (the reference interpreter, same inputs): largest loss difference {worst_loss:.1e}, largest parameter difference {worst_param:.1e} (tolerance {tolerance:.0e})"
    );
    println!(
        "mean loss of the last {} steps {last:.3}; the text's character frequencies alone give {unigram:.3}",
        tail.len()
    );
    if worst_loss > tolerance || worst_param > tolerance {
        return Err(format!("the 8-device step departs from the 1-device reference: loss by {worst_loss:.2e}, parameters by {worst_param:.2e}").into());
    }
    if last >= unigram - MARGIN {
        return Err(format!(
            "the loss only fell to {last:.3}; a model that learned from context is below {:.3}",
            unigram - MARGIN
        )
        .into());
    }
    println!("OK: the model learned from context, and every checked step matches one device");
    Ok(())
}

/// Largest absolute difference between two lists of tensors.
fn max_difference(a: &[Literal], b: &[Literal]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            x.to_f64_vec()
                .into_iter()
                .zip(y.to_f64_vec())
                .map(|(u, v)| (u - v).abs())
        })
        .fold(0.0, f64::max)
}
