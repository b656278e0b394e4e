//! Pipeline parallelism as one SPMD program (GSPMD's formulation, as praxis builds it):
//! `docs/pipeline.md`.
//!
//! A model of `S` stages of one shape has its parameters *stacked*: each parameter is
//! `[S, ...]`, split over the mesh axis `pipe` (of size `S`) on dimension 0, so the device
//! at `pipe` index `s` holds stage `s`. The stage function is written batched over that
//! leading dimension (`[S, mb, ...] -> [S, mb, ...]`), so one call runs every stage at
//! once, each device its own. A state buffer `[S, mb, ...]`, split the same way, carries
//! the activations: at a forward tick, a microbatch enters slot 0, every stage runs, and
//! `roll(out, 1, 0)` hands each stage's output to the next: a `shardc.rotate` along the
//! split dimension, which partitions into one `collective_permute` over `pipe` (device `s`
//! to `s + 1`) of one microbatch's activations. A backward tick runs every stage's VJP on
//! the stage input it kept (recomputing the stage's forward from it, as GPipe's
//! re-materialization does) and `roll(dx, -1, 0)` hands the cotangents back a stage.
//!
//! A [`Schedule`] is a table of ticks: which microbatch each stage runs forward and
//! backward at each tick. One executor runs any table; the schedules differ only in
//! order, and so in how long each tick's kept stage inputs stay alive:
//! - **GPipe**: `M + S - 1` forward ticks, then their mirror; a device keeps every
//!   forward tick's stage input (and every microbatch's loss gradient) until the
//!   backward half.
//! - **1F1B**: after `S - 1` warm-up ticks each tick runs one forward and one backward
//!   per stage; stage `s` runs the backward of a microbatch `2(S - 1 - s)` ticks after
//!   its forward, so at most `2S - 1` ticks' inputs are alive at once.
//!
//! The loss runs on the last stage only: the per-stage loss function is applied batched
//! over the stages and scaled to zero on every stage but `S - 1`, so the activations
//! never leave the pipe; only the scalar loss is summed over `pipe` at the end.

use crate::step::{Optimizer, StepLayout, TrainStep, step_around};
use crate::strategy::{Layouts, Parallelism, Strategy, axis};
use shardc::Error;
use shardc::{DType, Lowered, Mesh, P, Tensor, TensorType, jit};
use shardc::{DimSpec, PartitionSpec};
use shardc_ir::Literal;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The mesh axis the stages are split over.
pub use crate::strategy::axis::PIPE;

/// The pipeline strategy: stacked parameters split over `pipe`, the batch over `data`
/// when the mesh has it, `microbatches` microbatches through the stages in the
/// schedule's order. Built by [`train_step`] from the model's stages (its fields are
/// what the stages imply, so it is not built by hand).
#[derive(Clone, Debug)]
pub struct Pipeline {
    schedule: Schedule,
    microbatches: usize,
    specs: Vec<PartitionSpec>,
    data: bool,
}

impl Pipeline {
    /// The schedule it runs.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Microbatches per step.
    pub fn microbatches(&self) -> usize {
        self.microbatches
    }
}

impl Parallelism for Pipeline {
    fn name(&self) -> String {
        self.schedule.strategy_name().into()
    }

    fn layouts(&self, _: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        Ok(Layouts::same(self.specs.clone()))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(if self.data { P![(axis::DATA)] } else { P![] })
    }
}

/// The order in which the stages run the microbatches' forwards and backwards.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// All forwards, then all backwards in the mirror order.
    Gpipe,
    /// One forward and one backward per tick after the warm-up.
    OneFOneB,
}

impl Schedule {
    /// Its name (`gpipe`, `1f1b`).
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Gpipe => "gpipe",
            Schedule::OneFOneB => "1f1b",
        }
    }

    /// The training strategy's name.
    fn strategy_name(self) -> &'static str {
        match self {
            Schedule::Gpipe => "pipeline_gpipe",
            Schedule::OneFOneB => "pipeline_1f1b",
        }
    }

    /// What each stage does at each tick, for `stages` stages and `microbatches`
    /// microbatches.
    pub fn ticks(self, stages: usize, microbatches: usize) -> Vec<Tick> {
        let (s, m) = (stages as i64, microbatches as i64);
        let valid = |b: i64| (0..m).contains(&b).then_some(b as usize);
        let forward_ticks = m + s - 1;
        match self {
            Schedule::Gpipe => {
                let fwd = (0..forward_ticks).map(|t| Tick {
                    forward: (0..s).map(|st| valid(t - st)).collect(),
                    backward: vec![None; stages],
                });
                // The mirror: backward tick u undoes forward tick T - 1 - u.
                let bwd = (0..forward_ticks).map(|u| Tick {
                    forward: vec![None; stages],
                    backward: (0..s).map(|st| valid(forward_ticks - 1 - u - st)).collect(),
                });
                fwd.chain(bwd).collect()
            }
            Schedule::OneFOneB => (0..m + 2 * s - 2)
                .map(|t| Tick {
                    forward: (0..s)
                        .map(|st| (t < forward_ticks).then(|| valid(t - st)).flatten())
                        .collect(),
                    backward: (0..s).map(|st| valid(t - 2 * s + 2 + st)).collect(),
                })
                .collect(),
        }
    }

    /// The fraction of stage time spent idle (or on bubbles' garbage): `1 - useful /
    /// total`, with a backward costing twice a forward and a tick costing its forward if
    /// any stage forwards and its backward if any stage backwards. Both schedules give
    /// GPipe's `(S - 1) / (M + S - 1)`: 1F1B reorders the work, it does not remove the
    /// ramps.
    pub fn bubble_fraction(self, stages: usize, microbatches: usize) -> f64 {
        let (f, b) = (1.0, 2.0);
        let ticks = self.ticks(stages, microbatches);
        let total: f64 = ticks
            .iter()
            .map(|t| {
                let any = |v: &[Option<usize>]| v.iter().any(Option::is_some);
                (if any(&t.forward) { f } else { 0.0 }) + (if any(&t.backward) { b } else { 0.0 })
            })
            .sum();
        1.0 - microbatches as f64 * (f + b) / total
    }

    /// The most activation slots (`[mb, ...]` each, one microbatch's stage input or loss
    /// gradient) a device keeps for its backwards at once, counted on the tick table: a
    /// forward tick's input lives from that tick to the last backward that reads it, a
    /// microbatch's loss gradient from the last stage's forward of it to the last stage's
    /// backward of it. GPipe keeps `(M + S - 1) + M` at the turn; 1F1B `2S` once `M >=
    /// S` (`2S - 1` inputs and the gradient of the microbatch the last stage turns).
    pub fn kept_slots(self, stages: usize, microbatches: usize) -> usize {
        let ticks = self.ticks(stages, microbatches);
        let at = forward_ticks(&ticks);
        // (first tick, last tick) of every kept slot.
        let mut spans: HashMap<(bool, usize), (usize, usize)> = HashMap::new();
        for (t, tick) in ticks.iter().enumerate() {
            for (k, m) in tick.backward.iter().enumerate() {
                let Some(m) = *m else { continue };
                if let Some(&tau) = at.get(&(k, m)) {
                    let span = spans.entry((true, tau)).or_insert((tau, t));
                    span.1 = span.1.max(t);
                }
                if k + 1 == stages
                    && let Some(&f) = at.get(&(k, m))
                {
                    spans.insert((false, m), (f, t));
                }
            }
        }
        (0..ticks.len())
            .map(|t| {
                spans
                    .values()
                    .filter(|(a, b)| (*a..=*b).contains(&t))
                    .count()
            })
            .max()
            .unwrap_or(0)
    }
}

/// One tick of a schedule: per stage, the microbatch it runs forward and backward, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    /// Per tick, the microbatch whose forward this stage runs (none: idle).
    pub forward: Vec<Option<usize>>,
    /// Per tick, the microbatch whose backward this stage runs (none: idle).
    pub backward: Vec<Option<usize>>,
}

/// The schedule as a table: a row per tick, a column per stage, `F3` for the forward of
/// microbatch 3, `B3` for its backward, `.` for a bubble.
pub fn schedule_table(schedule: Schedule, stages: usize, microbatches: usize) -> String {
    let mut out = format!("tick  {}\n", {
        let cols: Vec<String> = (0..stages)
            .map(|s| format!("{:<9}", format!("stage {s}")))
            .collect();
        cols.join(" ").trim_end().to_string()
    });
    for (t, tick) in schedule.ticks(stages, microbatches).iter().enumerate() {
        let cells: Vec<String> = (0..stages)
            .map(|s| {
                let mut c = Vec::new();
                if let Some(m) = tick.forward[s] {
                    c.push(format!("F{m}"));
                }
                if let Some(m) = tick.backward[s] {
                    c.push(format!("B{m}"));
                }
                let c = if c.is_empty() {
                    ".".to_string()
                } else {
                    c.join(" ")
                };
                format!("{c:<9}")
            })
            .collect();
        out.push_str(&format!("{t:>4}  {}\n", cells.join(" ").trim_end()));
    }
    out
}

/// A pipelined model: the stage function and the per-stage loss, both batched over the
/// leading stage dimension.
///
/// - `stage(params, x)`: `params` are the stacked parameters (`[S, ...]` each), `x` the
///   activations `[S, mb, ...]`; returns the next activations, of `x`'s type (stages of one
///   shape: uneven stages are not built).
/// - `loss(out, target)`: `out` and `target` `[S, mb, ...]`; returns `[S]`, each stage's
///   loss on its microbatch (a mean over the microbatch, so that the pipeline's loss, the
///   mean over microbatches, is the mean over the batch).
#[derive(Clone)]
pub struct Stages<F, L> {
    /// `stage(params, x)`, batched over the stage dimension.
    pub stage: F,
    /// `loss(out, target)`, each stage's loss on its microbatch.
    pub loss: L,
}

/// The sizes a pipelined step works with.
#[derive(Clone, Debug)]
struct Shape {
    stages: usize,
    microbatches: usize,
    /// One microbatch: `[mb, ...]` of the inputs and of the targets.
    input: TensorType,
    target: TensorType,
    /// Whether the mesh has a `data` axis (the microbatches are split over it).
    data: bool,
}

impl Shape {
    fn state(&self, t: &TensorType) -> TensorType {
        let mut shape = vec![self.stages];
        shape.extend_from_slice(&t.shape);
        TensorType::new(t.dtype, shape)
    }

    /// `[S, mb, ...]` split over `pipe`, and over `data` on the microbatch dimension.
    fn state_spec(&self) -> PartitionSpec {
        let mut dims = vec![DimSpec::axes(&[PIPE])];
        if self.data {
            dims.push(DimSpec::axes(&[axis::DATA]));
        }
        PartitionSpec::new(dims)
    }
}

/// Traces a pipelined training step: `(params, optimizer state, step, x, y) -> (loss,
/// params', optimizer state')` on a mesh with a `pipe` axis of `S` devices (and optionally
/// `data`), for parameters stacked `[S, ...]` and a batch `x: [B, ...]`, `y: [B, ...]` cut
/// into `microbatches` microbatches (microbatch `t` holds rows `t, t + M, t + 2M, ...`, so
/// that a split of the batch over `data` splits every microbatch alike).
///
/// Errors ([`Error::Usage`]) name what does not fit, the rule and the fix: a mesh without
/// `pipe`, a parameter whose leading dimension is not `S` (or a scalar), a batch
/// `microbatches` does not divide (or none), a microbatch `data` does not split, inputs
/// and targets of different batch sizes, a batch of other than two tensors, a stage that
/// changes the activations' type, a loss that is not `[S]`.
#[allow(clippy::too_many_arguments)]
pub fn train_step<F, L>(
    name: &str,
    model: Stages<F, L>,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    schedule: Schedule,
    microbatches: usize,
    optimizer: Optimizer,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &Tensor) -> Tensor + Clone + 'static,
    L: Fn(&Tensor, &Tensor) -> Tensor + Clone + 'static,
{
    train_step_with_specs(
        name,
        model,
        param_types,
        &[],
        batch_types,
        mesh,
        schedule,
        microbatches,
        optimizer,
    )
}

/// [`train_step`] with tensor parallelism inside each stage (3-D parallelism: `data` x
/// `pipe` x `model`): `stage_specs[i]` splits parameter `i`'s dimensions after the stage
/// dimension (e.g. Megatron's `P![None, "model"]` for a `[S, d, h]` column-parallel
/// weight, which becomes `P!["pipe", None, "model"]`); an empty slice leaves every stage
/// parameter whole on its `pipe` device. The specs may not name `pipe` (the stage
/// dimension has it) or `data` (the batch has it).
#[allow(clippy::too_many_arguments)]
pub fn train_step_with_specs<F, L>(
    name: &str,
    model: Stages<F, L>,
    param_types: &[TensorType],
    stage_specs: &[PartitionSpec],
    batch_types: &[TensorType],
    mesh: &Mesh,
    schedule: Schedule,
    microbatches: usize,
    optimizer: Optimizer,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &Tensor) -> Tensor + Clone + 'static,
    L: Fn(&Tensor, &Tensor) -> Tensor + Clone + 'static,
{
    let shape = check(name, param_types, batch_types, mesh, microbatches)?;
    let param_specs = stacked_specs(name, param_types, stage_specs)?;
    let pipeline = Pipeline {
        schedule,
        microbatches,
        specs: param_specs,
        data: shape.data,
    };
    let layout = StepLayout::of(&pipeline, param_types, batch_types, mesh)?;
    let strategy = Strategy::new(pipeline);
    let start = Instant::now();
    // The stage alone (its output type is checked here, where the error can say so), its
    // VJP and the last stage's loss with its gradient: the ticks call them.
    let parts = Parts::trace(name, &model, param_types, &layout.param_specs, &shape, mesh)?;
    let autodiff = parts.autodiff;
    let trace_loss = start.elapsed().saturating_sub(autodiff);
    let (m, sh) = (model.clone(), shape.clone());
    let gradients = move |params: &[Tensor], batch: &[Tensor], _: &Tensor| {
        run_ticks(&m, &parts, schedule, params, &batch[0], &batch[1], &sh)
    };
    step_around(
        name,
        gradients,
        param_types,
        batch_types,
        mesh,
        strategy,
        optimizer,
        layout,
        (trace_loss, autodiff),
        false,
    )
}

/// Each stacked parameter's spec: `pipe` on the stage dimension, then its stage spec.
fn stacked_specs(
    name: &str,
    param_types: &[TensorType],
    stage_specs: &[PartitionSpec],
) -> Result<Vec<PartitionSpec>, Error> {
    if stage_specs.is_empty() {
        return Ok(param_types.iter().map(|_| P![PIPE]).collect());
    }
    if stage_specs.len() != param_types.len() {
        return Err(Error::Usage(format!(
            "pipelining::train_step_with_specs({name}): {} stage specs for {} parameters: give one per parameter (P![] for a replicated one), or none",
            stage_specs.len(),
            param_types.len()
        )));
    }
    param_types
        .iter()
        .zip(stage_specs)
        .enumerate()
        .map(|(i, (ty, spec))| {
            let named = spec.0.iter().flat_map(|d| match d {
                DimSpec::Axes(a) => a.clone(),
                DimSpec::Unconstrained => Vec::new(),
            });
            for axis in named {
                if axis == PIPE || axis == axis::DATA {
                    return Err(Error::Usage(format!(
                        "pipelining::train_step_with_specs({name}): the stage spec {spec} of parameter {i} names `{axis}`, which the pipeline itself uses (`pipe` for the stage dimension, `data` for the batch); split the stage's own dimensions over other axes, e.g. `model`"
                    )));
                }
            }
            if spec.0.len() + 1 > ty.rank() {
                return Err(Error::Usage(format!(
                    "pipelining::train_step_with_specs({name}): the stage spec {spec} of parameter {i} has {} dimensions, but a stage's piece of {ty} has {}",
                    spec.0.len(),
                    ty.rank().saturating_sub(1)
                )));
            }
            let mut dims = vec![DimSpec::axes(&[PIPE])];
            dims.extend(spec.0.iter().cloned());
            Ok(PartitionSpec::new(dims))
        })
        .collect()
}

/// The single-device model the pipeline computes: the stages one after the other on the
/// whole batch, then the loss (for `train::train_step`, as the reference a pipelined step
/// must agree with).
pub fn sequential_loss<F, L>(
    model: Stages<F, L>,
    stages: usize,
) -> impl Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static
where
    F: Fn(&[Tensor], &Tensor) -> Tensor + Clone + 'static,
    L: Fn(&Tensor, &Tensor) -> Tensor + Clone + 'static,
{
    move |params: &[Tensor], batch: &[Tensor]| {
        let lead = |t: &Tensor| {
            let mut shape = vec![1];
            shape.extend_from_slice(t.shape());
            t.reshape(&shape)
        };
        let mut h = lead(&batch[0]);
        for s in 0..stages {
            let w: Vec<Tensor> = params
                .iter()
                .map(|p| {
                    let mut start = vec![0; p.rank()];
                    let mut limit = p.shape().to_vec();
                    (start[0], limit[0]) = (s, s + 1);
                    p.slice(&start, &limit)
                })
                .collect();
            h = (model.stage)(&w, &h);
        }
        (model.loss)(&h, &lead(&batch[1])).reshape(&[])
    }
}

fn check(
    name: &str,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    microbatches: usize,
) -> Result<Shape, Error> {
    let usage = |what: String| {
        Err(Error::Usage(format!(
            "pipelining::train_step({name}): {what}"
        )))
    };
    let Some(stages) = mesh.axis_size(PIPE) else {
        return usage(format!(
            "mesh @{} {} has no axis `{PIPE}`; a pipeline puts one stage on each device along `{PIPE}` (add an axis `{PIPE}` sized the number of stages)",
            mesh.name, mesh
        ));
    };
    for (i, t) in param_types.iter().enumerate() {
        match t.shape.first() {
            Some(&d) if d == stages => {}
            Some(&d) => {
                return usage(format!(
                    "parameter {i} ({t}) stacks {d} stages along dimension 0, but the mesh's `{PIPE}` axis has {stages} devices, one per stage; stack {stages} stages or size `{PIPE}` to {d}"
                ));
            }
            None => {
                return usage(format!(
                    "parameter {i} ({t}) is a scalar; every parameter is stacked one stage per `{PIPE}` device along dimension 0 (give it shape [{stages}])"
                ));
            }
        }
    }
    let [x, y] = batch_types else {
        return usage(format!(
            "the batch has {} tensor(s); a pipelined step takes two, inputs and targets",
            batch_types.len()
        ));
    };
    if microbatches == 0 {
        return usage(
            "0 microbatches; give at least one (a number that divides the batch's rows)".into(),
        );
    }
    let mut split = Vec::new();
    for (what, t) in [("inputs", x), ("targets", y)] {
        let Some(&b) = t.shape.first() else {
            return usage(format!(
                "the {what} ({t}) are a scalar; the batch's dimension 0 holds its rows, which the microbatches split"
            ));
        };
        if b != x.shape[0] {
            return usage(format!(
                "the inputs ({x}) have {} rows but the targets ({t}) {b}; give one target row per input row",
                x.shape[0]
            ));
        }
        if !b.is_multiple_of(microbatches) {
            return usage(format!(
                "the {what} ({t}) have {b} rows along dimension 0, which {microbatches} microbatches do not divide; pick a number of microbatches that divides {b}"
            ));
        }
        let mut shape = t.shape.clone();
        shape[0] = b / microbatches;
        split.push(TensorType::new(t.dtype, shape));
    }
    let (input, target) = (split[0].clone(), split[1].clone());
    let data = mesh.axis_size(axis::DATA);
    if let Some(d) = data
        && !input.shape[0].is_multiple_of(d)
    {
        return usage(format!(
            "a microbatch has {} rows ({} rows over {microbatches} microbatches), which the `data` axis of {d} devices does not split evenly; use a batch of a multiple of {} rows, or fewer microbatches",
            input.shape[0],
            x.shape[0],
            d * microbatches
        ));
    }
    Ok(Shape {
        stages,
        microbatches,
        input,
        target,
        data: data.is_some(),
    })
}

/// A `[S]` boolean constant, true at `stage`, broadcast to `shape` along dimension 0.
fn stage_mask(like: &Tensor, stages: usize, stage: usize, shape: &[usize]) -> Tensor {
    let values: Vec<f64> = (0..stages)
        .map(|s| f64::from(u8::from(s == stage)))
        .collect();
    let lit = Literal::from_f64(DType::I1, &[stages], &values)
        .expect("one value per stage makes a [S] literal");
    like.constant(lit).broadcast_in_dim(shape, &[0])
}

/// Microbatch `t` of `x: [B, ...]`: rows `t, t + M, ...`, as `[mb, ...]`.
fn microbatch(x: &Tensor, t: usize, m: usize) -> Tensor {
    let b = x.shape()[0];
    let rest = &x.shape()[1..];
    let mut split = vec![b / m, m];
    split.extend_from_slice(rest);
    let y = x.reshape(&split);
    let mut start = vec![0; split.len()];
    let mut limit = split.clone();
    (start[1], limit[1]) = (t, t + 1);
    let mut shape = vec![b / m];
    shape.extend_from_slice(rest);
    y.slice(&start, &limit).reshape(&shape)
}

/// `[mb, ...]` broadcast to every stage, `[S, mb, ...]`.
fn to_stages(x: &Tensor, stages: usize) -> Tensor {
    let mut shape = vec![stages];
    shape.extend_from_slice(x.shape());
    let dims: Vec<usize> = (1..shape.len()).collect();
    x.broadcast_in_dim(&shape, &dims)
}

/// The last stage's loss on one tick's outputs, per stage (`[S]`, split over `pipe` like
/// the outputs): the per-stage losses masked to stage `S - 1`, over `M` (the pipeline's
/// loss is the mean over microbatches). The ticks' vectors add up on their devices; the
/// loss is their sum over stages, one all-reduce of a scalar over `pipe` in all.
fn last_stage_loss<F, L>(model: &Stages<F, L>, out: &Tensor, target: &Tensor, s: &Shape) -> Tensor
where
    L: Fn(&Tensor, &Tensor) -> Tensor,
{
    let per_stage = (model.loss)(out, target);
    // A product, not a select: it is linear, so a loss still partial over `data` (summed
    // over the microbatch's rows) stays partial until the end. The other stages' losses
    // are finite (bubbles run on zeros or on real activations), so they vanish exactly.
    let scale: Vec<f64> = (0..s.stages)
        .map(|k| {
            if k + 1 == s.stages {
                1.0 / s.microbatches as f64
            } else {
                0.0
            }
        })
        .collect();
    let lit = Literal::from_f64(per_stage.dtype(), &[s.stages], &scale)
        .expect("one value per stage makes a [S] literal");
    &per_stage * &per_stage.constant(lit)
}

/// Adds `x` to a running sum that starts at the first term (not at zero), so that partial
/// sums add up before any reduction (`linear.rs`: an add of partial sums is partial, an
/// add of a partial sum and a zero is not), and each term is freed once added.
fn accumulate(sum: &mut Option<Tensor>, x: &Tensor) {
    *sum = Some(match sum.take() {
        Some(s) => &s + x,
        None => x.clone(),
    });
}

/// What the schedules call tick by tick: the stage's VJP (`(params, x, g) -> (d params, dx)`,
/// recomputing the stage's forward from `x`) and the last stage's loss with its gradient
/// (`(out, target) -> (loss, per-stage loss, d out)`: the per-stage vector is what the
/// step adds up, so that the loss is reduced over `pipe` once).
#[derive(Clone)]
struct Parts {
    vjp: Lowered,
    head: Lowered,
    /// The time spent differentiating the two.
    autodiff: Duration,
}

impl Parts {
    fn trace<F, L>(
        name: &str,
        model: &Stages<F, L>,
        param_types: &[TensorType],
        param_specs: &[PartitionSpec],
        s: &Shape,
        mesh: &Mesh,
    ) -> Result<Parts, Error>
    where
        F: Fn(&[Tensor], &Tensor) -> Tensor + Clone + 'static,
        L: Fn(&Tensor, &Tensor) -> Tensor + Clone + 'static,
    {
        let n = param_types.len();
        let (state, target) = (s.state(&s.input), s.state(&s.target));
        let mut types = param_types.to_vec();
        types.push(state.clone());
        let stage = model.stage.clone();
        let forward = jit(move |a: &[Tensor]| stage(&a[..n], &a[n]))
            .name(&format!("{name}_stage"))
            .mesh(mesh)
            .lower(&types)?;
        let out = forward
            .module()
            .entry()
            .and_then(|f| f.results().first().map(|&v| f.ty(v).clone()));
        if out.as_ref() != Some(&state) {
            return Err(Error::Usage(format!(
                "pipelining::train_step({name}): the stage function maps the activations {state} to {}; every stage must hand the next activations of the same type (keep [S, mb, ...] in and out: widen and narrow inside the stage; stages of different shapes are not supported)",
                out.map_or("nothing".to_string(), |t| t.to_string())
            )));
        }
        let state_spec = s.state_spec();
        let stage = model.stage.clone();
        types.push(state.clone());
        let vjp = jit(move |a: &[Tensor]| {
            let y = stage(&a[..n], &a[n]);
            let dims: Vec<isize> = (0..y.rank() as isize).collect();
            (&y * &a[n + 1]).sum(&dims)
        })
        .name(&format!("{name}_stage_vjp"))
        .mesh(mesh)
        .in_shardings(
            param_specs
                .iter()
                .cloned()
                .chain([state_spec.clone(), state_spec.clone()]),
        )
        .lower(&types)?;
        let start = Instant::now();
        let vjp = vjp
            .grad(&(0..=n).collect::<Vec<_>>())?
            .without_result_shardings();
        let mut autodiff = start.elapsed();
        let (m, sh) = (model.clone(), s.clone());
        let per_stage = jit(move |out: Tensor, target: Tensor| (m.loss)(&out, &target))
            .name(&format!("{name}_loss"))
            .mesh(mesh)
            .lower(&[state.clone(), target.clone()])?;
        let loss_ty = per_stage
            .module()
            .entry()
            .and_then(|f| f.results().first().map(|&v| f.ty(v).clone()));
        if loss_ty.as_ref().map(|t| t.shape.as_slice()) != Some(&[s.stages][..]) {
            return Err(Error::Usage(format!(
                "pipelining::train_step({name}): the loss function gives {} for outputs {state}; it must give one loss per stage, shape [{}] (reduce every dimension but the stage dimension 0)",
                loss_ty.map_or("nothing".to_string(), |t| t.to_string()),
                s.stages
            )));
        }
        let m = model.clone();
        let head = jit(move |out: Tensor, target: Tensor| {
            let per_stage = last_stage_loss(&m, &out, &target, &sh);
            (per_stage.sum(&[0]), per_stage)
        })
        .name(&format!("{name}_head"))
        .mesh(mesh)
        .in_shardings([state_spec.clone(), state_spec])
        .lower(&[state, target])?;
        let start = Instant::now();
        let head = head.value_and_grad(&[0])?.without_result_shardings();
        autodiff += start.elapsed();
        Ok(Parts {
            vjp,
            head,
            autodiff,
        })
    }
}

/// Runs a schedule's tick table as one traced program and gives `(loss, gradients)`.
///
/// At a tick where some stage runs forward, the state (`[S, mb, ...]`, slot `s` on the
/// `pipe` device `s`) takes the microbatch stage 0 starts in slot 0, is kept as the tick's
/// stage input, and every stage runs; the microbatch the last stage finishes gives the
/// loss and its gradient `d out` (kept until the last stage's backward of it); the outputs
/// move one stage on (`roll(out, 1, 0)`). At a tick where some stage runs backward, each
/// stage's slot of the input it kept for that microbatch is gathered by a mask from the
/// kept tick inputs, the cotangents are the last stage's `d out` and the rest what the
/// next stage sent at the previous tick, and the stage's VJP (which recomputes the
/// stage's forward from the kept input) gives the parameters' gradients and the inputs'
/// cotangents, which move one stage back (`roll(dx, -1, 0)`).
///
/// Slots without work compute on zeros or on finite leftovers: a stage without a backward
/// at a tick receives a zero cotangent (the stage after it had none at the previous tick,
/// and the last stage gets zeros), and a VJP is linear in its cotangent, so such slots add
/// exact zeros to the gradients; their losses are multiplied by 0.
fn run_ticks<F, L>(
    model: &Stages<F, L>,
    parts: &Parts,
    schedule: Schedule,
    params: &[Tensor],
    x: &Tensor,
    y: &Tensor,
    s: &Shape,
) -> (Tensor, Vec<Tensor>)
where
    F: Fn(&[Tensor], &Tensor) -> Tensor,
{
    let ticks = schedule.ticks(s.stages, s.microbatches);
    let forward_tick = forward_ticks(&ticks);
    let any = |v: &[Option<usize>]| v.iter().any(Option::is_some);
    let last_forward = ticks.iter().rposition(|t| any(&t.forward));
    let last_backward = ticks.iter().rposition(|t| any(&t.backward));
    let state_ty = s.state(&s.input);
    let masks: Vec<Tensor> = (0..s.stages)
        .map(|k| stage_mask(x, s.stages, k, &state_ty.shape))
        .collect();
    let zeros = x.full(&state_ty.shape, 0.0);
    let mut state = zeros.clone();
    let mut back = zeros.clone();
    let mut inputs: Vec<Option<Tensor>> = vec![None; ticks.len()];
    let mut heads: Vec<Option<Tensor>> = vec![None; s.microbatches];
    let mut loss = None;
    let mut grads: Vec<Option<Tensor>> = vec![None; params.len()];
    let n = params.len();
    let last = s.stages - 1;
    for (t, tick) in ticks.iter().enumerate() {
        if any(&tick.forward) {
            if let Some(m) = tick.forward[0] {
                let mb = to_stages(&microbatch(x, m, s.microbatches), s.stages);
                state = Tensor::select(&masks[0], &mb, &state);
            }
            state = state.with_sharding_constraint(s.state_spec());
            inputs[t] = Some(state.clone());
            let out = (model.stage)(params, &state);
            if let Some(m) = tick.forward[last] {
                let target = to_stages(&microbatch(y, m, s.microbatches), s.stages);
                let lg = parts.head.call(&[out.clone(), target]);
                accumulate(&mut loss, &lg[1]);
                heads[m] = Some(lg[2].clone());
            }
            if Some(t) < last_forward {
                state = out.roll(1, 0);
            }
        }
        if any(&tick.backward) {
            let mut kept = zeros.clone();
            for (k, m) in tick.backward.iter().enumerate() {
                let input = m
                    .and_then(|m| forward_tick.get(&(k, m)))
                    .and_then(|&tau| inputs[tau].as_ref());
                if let Some(input) = input {
                    kept = Tensor::select(&masks[k], input, &kept);
                }
            }
            let head = tick.backward[last].and_then(|m| heads[m].take());
            let g = Tensor::select(&masks[last], head.as_ref().unwrap_or(&zeros), &back);
            let mut args = params.to_vec();
            args.push(kept.with_sharding_constraint(s.state_spec()));
            args.push(g.with_sharding_constraint(s.state_spec()));
            let d = parts.vjp.call(&args);
            for (acc, dw) in grads.iter_mut().zip(&d[..n]) {
                accumulate(acc, dw);
            }
            if Some(t) < last_backward {
                back = d[n].roll(-1, 0);
            }
        }
    }
    let loss = loss.map_or_else(|| x.scalar(0.0), |l| l.sum(&[0]));
    let grads = grads
        .into_iter()
        .zip(params)
        .map(|(g, p)| g.unwrap_or_else(|| p.full(p.shape(), 0.0)))
        .collect();
    (loss, grads)
}

/// The tick at which stage `k` runs the forward of microbatch `m`, for every `(k, m)`.
fn forward_ticks(ticks: &[Tick]) -> HashMap<(usize, usize), usize> {
    let mut at = HashMap::new();
    for (t, tick) in ticks.iter().enumerate() {
        for (k, m) in tick.forward.iter().enumerate() {
            if let Some(m) = m {
                at.insert((k, *m), t);
            }
        }
    }
    at
}
