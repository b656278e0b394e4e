//! Differentiation: reverse-mode autodiff of a whole module, JAX's `value_and_grad` and
//! `grad` as an IR transform.
//!
//! The entry function returns a scalar float loss as its result 0 (other results are
//! auxiliary outputs, JAX's `has_aux`). Its calls are inlined, its body copied (the
//! forward pass), then cotangents flow back in reverse program order from a `1.0` seed on
//! the loss, each op's through its rule in the VJP table (`vjp.rs`); a value read by
//! several ops sums their contributions with `stablehlo.add`. Only *active* values get a
//! cotangent: float values that depend on a differentiated argument and reach the loss
//! (so nothing is emitted for data arguments, integer paths or auxiliary outputs). A
//! differentiated argument nothing flows back to gets a zero splat. Dead ops are removed
//! at the end (`simplify.rs`).
//!
//! Each gradient result carries its argument's sharding (JAX's explicit mode: a gradient
//! is laid out like its primal); the loss and auxiliary outputs keep theirs.

use crate::autodiff::simplify::simplify;
use crate::autodiff::vjp::{Emitter, Primal, VjpError, vjp};
use crate::error::CompileError;
use crate::passes::inline::inline;
use shardc_ir::{
    Function, FunctionBuilder, Literal, Module, Op, OpKind, Scalar, TensorType, Uneven, ValueAttrs,
    ValueId, verify_module_with,
};
use std::collections::HashMap;

/// `(loss, aux..., grad_wrt[0], grad_wrt[1], ...)` of the entry function, on its arguments.
///
/// `wrt` lists the arguments to differentiate with respect to (each a float tensor; an
/// index may repeat). Errors name the op without a VJP, the argument that is out of range
/// or not float, or the loss that is not a scalar float.
pub fn value_and_grad(m: &Module, wrt: &[usize]) -> Result<Module, CompileError> {
    differentiate(m, wrt, true)
}

/// `(grad_wrt[0], grad_wrt[1], ...)` of the entry function's loss (its result 0): like
/// [`value_and_grad`] without the loss and auxiliary outputs (and the ops only they need).
pub fn grad(m: &Module, wrt: &[usize]) -> Result<Module, CompileError> {
    differentiate(m, wrt, false)
}

fn differentiate(m: &Module, wrt: &[usize], with_values: bool) -> Result<Module, CompileError> {
    // Whether shardings divide their dimensions is for `compile` to check, with or
    // without padding (`Options::pad_uneven`); the gradients keep the shardings as given.
    verify_module_with(m, Uneven::Pad)?;
    let mut m = inline(m)?;
    let f = m.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to differentiate".into(),
    })?;
    let loss = check_loss(f)?;
    check_wrt(f, wrt)?;
    // Loops on the gradient's path with trip counts known when compiling (`fori_loop`,
    // `scan`) are unrolled, their bodies then differentiated one iteration after the
    // other, as JAX's scan keeps each iteration's residuals.
    let active = activity(f, wrt, loss);
    let keep: std::collections::HashSet<shardc_ir::OpId> = f
        .body_ops()
        .filter(|(_, o)| !o.operands.iter().any(|v| active[v.index()]))
        .map(|(id, _)| id)
        .collect();
    if f.body_ops()
        .any(|(id, o)| o.kind == OpKind::While && !keep.contains(&id))
    {
        let unrolled =
            shardc_ir::unroll::unroll_loops_but(f, shardc_ir::unroll::MAX_UNROLL, &keep)?;
        if let Some(slot) = m.functions.iter_mut().find(|g| g.name == unrolled.name) {
            *slot = unrolled;
        }
    }
    let f = m.entry().ok_or_else(|| CompileError::Unsupported {
        what: "a module without functions".into(),
        why: "there is nothing to differentiate".into(),
    })?;
    let loss = check_loss(f)?;
    let names = f.value_names();
    let meshes = m.meshes.clone();
    let active = activity(f, wrt, loss);

    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (_, op) in f.body_ops() {
        b.copy_op(f, op, &mut map)?;
    }

    let mut e = Emitter::new(&mut b);
    // Cotangents, keyed by the values of `f`.
    let mut ct: HashMap<ValueId, ValueId> = HashMap::new();
    let seed = e.constant(Literal::scalar(f.ty(loss).dtype, Scalar::Float(1.0)));
    ct.insert(loss, seed);
    // Per remat region: its values as recomputed in the backward pass.
    let mut recomputed: HashMap<u64, HashMap<ValueId, ValueId>> = HashMap::new();
    for (_, op) in f.body_ops().collect::<Vec<_>>().into_iter().rev() {
        let cotangents: Vec<Option<ValueId>> =
            op.results.iter().map(|r| ct.get(r).copied()).collect();
        let needs: Vec<bool> = op.operands.iter().map(|v| active[v.index()]).collect();
        if cotangents.iter().all(Option::is_none) || !needs.iter().any(|&n| n) {
            continue;
        }
        let at = || {
            let r = op
                .results
                .first()
                .map_or("an op", |r| names[r.index()].as_str());
            format!("{r} ({}) in @{}", op.kind.name(), f.name)
        };
        // The op's gradient is named after it: `blocks.0/attn/dot_general`'s ops are in
        // the scope `grad/blocks.0/attn`.
        e.b.set_scope(gradient_scope(op));
        // An op of a remat region reads the region's recomputation, made when the
        // backward pass reaches the region's last op.
        let values = match Remat::of(op) {
            Some(region) => match recomputed.entry(region.id) {
                std::collections::hash_map::Entry::Occupied(o) => &*o.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => &*v.insert(
                    recompute(e.b, f, &region, &map).map_err(|ir| bug(&at(), &ir.to_string()))?,
                ),
            },
            None => &map,
        };
        let p = Primal {
            src: f,
            op,
            operands: op.operands.iter().map(|v| values[v]).collect(),
            results: op.results.iter().map(|v| values[v]).collect(),
            cotangents,
            needs: needs.clone(),
            meshes: &meshes,
        };
        let contributions = vjp(&mut e, &p).map_err(|err| match err {
            VjpError::NoRule { why, fix } => CompileError::NotDifferentiable {
                what: at(),
                why,
                fix,
            },
            VjpError::Build(ir) => bug(&at(), &ir.to_string()),
            VjpError::Misuse(what) => bug(&at(), &what),
        })?;
        if contributions.len() != op.operands.len() {
            return Err(bug(
                &at(),
                &format!(
                    "its rule gave {} cotangent(s) for {} operand(s)",
                    contributions.len(),
                    op.operands.len()
                ),
            ));
        }
        for ((&v, &need), c) in op.operands.iter().zip(&needs).zip(contributions) {
            let Some(c) = c.filter(|_| need) else {
                continue;
            };
            if e.ty(c) != *f.ty(v) {
                return Err(bug(
                    &at(),
                    &format!(
                        "its rule gave {} the cotangent type {} instead of {}",
                        names[v.index()],
                        e.ty(c),
                        f.ty(v)
                    ),
                ));
            }
            let sum = match ct.get(&v) {
                Some(&prev) => e.add(prev, c).map_err(|ir| bug(&at(), &ir.to_string()))?,
                None => c,
            };
            ct.insert(v, sum);
        }
    }

    e.b.set_scope(None);
    let grads: Vec<ValueId> = wrt
        .iter()
        .map(|&i| {
            let a = f.args()[i];
            ct.get(&a)
                .copied()
                .unwrap_or_else(|| e.splat(&f.ty(a).clone(), 0.0))
        })
        .collect();
    let mut results: Vec<ValueId> = Vec::new();
    let mut result_attrs: Vec<ValueAttrs> = Vec::new();
    if with_values {
        results.extend(f.results().iter().map(|r| map[r]));
        result_attrs.extend(f.result_attrs.iter().cloned());
    }
    results.extend(&grads);
    result_attrs.extend(wrt.iter().map(|&i| ValueAttrs {
        sharding: f.arg_attrs[i].sharding.clone(),
        attrs: Vec::new(),
    }));
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = result_attrs;
    let out = simplify(&Module {
        functions: vec![g],
        ..m.clone()
    })?;
    verify_module_with(&out, Uneven::Pad)
        .map_err(|e| bug("the differentiated module", &e.to_string()))?;
    Ok(out)
}

/// A region traced by `shardc::remat` (the attribute [`shardc_ir::REMAT`]): its number and
/// what its gradient keeps from the forward pass.
struct Remat {
    id: u64,
    keep: Keep,
}

enum Keep {
    /// Only the region's inputs.
    Nothing,
    /// Matrix products' results too.
    Dots,
    /// The values named so (`shardc_ir::REMAT_NAME`) too.
    Names(Vec<String>),
}

impl Remat {
    fn of(op: &Op) -> Option<Remat> {
        let (_, v) = op.attrs.iter().find(|(k, _)| k == shardc_ir::REMAT)?;
        let (id, keep) = v.trim_matches('"').split_once(':')?;
        let keep = match keep {
            "nothing" => Keep::Nothing,
            "dots" => Keep::Dots,
            other => Keep::Names(
                other
                    .strip_prefix("names=")?
                    .split(',')
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        };
        Some(Remat {
            id: id.parse().ok()?,
            keep,
        })
    }

    /// Whether the gradient keeps `op`'s results from the forward pass.
    fn keeps(&self, op: &Op) -> bool {
        match &self.keep {
            Keep::Nothing => false,
            Keep::Dots => matches!(op.kind, OpKind::DotGeneral(_)),
            Keep::Names(names) => op.attrs.iter().any(|(k, v)| {
                k == shardc_ir::REMAT_NAME && names.iter().any(|n| v.trim_matches('"') == n)
            }),
        }
    }
}

/// Emits `region`'s recomputation: its inputs and the values it keeps pass through one
/// `optimization_barrier` (so that the copies are not merged back into the forward ops),
/// then every other op of the region is copied on them. Gives the region's values (and
/// its inputs) as recomputed; `forward` maps `f`'s values to the forward pass's.
fn recompute(
    b: &mut FunctionBuilder,
    f: &Function,
    region: &Remat,
    forward: &HashMap<ValueId, ValueId>,
) -> Result<HashMap<ValueId, ValueId>, shardc_ir::IrError> {
    let ops: Vec<&Op> = f
        .body_ops()
        .map(|(_, op)| op)
        .filter(|op| Remat::of(op).is_some_and(|r| r.id == region.id))
        .collect();
    let inside: std::collections::HashSet<ValueId> = ops
        .iter()
        .flat_map(|op| op.results.iter().copied())
        .collect();
    // What the barrier passes: the region's inputs, then the values it keeps.
    let mut through: Vec<ValueId> = Vec::new();
    for op in &ops {
        for v in &op.operands {
            if !inside.contains(v) && !through.contains(v) {
                through.push(*v);
            }
        }
    }
    for op in ops.iter().filter(|op| region.keeps(op)) {
        through.extend(op.results.iter().copied());
    }
    let mut values: HashMap<ValueId, ValueId> = HashMap::new();
    if !through.is_empty() {
        let operands: Vec<ValueId> = through.iter().map(|v| forward[v]).collect();
        let barrier = b.push(OpKind::OptimizationBarrier, &operands, None, Vec::new())?;
        let outs = b.func().op(barrier).results.clone();
        values.extend(through.iter().copied().zip(outs));
    }
    for op in ops {
        if !region.keeps(op) {
            b.copy_op(f, op, &mut values)?;
        }
    }
    Ok(values)
}

/// The scope of the ops differentiating `op`, when `op` was traced in one: `grad/` and
/// that scope (`op`'s path without its last part). A program traced without scopes keeps
/// its gradient unnamed too (its text stays as it was).
fn gradient_scope(op: &shardc_ir::Op) -> Option<String> {
    let path = op.path()?;
    Some(match path.rsplit_once('/') {
        Some((scope, _)) => format!("grad/{scope}"),
        None => "grad".to_string(),
    })
}

/// A rule emitted something ill-typed: a shardc bug, reported with the op.
fn bug(at: &str, what: &str) -> CompileError {
    CompileError::internal("VJP rules", format!("the VJP of {at}: {what}"))
}

/// The loss: result 0, a scalar float.
fn check_loss(f: &Function) -> Result<ValueId, CompileError> {
    let Some(&loss) = f.results().first() else {
        return Err(CompileError::NotDifferentiable {
            what: format!("@{}", f.name),
            why: "it returns nothing, and its result 0 must be the scalar loss".into(),
            fix: "return the loss (a rank-0 float) as result 0".into(),
        });
    };
    let ty = f.ty(loss);
    if ty.rank() != 0 || !ty.dtype.is_float() {
        return Err(CompileError::NotDifferentiable {
            what: format!("@{}", f.name),
            why: format!("its result 0 is the loss and must be a scalar float, but it is {ty}"),
            fix: if ty.dtype.is_float() {
                "reduce it to a scalar first (e.g. its sum or mean), or move it after the loss as an auxiliary output".into()
            } else {
                "convert it to a float type; integer and boolean values have no gradient".into()
            },
        });
    }
    Ok(loss)
}

/// Every index names a float argument.
fn check_wrt(f: &Function, wrt: &[usize]) -> Result<(), CompileError> {
    let n = f.args().len();
    for &i in wrt {
        if i >= n {
            return Err(CompileError::NotDifferentiable {
                what: format!("argument {i} of @{}", f.name),
                why: format!(
                    "wrt index {i} is out of range: @{} has {n} argument(s)",
                    f.name
                ),
                fix: format!("pass indices below {n}"),
            });
        }
        let ty: &TensorType = f.ty(f.args()[i]);
        if !ty.dtype.is_float() {
            return Err(CompileError::NotDifferentiable {
                what: format!("argument {i} of @{}", f.name),
                why: format!("it is {ty}, and only float arguments have gradients"),
                fix: format!("leave {i} out of wrt (or convert the argument to a float type)"),
            });
        }
    }
    Ok(())
}

/// Per value of `f`: whether it gets a cotangent. A value is active if it is float, depends
/// on a differentiated argument, and reaches the loss through float values.
fn activity(f: &Function, wrt: &[usize], loss: ValueId) -> Vec<bool> {
    let float = |v: &ValueId| f.ty(*v).dtype.is_float();
    let mut varied = vec![false; f.values.len()];
    for &i in wrt {
        varied[f.args()[i].index()] = true;
    }
    for (_, op) in f.body_ops() {
        if op.operands.iter().any(|v| varied[v.index()]) {
            for r in op.results.iter().filter(|r| float(r)) {
                varied[r.index()] = true;
            }
        }
    }
    let mut useful = vec![false; f.values.len()];
    useful[loss.index()] = true;
    for (_, op) in f.body_ops().collect::<Vec<_>>().into_iter().rev() {
        if op.results.iter().any(|r| useful[r.index()] && float(r)) {
            for v in &op.operands {
                useful[v.index()] = true;
            }
        }
    }
    (0..f.values.len())
        .map(|i| varied[i] && useful[i] && f.values[i].ty.dtype.is_float())
        .collect()
}
