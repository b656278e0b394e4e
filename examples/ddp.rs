//! Data parallelism (PyTorch DDP): the batch split over `data`, parameters replicated, gradients all-reduced in buckets.
//!
//! Run with `cargo run --release --example ddp`.

mod common;

use shardc::Mesh;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    common::run(Strategy::ddp(), &mesh, 5)
}
