//! Data parallelism times tensor parallelism: the batch over the data axis, parameters
//! with the model's tensor-parallel specs (over `model` in the presets).

use super::{Layouts, Parallelism, axis, batch_over, one_per_parameter};
use shardc::{Error, Mesh, PartitionSpec, TensorType};

/// The batch over `data`, parameters with `specs`.
#[derive(Clone, Debug, PartialEq)]
pub struct DpTp {
    /// The axis the batch splits over.
    pub data: &'static str,
    /// The parameters' tensor-parallel specs.
    pub specs: Vec<PartitionSpec>,
}

impl DpTp {
    /// Over [`axis::DATA`].
    pub fn new(specs: Vec<PartitionSpec>) -> DpTp {
        DpTp {
            data: axis::DATA,
            specs,
        }
    }
}

impl Parallelism for DpTp {
    fn name(&self) -> String {
        "dp_tp".into()
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        one_per_parameter("dp_tp", &self.specs, params)
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }
}
