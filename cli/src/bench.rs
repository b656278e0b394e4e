//! `shardc bench step`: the demo model's training step timed on 1, 2, 4 and 8 cpu devices,
//! with the time of every compile stage, as one JSON object. `scripts/bench-step.sh` runs
//! it beside the same model and step in JAX (`bench/jax_gpt.py`) and prints the ratios.
//!
//! For each device count the step is traced, differentiated, compiled and prepared for the
//! cpu backend (one compute thread and one communication thread per device), run once to
//! warm up, then `steps` times from the parameters the previous step produced, as the demo
//! trains. Parameters and optimizer state stay on the devices between steps, as JAX keeps
//! its sharded arrays (and as `bench/jax_gpt.py` times it): a step's time is that of
//! [`Resident::next_args`](shardc::Resident::next_args) (carry the state, shard the step number and the batch),
//! [`Resident::call`](shardc::Resident::call) and reassembling the loss; `device_ms` is the devices' run alone
//! (the run report's wall time).

use serde_json::{Value, json};
use shardc::{CpuProgram, Engine, Error, Literal, Mesh};
use shardc_ir::{Function, Module};
use shardc_runtime::backend::{DeviceStats, RunOptions, RunReport};
use shardc_runtime::engine::{
    Buffers, Compute, EngineError, Input, Kernel, Segment, interpret, last_reads,
};
use shardc_train::checkpoint::Checkpoint;
use shardc_train::data::CharDataset;
use shardc_train::models::GptConfig;
use shardc_train::presets::{CORPUS, demo_optimizer, demo_step, mesh_shape};
use shardc_train::session::Session;
use shardc_train::step::{Optimizer, TrainStep};
use shardc_train::strategy::axis::{DATA, MODEL};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct StepBench {
    /// The model whose training step is timed.
    pub model: GptConfig,
    /// The device counts to time it on.
    pub devices: Vec<usize>,
    /// Timed steps, after `warmup` untimed ones.
    pub steps: usize,
    /// Untimed steps first.
    pub warmup: usize,
    /// What computes each device's segments.
    pub engine: Engine,
    /// Also run one more step per device count with every op timed (the interpreter only),
    /// and report the time by op.
    pub profile: bool,
    /// Write the initial parameters and the first batches here, for `bench/jax_gpt.py --init`.
    pub dump_init: Option<PathBuf>,
}

/// Runs the benchmark; the JSON object `shardc bench step` prints.
pub fn step(b: &StepBench) -> Result<Value, Error> {
    if b.steps == 0 {
        return Err(Error::Usage("--steps must be at least 1".into()));
    }
    let cfg = b.model;
    let d = &cfg.block;
    let data = CharDataset::new(CORPUS);
    if data.vocab.len() > cfg.vocab {
        return Err(Error::Usage(format!(
            "the corpus has {} characters; a vocabulary of {} cannot hold them",
            data.vocab.len(),
            cfg.vocab
        )));
    }
    if let Some(dir) = &b.dump_init {
        dump_init(dir, b)?;
    }
    let optimizer = demo_optimizer();
    let engine = b.engine.compute();
    let (mut results, mut stages) = (Vec::new(), Vec::new());
    for &n in &b.devices {
        let (result, order) = one_mesh(b, &data, n, optimizer, engine.as_ref())?;
        results.push(result);
        stages = order;
    }
    let params: usize = cfg.param_types().iter().map(|t| t.num_elements()).sum();
    let Optimizer::AdamW {
        lr,
        warmup,
        total,
        min_ratio,
        adam,
    } = optimizer
    else {
        return Err(Error::Usage("the benchmark's optimizer is AdamW".into()));
    };
    Ok(json!({
        "bench": "step",
        "runtime": "shardc",
        "engine": b.engine.name(),
        "threads": "one compute thread and one communication thread per device (std threads, spawned per step); ring collectives over channels",
        "host_cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "model": model_json(&cfg, params),
        "optimizer": {
            "name": "adamw", "lr": lr, "warmup": warmup, "total": total, "min_ratio": min_ratio,
            "beta1": adam.beta1, "beta2": adam.beta2, "eps": adam.eps, "weight_decay": adam.weight_decay,
        },
        "strategy": "dp_tp: batch over data, GptConfig::param_specs over model",
        "steps": b.steps,
        "warmup_steps": b.warmup,
        "tokens_per_step": d.batch * d.seq,
        "compile_stages": stages,
        "step_ms_is": "parameters and optimizer state on the devices between steps (CpuProgram::next_args carries them); a step shards the step number and the batch, runs every device (CpuProgram::call) and reassembles the loss",
        "device_ms_is": "the devices' run alone (RunReport wall time)",
        "results": results,
    }))
}

fn model_json(cfg: &GptConfig, params: usize) -> Value {
    let d = &cfg.block;
    json!({
        "name": "gpt", "vocab": cfg.vocab, "layers": cfg.layers, "batch": d.batch, "seq": d.seq,
        "d_model": d.d_model, "heads": d.heads, "d_ff": d.d_ff, "params": params,
    })
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    match t.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => t[n / 2],
        n => (t[n / 2 - 1] + t[n / 2]) / 2,
    }
}

/// Median, minimum and every time, in ms.
fn summary(times: &[Duration]) -> Value {
    let mut t = times.to_vec();
    t.sort();
    json!({
        "median": ms(median(&t)),
        "min": ms(t.first().copied().unwrap_or_default()),
        "all": t.iter().map(|&x| ms(x)).collect::<Vec<_>>(),
    })
}

fn one_mesh(
    b: &StepBench,
    data: &CharDataset,
    n: usize,
    optimizer: Optimizer,
    engine: &dyn Compute,
) -> Result<(Value, Vec<&'static str>), Error> {
    let cfg = b.model;
    let d = cfg.block;
    let (dp, tp) = mesh_shape(n)?;
    let mesh = Mesh::new("mesh", &[(DATA, dp), (MODEL, tp)])?;
    let ts = demo_step(cfg, &mesh, optimizer)?;
    let compiled = ts.program.compile(&ts.options())?;
    let t = Instant::now();
    let program = CpuProgram::new(&compiled, engine)?;
    let prepare = t.elapsed();

    let mut compile_ms = serde_json::Map::new();
    compile_ms.insert("trace_loss".into(), ms(ts.timings.trace_loss).into());
    compile_ms.insert("autodiff".into(), ms(ts.timings.autodiff).into());
    compile_ms.insert("trace_step".into(), ms(ts.timings.trace_step).into());
    for (stage, time) in &compiled.timings.stages {
        compile_ms.insert((*stage).into(), ms(*time).into());
    }
    compile_ms.insert("prepare_kernels".into(), ms(prepare).into());
    let total = ts.timings.total() + compiled.timings.total() + prepare;
    compile_ms.insert("total".into(), ms(total).into());
    let mut order = vec!["trace_loss", "autodiff", "trace_step"];
    order.extend(compiled.timings.stages.iter().map(|(s, _)| *s));
    order.push("prepare_kernels");

    let (mut step_times, mut device_times) = (Vec::new(), Vec::new());
    let (mut compute, mut communication, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
    let mut losses = Vec::new();
    let (mut collectives, mut bytes) = (0usize, 0u64);
    let mean_over_devices = |report: &RunReport, f: &dyn Fn(&DeviceStats) -> Duration| {
        let devs = &report.stats.devices;
        devs.iter().map(f).sum::<Duration>() / devs.len().max(1) as u32
    };
    // Parameters and optimizer state stay on the devices from step to step, as JAX's
    // sharded arrays do: a step shards only the step number and the batch.
    let start_state = Checkpoint {
        step: 0,
        params: cfg.init(0),
        state: ts.init_state(),
        data: None,
        loss_scale: None,
    };
    let mut session = Session::new(&ts, &compiled, &program, start_state);
    for t in 1..=b.warmup + b.steps {
        let (x, y) = data.batch(t as u64, d.batch, d.seq);
        let start = Instant::now();
        let stepped = session.step(&[x, y], &RunOptions::default())?;
        let elapsed = start.elapsed();
        let report = stepped.report;
        if t > b.warmup {
            step_times.push(elapsed);
            device_times.push(report.stats.wall);
            compute.push(mean_over_devices(&report, &|s| s.compute));
            communication.push(mean_over_devices(&report, &|s| s.communication));
            waiting.push(mean_over_devices(&report, &|s| s.waiting));
        }
        let ops = &report.stats.ops;
        collectives = ops.iter().filter(|o| is_collective(&o.kind)).count();
        bytes = ops.iter().map(|o| o.max_bytes()).sum();
        losses.push(stepped.loss);
        if t == b.warmup.max(1) {
            // The timed steps run the kernels' final code (`compiler::lower::tier`).
            engine.finish_tiering();
        }
    }
    let explained = compiled.explain();
    let median_s = median(&step_times).as_secs_f64();
    let mut out = json!({
        "devices": n,
        "mesh": {"data": dp, "model": tp},
        "step_ms": summary(&step_times),
        "device_ms": summary(&device_times),
        "tokens_per_s": ((d.batch * d.seq) as f64 / median_s).round(),
        "per_device_ms": {
            "compute": ms(median(&compute)),
            "communication": ms(median(&communication)),
            "waiting": ms(median(&waiting)),
        },
        "collectives_per_step": collectives,
        "bytes_sent_per_device_per_step": bytes,
        "planned": {
            "collectives": explained.collectives.len(),
            "bytes_per_device": explained.bytes_per_device,
            "peak_bytes_per_device": explained.peak_bytes_per_device,
        },
        "ops_per_device": compiled.partitioned.module.entry().map_or(0, |f| f.body().ops.len()),
        "loss_step1": losses[0],
        "losses": losses,
        "compile_ms": compile_ms,
    });
    if b.profile {
        out["profile"] = profile(&ts, &compiled, data, b)?;
    }
    Ok((out, order))
}

/// Per-device ops that move data between devices (not the local `shard_slice`,
/// `axis_index`).
fn is_collective(kind: &str) -> bool {
    !matches!(kind, "shard_slice" | "axis_index")
}

/// One more step with every op timed, by op name, summed over devices and sorted by time.
fn profile(
    ts: &TrainStep,
    compiled: &shardc::Compiled,
    data: &CharDataset,
    b: &StepBench,
) -> Result<Value, Error> {
    let cfg = b.model;
    if b.engine == Engine::Native {
        return profile_jit(ts, compiled, data, b);
    }
    let times = Arc::new(Mutex::new(HashMap::<String, (usize, Duration)>::new()));
    let engine = Profiled {
        times: Arc::clone(&times),
    };
    let program = CpuProgram::new(compiled, &engine)?;
    let (x, y) = data.batch(1, cfg.block.batch, cfg.block.seq);
    let args = ts.args(&cfg.init(0), &ts.init_state(), 1, &[x, y]);
    program.run(compiled, &args, 1e-3)?;
    let times = times
        .lock()
        .map_err(|_| Error::Usage("a device thread panicked while profiling".into()))?;
    let mut rows: Vec<(&String, &(usize, Duration))> = times.iter().collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1.1));
    let total: Duration = rows.iter().map(|r| r.1.1).sum();
    Ok(json!({
        "what": "one step, every op timed separately (interpreter), summed over devices",
        "total_ms": ms(total),
        "by_op": rows
            .iter()
            .map(|(name, (count, time))| json!({"op": name, "count": count, "ms": ms(*time)}))
            .collect::<Vec<_>>(),
    }))
}

/// Two more steps with the JIT timing every kernel of the second (a fresh engine: compiled
/// again), by kernel (the cluster's ops, root first, and its first output), summed over devices.
fn profile_jit(
    ts: &TrainStep,
    compiled: &shardc::Compiled,
    data: &CharDataset,
    b: &StepBench,
) -> Result<Value, Error> {
    use shardc_compiler::lower::cpu::{CpuOptions, NativeCompute};
    let cfg = b.model;
    let engine = NativeCompute::new(CpuOptions::default()).with_profiling();
    let program = CpuProgram::new(compiled, &engine)?;
    let (x, y) = data.batch(1, cfg.block.batch, cfg.block.seq);
    let args = ts.args(&cfg.init(0), &ts.init_state(), 1, &[x, y]);
    // A first step warms up (first touches of fresh allocations); the second is timed.
    program.run(compiled, &args, 1e-3)?;
    engine.finish_tiering();
    engine.clear_profile();
    program.run(compiled, &args, 1e-3)?;
    let rows = engine.profile();
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    let stats = engine.stats();
    Ok(json!({
        "what": "one step, every kernel timed separately (JIT), summed over devices",
        "total_ms": (total * 1e6).round() / 1e3,
        "kernels": {"segments": stats.segments, "kernels": stats.kernels, "compiled": stats.compiled, "reused": stats.reused, "modules": stats.modules},
        "by_kernel": rows
            .iter()
            .map(|r| json!({"kernel": r.kernel, "calls": r.calls, "ms": (r.seconds * 1e6).round() / 1e3}))
            .collect::<Vec<_>>(),
    }))
}

/// The interpreter (as `Interpreted` runs it: operands moved at their last read, copied
/// before), timing each op by name, its operands' copies included.
struct Profiled {
    times: Arc<Mutex<HashMap<String, (usize, Duration)>>>,
}

struct ProfiledKernel {
    module: Module,
    func: String,
    segment: Segment,
    moves: Vec<Vec<bool>>,
    times: Arc<Mutex<HashMap<String, (usize, Duration)>>>,
}

impl Compute for Profiled {
    fn prepare(
        &self,
        module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        Ok(Box::new(ProfiledKernel {
            module: module.clone(),
            func: f.name.clone(),
            segment: segment.clone(),
            moves: last_reads(f, segment),
            times: Arc::clone(&self.times),
        }))
    }
}

impl Kernel for ProfiledKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        _buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let f = self
            .module
            .function(&self.func)
            .ok_or("the kernel's function is not in its module")?;
        let mut local: HashMap<String, (usize, Duration)> = HashMap::new();
        let mut time = |op: &shardc_ir::Op, elapsed: Duration| {
            let e = local.entry(op.kind.name()).or_default();
            e.0 += 1;
            e.1 += elapsed;
        };
        let outputs = interpret(
            &self.module,
            f,
            &self.segment,
            &self.moves,
            inputs.iter().map(|&l| Input::Borrowed(l)).collect(),
            Some(&mut time),
        )?
        .outputs;
        let mut times = self
            .times
            .lock()
            .map_err(|_| "the profile lock is poisoned")?;
        for (name, (count, time)) in local {
            let e = times.entry(name).or_default();
            e.0 += count;
            e.1 += time;
        }
        Ok(outputs)
    }
}

/// The batches [`dump_init`] writes: the first two steps', so the losses of steps 1 and 2
/// compare the models and, through the first update, their gradients and optimizers.
const DUMPED_BATCHES: usize = 2;

/// Writes the parameters at initialization and the first batches, as raw little-endian
/// arrays (`NAME.f32`, `tokens1.i32`, `targets1.i32`, ...) with `init.json` naming their
/// shapes and the whole configuration, so `bench/jax_gpt.py --init DIR` runs the same
/// model on the same numbers.
fn dump_init(dir: &Path, b: &StepBench) -> Result<(), Error> {
    let io = |path: &Path, source: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let cfg = b.model;
    let write = |name: &str, bytes: Vec<u8>| -> Result<(), Error> {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| io(&path, e))
    };
    let mut params = Vec::new();
    for ((name, ty), lit) in cfg
        .param_names()
        .iter()
        .zip(cfg.param_types())
        .zip(cfg.init(0))
    {
        let file = format!("{name}.f32");
        write(
            &file,
            lit.to_f64_vec()
                .iter()
                .flat_map(|&x| (x as f32).to_le_bytes())
                .collect(),
        )?;
        params.push(json!({"name": name, "shape": ty.shape, "file": file}));
    }
    let data = CharDataset::new(CORPUS);
    let mut batches = Vec::new();
    for t in 1..=DUMPED_BATCHES {
        let (x, y) = data.batch(t as u64, cfg.block.batch, cfg.block.seq);
        let (tokens, targets) = (format!("tokens{t}.i32"), format!("targets{t}.i32"));
        for (lit, file) in [(&x, &tokens), (&y, &targets)] {
            write(
                file,
                lit.to_f64_vec()
                    .iter()
                    .flat_map(|&t| (t as i32).to_le_bytes())
                    .collect(),
            )?;
        }
        batches.push(json!({"step": t, "tokens": tokens, "targets": targets}));
    }
    let Optimizer::AdamW {
        lr,
        warmup,
        total,
        min_ratio,
        adam,
    } = demo_optimizer()
    else {
        return Err(Error::Usage("the benchmark's optimizer is AdamW".into()));
    };
    let manifest = json!({
        "model": model_json(&cfg, cfg.param_types().iter().map(|t| t.num_elements()).sum()),
        "optimizer": {
            "lr": lr, "warmup": warmup, "total": total, "min_ratio": min_ratio,
            "beta1": adam.beta1, "beta2": adam.beta2, "eps": adam.eps, "weight_decay": adam.weight_decay,
        },
        "devices": b.devices,
        "steps": b.steps,
        "warmup_steps": b.warmup,
        "params": params,
        "batch_shape": [cfg.block.batch, cfg.block.seq],
        "batches": batches,
    });
    write("init.json", manifest.to_string().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_the_demos() {
        assert_eq!(mesh_shape(1).unwrap(), (1, 1));
        assert_eq!(mesh_shape(2).unwrap(), (2, 1));
        assert_eq!(mesh_shape(4).unwrap(), (2, 2));
        assert_eq!(mesh_shape(8).unwrap(), (2, 4));
        assert_eq!(mesh_shape(3).unwrap(), (3, 1));
        assert!(mesh_shape(0).is_err());
    }

    #[test]
    fn engines_parse_by_name() {
        assert_eq!("interpreted".parse::<Engine>(), Ok(Engine::Interpreted));
        assert_eq!("native".parse::<Engine>(), Ok(Engine::Native));
        let err = "fast".parse::<Engine>().unwrap_err();
        assert!(
            err.contains("interpreted") && err.contains("native"),
            "{err}"
        );
        let err = "jit".parse::<Engine>().unwrap_err();
        assert!(err.contains("was called `jit` before"), "{err}");
    }
}
