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

    /// The state a checkpoint keeps ([`crate::checkpoint::Checkpoint::loss_scale`]):
    /// `scale=S finite_in_a_row=N skipped=K` (the scale exactly, as Rust prints an f64).
    pub fn state(&self) -> String {
        format!(
            "scale={} finite_in_a_row={} skipped={}",
            self.scale, self.finite_in_a_row, self.skipped
        )
    }

    /// A scaler with `settings` going on from a checkpoint's [`LossScaler::state`].
    pub fn restore(settings: LossScaling, state: &str) -> Result<LossScaler, String> {
        let mut s = LossScaler::new(settings);
        let mut seen = [false; 3];
        for field in state.split_whitespace() {
            let bad = || {
                format!(
                    "the loss scaler's state {state:?} has {field:?}, not `scale=S`, `finite_in_a_row=N` or `skipped=K`"
                )
            };
            let (key, value) = field.split_once('=').ok_or_else(bad)?;
            match key {
                "scale" => {
                    s.scale = value.parse().map_err(|_| bad())?;
                    if !(s.scale.is_finite() && s.scale > 0.0) {
                        return Err(format!(
                            "the loss scaler's state {state:?} has scale {value}, not a positive number"
                        ));
                    }
                    seen[0] = true;
                }
                "finite_in_a_row" => {
                    s.finite_in_a_row = value.parse().map_err(|_| bad())?;
                    seen[1] = true;
                }
                "skipped" => {
                    s.skipped = value.parse().map_err(|_| bad())?;
                    seen[2] = true;
                }
                _ => return Err(bad()),
            }
        }
        if seen != [true; 3] {
            return Err(format!(
                "the loss scaler's state {state:?} lacks one of `scale`, `finite_in_a_row`, `skipped`"
            ));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint's state gives back the scaler it came from; anything else is refused
    /// naming the field.
    #[test]
    fn the_state_round_trips_and_bad_states_are_refused() {
        let settings = LossScaling {
            growth_interval: 2,
            ..LossScaling::default()
        };
        let mut s = LossScaler::new(settings);
        for finite in [false, true, false, false, true] {
            s.update(finite);
        }
        let back = LossScaler::restore(settings, &s.state()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.scale(), 65536.0 / 8.0);
        assert_eq!(back.skipped(), 3);
        for (bad, says) in [
            ("scale=1 finite_in_a_row=0", "lacks"),
            ("scale=x finite_in_a_row=0 skipped=0", "\"scale=x\""),
            (
                "scale=0 finite_in_a_row=0 skipped=0",
                "not a positive number",
            ),
            (
                "scale=inf finite_in_a_row=0 skipped=0",
                "not a positive number",
            ),
            (
                "scale=2 growth=3 finite_in_a_row=0 skipped=0",
                "\"growth=3\"",
            ),
            ("scale=2 finite_in_a_row=-1 skipped=0", "finite_in_a_row=-1"),
        ] {
            let e = LossScaler::restore(settings, bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
