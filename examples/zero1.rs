//! ZeRO stage 1: the optimizer state split over `data`; gradients all-reduced, updated parameters all-gathered.
//!
//! Run with `cargo run --release --example zero1`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    common::run(Strategy::zero1(), &mesh, 5)
}
