//! Distributed data parallelism (PyTorch's DDP): the batch split over the data axis,
//! parameters, gradients and optimizer state replicated; the gradients' all-reduces
//! fused into 25 MiB buckets, as PyTorch does.

use super::{Layouts, Parallelism, axis, batch_over};
use shardc::{Error, Mesh, Options, P, PartitionSpec, TensorType};

/// DDP over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ddp {
    /// The axis the batch splits over.
    pub data: &'static str,
}

impl Default for Ddp {
    fn default() -> Ddp {
        Ddp { data: axis::DATA }
    }
}

impl Parallelism for Ddp {
    fn name(&self) -> String {
        "ddp".into()
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        Ok(Layouts::same(vec![P![]; params.len()]))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }

    fn options(&self, options: &mut Options) {
        options.bucket_bytes = Some(25 << 20);
    }
}
