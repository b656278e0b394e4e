//! ZeRO stage 2: optimizer state and gradients split over `data`; gradients reduce-scattered.
//!
//! Run with `cargo run --release --example zero2`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    common::run(Strategy::zero2(), &mesh, 5)
}
