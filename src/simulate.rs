//! Running a compiled program on a simulated mesh from global inputs.

use crate::Error;
use shardc_compiler::Compiled;
use shardc_compiler::layout::Layout;
use shardc_ir::{Literal, Sharding};
use shardc_runtime::engine::{Compute, Interpreted};
use shardc_runtime::{shard, simulate};

/// Shards global `args` as the partitioned program expects, runs it on every device of the
/// mesh (one reference interpreter each, exact collectives), and reassembles the results,
/// checking that devices holding the same piece agree within `tolerance`.
pub fn run_simulated(
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    run_simulated_with(&Interpreted, c, args, tolerance)
}

/// [`run_simulated`] with the devices' compute segments run by `engine`, e.g. the MLIR
/// JIT (`shardc::compiler::lower::cpu::JitCompute`), which cuts the segments into fusion
/// clusters and compiles each distinct cluster once for all devices.
pub fn run_simulated_with(
    engine: &dyn Compute,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    let mesh = &c.partitioned.mesh;
    let devices: Vec<usize> = (0..mesh.num_devices())
        .map(|pos| mesh.device_at(pos))
        .collect();
    let per_device = shard_args(c, args)?;
    let outs = simulate::run_with(engine, &c.partitioned.module, "main", &devices, &per_device)
        .map_err(|e| Error::Usage(e.to_string()))?;
    unshard_results(c, &outs, tolerance)
}

pub(crate) fn sharding(c: &Compiled, l: &Layout) -> Result<Sharding, Error> {
    l.to_sharding(&c.partitioned.mesh.name)
        .ok_or_else(|| Error::Usage(format!("layout {l} has no sharding")))
}

/// Each mesh position's pieces of the global arguments, by position.
pub(crate) fn shard_args(c: &Compiled, args: &[Literal]) -> Result<Vec<Vec<Literal>>, Error> {
    let p = &c.partitioned;
    if args.len() != p.inputs.len() {
        return Err(Error::Usage(format!(
            "the program takes {} arguments, {} were given",
            p.inputs.len(),
            args.len()
        )));
    }
    (0..p.mesh.num_devices())
        .map(|pos| {
            args.iter()
                .zip(&p.inputs)
                .map(|(a, l)| {
                    shard::shard_with(a, &sharding(c, l)?, &p.mesh, pos, p.uneven)
                        .map_err(|e| Error::Usage(e.to_string()))
                })
                .collect()
        })
        .collect()
}

/// The global results from each mesh position's results (by position), checking that
/// positions holding the same piece agree within `tolerance`.
pub(crate) fn unshard_results(
    c: &Compiled,
    outs: &[Vec<Literal>],
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    let p = &c.partitioned;
    let f = c
        .global
        .entry()
        .ok_or_else(|| Error::Usage("no entry function".into()))?;
    let types = f.result_types();
    (0..types.len())
        .map(|k| {
            let pieces: Vec<Literal> = outs.iter().map(|o| o[k].clone()).collect();
            shard::unshard_with(
                &pieces,
                &sharding(c, &p.outputs[k])?,
                &p.mesh,
                &types[k],
                tolerance,
                p.uneven,
            )
            .map_err(|e| Error::Usage(format!("result {k}: {e}")))
        })
        .collect()
}
