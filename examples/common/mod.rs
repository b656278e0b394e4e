#![allow(dead_code)] // each example uses part of it

//! What the strategy examples share: a small two-block residual MLP, its data, and a loop
//! that trains it on the cpu backend (one thread per device, ring collectives) next to the
//! single-device reference.

use shardc::ir::{DType, Literal, TensorType};
use shardc::{Mesh, P, PartitionSpec, Tensor};
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;

pub const BATCH: usize = 32;
pub const D: usize = 32;
pub const H: usize = 128;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

/// Two residual MLP blocks and a mean squared error.
pub fn loss(params: &[Tensor], batch: &[Tensor]) -> Tensor {
    let mut h = batch[0].clone();
    for b in 0..2 {
        h = &h + &h.matmul(&params[2 * b]).gelu().matmul(&params[2 * b + 1]);
    }
    let e = &h - &batch[1];
    (&e * &e).mean(&[0, 1])
}

/// Megatron's specs for the model: first matmul of each block by columns, second by rows.
pub fn megatron_specs() -> Vec<PartitionSpec> {
    vec![
        P![None, "model"],
        P!["model", None],
        P![None, "model"],
        P!["model", None],
    ]
}

fn det(shape: &[usize], k: usize, scale: f64) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * scale) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

/// Builds the training step of `strategy` on `mesh`, prints its decisions, trains it for
/// `steps` steps on the cpu backend and on one device, and checks they agree.
pub fn run(
    strategy: Strategy,
    mesh: &Mesh,
    steps: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let types = vec![f32(&[D, H]), f32(&[H, D]), f32(&[D, H]), f32(&[H, D])];
    let optimizer = Optimizer::Sgd {
        lr: 0.05,
        momentum: 0.9,
    };
    let ts: TrainStep = train_step(
        "mlp",
        loss,
        &types,
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        mesh,
        strategy,
        optimizer,
    )?;
    let compiled = ts.program.compile(&ts.options())?;
    let e = compiled.explain();
    let mem = ts.memory_per_device()?;
    println!(
        "{} on {} ({} devices)",
        ts.strategy.name(),
        mesh,
        mesh.num_devices()
    );
    println!(
        "per device: params {} B, gradients {} B, optimizer state {} B (total {} B)",
        mem.params,
        mem.grads,
        mem.optimizer,
        mem.total()
    );
    println!("collectives chosen by propagation:");
    for c in &e.collectives {
        println!(
            "  {} {{{}}} on {}: {} -> {}, {} B/device",
            c.kind,
            c.axes.join(","),
            c.value,
            c.from,
            c.to,
            c.bytes_per_device
        );
        if let Some(k) = &c.compressed {
            println!(
                "    compressed as {}: {} -> {} B/device",
                k.compression.attribute(),
                k.bytes_before,
                k.bytes_after
            );
        }
    }
    for b in &compiled.buckets {
        println!(
            "  fused into one all-reduce bucket: {} ({} B)",
            b.members.join(", "),
            b.bytes
        );
    }
    if compiled.regathered > 0 {
        println!(
            "  {} parameters gathered again for the backward pass (FSDP)",
            compiled.regathered
        );
    }
    if compiled.prefetched > 0 {
        println!(
            "  {} parameter gathers issued one gather early (FSDP's prefetch)",
            compiled.prefetched
        );
    }
    println!("peak bytes per device: {}", e.peak_bytes_per_device);
    let init: Vec<Literal> = types
        .iter()
        .enumerate()
        .map(|(k, t)| det(&t.shape, k, 0.1))
        .collect();
    let (mut p_ref, mut s_ref) = (init.clone(), ts.init_state());
    let (mut p_sim, mut s_sim) = (init, ts.init_state());
    let program = shardc::CpuProgram::new(&compiled, &shardc::runtime::engine::Interpreted)?;
    // Compressed gradients are lossy by design: the loss is held to 5% of the reference's.
    let lossy = e.collectives.iter().any(|c| c.compressed.is_some());
    let tolerance = if lossy { 5e-2 } else { 1e-5 };
    if lossy {
        println!("compressed gradients: each step's loss within 5% of the reference's");
    }
    for t in 1..=steps {
        let batch = [det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)];
        let (l_ref, p, s) = ts.split(
            ts.program
                .run_reference(&ts.args(&p_ref, &s_ref, t, &batch))?,
        );
        (p_ref, s_ref) = (p, s);
        let run = program.run(&compiled, &ts.args(&p_sim, &s_sim, t, &batch), 1e-5)?;
        let sent: u64 = run.report.stats.ops.iter().map(|o| o.max_bytes()).sum();
        let held = run.report.stats.devices.iter().map(|d| d.peak_bytes).max();
        let (l_sim, p, s) = ts.split(run.outputs);
        (p_sim, s_sim) = (p, s);
        println!(
            "step {t}: loss {l_sim:.6} on {} devices ({sent} B sent per device; at most {} B held per device, {} B planned), {l_ref:.6} on one",
            mesh.num_devices(),
            held.unwrap_or(0),
            e.peak_bytes_per_device
        );
        if (l_sim - l_ref).abs() > tolerance * (1.0 + l_ref.abs()) {
            return Err(
                format!("step {t}: the partitioned step disagrees with the reference").into(),
            );
        }
    }
    Ok(())
}
