//! ZeRO stage 3, which is what PyTorch's FSDP does: parameters, gradients and optimizer state split over the data axis; parameters gathered for use and gathered again for the backward pass instead of keeping the gathered copies alive.

use super::{Layouts, Parallelism, axis, batch_over, zero_layouts};
use shardc::{Error, Mesh, Options, PartitionSpec, TensorType};

/// ZeRO-3 over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zero3 {
    /// The axis the batch and everything the step keeps split over.
    pub data: &'static str,
}

impl Default for Zero3 {
    fn default() -> Zero3 {
        Zero3 { data: axis::DATA }
    }
}

impl Parallelism for Zero3 {
    fn name(&self) -> String {
        "zero3".into()
    }

    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error> {
        Ok(zero_layouts(3, self.data, params, mesh))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }

    fn options(&self, options: &mut Options) {
        options.regather_gap = Some(4);
        // Each gather issued a layer early (FSDP's prefetch): 4-7% off the demo's step
        // (`docs/training.md`).
        options.prefetch = 1;
    }
}
