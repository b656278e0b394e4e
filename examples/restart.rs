//! Checkpoints and automatic restart: a 2-layer GPT trains on 8 CPU devices (data=2 x
//! model=4) under a [`Supervisor`] that saves a safetensors checkpoint every 10 steps.
//! A device fails in the middle of step 17 (an injected kernel failure); the supervisor
//! relaunches the mesh, reloads the step-10 checkpoint from disk and trains on. The run
//! must end exactly — bit for bit — where an uninterrupted run of the same steps ends.
//! Then the last checkpoint is loaded into ZeRO-3 on 4 devices (the tensors are global),
//! and a few more steps train from it.
//!
//! `cargo run --release --example restart -- [--steps N] [--dir DIR]`
//!
//! It compares two runs from step 0, so it empties its folder first. A training program
//! that resumes where it stopped when run again is `examples/mpi_train.rs --checkpoints
//! DIR` (under `shardc launch`, also after a rank dies: `docs/checkpoint.md`).

use shardc::ir::{DType, TensorType};
use shardc::runtime::engine::{Compute, Interpreted};
use shardc::{Compiled, CpuProgram, Literal, Mesh, Tensor};
use shardc_train::checkpoint::Checkpointer;
use shardc_train::data::CharDataset;
use shardc_train::models::{GptConfig, TransformerDims, gpt_loss};
use shardc_train::restart::{FailOnce, Supervisor, TrainLog};
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;
use std::path::Path;

const CORPUS: &str = include_str!("data/corpus.txt");
const EVERY: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flag = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let steps: usize = flag("--steps")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(30);
    if steps < 20 {
        return Err("--steps must be at least 20 (the failure is injected at step 17)".into());
    }
    let root = flag("--dir").map_or_else(
        || std::env::temp_dir().join(format!("shardc-restart-{}", std::process::id())),
        Into::into,
    );
    let data = CharDataset::new(CORPUS);
    let cfg = GptConfig {
        vocab: data.vocab.len(),
        layers: 2,
        block: TransformerDims {
            batch: 16,
            seq: 32,
            d_model: 64,
            heads: 4,
            d_ff: 256,
        },
    };
    let tokens = TensorType::new(DType::I32, [cfg.block.batch, cfg.block.seq]);
    let optimizer = Optimizer::AdamW {
        lr: 3e-3,
        warmup: 5.0,
        total: (steps + 10) as f64,
        min_ratio: 0.1,
        adam: Default::default(),
    };
    let step_on = |mesh: &Mesh, strategy: Strategy| {
        let model = cfg;
        train_step(
            "gpt",
            move |p: &[Tensor], b: &[Tensor]| gpt_loss(&model, &b[0], &b[1], p),
            &cfg.param_types(),
            &[tokens.clone(), tokens.clone()],
            mesh,
            strategy,
            optimizer,
        )
    };
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)])?;
    let ts = step_on(&mesh, Strategy::dp_tp(cfg.param_specs()))?;
    let compiled = ts.program.compile(&ts.options())?;
    let batch = |t: usize| {
        let (x, y) = data.batch(t as u64, cfg.block.batch, cfg.block.seq);
        vec![x, y]
    };
    let checkpointer = |dir: &Path| Checkpointer::new(dir).param_names(cfg.param_names());
    let _ = std::fs::remove_dir_all(&root);

    // The uninterrupted run, counting kernel calls to place the failure.
    let counting = FailOnce::new(Interpreted, usize::MAX);
    let sup = Supervisor::new(checkpointer(&root.join("uninterrupted")), EVERY);
    let base = train(&sup, &ts, &compiled, steps, &cfg, &counting, batch)?;
    let per_step = counting.calls() / steps;
    println!(
        "uninterrupted: {steps} steps on 8 devices, loss {:.3} -> {:.3}; {} checkpoints saved ({:.0} ms saving)",
        base.losses[0].1,
        base.last_loss(),
        base.saved,
        base.checkpoint_time.as_secs_f64() * 1e3
    );

    // The same run with a device failing in the middle of step 17.
    let failing = FailOnce::new(Interpreted, 16 * per_step + per_step / 2);
    let dir = root.join("restarted");
    let sup = Supervisor::new(checkpointer(&dir), EVERY);
    let log = train(&sup, &ts, &compiled, steps, &cfg, &failing, batch)?;
    for r in &log.restarts {
        println!(
            "restart: step {} failed ({}); relaunched the mesh and resumed from the checkpoint of step {}",
            r.failed_at, r.error, r.resumed_from
        );
    }
    let same = |a: &[Literal], b: &[Literal]| {
        a.iter().zip(b).all(|(x, y)| {
            x.elements.len() == y.elements.len()
                && (0..x.elements.len()).all(|i| x.elements.bits(i) == y.elements.bits(i))
        })
    };
    if log.restarts.len() != 1
        || !same(&log.last.params, &base.last.params)
        || !same(&log.last.state, &base.last.state)
        || log.losses != base.losses
    {
        return Err(format!(
            "the restarted run ({} restarts) does not end where the uninterrupted one does",
            log.restarts.len()
        )
        .into());
    }
    println!(
        "restarted run: loss {:.3} at step {steps}; parameters and optimizer state equal the uninterrupted run's bit for bit",
        log.last_loss()
    );

    // Resharding on load: ZeRO-3 over 4 devices goes on from the last checkpoint.
    let mesh4 = Mesh::new("mesh", &[("data", 4)])?;
    let z3 = step_on(&mesh4, Strategy::zero3())?;
    let c3 = z3.program.compile(&z3.options())?;
    let more = steps + 5;
    let sup3 = Supervisor::new(checkpointer(&dir), EVERY);
    let on = train(&sup3, &z3, &c3, more, &cfg, &Interpreted, batch)?;
    let mem = (ts.memory_per_device()?, z3.memory_per_device()?);
    println!(
        "ZeRO-3 on 4 devices resumed the step-{} checkpoint and trained to step {more}: loss {:.3}; parameters + gradients + optimizer state per device {:.2} MB (data x model: {:.2} MB)",
        on.started_from,
        on.last_loss(),
        mem.1.total() as f64 / 1e6,
        mem.0.total() as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&root);
    println!("OK");
    Ok(())
}

/// Trains under `sup` on the cpu backend, computing with `engine`.
fn train(
    sup: &Supervisor,
    ts: &TrainStep,
    c: &Compiled,
    steps: usize,
    cfg: &GptConfig,
    engine: &dyn Compute,
    batch: impl FnMut(usize) -> Vec<Literal>,
) -> Result<TrainLog, shardc::Error> {
    sup.train(
        ts,
        c,
        steps,
        || cfg.init(0),
        batch,
        || CpuProgram::new(c, engine),
    )
}
