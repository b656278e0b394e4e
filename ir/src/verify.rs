//! The verifier: shapes, types, calls and shardings of a whole module.
//!
//! Every error names the value (`%3 in @main`), the dimension or axis at fault, the rule
//! broken and the fix. Run it on every module a user hands in (the parser does).

use crate::TensorType;
use crate::error::IrError;
use crate::infer;
use crate::mesh::Mesh;
use crate::module::{BlockId, Function, Module};
use crate::op::OpKind;
use crate::sharding::{AxisRef, Sharding, Uneven};
use std::collections::HashSet;

/// Checks a module; the first error found is returned. Every sharding must divide the
/// dimensions it splits ([`verify_module_with`] with [`Uneven::Pad`] accepts uneven ones).
pub fn verify_module(m: &Module) -> Result<(), IrError> {
    verify_module_with(m, Uneven::Refuse)
}

/// Checks a module, with `uneven` saying whether a sharding may split a dimension its axes
/// do not divide (padded; the compiler asks for it with `Options::pad_uneven`). Everything
/// else is checked the same either way.
pub fn verify_module_with(m: &Module, uneven: Uneven) -> Result<(), IrError> {
    let mut names = HashSet::new();
    for mesh in &m.meshes {
        if !names.insert(mesh.name.as_str()) {
            return Err(IrError::Duplicate {
                what: "mesh",
                name: mesh.name.clone(),
            });
        }
        mesh.validate()?;
    }
    check_num_partitions(m)?;
    let mut names = HashSet::new();
    for f in &m.functions {
        if !names.insert(f.name.as_str()) {
            return Err(IrError::Duplicate {
                what: "function",
                name: f.name.clone(),
            });
        }
    }
    for f in &m.functions {
        verify_function_with(m, f, uneven)?;
    }
    Ok(())
}

/// `mhlo.num_partitions`, where a module states it, is the device count of its mesh
/// (the largest, where it has several): JAX writes the number of devices it lowered for,
/// and a program lowered for 8 devices is not silently run on 4.
fn check_num_partitions(m: &Module) -> Result<(), IrError> {
    let Some((_, value)) = m.attrs.iter().find(|(k, _)| k == "mhlo.num_partitions") else {
        return Ok(());
    };
    let Some(devices) = m.meshes.iter().map(|mesh| mesh.num_devices()).max() else {
        return Ok(());
    };
    let n: Option<usize> = value.split(':').next().and_then(|s| s.trim().parse().ok());
    match n {
        Some(n) if n == devices => Ok(()),
        _ => Err(IrError::Attribute {
            at: match &m.name {
                Some(n) => format!("module @{n}"),
                None => "the module".to_string(),
            },
            what: format!(
                "`mhlo.num_partitions = {value}` says the program was lowered for another number of devices than its mesh has ({devices})"
            ),
            fix: format!(
                "lower the program for a mesh of {devices} devices, or give the mesh as many devices as the program was lowered for (or remove the attribute)"
            ),
        }),
    }
}

/// GSPMD's `mhlo.sharding` (JAX with Shardy off, older exports) is not read: a sharding
/// in it other than `{replicated}` is refused, never ignored.
fn refuse_gspmd(attrs: &[(String, String)], at: impl FnOnce() -> String) -> Result<(), IrError> {
    for (k, v) in attrs {
        if k == "mhlo.sharding" && v.trim() != "\"{replicated}\"" {
            return Err(IrError::Attribute {
                at: at(),
                what: format!("the GSPMD sharding `mhlo.sharding = {v}` is not read (shardc reads Shardy's `sdy.sharding`)"),
                fix: "export with Shardy, JAX's default since 0.7 (`jax.config.update('jax_use_shardy_partitioner', True)`), or write the sharding as `sdy.sharding = #sdy.sharding<@mesh, [...]>`".into(),
            });
        }
    }
    Ok(())
}

/// Checks one function of a module (calls and mesh names are resolved in `m`).
pub fn verify_function(m: &Module, f: &Function) -> Result<(), IrError> {
    verify_function_with(m, f, Uneven::Refuse)
}

/// [`verify_function`], with `uneven` as in [`verify_module_with`].
pub fn verify_function_with(m: &Module, f: &Function, uneven: Uneven) -> Result<(), IrError> {
    let check_sharding = |m: &Module, s: &Sharding, ty: &TensorType, at: &str| {
        check_sharding_with(m, s, ty, at, uneven)
    };
    let names = f.value_names();
    let at = |v: crate::ValueId| format!("{} in @{}", names[v.index()], f.name);
    if f.arg_attrs.len() != f.args().len() || f.result_attrs.len() != f.results().len() {
        return Err(IrError::InvalidFunction {
            at: format!("@{}", f.name),
            rule: "argument/result attributes do not match the signature".into(),
        });
    }
    for (i, (&v, a)) in f.args().iter().zip(&f.arg_attrs).enumerate() {
        refuse_gspmd(&a.attrs, || format!("argument {i} of @{}", f.name))?;
        if let Some(s) = &a.sharding {
            check_sharding(
                m,
                s,
                f.ty(v),
                &format!("argument {i} ({}) of @{}", names[v.index()], f.name),
            )?;
        }
    }
    for (i, (&v, a)) in f.results().iter().zip(&f.result_attrs).enumerate() {
        refuse_gspmd(&a.attrs, || format!("result {i} of @{}", f.name))?;
        if let Some(s) = &a.sharding {
            check_sharding(
                m,
                s,
                f.ty(v),
                &format!("result {i} ({}) of @{}", names[v.index()], f.name),
            )?;
        }
    }
    for op in &f.ops {
        let operand_types: Vec<TensorType> = op.operands.iter().map(|&v| f.ty(v).clone()).collect();
        let result_types: Vec<TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
        let here = op
            .results
            .first()
            .map(|&r| at(r))
            .unwrap_or_else(|| format!("an op in @{}", f.name));
        refuse_gspmd(&op.attrs, || format!("{} defining {here}", op.kind.name()))?;
        let invalid = |rule: String, fix: &str| IrError::InvalidOp {
            at: here.clone(),
            op: op.kind.name(),
            rule,
            fix: fix.to_string(),
        };
        infer::result_types(&op.kind, &operand_types, Some(&result_types))
            .map_err(|v| invalid(v.rule, &v.fix))?;
        // Only a loop's and a branch's regions may read values from outside (they list
        // them as captured operands); a reducer, comparator or shard_map body computes
        // from its arguments alone.
        if !op.regions.is_empty() && !matches!(op.kind, OpKind::While | OpKind::Case) {
            let outside = f.captures(&op.regions);
            if let Some(&v) = outside.first() {
                return Err(invalid(
                    format!(
                        "its region reads {} from outside it; its regions compute from their own arguments only",
                        names[v.index()]
                    ),
                    "compute the value inside the region (a constant), or pass it as an operand",
                ));
            }
        }
        match &op.kind {
            OpKind::Reduce { .. } | OpKind::ReduceWindow(_) => {
                let [body] = op.regions.as_slice() else {
                    return Err(invalid(
                        format!("needs exactly one reducer region, has {}", op.regions.len()),
                        "give one reducer",
                    ));
                };
                check_reducer(f, *body, &operand_types).map_err(|r| invalid(r, "the reducer takes (accumulators..., elements...) as scalars and returns one scalar per input"))?;
            }
            OpKind::SelectAndScatter(_) => {
                let [select, scatter] = op.regions.as_slice() else {
                    return Err(invalid(
                        format!(
                            "needs a select and a scatter region, has {} region(s)",
                            op.regions.len()
                        ),
                        "give `({select}, {scatter})`",
                    ));
                };
                let s = TensorType::scalar(operand_types[0].dtype);
                let sel_args = types_of(f, &f.block(*select).args);
                let sel_out = types_of(f, &f.block(*select).results);
                if sel_args != [s.clone(), s.clone()]
                    || sel_out != [TensorType::scalar(crate::DType::I1)]
                {
                    return Err(invalid(
                        format!(
                            "its select region is ({}) -> ({}), not ({s}, {s}) -> tensor<i1>",
                            show_types(&sel_args),
                            show_types(&sel_out)
                        ),
                        "select with a comparison of two scalars",
                    ));
                }
                check_reducer(f, *scatter, &[s.clone(), s]).map_err(|r| {
                    invalid(r, "the scatter region takes two scalars and returns one")
                })?;
            }
            OpKind::Scatter(_) => {
                let [body] = op.regions.as_slice() else {
                    return Err(invalid(
                        format!(
                            "needs exactly one update computation region, has {}",
                            op.regions.len()
                        ),
                        "give one update computation",
                    ));
                };
                let n = op.results.len();
                let twice: Vec<TensorType> = operand_types[..n]
                    .iter()
                    .chain(&operand_types[..n])
                    .cloned()
                    .collect();
                check_reducer(f, *body, &twice).map_err(|r| invalid(r, "the update computation takes (current values..., updates...) as scalars and returns one scalar per input"))?;
            }
            OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. } => {
                let [body] = op.regions.as_slice() else {
                    return Err(invalid(
                        format!("needs exactly one reducer region, has {}", op.regions.len()),
                        "give one reducer",
                    ));
                };
                let pair = [
                    operand_types[0].clone(),
                    TensorType::scalar(operand_types[0].dtype),
                ];
                check_reducer(f, *body, &pair)
                    .map_err(|r| invalid(r, "the reducer takes two scalars and returns one"))?;
            }
            OpKind::Call { callee } => {
                let Some(g) = m.function(callee) else {
                    return Err(IrError::UnknownFunction {
                        at: here,
                        callee: callee.clone(),
                    });
                };
                if g.arg_types() != operand_types || g.result_types() != result_types {
                    let show = |ts: &[TensorType]| {
                        ts.iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    return Err(IrError::CallMismatch {
                        at: here,
                        callee: callee.clone(),
                        detail: format!(
                            "type ({}) -> ({}), but @{callee} has type ({}) -> ({}); match the callee's signature",
                            show(&operand_types),
                            show(&result_types),
                            show(&g.arg_types()),
                            show(&g.result_types())
                        ),
                    });
                }
            }
            OpKind::Sort { .. } => check_comparator(f, op).map_err(|v| invalid(v.rule, &v.fix))?,
            OpKind::ManualComputation {
                in_shardings,
                out_shardings,
                manual_axes,
            } => {
                for (k, (s, t)) in in_shardings.iter().zip(&operand_types).enumerate() {
                    check_sharding(m, s, t, &format!("in_sharding {k} of {here}"))?;
                }
                for (k, (s, t)) in out_shardings.iter().zip(&result_types).enumerate() {
                    check_sharding(m, s, t, &format!("out_sharding {k} of {here}"))?;
                }
                check_manual(m, f, op, in_shardings, out_shardings, manual_axes)
                    .map_err(|v| invalid(v.rule, &v.fix))?;
            }
            OpKind::While | OpKind::Case => {
                check_control_flow(f, op).map_err(|v| invalid(v.rule, &v.fix))?
            }
            OpKind::ShardingConstraint(s) => check_sharding(m, s, &result_types[0], &here)?,
            _ if !op.regions.is_empty() => {
                return Err(invalid(
                    format!("takes no regions, but has {}", op.regions.len()),
                    "remove the region",
                ));
            }
            _ => {}
        }
        if let Some(shardings) = &op.shardings {
            if shardings.len() != op.results.len() {
                return Err(invalid(
                    format!(
                        "has {} result(s) but sdy.sharding lists {}",
                        op.results.len(),
                        shardings.len()
                    ),
                    "give one sharding per result",
                ));
            }
            for (s, &r) in shardings.iter().zip(&op.results) {
                check_sharding(m, s, f.ty(r), &at(r))?;
            }
        }
    }
    Ok(())
}

fn show_types(ts: &[TensorType]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn types_of(f: &Function, vs: &[crate::ValueId]) -> Vec<TensorType> {
    vs.iter().map(|&v| f.ty(v).clone()).collect()
}

/// The regions of a `while` or `case` against the op (nothing for other ops): region
/// arguments and results of the carried or result types, a scalar `i1` condition, and
/// captured operands that are what the regions read from outside.
pub fn check_control_flow(f: &Function, op: &crate::Op) -> Result<(), crate::infer::Violation> {
    let results = types_of(f, &op.results);
    let checked = match op.kind {
        OpKind::While => check_while(f, op, &results),
        OpKind::Case => check_case(f, op, &results),
        _ => Ok(()),
    };
    checked.map_err(|(rule, fix)| crate::infer::Violation {
        rule,
        fix: fix.to_string(),
    })
}

/// `check_manual` of a manual computation (nothing for other ops).
pub fn check_manual_computation(
    m: &Module,
    f: &Function,
    op: &crate::Op,
) -> Result<(), crate::infer::Violation> {
    match &op.kind {
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        } => check_manual(m, f, op, in_shardings, out_shardings, manual_axes),
        _ => Ok(()),
    }
}

/// A manual computation's body takes each operand's piece and returns each result's piece
/// (the local types under the shardings, over the manual axes), and reads nothing from
/// outside; the manual axes are axes of the shardings' mesh.
fn check_manual(
    m: &Module,
    f: &Function,
    op: &crate::Op,
    ins: &[Sharding],
    outs: &[Sharding],
    axes: &[String],
) -> Result<(), crate::infer::Violation> {
    let fail = |rule: String, fix: &str| crate::infer::Violation {
        rule,
        fix: fix.into(),
    };
    let [body] = op.regions.as_slice() else {
        return Err(fail(
            format!("needs one body region, has {}", op.regions.len()),
            "give the manual computation its body",
        ));
    };
    let Some(mesh_name) = ins.first().or(outs.first()).map(|s| s.mesh.clone()) else {
        return Ok(());
    };
    let Some(mesh) = m.mesh(&mesh_name) else {
        return Err(fail(
            format!("its shardings name mesh @{mesh_name}, which the module does not declare"),
            "declare the mesh",
        ));
    };
    if let Some(a) = axes.iter().find(|a| mesh.axis(a).is_none()) {
        return Err(fail(
            format!("manual axis \"{a}\" is not an axis of mesh @{}", mesh.name),
            "name axes of the mesh",
        ));
    }
    let b = f.block(*body);
    let local = |ss: &[Sharding], vs: &[crate::ValueId]| -> Option<Vec<TensorType>> {
        ss.iter()
            .zip(vs)
            .map(|(s, &v)| s.piece_type(mesh, f.ty(v), axes))
            .collect()
    };
    let want_in = local(ins, &op.operands).ok_or_else(|| {
        fail(
            "an in_sharding does not divide its operand over the manual axes".into(),
            "shard operands by axes that divide them",
        )
    })?;
    let want_out = local(outs, &op.results).ok_or_else(|| {
        fail(
            "an out_sharding does not divide its result over the manual axes".into(),
            "shard results by axes that divide them",
        )
    })?;
    let args = types_of(f, &b.args);
    if args != want_in {
        return Err(fail(
            format!(
                "its body takes ({}), but each device's pieces of the operands are ({})",
                show_types(&args),
                show_types(&want_in)
            ),
            "give the body one argument per operand, of the piece's type",
        ));
    }
    let returned = types_of(f, &b.results);
    if returned != want_out {
        return Err(fail(
            format!(
                "its body returns ({}), but each device's pieces of the results are ({})",
                show_types(&returned),
                show_types(&want_out)
            ),
            "return one piece per result, of the piece's type",
        ));
    }
    if let Some(v) = f.captures(&op.regions).first() {
        return Err(fail(
            format!(
                "its body reads {}, defined outside it",
                f.value_names()[v.index()]
            ),
            "pass the value in as an operand of the manual computation",
        ));
    }
    Ok(())
}

/// A sort's comparator: one region taking `(lhs_1, rhs_1, ..., lhs_N, rhs_N)` as scalars
/// of the operands' element types and returning one `tensor<i1>`.
pub fn check_comparator(f: &Function, op: &crate::Op) -> Result<(), crate::infer::Violation> {
    let fail = |rule: String| {
        crate::infer::Violation {
        rule,
        fix: "give the comparator (lhs, rhs) scalar pairs of each operand's element type, returning a tensor<i1>".into(),
    }
    };
    let [body] = op.regions.as_slice() else {
        return Err(fail(format!(
            "needs one comparator region, has {}",
            op.regions.len()
        )));
    };
    let want: Vec<TensorType> = op
        .operands
        .iter()
        .flat_map(|&v| {
            let s = TensorType::scalar(f.ty(v).dtype);
            [s.clone(), s]
        })
        .collect();
    let b = f.block(*body);
    let args = types_of(f, &b.args);
    if args != want {
        return Err(fail(format!(
            "the comparator takes ({}), but the operands need ({})",
            show_types(&args),
            show_types(&want)
        )));
    }
    let out = types_of(f, &b.results);
    if out != [TensorType::scalar(crate::DType::I1)] {
        return Err(fail(format!(
            "the comparator returns ({}), not one tensor<i1>",
            show_types(&out)
        )));
    }
    Ok(())
}

/// The captured operands of a region op are exactly what its regions read from outside.
fn check_captures(f: &Function, op: &crate::Op) -> Result<(), (String, &'static str)> {
    let captured = f.captures(&op.regions);
    if captured != op.captured_operands() {
        return Err((
            format!(
                "its regions read {} value(s) from outside, but it lists {} captured operand(s)",
                captured.len(),
                op.captured_operands().len()
            ),
            "build region ops through the parser or FunctionBuilder::push_region_op, which list what the regions read",
        ));
    }
    Ok(())
}

/// `cond` takes the carried values and returns one `tensor<i1>`; `body` takes them and
/// returns their next values.
fn check_while(
    f: &Function,
    op: &crate::Op,
    carried: &[TensorType],
) -> Result<(), (String, &'static str)> {
    let [cond, body] = op.regions.as_slice() else {
        return Err((
            format!(
                "needs a cond and a body region, has {} region(s)",
                op.regions.len()
            ),
            "give `cond { ... } do { ... }`",
        ));
    };
    for (what, r) in [("cond", cond), ("body", body)] {
        let args = types_of(f, &f.block(*r).args);
        if args != carried {
            return Err((
                format!(
                    "its {what} takes ({}), but the loop carries ({})",
                    show_types(&args),
                    show_types(carried)
                ),
                "give both regions one argument per carried value, of its type",
            ));
        }
    }
    let cond_out = types_of(f, &f.block(*cond).results);
    if cond_out != [TensorType::scalar(crate::DType::I1)] {
        return Err((
            format!(
                "its cond returns ({}), but must return one tensor<i1>",
                show_types(&cond_out)
            ),
            "return the loop condition as a scalar i1",
        ));
    }
    let body_out = types_of(f, &f.block(*body).results);
    if body_out != carried {
        return Err((
            format!(
                "its body returns ({}), but the loop carries ({})",
                show_types(&body_out),
                show_types(carried)
            ),
            "return the next value of every carried value, of its type",
        ));
    }
    check_captures(f, op)
}

/// Every branch takes no arguments and returns the case's results.
fn check_case(
    f: &Function,
    op: &crate::Op,
    results: &[TensorType],
) -> Result<(), (String, &'static str)> {
    for (i, &r) in op.regions.iter().enumerate() {
        let b = f.block(r);
        if !b.args.is_empty() {
            return Err((
                format!(
                    "branch {i} takes {} argument(s); branches take none",
                    b.args.len()
                ),
                "read values of the enclosing function directly",
            ));
        }
        let out = types_of(f, &b.results);
        if out != results {
            return Err((
                format!(
                    "branch {i} returns ({}), but the case's results are ({})",
                    show_types(&out),
                    show_types(results)
                ),
                "return the same types from every branch",
            ));
        }
    }
    if op.regions.is_empty() {
        return Err(("has no branches".into(), "give at least one branch"));
    }
    check_captures(f, op)
}

fn check_reducer(f: &Function, body: BlockId, operands: &[TensorType]) -> Result<(), String> {
    let b = f.block(body);
    let n = operands.len() / 2;
    let want: Vec<TensorType> = operands[..n]
        .iter()
        .chain(&operands[..n])
        .map(|t| TensorType::scalar(t.dtype))
        .collect();
    let args: Vec<TensorType> = b.args.iter().map(|&v| f.ty(v).clone()).collect();
    let show = |ts: &[TensorType]| {
        ts.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if args != want {
        return Err(format!(
            "the reducer takes ({}), but the inputs need ({})",
            show(&args),
            show(&want)
        ));
    }
    let results: Vec<TensorType> = b.results.iter().map(|&v| f.ty(v).clone()).collect();
    if results != want[..n] {
        return Err(format!(
            "reducer returns {} value(s) of the wrong types; expected {n} scalar(s)",
            results.len()
        ));
    }
    Ok(())
}

fn axis_list(axes: &[AxisRef]) -> String {
    axes.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks a sharding against the module's meshes and the tensor type it annotates.
/// `at` names the value in messages.
pub fn check_sharding(m: &Module, s: &Sharding, ty: &TensorType, at: &str) -> Result<(), IrError> {
    check_sharding_with(m, s, ty, at, Uneven::Refuse)
}

/// [`check_sharding`], with `uneven` as in [`verify_module_with`].
pub fn check_sharding_with(
    m: &Module,
    s: &Sharding,
    ty: &TensorType,
    at: &str,
    uneven: Uneven,
) -> Result<(), IrError> {
    let Some(mesh) = m.mesh(&s.mesh) else {
        let known: Vec<String> = m.meshes.iter().map(|x| format!("@{}", x.name)).collect();
        return Err(IrError::UnknownMesh {
            at: at.to_string(),
            mesh: s.mesh.clone(),
            known: if known.is_empty() {
                "(none declared)".into()
            } else {
                known.join(", ")
            },
        });
    };
    check_sharding_on_mesh_with(mesh, s, ty, at, uneven)
}

/// Checks a sharding on a given mesh.
pub fn check_sharding_on_mesh(
    mesh: &Mesh,
    s: &Sharding,
    ty: &TensorType,
    at: &str,
) -> Result<(), IrError> {
    check_sharding_on_mesh_with(mesh, s, ty, at, Uneven::Refuse)
}

/// [`check_sharding_on_mesh`], with `uneven` as in [`verify_module_with`].
pub fn check_sharding_on_mesh_with(
    mesh: &Mesh,
    s: &Sharding,
    ty: &TensorType,
    at: &str,
    uneven: Uneven,
) -> Result<(), IrError> {
    if s.rank() != ty.rank() {
        return Err(IrError::ShardingRank {
            at: at.to_string(),
            sharding_rank: s.rank(),
            rank: ty.rank(),
            scalar_hint: if ty.rank() == 0 {
                " (a scalar's sharding is `[]`)"
            } else if s.rank() == 0 && mesh.axes.is_empty() {
                " (`[]` on a mesh without axes is Shardy's maximal sharding, a value kept on one device, which shardc does not read: write `{}` for each dimension to replicate it)"
            } else {
                ""
            },
        });
    }
    let mut seen: Vec<&AxisRef> = Vec::new();
    for a in s.mentioned_axes() {
        let Some(axis) = mesh.axis(&a.name) else {
            return Err(IrError::UnknownAxis {
                at: at.to_string(),
                axis: a.name.clone(),
                mesh: mesh.name.clone(),
                known: if mesh.axes.is_empty() {
                    "it has none (a maximal mesh: its values are on one device), so shard over a mesh with axes or write `{}` for every dimension".to_string()
                } else {
                    format!(
                        "use one of its axes: {}",
                        mesh.axes
                            .iter()
                            .map(|x| format!("\"{}\"", x.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            });
        };
        if let Some(sub) = a.sub
            && (sub.pre_size == 0 || sub.size <= 1 || axis.size % (sub.pre_size * sub.size) != 0)
        {
            return Err(IrError::InvalidSubAxis {
                at: at.to_string(),
                axis: a.to_string(),
                name: a.name.clone(),
                size: axis.size,
            });
        }
        let overlaps = seen
            .iter()
            .any(|b| b.name == a.name && sub_axes_overlap(a, b, axis.size));
        if overlaps {
            return Err(IrError::AxisUsedTwice {
                at: at.to_string(),
                axis: a.to_string(),
            });
        }
        seen.push(a);
    }
    if uneven.pads() {
        return Ok(());
    }
    check_divisible(mesh, s, ty, at)
}

/// Checks that every dimension a sharding splits is a multiple of its shard count: the
/// one check [`Uneven::Pad`] lifts.
pub fn check_divisible(
    mesh: &Mesh,
    s: &Sharding,
    ty: &TensorType,
    at: &str,
) -> Result<(), IrError> {
    for (d, (dim, &size)) in s.dims.iter().zip(&ty.shape).enumerate() {
        let shards = dim.num_shards(mesh);
        if size % shards != 0 {
            return Err(IrError::NotDivisible {
                at: at.to_string(),
                dim: d,
                size,
                axes: axis_list(&dim.axes),
                shards,
            });
        }
    }
    Ok(())
}

/// Two references to one axis overlap unless both are disjoint sub-axes.
fn sub_axes_overlap(a: &AxisRef, b: &AxisRef, axis_size: usize) -> bool {
    let range = |x: &AxisRef| match x.sub {
        Some(s) => {
            // Sub-axis (p)s covers the "digits" from axis_size/(p*s) to axis_size/p, as a
            // range of strides; express it as [p, p*s) in the major-to-minor product.
            (s.pre_size, s.pre_size * s.size)
        }
        None => (1, axis_size),
    };
    let (a0, a1) = range(a);
    let (b0, b1) = range(b);
    a0 < b1 && b0 < a1
}
