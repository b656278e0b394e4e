//! ZeRO stage 1: the optimizer state split over the data axis; parameters and gradients replicated (gradients all-reduced, updated parameters gathered).

use super::{Layouts, Parallelism, axis, batch_over, zero_layouts};
use shardc::{Error, Mesh, Options, PartitionSpec, TensorType};

/// ZeRO-1 over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zero1 {
    /// The axis the batch and the optimizer state split over.
    pub data: &'static str,
}

impl Default for Zero1 {
    fn default() -> Zero1 {
        Zero1 { data: axis::DATA }
    }
}

impl Parallelism for Zero1 {
    fn name(&self) -> String {
        "zero1".into()
    }

    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error> {
        Ok(zero_layouts(1, self.data, params, mesh))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }

    /// Every device keeps the whole summed gradient, as stage 1 does (the compiler would
    /// otherwise reduce-scatter it, each device reading only its block: ZeRO-2's
    /// communication).
    fn options(&self, options: &mut Options) {
        options.scatter_sums = false;
    }
}
