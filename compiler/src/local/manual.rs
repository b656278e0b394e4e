//! `sdy.manual_computation` (JAX's `shard_map`): a region already written per device.
//! Its operands and results have the layouts its shardings give (propagation takes them
//! as they are and reshards around them, never into them), and the partitioner copies
//! its body into the per-device program on the operands' pieces: the body's collectives
//! are the user's own. Partition around it, not inside it (`DESIGN.md`).

use crate::passes::explain::Collective;
use crate::sharding::layout::Layout;
use shardc_ir::{Function, FunctionBuilder, IrError, Mesh, Op, OpKind, ValueId};
use shardc_runtime::backend::collective::Exchange;
use std::collections::HashMap;

/// The layouts a manual computation's operands must arrive in and its results leave in;
/// `None` for every other op.
pub fn fixed_layouts(op: &Op) -> Option<(Vec<Layout>, Vec<Layout>)> {
    match &op.kind {
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            ..
        } => Some((
            in_shardings.iter().map(Layout::of_sharding).collect(),
            out_shardings.iter().map(Layout::of_sharding).collect(),
        )),
        _ => None,
    }
}

/// Why a manual computation cannot be partitioned on `mesh`, if it cannot: only
/// computations manual over every axis of the mesh are (`shard_map`'s default).
pub fn unsupported(op: &Op, mesh: &Mesh) -> Option<String> {
    let OpKind::ManualComputation { manual_axes, .. } = &op.kind else {
        return None;
    };
    mesh.axes
        .iter()
        .find(|a| !manual_axes.contains(&a.name))
        .map(|a| {
            format!(
                "a shard_map over {manual_axes:?} leaves axis \"{}\" of mesh @{} automatic, which is not supported; map over every axis of the mesh",
                a.name, mesh.name
            )
        })
}

/// The collectives a manual computation's body holds, as they run (calls inlined, loops
/// that communicate unrolled: once per iteration), with the bytes each device sends (ring
/// volumes, as the runtime counts them); none for other ops.
pub fn written_collectives(
    m: &shardc_ir::Module,
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    names: &[String],
) -> Vec<Collective> {
    if !matches!(op.kind, OpKind::ManualComputation { .. }) {
        return Vec::new();
    }
    let body = shardc_ir::unroll::region_function(f, op.regions[0], "body")
        .and_then(|g| shardc_ir::inline::inline_calls(m, &g))
        .and_then(|g| shardc_ir::unroll::unroll_communicating_loops(&g));
    let Ok(body) = body else {
        return Vec::new();
    };
    let body_names = body.value_names();
    let at = op
        .results
        .first()
        .map_or_else(String::new, |r| names[r.index()].clone());
    let devices: Vec<usize> = (0..mesh.num_devices()).map(|p| mesh.device_at(p)).collect();
    let mut out = Vec::new();
    for (_, o) in body.body_ops().filter(|(_, o)| o.kind.is_collective()) {
        let Ok(ex) = Exchange::new(&body, o, &body_names) else {
            continue;
        };
        let sent: Vec<u64> = devices.iter().map(|&d| ex.ring_bytes(d)).collect();
        let bytes = if ex.is_permute() {
            sent.iter().copied().max().unwrap_or(0)
        } else {
            sent.iter().sum::<u64>() / sent.len().max(1) as u64
        };
        let axes = varying_axes(mesh, &ex.groups());
        let ty = |v: Option<&shardc_ir::ValueId>| {
            v.map_or_else(String::new, |&v| body.ty(v).to_string())
        };
        out.push(Collective {
            kind: o.kind.name().trim_start_matches("stablehlo.").to_string(),
            axes,
            value: format!("{at} (shard_map body)"),
            from: ty(o.operands.first()),
            to: ty(o.results.first()),
            bytes_per_device: bytes,
            needed_by: vec![format!("written in the shard_map body of {at}")],
            cost_us: 0.0,
            alternatives: Vec::new(),
        });
    }
    out
}

/// The mesh axes along which the devices of a group differ.
fn varying_axes(mesh: &Mesh, groups: &[Vec<usize>]) -> Vec<String> {
    let position = |d: usize| (0..mesh.num_devices()).find(|&p| mesh.device_at(p) == d);
    let Some(group) = groups.first() else {
        return Vec::new();
    };
    let coords: Vec<Vec<usize>> = group
        .iter()
        .filter_map(|&d| position(d).map(|p| mesh.coords(p)))
        .collect();
    mesh.axes
        .iter()
        .enumerate()
        .filter(|(i, _)| coords.iter().any(|c| c[*i] != coords[0][*i]))
        .map(|(_, a)| a.name.clone())
        .collect()
}

/// The body copied into `b` on the operands' pieces `ins`; its returned pieces.
pub fn inline_body(
    b: &mut FunctionBuilder,
    f: &Function,
    op: &Op,
    ins: &[ValueId],
) -> Result<Vec<ValueId>, IrError> {
    let body = f.block(op.regions[0]);
    let mut map: HashMap<ValueId, ValueId> =
        body.args.iter().copied().zip(ins.iter().copied()).collect();
    for &id in &body.ops {
        b.copy_op(f, f.op(id), &mut map)?;
    }
    Ok(body.results.iter().map(|r| map[r]).collect())
}
