//! Training across processes: the data x tensor parallel step of the `dp_tp` example (the
//! batch over `data`, Megatron's weights over `model`), each device one MPI process, next
//! to the single-device reference.
//!
//! ```sh
//! cargo build --release --example mpi_train
//! mpirun -n 8 target/release/examples/mpi_train [--steps 5] [--trace trace.json]
//! # on several nodes (the same binary at the same path on each):
//! mpirun -n 16 --hostfile hosts target/release/examples/mpi_train
//! # restarted from its newest checkpoint when a rank dies or freezes (docs/runtime.md):
//! cargo run --release -p shardc-cli -- launch -n 4 --max-restarts 3 -- \
//!     target/release/examples/mpi_train --steps 40 --checkpoints ckpt --every 5
//! ```
//!
//! With `--checkpoints DIR` the run saves a checkpoint every `--every` steps (rank 0
//! writes it) and starts from the newest good one in `DIR`; `--pace MS` waits between
//! steps (to watch a run, or to stop one by hand).
//!
//! The mesh is `data=2 x model=N/2` for `N` processes (an even number). Every rank runs this
//! program: it traces and compiles the step and prepares it once (`shardc::MpiProgram`);
//! each rank keeps its device's pieces of the parameters and momentum from step to step
//! (`next_args`), and a step shards only the step number and the batch, runs the
//! per-device program (its collectives as MPI calls) and gathers the loss. At the end the
//! parameters are gathered and compared with the reference's. Rank 0 prints the losses,
//! the bytes every collective moved per device, and writes the trace.

mod common;

use common::{BATCH, D, H, loss, megatron_specs};
use shardc::ir::{DType, Literal, TensorType};
use shardc::runtime::backend::RunOptions;
use shardc::runtime::backend::mpi::{MpiMesh, abort_on_panic, initialize, launched};
use shardc::runtime::engine::Interpreted;
use shardc::{Mesh, MpiProgram};
use shardc_train::checkpoint::{Checkpoint, Checkpointer};
use shardc_train::session::Session;
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

fn det(shape: &[usize], k: usize, scale: f64) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * scale) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut steps, mut trace, mut checkpoints, mut every, mut pace) = (5, None, None, 5, 0);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--steps" => steps = value()?.parse()?,
            "--trace" => trace = Some(value()?),
            "--checkpoints" => checkpoints = Some(value()?),
            "--every" => every = value()?.parse()?,
            "--pace" => pace = value()?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !launched() {
        return Err("start me with mpirun: mpirun -n 8 target/release/examples/mpi_train".into());
    }
    let universe = initialize()?;
    // A panic on this thread would leave the other ranks waiting in a collective.
    abort_on_panic();
    let mpi = MpiMesh::world(&universe)?;
    let (rank, n) = (mpi.device(), mpi.devices());
    if n < 2 || !n.is_multiple_of(2) {
        return Err(format!("run me on an even number of processes (mpirun -n 8), not {n}").into());
    }
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", n / 2)])?;
    let types = vec![f32(&[D, H]), f32(&[H, D]), f32(&[D, H]), f32(&[H, D])];
    let ts: TrainStep = train_step(
        "mlp",
        loss,
        &types,
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        &mesh,
        Strategy::dp_tp(megatron_specs()),
        Optimizer::Sgd {
            lr: 0.05,
            momentum: 0.9,
        },
    )?;
    let compiled = ts.program.compile(&ts.options())?;
    let init = || -> Vec<Literal> {
        types
            .iter()
            .enumerate()
            .map(|(k, t)| det(&t.shape, k, 0.1))
            .collect()
    };
    let program = MpiProgram::new(&mpi, &compiled, &Interpreted)?;
    let mut session = match &checkpoints {
        Some(dir) => Session::resume(
            &ts,
            &compiled,
            &program,
            Checkpointer::new(dir),
            every,
            init,
        )?,
        None => Session::new(
            &ts,
            &compiled,
            &program,
            Checkpoint {
                step: 0,
                params: init(),
                state: ts.init_state(),
                data: None,
                loss_scale: None,
            },
        ),
    };
    if rank == 0 {
        println!("dp_tp on {mesh}: {n} processes, one device each");
        if session.resumed_from() > 0 {
            println!("resumed after step {}", session.resumed_from());
        }
    }
    // The single-device reference, from where the run starts.
    let start = session.checkpoint()?;
    let (mut p_ref, mut s_ref) = (start.params, start.state);
    let mut last = None;
    while session.steps_done() < steps {
        let t = session.steps_done() + 1;
        let batch = [det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)];
        let (l_ref, p, s) = ts.split(
            ts.program
                .run_reference(&ts.args(&p_ref, &s_ref, t, &batch))?,
        );
        (p_ref, s_ref) = (p, s);
        let stepped = session.step(&batch, &RunOptions::default())?;
        let l_mpi = stepped.loss;
        if rank == 0 {
            println!(
                "step {t}: loss {l_mpi:.6} on {n} processes, {l_ref:.6} on one ({:.1} ms){}",
                stepped.report.stats.wall.as_secs_f64() * 1e3,
                stepped
                    .saved
                    .as_ref()
                    .map(|p| format!(", saved {}", p.display()))
                    .unwrap_or_default()
            );
        }
        // Every rank computed the same losses, so every rank stops here if they differ.
        if (l_mpi - l_ref).abs() > 1e-5 * (1.0 + l_ref.abs()) {
            return Err(format!(
                "step {t}: the step on {n} processes disagrees with the reference"
            )
            .into());
        }
        last = Some(stepped.report);
        std::thread::sleep(std::time::Duration::from_millis(pace));
    }
    // The parameters, gathered from every rank, against the reference's.
    let end = session.checkpoint()?;
    for (i, (got, want)) in end.params.iter().zip(&p_ref).enumerate() {
        let worst = got
            .to_f64_vec()
            .iter()
            .zip(want.to_f64_vec())
            .map(|(g, w)| (g - w).abs())
            .fold(0.0, f64::max);
        if worst > 1e-5 {
            return Err(format!(
                "parameter {i} after {steps} steps is off the reference's by {worst:.2e}"
            )
            .into());
        }
    }
    if rank == 0 {
        println!("parameters after {steps} steps match the reference's within 1e-5");
    }
    if let Some(dir) = &checkpoints
        && !session.steps_done().is_multiple_of(every)
    {
        let saved = session.save(&Checkpointer::new(dir))?;
        if let Some(path) = saved {
            println!("final state: {}", path.display());
        }
    }
    if let (0, Some(report)) = (rank, &last) {
        println!("bytes each device sent, per collective of the last step:");
        for op in &report.stats.ops {
            println!(
                "  {} {} (groups of {}): {} B",
                op.kind,
                op.value,
                op.group_size,
                op.mean_bytes()
            );
        }
        if let Some(path) = &trace {
            report.write_trace(path)?;
            println!("trace of the last step: {path} (open it in ui.perfetto.dev)");
        }
    }
    Ok(())
}
