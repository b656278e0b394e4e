//! Pipeline parallelism (GPipe and 1F1B) as one SPMD program: a 4-stage residual MLP, its
//! parameters stacked `[4, ...]` and split over `pipe`, 8 microbatches per step. For each
//! schedule: the tick table (which microbatch each stage runs forward and backward at each
//! tick), the bubble, the collectives propagation chose (the shifts between stages are
//! `collective_permute`s over `pipe`), the bytes per step and the memory per device; then
//! 5 training steps on the cpu backend next to the same model trained on one device
//! without a pipeline, checked to agree. Last, both schedules on a `data` x `pipe` mesh.
//! `docs/pipeline.md` explains the formulation.
//!
//! Run with `cargo run --release --example pipeline`.

use shardc::Mesh;
use shardc::Tensor;
use shardc::compiler::passes::memory::peak_computed_bytes;
use shardc::ir::{DType, Literal, TensorType};
use shardc_train::pipelining::{Schedule, Stages, schedule_table, sequential_loss, train_step};
use shardc_train::step::{Optimizer, TrainStep};
use shardc_train::strategy::Strategy;

const S: usize = 4;
const M: usize = 8;
const BATCH: usize = 64;
const D: usize = 16;
const H: usize = 64;
const STEPS: usize = 5;
/// Largest relative difference `|a - b| / (1 + |b|)` allowed between the pipelined step
/// and the single-device one, on every result (loss, parameters, optimizer state).
const TOL: f64 = 1e-5;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

/// One residual MLP block per stage, batched over the leading stage dimension:
/// `x: [S, mb, D]`, `w1: [S, D, H]`, `b1: [S, H]`, `w2: [S, H, D]`.
fn stage(w: &[Tensor], x: &Tensor) -> Tensor {
    let (s, mb) = (x.shape()[0], x.shape()[1]);
    let b1 = w[1].broadcast_in_dim(&[s, mb, H], &[0, 2]);
    x + &(&x.matmul(&w[0]) + &b1).gelu().matmul(&w[2])
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

fn worst(got: &[Literal], want: &[Literal]) -> f64 {
    got.iter()
        .zip(want)
        .flat_map(|(g, w)| {
            g.to_f64_vec()
                .into_iter()
                .zip(w.to_f64_vec())
                .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
                .collect::<Vec<_>>()
        })
        .fold(0.0, f64::max)
}

/// Builds, explains and trains the pipelined step of `schedule` on `mesh` next to the
/// single-device step `plain`; gives (explain's peak bytes, computed peak bytes) per
/// device.
fn run(
    schedule: Schedule,
    mesh: &Mesh,
    plain: &TrainStep,
    show_table: bool,
) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let types = plain.param_types.clone();
    let ts = train_step(
        "mlp",
        model(),
        &types,
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        mesh,
        schedule,
        M,
        plain.optimizer,
    )?;
    let compiled = ts.program.compile(&ts.options())?;
    let e = compiled.explain();
    let data = mesh.axis_size("data").unwrap_or(1);
    println!(
        "== {} on {mesh}: {S} stages, {M} microbatches of {} rows ({} per device)",
        schedule.name(),
        BATCH / M,
        BATCH / M / data
    );
    if show_table {
        print!("{}", schedule_table(schedule, S, M));
    }
    println!(
        "bubble: {:.3} of the time ((S - 1) / (M + S - 1) = {:.3})",
        schedule.bubble_fraction(S, M),
        (S - 1) as f64 / (M + S - 1) as f64,
    );
    let permutes: Vec<_> = e
        .collectives
        .iter()
        .filter(|c| c.kind == "collective_permute")
        .collect();
    println!(
        "collectives: {} collective_permute {{pipe}} of {} B/device each (one microbatch's activations on a device: {} rows x {D} f32 = {} B), forward and backward",
        permutes.len(),
        permutes.first().map_or(0, |c| c.bytes_per_device),
        BATCH / M / data,
        BATCH / M / data * D * 4
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
    let f = compiled
        .partitioned
        .module
        .entry()
        .ok_or("the partitioned step has no function")?;
    let computed = peak_computed_bytes(f);
    println!(
        "per step: {} B/device sent; memory per device: peak {} B held, of which {} B computed by the step (activation slots kept for the backward: {} of {} B)",
        e.bytes_per_device,
        e.peak_bytes_per_device,
        computed,
        schedule.kept_slots(S, M),
        BATCH / M / data * D * 4
    );
    let program = shardc::CpuProgram::new(&compiled, &shardc::runtime::engine::Interpreted)?;
    let init: Vec<Literal> = types
        .iter()
        .enumerate()
        .map(|(k, t)| det(&t.shape, k, 0.1))
        .collect();
    let (mut p, mut st) = (init.clone(), ts.init_state());
    let (mut p_ref, mut st_ref) = (init, plain.init_state());
    for t in 1..=STEPS {
        let batch = [det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)];
        let run = program.run(&compiled, &ts.args(&p, &st, t, &batch), TOL)?;
        let sent: u64 = run.report.stats.ops.iter().map(|o| o.max_bytes()).sum();
        let want = plain
            .program
            .run_reference(&plain.args(&p_ref, &st_ref, t, &batch))?;
        let off = worst(&run.outputs, &want);
        let (l, np, ns) = ts.split(run.outputs);
        (p, st) = (np, ns);
        let (l_ref, np, ns) = plain.split(want);
        (p_ref, st_ref) = (np, ns);
        println!(
            "step {t}: loss {l:.6} pipelined on {} devices ({sent} B sent by the busiest device), {l_ref:.6} on one without a pipeline; every result within {off:.1e}",
            mesh.num_devices()
        );
        if off > TOL {
            return Err(format!(
                "{} step {t}: the pipelined step is {off:e} off the single-device one (tolerance {TOL:e})",
                schedule.name()
            )
            .into());
        }
    }
    println!();
    Ok((e.peak_bytes_per_device, computed))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let types = vec![f32(&[S, D, H]), f32(&[S, H]), f32(&[S, H, D])];
    let optimizer = Optimizer::Sgd {
        lr: 0.05,
        momentum: 0.9,
    };
    // The reference: the stages one after the other on the whole batch, on one device.
    let plain = shardc_train::step::train_step(
        "mlp",
        sequential_loss(model(), S),
        &types,
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        &Mesh::new("mesh", &[("data", 1)])?,
        Strategy::ddp(),
        optimizer,
    )?;
    let pipe = Mesh::new("mesh", &[("pipe", S)])?;
    let mut peaks = Vec::new();
    for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
        peaks.push((schedule, run(schedule, &pipe, &plain, true)?));
    }
    println!("memory per device on {pipe}, {S} stages, {M} microbatches:");
    for (schedule, (all, computed)) in &peaks {
        println!(
            "  {:<6} {computed:>6} B computed by the step, {all:>6} B with the arguments",
            schedule.name()
        );
    }
    println!(
        "  (the arguments include the whole batch on every device, which 1F1B holds until its last microbatch enters)\n"
    );
    // Pipeline x data parallelism: microbatches split over `data`, gradients all-reduced
    // over it.
    let mesh = Mesh::new("mesh", &[("data", 2), ("pipe", S)])?;
    for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
        run(schedule, &mesh, &plain, false)?;
    }
    Ok(())
}
