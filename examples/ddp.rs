//! Data parallelism (PyTorch DDP): the batch split over `data`, parameters replicated, gradients all-reduced in buckets.
//!
//! Run with `cargo run --release --example ddp`; with `-- --compress int8` (or `bf16`,
//! `powersgd:4`) the gradient buckets travel compressed, as DDP's communication hooks
//! send them (`docs/topology.md`).

mod common;

use shardc::Mesh;
use shardc::ir::compress::Compression;
use shardc_train::strategy::Strategy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[("data", 4)])?;
    let args: Vec<String> = std::env::args().collect();
    let strategy = match args.iter().position(|a| a == "--compress") {
        Some(i) => {
            let kind = args
                .get(i + 1)
                .ok_or("--compress takes a kind: bf16, int8 or powersgd:R")?;
            Strategy::ddp_compressed(Compression::parse(kind)?)
        }
        None => Strategy::ddp(),
    };
    common::run(strategy, &mesh, 5)
}
