//! Regathering (FSDP's memory discipline): an all-gathered value read again long after
//! its first uses is gathered anew right before those later reads, so the gathered copy
//! dies after its first use and a device never holds every gathered parameter at once.
//! This trades memory for communication, as PyTorch's FSDP frees a layer's gathered
//! parameters after its forward and gathers them again for its backward.
//!
//! Each gather of an argument moves to right before the first of each cluster of reads
//! (reads at most `gap` ops apart), so it is also issued just in time for its first use:
//!
//! ```text
//! %g = all_gather(%p)            ...
//! ...                            %g = all_gather(%p); ... reads of %g ...
//! ... reads of %g ...      =>    (more than `gap` other ops)
//! (more than `gap` other ops)    %g2 = all_gather(%p); ... reads of %g2 ...
//! ... reads of %g ...
//! ```
//!
//! Only gathers whose operand is a function argument (a stored parameter) regather: any
//! other operand would have to stay alive for the later gather anyway.

use crate::error::CompileError;
use shardc_ir::{FunctionBuilder, Module, OpId, OpKind, ValueId};
use std::collections::HashMap;

/// Regathers all-gathers of arguments whose reads are more than `gap` ops apart. Returns the
/// new module and how many all-gathers were added (beyond one per original gather).
pub fn regather(m: &Module, gap: usize) -> Result<(Module, usize), CompileError> {
    let Some(f) = m.entry() else {
        return Ok((m.clone(), 0));
    };
    let args: std::collections::HashSet<ValueId> = f.args().iter().copied().collect();
    let ops: Vec<(OpId, &shardc_ir::Op)> = f.body_ops().collect();
    // Positions reading each value.
    let mut reads: HashMap<ValueId, Vec<usize>> = HashMap::new();
    for (i, (_, op)) in ops.iter().enumerate() {
        for &v in &op.operands {
            reads.entry(v).or_default().push(i);
        }
    }
    // For each gather of an argument: a fresh gather before each cluster of reads.
    let mut fresh_at: HashMap<usize, Vec<OpId>> = HashMap::new();
    let mut moved: std::collections::HashSet<OpId> = std::collections::HashSet::new();
    let mut added = 0;
    for (id, op) in &ops {
        if !matches!(op.kind, OpKind::AllGather { .. }) || !args.contains(&op.operands[0]) {
            continue;
        }
        let Some(rs) = reads.get(&op.results[0]) else {
            continue;
        };
        let mut last: Option<usize> = None;
        for &r in rs {
            if last.is_none_or(|l| r > l + gap) {
                fresh_at.entry(r).or_default().push(*id);
                added += usize::from(last.is_some());
            }
            last = Some(r);
        }
        moved.insert(*id);
    }
    if added == 0 {
        return Ok((m.clone(), 0));
    }
    let mut b = FunctionBuilder::new(&f.name, &f.arg_types());
    b.set_visibility(f.visibility);
    let mut map: HashMap<ValueId, ValueId> = f.args().iter().copied().zip(b.args()).collect();
    for (i, (id, op)) in ops.iter().enumerate() {
        for &g in fresh_at.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            let gather = f.op(g);
            let mut scratch = map.clone();
            let fresh = b.copy_op(f, gather, &mut scratch)?;
            map.insert(gather.results[0], fresh[0]);
        }
        if !moved.contains(id) {
            b.copy_op(f, op, &mut map)?;
        }
    }
    let results: Vec<ValueId> = f.results().iter().map(|r| map[r]).collect();
    let mut g = b.finish(&results);
    g.arg_attrs = f.arg_attrs.clone();
    g.result_attrs = f.result_attrs.clone();
    Ok((m.with_function(g), added))
}
