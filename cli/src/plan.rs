//! `shardc plan`: the planner of `shardc_train::plan` on a model's shapes, its ranking
//! printed as JSON, and with `--measure K` the top `K` plans shardc's strategies can run
//! trained on the cpu backend and timed, the measured ranking beside the predicted one.

use crate::peer::Stepper;
use serde_json::{Value, json};
use shardc::RematPolicy;
use shardc::compiler::CostModel;
use shardc::{Engine, Error};
use shardc_train::models::{Blocks, GptConfig, Remat, TransformerDims};
use shardc_train::plan::{DataParallel, Experts, Plan, Shapes, kendall_tau, plan};
use shardc_train::strategy::Strategy;
use std::time::Instant;

/// What `shardc plan` is asked.
pub struct PlanArgs {
    /// `demo`, `gpt-1b`, `gpt-1b-moe`, or a JSON file of a GPT's shapes.
    pub model: String,
    /// Devices to plan for.
    pub devices: usize,
    /// The machine (its topology, if any).
    pub cost: CostModel,
    /// Bytes a device may hold.
    pub memory_per_device: Option<u64>,
    /// Plans printed.
    pub top: usize,
    /// Of the top plans, how many to run and time (0: none).
    pub measure: usize,
    /// Timed steps per measured plan.
    pub steps: usize,
    /// What computes the measured plans.
    pub engine: Engine,
}

/// The model's shapes: a preset or a file (`{"vocab", "layers", "batch", "seq",
/// "d_model", "heads", "d_ff"}`, and `"experts"`, `"top_k"`, `"capacity_factor"` for a
/// mixture of experts).
pub fn model(name: &str) -> Result<Shapes, Error> {
    match name {
        "demo" => Ok(shardc_train::presets::demo_config().into()),
        "gpt-1b" => Ok(shardc_train::plan::gpt_1b().into()),
        "gpt-1b-moe" => Ok(shardc_train::plan::gpt_1b_moe()),
        file => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                Error::Usage(format!(
                    "{file}: {e} (give `demo`, `gpt-1b`, `gpt-1b-moe`, or a JSON file of a GPT's shapes)"
                ))
            })?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| Error::Usage(format!("{file}: not JSON: {e}")))?;
            // Up to 2^31 each: their products (a weight's elements, a batch's tokens) stay
            // far inside 64 bits.
            let field = |k: &str| -> Result<usize, Error> {
                v.get(k)
                    .and_then(Value::as_u64)
                    .filter(|&n| n > 0 && n <= 1 << 31)
                    .map(|n| n as usize)
                    .ok_or_else(|| {
                        Error::Usage(format!(
                            "{file}: `{k}` must be an integer from 1 to 2^31 (a GPT's shapes: vocab, layers, batch, seq, d_model, heads, d_ff)"
                        ))
                    })
            };
            let cfg = GptConfig {
                vocab: field("vocab")?,
                layers: field("layers")?,
                block: TransformerDims {
                    batch: field("batch")?,
                    seq: field("seq")?,
                    d_model: field("d_model")?,
                    heads: field("heads")?,
                    d_ff: field("d_ff")?,
                },
            };
            if !cfg.block.d_model.is_multiple_of(cfg.block.heads) {
                return Err(Error::Usage(format!(
                    "{file}: d_model {} does not divide into {} heads",
                    cfg.block.d_model, cfg.block.heads
                )));
            }
            // A mixture of experts when `experts` is given: `top_k` (1) of them per
            // token, buffers `capacity_factor` (1.25) times their share.
            let experts = match v.get("experts") {
                None => None,
                Some(_) => Some(Experts {
                    count: field("experts")?,
                    top_k: v.get("top_k").map_or(Ok(1), |_| field("top_k"))?,
                    capacity_factor: match v.get("capacity_factor") {
                        None => 1.25,
                        Some(c) => c.as_f64().filter(|&c| c > 0.0).ok_or_else(|| {
                            Error::Usage(format!(
                                "{file}: `capacity_factor` must be a positive number (each expert's buffer over its even share of the tokens, 1.0-2.0)"
                            ))
                        })?,
                    },
                }),
            };
            Ok(Shapes { gpt: cfg, experts })
        }
    }
}

fn row(p: &Plan) -> Value {
    let m = &p.predicted.memory;
    json!({
        "plan": p.name(),
        "mesh": p.axes.iter().filter(|a| a.1 > 1).map(|a| format!("{}={}", a.0, a.1)).collect::<Vec<_>>().join(","),
        "data": p.data,
        "stages": p.stages,
        "context": p.context,
        "model": p.model,
        "experts_over": p.expert,
        "recompute": p.recompute,
        "micro_batches": p.micro_batches,
        "data_parallel": p.data_parallel.name(),
        "predicted_step_ms": p.predicted.step_s * 1e3,
        "predicted_ms": {
            "compute": p.predicted.compute_s * 1e3,
            "bubble": p.predicted.bubble_s * 1e3,
            "recompute": p.predicted.recompute_s * 1e3,
            "tensor_parallel": p.predicted.tensor_s * 1e3,
            "context_parallel": p.predicted.context_s * 1e3,
            "expert_all_to_all": p.predicted.expert_s * 1e3,
            "data_exposed": p.predicted.data_exposed_s * 1e3,
            "pipeline": p.predicted.pipeline_s * 1e3,
        },
        "memory_per_device": {
            "params": m.params, "grads": m.grads, "optimizer": m.optimizer,
            "activations": m.activations, "total": m.total(),
        },
        "bytes_per_link": p.predicted.bytes_per_link,
    })
}

/// The strategy shardc trains `p` with, if it has one: no pipelines here, ZeRO-1/2 only
/// without tensor parallelism, and context parallelism with parameters replicated over
/// data x context (DDP).
fn strategy(p: &Plan, cfg: &GptConfig) -> Option<Strategy> {
    if p.stages > 1 || p.axes.last().is_some_and(|a| a.0 != "model") {
        return None;
    }
    let specs = cfg.param_specs();
    if p.context > 1 {
        return (p.data_parallel == DataParallel::Ddp).then(|| {
            Strategy::context(if p.model > 1 {
                specs
            } else {
                vec![shardc::P![]; specs.len()]
            })
        });
    }
    Some(match (p.data_parallel, p.data > 1, p.model > 1) {
        (_, false, false) | (DataParallel::Ddp, true, false) => Strategy::ddp(),
        (DataParallel::Zero1, true, false) => Strategy::zero1(),
        (DataParallel::Zero2, true, false) => Strategy::zero2(),
        (DataParallel::Zero3, true, false) => Strategy::zero3(),
        (_, false, true) | (DataParallel::Ddp, true, true) => Strategy::dp_tp(specs),
        (DataParallel::Zero3, true, true) => Strategy::fsdp_tp(specs),
        _ => return None,
    })
}

/// The training step shardc runs for plan `p` of `cfg` under `strategy`: its mesh's axes
/// (`context` only when the plan has one), its micro-batches accumulated in a loop (one
/// reduction a step), every block recomputed in the backward pass when it says so.
fn train_step(
    p: &Plan,
    cfg: &GptConfig,
    strategy: Strategy,
) -> Result<shardc_train::step::TrainStep, Error> {
    let mut axes = vec![("data", p.data)];
    if p.context > 1 {
        axes.push(("context", p.context));
    }
    axes.push(("model", p.model));
    let mesh = shardc::Mesh::new("mesh", &axes)?;
    let blocks = Blocks {
        remat: match p.recompute {
            true => Remat::Every(RematPolicy::Nothing),
            false => Remat::Off,
        },
        ..Blocks::default()
    };
    shardc_train::presets::gpt_step_with(
        *cfg,
        &mesh,
        strategy,
        shardc_train::presets::demo_optimizer(),
        p.micro_batches,
        blocks,
    )
}

/// Plan `p` of `cfg` compiled for the cpu backend: its step, the partitioned program, and
/// what the compiler's cost model predicts for it, ms.
fn compiled(
    p: &Plan,
    cfg: &GptConfig,
    strategy: Strategy,
    cost: &CostModel,
) -> Result<(shardc_train::step::TrainStep, shardc::Compiled, f64), Error> {
    let ts = train_step(p, cfg, strategy)?;
    let c = ts.program.compile(&ts.options())?;
    let predicted = c.partitioned.module.entry().map_or(0.0, |f| {
        cost.for_devices(p.data * p.context * p.model)
            .program_time(f)
            .total()
    });
    Ok((ts, c, predicted * 1e3))
}

/// One JSON object: the ranked plans, and the measured ones.
pub fn run(a: &PlanArgs) -> Result<Value, Error> {
    let m = model(&a.model)?;
    let cfg = m.gpt;
    let start = Instant::now();
    let plans = plan(&m, a.devices, &a.cost, a.memory_per_device).map_err(Error::Usage)?;
    let planned_ms = start.elapsed().as_secs_f64() * 1e3;
    // The top plans shardc can run, compiled; the others said why not.
    let mut measured = Vec::new();
    let mut runnable = Vec::new();
    for p in plans.ranked.iter().take(a.measure) {
        match m.experts.is_none().then(|| strategy(p, &cfg)).flatten() {
            Some(s) => {
                let (ts, c, compiler_ms) = compiled(p, &cfg, s, &a.cost)?;
                measured.push(Value::Null);
                runnable.push((measured.len() - 1, p, ts, c, compiler_ms));
            }
            None => measured.push(json!({"plan": p.name(), "measured_step_ms": null,
                "why_not": "shardc has no strategy for it yet (pipelines, ZeRO-1/2 with tensor parallelism, ZeRO with context parallelism, a GPT with experts)"})),
        }
    }
    // Stepped in turn, so that a machine that gets busier or quieter touches every plan
    // alike (as `bench plans` does): each plan's timed step right after an untimed one of
    // its own.
    let mut steppers = runnable
        .iter()
        .map(|(_, _, ts, c, _)| Stepper::new(ts.program.module(), c, a.engine))
        .collect::<Result<Vec<_>, _>>()?;
    for _ in 0..a.steps.max(1) {
        for s in &mut steppers {
            s.warm()?;
            s.step()?;
        }
    }
    let (mut predicted_ms, mut measured_ms, mut compiler) = (Vec::new(), Vec::new(), Vec::new());
    for ((at, p, _, _, compiler_ms), s) in runnable.iter().zip(steppers) {
        let ms = s.stepped(Vec::new()).median.as_secs_f64() * 1e3;
        predicted_ms.push(p.predicted.step_s * 1e3);
        compiler.push(*compiler_ms);
        measured_ms.push(ms);
        measured[*at] = json!({"plan": p.name(), "predicted_step_ms": p.predicted.step_s * 1e3,
            "compiler_predicted_step_ms": compiler_ms, "measured_step_ms": ms});
    }
    let d = cfg.block;
    Ok(json!({
        "model": {"name": a.model, "parameters": m.parameters(), "layers": cfg.layers, "d_model": d.d_model,
            "heads": d.heads, "d_ff": d.d_ff, "seq": d.seq, "global_batch": d.batch, "vocab": cfg.vocab,
            "experts": m.experts.map(|x| json!({"count": x.count, "top_k": x.top_k, "capacity_factor": x.capacity_factor}))},
        "devices": a.devices,
        "cost_model": a.cost.source,
        "topology": a.cost.topology.as_ref().map(|t| format!("{} nodes x {} devices", t.nodes, t.devices_per_node)),
        "memory_per_device": a.memory_per_device,
        "considered": plans.considered,
        "over_budget": plans.over_budget.len(),
        "planning_ms": planned_ms,
        "plans": plans.ranked.iter().take(a.top).map(row).collect::<Vec<_>>(),
        "fastest_over_budget": plans.over_budget.first().map(row),
        "measured": measured,
        "kendall_tau": (measured_ms.len() >= 2).then(|| kendall_tau(&predicted_ms, &measured_ms)),
        "compiler_kendall_tau": (compiler.len() >= 2).then(|| kendall_tau(&compiler, &measured_ms)),
        "kendall_tau_top5": (measured_ms.len() >= 2).then(|| {
            let k = measured_ms.len().min(5);
            kendall_tau(&predicted_ms[..k], &measured_ms[..k])
        }),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    /// A GPT small enough to compile and run in a test.
    fn tiny() -> GptConfig {
        shardc_train::presets::tiny_config()
    }

    fn plan_of(context: usize, model: usize, recompute: bool) -> Plan {
        plan(&tiny().into(), 4, &CostModel::cpu(2), None)
            .unwrap()
            .ranked
            .into_iter()
            .find(|p| {
                (p.stages, p.context, p.model, p.micro_batches, p.recompute)
                    == (1, context, model, 1, recompute)
                    && p.data_parallel == DataParallel::Ddp
            })
            .unwrap()
    }

    /// What the partitioned step of a plan runs: its collectives by kind and axes, and its
    /// dots.
    fn ops(p: &Plan) -> (Vec<(String, String)>, usize) {
        let s = strategy(p, &tiny()).unwrap();
        let ts = train_step(p, &tiny(), s).unwrap();
        let c = ts.program.compile(&ts.options()).unwrap();
        let collectives = c
            .explain()
            .collectives
            .iter()
            .map(|c| (c.kind.clone(), c.axes.join(",")))
            .collect();
        let text = shardc::ir::text::print_module(&c.partitioned.module);
        (collectives, text.matches("stablehlo.dot_general").count())
    }

    /// The plans `--measure` runs are the plans' strategies: a context axis gathers the
    /// keys and values over `context`; recompute runs the forward pass's dots again.
    #[test]
    fn measured_plans_run_context_parallelism_and_recompute() {
        let (cp, _) = ops(&plan_of(2, 1, false));
        assert!(
            cp.iter().any(|(k, a)| k == "all_gather" && a == "context"),
            "{cp:?}"
        );
        let (_, kept) = ops(&plan_of(1, 2, false));
        let (_, again) = ops(&plan_of(1, 2, true));
        assert!(again > kept, "{again} dots with recompute, {kept} without");
        let (both, _) = ops(&plan_of(2, 2, true));
        assert!(both.iter().any(|(_, a)| a == "context"), "{both:?}");
        assert!(both.iter().any(|(_, a)| a == "model"), "{both:?}");
        // ZeRO with a context axis is predicted, not run.
        let mut zero = plan_of(2, 1, false);
        zero.data_parallel = DataParallel::Zero3;
        assert!(strategy(&zero, &tiny()).is_none());
    }

    /// An accumulated context-parallel step runs its micro-batch loop on every device's
    /// pieces: its body's plan, extracted with memory weighed more, is costed by its
    /// predicted time, not by an extraction cost counting bytes at that weight (which ran
    /// the loop whole on every device: 204 ms where it runs in 65).
    #[test]
    fn an_accumulated_context_parallel_step_loops_on_pieces() {
        // The demo's (on a 2-layer model of width 16 the loop is predicted cheaper whole,
        // rightly: its collectives' latencies outweigh its compute).
        let cfg = shardc_train::presets::demo_config();
        let p = plan(&cfg.into(), 8, &CostModel::cpu(2), None)
            .unwrap()
            .ranked
            .into_iter()
            .find(|p| {
                p.name() == "DDP data=2 x context parallel context=4 (2 micro-batches accumulated)"
            })
            .unwrap();
        let ts = train_step(&p, &cfg, strategy(&p, &cfg).unwrap()).unwrap();
        // Limited by work, not wall time: the loop body's own compile gets a tenth of the
        // time limit, which a slow machine's debug build can reach.
        let c = ts.program.compile(&ts.options().deterministic()).unwrap();
        let text = c.explain().to_string();
        let loops = text.split("\nloops:\n").nth(1).unwrap();
        let line = loops.lines().next().unwrap();
        assert!(line.contains(": on pieces"), "{line}");
    }
}
