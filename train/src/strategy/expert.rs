//! Expert parallelism (GShard): the batch split over the data axis, the experts' weights
//! split by expert with the given specs (e.g. `MoeConfig::expert_specs(axis::DATA)`), so
//! tokens travel to their experts and back by all-to-all.

use super::{Layouts, Parallelism, axis, batch_over, one_per_parameter};
use shardc::{Error, Mesh, PartitionSpec, TensorType};

/// The batch over `data`, parameters (experts split by expert) with `specs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expert {
    /// The axis the batch and the experts split over.
    pub data: &'static str,
    /// The parameters' specs (experts split over `data`).
    pub specs: Vec<PartitionSpec>,
}

impl Expert {
    /// Over [`axis::DATA`].
    pub fn new(specs: Vec<PartitionSpec>) -> Expert {
        Expert {
            data: axis::DATA,
            specs,
        }
    }
}

impl Parallelism for Expert {
    fn name(&self) -> String {
        "expert".into()
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        one_per_parameter("expert", &self.specs, params)
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }
}
