//! A Llama-style decoder (RMSNorm, rotary position embeddings, SwiGLU, causal attention)
//! trained with FSDP x TP on data=2 x model=4: every matrix split over both axes, the
//! batch over `data`, a linear warm-up/decay learning rate, examples dealt by a
//! `DistributedSampler` epoch after epoch. Kernels JIT-compiled; state kept on the 8
//! device threads between steps.
//!
//! Run with `cargo run --release --example llama [STEPS]`.

use shardc::compiler::lower::cpu::{CpuOptions, NativeCompute};
use shardc::ir::{DType, Literal, TensorType};
use shardc::runtime::backend::RunOptions;
use shardc::{CpuProgram, Mesh};
use shardc_train::checkpoint::Checkpoint;
use shardc_train::models::{LlamaConfig, llama_loss};
use shardc_train::optim::{AdamW, Schedule};
use shardc_train::progress::Progress;
use shardc_train::sampler::DistributedSampler;
use shardc_train::session::Session;
use shardc_train::step::{Optimizer, train_step};
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps: usize = std::env::args().nth(1).map_or(Ok(30), |s| s.parse())?;
    let cfg = LlamaConfig {
        vocab: 32,
        layers: 2,
        d_model: 64,
        heads: 4,
        ffn: 128,
        batch: 8,
        seq: 16,
        rope_base: 10_000.0,
    };
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)])?;
    let tokens = TensorType::new(DType::I32, [cfg.batch, cfg.seq]);
    let ts = train_step(
        "llama",
        move |p, b| llama_loss(&cfg, &b[0], &b[1], p),
        &cfg.param_types(),
        &[tokens.clone(), tokens],
        &mesh,
        Strategy::fsdp_tp(cfg.param_specs("model")),
        Optimizer::AdamWScheduled {
            schedule: Schedule::WarmupLinear {
                lr: 1e-2,
                warmup: 5.0,
                total: steps as f64,
                end_ratio: 0.1,
            },
            adam: AdamW::default(),
            clip_norm: Some(1.0),
        },
    )?
    .with_param_names(&cfg.param_names())?;
    for (name, spec) in cfg.param_names().iter().zip(&ts.param_specs).take(10) {
        println!("{name:22} {spec}");
    }
    let compiled = ts.program.compile(&ts.options())?;
    let e = compiled.explain();
    println!(
        "{} collectives per step, {} B sent per device; {} all-gathers again for the backward",
        e.collectives.len(),
        e.bytes_per_device,
        compiled.regathered
    );
    // The first layer's decisions, by the names the model gives (what a test would snapshot).
    for line in compiled.decisions().to_string().lines() {
        if line.starts_with("all_gather") && line.contains(" layers.0.attn") {
            println!("  {line}");
        }
    }
    // A corpus of 256 sequences, each counting up from its own start with its own stride;
    // the targets are the next tokens.
    let sequence = |i: usize, shift: usize| -> Vec<f64> {
        (0..cfg.seq)
            .map(|j| ((i + (1 + i % 3) * (j + shift)) % cfg.vocab) as f64)
            .collect()
    };
    let gather = |idx: &[usize], shift: usize| {
        let v: Vec<f64> = idx.iter().flat_map(|&i| sequence(i, shift)).collect();
        Literal::from_f64(DType::I32, &[cfg.batch, cfg.seq], &v)
    };
    // One process feeds every device, so one sampler of one rank deals the global batch.
    let mut loader = DistributedSampler::new(256, 1, 0)?.shuffle(Some(0));
    let engine = NativeCompute::new(CpuOptions::default());
    let program = CpuProgram::new(&compiled, &engine)?;
    let start = Checkpoint {
        step: 0,
        params: cfg.init(0),
        state: ts.init_state(),
        data: None,
        loss_scale: None,
    };
    let mut session = Session::new(&ts, &compiled, &program, start);
    let mut losses = Vec::new();
    let mut progress = Progress::new(steps, 0).every(5).prefix("8 devices");
    for _ in 0..steps {
        let idx = match loader.next_batch(cfg.batch) {
            Some(idx) => idx,
            None => {
                loader.set_epoch(loader.epoch() + 1);
                loader
                    .next_batch(cfg.batch)
                    .ok_or("a batch larger than the data set")?
            }
        };
        session.set_data(loader.state());
        let stepped = session.step(
            &[gather(&idx, 0)?, gather(&idx, 1)?],
            &RunOptions::default(),
        )?;
        progress.step(stepped.step, &format!("loss {:.4}", stepped.loss));
        losses.push(stepped.loss);
    }
    progress.finish();
    if let (Some(first), Some(last)) = (losses.first(), losses.last()) {
        println!(
            "loss {first:.4} -> {last:.4} (ln vocab = {:.4})",
            (cfg.vocab as f64).ln()
        );
    }
    Ok(())
}
