//! Scattering: an all-reduce whose every reader keeps only this device's block of it (a
//! `shard_slice` over the same groups, along one dimension) becomes a reduce-scatter, as
//! XLA's reduce-scatter creator does. The group then sums and sends each block once
//! instead of giving every device the whole sum: half the bytes, and no device holds the
//! whole reduced value.
//!
//! ```text
//! %s = all_reduce(%g) {groups}         %b = reduce_scatter(%g) {dim 0, groups}
//! ...                           =>      ...
//! %b = shard_slice(%s) {dim 0, groups}
//! ```
//!
//! It arises where a program asks for a value replicated and then uses it where it is
//! split, as an FSDP step whose gradients are constrained to be replicated
//! (`with_sharding_constraint(g, P())`) before updating parameters split on `data`: the
//! constraint is honoured on paper (no reader sees anything but its block), and the
//! values are the same bit for bit (both fold the group's pieces in the same order).
//! The reduce-scatter stands where the all-reduce stood, so it starts as soon as the
//! value exists. Only top-level all-reduces of the entry function are scattered, and only
//! when the blocks are whole (the dimension divides among the group).

use crate::error::CompileError;
use shardc_ir::{BlockId, Function, FunctionBuilder, Module, OpId, OpKind, ReplicaGroups, ValueId};
use std::collections::HashMap;

/// Turns each all-reduce whose readers are all the same `shard_slice` of it into a
/// reduce-scatter. Returns the new module and how many all-reduces it turned.
pub fn scatter(m: &Module) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    let readers = readers(f);
    // The all-reduces to turn, with the slice that keeps their block (its dim and type)
    // and their groups.
    let mut turned: HashMap<OpId, (usize, OpId, &ReplicaGroups)> = HashMap::new();
    for (id, op) in f.body_ops() {
        let OpKind::AllReduce { groups } = &op.kind else {
            continue;
        };
        let [result] = op.results.as_slice() else {
            continue;
        };
        let Some(Some(slices)) = readers.get(result) else {
            continue;
        };
        let dims: Vec<usize> = slices
            .iter()
            .filter_map(|&s| match &f.op(s).kind {
                OpKind::ShardSlice { dim, groups: g } if g == groups => Some(*dim),
                _ => None,
            })
            .collect();
        let ty = f.ty(*result);
        let n = groups.group_size();
        let whole = |d: usize| n > 1 && ty.shape.get(d).is_some_and(|&size| size % n == 0);
        if let Some(&dim) = dims.first()
            && dims.len() == slices.len()
            && dims.iter().all(|&d| d == dim)
            && whole(dim)
        {
            turned.insert(id, (dim, slices[0], groups));
        }
    }
    if turned.is_empty() {
        return Ok((m.clone(), 0));
    }
    let dropped: HashMap<OpId, ValueId> = turned
        .values()
        .flat_map(|&(_, first, _)| {
            let all_reduce = f.op(first).operands[0];
            readers[&all_reduce]
                .iter()
                .flatten()
                .map(move |&s| (s, all_reduce))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (id, op) in f.body_ops() {
        if let Some(&summed) = dropped.get(&id) {
            // Its block is the reduce-scatter's result.
            map.insert(op.results[0], map[&summed]);
            continue;
        }
        let Some(&(dim, slice, groups)) = turned.get(&id) else {
            b.copy_op(f, op, &mut map)?;
            continue;
        };
        let regions = op
            .regions
            .iter()
            .map(|&r| b.copy_region(f, r, &mut map))
            .collect::<Result<Vec<_>, _>>()?;
        let kind = OpKind::ReduceScatter {
            dim,
            groups: groups.clone(),
        };
        let ty = f.ty(f.op(slice).results[0]).clone();
        let operands = [map[&op.operands[0]]];
        let new = b.push(kind, &operands, Some(&[ty]), regions)?;
        b.op_mut(new).attrs = op.attrs.clone();
        let result = b.func().op(new).results[0];
        map.insert(op.results[0], result);
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok((m.with_function(g), turned.len()))
}

/// Each value's reading ops anywhere in `f`; `None` when something else reads it (a
/// block returns it).
pub(crate) fn readers(f: &Function) -> HashMap<ValueId, Option<Vec<OpId>>> {
    let mut readers: HashMap<ValueId, Option<Vec<OpId>>> = HashMap::new();
    let mut blocks = vec![BlockId::from_index(0)];
    while let Some(block) = blocks.pop() {
        let block = f.block(block);
        for &id in &block.ops {
            let op = f.op(id);
            for &v in &op.operands {
                if let Some(ops) = readers.entry(v).or_insert_with(|| Some(Vec::new())) {
                    ops.push(id);
                }
            }
            blocks.extend(op.regions.iter().copied());
        }
        for &v in &block.results {
            readers.insert(v, None);
        }
    }
    readers
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    const FSDP_UPDATE: &str = r#"
module @m {
  func.func @main(%g: tensor<8x4xf32>, %p: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>) {
    %s = "stablehlo.all_reduce"(%g) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %k = "shardc.shard_slice"(%s) <{dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %u = stablehlo.subtract %p, %k : tensor<4x4xf32>
    return %u, %OTHER : tensor<4x4xf32>, tensor<8x4xf32>
  }
}
"#;

    use shardc_ir::testing::body_op_names as kinds;

    #[test]
    fn an_all_reduce_only_sliced_becomes_a_reduce_scatter() {
        let m = parse_module(&FSDP_UPDATE.replace("%OTHER", "%g")).unwrap();
        let (out, n) = scatter(&m).unwrap();
        assert_eq!(n, 1);
        assert_eq!(
            kinds(&out),
            ["stablehlo.reduce_scatter", "stablehlo.subtract"]
        );
        let f = out.entry().unwrap();
        let (_, rs) = f.body_ops().next().unwrap();
        assert_eq!(f.ty(rs.results[0]).shape, vec![4, 4]);
        assert!(matches!(rs.kind, OpKind::ReduceScatter { dim: 0, .. }));
        shardc_ir::verify::verify_module(&out).unwrap();
    }

    #[test]
    fn an_all_reduce_read_whole_stays() {
        // The function also returns the whole sum: every device needs all of it.
        let m = parse_module(&FSDP_UPDATE.replace("%OTHER", "%s")).unwrap();
        let (out, n) = scatter(&m).unwrap();
        assert_eq!(n, 0);
        assert_eq!(kinds(&out)[0], "stablehlo.all_reduce");
    }
}
