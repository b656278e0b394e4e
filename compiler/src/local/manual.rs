//! `sdy.manual_computation` (JAX's `shard_map`): a region already written per device.
//! Its operands and results have the layouts its shardings give (propagation takes them
//! as they are and reshards around them, never into them), and the partitioner copies
//! its body into the per-device program on the operands' pieces: the body's collectives
//! are the user's own. Partition around it, not inside it (`DESIGN.md`).

use crate::passes::explain::Collective;
use crate::sharding::layout::Layout;
use shardc_ir::{Function, FunctionBuilder, IrError, Mesh, Op, OpKind, ReplicaGroups, ValueId};
use shardc_runtime::backend::collective::Exchange;
use std::collections::HashMap;

/// Whether a region of `op` (at any depth) holds a `shard_map` body
/// (`sdy.manual_computation`), which runs only as the partitioner lays it out per device.
pub fn holds_manual(f: &Function, op: &Op) -> bool {
    op.regions.iter().any(|&r| {
        f.block(r).ops.iter().any(|&id| {
            let o = f.op(id);
            matches!(o.kind, OpKind::ManualComputation { .. }) || holds_manual(f, o)
        })
    })
}

/// A branch (`lax.cond`, `lax.switch`) whose regions hold `shard_map` bodies, run on
/// every device with its operands whole (the rule of `case`): each region compiled as a
/// program of its own, the values it reads and its results replicated, so that its
/// `shard_map`s run per device; then the branch over those per-device regions, which
/// the runtime runs as a switch every device takes together (`engine::Control::Switch`).
/// `ins` are the operands' pieces (whole values); its results, whole.
pub fn emit_case(
    b: &mut FunctionBuilder,
    f: &Function,
    op: &Op,
    ins: &[ValueId],
    mesh: &Mesh,
    cost: &crate::sharding::cost::CostModel,
) -> Result<Vec<ValueId>, crate::error::CompileError> {
    use crate::passes::propagate::Options;
    let opts = Options {
        cost: cost.clone(),
        ..crate::local::loops::nested(&Options::default())
    };
    let captured = op.captured_operands();
    let mut regions = Vec::with_capacity(op.regions.len());
    for &r in &op.regions {
        let mut g = shardc_ir::unroll::region_function(f, r, "branch", captured)?;
        for (k, ty) in g.arg_types().iter().enumerate() {
            g.arg_attrs[k].sharding = Layout::replicated(ty.rank()).to_sharding(&mesh.name);
        }
        let results: Vec<usize> = g.results().iter().map(|&v| g.ty(v).rank()).collect();
        for (k, rank) in results.into_iter().enumerate() {
            g.result_attrs[k].sharding = Layout::replicated(rank).to_sharding(&mesh.name);
        }
        let module = shardc_ir::Module {
            meshes: vec![mesh.clone()],
            functions: vec![g],
            ..Default::default()
        };
        let compiled = crate::pipeline::compile(&module, &opts)?;
        let Some(pg) = compiled.partitioned.module.entry() else {
            return Err(crate::error::CompileError::internal(
                "manual",
                "a branch compiled to no function",
            ));
        };
        b.begin_block(&[]);
        let mut map: HashMap<ValueId, ValueId> = pg
            .args()
            .iter()
            .copied()
            .zip(ins[1..].iter().copied())
            .collect();
        let copied = pg
            .body_ops()
            .try_for_each(|(_, o)| b.copy_op(pg, o, &mut map).map(|_| ()));
        if let Err(e) = copied {
            b.end_block(&[]);
            return Err(e.into());
        }
        let results: Vec<ValueId> = pg.results().iter().map(|v| map[v]).collect();
        regions.push(b.end_block(&results));
    }
    let types: Vec<shardc_ir::TensorType> = op.results.iter().map(|&r| f.ty(r).clone()).collect();
    let id = b.push_region_op(OpKind::Case, &ins[..1], Some(&types), regions)?;
    Ok(b.func().op(id).results.clone())
}

/// The collectives written in the `shard_map` bodies a branch's regions hold (at any
/// depth; [`emit_case`]): each branch's run when it is taken, so they are listed once,
/// marked as running a number of times not known when compiling.
pub fn branch_collectives(
    m: &shardc_ir::Module,
    f: &Function,
    op: &Op,
    mesh: &Mesh,
    names: &[String],
) -> Vec<Collective> {
    if op.kind != OpKind::Case || !holds_manual(f, op) {
        return Vec::new();
    }
    let at = op
        .results
        .first()
        .map_or_else(String::new, |r| names[r.index()].clone());
    let mut out = Vec::new();
    for (k, &r) in op.regions.iter().enumerate() {
        let mut blocks = vec![r];
        while let Some(b) = blocks.pop() {
            for &id in &f.block(b).ops {
                let o = f.op(id);
                if matches!(o.kind, OpKind::ManualComputation { .. }) {
                    for mut c in written_collectives(m, f, o, mesh, names) {
                        c.value = format!("{} in branch {k} of {at}", c.value);
                        c.trips_unknown = true;
                        out.push(c);
                    }
                } else {
                    blocks.extend(o.regions.iter().copied());
                }
            }
        }
    }
    out
}

/// The layouts a manual computation's operands must arrive in and its results leave in;
/// `None` for every other op.
pub fn fixed_layouts(op: &Op) -> Option<(Vec<Layout>, Vec<Layout>)> {
    match &op.kind {
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        } => {
            let manual = |s: &shardc_ir::Sharding| Layout::of_sharding(&s.over_axes(manual_axes));
            Some((
                in_shardings.iter().map(manual).collect(),
                out_shardings.iter().map(manual).collect(),
            ))
        }
        _ => None,
    }
}

/// Why a manual computation cannot be partitioned on `mesh`, if it cannot. A body
/// manual over some axes only (`shard_map(..., axis_names=...)`) is computed whole over
/// the others on each device (its operands gathered over them), which needs every
/// dimension split by its manual axes first.
pub fn unsupported(op: &Op, mesh: &Mesh) -> Option<String> {
    let OpKind::ManualComputation {
        in_shardings,
        out_shardings,
        manual_axes,
    } = &op.kind
    else {
        return None;
    };
    let manual = |a: &shardc_ir::AxisRef| manual_axes.contains(&a.name);
    for s in in_shardings.iter().chain(out_shardings) {
        for (d, dim) in s.dims.iter().enumerate() {
            let first_auto = dim.axes.iter().position(|a| !manual(a));
            if let Some(i) = first_auto.filter(|&i| dim.axes[i..].iter().any(manual)) {
                return Some(format!(
                    "sharding {s} of a shard_map over {manual_axes:?} splits dimension {d} by automatic axis {} of mesh @{} before a manual one; put the manual axes first",
                    dim.axes[i], mesh.name
                ));
            }
        }
    }
    None
}

/// The collectives a manual computation's body holds, as they run (calls inlined, loops
/// that communicate unrolled: once per iteration), with the bytes each device sends (ring
/// volumes, as the runtime counts them); none for other ops. Those in branches (and,
/// when a branch communicates, in every loop) run a number of times not known when
/// compiling: each is listed once, marked `trips_unknown`.
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
    let body = shardc_ir::unroll::region_function(f, op.regions[0], "body", &[])
        .and_then(|g| shardc_ir::inline::inline_calls(m, &g))
        .and_then(|g| {
            let branches = g
                .ops
                .iter()
                .any(|o| o.kind == OpKind::Case && shardc_ir::unroll::communicates(&g, &o.regions));
            let up_to = if branches {
                0
            } else {
                shardc_ir::unroll::MAX_UNROLL
            };
            shardc_ir::unroll::unroll_communicating_loops(&g, up_to)
        });
    let Ok(body) = body else {
        return Vec::new();
    };
    let body_names = body.value_names();
    let at = op
        .results
        .first()
        .map_or_else(String::new, |r| names[r.index()].clone());
    let devices = mesh.devices();
    let mut out = Vec::new();
    // Those in loops still loops (trips not known, or too many to unroll) run once per
    // iteration, those in branches when taken.
    let mut looped: std::collections::HashSet<shardc_ir::OpId> = Default::default();
    let mut inside: Vec<shardc_ir::BlockId> = body
        .body_ops()
        .filter(|(_, o)| matches!(o.kind, OpKind::While | OpKind::Case))
        .flat_map(|(_, o)| o.regions.clone())
        .collect();
    while let Some(b) = inside.pop() {
        for &id in &body.block(b).ops {
            looped.insert(id);
            inside.extend(body.op(id).regions.iter().copied());
        }
    }
    let ops = body
        .body_ops()
        .map(|(id, _)| id)
        .chain(looped.iter().copied())
        .map(|id| (id, body.op(id)));
    for (id, o) in ops.filter(|(_, o)| o.kind.is_collective()) {
        let Ok(ex) = Exchange::new(&body, o, &body_names) else {
            continue;
        };
        let sent: Vec<u64> = devices.iter().map(|&d| ex.ring_bytes(d.0)).collect();
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
            route: None,
            compressed: None,
            ring: None,
            trips_unknown: looped.contains(&id),
        });
    }
    out
}

/// The mesh axes along which the devices of a group differ.
pub(crate) fn varying_axes(mesh: &Mesh, groups: &[Vec<usize>]) -> Vec<String> {
    let Some(group) = groups.first() else {
        return Vec::new();
    };
    let coords: Vec<Vec<usize>> = group
        .iter()
        .filter_map(|&d| {
            mesh.position_of(shardc_ir::DeviceId(d))
                .map(|p| mesh.coords(p))
        })
        .collect();
    mesh.axes
        .iter()
        .enumerate()
        .filter(|(i, _)| coords.iter().any(|c| c[*i] != coords[0][*i]))
        .map(|(_, a)| a.name.clone())
        .collect()
}

/// The body copied into `b` on the operands' pieces `ins`; its returned pieces. A
/// `partition_id` becomes the device's index among all of `mesh`'s devices in id order
/// (its id), an op every backend runs.
pub fn inline_body(
    b: &mut FunctionBuilder,
    f: &Function,
    op: &Op,
    ins: &[ValueId],
    mesh: &Mesh,
) -> Result<Vec<ValueId>, IrError> {
    let devices = mesh.num_devices();
    let body = f.block(op.regions[0]);
    let mut map: HashMap<ValueId, ValueId> =
        body.args.iter().copied().zip(ins.iter().copied()).collect();
    for &id in &body.ops {
        let o = f.op(id);
        if let OpKind::PartitionId = o.kind {
            // The device's id: its index in the group of every device, in id order.
            let groups = ReplicaGroups(vec![(0..devices).collect()]);
            let r = b.push1_typed(
                OpKind::AxisIndex { groups },
                &[],
                f.ty(o.results[0]).clone(),
            )?;
            map.insert(o.results[0], r);
            continue;
        }
        b.copy_op(f, o, &mut map)?;
    }
    Ok(body.results.iter().map(|r| map[r]).collect())
}
