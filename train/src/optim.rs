//! Optimizers as IR programs: every update is traced ops, so it is propagated and
//! partitioned with the rest of the training step (a ZeRO optimizer is an optimizer whose
//! state is annotated as split over `data`).
//!
//! Formulas follow PyTorch's `torch.optim` (SGD with momentum, AdamW with bias correction
//! and decoupled weight decay) and `torch.nn.utils.clip_grad_norm_`.

use shardc::{Tensor, named_scope};
use shardc_ir::{ComparisonDirection, UnaryOp};

/// SGD with momentum (PyTorch, no dampening, no Nesterov):
/// `v' = momentum * v + g`, `p' = p - lr * v'`.
#[derive(Copy, Clone, Debug)]
pub struct Sgd {
    /// Velocity decay (0: plain SGD).
    pub momentum: f64,
}

impl Sgd {
    /// One step on every parameter; returns the new parameters and velocities.
    pub fn step(
        &self,
        lr: &Tensor,
        params: &[Tensor],
        grads: &[Tensor],
        velocity: &[Tensor],
    ) -> (Vec<Tensor>, Vec<Tensor>) {
        let mut new_params = Vec::with_capacity(params.len());
        let mut new_velocity = Vec::with_capacity(params.len());
        for (i, ((p, g), v)) in params.iter().zip(grads).zip(velocity).enumerate() {
            let (p2, v2) = named_scope(&param_scope(i), || {
                let v2 = v * self.momentum + g;
                (p - &(&v2 * lr), v2)
            });
            new_params.push(p2);
            new_velocity.push(v2);
        }
        (new_params, new_velocity)
    }
}

/// AdamW (Loshchilov & Hutter; PyTorch's `AdamW`): with step `t` (counting from 1),
/// `m' = b1 m + (1-b1) g`, `v' = b2 v + (1-b2) g²`, `m̂ = m'/(1-b1^t)`, `v̂ = v'/(1-b2^t)`,
/// `p' = p - lr (m̂ / (sqrt(v̂) + eps) + weight_decay p)`.
#[derive(Copy, Clone, Debug)]
pub struct AdamW {
    /// Decay of the first moment.
    pub beta1: f64,
    /// Decay of the second moment.
    pub beta2: f64,
    /// Added to the second moment's root.
    pub eps: f64,
    /// Decoupled weight decay (PyTorch's default 0.01).
    pub weight_decay: f64,
}

impl Default for AdamW {
    fn default() -> AdamW {
        AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
        }
    }
}

impl AdamW {
    /// One step; `t` is the step number (from 1) as a float scalar. Returns the new
    /// parameters, first moments and second moments.
    pub fn step(
        &self,
        t: &Tensor,
        lr: &Tensor,
        params: &[Tensor],
        grads: &[Tensor],
        m: &[Tensor],
        v: &[Tensor],
    ) -> (Vec<Tensor>, Vec<Tensor>, Vec<Tensor>) {
        let correction = |beta: f64| -> Tensor { t.scalar(1.0) - t.scalar(beta).pow(t) };
        let (c1, c2) = (correction(self.beta1), correction(self.beta2));
        let (mut ps, mut ms, mut vs) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (((p, g), m), v)) in params.iter().zip(grads).zip(m).zip(v).enumerate() {
            let (p2, m2, v2) = named_scope(&param_scope(i), || {
                let m2 = m * self.beta1 + &(g * (1.0 - self.beta1));
                let v2 = v * self.beta2 + &(&(g * g) * (1.0 - self.beta2));
                let m_hat = &m2 / &c1;
                let v_hat = &v2 / &c2;
                let update = &m_hat / &(v_hat.sqrt() + self.eps) + &(p * self.weight_decay);
                (p - &(&update * lr), m2, v2)
            });
            ps.push(p2);
            ms.push(m2);
            vs.push(v2);
        }
        (ps, ms, vs)
    }
}

/// The scope of parameter `i`'s update (`param[3]`): what a training step renames to the
/// parameter's name when it has one (`TrainStep::with_param_names`).
pub fn param_scope(i: usize) -> String {
    format!("param[{i}]")
}

/// Scales gradients so their global L2 norm is at most `max_norm` (PyTorch's
/// `clip_grad_norm_`: `g * min(1, max_norm / (norm + 1e-6))`). Returns the clipped
/// gradients and the norm before clipping. With split gradients the norm is a
/// cross-shard reduction, which partitioning turns into an all-reduce.
pub fn clip_by_global_norm(grads: &[Tensor], max_norm: f64) -> (Vec<Tensor>, Tensor) {
    let squares: Vec<Tensor> = grads
        .iter()
        .map(|g| {
            let all: Vec<isize> = (0..g.rank() as isize).collect();
            (g * g).sum(&all)
        })
        .collect();
    let total = squares[1..]
        .iter()
        .fold(squares[0].clone(), |acc, s| acc + s);
    let norm = total.sqrt();
    let scale = (norm.scalar(max_norm) / (&norm + 1e-6)).minimum(&norm.scalar(1.0));
    (grads.iter().map(|g| g * &scale).collect(), norm)
}

/// Learning rate with linear warm-up then cosine decay, at step `step` (a float scalar):
/// `base * step / warmup` before `warmup`, then
/// `min + (base - min) * (1 + cos(pi * (step - warmup) / (total - warmup))) / 2`,
/// and `min` after `total`.
pub fn warmup_cosine(step: &Tensor, base: f64, warmup: f64, total: f64, min: f64) -> Tensor {
    let warm = step * (base / warmup.max(1.0));
    let progress = ((step - warmup) / (total - warmup).max(1.0)).minimum(&step.scalar(1.0));
    let cosine = (progress * std::f64::consts::PI).unary(UnaryOp::Cosine);
    let decayed = (cosine + 1.0) * (0.5 * (base - min)) + min;
    let in_warmup = step.compare(ComparisonDirection::Lt, &step.scalar(warmup));
    Tensor::select(&in_warmup, &warm, &decayed)
}

/// A learning-rate schedule: the rate at step `t` (from 1), traced into the training step.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Schedule {
    /// `lr` at every step.
    Constant {
        /// The rate.
        lr: f64,
    },
    /// Linear warm-up to `lr`, then cosine decay to `lr * min_ratio` at `total`
    /// ([`warmup_cosine`]).
    WarmupCosine {
        /// Peak learning rate.
        lr: f64,
        /// Warm-up steps.
        warmup: f64,
        /// Step the decay ends at.
        total: f64,
        /// Final rate as a fraction of `lr`.
        min_ratio: f64,
    },
    /// Linear warm-up to `lr`, then linear decay to `lr * end_ratio` at `total` and that
    /// after (transformers' `get_linear_schedule_with_warmup` with `end_ratio` 0).
    WarmupLinear {
        /// Peak learning rate.
        lr: f64,
        /// Warm-up steps.
        warmup: f64,
        /// Step the decay ends at.
        total: f64,
        /// Final rate as a fraction of `lr`.
        end_ratio: f64,
    },
    /// `lr * gamma^floor(t / every)` (PyTorch's `StepLR`).
    Step {
        /// The first rate.
        lr: f64,
        /// Steps between decays.
        every: f64,
        /// The factor of each decay.
        gamma: f64,
    },
    /// Any schedule as points `(step, rate)` in increasing steps, linearly interpolated
    /// between them and constant beyond the first and last (optax's
    /// `piecewise_interpolate_schedule` with linear interpolation).
    Piecewise(&'static [(f64, f64)]),
}

impl Schedule {
    /// The rate at step `t` (a float scalar).
    #[track_caller]
    pub fn rate(&self, t: &Tensor) -> Tensor {
        match *self {
            Schedule::Constant { lr } => t * 0.0 + lr,
            Schedule::WarmupCosine {
                lr,
                warmup,
                total,
                min_ratio,
            } => warmup_cosine(t, lr, warmup, total, lr * min_ratio),
            Schedule::WarmupLinear {
                lr,
                warmup,
                total,
                end_ratio,
            } => {
                let warm = t * (lr / warmup.max(1.0));
                let progress = ((t - warmup) / (total - warmup).max(1.0))
                    .minimum(&t.scalar(1.0))
                    .maximum(&t.scalar(0.0));
                let decayed = progress * (lr * end_ratio - lr) + lr;
                let in_warmup = t.compare(ComparisonDirection::Lt, &t.scalar(warmup));
                Tensor::select(&in_warmup, &warm, &decayed)
            }
            Schedule::Step { lr, every, gamma } => {
                let k = (t / every.max(1.0)).unary(UnaryOp::Floor);
                t.scalar(gamma).pow(&k) * lr
            }
            Schedule::Piecewise(points) => {
                let sorted = points.windows(2).all(|w| w[0].0 <= w[1].0);
                let finite = points.iter().all(|(s, v)| s.is_finite() && v.is_finite());
                let (true, true, Some(&(_, first))) = (sorted, finite, points.first()) else {
                    return t.user_error(
                        "Schedule::Piecewise",
                        std::panic::Location::caller(),
                        format!(
                            "the points {points:?} must be at least one (step, rate) pair, finite, in non-decreasing steps"
                        ),
                        "list the points in the order of their steps (two at one step make a jump)",
                    );
                };
                // first + the sum of each segment's slope times the part of it passed.
                points.windows(2).fold(t * 0.0 + first, |acc, w| {
                    let ((s0, v0), (s1, v1)) = (w[0], w[1]);
                    let len = s1 - s0;
                    if len <= 0.0 {
                        // A jump at s0.
                        let after = t.compare(ComparisonDirection::Ge, &t.scalar(s0));
                        return acc + Tensor::select(&after, &t.scalar(v1 - v0), &t.scalar(0.0));
                    }
                    let passed = (t - s0).maximum(&t.scalar(0.0)).minimum(&t.scalar(len));
                    acc + passed * ((v1 - v0) / len)
                })
            }
        }
    }
}
