//! `stablehlo.sort`: every row along the sorted dimension ordered by the comparator region
//! (lhs before rhs when it returns true), all operands permuted alike. A stable merge sort
//! (stable whether or not `is_stable` asks, as XLA's CPU sort is for the comparators JAX
//! emits), which never fails on a comparator that is not a strict weak order: it then
//! gives some permutation, as XLA does.

use super::elementwise::element_order;
use super::{Env, Interp, InterpError, Site, read};
use shardc_ir::{
    BinaryOp, BlockId, ComparisonDirection, ComparisonType, Function, Literal, OpKind, TensorType,
    ValueDef, ValueId,
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
    // A comparator made of compares of a key of each side (JAX's sorts: an operand, or its
    // zeros and NaNs made canonical first; `top_k`: the operand; several keys compared
    // lexicographically: `lax.sort(num_keys=2)`, `jnp.lexsort`) is computed natively:
    // each element's keys once, then the same compares, not the region once per pair.
    let keyed = match Comparator::of(site.f, comparator, x.len()) {
        Some(c) => {
            let keys = c.keys(interp, site.f, comparator, x, env)?;
            Some((c, keys))
        }
        None => None,
    };
    let native = keyed.as_ref().and_then(|(c, keys)| c.native(keys));
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
            Some(native) => merge_sort(&positions, &mut |a, b| Ok(native.holds(a, b)))?,
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

/// One `compare` of a sort's comparator whose two values are each computed from one side
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

/// A comparator whose result is keyed compares joined by `and` and `or`: one compare (a
/// sort by one key), or `lt0 or (eq0 and lt1)` (two keys, lexicographically), ...
enum Ordering {
    /// The index into the comparator's keyed compares.
    Compare(usize),
    And(Box<Ordering>, Box<Ordering>),
    Or(Box<Ordering>, Box<Ordering>),
}

/// How deep an [`Ordering`] is read (JAX's lexicographic comparators nest two levels per
/// key).
const MAX_DEPTH: usize = 32;

/// One keyed compare over every element's keys: `compare(x of one element, y of another)`.
type ElementCompare<'a> = Box<dyn Fn(usize, usize) -> bool + 'a>;

/// An [`Ordering`] over every element's keys: whether `a` goes before `b`.
struct NativeOrder<'a> {
    ordering: &'a Ordering,
    /// Each compare's `compare(x of one element, y of another)`, and whether `x` is the
    /// left element's.
    compares: Vec<(ElementCompare<'a>, bool)>,
}

impl NativeOrder<'_> {
    fn holds(&self, a: usize, b: usize) -> bool {
        self.at(self.ordering, a, b)
    }

    fn at(&self, o: &Ordering, a: usize, b: usize) -> bool {
        match o {
            Ordering::Compare(k) => {
                let (compare, lhs_first) = &self.compares[*k];
                if *lhs_first {
                    compare(a, b)
                } else {
                    compare(b, a)
                }
            }
            Ordering::And(p, q) => self.at(p, a, b) && self.at(q, a, b),
            Ordering::Or(p, q) => self.at(p, a, b) || self.at(q, a, b),
        }
    }
}

impl Ordering {
    fn read(
        f: &Function,
        block: BlockId,
        v: ValueId,
        compares: &mut Vec<KeyedCompare>,
        depth: usize,
    ) -> Option<Ordering> {
        let ValueDef::OpResult { op, .. } = f.values[v.index()].def else {
            return None;
        };
        let o = f.op(op);
        let both = |p: ValueId, q: ValueId, compares: &mut Vec<KeyedCompare>| {
            let p = Ordering::read(f, block, p, compares, depth.checked_sub(1)?)?;
            let q = Ordering::read(f, block, q, compares, depth.checked_sub(1)?)?;
            Some((Box::new(p), Box::new(q)))
        };
        match (&o.kind, o.operands.as_slice()) {
            (
                OpKind::Compare {
                    direction,
                    compare_type,
                },
                [x, y],
            ) => {
                let (ax, ay) = (sole_arg(f, block, *x)?, sole_arg(f, block, *y)?);
                if ax / 2 != ay / 2 || ax == ay {
                    return None;
                }
                compares.push(KeyedCompare {
                    direction: *direction,
                    compare_type: *compare_type,
                    x: *x,
                    y: *y,
                    lhs_first: ax % 2 == 0,
                });
                Some(Ordering::Compare(compares.len() - 1))
            }
            (OpKind::Binary(BinaryOp::And), [p, q]) => {
                let (p, q) = both(*p, *q, compares)?;
                Some(Ordering::And(p, q))
            }
            (OpKind::Binary(BinaryOp::Or), [p, q]) => {
                let (p, q) = both(*p, *q, compares)?;
                Some(Ordering::Or(p, q))
            }
            _ => None,
        }
    }
}

/// Every element's two keys of each compare (what its `x` and `y` are when the region
/// reads the element on both sides), as literals of the operands' shape.
type Keys = Vec<(Literal, Literal)>;

/// A comparator read as an [`Ordering`] of its keyed compares.
struct Comparator {
    ordering: Ordering,
    compares: Vec<KeyedCompare>,
}

impl Comparator {
    /// The comparator `block` of a sort of `operands` operands, when its result is an
    /// [`Ordering`] of keyed compares.
    fn of(f: &Function, block: BlockId, operands: usize) -> Option<Comparator> {
        let b = f.block(block);
        let [result] = b.results.as_slice() else {
            return None;
        };
        if b.args.len() != 2 * operands {
            return None;
        }
        let mut compares = Vec::new();
        let ordering = Ordering::read(f, block, *result, &mut compares, MAX_DEPTH)?;
        Some(Comparator { ordering, compares })
    }

    /// The keys: the operands themselves where a compare reads them, else what the region
    /// computes, on every element at once when its ops allow ([`vectorized`]), else once
    /// per element.
    fn keys(
        &self,
        interp: &mut Interp,
        f: &Function,
        block: BlockId,
        x: &[&Literal],
        env: &mut Env,
    ) -> Result<Keys, InterpError> {
        let n = x[0].ty.num_elements();
        let direct = |c: &KeyedCompare| Some((arg_of(f, block, c.x)?, arg_of(f, block, c.y)?));
        let mut computed: Vec<[Vec<Rc<Literal>>; 2]> =
            vec![[Vec::new(), Vec::new()]; self.compares.len()];
        if self.compares.iter().any(|c| direct(c).is_none()) {
            let wanted: Vec<ValueId> = self.compares.iter().flat_map(|c| [c.x, c.y]).collect();
            match vectorized(f, block, x, &wanted) {
                // Every element at once: the region's ops on vectors of the elements.
                Some(g) => {
                    let args: Vec<Rc<Literal>> = x
                        .iter()
                        .flat_map(|l| {
                            let all = Rc::new(Literal {
                                ty: TensorType::new(l.ty.dtype, vec![n]),
                                elements: l.elements.clone(),
                            });
                            [all.clone(), all]
                        })
                        .collect();
                    let mut genv: Env = vec![None; g.values.len()];
                    let keys = interp.exec_block(&g, Function::BODY, &args, &mut genv)?;
                    for (lists, pair) in computed.iter_mut().zip(keys.chunks(2)) {
                        for (list, key) in lists.iter_mut().zip(pair) {
                            list.push(key.clone());
                        }
                    }
                }
                None => {
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
                        for (c, lists) in self.compares.iter().zip(&mut computed) {
                            for (v, keys) in [c.x, c.y].into_iter().zip(lists.iter_mut()) {
                                let key = read(f, env, v, || {
                                    format!("the key a sort comparator compares, in @{}", f.name)
                                })?;
                                keys.push(key);
                            }
                        }
                    }
                }
            }
        }
        let stack = |keys: &[Rc<Literal>]| -> Result<Literal, InterpError> {
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
        self.compares
            .iter()
            .zip(&computed)
            .map(|(c, [kx, ky])| match direct(c) {
                // The operands themselves.
                Some((px, py)) => Ok((x[px / 2].clone(), x[py / 2].clone())),
                None => Ok((stack(kx)?, stack(ky)?)),
            })
            .collect()
    }

    /// The comparator on `keys` natively (`None` where a compare's type is not one
    /// `element_order` computes: the region is then run per pair).
    fn native<'a>(&'a self, keys: &'a Keys) -> Option<NativeOrder<'a>> {
        let compares = self
            .compares
            .iter()
            .zip(keys)
            .map(|(c, (kx, ky))| {
                Some((
                    element_order(c.direction, c.compare_type, kx, ky)?,
                    c.lhs_first,
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(NativeOrder {
            ordering: &self.ordering,
            compares,
        })
    }
}

/// The comparator region `block` on every element at once: a function of the operands'
/// elements as vectors (each twice, as the region's pairs), its elementwise ops on them
/// and its scalar constants broadcast to them, returning `wanted`; `None` when an op of
/// the region is neither (its keys are then computed element by element). Elementwise
/// ops give, element by element, what the region gives each element alone.
fn vectorized(
    f: &Function,
    block: BlockId,
    x: &[&Literal],
    wanted: &[ValueId],
) -> Option<Function> {
    let n = x.first()?.ty.num_elements();
    let b = f.block(block);
    let types: Vec<TensorType> = b
        .args
        .iter()
        .map(|&a| TensorType::new(f.ty(a).dtype, vec![n]))
        .collect();
    let mut g = shardc_ir::FunctionBuilder::new("keys", &types);
    let mut map: std::collections::HashMap<ValueId, ValueId> =
        b.args.iter().copied().zip(g.args()).collect();
    for &id in &b.ops {
        let op = f.op(id);
        let [result] = op.results.as_slice() else {
            return None;
        };
        let ty = TensorType::new(f.ty(*result).dtype, vec![n]);
        let v = match &op.kind {
            OpKind::Constant(lit) if lit.ty.rank() == 0 => {
                let c = g.constant(lit.clone());
                g.push1_typed(OpKind::BroadcastInDim { dims: Vec::new() }, &[c], ty)
                    .ok()?
            }
            k if k.is_elementwise() && f.ty(*result).rank() == 0 => {
                let operands: Vec<ValueId> = op
                    .operands
                    .iter()
                    .map(|v| map.get(v).copied())
                    .collect::<Option<_>>()?;
                g.push1_typed(k.clone(), &operands, ty).ok()?
            }
            _ => return None,
        };
        map.insert(*result, v);
    }
    let results: Vec<ValueId> = wanted
        .iter()
        .map(|v| map.get(v).copied())
        .collect::<Option<_>>()?;
    Some(g.finish(&results))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparator of `jnp.lexsort`'s two keys, `lt0 or (eq0 and lt1)`, is read as an
    /// ordering of three keyed compares (and so run natively); one with anything else in
    /// it (a constant `and`ed in) is not.
    #[test]
    fn lexicographic_comparators_are_read_as_orderings() {
        let module = |tail: &str| {
            shardc_ir::text::parse_module(&format!(
                r#"func.func @main(%k: tensor<8xi32>, %x: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xf32>) {{
  %s:2 = "stablehlo.sort"(%k, %x) <{{dimension = 0 : i64, is_stable = true}}> ({{
    ^bb0(%p: tensor<i32>, %q: tensor<i32>, %a: tensor<f32>, %b: tensor<f32>):
      %lt1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt0 = stablehlo.compare LT, %p, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %eq0 = stablehlo.compare EQ, %p, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %then = stablehlo.and %eq0, %lt1 : tensor<i1>
      %r = stablehlo.or %lt0, %then : tensor<i1>
      {tail}
  }}) : (tensor<8xi32>, tensor<8xf32>) -> (tensor<8xi32>, tensor<8xf32>)
  return %s#0, %s#1 : tensor<8xi32>, tensor<8xf32>
}}"#
            ))
            .unwrap()
        };
        let read = |m: &shardc_ir::Module| {
            let f = m.entry().unwrap();
            let (_, sort) = f
                .body_ops()
                .find(|(_, o)| matches!(o.kind, OpKind::Sort { .. }))
                .unwrap();
            Comparator::of(f, sort.regions[0], 2).map(|c| c.compares.len())
        };
        assert_eq!(read(&module("stablehlo.return %r : tensor<i1>")), Some(3));
        let and_true = "%t = stablehlo.constant dense<true> : tensor<i1>\n      %r2 = stablehlo.and %r, %t : tensor<i1>\n      stablehlo.return %r2 : tensor<i1>";
        assert_eq!(read(&module(and_true)), None);
    }

    /// JAX's float keys (zeros and NaNs made canonical by compares, selects and scalar
    /// constants) are computed for every element at once; a region reading anything else
    /// (here a `sort` nested in it is not elementwise) is not vectorized.
    #[test]
    fn canonical_keys_are_computed_for_every_element_at_once() {
        let m = shardc_ir::text::parse_module(
            r#"func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %ea = stablehlo.compare EQ, %a, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %sa = stablehlo.select %ea, %zero, %a : tensor<i1>, tensor<f32>
      %na = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %ka = stablehlo.select %na, %nan, %sa : tensor<i1>, tensor<f32>
      %eb = stablehlo.compare EQ, %b, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %sb = stablehlo.select %eb, %zero, %b : tensor<i1>, tensor<f32>
      %nb = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %kb = stablehlo.select %nb, %nan, %sb : tensor<i1>, tensor<f32>
      %c = stablehlo.compare LT, %ka, %kb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}"#,
        )
        .unwrap();
        let f = m.entry().unwrap();
        let (_, sort) = f
            .body_ops()
            .find(|(_, o)| matches!(o.kind, OpKind::Sort { .. }))
            .unwrap();
        let block = sort.regions[0];
        let c = Comparator::of(f, block, 1).unwrap();
        let x = Literal::from_f64(
            shardc_ir::DType::F32,
            &[8],
            &[1.0, -0.0, 0.0, f64::NAN, -2.0, 3.0, -f64::NAN, 0.5],
        )
        .unwrap();
        let wanted: Vec<ValueId> = c.compares.iter().flat_map(|k| [k.x, k.y]).collect();
        let g = vectorized(f, block, &[&x], &wanted).expect("elementwise keys");
        assert_eq!(g.results().len(), 2);
        // Not a region of elementwise ops: element by element.
        assert!(vectorized(f, Function::BODY, &[&x], &wanted).is_none());
    }
}
