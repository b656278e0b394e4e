//! Loops whose bodies communicate, rotated: each iteration's test computed at the end of
//! the body that precedes it.
//!
//! A per-device program runs such a loop as steps (the runtime's `engine::Control`):
//! the condition's ops, a branch, the body's. The condition of a `fori_loop` or a scan
//! (`i < n`) is one scalar compare, yet as steps of its own it is a kernel launch in every
//! iteration. Rotated, the loop carries its test as one more value: the condition is
//! computed once before the loop, on its operands, and at the end of the body, on its
//! results, where it joins the body's last kernel; the loop's own condition only returns
//! the carried test. The loop computes what it computed before, iteration for iteration.
//!
//! ```text
//! while (c(x)) { x = b(x) }   ==>   t = c(x0); while (t) { x = b(x); t = c(x) }
//! ```

use crate::builder::FunctionBuilder;
use crate::dtype::{DType, TensorType};
use crate::error::IrError;
use crate::module::{Function, OpId, ValueId};
use crate::op::OpKind;
use crate::unroll::communicates;
use std::collections::HashMap;

/// A rotated function, and which value of the function it came from each of its values
/// copies, where it copies one.
pub type Rotated = (Function, HashMap<ValueId, ValueId>);

/// `f` with every `while` whose regions communicate rotated (nested ones too), and which
/// value of `f` each value of the rotated function is (a copy of), where it is one: a
/// condition's values twice, before the loop and at the end of its body. `None` when `f`
/// has no such loop.
pub fn rotate_communicating_loops(f: &Function) -> Result<Option<Rotated>, IrError> {
    let rotates = |op: &crate::op::Op| op.kind == OpKind::While && communicates(f, &op.regions);
    if !f.ops.iter().any(rotates) {
        return Ok(None);
    }
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    let mut origin = HashMap::new();
    copy_ops(f, &f.body().ops, &mut b, &mut map, &mut origin)?;
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    origin.extend(map.into_iter().map(|(old, new)| (new, old)));
    Ok(Some((g, origin)))
}

/// Copies `ops` of `f` into `b`, rotating the loops that communicate; `map` takes each
/// value of `f` to its copy, `origin` takes the copies `map` forgets (a condition's first
/// test) back to what they copy.
fn copy_ops(
    f: &Function,
    ops: &[OpId],
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
    origin: &mut HashMap<ValueId, ValueId>,
) -> Result<(), IrError> {
    for &id in ops {
        let op = f.op(id);
        let [cond, body] = op.regions.as_slice() else {
            b.copy_op(f, op, map)?;
            continue;
        };
        if op.kind != OpKind::While || !communicates(f, &op.regions) {
            b.copy_op(f, op, map)?;
            continue;
        }
        let (cond, body) = (f.block(*cond), f.block(*body));
        // The test a list of carried values gives: the condition's ops copied onto them.
        let test = |b: &mut FunctionBuilder,
                    map: &mut HashMap<ValueId, ValueId>,
                    origin: &mut HashMap<ValueId, ValueId>,
                    carried: &[ValueId]|
         -> Result<ValueId, IrError> {
            map.extend(cond.args.iter().copied().zip(carried.iter().copied()));
            copy_ops(f, &cond.ops, b, map, origin)?;
            for &o in &cond.ops {
                for r in &f.op(o).results {
                    origin.insert(map[r], *r);
                }
            }
            let t = cond
                .results
                .first()
                .map(|r| map[r])
                .ok_or_else(|| IrError::InvalidOp {
                    at: format!("a loop in @{}", f.name),
                    op: op.kind.name(),
                    rule: "its condition returns nothing, where it returns one i1".into(),
                    fix: "return the loop's test from its condition".into(),
                })?;
            // The condition's arguments stand for other values each time: none of them is
            // where a value of `f` went.
            for a in &cond.args {
                map.remove(a);
            }
            Ok(t)
        };
        let init: Vec<ValueId> = op.written_operands().iter().map(|v| map[v]).collect();
        let first = test(b, map, origin, &init)?;
        let mut types: Vec<TensorType> = op.results.iter().map(|&r| f.ty(r).clone()).collect();
        types.push(TensorType::scalar(DType::I1));
        let args = b.begin_block(&types);
        let go = *args.last().expect("the test was pushed");
        let new_cond = b.end_block(&[go]);
        let args = b.begin_block(&types);
        map.extend(body.args.iter().copied().zip(args.iter().copied()));
        copy_ops(f, &body.ops, b, map, origin)?;
        let mut next: Vec<ValueId> = body.results.iter().map(|r| map[r]).collect();
        let again = test(b, map, origin, &next)?;
        next.push(again);
        let new_body = b.end_block(&next);
        let mut operands = init;
        operands.push(first);
        let id = b.push_region_op(
            OpKind::While,
            &operands,
            Some(&types),
            vec![new_cond, new_body],
        )?;
        let results = b.func().op(id).results.clone();
        map.extend(op.results.iter().copied().zip(results));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    /// A ring of 3 trips: the rotated loop computes its test at the end of its body and
    /// carries it; its results keep their places.
    #[test]
    fn a_loop_that_communicates_carries_its_test_computed_at_the_end_of_its_body() {
        let text = r#"
module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %t = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %p = "stablehlo.collective_permute"(%v) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %p : tensor<i32>, tensor<4xf32>
    }
    return %r#1 : tensor<4xf32>
  }
}
"#;
        let m = parse_module(text).expect("parses");
        let f = m.entry().expect("entry");
        let (g, origin) = rotate_communicating_loops(f)
            .expect("rotates")
            .expect("it has a loop that communicates");
        crate::verify_function(&m, &g).expect("the rotated function verifies");
        let (_, w) = g
            .body_ops()
            .find(|(_, o)| o.kind == OpKind::While)
            .expect("still a loop");
        assert_eq!(w.results.len(), 3, "the test is carried");
        let cond = g.block(w.regions[0]);
        assert!(cond.ops.is_empty(), "the condition only returns the test");
        assert_eq!(cond.results, vec![*cond.args.last().unwrap()]);
        let body = g.block(w.regions[1]);
        let last = g.op(*body.ops.last().unwrap());
        assert!(
            matches!(last.kind, OpKind::Compare { .. }),
            "the body ends with the test: {:?}",
            last.kind
        );
        // The function's result still comes from the loop's second result.
        assert_eq!(origin[&g.results()[0]], f.results()[0]);
        // The test, computed twice, copies the condition's compare both times.
        let compares: Vec<ValueId> = g
            .ops
            .iter()
            .filter(|o| matches!(o.kind, OpKind::Compare { .. }))
            .map(|o| origin[&o.results[0]])
            .collect();
        assert_eq!(compares.len(), 2);
        assert_eq!(compares[0], compares[1]);
    }
}
