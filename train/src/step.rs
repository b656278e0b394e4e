//! Training steps: a loss, its gradients (reverse-mode autodiff), an optimizer update and
//! a parallelism strategy, traced into one program `(params, optimizer state, step, batch)
//! -> (loss, params', optimizer state')` that shardc propagates, partitions and runs.
//!
//! Every strategy is annotations alone: which axis splits the batch, the parameters, the
//! gradients and the optimizer state (`crate::strategy`, one file per strategy). The
//! collectives follow from propagation. The pipeline strategy needs the model as stages:
//! [`crate::pipelining::train_step`] builds it (`docs/pipeline.md`), through the same
//! `step_around` as every other strategy.

use crate::optim::{AdamW, Schedule, Sgd, clip_by_global_norm, param_scope, warmup_cosine};
use crate::strategy::{Layouts, Parallelism, Strategy};
use shardc::PartitionSpec;
use shardc::{DType, Error, Lowered, Mesh, P, Tensor, TensorType, jit, named_scope};
use shardc_ir::Literal;
use std::time::{Duration, Instant};

/// The optimizer and its learning rate.
#[derive(Clone, Copy, Debug)]
pub enum Optimizer {
    /// SGD with momentum (PyTorch's), a constant rate.
    Sgd {
        /// Learning rate.
        lr: f64,
        /// Velocity decay.
        momentum: f64,
    },
    /// AdamW with linear warm-up to `lr` then cosine decay to `lr * min_ratio` at `total`.
    AdamW {
        /// Peak learning rate.
        lr: f64,
        /// Warm-up steps.
        warmup: f64,
        /// Step the decay ends at.
        total: f64,
        /// Final rate as a fraction of `lr`.
        min_ratio: f64,
        /// AdamW's moments and decay.
        adam: AdamW,
    },
    /// AdamW under any learning-rate schedule (constant, linear, step, piecewise: a
    /// schedule of one's own), the gradients first scaled to a global L2 norm of at most
    /// `clip_norm` when given (PyTorch's `clip_grad_norm_`, optax's
    /// `clip_by_global_norm`: [`crate::optim::clip_by_global_norm`]). Same state and
    /// checkpoints as [`Optimizer::AdamW`].
    AdamWScheduled {
        /// The learning rate per step.
        schedule: Schedule,
        /// AdamW's moments and decay.
        adam: AdamW,
        /// The global gradient norm to clip to, if any.
        clip_norm: Option<f64>,
    },
}

impl Optimizer {
    /// Optimizer-state tensors per parameter (velocity; or first and second moments).
    pub fn slots(&self) -> usize {
        self.slot_names().len()
    }

    /// The name of each optimizer-state slot, in the state's order (checkpoints name
    /// tensors by them).
    pub fn slot_names(&self) -> &'static [&'static str] {
        match self {
            Optimizer::Sgd { .. } => &["momentum"],
            Optimizer::AdamW { .. } | Optimizer::AdamWScheduled { .. } => &["adam_m", "adam_v"],
        }
    }

    /// Its name in checkpoints (`sgd`, `adamw`).
    pub fn name(&self) -> &'static str {
        match self {
            Optimizer::Sgd { .. } => "sgd",
            Optimizer::AdamW { .. } | Optimizer::AdamWScheduled { .. } => "adamw",
        }
    }

    /// One update; `t` is the step number from 1 (a float scalar).
    fn update(
        &self,
        t: &Tensor,
        params: &[Tensor],
        grads: &[Tensor],
        state: &[Tensor],
    ) -> (Vec<Tensor>, Vec<Tensor>) {
        match self {
            Optimizer::Sgd { lr, momentum } => Sgd {
                momentum: *momentum,
            }
            .step(&t.scalar(*lr), params, grads, state),
            Optimizer::AdamW {
                lr,
                warmup,
                total,
                min_ratio,
                adam,
            } => {
                let rate = warmup_cosine(t, *lr, *warmup, *total, lr * min_ratio);
                let n = params.len();
                let (p, m, v) = adam.step(t, &rate, params, grads, &state[..n], &state[n..]);
                (p, m.into_iter().chain(v).collect())
            }
            Optimizer::AdamWScheduled {
                schedule,
                adam,
                clip_norm,
            } => {
                let rate = schedule.rate(t);
                let n = params.len();
                let clipped = match clip_norm {
                    Some(max) if !grads.is_empty() => clip_by_global_norm(grads, *max).0,
                    _ => grads.to_vec(),
                };
                let (p, m, v) = adam.step(t, &rate, params, &clipped, &state[..n], &state[n..]);
                (p, m.into_iter().chain(v).collect())
            }
        }
    }
}

/// A traced training step and how its arguments are laid out.
pub struct TrainStep {
    /// `(params..., state..., step, batch...) -> (loss, params'..., state'...)`.
    pub program: Lowered,
    /// How the step lays out parameters, gradients, state and batch.
    pub strategy: Strategy,
    /// The update.
    pub optimizer: Optimizer,
    /// The parameters' global types, in order.
    pub param_types: Vec<TensorType>,
    /// Each parameter's layout.
    pub param_specs: Vec<PartitionSpec>,
    /// Each gradient's layout.
    pub grad_specs: Vec<PartitionSpec>,
    /// Each parameter's optimizer-state layout (every slot alike).
    pub state_specs: Vec<PartitionSpec>,
    /// The mesh the step runs on.
    pub mesh: Mesh,
    /// How long building the program took, by phase.
    pub timings: TraceTimings,
    /// Whether the step takes a loss scale as its last argument and returns whether every
    /// gradient was finite as its last result ([`train_step_scaled`]).
    pub loss_scaled: bool,
}

/// Wall time of each phase of [`train_step`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceTimings {
    /// Tracing the loss into a program.
    pub trace_loss: Duration,
    /// Differentiating it (`value_and_grad`).
    pub autodiff: Duration,
    /// Tracing the step around it: the gradient call, their layouts, the optimizer update.
    pub trace_step: Duration,
}

impl TraceTimings {
    /// The three phases together.
    pub fn total(&self) -> Duration {
        self.trace_loss + self.autodiff + self.trace_step
    }
}

/// Traces a training step of `loss(params, batch) -> scalar` under a strategy.
pub fn train_step<F>(
    name: &str,
    loss: F,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static,
{
    let types = (param_types, batch_types);
    build(
        name,
        keyless(loss),
        types,
        mesh,
        strategy,
        optimizer,
        Extras::default(),
    )
}

/// [`train_step`] with dynamic loss scaling, as PyTorch's `GradScaler` does it for f16
/// (`precision::mixed(loss, DType::F16)`): the step takes the loss scale `S` as its last
/// argument (after the batch: [`crate::precision::LossScaler::arg`]), differentiates
/// `S * loss` so the backward pass runs on values `S` times larger (small f16 gradients do
/// not flush to zero), divides the gradients by `S`, and applies the update only where
/// every gradient is finite: on an overflow the parameters and optimizer state come back
/// unchanged. Its results are `(loss, params'..., state'..., finite)`, `finite` an f32 1 or
/// 0, which [`crate::precision::LossScaler::update`] reads to halve or grow the scale. The
/// loss returned is the unscaled one. A skipped step should not count as a step: pass the
/// number of applied steps as `t` (AdamW's bias correction reads it).
pub fn train_step_scaled<F>(
    name: &str,
    loss: F,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static,
{
    let types = (param_types, batch_types);
    let extras = Extras {
        scaled: true,
        ..Extras::default()
    };
    build(
        name,
        keyless(loss),
        types,
        mesh,
        strategy,
        optimizer,
        extras,
    )
}

/// The largest seed [`train_step_with_rng`] takes (the step's key is `seed * 2^24 + t`,
/// exact in the `f64` a constant is made from).
pub const MAX_SEED: i64 = (1 << 29) - 1;

/// [`train_step`] for a loss that draws random numbers (dropout): the loss also gets a
/// key, an `i64` scalar, new at every step — `seed * 2^24 + t` for step `t` — to pass to
/// [`Tensor::dropout`] or [`Tensor::random`], deriving one per use with
/// [`Tensor::fold_in`]. The random op is counter-based over global positions, so where
/// PyTorch seeds every rank differently (`seed + rank`) to give data-parallel replicas
/// different masks, here each device draws the part of the one global mask that covers
/// its shard: replicas differ, and the partitioned step equals the single-device one bit
/// for bit on any mesh. `seed` is in `0..=MAX_SEED`.
#[allow(clippy::too_many_arguments)]
pub fn train_step_with_rng<F>(
    name: &str,
    loss: F,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    seed: i64,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &[Tensor], &Tensor) -> Tensor + Clone + 'static,
{
    if !(0..=MAX_SEED).contains(&seed) {
        return Err(Error::Usage(format!(
            "train_step_with_rng({name}): seed {seed} is outside 0..={MAX_SEED} (the step's key is seed * 2^24 + step); take a seed in that range"
        )));
    }
    build(
        name,
        move |p: &[Tensor], b: &[Tensor], key: Option<&Tensor>| match key {
            Some(k) => loss(p, b, k),
            None => unreachable!("a step with a seed passes a key"),
        },
        (param_types, batch_types),
        mesh,
        strategy,
        optimizer,
        Extras {
            seed: Some(seed),
            ..Extras::default()
        },
    )
}

/// [`train_step`] with gradient accumulation (PyTorch DDP's `no_sync`, optax's
/// `MultiSteps`): the step splits its batch into `microbatches` micro-batches and runs the
/// forward and backward passes on one at a time in a loop in the program (a
/// `stablehlo.while`, not `microbatches` copies), summing the gradients; the gradients are
/// reduced once, after the loop, and the update applies their mean. Activations are held
/// for one micro-batch at a time.
///
/// `loss` must be a mean over the batch's rows (its first dimension), as every loss of
/// [`crate::models`] is: the step's loss and gradients are then those of one step on the
/// whole batch (the mean of the micro-batches' means). Each batch value's first dimension
/// must split into `microbatches` equal parts on every device: micro-batch `i` is the
/// `i`-th part of each device's rows, so it is spread over the devices as the batch is.
#[allow(clippy::too_many_arguments)]
pub fn train_step_accumulated<F>(
    name: &str,
    loss: F,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    microbatches: usize,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static,
{
    let types = (param_types, batch_types);
    let extras = Extras {
        microbatches,
        ..Extras::default()
    };
    build(
        name,
        keyless(loss),
        types,
        mesh,
        strategy,
        optimizer,
        extras,
    )
}

/// A loss without a key, as [`build`] takes losses (with a key when the step has a seed).
fn keyless<F>(loss: F) -> impl Fn(&[Tensor], &[Tensor], Option<&Tensor>) -> Tensor + Clone + 'static
where
    F: Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static,
{
    move |p: &[Tensor], b: &[Tensor], _: Option<&Tensor>| loss(p, b)
}

/// What a step adds to the plain one.
#[derive(Clone, Copy, Debug)]
struct Extras {
    /// A key argument to the loss, new at every step ([`train_step_with_rng`]).
    seed: Option<i64>,
    /// A loss scale after the batch ([`train_step_scaled`]).
    scaled: bool,
    /// Micro-batches accumulated per step ([`train_step_accumulated`]; 1: none).
    microbatches: usize,
}

impl Default for Extras {
    fn default() -> Extras {
        Extras {
            seed: None,
            scaled: false,
            microbatches: 1,
        }
    }
}

/// The step of [`train_step`] with `extras`.
fn build<F>(
    name: &str,
    loss: F,
    (param_types, batch_types): (&[TensorType], &[TensorType]),
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    extras: Extras,
) -> Result<TrainStep, Error>
where
    F: Fn(&[Tensor], &[Tensor], Option<&Tensor>) -> Tensor + Clone + 'static,
{
    let Extras {
        seed,
        scaled,
        microbatches,
    } = extras;
    let n = param_types.len();
    let mut layout = StepLayout::of(&*strategy, param_types, batch_types, mesh)?;
    let micro = Micro::of(name, microbatches, batch_types, &layout.batch_specs, mesh)?;
    // The loss scale travels as the batch's last value: the loss program takes it there
    // (params, batch, scale, key), and so does the step.
    let mut batch_types = batch_types.to_vec();
    if scaled {
        batch_types.push(TensorType::scalar(DType::F32));
        layout.batch_specs.push(P![]);
    }
    let batch_types = &batch_types[..];
    // The loss and its gradients, of one micro-batch.
    let mut types: Vec<TensorType> = param_types.to_vec();
    types.extend(batch_types.iter().map(|t| micro.piece_type(t)));
    let nb = batch_types.len();
    // Under accumulation the loss runs in the loop's body, where the parameters are
    // values the loop reads from outside: their layout there is the loop's to choose (a
    // ZeRO-3 shard would otherwise be pinned inside, gathered at every micro-batch).
    let param_specs = layout.param_specs.iter().zip(param_types).map(|(s, t)| {
        if microbatches > 1 {
            PartitionSpec::new(vec![shardc::DimSpec::Unconstrained; t.rank()])
        } else {
            s.clone()
        }
    });
    let mut loss_specs: Vec<PartitionSpec> = param_specs
        .chain(layout.batch_specs.iter().cloned())
        .collect();
    if seed.is_some() {
        types.push(TensorType::scalar(DType::I64));
        loss_specs.push(P![]);
    }
    let f = loss.clone();
    let start = Instant::now();
    // The user's batch: without the scale, which multiplies the loss.
    let nu = nb - usize::from(scaled);
    let loss_program = jit(move |a: &[Tensor]| {
        let l = f(&a[..n], &a[n..n + nu], a.get(n + nb));
        if scaled { &l * &a[n + nu] } else { l }
    })
    .name(&format!("{name}_loss"))
    .mesh(mesh)
    .in_shardings(loss_specs)
    .lower(&types)?;
    let trace_loss = start.elapsed();
    // Gradients take their layouts from the strategy below, not from their parameters.
    let start = Instant::now();
    let grads = loss_program
        .value_and_grad(&(0..n).collect::<Vec<_>>())?
        .without_result_shardings();
    let autodiff = start.elapsed();
    let gradients = move |params: &[Tensor], batch: &[Tensor], t: &Tensor| {
        let mut inputs: Vec<Tensor> = params.iter().chain(batch).cloned().collect();
        if let Some(seed) = seed {
            // The step's key: seed * 2^24 + t (exact: seed < 2^29, t < 2^24).
            let step = t.convert(DType::I64);
            inputs.push(&step + &step.scalar((seed << 24) as f64));
        }
        let outs = micro.accumulate(&grads, &inputs, n);
        (outs[0].clone(), outs[1..].to_vec())
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
        scaled,
    )
}

/// How a step's batch splits into micro-batches ([`train_step_accumulated`]).
#[derive(Clone, Debug)]
struct Micro {
    /// Micro-batches per step.
    count: usize,
    /// Per batch value, how many parts its first dimension is split into over the mesh
    /// (0 for a scalar, which every micro-batch reads whole).
    shards: Vec<usize>,
}

impl Micro {
    /// The split of `batch_types` (laid out by `specs`) into `count` micro-batches, or why
    /// it cannot be made.
    fn of(
        name: &str,
        count: usize,
        batch_types: &[TensorType],
        specs: &[PartitionSpec],
        mesh: &Mesh,
    ) -> Result<Micro, Error> {
        if count == 0 {
            return Err(Error::Usage(format!(
                "train_step_accumulated({name}): 0 micro-batches; accumulate over at least 1"
            )));
        }
        let mut shards = Vec::with_capacity(batch_types.len());
        for (k, (t, spec)) in batch_types.iter().zip(specs).enumerate() {
            if t.rank() == 0 {
                shards.push(0);
                continue;
            }
            let parts: usize = match spec.0.first() {
                Some(shardc::DimSpec::Axes(axes)) => axes
                    .iter()
                    .map(|a| mesh.axis_size(a).unwrap_or(1))
                    .product(),
                _ => 1,
            };
            let rows = t.shape[0];
            if count > 1 && rows % (parts * count) != 0 {
                return Err(Error::Usage(format!(
                    "train_step_accumulated({name}): batch value {k} ({t}) has {rows} rows, split over {parts} device group(s) into {count} micro-batches: {rows} is not a multiple of {parts} x {count}; make the batch a multiple of {} rows or change the number of micro-batches",
                    parts * count
                )));
            }
            shards.push(parts);
        }
        Ok(Micro { count, shards })
    }

    /// The type of one micro-batch of a batch value of type `t`.
    fn piece_type(&self, t: &TensorType) -> TensorType {
        let mut piece = t.clone();
        if let Some(rows) = piece.shape.first_mut() {
            *rows /= self.count;
        }
        piece
    }

    /// `(loss, grads...)` of the mean loss over the micro-batches: `grads` called on
    /// `inputs` (`n` parameters, the batch values, then anything else, passed as is) one
    /// micro-batch at a time in a loop, the loss and gradients summed in accumulators that
    /// start at zero, then divided by the count.
    fn accumulate(&self, grads: &Lowered, inputs: &[Tensor], n: usize) -> Vec<Tensor> {
        if self.count == 1 {
            return grads.call(inputs);
        }
        let k = self.count;
        let nb = self.shards.len();
        let (params, batch, rest) = (&inputs[..n], &inputs[n..n + nb], &inputs[n + nb..]);
        // Each batch value grouped as [parts, k, rows / (parts k), ...] (a reshape, the
        // device groups on the split dimension 0): micro-batch i is [:, i] of it, the
        // i-th part of every group's rows.
        let grouped: Vec<Option<Tensor>> = batch
            .iter()
            .zip(&self.shards)
            .map(|(b, &parts)| {
                (parts > 0).then(|| {
                    let (rows, tail) = (b.shape()[0], &b.shape()[1..]);
                    let shape: Vec<usize> = [parts, k, rows / (parts * k)]
                        .iter()
                        .chain(tail)
                        .copied()
                        .collect();
                    b.reshape(&shape)
                })
            })
            .collect();
        let Some(entry) = grads.module().entry() else {
            return grads.call(inputs);
        };
        let zeros: Vec<Tensor> = entry
            .result_types()
            .iter()
            .map(|t| inputs[0].constant(Literal::splat(t.clone(), shardc_ir::Scalar::Float(0.0))))
            .collect();
        let carried: Vec<Tensor> = zeros
            .iter()
            .cloned()
            .chain(grouped.iter().flatten().cloned())
            .collect();
        let nz = zeros.len();
        let out = shardc::fori_loop(k, &carried, |i, c| {
            let zero = i.scalar(0.0);
            let mut pieces = c[nz..].iter();
            let micro: Vec<Tensor> = batch
                .iter()
                .zip(&grouped)
                .map(|(b, g)| match g.as_ref().and_then(|_| pieces.next()) {
                    Some(all) => {
                        let mut sizes = all.shape().to_vec();
                        sizes[1] = 1;
                        let mut starts = vec![&zero, i];
                        starts.extend(std::iter::repeat_n(&zero, sizes.len() - 2));
                        let rows: Vec<usize> = [sizes[0] * sizes[2]]
                            .iter()
                            .chain(&sizes[3..])
                            .copied()
                            .collect();
                        all.dynamic_slice(&starts, &sizes).reshape(&rows)
                    }
                    None => b.clone(),
                })
                .collect();
            let args: Vec<Tensor> = params.iter().chain(&micro).chain(rest).cloned().collect();
            let outs = grads.call(&args);
            let mut next: Vec<Tensor> = c[..nz].iter().zip(&outs).map(|(a, o)| a + o).collect();
            next.extend(c[nz..].iter().cloned());
            next
        });
        out[..nz]
            .iter()
            .map(|s| s / &s.scalar(k as f64).broadcast_to(s.shape()))
            .collect()
    }
}

/// How a training step lays out its arguments and gradients.
pub(crate) struct StepLayout {
    pub param_specs: Vec<PartitionSpec>,
    pub grad_specs: Vec<PartitionSpec>,
    pub state_specs: Vec<PartitionSpec>,
    pub batch_specs: Vec<PartitionSpec>,
}

impl StepLayout {
    /// What `strategy` lays out where, for these parameters and batch on `mesh`.
    pub(crate) fn of(
        strategy: &dyn Parallelism,
        param_types: &[TensorType],
        batch_types: &[TensorType],
        mesh: &Mesh,
    ) -> Result<StepLayout, Error> {
        let Layouts {
            params,
            grads,
            state,
        } = strategy.layouts(param_types, mesh)?;
        let batch_specs = batch_types
            .iter()
            .map(|t| strategy.batch_spec(t, mesh))
            .collect::<Result<_, _>>()?;
        Ok(StepLayout {
            param_specs: params,
            grad_specs: grads,
            state_specs: state,
            batch_specs,
        })
    }
}

/// Traces the step around a gradient function `(params, batch, t) -> (loss, grads)`: the
/// gradients laid out as `layout` says, then the optimizer update. `timings` are the
/// phases already spent building the gradient function (tracing the loss, autodiff).
#[allow(clippy::too_many_arguments)]
pub(crate) fn step_around<G>(
    name: &str,
    gradients: G,
    param_types: &[TensorType],
    batch_types: &[TensorType],
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    layout: StepLayout,
    timings: (Duration, Duration),
    scaled: bool,
) -> Result<TrainStep, Error>
where
    G: Fn(&[Tensor], &[Tensor], &Tensor) -> (Tensor, Vec<Tensor>),
{
    let StepLayout {
        param_specs,
        grad_specs,
        state_specs,
        batch_specs,
    } = layout;
    let n = param_types.len();
    let (trace_loss, autodiff) = timings;
    let start = Instant::now();
    // The step: gradients, laid out as the strategy says, then the update.
    let slots = optimizer.slots();
    let state_specs_all: Vec<PartitionSpec> = (0..slots)
        .flat_map(|_| state_specs.iter().cloned())
        .collect();
    let mut step_types: Vec<TensorType> = param_types.to_vec();
    for _ in 0..slots {
        step_types.extend_from_slice(param_types);
    }
    step_types.push(TensorType::scalar(DType::F32));
    step_types.extend_from_slice(batch_types);
    let gspecs = grad_specs.clone();
    let ns = n * slots;
    let program = jit(move |a: &[Tensor]| {
        let (params, state) = (&a[..n], &a[n..n + ns]);
        let t = &a[n + ns];
        let batch = &a[n + ns + 1..];
        let (loss, grads) = gradients(params, batch, t);
        // Under loss scaling: gradients and loss divided by the scale (the batch's last
        // value), and whether every gradient is finite (a NaN or infinity anywhere makes
        // the sum of `g * 0` NaN).
        let (loss, grads, finite) = match batch.last().filter(|_| scaled) {
            Some(scale) => {
                let unscaled: Vec<Tensor> = grads
                    .iter()
                    .map(|g| g / &scale.convert(g.dtype()).broadcast_to(g.shape()))
                    .collect();
                let probe = unscaled
                    .iter()
                    .map(|g| {
                        let all: Vec<isize> = (0..g.rank() as isize).collect();
                        (g * &g.scalar(0.0).broadcast_to(g.shape()))
                            .sum(&all)
                            .convert(DType::F32)
                    })
                    .reduce(|a, b| &a + &b);
                let finite = probe.map(|p| p.compare(shardc_ir::ComparisonDirection::Eq, &p));
                (&loss / scale, unscaled, finite)
            }
            None => (loss, grads, None),
        };
        // The update in a scope, each parameter's part in its own (`update/param[3]`).
        let (new_params, new_state) = named_scope("update", || {
            let g: Vec<Tensor> = grads
                .iter()
                .zip(&gspecs)
                .enumerate()
                .map(|(k, (g, s))| {
                    named_scope(&param_scope(k), || g.with_sharding_constraint(s.clone()))
                })
                .collect();
            optimizer.update(t, params, &g, state)
        });
        // A step with a non-finite gradient leaves parameters and state as they were.
        let keep = |new: Vec<Tensor>, old: &[Tensor]| -> Vec<Tensor> {
            match &finite {
                Some(ok) => new
                    .iter()
                    .zip(old)
                    .map(|(a, b)| Tensor::select(&ok.broadcast_to(a.shape()), a, b))
                    .collect(),
                None => new,
            }
        };
        let mut results = vec![loss];
        results.extend(keep(new_params, params));
        results.extend(keep(new_state, state));
        if let Some(ok) = &finite {
            let one = ok.convert(DType::F32);
            results.push(one);
        }
        results
    })
    .name(&format!("{name}_{}", strategy.name()))
    .mesh(mesh)
    .in_shardings(
        param_specs
            .iter()
            .chain(&state_specs_all)
            .cloned()
            .chain([P![]])
            .chain(batch_specs.iter().cloned()),
    )
    .out_shardings(
        [P![]]
            .into_iter()
            .chain(param_specs.iter().cloned())
            .chain(state_specs_all.iter().cloned())
            .chain(scaled.then(|| P![])),
    )
    .lower(&step_types)?;
    let timings = TraceTimings {
        trace_loss,
        autodiff,
        trace_step: start.elapsed(),
    };
    Ok(TrainStep {
        program,
        strategy,
        optimizer,
        param_types: param_types.to_vec(),
        param_specs,
        grad_specs,
        state_specs,
        mesh: mesh.clone(),
        timings,
        loss_scaled: scaled,
    })
}

impl TrainStep {
    /// The step with its arguments and results named after the parameters (`h0.wq`, as
    /// `GptConfig::param_names` gives them): the parameters so, the optimizer state as
    /// checkpoints name it (`adam_m.h0.wq`), `step`, `batch[k]`; the results `loss`,
    /// `new.h0.wq`, `new.adam_m.h0.wq`; each parameter's update scope `update/h0.wq`
    /// instead of `update/param[k]`. Explanations and decisions then read by them.
    pub fn with_param_names(mut self, names: &[impl AsRef<str>]) -> Result<TrainStep, Error> {
        let n = self.param_types.len();
        if names.len() != n {
            return Err(Error::Usage(format!(
                "with_param_names: {} name(s) for a step of {n} parameters; give one per parameter, in order",
                names.len()
            )));
        }
        let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
        let mut state = Vec::new();
        for slot in self.optimizer.slot_names() {
            state.extend(names.iter().map(|p| format!("{slot}.{p}")));
        }
        let arity = self.program.module().entry().map_or(0, |f| f.args().len());
        let batch = arity.saturating_sub(n + state.len() + 1);
        let mut args: Vec<String> = names.iter().map(|p| p.to_string()).collect();
        args.extend(state.iter().cloned());
        args.push("step".into());
        let user_batch = batch - usize::from(self.loss_scaled);
        args.extend((0..user_batch).map(|k| format!("batch[{k}]")));
        let mut results = vec!["loss".to_string()];
        results.extend(names.iter().map(|p| format!("new.{p}")));
        results.extend(state.iter().map(|s| format!("new.{s}")));
        if self.loss_scaled {
            args.push("loss_scale".into());
            results.push("finite".into());
        }
        let scopes: Vec<(String, String)> = names
            .iter()
            .enumerate()
            .map(|(k, p)| (param_scope(k), p.to_string()))
            .collect();
        self.program = self
            .program
            .with_names(&args, &results)?
            .rename_scopes(&scopes);
        Ok(self)
    }

    /// Compile options the strategy implies ([`crate::strategy::Parallelism::options`]):
    /// DDP buckets gradient all-reduces (25 MiB, as PyTorch); ZeRO-3 regathers parameters
    /// for the backward pass instead of keeping the gathered copies alive (as FSDP).
    pub fn options(&self) -> shardc_compiler::Options {
        let mut o = shardc_compiler::Options::default();
        self.strategy.options(&mut o);
        o
    }

    /// The initial optimizer state: zeros.
    pub fn init_state(&self) -> Vec<Literal> {
        (0..self.optimizer.slots())
            .flat_map(|_| {
                self.param_types
                    .iter()
                    .map(|t| Literal::splat(t.clone(), shardc_ir::Scalar::Float(0.0)).to_dense())
            })
            .collect()
    }

    /// The arguments of step `t` (from 1).
    pub fn args(
        &self,
        params: &[Literal],
        state: &[Literal],
        t: usize,
        batch: &[Literal],
    ) -> Vec<Literal> {
        let mut a: Vec<Literal> = params.to_vec();
        a.extend_from_slice(state);
        a.push(Literal::scalar(
            DType::F32,
            shardc_ir::Scalar::Float(t as f64),
        ));
        a.extend_from_slice(batch);
        a
    }

    /// The (result, argument) pairs one step hands to the next: its new parameters and
    /// optimizer state, for [`shardc::Resident::next_args`].
    pub fn carried(&self) -> Vec<(usize, usize)> {
        (0..self.held()).map(|i| (1 + i, i)).collect()
    }

    /// How many values one step carries to the next: parameters and optimizer state.
    fn held(&self) -> usize {
        self.param_types.len() * (1 + self.optimizer.slots())
    }

    /// The arguments of step `t` (from 1) that are not carried from the previous step: the
    /// step number and the batch, by argument index, for [`shardc::Resident::next_args`].
    pub fn fresh(&self, t: usize, batch: &[Literal]) -> Vec<(usize, Literal)> {
        let held = self.held();
        let step = Literal::scalar(DType::F32, shardc_ir::Scalar::Float(t as f64));
        std::iter::once(step)
            .chain(batch.iter().cloned())
            .enumerate()
            .map(|(i, l)| (held + i, l))
            .collect()
    }

    /// Splits a step's results into (loss, params, state) (a loss-scaled step's last
    /// result, whether its gradients were finite, is not among them: [`TrainStep::finite`]).
    pub fn split(&self, results: Vec<Literal>) -> (f64, Vec<Literal>, Vec<Literal>) {
        let (n, held) = (self.param_types.len(), self.held());
        let mut it = results.into_iter();
        let loss = it.next().map(|l| l.to_f64_vec()[0]).unwrap_or(f64::NAN);
        let params: Vec<Literal> = it.by_ref().take(n).collect();
        (loss, params, it.take(held - n).collect())
    }

    /// Whether a loss-scaled step's gradients were all finite (its update applied), from
    /// its results; `None` for a step without loss scaling.
    pub fn finite(&self, results: &[Literal]) -> Option<bool> {
        results.get(self.finite_result()?).map(is_finite_flag)
    }

    /// The index of a loss-scaled step's `finite` result; `None` without loss scaling.
    pub fn finite_result(&self) -> Option<usize> {
        self.loss_scaled.then(|| 1 + self.held())
    }

    /// Optimizer state kept in files under `dir` between and around its uses
    /// (ZeRO-Infinity's NVMe tier): the state arguments and the new state results, for
    /// [`shardc::CpuProgram::offloaded`]. A device then reads each parameter's state just
    /// before its update and writes the new state right after, so the forward and backward
    /// passes run without it.
    pub fn offloading_state(&self, dir: impl Into<std::path::PathBuf>) -> shardc::Offloading {
        let (n, held) = (self.param_types.len(), self.held());
        shardc::Offloading {
            dir: dir.into(),
            args: (n..held).collect(),
            results: (1 + n..1 + held).collect(),
        }
    }

    /// Bytes one device holds for parameters, gradients and optimizer state, from the
    /// layouts the strategy gives them.
    pub fn memory_per_device(&self) -> Result<StateMemory, Error> {
        let local = |spec: &PartitionSpec, ty: &TensorType| -> Result<usize, Error> {
            let s = spec
                .to_sharding(&self.mesh.name, ty.rank())
                .map_err(Error::Usage)?;
            Ok(s.local_shape(&self.mesh, &ty.shape)
                .iter()
                .product::<usize>()
                * ty.dtype.size_bytes())
        };
        let sum = |specs: &[PartitionSpec]| -> Result<usize, Error> {
            specs
                .iter()
                .zip(&self.param_types)
                .map(|(s, t)| local(s, t))
                .sum()
        };
        Ok(StateMemory {
            params: sum(&self.param_specs)?,
            grads: sum(&self.grad_specs)?,
            optimizer: sum(&self.state_specs)? * self.optimizer.slots(),
        })
    }
}

impl TrainStep {
    /// What one device holds at the planned peak of the compiled step, by role: the
    /// step's arguments by what they are (parameters, optimizer state, the batch and step
    /// number), then the results of collectives (gathered weights, reduced gradients) and
    /// what the device computed (activations kept for the backward pass, gradients, new
    /// parameters and state, temporaries). From the partitioned program, before running
    /// it; the parts add up to `compiled.explain().peak_bytes_per_device`.
    pub fn memory_report(&self, compiled: &shardc::Compiled) -> Result<MemoryReport, Error> {
        use shardc::compiler::passes::memory;
        let f = compiled
            .partitioned
            .module
            .entry()
            .ok_or_else(|| Error::Usage("the compiled step has no entry function".into()))?;
        let peak = memory::peak(f);
        let parts = peak.breakdown(f);
        let (n, held) = (self.param_types.len(), self.held());
        let mut r = MemoryReport {
            peak: peak.bytes,
            communication: parts.communication,
            computed: parts.computed + parts.regions,
            ..MemoryReport::default()
        };
        for &(v, bytes) in &peak.live {
            match f.args().iter().position(|&a| a == v) {
                Some(k) if k < n => r.params += bytes,
                Some(k) if k < held => r.optimizer += bytes,
                Some(_) => r.batch += bytes,
                None => {}
            }
        }
        Ok(r)
    }
}

/// What a device holds at the planned peak of a training step, by role
/// ([`TrainStep::memory_report`]); bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// The planned peak: the sum of the parts below.
    pub peak: u64,
    /// Parameters (the step's arguments) still live there.
    pub params: u64,
    /// Optimizer state (arguments) still live there.
    pub optimizer: u64,
    /// The batch and the step number.
    pub batch: u64,
    /// Results of collectives: gathered parameters, reduced gradients, exchanged
    /// activations.
    pub communication: u64,
    /// What the device computed: activations kept for the backward pass, gradients, new
    /// parameters and state, temporaries (a loop's iteration included).
    pub computed: u64,
}

/// Per-device bytes of the training state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateMemory {
    /// Parameter bytes.
    pub params: usize,
    /// Gradient bytes.
    pub grads: usize,
    /// Optimizer-state bytes.
    pub optimizer: usize,
}

impl StateMemory {
    /// All three.
    pub fn total(&self) -> usize {
        self.params + self.grads + self.optimizer
    }
}

/// A loss-scaled step's `finite` result read: 1 when every gradient was finite.
pub(crate) fn is_finite_flag(flag: &Literal) -> bool {
    flag.to_f64_vec().first() == Some(&1.0)
}
