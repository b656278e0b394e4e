//! `shardc bench plans`: a program's chosen plan beside the alternatives the search
//! takes under other weights, each run on the cpu backend, predicted next to measured.
//!
//! The alternatives are the plans extraction chooses for the same program when the
//! machine's figures are changed one way at a time — a GPU cluster's (compute nearly
//! free), communication made nearly free, memory weighed heavily — so that each is the
//! best plan of some machine. Every distinct plan (by its collectives and its compute) is then
//! predicted by one formula under the model compilation used
//! ([`CostModel::program_time`]: compute at the model's rates plus each collective's
//! latency and ring bytes, no overlap) and measured (the median step, parameters on the
//! devices). The model is right when it ranks the plans as measured; the figures say by
//! how much each prediction is off.

use crate::peer::{Stepper, read};
use serde_json::{Value, json};
use shardc::compiler::passes::decompose::CollectiveMatmul;
use shardc::compiler::{CostModel, Options, compile};
use shardc::ir::OpKind;
use shardc::{Engine, Error};
use std::path::PathBuf;

/// What `shardc bench plans` runs.
pub struct PlansBench {
    /// Program files, or `demo` / `demo-fsdp-tp` (the demo's training step under DP x TP
    /// or FSDP x TP).
    pub files: Vec<PathBuf>,
    /// Timed steps per plan.
    pub steps: usize,
    /// What computes each device's segments.
    pub engine: Engine,
    /// The model the chosen plan is optimised for, and every plan predicted by.
    pub cost: CostModel,
    /// Measure the host with each program's own mesh first (`shardc calibrate`, once per
    /// distinct mesh) and optimise and predict that program with what was measured,
    /// instead of [`PlansBench::cost`]: a profile measured on `data=8` knows nothing of
    /// the groups of 2 and 4 a `data=2 x model=4` program's collectives run over.
    pub calibrate_each_mesh: bool,
    /// Where to write each distinct plan's explanation (`PROGRAM.PLAN.txt`), if anywhere.
    pub explain: Option<PathBuf>,
}

/// Loops that communicate with at most this many known trips are unrolled in the
/// `unrolled` alternative.
const UNROLLED_TRIPS: usize = 16;

/// The alternatives: the best plans for other machines (changes of `cost`), every loop
/// run whole (`loops_whole`: the plan before loops were partitioned), short loops
/// that communicate unrolled (`unrolled`) and the annotations followed as JAX's own
/// propagation follows them (`annotations_followed`), and every all-gather into a dot and
/// dot into a reduce-scatter run as ring steps (`collective_matmul`: what `auto` would
/// weigh), each as the options that compile it.
fn machines(cost: &CostModel, base: &Options) -> Vec<(&'static str, Options)> {
    let mut free_comm = cost.clone();
    free_comm.default_bandwidth *= 1e3;
    free_comm
        .axis_bandwidth
        .values_mut()
        .for_each(|b| *b *= 1e3);
    free_comm.latency /= 1e3;
    if let Some(sm) = &mut free_comm.shared_memory {
        sm.bandwidth *= 1e3;
        sm.copy_bandwidth = sm.copy_bandwidth.map(|b| b * 1e3);
    }
    free_comm.group_latency.iter_mut().for_each(|l| l.1 /= 1e3);
    let mut lean = cost.clone();
    lean.memory_weight = 1e-8;
    let with = |cost: CostModel| Options {
        cost,
        ..base.clone()
    };
    vec![
        ("chosen", with(cost.clone())),
        ("gpu_cluster", with(CostModel::gpu_cluster())),
        ("communication_free", with(free_comm)),
        ("memory_lean", with(lean)),
        (
            "loops_whole",
            Options {
                partition_loops: false,
                ..with(cost.clone())
            },
        ),
        (
            "unrolled",
            Options {
                unroll_loops: UNROLLED_TRIPS.max(base.unroll_loops),
                ..with(cost.clone())
            },
        ),
        (
            "annotations_followed",
            Options {
                follow_annotations: true,
                ..with(cost.clone())
            },
        ),
        (
            "collective_matmul",
            Options {
                collective_matmul: CollectiveMatmul::Always,
                ..with(cost.clone())
            },
        ),
    ]
}

/// The inputs recorded beside `file` (`NAME.json`, as `tests/fixtures/jax/corpus.py`
/// writes beside a JAX export) when they fit `m`'s arguments: a loop whose trip count is
/// an input then runs as often as JAX ran it, which deterministic inputs would not.
fn recorded_inputs(file: &std::path::Path, m: &shardc::ir::Module) -> Option<Vec<shardc::Literal>> {
    let record = shardc::ir::record::Record::read(&file.with_extension("json")).ok()?;
    let types = m.entry()?.arg_types();
    let fits = record.inputs.len() == types.len()
        && record.inputs.iter().zip(&types).all(|(l, t)| &l.ty == t);
    fits.then_some(record.inputs)
}

/// One distinct plan of a program.
struct Plan {
    /// The alternative that chose it first.
    name: &'static str,
    /// The other alternatives that chose it.
    also: Vec<&'static str>,
    explained: shardc::compiler::passes::explain::Explanation,
    predicted: shardc::compiler::sharding::cost::ProgramTime,
    compiled: shardc::Compiled,
}

/// A program to plan: a file, or one of the built-in training steps — `demo` (the demo's
/// GPT step: DP x TP on data=2 x model=4, AdamW) and `demo-fsdp-tp` (the same model with
/// FSDP over data times tensor parallelism) — with the options its strategy implies.
fn program(file: &std::path::Path) -> Result<(shardc::ir::Module, Options), Error> {
    use shardc_train::presets::{demo_config, demo_optimizer};
    use shardc_train::strategy::Strategy;
    use shardc_train::strategy::axis::{DATA, MODEL};
    let strategy = match file.to_str() {
        Some("demo") => Strategy::dp_tp(demo_config().param_specs()),
        Some("demo-fsdp-tp") => Strategy::fsdp_tp(demo_config().param_specs()),
        // A file compiles as `shardc compile` compiles it: all-reduces bucketed.
        _ => {
            let options = Options {
                bucket_bytes: crate::peer::buckets(None),
                ..Options::default()
            };
            return Ok((read(file)?, options));
        }
    };
    let mesh = shardc::Mesh::new("mesh", &[(DATA, 2), (MODEL, 4)])?;
    let ts = shardc_train::presets::gpt_step(demo_config(), &mesh, strategy, demo_optimizer(), 1)?;
    Ok((ts.program.module().clone(), ts.options()))
}

/// One JSON object: per program, its distinct plans predicted and measured.
pub fn plans(b: &PlansBench) -> Result<Value, Error> {
    let mut programs = Vec::new();
    // Per mesh (`data=2,model=4`), the model measured with it and the raw figures.
    let mut calibrated: std::collections::BTreeMap<String, (CostModel, Value)> = Default::default();
    for file in &b.files {
        let (m, base) = program(file)?;
        let devices = m.meshes.first().map_or(1, |mesh| mesh.num_devices());
        let axes: Vec<(String, usize)> = m.meshes.first().map_or(Vec::new(), |mesh| {
            mesh.axes.iter().map(|a| (a.name.clone(), a.size)).collect()
        });
        let mesh_name = axes
            .iter()
            .map(|(a, n)| format!("{a}={n}"))
            .collect::<Vec<_>>()
            .join(",");
        let cost = if b.calibrate_each_mesh && !axes.is_empty() {
            if !calibrated.contains_key(&mesh_name) {
                let c = crate::calibrate::Calibrate {
                    axes: axes.clone(),
                    engine: b.engine,
                    repeats: 5,
                };
                let (model, raw) = crate::calibrate::calibrate(&c)?;
                let model = match &b.cost.topology {
                    Some(t) => model.with_topology(t.clone()),
                    None => model,
                };
                calibrated.insert(mesh_name.clone(), (model, raw));
            }
            calibrated[&mesh_name].0.clone()
        } else {
            b.cost.clone()
        };
        let model = cost.for_devices(devices);
        // The distinct plans, each compiled once.
        let mut seen: Vec<String> = Vec::new();
        let mut plans: Vec<Plan> = Vec::new();
        for (name, options) in machines(&cost, &base) {
            let c = compile(&m, &options).map_err(|e| Error::Compile(Box::new(e)))?;
            let e = c.explain();
            let f = c
                .partitioned
                .module
                .entry()
                .ok_or_else(|| Error::Usage("a plan without an entry function".into()))?;
            let predicted = model.program_time(f);
            // Plans are the same when they communicate the same, compute the same and loop
            // the same: per-device programs that differ only in order or names are one plan.
            let loops = f
                .body_ops()
                .filter(|(_, o)| o.kind == OpKind::While)
                .count();
            let text = format!(
                "{:?} {:.6} {loops}",
                e.collectives
                    .iter()
                    .map(|c| (&c.kind, &c.axes, &c.from, &c.to, c.bytes_per_device))
                    .collect::<Vec<_>>(),
                predicted.compute
            );
            if let Some(i) = seen.iter().position(|t| *t == text) {
                plans[i].also.push(name);
                continue;
            }
            seen.push(text);
            if let Some(dir) = &b.explain {
                let stem = file.file_stem().map_or_else(
                    || "program".to_string(),
                    |s| s.to_string_lossy().into_owned(),
                );
                let path = dir.join(format!("{stem}.{name}.txt"));
                std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::write(&path, e.to_string()))
                    .map_err(|source| Error::Io { path, source })?;
            }
            plans.push(Plan {
                name,
                also: Vec::new(),
                explained: e,
                predicted,
                compiled: c,
            });
        }
        // Measured in turn, so that a machine that gets busier or quieter touches every
        // plan alike: each plan's timed step right after an untimed one of its own, which
        // brings its state back into the caches the other plans' steps took, as the
        // steps of a training loop find it.
        let recorded = recorded_inputs(file, &m);
        let mut steppers = plans
            .iter()
            .map(|p| match &recorded {
                Some(inputs) => Stepper::with_inputs(&m, &p.compiled, b.engine, inputs.clone()),
                None => Stepper::new(&m, &p.compiled, b.engine),
            })
            .collect::<Result<Vec<_>, _>>()?;
        for _ in 0..b.steps.max(1) {
            for s in &mut steppers {
                s.warm()?;
                s.step()?;
            }
        }
        let mut rows: Vec<Value> = Vec::new();
        let mut figures: Vec<(f64, f64)> = Vec::new();
        for (p, s) in plans.iter().zip(steppers) {
            let measured = s.stepped(Vec::new());
            let measured_s = measured.median.as_secs_f64();
            let (e, predicted) = (&p.explained, &p.predicted);
            figures.push((predicted.total(), measured_s));
            rows.push(json!({
                "plan": p.name,
                "also_chosen_by": p.also,
                "collectives": e.collectives.len(),
                "bytes_per_device": e.bytes_per_device,
                "peak_bytes_per_device": e.peak_bytes_per_device,
                "measured_peak_bytes_per_device": measured.peak_bytes,
                "predicted_ms": {
                    "total": predicted.total() * 1e3,
                    "compute": predicted.compute * 1e3,
                    "communication": predicted.communication * 1e3,
                    "hidden": predicted.hidden * 1e3,
                    "fixed": predicted.fixed * 1e3,
                },
                "measured_ms": measured_s * 1e3,
                "measured_per_device_ms": {
                    "compute": measured.compute.as_secs_f64() * 1e3,
                    "communication": measured.communication.as_secs_f64() * 1e3,
                    "waiting": measured.waiting.as_secs_f64() * 1e3,
                },
                "predicted_over_measured": predicted.total() / measured_s,
            }));
        }
        let fastest = figures.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
        programs.push(json!({
            "program": file.display().to_string(),
            "devices": devices,
            "mesh": mesh_name,
            "cost_model": cost.source,
            "inputs": if recorded.is_some() { "recorded beside it" } else { "deterministic" },
            "plans": rows,
            "chosen_within_5pct_of_fastest": figures[0].1 <= fastest * 1.05,
            "ranking_agrees": kendall_tau(&figures),
            "worst_prediction_off_by": figures
                .iter()
                .map(|(p, m)| (p / m - 1.0).abs())
                .fold(0.0, f64::max),
        }));
    }
    Ok(json!({
        "what": "per program: its distinct plans (the chosen one first), predicted by the cost model and measured on the cpu backend (median step; plans stepped in turn, each timed step after an untimed one of its own; on the inputs recorded beside the program when there are, else deterministic ones)",
        "cost_model": if b.calibrate_each_mesh { "calibrated per program's mesh (each program's `cost_model`; the figures under `calibration`)".to_string() } else { b.cost.source.clone() },
        "calibration": calibrated.into_iter().map(|(mesh, (_, raw))| (mesh, raw)).collect::<serde_json::Map<_, _>>(),
        "programs": programs,
    }))
}

/// Kendall's tau between the predicted and the measured order of the plans (1: the same
/// order, -1: reversed; `null` with fewer than two plans).
fn kendall_tau(figures: &[(f64, f64)]) -> Value {
    let n = figures.len();
    if n < 2 {
        return Value::Null;
    }
    let mut score = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let p = (figures[i].0 - figures[j].0).signum();
            let m = (figures[i].1 - figures[j].1).signum();
            score += p * m;
        }
    }
    json!(score / (n * (n - 1) / 2) as f64)
}
