//! Running a compiled program on a simulated mesh from global inputs.

use crate::Error;
use shardc_compiler::Compiled;
use shardc_compiler::sharding::layout::Layout;
use shardc_ir::{Literal, MeshPosition, Sharding};
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
/// JIT (`shardc::compiler::lower::cpu::NativeCompute`), which cuts the segments into fusion
/// clusters and compiles each distinct cluster once for all devices.
pub fn run_simulated_with(
    engine: &dyn Compute,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    let mesh = &c.partitioned.mesh;
    let devices = mesh.devices();
    let per_device = shard_args(c, args)?;
    let outs = simulate::run_on(
        engine,
        &c.partitioned.module,
        c.entry_name(),
        &devices,
        &per_device,
    )
    .map_err(|e| Error::Usage(e.to_string()))?;
    unshard_results(c, outs, tolerance)
}

pub(crate) fn sharding(c: &Compiled, l: &Layout) -> Result<Sharding, Error> {
    l.to_sharding(&c.partitioned.mesh.name)
        .ok_or_else(|| Error::Usage(format!("layout {l} has no sharding")))
}

/// Each mesh position's pieces of the global arguments, by position.
pub(crate) fn shard_args(c: &Compiled, args: &[Literal]) -> Result<Vec<Vec<Literal>>, Error> {
    c.partitioned
        .mesh
        .positions()
        .map(|pos| shard_args_at(c, args, pos))
        .collect()
}

/// The pieces of the global arguments that the device at mesh position `position` holds.
pub(crate) fn shard_args_at(
    c: &Compiled,
    args: &[Literal],
    position: MeshPosition,
) -> Result<Vec<Literal>, Error> {
    let want = c.partitioned.inputs.len();
    if args.len() != want {
        return Err(Error::Usage(format!(
            "the program takes {want} arguments, {} were given",
            args.len()
        )));
    }
    args.iter()
        .enumerate()
        .map(|(arg, a)| shard_arg_at(c, arg, a, position))
        .collect()
}

/// The pieces of argument `arg` of every mesh position, by position.
pub(crate) fn shard_arg(c: &Compiled, arg: usize, global: &Literal) -> Result<Vec<Literal>, Error> {
    c.partitioned
        .mesh
        .positions()
        .map(|pos| shard_arg_at(c, arg, global, pos))
        .collect()
}

/// The piece of argument `arg` that the device at mesh position `position` holds.
pub(crate) fn shard_arg_at(
    c: &Compiled,
    arg: usize,
    global: &Literal,
    position: MeshPosition,
) -> Result<Literal, Error> {
    let p = &c.partitioned;
    let layout = p.inputs.get(arg).ok_or_else(|| {
        Error::Usage(format!(
            "argument {arg} given, but the program takes {} arguments",
            p.inputs.len()
        ))
    })?;
    if let Some(want) = c
        .global
        .entry()
        .and_then(|f| f.arg_types().get(arg).cloned())
        && global.ty != want
    {
        return Err(Error::Usage(format!(
            "argument {arg} is a {}, but the program takes a {want}: give a value of that type",
            global.ty
        )));
    }
    shard::shard_with(global, &sharding(c, layout)?, &p.mesh, position, p.uneven)
        .map_err(|e| Error::Usage(format!("argument {arg}: {e}")))
}

/// The global results from each mesh position's results (by position), checking that
/// positions holding the same piece agree within `tolerance`.
pub(crate) fn unshard_results(
    c: &Compiled,
    outs: Vec<Vec<Literal>>,
    tolerance: f64,
) -> Result<Vec<Literal>, Error> {
    let count = c.partitioned.outputs.len();
    let mut positions: Vec<_> = outs.into_iter().map(Vec::into_iter).collect();
    (0..count)
        .map(|k| {
            let pieces = positions
                .iter_mut()
                .map(|p| p.next())
                .collect::<Option<Vec<Literal>>>()
                .ok_or_else(|| Error::Usage(format!("result {k}: a device returned no piece")))?;
            unshard_result(c, k, &pieces, tolerance)
        })
        .collect()
}

/// Result `k` from every mesh position's piece of it (by position), checking that positions
/// holding the same piece agree within `tolerance`.
pub(crate) fn unshard_result(
    c: &Compiled,
    k: usize,
    pieces: &[Literal],
    tolerance: f64,
) -> Result<Literal, Error> {
    let p = &c.partitioned;
    let f = c
        .global
        .entry()
        .ok_or_else(|| Error::Usage("no entry function".into()))?;
    let types = f.result_types();
    let (ty, layout) = types.get(k).zip(p.outputs.get(k)).ok_or_else(|| {
        Error::Usage(format!(
            "result {k}: the program has {} results",
            types.len()
        ))
    })?;
    shard::unshard_with(
        pieces,
        &sharding(c, layout)?,
        &p.mesh,
        ty,
        tolerance,
        p.uneven,
    )
    .map_err(|e| Error::Usage(format!("result {k}: {e}")))
}
