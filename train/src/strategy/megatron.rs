//! Megatron-LM tensor parallelism: parameters (and so their gradients and optimizer
//! state) with the model's tensor-parallel specs, the batch replicated.

use super::{Layouts, Parallelism, one_per_parameter};
use shardc::{Error, Mesh, P, PartitionSpec, TensorType};

/// Tensor parallelism with these parameter specs (one per parameter).
#[derive(Clone, Debug, PartialEq)]
pub struct Megatron {
    /// The parameters' tensor-parallel specs.
    pub specs: Vec<PartitionSpec>,
}

impl Parallelism for Megatron {
    fn name(&self) -> String {
        "megatron".into()
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        one_per_parameter("megatron", &self.specs, params)
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(P![])
    }
}
