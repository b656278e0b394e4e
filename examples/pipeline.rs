//! Pipeline parallelism (GPipe and 1F1B) as one SPMD program: a 4-stage residual MLP, its
//! parameters stacked `[4, ...]` and split over `pipe`, 8 microbatches per step. For each
//! schedule: the schedule (which microbatch each stage runs forward and backward at each
//! tick), the collectives propagation chose (the shifts between stages are
//! `collective_permute`s over `pipe`), the bubble, the peak memory per device; then 5
//! training steps on the cpu backend next to the same model trained on one device without
//! a pipeline. `docs/pipeline.md` explains the formulation.
//!
//! Run with `cargo run --release --example pipeline`.

use shardc::Mesh;
use shardc::Tensor;
use shardc::ir::{DType, Literal, TensorType};
use shardc::pipeline::{Schedule, Stages, schedule_table, sequential_loss, train_step};
use shardc::train::{Optimizer, Strategy};

const S: usize = 4;
const M: usize = 8;
const BATCH: usize = 64;
const D: usize = 16;
const H: usize = 64;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

/// One residual MLP block per stage, batched over the leading stage dimension:
/// `x: [S, mb, D]`, `w1: [S, D, H]`, `w2: [S, H, D]`.
fn stage(w: &[Tensor], x: &Tensor) -> Tensor {
    x + &x.matmul(&w[0]).gelu().matmul(&w[1])
}

/// Each stage's mean squared error on its microbatch: `[S]`.
fn loss(out: &Tensor, target: &Tensor) -> Tensor {
    let e = out - target;
    (&e * &e).mean(&[1, 2])
}

type Model = Stages<fn(&[Tensor], &Tensor) -> Tensor, fn(&Tensor, &Tensor) -> Tensor>;

fn model() -> Model {
    Stages {
        stage: stage as fn(&[Tensor], &Tensor) -> Tensor,
        loss: loss as fn(&Tensor, &Tensor) -> Tensor,
    }
}

fn det(shape: &[usize], k: usize, scale: f64) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * scale) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("pipe", S)])?;
    let types = vec![f32(&[S, D, H]), f32(&[S, H, D])];
    let batch_types = [f32(&[BATCH, D]), f32(&[BATCH, D])];
    let optimizer = Optimizer::Sgd {
        lr: 0.05,
        momentum: 0.9,
    };
    // The reference: the stages one after the other, on one device.
    let plain = shardc::train::train_step(
        "mlp",
        sequential_loss(model(), S),
        &types,
        &batch_types,
        &Mesh::new("mesh", &[("data", 1)])?,
        Strategy::Ddp,
        optimizer,
    )?;
    let init: Vec<Literal> = types
        .iter()
        .enumerate()
        .map(|(k, t)| det(&t.shape, k, 0.1))
        .collect();
    let mut peaks = Vec::new();
    for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
        let ts = train_step(
            "mlp",
            model(),
            &types,
            &batch_types,
            &mesh,
            schedule,
            M,
            optimizer,
        )?;
        let compiled = ts.program.compile(&ts.options())?;
        let e = compiled.explain();
        println!(
            "== {} on {mesh}: {S} stages, {M} microbatches of {} rows",
            schedule.name(),
            BATCH / M
        );
        print!("{}", schedule_table(schedule, S, M));
        println!(
            "bubble: {:.3} of the time ((S - 1) / (M + S - 1) = {:.3}); a device keeps {} microbatches' activations for the backward",
            schedule.bubble_fraction(S, M),
            (S - 1) as f64 / (M + S - 1) as f64,
            schedule.kept_slots(S, M)
        );
        let permutes: Vec<_> = e
            .collectives
            .iter()
            .filter(|c| c.kind == "collective_permute")
            .collect();
        println!(
            "collectives: {} collective_permute {{pipe}} of {} B/device each (one microbatch's activations: {} x {D} f32)",
            permutes.len(),
            permutes.first().map_or(0, |c| c.bytes_per_device),
            BATCH / M
        );
        for c in e
            .collectives
            .iter()
            .filter(|c| c.kind != "collective_permute")
        {
            println!(
                "  {} {{{}}} on {}: {} -> {}, {} B/device",
                c.kind,
                c.axes.join(","),
                c.value,
                c.from,
                c.to,
                c.bytes_per_device
            );
        }
        println!(
            "total {} B/device sent, peak {} B/device held",
            e.bytes_per_device, e.peak_bytes_per_device
        );
        peaks.push((schedule, e.peak_bytes_per_device));
        let program = shardc::CpuProgram::new(&compiled, &shardc::runtime::engine::Interpreted)?;
        let (mut p, mut st) = (init.clone(), ts.init_state());
        let (mut p_ref, mut st_ref) = (init.clone(), plain.init_state());
        for t in 1..=5 {
            let batch = [det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)];
            let run = program.run(&compiled, &ts.args(&p, &st, t, &batch), 1e-5)?;
            let sent: u64 = run.report.stats.ops.iter().map(|o| o.max_bytes()).sum();
            let (l, np, ns) = ts.split(run.outputs);
            (p, st) = (np, ns);
            let (l_ref, np, ns) = plain.split(
                plain
                    .program
                    .run_reference(&plain.args(&p_ref, &st_ref, t, &batch))?,
            );
            (p_ref, st_ref) = (np, ns);
            println!(
                "step {t}: loss {l:.6} pipelined on {S} devices ({sent} B sent per device), {l_ref:.6} on one without a pipeline"
            );
            if (l - l_ref).abs() > 1e-5 * (1.0 + l_ref.abs()) {
                return Err(format!(
                    "{} step {t}: the pipelined step disagrees with the reference",
                    schedule.name()
                )
                .into());
            }
        }
        println!();
    }
    println!("peak bytes per device:");
    for (schedule, peak) in &peaks {
        println!("  {:<6} {peak}", schedule.name());
    }
    // Pipeline x data parallelism: the same step on a 2 x 4 mesh.
    let mesh = Mesh::new("mesh", &[("data", 2), ("pipe", S)])?;
    let ts = train_step(
        "mlp",
        model(),
        &types,
        &batch_types,
        &mesh,
        Schedule::OneFOneB,
        M,
        optimizer,
    )?;
    let e = ts.program.compile(&ts.options())?.explain();
    println!("\n== 1f1b on {mesh} (data x pipe): collectives other than the permutes");
    for c in e
        .collectives
        .iter()
        .filter(|c| c.kind != "collective_permute")
    {
        println!(
            "  {} {{{}}} on {}: {} -> {}, {} B/device",
            c.kind,
            c.axes.join(","),
            c.value,
            c.from,
            c.to,
            c.bytes_per_device
        );
    }
    Ok(())
}
