//! ZeRO stage 1: the optimizer state split over the data axis; parameters and gradients replicated (gradients all-reduced, updated parameters gathered).

use super::{Layouts, Parallelism, axis, split_over};
use shardc::{DimSpec, Error, Mesh, P, PartitionSpec, TensorType};

/// ZeRO-1 over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zero1 {
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
        let shards: Vec<PartitionSpec> = params
            .iter()
            .map(|t| split_over(t, self.data, mesh))
            .collect();
        Ok(Layouts {
            params: vec![P![]; params.len()],
            grads: vec![P![]; params.len()],
            state: shards.clone(),
        })
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(PartitionSpec::new(vec![DimSpec::axes(&[self.data])]))
    }
}
