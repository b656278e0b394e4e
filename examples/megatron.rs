//! Megatron tensor parallelism: each block's first matmul split by columns and second by rows over `model`; one all-reduce per block forward.
//!
//! Run with `cargo run --release --example megatron`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("model", 4)])?;
    common::run(Strategy::megatron(common::megatron_specs()), &mesh, 5)
}
