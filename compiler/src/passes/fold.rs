//! Folding: a transpose that only swaps a `dot_general`'s two groups of free dimensions
//! becomes the `dot_general` of the operands swapped, as XLA's transpose folding does.
//!
//! A dot's result dimensions are its batch dimensions, then the left operand's free
//! dimensions, then the right's. Swapping the operands (and their batch and contracting
//! dimensions) gives the batch, the right's free, the left's free: exactly the transpose
//! that exchanges the two free groups. JAX's backward pass writes the weight gradient of
//! every `x @ w` as `transpose(dot(dy, x))`; folded, the per-device program computes the
//! gradient in the layout it is used in, without a copy through memory (on the cpu
//! backend, the transpose of a 512x2048 f32 gradient cost more than the matmul making it).
//!
//! Only a dot whose one reader is the transpose is folded (otherwise both layouts are
//! needed); the folded dot takes the transpose's place in the program, where its operands
//! already exist.
//!
//! ```text
//! %d = dot_general %a, %b, contracting_dims = [0] x [0] : (32x512, 32x2048) -> 512x2048
//! %t = transpose %d, dims = [1, 0]                     =>   %t = dot_general %b, %a,
//!                                                            contracting_dims = [0] x [0]
//!                                                            : (32x2048, 32x512) -> 2048x512
//! ```

use crate::error::CompileError;
use shardc_ir::{
    DotAlgorithm, DotDims, Function, FunctionBuilder, Module, Op, OpId, OpKind, ValueId,
};
use std::collections::{HashMap, HashSet};

/// The module with every foldable transpose of its entry function folded into the dot it
/// reads; gives the number folded.
pub fn fold(m: &Module) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    // The transposes to fold: the dot each reads and the dot's dimensions swapped.
    let readers = readers(f);
    let folds: HashMap<OpId, (OpId, DotDims)> = f
        .body_ops()
        .filter_map(|(t, op)| {
            let dot = f.defining_op(*op.operands.first()?)?;
            if readers[op.operands[0].index()] != 1 {
                return None;
            }
            Some((t, (dot, swapped(f, f.op(dot), op)?)))
        })
        .collect();
    if folds.is_empty() {
        return Ok((m.clone(), 0));
    }
    let dropped: HashSet<OpId> = folds.values().map(|(d, _)| *d).collect();
    let dots = folds
        .iter()
        .map(|(t, (dot, dims))| {
            let d = f.op(*dot);
            let new = NewDot {
                operands: [d.operands[1], d.operands[0]],
                dims: dims.clone(),
                attrs_of: *dot,
            };
            (*t, new)
        })
        .collect();
    let g = rebuild(f, &dots, &dropped)?;
    Ok((m.with_function(g), folds.len()))
}

/// A `dot_general` written in place of an op: what it reads (values of the old
/// function), its dimensions, and the op whose attributes (precision config, sharding
/// rule names, ...) it keeps.
struct NewDot {
    operands: [ValueId; 2],
    dims: DotDims,
    attrs_of: OpId,
}

/// `f` with the op of each key of `dots` replaced by its new dot (of the replaced op's
/// result type) and the ops of `dropped` left out; everything else copied as it is.
fn rebuild(
    f: &Function,
    dots: &HashMap<OpId, NewDot>,
    dropped: &HashSet<OpId>,
) -> Result<Function, CompileError> {
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (id, op) in f.body_ops() {
        if dropped.contains(&id) {
            continue;
        }
        let Some(dot) = dots.get(&id) else {
            b.copy_op(f, op, &mut map)?;
            continue;
        };
        let operands = dot.operands.map(|v| map[&v]);
        let ty = f.ty(op.results[0]).clone();
        let new = b.push(
            OpKind::DotGeneral(dot.dims.clone()),
            &operands,
            Some(&[ty]),
            Vec::new(),
        )?;
        b.op_mut(new).attrs = f.op(dot.attrs_of).attrs.clone();
        map.insert(op.results[0], b.func().op(new).results[0]);
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok(g)
}

/// How many times each value is read (by ops, in any block, and by the results).
pub(crate) fn readers(f: &Function) -> Vec<usize> {
    let mut n = vec![0; f.values.len()];
    for op in &f.ops {
        for v in &op.operands {
            n[v.index()] += 1;
        }
    }
    for block in &f.blocks {
        for v in &block.results {
            n[v.index()] += 1;
        }
    }
    n
}

/// The dimensions of `dot` with its operands swapped, when `transpose` (reading `dot`'s
/// result) exchanges its two nonempty groups of free dimensions and nothing else.
fn swapped(f: &Function, dot: &Op, transpose: &Op) -> Option<DotDims> {
    let (OpKind::DotGeneral(d), OpKind::Transpose { permutation }) = (&dot.kind, &transpose.kind)
    else {
        return None;
    };
    if !dot.regions.is_empty() || dot.shardings.is_some() || transpose.shardings.is_some() {
        return None;
    }
    let free = |v: ValueId, batch: &[usize], contracting: &[usize]| {
        f.ty(v).rank() - batch.len() - contracting.len()
    };
    let nb = d.lhs_batch.len();
    let nl = free(dot.operands[0], &d.lhs_batch, &d.lhs_contracting);
    let nr = free(dot.operands[1], &d.rhs_batch, &d.rhs_contracting);
    let want: Vec<usize> = (0..nb)
        .chain(nb + nl..nb + nl + nr)
        .chain(nb..nb + nl)
        .collect();
    (nl > 0 && nr > 0 && *permutation == want).then(|| DotDims {
        lhs_batch: d.rhs_batch.clone(),
        rhs_batch: d.lhs_batch.clone(),
        lhs_contracting: d.rhs_contracting.clone(),
        rhs_contracting: d.lhs_contracting.clone(),
        precision: d.precision.iter().rev().cloned().collect(),
        algorithm: d.algorithm.as_ref().map(DotAlgorithm::swapped),
    })
}

/// `f` with every transpose a `dot_general` reads as an operand read through: the dot
/// reads the transpose's operand, its batch and contracting dimensions mapped through the
/// permutation, where that keeps the operand's free dimensions in their order (so the
/// dot's result is the same). A transpose nothing else reads is then dead. The JIT folds
/// each segment so before clustering: a matmul served by the library GEMM reads its
/// operands through strides, and a transposed copy of a weight costs as much as the
/// matmul reading it (transformers' GPT-2 multiplies by `wte.T`: on 8 devices, 2.5 s of
/// a step's 14 s of kernels). `None` when nothing folds.
pub fn fold_operands(f: &Function) -> Result<Option<Function>, CompileError> {
    let through = |v: ValueId| -> Option<(ValueId, &[usize])> {
        let t = f.op(f.defining_op(v)?);
        match &t.kind {
            OpKind::Transpose { permutation } if t.shardings.is_none() => {
                Some((t.operands[0], permutation.as_slice()))
            }
            _ => None,
        }
    };
    let mut folds: HashMap<OpId, NewDot> = HashMap::new();
    for (id, op) in f.body_ops() {
        let (OpKind::DotGeneral(d), [l, r]) = (&op.kind, op.operands.as_slice()) else {
            continue;
        };
        if !op.regions.is_empty() || op.shardings.is_some() {
            continue;
        }
        let (mut operands, mut dims) = ([*l, *r], d.clone());
        let mut any = false;
        for (k, (batch, contracting)) in [
            (&mut dims.lhs_batch, &mut dims.lhs_contracting),
            (&mut dims.rhs_batch, &mut dims.rhs_contracting),
        ]
        .into_iter()
        .enumerate()
        {
            let Some((x, perm)) = through(operands[k]) else {
                continue;
            };
            let free: Vec<usize> = (0..perm.len())
                .filter(|i| !batch.contains(i) && !contracting.contains(i))
                .map(|i| perm[i])
                .collect();
            if free.windows(2).any(|w| w[0] > w[1]) {
                continue;
            }
            for i in batch.iter_mut().chain(contracting.iter_mut()) {
                *i = perm[*i];
            }
            operands[k] = x;
            any = true;
        }
        if any {
            let new = NewDot {
                operands,
                dims,
                attrs_of: id,
            };
            folds.insert(id, new);
        }
    }
    if folds.is_empty() {
        return Ok(None);
    }
    rebuild(f, &folds, &HashSet::new()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::{parse_module, print_module};
    use shardc_ir::{DType, Literal, TensorType};

    fn folded(text: &str) -> (String, usize) {
        let m = parse_module(text).unwrap();
        let (g, n) = fold(&m).unwrap();
        shardc_ir::verify_module(&g).unwrap();
        (print_module(&g), n)
    }

    #[test]
    fn a_weight_gradient_transpose_becomes_the_swapped_dot() {
        let (text, n) = folded(
            "func.func @main(%a: tensor<32x512xf32>, %b: tensor<32x2048xf32>) -> tensor<2048x512xf32> {
               %d = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<32x512xf32>, tensor<32x2048xf32>) -> tensor<512x2048xf32>
               %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<512x2048xf32>) -> tensor<2048x512xf32>
               return %t : tensor<2048x512xf32>
             }",
        );
        assert_eq!(n, 1);
        assert!(!text.contains("transpose"), "{text}");
        assert!(
            text.contains("stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0]"),
            "{text}"
        );
        assert!(text.contains("-> tensor<2048x512xf32>"), "{text}");
    }

    #[test]
    fn batch_dimensions_stay_first() {
        let (text, n) = folded(
            "func.func @main(%a: tensor<4x8x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x5x8xf32> {
               %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x3xf32>, tensor<4x3x5xf32>) -> tensor<4x8x5xf32>
               %t = stablehlo.transpose %d, dims = [0, 2, 1] : (tensor<4x8x5xf32>) -> tensor<4x5x8xf32>
               return %t : tensor<4x5x8xf32>
             }",
        );
        assert_eq!(n, 1, "{text}");
        assert!(
            text.contains("batching_dims = [0] x [0], contracting_dims = [1] x [2]"),
            "{text}"
        );
    }

    /// GPT-2's tied head, `h @ wte.T`: the dot reads `wte` with contracting dimension 1,
    /// the transpose left unread; a transpose that reorders the free dimensions stays.
    #[test]
    fn a_dot_reads_its_transposed_operand_through() {
        let m = parse_module(
            "func.func @main(%h: tensor<2x8x4xf32>, %w: tensor<16x4xf32>, %x: tensor<3x5x4xf32>) -> (tensor<2x8x16xf32>, tensor<5x3xf32>) {
               %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<16x4xf32>) -> tensor<4x16xf32>
               %d = stablehlo.dot_general %h, %t, contracting_dims = [2] x [0] : (tensor<2x8x4xf32>, tensor<4x16xf32>) -> tensor<2x8x16xf32>
               %u = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<3x5x4xf32>) -> tensor<5x3x4xf32>
               %v = stablehlo.constant dense<1.0> : tensor<4xf32>
               %e = stablehlo.dot_general %u, %v, contracting_dims = [2] x [0] : (tensor<5x3x4xf32>, tensor<4xf32>) -> tensor<5x3xf32>
               return %d, %e : tensor<2x8x16xf32>, tensor<5x3xf32>
             }",
        )
        .unwrap();
        let g = fold_operands(m.entry().unwrap())
            .unwrap()
            .expect("the head folds");
        let g = m.with_function(g);
        shardc_ir::verify_module(&g).unwrap();
        let text = print_module(&g);
        assert!(
            text.contains("stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [1]"),
            "{text}"
        );
        assert!(
            text.contains("stablehlo.dot_general %2, %3, contracting_dims = [2] x [0]"),
            "{text}"
        );
        let args = [
            Literal::deterministic(&TensorType::new(DType::F32, [2, 8, 4]), 0).unwrap(),
            Literal::deterministic(&TensorType::new(DType::F32, [16, 4]), 1).unwrap(),
            Literal::deterministic(&TensorType::new(DType::F32, [3, 5, 4]), 2).unwrap(),
        ];
        let run = |m: &Module| shardc_runtime::reference::run(m, "main", &args).unwrap();
        assert_eq!(run(&g), run(&m));
    }

    #[test]
    fn other_transposes_and_shared_dots_are_kept() {
        // The dot is also returned: both layouts are needed.
        let (_, shared) = folded(
            "func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> (tensor<3x5xf32>, tensor<5x3xf32>) {
               %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
               %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
               return %d, %t : tensor<3x5xf32>, tensor<5x3xf32>
             }",
        );
        assert_eq!(shared, 0);
        // A transpose that moves a batch dimension is not the operand swap.
        let (_, batch) = folded(
            "func.func @main(%a: tensor<4x8x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<8x4x5xf32> {
               %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x3xf32>, tensor<4x3x5xf32>) -> tensor<4x8x5xf32>
               %t = stablehlo.transpose %d, dims = [1, 0, 2] : (tensor<4x8x5xf32>) -> tensor<8x4x5xf32>
               return %t : tensor<8x4x5xf32>
             }",
        );
        assert_eq!(batch, 0);
    }
}
