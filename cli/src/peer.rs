//! `shardc bench peer`: the programs of the JAX/XLA peer benchmark
//! (`../shared/bench/peer/export_cases.py` writes them: JAX's own lowering of textbook
//! training steps), compiled by shardc and stepped on the cpu backend, timed as
//! `jax_peer.py` times XLA: the time to the first step from the program text (parse,
//! compile, kernel preparation, first call) and the median of the steps after it, the
//! parameters staying on the devices from step to step as JAX's sharded arrays do.
//!
//! `scripts/bench-peer.sh` runs this beside `jax_peer.py` in one invocation and writes the
//! side-by-side table to `docs/bench/`.

use serde_json::{Value, json};
use shardc::Resident;
use shardc::compiler::{CostModel, Options, compile};
use shardc::{CpuProgram, Engine, Error, Literal};
use shardc_runtime::backend::RunOptions;
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

/// What `shardc bench peer` runs.
pub struct PeerBench {
    /// A folder of `NAME.mlir` programs (with `NAME.meta.json` beside them, optional).
    pub dir: PathBuf,
    /// Case names to run; all of the folder's when empty.
    pub cases: Vec<String>,
    /// Timed steps per case (after one untimed step).
    pub steps: usize,
    /// What computes each device's segments.
    pub engine: Engine,
    /// The cost model compilation optimises; `None`: the backend's own.
    pub cost: Option<CostModel>,
    /// Also time every kernel of two more steps (the JIT, compiled again), by kernel.
    pub profile: bool,
    /// `--bucket-bytes` as given ([`buckets`] reads it: absent, the default; 0, none).
    pub bucket_bytes: Option<usize>,
    /// Also time the steps with the cpu backend's ring collectives (over channels),
    /// alternating step by step with the default ([`RunOptions::shared_memory_min_bytes`]).
    pub compare_collectives: bool,
    /// Write each case's last timed step's trace into this folder (`NAME.trace.json`).
    pub trace: Option<PathBuf>,
    /// [`Options::prefetch`]: parameter gathers issued this many gathers early.
    pub prefetch: usize,
    /// [`Options::collective_matmul`].
    pub collective_matmul: shardc_compiler::passes::decompose::CollectiveMatmul,
}

/// The cases of a folder, sorted by name.
pub fn cases(dir: &Path) -> Result<Vec<String>, Error> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| Error::Usage(format!("cannot read the folder {}: {e}", dir.display())))?;
    let mut out: Vec<String> = read
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            Some(name.strip_suffix(".mlir")?.to_string())
        })
        .collect();
    out.sort();
    Ok(out)
}

/// One JSON object: `{"cases": [...]}`, one entry per program.
pub fn peer(b: &PeerBench) -> Result<Value, Error> {
    let names = if b.cases.is_empty() {
        cases(&b.dir)?
    } else {
        b.cases.clone()
    };
    let mut out = Vec::new();
    for name in names {
        out.push(one_case(b, &name)?);
    }
    Ok(json!({ "engine": format!("{:?}", b.engine), "cases": out }))
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Deterministic inputs of the program's argument types (values in [-0.5, 0.5]).
pub fn inputs(types: &[shardc::TensorType]) -> Result<Vec<Literal>, Error> {
    types
        .iter()
        .enumerate()
        .map(|(k, t)| Ok(Literal::deterministic(t, k)?))
        .collect()
}

/// [`Options::bucket_bytes`] from a `--bucket-bytes` flag: absent, the CLI's default
/// ([`shardc::compiler::passes::propagate::DEFAULT_BUCKET_BYTES`]); 0, none.
pub fn buckets(flag: Option<usize>) -> Option<usize> {
    match flag {
        None => Some(shardc::compiler::passes::propagate::DEFAULT_BUCKET_BYTES),
        Some(0) => None,
        Some(n) => Some(n),
    }
}

fn one_case(b: &PeerBench, name: &str) -> Result<Value, Error> {
    let path = b.dir.join(format!("{name}.mlir"));
    let start = Instant::now();
    let m = read(&path)?;
    let parsed = start.elapsed();
    let mesh_devices = m.meshes.first().map_or(1, |mesh| mesh.num_devices());
    let options = Options {
        cost: b.cost.clone().unwrap_or_else(CostModel::host),
        bucket_bytes: buckets(b.bucket_bytes),
        prefetch: b.prefetch,
        collective_matmul: b.collective_matmul,
        ..Options::default()
    };
    let c = compile(&m, &options).map_err(|e| Error::Compile(Box::new(e)))?;
    let compiled = start.elapsed();
    let s = step_with(&m, &c, b.engine, b.steps, b.compare_collectives)?;
    if let (Some(dir), Some(report)) = (&b.trace, &s.last) {
        let path = dir.join(format!("{name}.trace.json"));
        std::fs::create_dir_all(dir)
            .and_then(|()| report.write_trace(&path))
            .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    let first = compiled + s.prepare + s.first_call;
    let profile = if b.profile {
        profile(
            &c,
            &inputs(&c.input.entry().map(|f| f.arg_types()).unwrap_or_default())?,
        )?
    } else {
        Value::Null
    };
    let e = c.explain();
    Ok(json!({
        "case": name,
        "devices": mesh_devices,
        "step_ms": ms(s.median),
        "steps": b.steps,
        "ring_collectives_step_ms": s.median_ring.map(ms),
        "first_step_ms": ms(first),
        "time_to_first_step_ms": {
            "parse": ms(parsed),
            "compile": ms(compiled - parsed),
            "prepare_kernels": ms(s.prepare),
            "first_call": ms(s.first_call),
        },
        "tier_up_ms": ms(s.tier_up),
        "bytes_sent_per_device": s.bytes_sent,
        "peak_bytes_per_device": s.peak_bytes,
        "last_step_per_device_ms": {
            "compute": ms(s.compute),
            "communication": ms(s.communication),
            "waiting": ms(s.waiting),
        },
        "collectives": e.collectives.len(),
        "planned_bytes_per_device": e.bytes_per_device,
        "planned_peak_bytes_per_device": e.peak_bytes_per_device,
        "predicted_ms": e.cost_us / 1e3,
        "cost_model": e.cost_model,
        "profile": profile,
    }))
}

/// A program file, parsed.
pub fn read(path: &Path) -> Result<shardc::ir::Module, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    shardc::ir::text::parse_module(&text)
        .map_err(|e| Error::Usage(format!("{}:{e}", path.display())))
}

/// What stepping a compiled program measured.
pub struct Stepped {
    /// Preparing the kernels (the engine compiling, or loading them from its cache).
    pub prepare: Duration,
    /// The first call, after the inputs are on the devices.
    pub first_call: Duration,
    /// Compiling the kernels at the full level after it (`compiler::lower::tier`).
    /// Compiling every kernel still at its first tier at the full level.
    pub tier_up: Duration,
    /// The median of the calls after it.
    pub median: Duration,
    /// With the ring collectives compared: the median of the calls that ran them.
    pub median_ring: Option<Duration>,
    /// The most bytes a device sent in the last call, and the most it held at once.
    pub bytes_sent: u64,
    /// The most bytes a device held at once.
    pub peak_bytes: u64,
    /// The last call's per-device means: computing.
    pub compute: Duration,
    /// Sending and receiving.
    pub communication: Duration,
    /// Waiting for peers.
    pub waiting: Duration,
    /// The last timed call's report (its trace).
    pub last: Option<shardc_runtime::backend::RunReport>,
}

/// The (result, argument) pairs one call carries to the next, and the fresh arguments.
pub(crate) type Carried = (Vec<(usize, usize)>, Vec<(usize, Literal)>);

/// How one call of `f` leads to the next, as a training loop's steps do: a result of an
/// argument's position and type is that argument's next value (its new parameters), the
/// other arguments (the batch) are given again from `globals`. The (result, argument)
/// pairs and the fresh arguments, for [`shardc::Resident::next_args`].
pub(crate) fn carried(f: &shardc::ir::Function, globals: &[Literal]) -> Carried {
    let (arg_types, result_types) = (f.arg_types(), f.result_types());
    let carry: Vec<(usize, usize)> = (0..result_types.len().min(arg_types.len()))
        .filter(|&k| result_types[k] == arg_types[k])
        .map(|k| (k, k))
        .collect();
    let fresh = (0..arg_types.len())
        .filter(|a| !carry.iter().any(|c| c.1 == *a))
        .map(|a| (a, globals[a].clone()))
        .collect();
    (carry, fresh)
}

/// Prepares `c` (the program `m` compiled) on the cpu backend and calls it `1 + steps`
/// times on deterministic inputs, the parameters staying on the devices: a step's outputs
/// that are its parameters' new values (same position, same type) are carried to the next
/// step, the other arguments (the batch) given again.
pub fn step(
    m: &shardc::ir::Module,
    c: &shardc::Compiled,
    engine: Engine,
    steps: usize,
) -> Result<Stepped, Error> {
    step_with(m, c, engine, steps, false)
}

/// A compiled program prepared on the cpu backend and called once (its kernels then at
/// their final tier), its state on the devices, ready to be stepped: [`step`] steps one
/// program, `bench plans` several in turn, so that every plan sees the same machine.
pub struct Stepper<'c> {
    compiled: &'c shardc::Compiled,
    compute: Box<dyn shardc_runtime::engine::Compute>,
    program: CpuProgram,
    args: Option<shardc::OnDevices>,
    carry: Vec<(usize, usize)>,
    fresh: Vec<(usize, Literal)>,
    prepare: Duration,
    first_call: Duration,
    tier_up: Duration,
    times: Vec<Duration>,
    last: Option<shardc_runtime::backend::RunReport>,
}

impl<'c> Stepper<'c> {
    /// Prepares `c` (the program `m` compiled), puts deterministic inputs on the devices
    /// and makes the first call.
    pub fn new(
        m: &shardc::ir::Module,
        c: &'c shardc::Compiled,
        engine: Engine,
    ) -> Result<Stepper<'c>, Error> {
        let f = m
            .entry()
            .ok_or_else(|| Error::Usage("the program has no entry function".into()))?;
        Stepper::with_inputs(m, c, engine, inputs(&f.arg_types())?)
    }

    /// [`Stepper::new`] on the given inputs (a recorded run's: a loop whose trip count
    /// is an input runs as often as it did when recorded).
    pub fn with_inputs(
        m: &shardc::ir::Module,
        c: &'c shardc::Compiled,
        engine: Engine,
        globals: Vec<Literal>,
    ) -> Result<Stepper<'c>, Error> {
        let start = Instant::now();
        let compute = engine.compute();
        let program = CpuProgram::new(c, compute.as_ref())?;
        let prepare = start.elapsed();
        let f = m
            .entry()
            .ok_or_else(|| Error::Usage("the program has no entry function".into()))?;
        let (carry, fresh) = carried(f, &globals);
        let args = program.put(c, &globals)?;
        let mut s = Stepper {
            compiled: c,
            compute,
            program,
            args: Some(args),
            carry,
            fresh,
            prepare,
            first_call: Duration::ZERO,
            tier_up: Duration::ZERO,
            times: Vec::new(),
            last: None,
        };
        s.first_call = s.call(&RunOptions::default())?.0;
        // The timed steps run the kernels' final code (`compiler::lower::tier`).
        let t = Instant::now();
        s.compute.finish_tiering();
        s.tier_up = t.elapsed();
        Ok(s)
    }

    /// One call with `options`, the next call's arguments made from its results: its time.
    fn call(
        &mut self,
        options: &RunOptions,
    ) -> Result<(Duration, shardc_runtime::backend::RunReport), Error> {
        let args = self
            .args
            .take()
            .ok_or_else(|| Error::Usage("a step failed before this one".into()))?;
        let t = Instant::now();
        let (results, report) = self.program.call(args, options)?;
        let elapsed = t.elapsed();
        self.args =
            Some(
                self.program
                    .next_args(self.compiled, results, &self.carry, &self.fresh)?,
            );
        Ok((elapsed, report))
    }

    /// One untimed call.
    pub fn warm(&mut self) -> Result<(), Error> {
        self.call(&RunOptions::default()).map(|_| ())
    }

    /// One timed call.
    pub fn step(&mut self) -> Result<(), Error> {
        let (t, report) = self.call(&RunOptions::default())?;
        self.times.push(t);
        self.last = Some(report);
        Ok(())
    }

    /// What the calls so far measured; `ring_times`: calls with the ring collectives.
    pub fn stepped(mut self, mut ring_times: Vec<Duration>) -> Stepped {
        self.times.sort();
        ring_times.sort();
        let devs = self
            .last
            .as_ref()
            .map(|r| r.stats.devices.clone())
            .unwrap_or_default();
        let mean = |f: &dyn Fn(&shardc_runtime::backend::DeviceStats) -> Duration| {
            devs.iter().map(f).sum::<Duration>() / devs.len().max(1) as u32
        };
        Stepped {
            prepare: self.prepare,
            first_call: self.first_call,
            tier_up: self.tier_up,
            median: self
                .times
                .get(self.times.len() / 2)
                .copied()
                .unwrap_or(self.first_call),
            median_ring: ring_times.get(ring_times.len() / 2).copied(),
            bytes_sent: devs.iter().map(|d| d.bytes_sent).max().unwrap_or(0),
            peak_bytes: devs.iter().map(|d| d.peak_bytes).max().unwrap_or(0),
            compute: mean(&|d| d.compute),
            communication: mean(&|d| d.communication),
            waiting: mean(&|d| d.waiting),
            last: self.last,
        }
    }
}

/// [`step`], and with `compare_ring` as many more calls with the ring collectives
/// ([`RunOptions::shared_memory_min_bytes`] `usize::MAX`), alternating with the others so that both see the
/// same machine.
pub fn step_with(
    m: &shardc::ir::Module,
    c: &shardc::Compiled,
    engine: Engine,
    steps: usize,
    compare_ring: bool,
) -> Result<Stepped, Error> {
    let mut s = Stepper::new(m, c, engine)?;
    let ring = RunOptions {
        shared_memory_min_bytes: usize::MAX,
        ..RunOptions::default()
    };
    let mut ring_times = Vec::new();
    for _ in 0..steps.max(1) {
        s.step()?;
        if compare_ring {
            ring_times.push(s.call(&ring)?.0);
        }
    }
    Ok(s.stepped(ring_times))
}

/// Two more steps with the JIT timing every kernel of the second, by kernel, summed over
/// the devices (the top 12).
fn profile(c: &shardc::Compiled, globals: &[Literal]) -> Result<Value, Error> {
    use shardc::compiler::lower::cpu::{CpuOptions, NativeCompute};
    let engine = NativeCompute::new(CpuOptions::default()).with_profiling();
    let program = CpuProgram::new(c, &engine)?;
    program.run(c, globals, f64::INFINITY)?;
    engine.finish_tiering();
    engine.clear_profile();
    program.run(c, globals, f64::INFINITY)?;
    let mut rows = engine.profile();
    rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    Ok(json!({
        "total_ms": (total * 1e6).round() / 1e3,
        "by_kernel": rows
            .iter()
            .take(12)
            .map(|r| json!({"kernel": r.kernel, "calls": r.calls, "ms": (r.seconds * 1e6).round() / 1e3}))
            .collect::<Vec<_>>(),
    }))
}
