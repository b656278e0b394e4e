//! Mixed precision as a policy on the loss: parameters (the f32 "master weights") and the
//! optimizer state stay in f32, the loss computes in a narrower dtype, and the loss comes
//! back in f32, as PyTorch's autocast with f32 master weights and JAX's
//! `jmp.get_policy("params=float32,compute=bfloat16,output=float32")` do.
//!
//! [`mixed`] wraps a loss: every floating-point parameter and batch input is converted to
//! the compute dtype before the loss runs, its result converted to f32. Autodiff goes
//! through the conversions, so each gradient is computed in the compute dtype and
//! converted to f32 for its master weight; the gradient reduction moves the narrow dtype's
//! bytes wherever propagation places it before that conversion.

use shardc::{DType, Tensor};

/// `loss`, computed in `compute` (`DType::BF16` or `DType::F16`) on f32 parameters and
/// batches, returning an f32 loss.
pub fn mixed<F>(
    loss: F,
    compute: DType,
) -> impl Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static
where
    F: Fn(&[Tensor], &[Tensor]) -> Tensor + Clone + 'static,
{
    move |params: &[Tensor], batch: &[Tensor]| {
        let narrow = |xs: &[Tensor]| -> Vec<Tensor> {
            xs.iter()
                .map(|x| {
                    if x.dtype() == DType::F32 {
                        x.convert(compute)
                    } else {
                        x.clone()
                    }
                })
                .collect()
        };
        loss(&narrow(params), &narrow(batch)).convert(DType::F32)
    }
}

/// Dynamic loss scaling's settings (PyTorch's `GradScaler` defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossScaling {
    /// The first scale.
    pub initial: f64,
    /// The scale is multiplied by `growth` after this many finite steps in a row.
    pub growth_interval: usize,
    /// What the scale is multiplied by after `growth_interval` finite steps.
    pub growth: f64,
    /// What it is multiplied by after a step with a non-finite gradient (which is skipped).
    pub backoff: f64,
}

impl Default for LossScaling {
    fn default() -> LossScaling {
        LossScaling {
            initial: 65536.0,
            growth_interval: 2000,
            growth: 2.0,
            backoff: 0.5,
        }
    }
}

/// The loss scale between the steps of a [`crate::step::train_step_scaled`] step, kept on
/// the host as `GradScaler` keeps it: each step's result says whether its gradients were
/// finite; a step that overflowed was skipped by the program and halves the scale, and
/// `growth_interval` finite steps in a row double it.
#[derive(Clone, Debug, PartialEq)]
pub struct LossScaler {
    settings: LossScaling,
    scale: f64,
    finite_in_a_row: usize,
    skipped: usize,
}

impl LossScaler {
    /// A scaler starting at `settings.initial`.
    pub fn new(settings: LossScaling) -> LossScaler {
        LossScaler {
            settings,
            scale: settings.initial,
            finite_in_a_row: 0,
            skipped: 0,
        }
    }

    /// The scale the next step runs with.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The next step's last argument: the scale, an f32 scalar.
    pub fn arg(&self) -> shardc_ir::Literal {
        shardc_ir::Literal::scalar(DType::F32, shardc_ir::Scalar::Float(self.scale))
    }

    /// Takes a step's outcome (whether its gradients were all finite, from
    /// [`crate::step::TrainStep::finite`]); returns whether the step was applied.
    pub fn update(&mut self, finite: bool) -> bool {
        if finite {
            self.finite_in_a_row += 1;
            if self.finite_in_a_row >= self.settings.growth_interval {
                self.scale *= self.settings.growth;
                self.finite_in_a_row = 0;
            }
        } else {
            self.scale *= self.settings.backoff;
            self.finite_in_a_row = 0;
            self.skipped += 1;
        }
        finite
    }

    /// Steps skipped so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}
