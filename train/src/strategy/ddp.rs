//! Distributed data parallelism (PyTorch's DDP): the batch split over the data axis,
//! parameters, gradients and optimizer state replicated; the gradients' all-reduces
//! fused into 25 MiB buckets, as PyTorch does — and, when asked, compressed as DDP's
//! communication hooks compress them (bf16, int8 blocks with error feedback, or
//! PowerSGD: `docs/topology.md`).

use super::{Layouts, Parallelism, axis, batch_over};
use shardc::ir::compress::Compression;
use shardc::{Error, Mesh, Options, P, PartitionSpec, TensorType};

/// DDP over `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ddp {
    /// The axis the batch splits over.
    pub data: &'static str,
    /// How the gradient buckets travel over `data`; `None`: as they are (f32).
    pub compression: Option<Compression>,
}

impl Default for Ddp {
    fn default() -> Ddp {
        Ddp {
            data: axis::DATA,
            compression: None,
        }
    }
}

impl Parallelism for Ddp {
    /// `ddp`, or `ddp_bf16` / `ddp_int8` / `ddp_powersgd4` with compressed gradients.
    fn name(&self) -> String {
        match self.compression {
            None => "ddp".into(),
            Some(Compression::Bf16) => "ddp_bf16".into(),
            Some(Compression::Int8 { .. }) => "ddp_int8".into(),
            Some(Compression::PowerSgd { rank }) => format!("ddp_powersgd{rank}"),
        }
    }

    fn layouts(&self, params: &[TensorType], _: &Mesh) -> Result<Layouts, Error> {
        Ok(Layouts::same(vec![P![]; params.len()]))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }

    fn options(&self, options: &mut Options) {
        options.bucket_bytes = Some(25 << 20);
        if let Some(c) = self.compression {
            options.compress.push((self.data.to_string(), c));
        }
    }
}
