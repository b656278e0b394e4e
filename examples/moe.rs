//! Expert parallelism (GShard): a top-2 mixture-of-experts layer with 8 experts, 2 on each
//! of 4 CPU devices, each taking at most 4 tokens of a group of 8 (capacity factor 2);
//! token groups split over the same `data` axis. Propagation sends each token to its
//! experts' devices and the outputs back by all-to-all; only the router's gradient is
//! all-reduced. Trains 40 steps on the cpu backend and checks every fifth step against the
//! single-device reference.
//!
//! Run with `cargo run --release --example moe`.

use shardc::runtime::engine::Interpreted;
use shardc::{CpuProgram, Mesh, Tensor};
use shardc_train::models::{MoeConfig, moe_loss};
use shardc_train::step::{Optimizer, train_step};
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = MoeConfig {
        groups: 16,
        tokens: 8,
        d_model: 32,
        d_ff: 128,
        experts: 8,
        top_k: 2,
        capacity_factor: 2.0,
        balance: 0.01,
    };
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    let ts = train_step(
        "moe",
        move |p: &[Tensor], b: &[Tensor]| moe_loss(&cfg, &b[0], &b[1], p),
        &cfg.param_types(),
        &[cfg.token_type(), cfg.token_type()],
        &mesh,
        Strategy::expert(cfg.expert_specs("data")),
        Optimizer::Sgd {
            lr: 0.1,
            momentum: 0.9,
        },
    )?;
    let compiled = ts.program.compile(&ts.options())?;
    let e = compiled.explain();
    println!(
        "{} experts on {} ({} per device), top-{} routing, {} slots per expert and group of {} tokens; collectives per step:",
        cfg.experts,
        mesh,
        cfg.experts / mesh.num_devices(),
        cfg.top_k,
        cfg.capacity(),
        cfg.tokens
    );
    for c in &e.collectives {
        println!(
            "  {} {{{}}} {}: {} -> {}, {} B/device",
            c.kind,
            c.axes.join(","),
            c.value,
            c.from,
            c.to,
            c.bytes_per_device
        );
    }
    let mem = ts.memory_per_device()?;
    println!(
        "per device: parameters {} B (all experts: {} B)",
        mem.params,
        cfg.param_types()
            .iter()
            .map(|t| t.size_bytes())
            .sum::<usize>()
    );
    let program = CpuProgram::new(&compiled, &Interpreted)?;
    let (mut params, mut state) = (cfg.init(0), ts.init_state());
    let mut first = None;
    let mut last = 0.0;
    for t in 1..=40 {
        let args = ts.args(&params, &state, t, &cfg.regression_batch(t));
        let (loss, p, s) = ts.split(program.run(&compiled, &args, 1e-5)?.outputs);
        if t % 5 == 0 {
            let (want, _, _) = ts.split(ts.program.run_reference(&args)?);
            println!("step {t}: loss {loss:.5} on 4 devices, {want:.5} on one");
            if (loss - want).abs() > 1e-5 * (1.0 + want.abs()) {
                return Err(
                    format!("step {t}: expert parallelism departs from the reference").into(),
                );
            }
        }
        first.get_or_insert(loss);
        last = loss;
        (params, state) = (p, s);
    }
    let first = first.unwrap_or(f64::NAN);
    if last >= 0.5 * first {
        return Err(format!("the loss only fell from {first:.4} to {last:.4}").into());
    }
    println!("OK: loss {first:.4} -> {last:.4}");
    Ok(())
}
