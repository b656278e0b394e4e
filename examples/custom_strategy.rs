//! A strategy of one's own, defined here, outside the shardc crates: FSDP over `data`
//! times tensor parallelism over `model` (torchtitan's FSDP x TP). Each parameter keeps
//! Megatron's split over `model` and is also split over `data` on its first dimension
//! that `model` leaves free; gradients and optimizer state follow the parameters; the
//! batch stays on `data`. Implementing `Parallelism` is all it takes: the step, the
//! compiler and the runtime treat it as they treat the built-in strategies.
//!
//! Run with `cargo run --release --example custom_strategy`: it prints the decisions and
//! trains five steps on the cpu backend (data=2 x model=2) next to the single-device
//! reference, failing if they disagree.

mod common;

use shardc::{DimSpec, Error, Mesh, Options, PartitionSpec, TensorType};
use shardc_train::strategy::{Layouts, Parallelism, Strategy};

/// FSDP over `data` x tensor parallelism over `model`.
#[derive(Debug)]
struct FsdpTp {
    data: &'static str,
    /// The tensor-parallel specs, one per parameter.
    tp: Vec<PartitionSpec>,
}

impl Parallelism for FsdpTp {
    fn name(&self) -> String {
        "fsdp_tp".into()
    }

    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error> {
        let shards = mesh.axis_size(self.data).unwrap_or(1);
        let specs = params
            .iter()
            .zip(&self.tp)
            .map(|(t, tp)| {
                // `data` on the first dimension the tensor-parallel spec leaves replicated
                // and `data` divides.
                let mut dims: Vec<DimSpec> = (0..t.rank())
                    .map(|d| tp.0.get(d).cloned().unwrap_or(DimSpec::replicated()))
                    .collect();
                if let Some(d) = (0..t.rank())
                    .find(|&d| dims[d] == DimSpec::replicated() && t.shape[d] % shards == 0)
                {
                    dims[d] = DimSpec::axes(&[self.data]);
                }
                PartitionSpec::new(dims)
            })
            .collect();
        Ok(Layouts::same(specs))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(PartitionSpec::new(vec![DimSpec::axes(&[self.data])]))
    }

    /// As FSDP: parameters gathered again for the backward pass.
    fn options(&self, options: &mut Options) {
        options.regather_gap = Some(4);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 2)])?;
    let strategy = Strategy::new(FsdpTp {
        data: "data",
        tp: common::megatron_specs(),
    });
    common::run(strategy, &mesh, 5)
}
