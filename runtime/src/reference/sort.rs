//! `stablehlo.sort`: every row along the sorted dimension ordered by the comparator region
//! (lhs before rhs when it returns true), all operands permuted alike. A stable merge sort
//! (stable whether or not `is_stable` asks, as XLA's CPU sort is for the comparators JAX
//! emits), which never fails on a comparator that is not a strict weak order: it then
//! gives some permutation, as XLA does.

use super::elementwise::element_order;
use super::{Env, Interp, InterpError, Site, read};
use shardc_ir::{
    BlockId, ComparisonDirection, ComparisonType, Function, Literal, OpKind, TensorType, ValueDef,
    ValueId,
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
    // A comparator that compares a key of each side (JAX's sorts: an operand, or its
    // zeros and NaNs made canonical first; `top_k`: the operand) is computed natively:
    // each element's key once, then the same compare, not the region once per pair.
    let keyed = match keyed_compare(site.f, comparator, x.len()) {
        Some(k) => Some(k.keys(interp, site.f, comparator, x, env)?),
        None => None,
    };
    let native = keyed.as_ref().and_then(|(kx, ky, k)| {
        Some((
            element_order(k.direction, k.compare_type, kx, ky)?,
            k.lhs_first,
        ))
    });
    // Every element's source, row by row.
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
            Some((less, true)) => merge_sort(&positions, &mut |a, b| Ok(less(a, b)))?,
            Some((less, false)) => merge_sort(&positions, &mut |a, b| Ok(less(b, a)))?,
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

/// A comparator whose result is one `compare` of two values, each computed from one side
/// of one operand's pair (and constants).
struct KeyedCompare {
    direction: ComparisonDirection,
    compare_type: Option<ComparisonType>,
    /// The compare's operands.
    x: ValueId,
    y: ValueId,
    /// Whether `x` is computed from the left element of the pair (else from the right).
    lhs_first: bool,
}

impl KeyedCompare {
    /// Every element's two keys (what `x` and `y` are when the region reads it), as two
    /// literals of the operands' shape, the region run once per element.
    fn keys(
        self,
        interp: &mut Interp,
        f: &Function,
        block: BlockId,
        x: &[&Literal],
        env: &mut Env,
    ) -> Result<(Literal, Literal, KeyedCompare), InterpError> {
        let n = x[0].ty.num_elements();
        if let (Some(px), Some(py)) = (arg_of(f, block, self.x), arg_of(f, block, self.y)) {
            // The operands themselves: no region to run.
            return Ok((x[px / 2].clone(), x[py / 2].clone(), self));
        }
        let (mut kx, mut ky) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for i in 0..n {
            let args: Vec<Rc<Literal>> = x
                .iter()
                .flat_map(|l| {
                    let e = Rc::new(Literal {
                        ty: TensorType::scalar(l.ty.dtype),
                        elements: l.elements.gather(&[i]),
                    });
                    [e.clone(), e]
                })
                .collect();
            interp.exec_block(f, block, &args, env)?;
            for (v, keys) in [(self.x, &mut kx), (self.y, &mut ky)] {
                let key = read(f, env, v, || {
                    format!("the key a sort comparator compares, in @{}", f.name)
                })?;
                keys.push(key);
            }
        }
        let stack = |keys: Vec<Rc<Literal>>| -> Result<Literal, InterpError> {
            let dtype = keys.first().map_or(x[0].ty.dtype, |k| k.ty.dtype);
            let parts: Vec<&shardc_ir::Elements> = keys.iter().map(|k| &k.elements).collect();
            let elements = shardc_ir::Elements::concat(&parts).ok_or_else(|| {
                InterpError::MalformedFunction {
                    func: f.name.clone(),
                    problem: "a sort comparator's keys are not of one type".into(),
                }
            })?;
            Ok(Literal {
                ty: TensorType::new(dtype, x[0].ty.shape.clone()),
                elements,
            })
        };
        Ok((stack(kx)?, stack(ky)?, self))
    }
}

/// The comparator `block` of a sort of `operands` operands as a [`KeyedCompare`], when its
/// result is one `compare` whose operands are each computed from one element of the same
/// operand's pair, one from each side, and constants.
fn keyed_compare(f: &Function, block: BlockId, operands: usize) -> Option<KeyedCompare> {
    let b = f.block(block);
    let [result] = b.results.as_slice() else {
        return None;
    };
    if b.args.len() != 2 * operands {
        return None;
    }
    let ValueDef::OpResult { op, .. } = f.values[result.index()].def else {
        return None;
    };
    let c = f.op(op);
    let (
        OpKind::Compare {
            direction,
            compare_type,
        },
        [x, y],
    ) = (&c.kind, c.operands.as_slice())
    else {
        return None;
    };
    let (ax, ay) = (sole_arg(f, block, *x)?, sole_arg(f, block, *y)?);
    (ax / 2 == ay / 2 && ax != ay).then_some(KeyedCompare {
        direction: *direction,
        compare_type: *compare_type,
        x: *x,
        y: *y,
        lhs_first: ax % 2 == 0,
    })
}

/// The index of the one argument of region `block` that `v` is computed from (with
/// constants and values from outside the region); `None` when it reads none or several.
fn sole_arg(f: &Function, block: BlockId, v: ValueId) -> Option<usize> {
    let mut found: Option<usize> = None;
    let mut stack = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if let Some(i) = arg_of(f, block, v) {
            if found.is_some_and(|j| j != i) {
                return None;
            }
            found = Some(i);
            continue;
        }
        if let ValueDef::OpResult { op, .. } = f.values[v.index()].def {
            let o = f.op(op);
            // A nested region could read the arguments unseen.
            if !o.regions.is_empty() {
                return None;
            }
            stack.extend(o.operands.iter().copied());
        }
    }
    found
}

/// The index of `v` among region `block`'s arguments.
fn arg_of(f: &Function, block: BlockId, v: ValueId) -> Option<usize> {
    f.block(block).args.iter().position(|&a| a == v)
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
