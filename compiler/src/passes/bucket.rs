//! Bucketing: fuses the all-reduces of a per-device program that share replica groups,
//! reducer and element type into buckets of at most a given size, as PyTorch's DDP buckets
//! gradients (25 MB by default there). A bucket flattens its members' operands into one
//! vector, all-reduces it once, and slices the members back out; it is placed where its
//! last member was, i.e. as soon as the last value it reduces exists. Fewer, larger
//! collectives pay the per-collective latency once.
//!
//! ```text
//! %a' = all_reduce(%a)        %f = concatenate(reshape %a, reshape %b)
//! %b' = all_reduce(%b)   =>   %r = all_reduce(%f)
//!                             %a' = reshape(slice %r [0:|a|]); %b' = reshape(slice %r [|a|:])
//! ```
//!
//! Ops that read a member's result before the bucket is placed are scheduled after it
//! (with everything that depends on them); a value that depends on an earlier member of an
//! open bucket, of any key, closes that bucket (the fused all-reduce could not wait for it).

use crate::error::CompileError;
use crate::passes::partition::OF;
use serde::Serialize;
use shardc_ir::{
    DType, Function, FunctionBuilder, Module, Op, OpId, OpKind, ReplicaGroups, TensorType, ValueId,
};
use std::collections::HashMap;

/// One fused all-reduce: which values it reduces and its size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// The reduced values, as the per-device program named them before bucketing.
    pub members: Vec<String>,
    /// Bytes of the fused buffer.
    pub bytes: usize,
}

/// What makes all-reduces fusable: the same groups, reducer op and element type — and,
/// when scalars are kept apart, both scalars or both not.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    groups: ReplicaGroups,
    reducer: String,
    dtype: DType,
    scalar: bool,
}

fn key(f: &Function, op: &Op, scalars_apart: bool) -> Option<Key> {
    let OpKind::AllReduce { groups } = &op.kind else {
        return None;
    };
    let body = f.block(*op.regions.first()?);
    let [only] = body.ops.as_slice() else {
        return None;
    };
    Some(Key {
        groups: groups.clone(),
        reducer: f.op(*only).kind.name(),
        dtype: f.ty(op.operands[0]).dtype,
        scalar: scalars_apart && f.ty(op.operands[0]).shape.is_empty(),
    })
}

/// The most values one bucket fuses. Its flattening (one `concatenate` of every member)
/// is a kernel whose preparation grows faster than its operand count: on the cpu
/// backend's JIT, the 193 gradients of `transformer_stack_16` in one bucket took 40.8 s to
/// prepare, 0.7 s unbucketed (43 members of `hf_bert_adamw_step`: 0.55 s more than
/// unbucketed).
pub const MAX_MEMBERS: usize = 32;

/// Fuses all-reduces into buckets of at most `bucket_bytes` bytes and [`MAX_MEMBERS`]
/// values (a larger single
/// all-reduce stays alone). With `scalars_apart`, scalars (a loss, a norm) bucket only
/// with scalars, so that a compressed gradient bucket (`route.rs`) does not carry them.
/// Returns the new module and the buckets formed.
pub fn bucket(
    m: &Module,
    bucket_bytes: usize,
    scalars_apart: bool,
) -> Result<(Module, Vec<Bucket>), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), Vec::new()));
    };
    let names = f.value_names();
    let ops: Vec<(OpId, &Op)> = f.body_ops().collect();
    let position: HashMap<OpId, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    let bytes_of = |id: OpId| f.ty(f.op(id).operands[0]).size_bytes();
    // Which all-reduce results each value depends on (transitively), to keep a member from
    // joining a bucket it depends on.
    let mut depends: HashMap<ValueId, std::collections::HashSet<OpId>> = HashMap::new();
    for (id, op) in &ops {
        let mut d: std::collections::HashSet<OpId> = op
            .operands
            .iter()
            .flat_map(|v| depends.get(v).cloned().unwrap_or_default())
            .collect();
        if key(f, op, scalars_apart).is_some() {
            d.insert(*id);
        }
        for &r in &op.results {
            depends.insert(r, d.clone());
        }
    }
    // Greedy buckets in program order, one open bucket per key.
    let mut open: HashMap<Key, Vec<OpId>> = HashMap::new();
    let mut closed: Vec<Vec<OpId>> = Vec::new();
    for (id, op) in &ops {
        let Some(k) = key(f, op, scalars_apart) else {
            continue;
        };
        // A value that depends on a member of an open bucket, of its own key or another's,
        // closes that bucket: placed at its last member, after this one, the bucket would
        // wait for a value that waits for it.
        if let Some(d) = depends.get(&op.operands[0]) {
            for members in open.values_mut() {
                if members.iter().any(|m| d.contains(m)) {
                    closed.push(std::mem::take(members));
                }
            }
        }
        let members = open.entry(k).or_default();
        let size: usize = members.iter().map(|&m| bytes_of(m)).sum();
        let full = size + bytes_of(*id) > bucket_bytes || members.len() >= MAX_MEMBERS;
        if !members.is_empty() && full {
            closed.push(std::mem::take(members));
        }
        members.push(*id);
    }
    closed.extend(open.into_values());
    let mut buckets: Vec<Vec<OpId>> = closed.into_iter().filter(|b| b.len() > 1).collect();
    buckets.sort_by_key(|b| b.iter().map(|o| position[o]).min());
    if buckets.is_empty() {
        return Ok((m.clone(), Vec::new()));
    }
    let mut last_of: HashMap<OpId, usize> = HashMap::new();
    let mut member_of: HashMap<OpId, usize> = HashMap::new();
    for (i, b) in buckets.iter().enumerate() {
        for &o in b {
            member_of.insert(o, i);
        }
        last_of.insert(
            *b.iter()
                .max_by_key(|o| position[o])
                .expect("buckets are non-empty"),
            i,
        );
    }
    // Rebuild: members vanish until their bucket is placed at its last member; ops reading a
    // value not yet available wait (in order) and run as soon as it is.
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    let mut waiting: Vec<OpId> = Vec::new();
    for (id, op) in &ops {
        if let Some(&i) = last_of.get(id) {
            fuse(f, &buckets[i], &mut b, &mut map)?;
            flush(f, &mut waiting, &mut b, &mut map)?;
        } else if member_of.contains_key(id) {
            continue;
        } else if op.operands.iter().all(|v| map.contains_key(v)) && waiting.is_empty() {
            b.copy_op(f, op, &mut map)?;
        } else {
            waiting.push(*id);
            flush(f, &mut waiting, &mut b, &mut map)?;
        }
    }
    flush(f, &mut waiting, &mut b, &mut map)?;
    if !waiting.is_empty() {
        return Err(CompileError::internal(
            "bucketing",
            "all-reduces that depend on each other were bucketed (run without Options::bucket_bytes meanwhile)",
        ));
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    let report = buckets
        .iter()
        .map(|bk| Bucket {
            members: bk
                .iter()
                .map(|&o| names[f.op(o).operands[0].index()].clone())
                .collect(),
            bytes: bk.iter().map(|&o| bytes_of(o)).sum(),
        })
        .collect();
    Ok((m.with_function(g), report))
}

/// Emits the waiting ops whose operands are now available, in order, until none is.
fn flush(
    f: &Function,
    waiting: &mut Vec<OpId>,
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
) -> Result<(), CompileError> {
    loop {
        let Some(i) = waiting
            .iter()
            .position(|&o| f.op(o).operands.iter().all(|v| map.contains_key(v)))
        else {
            return Ok(());
        };
        // Keep program order among ops that are ready: emit the first ready one.
        let o = waiting.remove(i);
        b.copy_op(f, f.op(o), map)?;
    }
}

/// Emits one fused all-reduce for `members` and maps their results.
fn fuse(
    f: &Function,
    members: &[OpId],
    b: &mut FunctionBuilder,
    map: &mut HashMap<ValueId, ValueId>,
) -> Result<(), CompileError> {
    let first = f.op(members[0]);
    let dtype = f.ty(first.operands[0]).dtype;
    let mut flat = Vec::with_capacity(members.len());
    for &m in members {
        let x = map[&f.op(m).operands[0]];
        let n = b.ty(x).num_elements();
        flat.push(b.push1_typed(OpKind::Reshape, &[x], TensorType::new(dtype, [n]))?);
    }
    let joined = b.push1(OpKind::Concatenate { dimension: 0 }, &flat)?;
    let total = b.ty(joined).clone();
    // The members share their reducer: copy the first one's region.
    let mut inner = HashMap::new();
    let region = b.copy_region(f, first.regions[0], &mut inner)?;
    let id = b.push(first.kind.clone(), &[joined], Some(&[total]), vec![region])?;
    // The fused all-reduce reshards every member's value.
    let of: Vec<String> = members.iter().flat_map(|&m| f.op(m).of()).collect();
    if !of.is_empty() {
        b.op_mut(id)
            .attrs
            .push((OF.to_string(), format!("\"{}\"", of.join(", "))));
    }
    let reduced = b.func().op(id).results[0];
    let mut offset = 0;
    for (&m, piece) in members.iter().zip(&flat) {
        let n = b.ty(*piece).num_elements();
        let slice = OpKind::Slice {
            start: vec![offset],
            limit: vec![offset + n],
            strides: vec![1],
        };
        let part = b.push1(slice, &[reduced])?;
        let out = f.op(m).results[0];
        let back = b.push1_typed(OpKind::Reshape, &[part], f.ty(out).clone())?;
        map.insert(out, back);
        offset += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::{BinaryOp, TensorType};

    /// 40 independent all-reduces of 16 B: two buckets, of [`MAX_MEMBERS`] and 8, though
    /// all would fit one bucket's bytes.
    #[test]
    fn buckets_hold_at_most_max_members() {
        let t = TensorType::new(DType::F32, [4]);
        let mut b = FunctionBuilder::new("main", &vec![t.clone(); 40]);
        let groups = ReplicaGroups(vec![(0..4).collect()]);
        let mut outs = Vec::new();
        for i in 0..40 {
            let s = TensorType::scalar(DType::F32);
            let acc = b.begin_block(&[s.clone(), s]);
            let sum = b.binary(BinaryOp::Add, acc[0], acc[1]).unwrap();
            let reducer = b.end_block(&[sum]);
            let kind = OpKind::AllReduce {
                groups: groups.clone(),
            };
            let id = b
                .push(
                    kind,
                    &[b.arg(i)],
                    Some(std::slice::from_ref(&t)),
                    vec![reducer],
                )
                .unwrap();
            outs.push(b.func().op(id).results[0]);
        }
        let m = Module {
            functions: vec![b.finish(&outs)],
            ..Default::default()
        };
        let (_, buckets) = bucket(&m, 25 << 20, false).unwrap();
        let sizes: Vec<usize> = buckets.iter().map(|b| b.members.len()).collect();
        assert_eq!(sizes, vec![MAX_MEMBERS, 40 - MAX_MEMBERS]);
    }

    /// Sums `a1`, `a2` and maxima `b1`, `b2` (two keys), where `a2` reads `b1`: the maxima's
    /// bucket closes at `b1`, since placed at `b2` it would come after the sums' bucket
    /// that waits for it (Flax BART's training step under tensor parallelism made this,
    /// and bucketing panicked on the value it could not find).
    #[test]
    fn a_member_reading_another_keys_open_bucket_closes_it() {
        let t = TensorType::new(DType::F32, [4]);
        let mut b = FunctionBuilder::new("main", &vec![t.clone(); 3]);
        let groups = ReplicaGroups(vec![(0..4).collect()]);
        let all_reduce = |b: &mut FunctionBuilder, x: ValueId, op: BinaryOp| {
            let reducer = b.binary_reducer(DType::F32, op).unwrap();
            let kind = OpKind::AllReduce {
                groups: groups.clone(),
            };
            let id = b
                .push(kind, &[x], Some(std::slice::from_ref(&t)), vec![reducer])
                .unwrap();
            b.func().op(id).results[0]
        };
        let (x, y, z) = (b.arg(0), b.arg(1), b.arg(2));
        let a1 = all_reduce(&mut b, x, BinaryOp::Add);
        let b1 = all_reduce(&mut b, y, BinaryOp::Maximum);
        let scaled = b.binary(BinaryOp::Multiply, b1, x).unwrap();
        let a2 = all_reduce(&mut b, scaled, BinaryOp::Add);
        let b2 = all_reduce(&mut b, z, BinaryOp::Maximum);
        let m = Module {
            functions: vec![b.finish(&[a1, a2, b2])],
            ..Default::default()
        };
        let (out, buckets) = bucket(&m, 25 << 20, false).unwrap();
        let members: Vec<Vec<String>> = buckets.iter().map(|b| b.members.clone()).collect();
        assert_eq!(members, vec![vec!["%arg0", "%4"]], "{members:?}");
        shardc_ir::verify::verify_module(&out).unwrap();
    }
}
