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
