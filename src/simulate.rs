//! Running a compiled program on a simulated mesh from global inputs.

use crate::Error;
use shardc_compiler::Compiled;
use shardc_ir::Literal;
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
/// JIT (`shardc::compiler::lower::cpu::JitCompute`), which compiles each distinct
/// segment once for all devices.
pub fn run_simulated_with(
    engine: &dyn Compute,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    let p = &c.partitioned;
    let mesh = &p.mesh;
    let n = mesh.num_devices();
    let devices: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
    let sharding = |l: &shardc_compiler::layout::Layout| {
        l.to_sharding(&mesh.name)
            .ok_or_else(|| Error::Usage(format!("layout {l} has no sharding")))
    };
    let mut per_device = Vec::with_capacity(n);
    for pos in 0..n {
        let mut pieces = Vec::with_capacity(args.len());
        for (a, l) in args.iter().zip(&p.inputs) {
            pieces.push(
                shard::shard(a, &sharding(l)?, mesh, pos)
                    .map_err(|e| Error::Usage(e.to_string()))?,
            );
        }
        per_device.push(pieces);
    }
    let outs = simulate::run_with(engine, &p.module, "main", &devices, &per_device)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let f = c
        .global
        .entry()
        .ok_or_else(|| Error::Usage("no entry function".into()))?;
    let types = f.result_types();
    (0..types.len())
        .map(|k| {
            let pieces: Vec<Literal> = outs.iter().map(|o| o[k].clone()).collect();
            shard::unshard(
                &pieces,
                &sharding(&p.outputs[k])?,
                mesh,
                &types[k],
                tolerance,
            )
            .map_err(|e| Error::Usage(format!("result {k}: {e}")))
        })
        .collect()
}
