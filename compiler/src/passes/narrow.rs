//! Narrowing: a slice of a value computed only for that slice computes the value on the
//! slice, as XLA's algebraic simplifier sinks slices into elementwise ops and broadcasts.
//!
//! transformers' Gemma (and Llama, Mistral, ...) builds its causal mask for the longest
//! sequence the model takes — `iota(8192) >= iota(8192)` broadcast to 8192 x 8192 — and
//! then slices the rows and columns of the sequence it runs on (16 x 16). Computed as
//! written, the mask is 64 M elements per device per step: on 8 devices sharing 2 cores,
//! 217 ms of each device's 243 ms step. Narrowed, it is 256 elements.
//!
//! Each `slice` is pushed through the ops that make its operand while each is read by
//! nothing else and has a rule here: the result of an op computed on slices of its
//! operands is the slice of its result. The rules, per op:
//!
//! - elementwise ops (`Op::is_elementwise`): every operand sliced alike (a scalar
//!   predicate or bound of `select`/`clamp` as it is);
//! - `broadcast_in_dim`: each operand dimension sliced as the result dimension it becomes,
//!   a dimension of size 1 that the broadcast repeats kept whole;
//! - `transpose`: each operand dimension sliced as the result dimension it becomes;
//! - `iota` counting from 0 along a dimension sliced from 0 with step 1: the smaller iota;
//! - a splat `constant`: the smaller splat.
//!
//! Where no rule applies (or the value has another reader, or a sharding of its own), the
//! slice is taken there. Only ops of the function's body are narrowed, not those inside a
//! loop or branch, so nothing moves into a region that runs more often.
//!
//! ```text
//! %i = iota dim = 0 : 8192xi32                          %i = iota dim = 0 : 16xi32
//! %b = broadcast_in_dim %i, dims = [0] : 8192x8192  =>  %b = broadcast_in_dim %i,
//! %s = slice %b [0:16, 0:16]                                 dims = [0] : 16x16
//! ```

use crate::error::CompileError;
use crate::passes::fold::readers;
use shardc_ir::{
    Function, FunctionBuilder, Literal, Module, Op, OpId, OpKind, TensorType, ValueDef, ValueId,
};
use std::collections::{HashMap, HashSet};

/// Per dimension: the first index, the end (excluded) and the step.
type Window = Vec<(usize, usize, usize)>;

/// The module with every slice of its entry function narrowed into the ops that make its
/// operand for it alone; gives the number of slices narrowed.
pub fn narrow(m: &Module) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    let readers = readers(f);
    let body: HashSet<OpId> = f.body_ops().map(|(id, _)| id).collect();
    // The ops each narrowed slice computes again on its window (left out where they stand).
    let mut sunk: HashSet<OpId> = HashSet::new();
    // Each narrowed slice's window.
    let mut narrowed: HashMap<OpId, Window> = HashMap::new();
    for (s, op) in f.body_ops() {
        let OpKind::Slice {
            start,
            limit,
            strides,
        } = &op.kind
        else {
            continue;
        };
        let before = sunk.len();
        mark(f, op.operands[0], &readers, &body, &mut sunk);
        if sunk.len() > before {
            let window = (0..start.len())
                .map(|d| (start[d], limit[d], strides[d]))
                .collect();
            narrowed.insert(s, window);
        }
    }
    if narrowed.is_empty() {
        return Ok((m.clone(), 0));
    }
    let g = rebuild(f, &narrowed, &sunk)?;
    Ok((m.with_function(g), narrowed.len()))
}

/// The slice that takes `window`.
fn slice_kind(window: &Window) -> OpKind {
    OpKind::Slice {
        start: window.iter().map(|w| w.0).collect(),
        limit: window.iter().map(|w| w.1).collect(),
        strides: window.iter().map(|w| w.2).collect(),
    }
}

/// The op defining `v` when a slice of `v` can be pushed into it: `v`'s one reader is the
/// slice (or an op already pushed), the op is in the body, has no sharding and has a rule.
fn narrowable(f: &Function, v: ValueId, readers: &[usize], body: &HashSet<OpId>) -> Option<OpId> {
    let ValueDef::OpResult { op, .. } = f.values[v.index()].def else {
        return None;
    };
    let o = f.op(op);
    let ruled = match &o.kind {
        k if k.is_elementwise() => true,
        OpKind::BroadcastInDim { .. } | OpKind::Transpose { .. } => true,
        OpKind::Iota { .. } => true,
        OpKind::Constant(lit) => lit.is_splat(),
        _ => false,
    };
    (ruled
        && readers[v.index()] == 1
        && body.contains(&op)
        && o.shardings.is_none()
        && o.results.len() == 1)
        .then_some(op)
}

/// Adds to `sunk` the ops a slice of `v` is pushed through.
fn mark(
    f: &Function,
    v: ValueId,
    readers: &[usize],
    body: &HashSet<OpId>,
    sunk: &mut HashSet<OpId>,
) {
    let Some(op) = narrowable(f, v, readers, body) else {
        return;
    };
    sunk.insert(op);
    for &x in &f.op(op).operands {
        mark(f, x, readers, body, sunk);
    }
}

/// `f` with each slice of `narrowed` computed from its window of the ops in `sunk`, which
/// are left out where they stood.
fn rebuild(
    f: &Function,
    narrowed: &HashMap<OpId, Window>,
    sunk: &HashSet<OpId>,
) -> Result<Function, CompileError> {
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (id, op) in f.body_ops() {
        if sunk.contains(&id) {
            continue;
        }
        let Some(window) = narrowed.get(&id) else {
            b.copy_op(f, op, &mut map)?;
            continue;
        };
        let v = sliced(f, &mut b, &map, sunk, op.operands[0], window, op)?;
        map.insert(op.results[0], v);
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

/// The window of `v` in the new function: computed on the window when `v`'s op was sunk,
/// else a slice (with the attributes of `slice`, the op narrowed) of `v` as it stands.
fn sliced(
    f: &Function,
    b: &mut FunctionBuilder,
    map: &HashMap<ValueId, ValueId>,
    sunk: &HashSet<OpId>,
    v: ValueId,
    window: &Window,
    slice: &Op,
) -> Result<ValueId, CompileError> {
    let ty = f.ty(v);
    let shape: Vec<usize> = window
        .iter()
        .map(|&(s, l, k)| (l.saturating_sub(s)).div_ceil(k))
        .collect();
    let narrow_ty = TensorType::new(ty.dtype, shape);
    let op = match f.values[v.index()].def {
        ValueDef::OpResult { op, .. } if sunk.contains(&op) => f.op(op),
        _ => return push(b, slice_kind(window), &[map[&v]], narrow_ty, slice),
    };
    let whole = |d: usize| (0, ty.shape[d], 1);
    let (kind, operands) = match &op.kind {
        OpKind::BroadcastInDim { dims } => {
            let x = op.operands[0];
            let x_shape = &f.ty(x).shape;
            let w: Window = dims
                .iter()
                .enumerate()
                .map(|(i, &d)| match x_shape[i] == 1 && ty.shape[d] != 1 {
                    true => (0, 1, 1),
                    false => window[d],
                })
                .collect();
            let x = sliced(f, b, map, sunk, x, &w, slice)?;
            (op.kind.clone(), vec![x])
        }
        OpKind::Transpose { permutation } => {
            let x = op.operands[0];
            let mut w: Window = (0..permutation.len()).map(whole).collect();
            for (i, &p) in permutation.iter().enumerate() {
                w[p] = window[i];
            }
            let x = sliced(f, b, map, sunk, x, &w, slice)?;
            (op.kind.clone(), vec![x])
        }
        OpKind::Iota { dimension } if matches!(window[*dimension], (0, _, 1)) => {
            (op.kind.clone(), Vec::new())
        }
        OpKind::Constant(lit) if lit.is_splat() => {
            let lit = Literal::new(narrow_ty.clone(), lit.elements.clone())?;
            (OpKind::Constant(lit), Vec::new())
        }
        k if k.is_elementwise() => {
            let mut xs = Vec::new();
            for &x in &op.operands {
                xs.push(match f.ty(x).shape.is_empty() && !ty.shape.is_empty() {
                    true => map[&x],
                    false => sliced(f, b, map, sunk, x, window, slice)?,
                });
            }
            (op.kind.clone(), xs)
        }
        // An iota sliced from elsewhere than 0: taken whole, then sliced.
        _ => {
            let x = push(b, op.kind.clone(), &[], ty.clone(), op)?;
            return push(b, slice_kind(window), &[x], narrow_ty, slice);
        }
    };
    push(b, kind, &operands, narrow_ty, op)
}

/// Adds one op of one result of type `ty`, with the attributes (names, locations) of
/// `like`.
fn push(
    b: &mut FunctionBuilder,
    kind: OpKind,
    operands: &[ValueId],
    ty: TensorType,
    like: &Op,
) -> Result<ValueId, CompileError> {
    let id = b.push(kind, operands, Some(&[ty]), Vec::new())?;
    b.op_mut(id).attrs = like.attrs.clone();
    Ok(b.func().op(id).results[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::{parse_module, print_module};

    fn narrowed(text: &str) -> (String, usize) {
        let m = parse_module(text).unwrap();
        let (g, n) = narrow(&m).unwrap();
        shardc_ir::verify_module(&g).unwrap();
        (print_module(&g), n)
    }

    #[test]
    fn a_mask_for_the_longest_sequence_is_made_for_the_one_run() {
        let (text, n) = narrowed(
            "func.func @main() -> tensor<1x16x16xi1> {
               %i = stablehlo.iota dim = 0 : tensor<8192xi32>
               %r = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<8192xi32>) -> tensor<8192x8192xi32>
               %c = stablehlo.broadcast_in_dim %i, dims = [1] : (tensor<8192xi32>) -> tensor<8192x8192xi32>
               %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<8192x8192xi32>, tensor<8192x8192xi32>) -> tensor<8192x8192xi1>
               %m1 = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<8192x8192xi1>) -> tensor<1x8192x8192xi1>
               %s = stablehlo.slice %m1 [0:1, 0:16, 0:16] : (tensor<1x8192x8192xi1>) -> tensor<1x16x16xi1>
               return %s : tensor<1x16x16xi1>
             }",
        );
        assert_eq!(n, 1);
        // The iota is read twice: sliced where it stands, once per reader.
        assert!(!text.contains("8192x8192"), "{text}");
        assert_eq!(text.matches("stablehlo.slice").count(), 2, "{text}");
        assert!(text.contains("tensor<16x16xi1>"), "{text}");
    }

    #[test]
    fn repeated_dimensions_stay_whole_and_transposes_swap_the_window() {
        let (text, n) = narrowed(
            "func.func @main(%x: tensor<1x8xf32>) -> tensor<4x2xf32> {
               %b = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
               %t = stablehlo.transpose %b, dims = [1, 0] : (tensor<6x8xf32>) -> tensor<8x6xf32>
               %s = stablehlo.slice %t [2:6, 1:5:2] : (tensor<8x6xf32>) -> tensor<4x2xf32>
               return %s : tensor<4x2xf32>
             }",
        );
        assert_eq!(n, 1);
        assert!(
            text.contains(
                "stablehlo.slice %arg0 [0:1, 2:6] : (tensor<1x8xf32>) -> tensor<1x4xf32>"
            ),
            "{text}"
        );
        assert!(text.contains("-> tensor<2x4xf32>"), "{text}");
    }

    #[test]
    fn values_read_elsewhere_or_sharded_are_sliced_where_they_stand() {
        let text = "sdy.mesh @mesh = <[\"a\"=2]>
             func.func @main(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) {
               %e = stablehlo.exponential %x : tensor<8xf32>
               %s = stablehlo.slice %e [0:4] : (tensor<8xf32>) -> tensor<4xf32>
               %n = stablehlo.negate %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"a\"}]>]>} : tensor<8xf32>
               %t = stablehlo.slice %n [4:8] : (tensor<8xf32>) -> tensor<4xf32>
               return %s, %e, %t : tensor<4xf32>, tensor<8xf32>, tensor<4xf32>
             }";
        let m = parse_module(text).unwrap();
        let (g, n) = narrow(&m).unwrap();
        assert_eq!(n, 0);
        assert_eq!(print_module(&g), print_module(&m));
    }
}
