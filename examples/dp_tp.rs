//! Data x tensor parallelism on a 2x4 mesh: the batch over `data`, Megatron's weights over `model`.
//!
//! Run with `cargo run --release --example dp_tp`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)])?;
    common::run(Strategy::dp_tp(common::megatron_specs()), &mesh, 5)
}
