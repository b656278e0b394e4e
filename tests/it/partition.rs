//! Partitioning: every decision is also a numerics test. A program is compiled, its
//! inputs sharded as the partitioned program expects, the program run on a simulated mesh
//! (one reference interpreter per device, exact collectives), the outputs reassembled
//! and compared with the single-device reference run.

use shardc::compiler::{Compiled, Options, compile};
use shardc::ir::testing::jax::{excess_error, jax_fixtures};
use shardc::ir::{Literal, Module};
use shardc::runtime::{reference, shard, simulate};

/// Runs a compiled program on the simulated mesh; returns the reassembled results.
pub fn run_simulated(c: &Compiled, args: &[Literal]) -> Vec<Literal> {
    let p = &c.partitioned;
    let mesh = &p.mesh;
    let n = mesh.num_devices();
    let devices: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
    let per_device: Vec<Vec<Literal>> = (0..n)
        .map(|pos| {
            args.iter()
                .zip(&p.inputs)
                .map(|(a, l)| {
                    shard::shard(
                        a,
                        &l.to_sharding(&mesh.name).expect("inputs are complete"),
                        mesh,
                        pos,
                    )
                    .unwrap()
                })
                .collect()
        })
        .collect();
    let outs = simulate::run(&p.module, "main", &devices, &per_device)
        .unwrap_or_else(|e| panic!("{e}\n{}", c.as_text(shardc::compiler::Stage::Partitioned)));
    let f = c.global.entry().unwrap();
    (0..f.results().len())
        .map(|k| {
            let pieces: Vec<Literal> = outs.iter().map(|o| o[k].clone()).collect();
            let s = p.outputs[k]
                .to_sharding(&mesh.name)
                .expect("outputs are complete");
            shard::unshard(&pieces, &s, mesh, &f.result_types()[k], 1e-4)
                .unwrap_or_else(|e| panic!("result {k}: {e}"))
        })
        .collect()
}

/// Compiles, runs on the simulated mesh and on the reference, and checks they agree.
pub fn check_against_reference(m: &Module, args: &[Literal], abs: f64, rel: f64) -> Compiled {
    let c = compile(m, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let want = reference::run(m, &m.entry().unwrap().name, args).unwrap();
    let got = run_simulated(&c, args);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let excess = excess_error(g, w, abs, rel).unwrap();
        assert!(
            excess <= 0.0,
            "result {k} is off the reference by {excess:e}\n{}",
            c.as_text(shardc::compiler::Stage::Partitioned)
        );
    }
    c
}

#[test]
fn jax_fixtures_partition_and_match_jax() {
    for fx in jax_fixtures().unwrap() {
        let c =
            compile(&fx.module, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", fx.name));
        let got = run_simulated(&c, &fx.inputs);
        for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
            let excess = excess_error(g, w, fx.abs, fx.rel).unwrap();
            assert!(
                excess <= 0.0,
                "{} result {k} is off JAX by {excess:e}",
                fx.name
            );
        }
    }
}
