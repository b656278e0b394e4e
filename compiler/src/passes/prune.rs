//! Pruning: values with no elements carry nothing, so an op whose results are all empty
//! becomes an empty constant, a concatenation leaves out its empty operands, and what
//! then reads nothing anyone needs is removed (`autodiff::simplify`'s dead-op
//! elimination; nothing is merged).
//!
//! `jnp.pad` pads every axis, the ones padded by `(0, 0)` too: for the `edge`, `reflect`,
//! `wrap`, `linear_ramp` and `maximum` modes it slices the array's first and last rows
//! along such an axis and broadcasts them to zero rows before concatenating. Along a
//! split batch axis those slices read rows of other devices: kept, a CNN whose spatial
//! padding is `reflect` gathered its whole batch-split activation at every padded layer
//! (`jnp_pad_modes_fwd`: 168 B/device where XLA moves nothing).
//!
//! ```text
//! %6 = slice %x [0:1, 0:6] : 8x6 -> 1x6              (gone)
//! %7 = broadcast_in_dim %6 : 1x6 -> 1x0x6            %7 = constant dense<> : 1x0x6
//! %12 = concatenate %8, %x, %11, dim = 0             %12 is %x
//! ```

use crate::autodiff::simplify::remove_dead;
use crate::error::CompileError;
use shardc_ir::{Elements, FunctionBuilder, Literal, Module, OpKind, ValueId};
use std::collections::HashMap;

/// The module with its entry function's empty values pruned; gives how many ops changed.
pub fn prune(m: &Module) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    let empty = |v: &ValueId| f.ty(*v).num_elements() == 0;
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    let mut changed = 0;
    for (_, op) in f.body_ops() {
        let all_empty = !op.results.is_empty() && op.results.iter().all(empty);
        if all_empty && op.regions.is_empty() && !matches!(op.kind, OpKind::Constant(_)) {
            for &r in &op.results {
                let ty = f.ty(r).clone();
                let nothing = Literal::new(ty.clone(), Elements::zeros(ty.dtype, 0))?;
                map.insert(r, b.constant(nothing));
            }
            changed += 1;
            continue;
        }
        if let OpKind::Concatenate { .. } = op.kind
            && !all_empty
            && op.operands.iter().any(empty)
        {
            let kept: Vec<ValueId> = op
                .operands
                .iter()
                .filter(|v| !empty(v))
                .map(|v| map[v])
                .collect();
            let r = match kept.as_slice() {
                [one] => *one,
                _ => {
                    let ty = f.ty(op.results[0]).clone();
                    let new = b.push(op.kind.clone(), &kept, Some(&[ty]), Vec::new())?;
                    b.op_mut(new).attrs = op.attrs.clone();
                    b.op_mut(new).shardings = op.shardings.clone();
                    b.func().op(new).results[0]
                }
            };
            map.insert(op.results[0], r);
            changed += 1;
            continue;
        }
        b.copy_op(f, op, &mut map)?;
    }
    if changed == 0 {
        return Ok((m.clone(), 0));
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok((m.with_function(remove_dead(&g)?), changed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::{parse_module, print_module};

    #[test]
    fn empty_pads_of_an_axis_leave_the_program() {
        let m = parse_module(
            r#"func.func @main(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %6 = stablehlo.slice %x [0:1, 0:6] : (tensor<8x6xf32>) -> tensor<1x6xf32>
  %7 = stablehlo.broadcast_in_dim %6, dims = [0, 2] : (tensor<1x6xf32>) -> tensor<1x0x6xf32>
  %8 = stablehlo.reshape %7 : (tensor<1x0x6xf32>) -> tensor<0x6xf32>
  %9 = stablehlo.slice %x [7:8, 0:6] : (tensor<8x6xf32>) -> tensor<1x6xf32>
  %10 = stablehlo.broadcast_in_dim %9, dims = [0, 2] : (tensor<1x6xf32>) -> tensor<1x0x6xf32>
  %11 = stablehlo.reshape %10 : (tensor<1x0x6xf32>) -> tensor<0x6xf32>
  %12 = stablehlo.concatenate %8, %x, %11, dim = 0 : (tensor<0x6xf32>, tensor<8x6xf32>, tensor<0x6xf32>) -> tensor<8x6xf32>
  %13 = stablehlo.negate %12 : tensor<8x6xf32>
  return %13 : tensor<8x6xf32>
}"#,
        )
        .unwrap();
        let (p, n) = prune(&m).unwrap();
        shardc_ir::verify_module(&p).unwrap();
        let text = print_module(&p);
        assert_eq!(n, 5, "{text}");
        assert!(
            !text.contains("slice") && !text.contains("concatenate"),
            "{text}"
        );
        assert!(text.contains("stablehlo.negate %arg0"), "{text}");
        let x = Literal::deterministic(
            &shardc_ir::TensorType::new(shardc_ir::DType::F32, [8, 6]),
            0,
        )
        .unwrap();
        let run = |m: &Module| {
            shardc_runtime::reference::run(m, "main", std::slice::from_ref(&x)).unwrap()
        };
        assert_eq!(run(&p), run(&m));
        // Nothing empty: the module as it was.
        let (same, none) = prune(&p).unwrap();
        assert_eq!((none, print_module(&same)), (0, text));
    }
}
