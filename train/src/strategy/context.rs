//! Context (sequence) parallelism: every batch tensor's second dimension (the sequence)
//! split over the context axis, its first over the data axis when the mesh has it;
//! parameters with the given specs (replicated, or Megatron's). Attention gathers the
//! keys and values over the context axis (as Llama 3's context parallelism does), or
//! rolls them around a ring (`models::Attention::Ring`); everything else stays split by
//! position.

use super::{Layouts, Parallelism, axis, one_per_parameter};
use shardc::{DimSpec, Error, Mesh, PartitionSpec, TensorType};

/// Sequences over `context`, batches over `data` (when the mesh has it), parameters with
/// `specs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// The axis the batch splits over.
    pub data: &'static str,
    /// The axis the sequence splits over.
    pub context: &'static str,
    /// The parameters' specs.
    pub specs: Vec<PartitionSpec>,
}

impl Context {
    /// Over [`axis::DATA`] and [`axis::CONTEXT`].
    pub fn new(specs: Vec<PartitionSpec>) -> Context {
        Context {
            data: axis::DATA,
            context: axis::CONTEXT,
            specs,
        }
    }
}

impl Parallelism for Context {
    fn name(&self) -> String {
        "context".into()
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        one_per_parameter("context", &self.specs, params)
    }

    /// `[data, context, ...]`, without `data` when the mesh has no such axis.
    fn batch_spec(&self, t: &TensorType, mesh: &Mesh) -> Result<PartitionSpec, Error> {
        if t.rank() < 2 || mesh.axis_size(self.context).is_none() {
            return Err(Error::Usage(format!(
                "context parallelism splits the second dimension (the sequence) of every batch tensor over the mesh axis `{}`, but a batch tensor is {t} on mesh {mesh}: give batch tensors a [batch, sequence, ...] shape and the mesh a `{}` axis",
                self.context, self.context
            )));
        }
        let data = if mesh.axis_size(self.data).is_some() {
            DimSpec::axes(&[self.data])
        } else {
            DimSpec::replicated()
        };
        Ok(PartitionSpec::new(vec![
            data,
            DimSpec::axes(&[self.context]),
        ]))
    }
}
