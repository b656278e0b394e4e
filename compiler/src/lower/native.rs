//! The JIT compute engine ([`NativeCompute`]): every segment cut into fusion clusters
//! ([`super::cluster`]), each distinct cluster compiled once ([`super::cpu`]), a segment
//! run as its cluster kernels in order, passing buffers.
//!
//! ```text
//!  prepare_all(segments)
//!     | segment_function, cluster          clusters of every segment
//!     | segment_function (per cluster)     a small function; its printed text is the key
//!     | cache                              kernels compiled before (other layers, devices,
//!     |                                    segments, programs) are reused
//!     | emit, compile                      one module per kernel, on a thread per host
//!     |                                    core, the largest kernels first
//!  SegmentKernel::run                       the cluster kernels in order; a buffer is
//!                                           kept for the next run after its last reader
//! ```

use super::cluster::{cluster, is_host};
use super::cpu::{CpuKernel, CpuOptions, compile_lowered, load_lowered};
use super::gemm::Gemm;
use super::linalg::IN_PLACE;
use super::tier::{Optimizer, Tiered, Tiering};
use super::{Flavour, KERNEL, LowerError, Lowered, segment_function};
use shardc_ir::{Function, Literal, Module, text::print_function};
use shardc_runtime::engine::{
    Buffers, Compute, EngineError, Input, Kernel, Ran, Segment, stored_bytes,
};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A compute engine that JIT-compiles segments with MLIR as fusion clusters, each
/// distinct cluster once (key: its printed text, so the layers of a model, its forward
/// and backward repeats and every device share kernels).
pub struct NativeCompute {
    options: CpuOptions,
    threads: usize,
    /// `None`: every kernel compiled at `options.opt_level` straight away.
    tiering: Option<Tiering>,
    optimizer: Arc<Optimizer>,
    cache: Mutex<HashMap<String, Arc<Tiered>>>,
    stats: Mutex<NativeStats>,
    profile: Option<Arc<Profile>>,
}

impl Default for NativeCompute {
    fn default() -> NativeCompute {
        NativeCompute::new(CpuOptions::default())
    }
}

/// What a [`NativeCompute`] has done.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct NativeStats {
    /// Segments prepared.
    pub segments: usize,
    /// Cluster kernels in them (each compiled or reused).
    pub kernels: usize,
    /// Distinct kernels compiled.
    pub compiled: usize,
    /// Kernels served from the cache (compiled for another cluster with the same text).
    pub reused: usize,
    /// Modules compiled (one per kernel compiled, each with its own LLVM engine).
    pub modules: usize,
    /// Time spent compiling modules, summed over the threads that compiled them.
    pub compile_seconds: f64,
    /// Modules loaded from the disk cache (`cache.rs`) instead of compiled; counted in
    /// `modules` too.
    pub loaded: usize,
    /// Clusters run by the reference interpreter (ops kernels do not lower: `shardc.random`,
    /// the factorizations, loops and branches whose regions are not one segment each);
    /// counted in `kernels` too.
    pub hosted: usize,
    /// Matmuls run by the library GEMM (`gemm.rs`), not compiled; counted in `kernels`
    /// too.
    pub library: usize,
    /// Loops and branches the engine runs itself, their condition and body (or each
    /// branch) prepared as kernels once (their kernels counted as any others'); counted in
    /// `kernels` too.
    pub loops: usize,
    /// Kernels first compiled at the tiering's first level (`tier.rs`), and those of them
    /// compiled again at the full level since (in the background or by
    /// [`NativeCompute::finish_tiering`]).
    pub first_level: usize,
    /// First-level kernels compiled again at the full level since.
    pub optimized: usize,
    /// Clusters whose kernel updates an input in place (a `dynamic_update_slice` or a
    /// `scatter` writing into its operand's buffer); counted in `kernels` too.
    pub in_place: usize,
}

/// One kernel's share of the time [`NativeCompute::with_profiling`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    /// The cluster's ops and its first output's type, e.g.
    /// `dot_general + add -> tensor<1024x512xf32>`.
    pub kernel: String,
    /// Runs, over every segment and device that used it.
    pub calls: usize,
    /// Seconds spent in it.
    pub seconds: f64,
}

#[derive(Default)]
struct Profile {
    /// By kernel key: description, calls, time.
    rows: Mutex<HashMap<usize, (String, usize, Duration)>>,
    /// Kernel keys to row numbers.
    ids: Mutex<HashMap<String, usize>>,
}

impl NativeCompute {
    /// An engine compiling with `options`, tiered ([`Tiering::default`]: kernels first
    /// compiled at O0, hot ones again at `options.opt_level` in the background).
    pub fn new(options: CpuOptions) -> NativeCompute {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        NativeCompute {
            optimizer: Optimizer::new(options.clone(), threads),
            options,
            threads,
            tiering: Some(Tiering::default()),
            cache: Mutex::default(),
            stats: Mutex::default(),
            profile: None,
        }
    }

    /// Compiles on at most `threads` threads (default: the host's cores).
    pub fn with_threads(mut self, threads: usize) -> NativeCompute {
        self.threads = threads.max(1);
        self.optimizer = Optimizer::new(self.options.clone(), self.threads);
        self
    }

    /// How kernels are tiered; `None`: each compiled once, at the full level.
    pub fn with_tiering(mut self, tiering: Option<Tiering>) -> NativeCompute {
        self.tiering = tiering;
        self
    }

    /// Compiles every kernel still at its first level at the full level now, on up to
    /// `threads` threads, and returns when all are swapped in (a benchmark's steady state;
    /// a training loop need not call it: hot kernels tier up by themselves).
    pub fn finish_tiering(&self) {
        let kernels: Vec<Arc<Tiered>> = self.lock_cache().values().cloned().collect();
        self.optimizer.finish(kernels);
    }

    /// Times every kernel run (see [`NativeCompute::profile`]).
    pub fn with_profiling(mut self) -> NativeCompute {
        self.profile = Some(Arc::default());
        self
    }

    /// What the engine prepared, compiled and reused so far.
    pub fn stats(&self) -> NativeStats {
        let mut stats = *self.lock_stats();
        stats.optimized = self
            .optimizer
            .optimized
            .load(std::sync::atomic::Ordering::Relaxed);
        stats
    }

    /// The time of every kernel run so far, longest first (empty unless
    /// [`NativeCompute::with_profiling`]).
    pub fn profile(&self) -> Vec<KernelTime> {
        let Some(p) = &self.profile else {
            return Vec::new();
        };
        let rows = p.rows.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<KernelTime> = rows
            .values()
            .map(|(kernel, calls, time)| KernelTime {
                kernel: kernel.clone(),
                calls: *calls,
                seconds: time.as_secs_f64(),
            })
            .collect();
        out.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        out
    }

    /// Forgets the times measured so far.
    pub fn clear_profile(&self) {
        if let Some(p) = &self.profile {
            for row in p
                .rows
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .values_mut()
            {
                row.1 = 0;
                row.2 = Duration::ZERO;
            }
        }
    }

    /// The compiled kernel of a function, as one kernel (no clusters), from the cache or
    /// compiled now.
    pub fn kernel(&self, f: &Function) -> Result<Arc<CpuKernel>, LowerError> {
        let key = print_function(f);
        if let Some(k) = self.lock_cache().get(&key) {
            self.lock_stats().reused += 1;
            return Ok(k.current());
        }
        let k = super::cpu::compile(f, &self.options)?;
        let mut stats = self.lock_stats();
        stats.compiled += 1;
        stats.modules += 1;
        stats.compile_seconds += k.compile_time().as_secs_f64();
        let k = Arc::new(Tiered::done(k));
        self.lock_cache().insert(key, Arc::clone(&k));
        Ok(k.current())
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Tiered>>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_stats(&self) -> std::sync::MutexGuard<'_, NativeStats> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Compiles the kernels `wanted` (key, function) that the cache lacks, each as a
    /// module of its own, on up to `threads` threads (the largest first), into the cache;
    /// the error of each kernel that failed, by key.
    ///
    /// One module per kernel: compiling many kernels as the functions of one module costs
    /// more than compiling them apart (measured on the GPT step's 145 kernels: 8.7 s of
    /// modules of one kernel, 23-33 s as two modules of ~72), as the transform script
    /// and the passes over a module grow faster than its size.
    fn compile(&self, wanted: Vec<(String, Function)>) -> HashMap<String, Arc<LowerError>> {
        let mut failed = HashMap::new();
        // Emit first (cheap): an op kernels do not lower fails its own cluster only.
        let mut lowered: Vec<(String, Lowered)> = Vec::new();
        let dump = std::env::var_os("SHARDC_DUMP_KERNELS").map(std::path::PathBuf::from);
        for (i, (key, f)) in wanted.into_iter().enumerate() {
            if let Some(dir) = &dump {
                // Observability only: a failed write does not stop compilation.
                let _ = std::fs::write(
                    dir.join(format!("{KERNEL}_{i}.mlir")),
                    format!("module {{\n{key}}}\n"),
                );
            }
            match super::linalg::emit(&f, Flavour::Cpu, self.options.math) {
                Ok(l) => lowered.push((key, l)),
                Err(e) => {
                    failed.insert(key, Arc::new(e));
                }
            }
        }
        // Largest first, so that no thread is left with a long kernel at the end.
        let cost = |l: &Lowered| l.ops.len() + 20_000 * l.matmuls.len();
        lowered.sort_by_key(|(_, l)| std::cmp::Reverse(cost(l)));
        let next = std::sync::atomic::AtomicUsize::new(0);
        // Each kernel and whether it is at the full level.
        type Compiled = Result<(CpuKernel, bool), LowerError>;
        let results: Mutex<Vec<(usize, Compiled)>> = Mutex::default();
        let first = self.tiering.map(|t| CpuOptions {
            opt_level: t.first_level,
            cache: None,
            ..self.options.clone()
        });
        let threads = self.threads.min(lowered.len());
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((_, l)) = lowered.get(i) else {
                            break;
                        };
                        let start = Instant::now();
                        let r = match &first {
                            // The full level when an earlier process stored it.
                            Some(first) => match load_lowered(l, &self.options, start) {
                                Some(k) => Ok((k, true)),
                                None => compile_lowered(l, first, None, start).map(|k| (k, false)),
                            },
                            None => {
                                compile_lowered(l, &self.options, None, start).map(|k| (k, true))
                            }
                        };
                        results
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push((i, r));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        results.sort_by_key(|(i, _)| *i);
        if results.len() < lowered.len() {
            // A compile thread panicked (MLIR aborts rather than panics, so this is a
            // shardc bug): the kernels it did not hand back fail.
            let done: HashSet<usize> = results.iter().map(|(i, _)| *i).collect();
            let e = Arc::new(LowerError::Jit("a compile thread panicked".into()));
            for (i, (key, _)) in lowered.iter().enumerate() {
                if !done.contains(&i) {
                    failed.insert(key.clone(), Arc::clone(&e));
                }
            }
        }
        let mut cache = self.lock_cache();
        let mut stats = self.lock_stats();
        let mut lowered: Vec<Option<(String, Lowered)>> = lowered.into_iter().map(Some).collect();
        for (i, r) in results {
            let Some((key, l)) = lowered[i].take() else {
                continue;
            };
            match r {
                Ok((k, full)) => {
                    stats.modules += 1;
                    stats.loaded += usize::from(k.loaded_from_disk());
                    stats.compile_seconds += k.compile_time().as_secs_f64();
                    let k = if full {
                        Tiered::done(k)
                    } else {
                        stats.first_level += 1;
                        Tiered::first(k, l, &self.optimizer)
                    };
                    cache.insert(key, Arc::new(k));
                }
                Err(e) => {
                    failed.insert(key, Arc::new(e));
                }
            }
        }
        failed
    }

    /// The profile row of a kernel (created on first use).
    fn profile_row(&self, key: &str, describe: impl FnOnce() -> String) -> Option<usize> {
        let p = self.profile.as_ref()?;
        let mut ids = p.ids.lock().unwrap_or_else(|p| p.into_inner());
        let next = ids.len();
        let id = *ids.entry(key.to_string()).or_insert(next);
        p.rows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(id)
            .or_insert_with(|| (describe(), 0, Duration::ZERO));
        Some(id)
    }
}

/// A cluster of a segment, ready to compile or look up.
struct Planned {
    /// The cluster as a segment of the segment function.
    cluster: Segment,
    key: String,
    /// Run by the reference interpreter (`cluster::Role::Host`), not compiled.
    host: bool,
    /// Run by the library GEMM, not compiled.
    gemm: Option<Arc<Gemm>>,
    /// The input the kernel updates in place, and the output it becomes ([`in_place`]).
    in_place: Option<InPlace>,
}

/// An update in place: the input of a cluster whose buffer becomes one of its outputs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct InPlace {
    /// Its position among the cluster's inputs.
    input: usize,
    /// Its position among the cluster's outputs.
    output: usize,
}

/// The input a cluster may update in place: the operand its root writes into, when no
/// other op of the cluster reads it and the root's result leaves the cluster. The root
/// is a compiled `dynamic_update_slice` (`lax.scan`'s stacked outputs, a cache written a
/// row at a time; not of `i1`, which kernels write through bytes of their own) or a
/// one-input `scatter` on the host (`x.at[i].set(v)` in a loop). Its kernel takes the
/// operand's buffer as that output and writes the updated elements only (`linalg.rs`,
/// `reference::scatter_onto`): a loop writing one row per iteration moves a row, not
/// the whole tensor, each time.
fn in_place(sf: &Function, c: &Segment) -> Option<InPlace> {
    use shardc_ir::OpKind;
    let root = sf.op(*c.ops.last()?);
    let into = *root.operands.first()?;
    let reads = |o: &shardc_ir::OpId| sf.op(*o).operands.iter().filter(|&&v| v == into).count();
    let updates = match root.kind {
        OpKind::DynamicUpdateSlice => sf.ty(into).dtype != shardc_ir::DType::I1,
        OpKind::Scatter(_) => root.operands.len() == 3,
        _ => false,
    };
    if !updates || c.ops.iter().map(reads).sum::<usize>() != 1 {
        return None;
    }
    Some(InPlace {
        input: c.inputs.iter().position(|&v| v == into)?,
        output: c.outputs.iter().position(|v| root.results.contains(v))?,
    })
}

/// The function of cluster `c` of `sf`, its root marked [`IN_PLACE`] when its kernel
/// updates an input in place ([`in_place`]).
fn cluster_function(sf: &Function, c: &Segment) -> Result<Function, LowerError> {
    let mut cf = segment_function(sf, c)?;
    if let Some(&root) = cf.body().ops.last()
        && cf.op(root).kind == shardc_ir::OpKind::DynamicUpdateSlice
        && in_place(sf, c).is_some()
    {
        cf.ops[root.index()]
            .attrs
            .push((IN_PLACE.to_string(), "true".to_string()));
    }
    Ok(cf)
}

/// A cluster whose op kernels do not lower (a loop, a case, `shardc.random`): its
/// function run by the reference interpreter.
struct HostKernel {
    module: Module,
    outputs: Vec<shardc_ir::TensorType>,
    /// A lone `scatter`, `convolution` or `select_and_scatter` (the function's one op,
    /// reading only arguments, its result returned): the op and, per operand, the
    /// argument it is. Written into the output buffer, where its form allows, by
    /// `reference::scatter_into`, the GEMM (`conv.rs`) or
    /// `reference::select_and_scatter_into`.
    lone: Option<(shardc_ir::OpId, Vec<usize>)>,
    /// A lone one-input `scatter` updating its operand in place ([`in_place`]): the
    /// kernel is given the other arguments, and the operand's value as its output.
    in_place: Option<InPlace>,
}

impl HostKernel {
    /// `in_place`: the update in place the segment asks for, taken where the function is
    /// a lone scatter of that operand.
    fn new(f: Function, in_place: Option<InPlace>) -> HostKernel {
        use shardc_ir::OpKind;
        let lone = match (f.body_ops().collect::<Vec<_>>().as_slice(), f.results()) {
            ([(id, op)], [result])
                if matches!(
                    op.kind,
                    OpKind::Scatter(_) | OpKind::Convolution(_) | OpKind::SelectAndScatter(_)
                ) && op.results.as_slice() == [*result] =>
            {
                let args = f.args();
                op.operands
                    .iter()
                    .map(|v| args.iter().position(|a| a == v))
                    .collect::<Option<Vec<usize>>>()
                    .map(|at| (*id, at))
            }
            _ => None,
        };
        let in_place = in_place.filter(|u| match &lone {
            Some((op, at)) => {
                matches!(f.op(*op).kind, OpKind::Scatter(_))
                    && matches!(at.as_slice(), [x, i, up] if *x == u.input && *i != u.input && *up != u.input)
                    && u.output == 0
            }
            None => false,
        });
        HostKernel {
            in_place,
            outputs: f.result_types(),
            module: Module {
                functions: vec![f],
                ..Module::default()
            },
            lone,
        }
    }

    fn run_refs_into(
        &self,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        if let Some(u) = self.in_place {
            return self.run_in_place(u, inputs, outputs);
        }
        if let (Some((op, at)), Some(f), [out]) =
            (&self.lone, self.module.functions.first(), &mut *outputs)
        {
            let operands: Vec<&Literal> =
                at.iter().filter_map(|&k| inputs.get(k).copied()).collect();
            let op = f.op(*op);
            let done = match (&op.kind, operands.as_slice()) {
                (shardc_ir::OpKind::Scatter(_), _) if operands.len() == at.len() => {
                    shardc_runtime::reference::scatter_into(f, op, &operands, out)?
                }
                (shardc_ir::OpKind::Convolution(_), [x, k]) => {
                    super::conv::convolve_into(op, x, k, out)?
                }
                (shardc_ir::OpKind::SelectAndScatter(_), _) if operands.len() == at.len() => {
                    shardc_runtime::reference::select_and_scatter_into(f, op, &operands, out)?
                }
                _ => false,
            };
            if done {
                return Ok(());
            }
        }
        let owned: Vec<Literal> = inputs.iter().map(|&l| l.clone()).collect();
        let results = shardc_runtime::reference::run(&self.module, KERNEL, &owned)?;
        for (slot, r) in outputs.iter_mut().zip(results) {
            *slot = r;
        }
        Ok(())
    }

    /// The lone scatter onto `outputs[u.output]`, which holds the value of argument
    /// `u.input`; `inputs` are the other arguments.
    fn run_in_place(
        &self,
        u: InPlace,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        let arg = |k: usize| inputs.get(if k < u.input { k } else { k - 1 }).copied();
        if let (Some((op, at)), Some(f)) = (&self.lone, self.module.functions.first())
            && let [_, i, up] = at.as_slice()
            && let (Some(indices), Some(update)) = (arg(*i), arg(*up))
            && let Some(out) = outputs.get_mut(u.output)
            && shardc_runtime::reference::scatter_onto(f, f.op(*op), indices, update, out)?
        {
            return Ok(());
        }
        // Another update computation: the interpreter, on the operand read back.
        let mut owned: Vec<Literal> = inputs.iter().map(|&l| l.clone()).collect();
        let operand = outputs
            .get(u.output)
            .ok_or("an update in place lacks its output")?;
        owned.insert(u.input.min(owned.len()), operand.clone());
        let results = shardc_runtime::reference::run(&self.module, KERNEL, &owned)?;
        for (slot, r) in outputs.iter_mut().zip(results) {
            *slot = r;
        }
        Ok(())
    }
}

/// A region of a loop as a function (its block arguments, then the values the loop
/// captures), prepared by the engine like any segment: compiled once, run per iteration.
struct RegionKernel {
    /// `None` when the region computes nothing (it returns arguments).
    kernel: Option<Box<dyn Kernel>>,
    /// The argument positions the kernel reads, in its input order.
    reads: Vec<usize>,
    /// Where each result comes from: the kernel's output `Ok(i)` or argument `Err(j)`.
    results: Vec<Result<usize, usize>>,
}

impl RegionKernel {
    /// `None` when the region is not one compute segment.
    fn new(engine: &NativeCompute, g: Function) -> Option<RegionKernel> {
        let steps = shardc_runtime::engine::steps(&g);
        let position = |v: shardc_ir::ValueId| g.args().iter().position(|&a| a == v);
        let (kernel, seg) = match steps.as_slice() {
            [] => (None, None),
            [shardc_runtime::engine::Step::Compute(seg)] => {
                let module = Module {
                    functions: vec![g.clone()],
                    ..Module::default()
                };
                (Some(engine.prepare(&module, &g, seg).ok()?), Some(seg))
            }
            _ => return None,
        };
        let reads = seg.map_or(Ok(Vec::new()), |s| {
            s.inputs.iter().map(|&v| position(v).ok_or(())).collect()
        });
        let results = g
            .results()
            .iter()
            .map(
                |&r| match seg.and_then(|s| s.outputs.iter().position(|&o| o == r)) {
                    Some(i) => Some(Ok(i)),
                    None => position(r).map(Err),
                },
            )
            .collect::<Option<Vec<_>>>()?;
        Some(RegionKernel {
            kernel,
            reads: reads.ok()?,
            results,
        })
    }

    /// The region's results from `carried` (moved in) and `captured`: a result that is a
    /// carried value passed through is moved, not copied, and the storage of carried
    /// values nothing returns goes back to `buffers`, which the kernel's outputs are taken
    /// from (a loop's iterations reuse each other's storage).
    fn run(
        &self,
        carried: Vec<Literal>,
        captured: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let n = carried.len();
        let mut old: Vec<Option<Literal>> = carried.into_iter().map(Some).collect();
        let mut outs: Vec<Option<Literal>> = match &self.kernel {
            Some(k) => {
                // A carried value no result passes through is handed to the kernel,
                // which may update it in place (a scan's stacked outputs).
                let passed = |j: usize| self.results.contains(&Err(j));
                let mut moved: Vec<Option<Literal>> = (self.reads.iter())
                    .map(|&j| (j < n && !passed(j)).then(|| old[j].take()).flatten())
                    .collect();
                let inputs = (self.reads.iter().zip(moved.iter_mut()))
                    .map(|(&j, m)| match m.take() {
                        Some(l) => Ok(Input::Owned(l)),
                        None => match old.get(j) {
                            Some(Some(l)) => Ok(Input::Borrowed(l)),
                            Some(None) => Err("a loop region reads a carried value twice"),
                            None => Ok(Input::Borrowed(captured[j - n])),
                        },
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                k.run_owning(inputs, buffers)?
                    .outputs
                    .into_iter()
                    .map(Some)
                    .collect()
            }
            None => Vec::new(),
        };
        let mut next: Vec<Literal> = Vec::with_capacity(self.results.len());
        for (k, r) in self.results.iter().enumerate() {
            // A value returned twice is moved once and copied for the other.
            let earlier = |next: &[Literal]| {
                Some(next[self.results[..k].iter().position(|x| x == r)?].clone())
            };
            let value = match *r {
                Ok(i) => outs[i].take(),
                Err(j) if j < n => old[j].take(),
                Err(j) => Some(captured[j - n].clone()),
            };
            match value.or_else(|| earlier(&next)) {
                Some(v) => next.push(v),
                None => return Err("a loop region's result was not computed".into()),
            }
        }
        for lit in old.into_iter().chain(outs).flatten() {
            buffers.give(lit);
        }
        Ok(next)
    }
}

/// A cluster function that is one op with regions (a `while` or a `case`): the op, the
/// function's argument for each of its operands, and its result for each of the
/// function's.
struct Control<'a> {
    cf: &'a Function,
    op: &'a shardc_ir::Op,
    operands: Vec<usize>,
    results: Vec<usize>,
}

impl<'a> Control<'a> {
    fn of(cf: &'a Function) -> Option<Control<'a>> {
        let [id] = cf.body().ops.as_slice() else {
            return None;
        };
        let op = cf.op(*id);
        let position = |v| cf.args().iter().position(|&a| a == v);
        Some(Control {
            cf,
            op,
            operands: op
                .operands
                .iter()
                .map(|&v| position(v))
                .collect::<Option<_>>()?,
            results: cf
                .results()
                .iter()
                .map(|r| op.results.iter().position(|x| x == r))
                .collect::<Option<_>>()?,
        })
    }

    /// Region `block` of the op prepared by the engine: a function of its block arguments
    /// and then the values the op captures.
    fn region(&self, engine: &NativeCompute, block: shardc_ir::BlockId) -> Option<RegionKernel> {
        let captured = self.op.captured_operands();
        let g = shardc_ir::unroll::region_function(self.cf, block, KERNEL, captured).ok()?;
        RegionKernel::new(engine, g)
    }
}

/// A cluster that is one `while` (`lax.scan`, `fori_loop`, `nn.scan`): its condition and
/// body prepared by the engine once each, and the loop run here, one iteration after
/// the other, instead of interpreting the body.
struct LoopKernel {
    /// The cluster function's argument for each operand of the loop.
    operands: Vec<usize>,
    /// How many operands the loop carries (the rest it captures).
    carried: usize,
    cond: RegionKernel,
    body: RegionKernel,
    /// The loop's result for each result of the cluster function.
    results: Vec<usize>,
    outputs: Vec<shardc_ir::TensorType>,
}

impl LoopKernel {
    /// `None` when the cluster function `cf` is not one `while` whose regions are each
    /// one compute segment (it then runs interpreted).
    fn new(engine: &NativeCompute, cf: &Function) -> Option<LoopKernel> {
        let c = Control::of(cf)?;
        let (shardc_ir::OpKind::While, &[cond, body]) = (&c.op.kind, c.op.regions.as_slice())
        else {
            return None;
        };
        Some(LoopKernel {
            carried: c.op.written_operands().len(),
            cond: c.region(engine, cond)?,
            body: c.region(engine, body)?,
            operands: c.operands,
            results: c.results,
            outputs: cf.result_types(),
        })
    }

    /// The loop on `inputs` (the cluster function's arguments): an owned input that the
    /// loop carries, and reads nowhere else, becomes the carried value itself; any
    /// other carried value starts as a copy.
    fn run_inputs(
        &self,
        inputs: Vec<Input<'_>>,
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        let start = &self.operands[..self.carried];
        let once = |i: usize| self.operands.iter().filter(|&&o| o == i).count() == 1;
        let mut moved: Vec<Option<Literal>> = Vec::with_capacity(inputs.len());
        let mut kept: Vec<Option<Input<'_>>> = Vec::with_capacity(inputs.len());
        for (i, x) in inputs.into_iter().enumerate() {
            match x {
                Input::Owned(l) if once(i) && start.contains(&i) => {
                    moved.push(Some(l));
                    kept.push(None);
                }
                x => {
                    moved.push(None);
                    kept.push(Some(x));
                }
            }
        }
        let at = |i: usize| kept.get(i).and_then(|x| x.as_ref().map(Input::literal));
        let missing = "a loop's operand is not among its cluster's inputs";
        let carried = (start.iter())
            .map(|&i| match moved.get_mut(i).and_then(Option::take) {
                Some(l) => Ok(l),
                None => at(i).cloned().ok_or(missing),
            })
            .collect::<Result<Vec<Literal>, _>>()?;
        let captured = (self.operands[self.carried..].iter())
            .map(|&i| at(i).ok_or(missing))
            .collect::<Result<Vec<&Literal>, _>>()?;
        self.run(carried, &captured, outputs)
    }

    fn run(
        &self,
        mut carried: Vec<Literal>,
        captured: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        let mut buffers = Buffers::default();
        loop {
            let args: Vec<&Literal> = carried.iter().chain(captured.iter().copied()).collect();
            let go = match &self.cond.kernel {
                Some(k) => {
                    let reads: Vec<&Literal> = self.cond.reads.iter().map(|&j| args[j]).collect();
                    k.run_reusing(&reads, &mut buffers)?
                }
                None => Vec::new(),
            };
            let go = match self.cond.results.first() {
                Some(Ok(i)) => go.get(*i).is_some_and(|c| c.get(0).as_bool()),
                Some(Err(j)) => args[*j].get(0).as_bool(),
                None => false,
            };
            if !go {
                break;
            }
            carried = self.body.run(carried, captured, &mut buffers)?;
        }
        hand_out(carried, &self.results, outputs)
    }
}

/// A cluster that is one `case` (`lax.cond`, `lax.switch`): each branch prepared by the
/// engine once, and the branch the index picks run here instead of interpreting it.
struct CaseKernel {
    /// The cluster function's argument for the index, and for each value the branches
    /// read from outside them.
    index: usize,
    captured: Vec<usize>,
    branches: Vec<RegionKernel>,
    /// The case's result for each result of the cluster function.
    results: Vec<usize>,
    outputs: Vec<shardc_ir::TensorType>,
}

impl CaseKernel {
    /// `None` when the cluster function `cf` is not one `case` whose branches are each one
    /// compute segment (it then runs interpreted).
    fn new(engine: &NativeCompute, cf: &Function) -> Option<CaseKernel> {
        let c = Control::of(cf)?;
        if c.op.kind != shardc_ir::OpKind::Case || c.op.regions.is_empty() {
            return None;
        }
        let branches =
            c.op.regions
                .iter()
                .map(|&block| c.region(engine, block))
                .collect::<Option<Vec<_>>>()?;
        let (&index, captured) = c.operands.split_first()?;
        Some(CaseKernel {
            index,
            captured: captured.to_vec(),
            branches,
            results: c.results,
            outputs: cf.result_types(),
        })
    }

    fn run_refs_into(
        &self,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        // An index out of range runs the last branch (StableHLO's `case`).
        let last = self.branches.len() - 1;
        let pick =
            usize::try_from(inputs[self.index].get(0).as_i64()).map_or(last, |i| i.min(last));
        let captured: Vec<&Literal> = self.captured.iter().map(|&k| inputs[k]).collect();
        let results = self.branches[pick].run(Vec::new(), &captured, &mut Buffers::default())?;
        hand_out(results, &self.results, outputs)
    }
}

/// `outputs[k]` made `values[picks[k]]`: each value moved into the first output that
/// takes it (a loop's stacked results are not copied once more) and copied into any
/// other.
fn hand_out(
    values: Vec<Literal>,
    picks: &[usize],
    outputs: &mut [Literal],
) -> Result<(), EngineError> {
    let mut values: Vec<Option<Literal>> = values.into_iter().map(Some).collect();
    for k in 0..picks.len().min(outputs.len()) {
        let r = picks[k];
        outputs[k] = match values.get_mut(r).and_then(Option::take) {
            Some(v) => v,
            None => {
                let first = (picks[..k].iter().position(|&p| p == r))
                    .ok_or("a loop's or branch's result was not computed")?;
                outputs[first].clone()
            }
        };
    }
    Ok(())
}

/// The kernel of one cluster.
#[derive(Clone)]
enum ClusterKernel {
    Compiled(Arc<Tiered>),
    Gemm(Arc<Gemm>),
    Host(Arc<HostKernel>),
    Loop(Arc<LoopKernel>),
    Case(Arc<CaseKernel>),
}

impl ClusterKernel {
    fn outputs(&self) -> &[shardc_ir::TensorType] {
        match self {
            ClusterKernel::Compiled(k) => k.outputs(),
            ClusterKernel::Gemm(k) => k.outputs(),
            ClusterKernel::Host(k) => &k.outputs,
            ClusterKernel::Loop(k) => &k.outputs,
            ClusterKernel::Case(k) => &k.outputs,
        }
    }

    /// [`ClusterKernel::run_refs_into`], a loop taking the owned inputs it carries.
    fn run_inputs_into(
        &self,
        inputs: Vec<Input<'_>>,
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        match self {
            ClusterKernel::Loop(k) => k.run_inputs(inputs, outputs),
            k => k.run_refs_into(
                &inputs.iter().map(Input::literal).collect::<Vec<_>>(),
                outputs,
            ),
        }
    }

    fn run_refs_into(
        &self,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), EngineError> {
        match self {
            ClusterKernel::Compiled(k) => Ok(k.run_refs_into(inputs, outputs)?),
            ClusterKernel::Gemm(k) => Ok(k.run_refs_into(inputs, outputs)?),
            ClusterKernel::Host(k) => k.run_refs_into(inputs, outputs),
            ClusterKernel::Loop(k) => k.run_inputs(
                inputs.iter().map(|&l| Input::Borrowed(l)).collect(),
                outputs,
            ),
            ClusterKernel::Case(k) => k.run_refs_into(inputs, outputs),
        }
    }
}

/// The segment function of a segment and its clusters; `library`: matmuls the library
/// GEMM serves (of at least that many multiply-adds) are run by it.
fn plan(
    f: &Function,
    segment: &Segment,
    library: Option<usize>,
) -> Result<(Function, Vec<Planned>), LowerError> {
    let sf = segment_function(f, segment)?;
    // Matmuls read transposed operands through (their strides), not a transposed copy.
    let sf = match crate::passes::fold::fold_operands(&sf) {
        Ok(Some(g)) => g,
        _ => sf,
    };
    let clusters = cluster(&sf, library)
        .into_iter()
        .map(|c| {
            let cf = cluster_function(&sf, &c)?;
            let host = is_host(&sf, &c);
            Ok(Planned {
                key: print_function(&cf),
                gemm: (library.filter(|_| !host))
                    .and_then(|min| Gemm::of(&cf, min))
                    .map(Arc::new),
                host,
                in_place: in_place(&sf, &c),
                cluster: c,
            })
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    Ok((sf, clusters))
}

/// `dot_general + add -> tensor<8x16xf32>`: a cluster's op kinds (its root first) and
/// its first output's type.
fn describe(sf: &Function, c: &Segment) -> String {
    let name = |o: &shardc_ir::OpId| {
        sf.op(*o)
            .kind
            .name()
            .trim_start_matches("stablehlo.")
            .to_string()
    };
    let mut names: Vec<String> = Vec::new();
    if let Some(root) = c.ops.last() {
        names.push(name(root));
    }
    for o in c.ops.iter().rev().skip(1) {
        let n = name(o);
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let ty = c
        .outputs
        .first()
        .map(|&v| sf.ty(v).to_string())
        .unwrap_or_default();
    format!("{} -> {ty}", names.join(" + "))
}

/// A cluster and its kernel, as [`SegmentKernel::new`] takes them.
struct Placed {
    cluster: Segment,
    kernel: ClusterKernel,
    /// Its profile row.
    profile: Option<usize>,
    /// The input its kernel updates in place ([`in_place`]).
    in_place: Option<InPlace>,
}

/// One cluster kernel of a segment: which buffers it reads and writes.
struct Step {
    kernel: ClusterKernel,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    /// Buffers no later step reads (and the segment does not return): dropped after it.
    free: Vec<usize>,
    profile: Option<usize>,
    /// The input whose buffer the kernel takes as one of its outputs, holding the
    /// input's value, and updates: moved there when this step frees it and the run
    /// owns it, else copied. The kernel is given the other inputs.
    in_place: Option<InPlace>,
}

/// A segment as its cluster kernels. Buffers are numbered by the segment function's
/// values.
struct SegmentKernel {
    buffers: usize,
    inputs: Vec<usize>,
    steps: Vec<Step>,
    outputs: Vec<usize>,
    /// The step and output position that writes each buffer a step writes.
    writer: HashMap<usize, (usize, usize)>,
    /// Workspaces of earlier runs: each the intermediate buffers of one run, by step and
    /// output position, written again by a later run (a kernel writes every element of
    /// its outputs) instead of allocated and zeroed anew. A run takes a whole workspace
    /// (a new, empty one when every kept one is in use: devices running this segment at
    /// the same time) and gives it back at its end, so each of several devices sharing
    /// the kernel keeps reusing buffers of its own.
    spare: Mutex<Vec<Workspace>>,
    profile: Option<Arc<Profile>>,
}

/// One run's intermediate buffers, by step and output position.
type Workspace = Vec<Vec<Option<Literal>>>;

impl SegmentKernel {
    fn new(sf: &Function, clusters: Vec<Placed>, profile: Option<Arc<Profile>>) -> SegmentKernel {
        let outputs: Vec<usize> = sf.results().iter().map(|v| v.index()).collect();
        let mut needed: HashSet<usize> = outputs.iter().copied().collect();
        let mut steps: Vec<Step> = clusters
            .into_iter()
            .map(|p| Step {
                kernel: p.kernel,
                inputs: p.cluster.inputs.iter().map(|v| v.index()).collect(),
                outputs: p.cluster.outputs.iter().map(|v| v.index()).collect(),
                free: Vec::new(),
                profile: p.profile,
                in_place: p.in_place,
            })
            .collect();
        for step in steps.iter_mut().rev() {
            for &b in &step.inputs {
                if needed.insert(b) {
                    step.free.push(b);
                }
            }
        }
        let writer = steps
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.outputs.iter().enumerate().map(move |(j, &b)| (b, (i, j))))
            .collect();
        let spare = Mutex::new(Vec::new());
        SegmentKernel {
            buffers: sf.values.len(),
            inputs: sf.args().iter().map(|v| v.index()).collect(),
            steps,
            outputs,
            writer,
            spare,
            profile,
        }
    }
}

impl Kernel for SegmentKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let inputs = inputs.iter().map(|&l| Input::Borrowed(l)).collect();
        Ok(self.run_owning(inputs, buffers)?.outputs)
    }

    /// The cluster kernels in order; an owned input goes back to `buffers` after the
    /// last cluster that reads it, where the outputs of later clusters find it.
    fn run_owning(
        &self,
        inputs: Vec<Input<'_>>,
        buffers: &mut Buffers,
    ) -> Result<Ran, EngineError> {
        if inputs.len() != self.inputs.len() {
            return Err(format!(
                "the segment takes {} inputs, {} were given",
                self.inputs.len(),
                inputs.len()
            )
            .into());
        }
        let mut env: Vec<Option<Cow<Literal>>> = (0..self.buffers).map(|_| None).collect();
        for (&b, input) in self.inputs.iter().zip(inputs) {
            env[b] = Some(match input {
                Input::Borrowed(l) => Cow::Borrowed(l),
                Input::Owned(l) => Cow::Owned(l),
            });
        }
        // Bytes computed and still held, less owned inputs given back: the run's peak.
        let (mut held, mut peak) = (0i64, 0i64);
        let lock_spare = || self.spare.lock().unwrap_or_else(|p| p.into_inner());
        let mut workspace: Workspace = lock_spare().pop().unwrap_or_else(|| {
            self.steps
                .iter()
                .map(|s| vec![None; s.outputs.len()])
                .collect()
        });
        for (i, step) in self.steps.iter().enumerate() {
            // An in-place update's output: its input's buffer, moved when this step is
            // its last reader and the run owns it (a loop's carried value), else a copy.
            let updated = match step.in_place.map(|u| step.inputs[u.input]) {
                Some(b) if step.free.contains(&b) && matches!(env[b], Some(Cow::Owned(_))) => {
                    let lit = env[b].take().map(Cow::into_owned);
                    held -= lit.as_ref().map_or(0, stored_bytes) as i64;
                    lit
                }
                // A copy, into storage of the run's (this step's buffer of the last run).
                Some(b) => env[b].as_deref().map(|src| {
                    let slot = step.in_place.and_then(|u| workspace[i][u.output].take());
                    let mut copy = slot.unwrap_or_else(|| buffers.take(&src.ty));
                    copy.copy_from(src);
                    copy
                }),
                None => None,
            };
            let missing = "a cluster reads a buffer no earlier cluster wrote (a bug in clustering)";
            if step.in_place.is_some() && updated.is_none() {
                return Err(missing.into());
            }
            // A loop takes the values it reads last and the run owns: what it carries of
            // them it carries without a copy. (Other kernels borrow every input.)
            let handed: Vec<Option<Literal>> = match step.kernel {
                ClusterKernel::Loop(_) => (step.inputs.iter())
                    .map(|&b| {
                        let last = step.free.contains(&b) && matches!(env[b], Some(Cow::Owned(_)));
                        let lit = last.then(|| env[b].take().map(Cow::into_owned)).flatten();
                        held -= lit.as_ref().map_or(0, stored_bytes) as i64;
                        lit
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let handed = handed.into_iter().chain(std::iter::repeat_with(|| None));
            let args = (step.inputs.iter().zip(handed).enumerate())
                .filter(|&(k, _)| Some(k) != step.in_place.map(|u| u.input))
                .map(|(_, (&b, h))| match h {
                    Some(l) => Some(Input::Owned(l)),
                    None => env[b].as_deref().map(Input::Borrowed),
                })
                .collect::<Option<Vec<Input>>>()
                .ok_or(missing)?;
            let mut updated = updated;
            let at = step.in_place.map(|u| u.output);
            let mut outs: Vec<Literal> = (step.kernel.outputs().iter())
                .zip(workspace[i].iter_mut())
                .enumerate()
                .map(|(o, (t, slot))| match updated.take_if(|_| Some(o) == at) {
                    Some(lit) => {
                        if let Some(spare) = slot.take() {
                            buffers.give(spare);
                        }
                        lit
                    }
                    None => slot.take().unwrap_or_else(|| buffers.take(t)),
                })
                .collect();
            let start = step.profile.map(|_| Instant::now());
            step.kernel.run_inputs_into(args, &mut outs)?;
            if let (Some(start), Some(row), Some(p)) = (start, step.profile, &self.profile) {
                let elapsed = start.elapsed();
                if let Some(r) = p
                    .rows
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_mut(&row)
                {
                    r.1 += 1;
                    r.2 += elapsed;
                }
            }
            held += outs.iter().map(stored_bytes).sum::<u64>() as i64;
            peak = peak.max(held);
            for (&b, o) in step.outputs.iter().zip(outs) {
                env[b] = Some(Cow::Owned(o));
            }
            for &b in &step.free {
                if let Some(Cow::Owned(lit)) = env[b].take() {
                    held -= stored_bytes(&lit) as i64;
                    match self.writer.get(&b) {
                        Some(&(w, j)) => workspace[w][j] = Some(lit),
                        None => buffers.give(lit),
                    }
                }
            }
        }
        lock_spare().push(workspace);
        let outputs = self
            .outputs
            .iter()
            .map(|&b| {
                env[b]
                    .take()
                    .map(Cow::into_owned)
                    .ok_or_else(|| "an output of the segment was not computed".into())
            })
            .collect::<Result<Vec<_>, EngineError>>()?;
        // Owned inputs no cluster read (nor returned) are free now.
        for b in &self.inputs {
            if let Some(Cow::Owned(lit)) = env[*b].take() {
                buffers.give(lit);
            }
        }
        Ok(Ran {
            outputs,
            peak: peak.max(0) as u64,
        })
    }
}

/// A kernel error shared by every segment that needs the kernel.
#[derive(Debug)]
struct Shared(Arc<LowerError>);

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Shared {}

impl Drop for NativeCompute {
    /// No background compile outlives the engine (nor runs while the process exits).
    fn drop(&mut self) {
        self.optimizer.stop();
    }
}

impl Compute for NativeCompute {
    fn finish_tiering(&self) {
        NativeCompute::finish_tiering(self);
    }

    fn prepare(
        &self,
        module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        self.prepare_all(module, f, &[segment])
            .pop()
            .unwrap_or_else(|| Err("no kernel was prepared".into()))
    }

    fn prepare_all(
        &self,
        _module: &Module,
        f: &Function,
        segments: &[&Segment],
    ) -> Vec<Result<Box<dyn Kernel>, EngineError>> {
        let planned: Vec<Result<(Function, Vec<Planned>), LowerError>> = segments
            .iter()
            .map(|s| plan(f, s, self.options.library_matmuls))
            .collect();
        // What the cache lacks, each distinct kernel once.
        let mut wanted: Vec<(String, Function)> = Vec::new();
        {
            let cache = self.lock_cache();
            let mut seen: HashSet<&str> = HashSet::new();
            for (sf, clusters) in planned.iter().flatten() {
                for p in clusters.iter().filter(|p| !p.host && p.gemm.is_none()) {
                    if !cache.contains_key(&p.key) && seen.insert(&p.key) {
                        match cluster_function(sf, &p.cluster) {
                            Ok(cf) => wanted.push((p.key.clone(), cf)),
                            // Cannot fail: `plan` built the same function.
                            Err(_) => continue,
                        }
                    }
                }
            }
        }
        // Loops and branches run by the engine itself, their regions prepared (and
        // compiled) here, before the cache is locked below: preparing locks it too.
        let mut loops: HashMap<String, ClusterKernel> = HashMap::new();
        for (sf, clusters) in planned.iter().flatten() {
            for p in clusters.iter().filter(|p| p.host) {
                if loops.contains_key(&p.key) {
                    continue;
                }
                let Ok(cf) = segment_function(sf, &p.cluster) else {
                    continue;
                };
                let kernel = match LoopKernel::new(self, &cf) {
                    Some(k) => Some(ClusterKernel::Loop(Arc::new(k))),
                    None => CaseKernel::new(self, &cf).map(|k| ClusterKernel::Case(Arc::new(k))),
                };
                if let Some(k) = kernel {
                    loops.insert(p.key.clone(), k);
                }
            }
        }
        let tried = wanted.len();
        let failed = self.compile(wanted);
        let cache = self.lock_cache();
        let mut stats = self.lock_stats();
        let compiled = tried - failed.len();
        stats.compiled += compiled;
        let mut used = 0;
        let mut hosted = 0;
        let mut looped = 0;
        let mut library = 0;
        let mut updated = 0;
        let kernels: Vec<Result<Box<dyn Kernel>, EngineError>> =
            planned
                .into_iter()
                .map(|p| {
                    let (sf, clusters) = p?;
                    stats.segments += 1;
                    let mut steps = Vec::with_capacity(clusters.len());
                    for p in clusters {
                        if let Some(e) = failed.get(&p.key) {
                            return Err(Box::new(Shared(Arc::clone(e))) as EngineError);
                        }
                        let kernel =
                            if let Some(k) = loops.get(&p.key) {
                                looped += 1;
                                k.clone()
                            } else if let Some(g) = &p.gemm {
                                library += 1;
                                ClusterKernel::Gemm(Arc::clone(g))
                            } else if p.host {
                                hosted += 1;
                                let cf = segment_function(&sf, &p.cluster)?;
                                ClusterKernel::Host(Arc::new(HostKernel::new(cf, p.in_place)))
                            } else {
                                ClusterKernel::Compiled(cache.get(&p.key).cloned().ok_or(
                                    "a kernel is missing from the cache after compiling it",
                                )?)
                            };
                        let row = self.profile_row(&p.key, || {
                            let d = describe(&sf, &p.cluster);
                            if p.gemm.is_some() {
                                format!("{d} (gemm)")
                            } else {
                                d
                            }
                        });
                        let in_place = match &kernel {
                            ClusterKernel::Compiled(_) => p.in_place,
                            ClusterKernel::Host(k) => k.in_place,
                            _ => None,
                        };
                        updated += usize::from(in_place.is_some());
                        steps.push(Placed {
                            cluster: p.cluster,
                            kernel,
                            profile: row,
                            in_place,
                        });
                    }
                    used += steps.len();
                    Ok(
                        Box::new(SegmentKernel::new(&sf, steps, self.profile.clone()))
                            as Box<dyn Kernel>,
                    )
                })
                .collect();
        stats.kernels += used;
        stats.hosted += hosted;
        stats.loops += looped;
        stats.library += library;
        stats.in_place += updated;
        stats.reused += used.saturating_sub(compiled + hosted + looped + library);
        kernels
    }
}
