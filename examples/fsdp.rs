//! ZeRO stage 3 / FSDP: parameters, gradients and optimizer state split over `data`; each parameter gathered before its forward use and again for its backward use.
//!
//! Run with `cargo run --release --example fsdp`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    common::run(Strategy::zero3(), &mesh, 5)
}
