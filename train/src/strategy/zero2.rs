//! ZeRO stage 2: gradients and optimizer state split over the data axis (gradients reduce-scattered); parameters replicated.

use super::{Layouts, Parallelism, axis, batch_over, zero_layouts};
use shardc::{Error, Mesh, PartitionSpec, TensorType};

/// ZeRO-2 over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zero2 {
    /// The axis the batch, the gradients and the optimizer state split over.
    pub data: &'static str,
}

impl Default for Zero2 {
    fn default() -> Zero2 {
        Zero2 { data: axis::DATA }
    }
}

impl Parallelism for Zero2 {
    fn name(&self) -> String {
        "zero2".into()
    }

    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error> {
        Ok(zero_layouts(2, self.data, params, mesh))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }
}
