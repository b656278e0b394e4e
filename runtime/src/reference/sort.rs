//! `stablehlo.sort`: every row along the sorted dimension ordered by the comparator region
//! (lhs before rhs when it returns true), all operands permuted alike. A stable merge sort
//! (stable whether or not `is_stable` asks, as XLA's CPU sort is for the comparators JAX
//! emits), which never fails on a comparator that is not a strict weak order: it then
//! gives some permutation, as XLA does.

use super::elementwise::element_order;
use super::{Env, Interp, InterpError, Site};
use shardc_ir::{
    BlockId, ComparisonDirection, ComparisonType, Function, Literal, OpKind, TensorType,
};
use std::rc::Rc;

pub(crate) fn sort(
    interp: &mut Interp,
    site: &Site,
    x: &[&Literal],
    dimension: usize,
    env: &mut Env,
) -> Result<Vec<Literal>, InterpError> {
    let ty = &x[0].ty;
    let (n, stride) = (ty.shape[dimension], ty.strides()[dimension]);
    let rows = ty.num_elements() / n.max(1);
    let comparator = site.op.regions[0];
    let scalar = |l: &Literal, i: usize| {
        Rc::new(Literal {
            ty: TensorType::scalar(l.ty.dtype),
            elements: l.elements.gather(&[i]),
        })
    };
    // Every element's source, row by row.
    // A comparator of one `compare` of an operand's pair (JAX's sorts and `top_k`) is
    // computed natively: the same predicate, not interpreted once per pair.
    let native = one_compare(site.f, comparator, x.len())
        .and_then(|(p, swapped, dir, ty)| Some((element_order(dir, ty, x[p])?, swapped)));
    let mut order = Vec::with_capacity(ty.num_elements());
    let mut positions: Vec<usize> = Vec::with_capacity(n);
    for r in 0..rows {
        // Row r's first element: r counts the positions of the other dimensions.
        let base = (r / stride) * stride * n + r % stride;
        positions.clear();
        positions.extend((0..n).map(|i| base + i * stride));
        let mut less = |a: usize, b: usize| -> Result<bool, InterpError> {
            let args: Vec<Rc<Literal>> = x
                .iter()
                .flat_map(|l| [scalar(l, a), scalar(l, b)])
                .collect();
            let out = interp.exec_block(site.f, comparator, &args, env)?;
            Ok(out.first().is_some_and(|v| v.get(0).as_bool()))
        };
        let sorted = match &native {
            Some((less, false)) => merge_sort(&positions, &mut |a, b| Ok(less(a, b)))?,
            Some((less, true)) => merge_sort(&positions, &mut |a, b| Ok(less(b, a)))?,
            None => merge_sort(&positions, &mut less)?,
        };
        order.push((base, sorted));
    }
    let mut gather = vec![0usize; ty.num_elements()];
    for (base, sorted) in &order {
        for (i, &src) in sorted.iter().enumerate() {
            gather[base + i * stride] = src;
        }
    }
    Ok(x.iter()
        .map(|l| Literal {
            ty: l.ty.clone(),
            elements: l.elements.gather(&gather),
        })
        .collect())
}

/// The comparator `block` of a sort of `operands` operands, when it is one `compare` of
/// operand `p`'s pair of elements: `p`, whether it compares them swapped (rhs first), its
/// direction and comparison type.
fn one_compare(
    f: &Function,
    block: BlockId,
    operands: usize,
) -> Option<(usize, bool, ComparisonDirection, Option<ComparisonType>)> {
    let b = f.block(block);
    let ([id], [result]) = (b.ops.as_slice(), b.results.as_slice()) else {
        return None;
    };
    let c = f.op(*id);
    let OpKind::Compare {
        direction,
        compare_type,
    } = c.kind
    else {
        return None;
    };
    if c.results.as_slice() != [*result] || b.args.len() != 2 * operands {
        return None;
    }
    (0..operands).find_map(|p| {
        let (l, r) = (b.args[2 * p], b.args[2 * p + 1]);
        match c.operands.as_slice() {
            [x, y] if (*x, *y) == (l, r) => Some((p, false, direction, compare_type)),
            [x, y] if (*x, *y) == (r, l) => Some((p, true, direction, compare_type)),
            _ => None,
        }
    })
}

/// A stable merge sort of `items` by `less`, bottom up.
fn merge_sort(
    items: &[usize],
    less: &mut impl FnMut(usize, usize) -> Result<bool, InterpError>,
) -> Result<Vec<usize>, InterpError> {
    let mut a = items.to_vec();
    let mut b = vec![0; a.len()];
    let mut width = 1;
    while width < a.len() {
        for start in (0..a.len()).step_by(2 * width) {
            let mid = (start + width).min(a.len());
            let end = (start + 2 * width).min(a.len());
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // Take from the right only when it goes strictly before: stable.
                if less(a[j], a[i])? {
                    b[k] = a[j];
                    j += 1;
                } else {
                    b[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            b[k..k + mid - i].copy_from_slice(&a[i..mid]);
            k += mid - i;
            b[k..k + end - j].copy_from_slice(&a[j..end]);
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    Ok(a)
}
