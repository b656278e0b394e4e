//! A simulated mesh: runs a partitioned (per-device) program on every device of a mesh,
//! each device with the reference interpreter, in lockstep. Collectives are exact: their
//! semantics are StableHLO's over the op's replica groups (device ids).
//!
//! This makes every partitioning decision a numerics test: shard the inputs with
//! [`crate::shard`], [`run`] the per-device program, reassemble the results and compare
//! with [`crate::reference::run`] on the global program.
//!
//! [`run_on`] runs the compute segments with any [`Compute`] engine (the MLIR JIT of
//! `shardc-compiler`, say): each segment is prepared once and its kernel run on every
//! device; [`run`] is `run_on(&Interpreted, ..)`.

use crate::engine::{Compute, Control, EngineError, Interpreted, Step, steps};
use crate::reference::{self, InterpError};
use shardc_ir::{
    DeviceId, Elements, Function, FunctionBuilder, Literal, Module, Op, OpKind, TensorType, ValueId,
};
use std::collections::HashMap;
use thiserror::Error;

/// Why the simulated mesh cannot run a per-device program.
#[derive(Debug, Error)]
pub enum SimError {
    /// A device's engine failed.
    #[error("device {device}: {source}")]
    Device {
        /// The device.
        device: usize,
        /// The engine's error.
        #[source]
        source: EngineError,
    },
    /// The engine could not prepare a segment (the error names the op).
    #[error("preparing the segment of @{func} that starts at op {first}: {source}")]
    Prepare {
        /// The function's name.
        func: String,
        /// The index of the segment's first op in the function.
        first: usize,
        /// The engine's error.
        #[source]
        source: EngineError,
    },
    /// The program has no function of that name.
    #[error("the per-device program has no function @{0}")]
    UnknownFunction(String),
    /// A collective that cannot run (groups, types).
    #[error("{op} defining {at}: {problem}")]
    Collective {
        /// The collective's name.
        op: String,
        /// The value it defines.
        at: String,
        /// What is wrong.
        problem: String,
    },
    /// A loop's condition or a branch's index whose regions communicate came out
    /// differently on different devices (it must read values that are the same on every
    /// device).
    #[error(
        "the condition {at} of a loop or branch whose regions communicate differs between devices ({on:?}, by device; a loop's test as 1 or 0): every device must go the same way, since its collectives need every device of their groups; compute it from values the same on every device (a psum, a replicated input), not from axis_index or a device's own piece"
    )]
    Diverged {
        /// The condition's value.
        at: String,
        /// What each device computed.
        on: Vec<i64>,
    },
    /// Arguments given for another number of devices than the mesh has.
    #[error("expected arguments for {want} devices, got {got}")]
    DeviceCount {
        /// The mesh's devices.
        want: usize,
        /// The devices arguments were given for.
        got: usize,
    },
}

/// Per-device values of one function run.
type Env = Vec<Vec<Option<Literal>>>;

/// Runs `func` of a per-device program on devices `devices` (the ids replica groups name,
/// in mesh position order: [`Mesh::devices`](shardc_ir::Mesh::devices)), the one at
/// position `i` getting `args[i]`; returns each position's results. Every op runs on the
/// reference interpreter.
pub fn run(
    module: &Module,
    func: &str,
    devices: &[DeviceId],
    args: &[Vec<Literal>],
) -> Result<Vec<Vec<Literal>>, SimError> {
    run_on(&Interpreted, module, func, devices, args)
}

/// [`run`] with the compute segments run by `engine` (prepared once each, then run on
/// every device in turn); per-device ops are the simulator's, as in [`run`].
pub fn run_on(
    engine: &dyn Compute,
    module: &Module,
    func: &str,
    devices: &[DeviceId],
    args: &[Vec<Literal>],
) -> Result<Vec<Vec<Literal>>, SimError> {
    // Below, positions index `devices` and replica groups name the ids as plain numbers.
    let devices: Vec<usize> = devices.iter().map(|d| d.0).collect();
    let devices = &devices[..];
    let f = module
        .function(func)
        .ok_or_else(|| SimError::UnknownFunction(func.to_string()))?;
    if args.len() != devices.len() {
        return Err(SimError::DeviceCount {
            want: devices.len(),
            got: args.len(),
        });
    }
    let n = devices.len();
    let mut env: Env = vec![vec![None; f.values.len()]; n];
    for (d, a) in args.iter().enumerate() {
        if a.len() != f.args().len() {
            return Err(SimError::Device {
                device: devices[d],
                source: Box::new(InterpError::ArgumentCount {
                    func: f.name.clone(),
                    expected: f.args().len(),
                    types: f
                        .arg_types()
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    given: a.len(),
                }),
            });
        }
        for (&v, lit) in f.args().iter().zip(a) {
            env[d][v.index()] = Some(lit.clone());
        }
    }
    let position: HashMap<usize, usize> =
        devices.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    let steps = steps(f);
    let mut kernels: Vec<Option<Box<dyn crate::engine::Kernel>>> = Vec::with_capacity(steps.len());
    for step in &steps {
        kernels.push(match step {
            Step::Compute(segment) => Some(engine.prepare(module, f, segment).map_err(
                |source| SimError::Prepare {
                    func: f.name.clone(),
                    first: segment.ops.first().map_or(0, |o| o.index()),
                    source,
                },
            )?),
            _ => None,
        });
    }
    let mut at = 0;
    while let Some(step) = steps.get(at) {
        at += 1;
        match step {
            Step::Compute(segment) => {
                let Some(kernel) = &kernels[at - 1] else {
                    continue;
                };
                for (d, device_env) in env.iter_mut().enumerate() {
                    let inputs: Vec<Literal> = segment
                        .inputs
                        .iter()
                        .map(|&v| take(device_env, v))
                        .collect();
                    let outputs = kernel.run(&inputs).map_err(|source| SimError::Device {
                        device: devices[d],
                        source,
                    })?;
                    for (&v, lit) in segment.outputs.iter().zip(outputs) {
                        device_env[v.index()] = Some(lit);
                    }
                }
            }
            Step::PerDevice(id) => {
                let op = f.op(*id);
                let inputs: Vec<Vec<Literal>> = (0..n)
                    .map(|d| op.operands.iter().map(|v| take(&env[d], *v)).collect())
                    .collect();
                let outputs = collective(module, f, op, devices, &position, inputs)?;
                for (d, lit) in outputs.into_iter().enumerate() {
                    env[d][op.results[0].index()] = Some(lit);
                }
            }
            Step::Control(Control::Bind { from, to }) => {
                for device_env in env.iter_mut() {
                    let values: Vec<Literal> = from.iter().map(|&v| take(device_env, v)).collect();
                    for (&v, lit) in to.iter().zip(values) {
                        device_env[v.index()] = Some(lit);
                    }
                }
            }
            Step::Control(Control::Branch { cond, exit }) => {
                let go: Vec<bool> = env
                    .iter()
                    .map(|e| take(e, *cond).elements.get(0).as_bool())
                    .collect();
                if go.iter().any(|&g| g != go[0]) {
                    return Err(SimError::Diverged {
                        at: f.value_names()[cond.index()].clone(),
                        on: go.iter().map(|&g| i64::from(g)).collect(),
                    });
                }
                if !go[0] {
                    at = *exit;
                }
            }
            Step::Control(Control::Jump(to)) => at = *to,
            Step::Control(Control::Switch { index, targets }) => {
                let go: Vec<i64> = env
                    .iter()
                    .map(|e| take(e, *index).elements.get(0).as_i64())
                    .collect();
                if go.iter().any(|&g| g != go[0]) {
                    return Err(SimError::Diverged {
                        at: f.value_names()[index.index()].clone(),
                        on: go,
                    });
                }
                at = crate::engine::branch_target(targets, go[0]);
            }
        }
    }
    Ok((0..n)
        .map(|d| f.results().iter().map(|&v| take(&env[d], v)).collect())
        .collect())
}

fn take(env: &[Option<Literal>], v: ValueId) -> Literal {
    env[v.index()]
        .clone()
        .expect("SSA: every operand is defined before use in a verified program")
}

/// Flat indices of block `b` of `parts` equal blocks of dimension `dim`, row-major.
fn block_indices(shape: &[usize], dim: usize, b: usize, parts: usize) -> Vec<usize> {
    let strides = shardc_ir::dtype::row_major_strides(shape);
    let len = shape[dim] / parts;
    let mut out = vec![0usize];
    for (d, &n) in shape.iter().enumerate() {
        let (off, cnt) = if d == dim { (b * len, len) } else { (0, n) };
        let mut next = Vec::with_capacity(out.len() * cnt);
        for base in &out {
            for i in 0..cnt {
                next.push(base + (off + i) * strides[d]);
            }
        }
        out = next;
    }
    out
}

fn block(x: &Literal, dim: usize, b: usize, parts: usize) -> Literal {
    let x = x.to_dense();
    let mut shape = x.ty.shape.clone();
    let elements = x.elements.gather(&block_indices(&shape, dim, b, parts));
    shape[dim] /= parts;
    Literal {
        ty: TensorType::new(x.ty.dtype, shape),
        elements,
    }
}

fn concat(parts: &[Literal], dim: usize) -> Literal {
    let n = parts.len();
    let mut shape = parts[0].ty.shape.clone();
    shape[dim] *= n;
    // Gather from the pieces laid end to end: element i of the result comes from piece
    // (i's index along dim) / piece size.
    let all = Literal {
        ty: TensorType::new(parts[0].ty.dtype, vec![n * parts[0].ty.num_elements()]),
        elements: concat_elements(parts),
    };
    let piece = parts[0].ty.shape[dim];
    let strides = shardc_ir::dtype::row_major_strides(&shape);
    let piece_strides = shardc_ir::dtype::row_major_strides(&parts[0].ty.shape);
    let total: usize = shape.iter().product();
    let mut idx = Vec::with_capacity(total);
    for flat in 0..total {
        let mut rem = flat;
        let mut src = 0;
        let mut which = 0;
        for d in 0..shape.len() {
            let mut c = rem / strides[d];
            rem %= strides[d];
            if d == dim {
                which = c / piece;
                c %= piece;
            }
            src += c * piece_strides[d];
        }
        idx.push(which * parts[0].ty.num_elements() + src);
    }
    Literal {
        ty: TensorType::new(parts[0].ty.dtype, shape),
        elements: all.elements.gather(&idx),
    }
}

fn concat_elements(parts: &[Literal]) -> Elements {
    let dense: Vec<Literal> = parts.iter().map(|p| p.to_dense()).collect();
    let mut bits = Vec::new();
    for p in &dense {
        bits.extend((0..p.elements.len()).map(|i| p.elements.bits(i)));
    }
    Elements::from_bits(parts[0].ty.dtype, &bits)
}

/// Combines two pieces with the reducer region of an all-reduce or reduce-scatter, by
/// running the region's op elementwise on whole pieces (a one-op reducer).
fn combine(
    module: &Module,
    f: &Function,
    op: &Op,
    a: &Literal,
    b: &Literal,
) -> Result<Literal, SimError> {
    let bad = |problem: String| SimError::Collective {
        op: op.kind.name(),
        at: format!("@{}", f.name),
        problem,
    };
    let region = *op
        .regions
        .first()
        .ok_or_else(|| bad("has no reducer region".into()))?;
    let inner = f.reducer_op(region).map_err(bad)?;
    let OpKind::Binary(bin) = inner.kind else {
        return Err(bad(format!(
            "the reducer's op is {}, not a binary op",
            inner.kind.name()
        )));
    };
    let mut fb = FunctionBuilder::new("combine", &[a.ty.clone(), b.ty.clone()]);
    let r = fb
        .binary(bin, fb.arg(0), fb.arg(1))
        .map_err(|e| bad(e.to_string()))?;
    let m = Module {
        functions: vec![fb.finish(&[r])],
        ..Module::default()
    };
    let _ = module;
    let mut out =
        reference::run(&m, "combine", &[a.clone(), b.clone()]).map_err(|e| bad(e.to_string()))?;
    Ok(out.remove(0))
}

fn collective(
    module: &Module,
    f: &Function,
    op: &Op,
    devices: &[usize],
    position: &HashMap<usize, usize>,
    inputs: Vec<Vec<Literal>>,
) -> Result<Vec<Literal>, SimError> {
    let bad = |problem: String| SimError::Collective {
        op: op.kind.name(),
        at: format!("@{}", f.name),
        problem,
    };
    let result_ty = f.ty(op.results[0]).clone();
    if let OpKind::CollectivePermute { pairs } = &op.kind {
        // Each pair sends the source's piece to the target; untargeted devices get zeros.
        let mut out: Vec<Literal> = (0..devices.len())
            .map(|_| Literal {
                ty: result_ty.clone(),
                elements: Elements::zeros(result_ty.dtype, result_ty.num_elements()),
            })
            .collect();
        for &(s, t) in pairs {
            let find = |d: usize| {
                position
                    .get(&d)
                    .copied()
                    .ok_or_else(|| bad(format!("device {d} of the pairs is not simulated")))
            };
            out[find(t)?] = inputs[find(s)?][0].to_dense();
        }
        return Ok(out);
    }
    if let OpKind::PartitionId = op.kind {
        return Ok(devices
            .iter()
            .map(|&d| Literal::scalar(result_ty.dtype, shardc_ir::Scalar::Int(d as i64)))
            .collect());
    }
    let groups = op
        .kind
        .replica_groups()
        .ok_or_else(|| bad("has no replica groups".into()))?;
    let mut out: Vec<Option<Literal>> = vec![None; devices.len()];
    for group in &groups.0 {
        let members: Vec<usize> = group
            .iter()
            .map(|d| {
                position.get(d).copied().ok_or_else(|| {
                    bad(format!("device {d} of the replica groups is not simulated"))
                })
            })
            .collect::<Result<_, _>>()?;
        let g = members.len();
        // The group's operands (none for axis_index).
        let pieces: Vec<&Literal> = members.iter().filter_map(|&m| inputs[m].first()).collect();
        let results: Vec<Literal> = match &op.kind {
            OpKind::AllGather { dim, .. } => {
                let all = concat(
                    &pieces.iter().map(|p| (*p).clone()).collect::<Vec<_>>(),
                    *dim,
                );
                vec![all; g]
            }
            OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. } => {
                let mut acc = pieces[0].clone();
                for p in &pieces[1..] {
                    acc = combine(module, f, op, &acc, p)?;
                }
                match &op.kind {
                    OpKind::ReduceScatter { dim, .. } => {
                        (0..g).map(|i| block(&acc, *dim, i, g)).collect()
                    }
                    _ => vec![acc; g],
                }
            }
            OpKind::AllToAll {
                split_dim,
                concat_dim,
                ..
            } => (0..g)
                .map(|i| {
                    let received: Vec<Literal> =
                        pieces.iter().map(|p| block(p, *split_dim, i, g)).collect();
                    concat(&received, *concat_dim)
                })
                .collect(),
            OpKind::ShardSlice { dim, .. } => {
                (0..g).map(|i| block(pieces[i], *dim, i, g)).collect()
            }
            OpKind::AxisIndex { .. } => (0..g)
                .map(|i| Literal::scalar(result_ty.dtype, shardc_ir::Scalar::Int(i as i64)))
                .collect(),
            other => return Err(bad(format!("{} is not a per-device op", other.name()))),
        };
        for (&m, r) in members.iter().zip(results) {
            if r.ty != result_ty {
                return Err(bad(format!(
                    "device {} would get {} but the op declares {result_ty}",
                    devices[m], r.ty
                )));
            }
            out[m] = Some(r);
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, o)| o.ok_or_else(|| bad(format!("device {} is in no replica group", devices[i]))))
        .collect()
}
