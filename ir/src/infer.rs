//! Result types of ops, and the typing rule of each op.
//!
//! [`result_types`] checks an op's operand types and attributes against StableHLO's rules
//! and returns its result types. Ops whose result type cannot be derived from their
//! operands (iota, reshape, broadcast_in_dim, convert, random, call) take it as declared.

use crate::dtype::{DType, TensorType};
use crate::op::{
    BinaryOp, ConvDims, FftType, OpKind, ReplicaGroups, RngAlgorithm, ScatterDims, UnaryOp,
    WindowDims,
};

/// A broken typing rule and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: String,
    /// How to fix it.
    pub fix: String,
}

fn fail<T>(rule: impl Into<String>, fix: impl Into<String>) -> Result<T, Violation> {
    Err(Violation {
        rule: rule.into(),
        fix: fix.into(),
    })
}

/// A dynamic slice's start indices: one integer scalar per dimension, all of one type,
/// signed or unsigned (the spec allows any integer type; `jax.scipy.linalg.expm` slices
/// with `ui32` starts).
fn starts(ops: &[TensorType], rank: usize) -> Result<(), Violation> {
    if ops.len() != rank {
        return fail(
            format!(
                "takes one start index per operand dimension ({rank}), but was given {}",
                ops.len()
            ),
            "pass one scalar start index per dimension",
        );
    }
    if let Some((i, t)) = ops
        .iter()
        .enumerate()
        .find(|(_, t)| t.rank() != 0 || !t.dtype.is_int() || t.dtype != ops[0].dtype)
    {
        return fail(
            format!("start index {i} is {t}; the start indices are integer scalars of one type"),
            "pass integer scalar start indices of one type (tensor<i32>, tensor<i64>, tensor<ui32>, ...)",
        );
    }
    Ok(())
}

/// The result of `reduce_window` over `x`: per dimension, the padded, dilated size
/// `(n - 1) * base_dilation + 1 + low + high`, less the dilated window
/// `(w - 1) * window_dilation + 1`, in steps of the stride, plus one.
pub fn window_type(w: &WindowDims, x: &TensorType) -> Result<TensorType, Violation> {
    let r = x.rank();
    for (what, len) in [
        ("window_dimensions", w.window.len()),
        ("window_strides", w.strides.len()),
        ("base_dilations", w.base_dilations.len()),
        ("window_dilations", w.window_dilations.len()),
        ("padding", w.padding.len()),
    ] {
        if len != r {
            return fail(
                format!("{what} has {len} entries for an operand of rank {r}"),
                "give one entry per operand dimension",
            );
        }
    }
    let mut shape = Vec::with_capacity(r);
    for d in 0..r {
        let (win, stride, bd, wd) = (
            w.window[d],
            w.strides[d],
            w.base_dilations[d],
            w.window_dilations[d],
        );
        if win == 0 || stride == 0 || bd == 0 || wd == 0 {
            return fail(
                format!(
                    "dimension {d} has a window of {win}, stride {stride}, base dilation {bd}, window dilation {wd}; each must be at least 1"
                ),
                "give positive window sizes, strides and dilations",
            );
        }
        let n = x.shape[d] as i64;
        let (lo, hi) = w.padding[d];
        let padded = if n == 0 { 0 } else { (n - 1) * bd as i64 + 1 } + lo + hi;
        let span = (win as i64 - 1) * wd as i64 + 1;
        if padded < 0 {
            return fail(
                format!("dimension {d} ({n}) padded by ({lo}, {hi}) has negative size"),
                "pad by less",
            );
        }
        shape.push(if padded < span {
            0
        } else {
            ((padded - span) / stride as i64 + 1) as usize
        });
    }
    Ok(TensorType::new(x.dtype, shape))
}

/// `t` is a batch of f32 or f64 matrices (its last two dimensions): the batch shape and
/// the matrices' smaller order (`min(m, n)`).
fn float_matrices(t: &TensorType) -> Result<(Vec<usize>, usize), Violation> {
    let r = t.rank();
    if !matches!(t.dtype, DType::F32 | DType::F64) || r < 2 {
        return fail(
            format!(
                "factors f32 or f64 matrices (the last two dimensions), but the operand is {t}"
            ),
            "convert to f32 or f64; give at least two dimensions",
        );
    }
    Ok((
        t.shape[..r - 2].to_vec(),
        t.shape[r - 2].min(t.shape[r - 1]),
    ))
}

/// `t` is a batch of square f32 or f64 matrices (its last two dimensions).
fn square_float_matrices(t: &TensorType, what: &str) -> Result<(), Violation> {
    let r = t.rank();
    if !matches!(t.dtype, DType::F32 | DType::F64) || r < 2 || t.shape[r - 1] != t.shape[r - 2] {
        return fail(
            format!(
                "{what} is {t}, not a batch of square f32 or f64 matrices (the last two dimensions)"
            ),
            "give square matrices in the last two dimensions, in f32 or f64 (convert half-precision values around it)",
        );
    }
    Ok(())
}

fn expect_operands(ops: &[TensorType], n: usize) -> Result<(), Violation> {
    if ops.len() != n {
        return fail(
            format!("takes {n} operand(s) but was given {}", ops.len()),
            format!("pass exactly {n}"),
        );
    }
    Ok(())
}

fn same_type(a: &TensorType, b: &TensorType, what: &str) -> Result<(), Violation> {
    if a != b {
        return fail(
            format!("{what} must have the same type, but got {a} and {b}"),
            "broadcast or convert the operands to one type first",
        );
    }
    Ok(())
}

fn check_perm(p: &[usize], rank: usize, what: &str) -> Result<(), Violation> {
    let mut seen = vec![false; rank];
    for &d in p {
        if d >= rank || std::mem::replace(&mut seen[d], true) {
            return fail(
                format!("{what} {p:?} is not a list of distinct dimensions below rank {rank}"),
                format!("list each dimension of 0..{rank} at most once"),
            );
        }
    }
    Ok(())
}

/// `bitcast_convert`'s shape rule: equal widths keep the shape; a wider result drops the
/// operand's last dimension, which must be the width ratio; a narrower one appends it.
fn bitcast_shape(x: &TensorType, t: &TensorType) -> Result<(), Violation> {
    let (from, to) = (x.dtype.bit_width(), t.dtype.bit_width());
    if x.dtype.is_bool() || t.dtype.is_bool() {
        return fail(
            format!(
                "bitcast_convert reads bits, and {} has no bit width of its own",
                DType::I1
            ),
            "convert i1 values with stablehlo.convert instead",
        );
    }
    let mut want = x.shape.clone();
    if to > from {
        let ratio = to / from;
        if want.last() != Some(&ratio) {
            return fail(
                format!(
                    "bitcast_convert from {from} to {to} bits reads {ratio} elements per result element, so the operand's last dimension must be {ratio}, but the operand is {x}"
                ),
                format!("give the operand a last dimension of {ratio}"),
            );
        }
        want.pop();
    } else if to < from {
        want.push(from / to);
    }
    if want != t.shape {
        return fail(
            format!(
                "bitcast_convert of {x} to {} gives shape {want:?}, but the result is declared {t}",
                t.dtype
            ),
            "declare the result shape the bit widths give",
        );
    }
    Ok(())
}

/// `convolution`'s output shape (StableHLO's formula), or the rule its dimension numbers,
/// window or group counts break.
pub fn conv_shape(d: &ConvDims, x: &TensorType, k: &TensorType) -> Result<Vec<usize>, Violation> {
    let n = d.input_spatial.len();
    let r = n + 2;
    if x.rank() != r || k.rank() != r {
        return fail(
            format!(
                "the dimension numbers name {n} spatial dimension(s), so input and kernel have rank {r}, but they are {x} and {k}"
            ),
            "list every dimension in dim_numbers",
        );
    }
    let distinct = |dims: Vec<usize>| {
        let mut seen = vec![false; r];
        dims.iter()
            .all(|&v| v < r && !std::mem::replace(&mut seen[v], true))
    };
    let mut input = vec![d.input_batch, d.input_feature];
    input.extend(&d.input_spatial);
    let mut kernel = vec![d.kernel_input_feature, d.kernel_output_feature];
    kernel.extend(&d.kernel_spatial);
    let mut output = vec![d.output_batch, d.output_feature];
    output.extend(&d.output_spatial);
    if !distinct(input)
        || !distinct(kernel)
        || !distinct(output)
        || d.kernel_spatial.len() != n
        || d.output_spatial.len() != n
    {
        return fail(
            "the dimension numbers do not name each dimension of the input, kernel and output once",
            "name each dimension once in dim_numbers",
        );
    }
    for (what, len) in [
        ("window_strides", d.window_strides.len()),
        ("padding", d.padding.len()),
        ("lhs_dilation", d.lhs_dilation.len()),
        ("rhs_dilation", d.rhs_dilation.len()),
        ("window_reversal", d.window_reversal.len()),
    ] {
        if len != n {
            return fail(
                format!("{what} has {len} entries for {n} spatial dimension(s)"),
                "give one entry per spatial dimension",
            );
        }
    }
    let (g, bg) = (d.feature_group_count, d.batch_group_count);
    let (batch, features) = (x.shape[d.input_batch], x.shape[d.input_feature]);
    let (kin, kout) = (
        k.shape[d.kernel_input_feature],
        k.shape[d.kernel_output_feature],
    );
    if g == 0 || bg == 0 || (g > 1 && bg > 1) {
        return fail(
            format!(
                "feature_group_count {g} and batch_group_count {bg}: each must be at least 1, and one of them 1"
            ),
            "group by features or by batch, not both",
        );
    }
    if !features.is_multiple_of(g) || features / g != kin || !kout.is_multiple_of(g) {
        return fail(
            format!(
                "{features} input features in {g} group(s) need a kernel input feature dimension of {} and output features divisible by {g}, but the kernel has {kin} and {kout}",
                features / g.max(1)
            ),
            "match the kernel's feature dimensions to the input's and the groups",
        );
    }
    if !batch.is_multiple_of(bg) || !kout.is_multiple_of(bg) {
        return fail(
            format!(
                "batch {batch} and output features {kout} must be divisible by batch_group_count {bg}"
            ),
            "give a batch group count dividing both",
        );
    }
    let mut shape = vec![0; r];
    shape[d.output_batch] = batch / bg;
    shape[d.output_feature] = kout;
    for s in 0..n {
        let (stride, ld, rd) = (d.window_strides[s], d.lhs_dilation[s], d.rhs_dilation[s]);
        if stride == 0 || ld == 0 || rd == 0 {
            return fail(
                format!(
                    "spatial dimension {s} has stride {stride}, dilations {ld} and {rd}; each must be at least 1"
                ),
                "give positive strides and dilations",
            );
        }
        let size = x.shape[d.input_spatial[s]] as i64;
        let (lo, hi) = d.padding[s];
        let padded = if size == 0 {
            0
        } else {
            (size - 1) * ld as i64 + 1
        } + lo
            + hi;
        let kw = k.shape[d.kernel_spatial[s]] as i64;
        let span = if kw == 0 { 0 } else { (kw - 1) * rd as i64 + 1 };
        shape[d.output_spatial[s]] = if padded < span || padded < 0 {
            0
        } else {
            ((padded - span) / stride as i64 + 1) as usize
        };
    }
    Ok(shape)
}

/// `scatter`'s typing rule (StableHLO's constraints): `N` inputs of one shape, integer
/// indices, `N` updates of one shape whose dimensions are the indices' batch dimensions and
/// the window's, no window larger than the operand; the results are the inputs' types.
fn scatter_types(d: &ScatterDims, ops: &[TensorType]) -> Result<Vec<TensorType>, Violation> {
    if ops.len() < 3 || ops.len().is_multiple_of(2) {
        return fail(
            format!(
                "takes N inputs, the scatter indices and N updates, but was given {} operand(s)",
                ops.len()
            ),
            "pass (inputs..., indices, updates...)",
        );
    }
    let n = (ops.len() - 1) / 2;
    let (inputs, indices, updates) = (&ops[..n], &ops[n], &ops[n + 1..]);
    let x = &inputs[0];
    let u = &updates[0];
    if inputs.iter().any(|t| t.shape != x.shape) || updates.iter().any(|t| t.shape != u.shape) {
        return fail(
            "its inputs (or its updates) differ in shape",
            "scatter inputs of one shape, with updates of one shape",
        );
    }
    if let Some(k) = (0..n).find(|&k| inputs[k].dtype != updates[k].dtype) {
        return fail(
            format!(
                "update {k} is {} but input {k} is {}",
                updates[k], inputs[k]
            ),
            "give each update its input's element type",
        );
    }
    if !indices.dtype.is_int() {
        return fail(
            format!("scatter indices must be integers, but are {indices}"),
            "convert the indices to i32 or i64",
        );
    }
    let ivd = d.index_vector_dim;
    if ivd > indices.rank() {
        return fail(
            format!(
                "index_vector_dim {ivd} is beyond the indices' rank {}",
                indices.rank()
            ),
            "give index_vector_dim at most the indices' rank",
        );
    }
    let index_len = indices.shape.get(ivd).copied().unwrap_or(1);
    if d.scatter_dims_to_operand_dims.len() != index_len {
        return fail(
            format!(
                "scatter_dims_to_operand_dims has {} entries, but an index vector has {index_len} components",
                d.scatter_dims_to_operand_dims.len()
            ),
            "map each index component to one operand dimension",
        );
    }
    let operand_dims = |v: &[usize]| v.iter().all(|&k| k < x.rank());
    if !operand_dims(&d.inserted_window_dims)
        || !operand_dims(&d.input_batching_dims)
        || !operand_dims(&d.scatter_dims_to_operand_dims)
    {
        return fail(
            format!(
                "a dimension number names an operand dimension beyond its rank {}",
                x.rank()
            ),
            "name operand dimensions below its rank",
        );
    }
    if d.update_window_dims.iter().any(|&k| k >= u.rank())
        || d.update_window_dims.windows(2).any(|w| w[0] >= w[1])
    {
        return fail(
            format!(
                "update_window_dims {:?} must be increasing dimensions of the updates (rank {})",
                d.update_window_dims,
                u.rank()
            ),
            "list the updates' window dimensions in increasing order",
        );
    }
    if d.input_batching_dims.len() != d.scatter_indices_batching_dims.len() {
        return fail(
            "input_batching_dims and scatter_indices_batching_dims differ in length",
            "pair each input batching dimension with one of the indices",
        );
    }
    // The operand dimensions the window spans, in order.
    let window_operand_dims: Vec<usize> = (0..x.rank())
        .filter(|k| !d.inserted_window_dims.contains(k) && !d.input_batching_dims.contains(k))
        .collect();
    if window_operand_dims.len() != d.update_window_dims.len() {
        return fail(
            format!(
                "the operand has {} window dimension(s) (rank {} less the inserted and batching ones), but update_window_dims lists {}",
                window_operand_dims.len(),
                x.rank(),
                d.update_window_dims.len()
            ),
            "give one update window dimension per operand dimension the window spans",
        );
    }
    for (&od, &ud) in window_operand_dims.iter().zip(&d.update_window_dims) {
        if u.shape[ud] > x.shape[od] {
            return fail(
                format!(
                    "update window dimension {ud} has size {}, larger than operand dimension {od} ({})",
                    u.shape[ud], x.shape[od]
                ),
                "give windows that fit in the operand",
            );
        }
    }
    let batch: Vec<usize> = (0..indices.rank())
        .filter(|&k| k != ivd)
        .map(|k| indices.shape[k])
        .collect();
    let update_batch: Vec<usize> = (0..u.rank())
        .filter(|k| !d.update_window_dims.contains(k))
        .map(|k| u.shape[k])
        .collect();
    if batch != update_batch {
        return fail(
            format!(
                "the updates' scatter dimensions are {update_batch:?}, but the indices' batch dimensions are {batch:?}"
            ),
            "give one update window per index vector",
        );
    }
    Ok(inputs.to_vec())
}

fn show_types(ts: &[TensorType]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn unary_dtype_ok(u: UnaryOp, d: DType) -> bool {
    use UnaryOp::*;
    match u {
        Not => d.is_int() || d.is_bool(),
        Popcnt | CountLeadingZeros => d.is_int(),
        Negate | Abs | Sign => d.is_float() || d.is_int(),
        _ => d.is_float(),
    }
}

fn binary_dtype_ok(b: BinaryOp, d: DType) -> bool {
    use BinaryOp::*;
    match b {
        And | Or | Xor => d.is_int() || d.is_bool(),
        ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => d.is_int(),
        Atan2 => d.is_float(),
        // StableHLO defines these on i1 too (add and maximum are OR, multiply and minimum AND).
        Add | Multiply | Maximum | Minimum => true,
        _ => d.is_float() || d.is_int(),
    }
}

/// The result types of an op, or the rule its operands break.
///
/// `declared` is the result types the caller states (the text format always states them).
/// It is required for ops whose result type is not derivable, and otherwise checked
/// against the derived type.
pub fn result_types(
    kind: &OpKind,
    operands: &[TensorType],
    declared: Option<&[TensorType]>,
) -> Result<Vec<TensorType>, Violation> {
    let derived = derive(kind, operands, declared)?;
    if let Some(decl) = declared
        && decl != derived.as_slice()
    {
        let show = |ts: &[TensorType]| {
            ts.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return fail(
            format!(
                "result type is declared as ({}) but the operands give ({})",
                show(decl),
                show(&derived)
            ),
            "fix the declared result type",
        );
    }
    Ok(derived)
}

fn declared_one<'a>(
    declared: Option<&'a [TensorType]>,
    what: &str,
) -> Result<&'a TensorType, Violation> {
    match declared {
        Some([t]) => Ok(t),
        Some(ts) => fail(
            format!("has one result but {} were declared", ts.len()),
            "declare exactly one result type",
        ),
        None => fail(
            format!("cannot derive the result type of {what}"),
            "state the result type",
        ),
    }
}

fn group_size(groups: &ReplicaGroups) -> Result<usize, Violation> {
    groups.validate().map_err(|rule| Violation {
        rule,
        fix: "give every device exactly once, in groups of one size".into(),
    })?;
    Ok(groups.group_size())
}

fn kind_name(kind: &OpKind) -> &'static str {
    match kind {
        OpKind::AllGather { .. } => "all_gather",
        OpKind::ReduceScatter { .. } => "reduce_scatter",
        _ => "shard_slice",
    }
}

fn derive(
    kind: &OpKind,
    ops: &[TensorType],
    declared: Option<&[TensorType]>,
) -> Result<Vec<TensorType>, Violation> {
    let one = |t: TensorType| Ok(vec![t]);
    match kind {
        OpKind::Unary(u) => {
            expect_operands(ops, 1)?;
            if !unary_dtype_ok(*u, ops[0].dtype) {
                return fail(
                    format!("is not defined on element type {}", ops[0].dtype),
                    "convert the operand to a supported element type first",
                );
            }
            if *u == UnaryOp::IsFinite {
                return one(ops[0].with_dtype(DType::I1));
            }
            one(ops[0].clone())
        }
        OpKind::Binary(b) => {
            expect_operands(ops, 2)?;
            same_type(&ops[0], &ops[1], "both operands")?;
            if !binary_dtype_ok(*b, ops[0].dtype) {
                return fail(
                    format!("is not defined on element type {}", ops[0].dtype),
                    "convert the operands to a supported element type first",
                );
            }
            one(ops[0].clone())
        }
        OpKind::Compare { .. } => {
            expect_operands(ops, 2)?;
            same_type(&ops[0], &ops[1], "both operands")?;
            one(ops[0].with_dtype(DType::I1))
        }
        OpKind::Select => {
            expect_operands(ops, 3)?;
            same_type(&ops[1], &ops[2], "on_true and on_false")?;
            let pred = &ops[0];
            if pred.dtype != DType::I1 || (pred.rank() != 0 && pred.shape != ops[1].shape) {
                return fail(
                    format!(
                        "predicate must be i1 of shape {:?} or a scalar, but is {pred}",
                        ops[1].shape
                    ),
                    "compare first to get an i1 predicate of the operands' shape",
                );
            }
            one(ops[1].clone())
        }
        OpKind::Clamp => {
            expect_operands(ops, 3)?;
            for (b, what) in [(&ops[0], "min"), (&ops[2], "max")] {
                if b.dtype != ops[1].dtype || (b.rank() != 0 && b.shape != ops[1].shape) {
                    return fail(
                        format!(
                            "{what} must be {} or a scalar of its element type, but is {b}",
                            ops[1]
                        ),
                        "broadcast or convert the bound",
                    );
                }
            }
            one(ops[1].clone())
        }
        OpKind::Constant(lit) => {
            expect_operands(ops, 0)?;
            one(lit.ty.clone())
        }
        OpKind::Iota { dimension } => {
            expect_operands(ops, 0)?;
            let t = declared_one(declared, "iota")?;
            if *dimension >= t.rank() {
                return fail(
                    format!(
                        "iota dimension {dimension} is out of range for rank {}",
                        t.rank()
                    ),
                    "pick a dimension of the result",
                );
            }
            if t.dtype.is_bool() {
                return fail("iota cannot produce i1", "produce an integer or float iota");
            }
            one(t.clone())
        }
        OpKind::Convert => {
            expect_operands(ops, 1)?;
            let t = declared_one(declared, "convert")?;
            if t.shape != ops[0].shape {
                return fail(
                    format!("convert keeps the shape, but {} becomes {t}", ops[0]),
                    "declare a result with the operand's shape",
                );
            }
            one(t.clone())
        }
        OpKind::BitcastConvert => {
            expect_operands(ops, 1)?;
            let t = declared_one(declared, "bitcast_convert")?;
            bitcast_shape(&ops[0], t)?;
            one(t.clone())
        }
        OpKind::BroadcastInDim { dims } => {
            expect_operands(ops, 1)?;
            let t = declared_one(declared, "broadcast_in_dim")?;
            let x = &ops[0];
            if t.dtype != x.dtype {
                return fail(
                    format!("broadcast keeps the element type, but {x} becomes {t}"),
                    "convert separately",
                );
            }
            if dims.len() != x.rank() {
                return fail(
                    format!(
                        "dims has {} entries but the operand has rank {}",
                        dims.len(),
                        x.rank()
                    ),
                    "map each operand dimension to one result dimension",
                );
            }
            check_perm(dims, t.rank(), "dims")?;
            for (i, &d) in dims.iter().enumerate() {
                if x.shape[i] != 1 && x.shape[i] != t.shape[d] {
                    return fail(
                        format!(
                            "operand dimension {i} (size {}) maps to result dimension {d} (size {}); it must be 1 or equal",
                            x.shape[i], t.shape[d]
                        ),
                        "reshape the operand or fix dims",
                    );
                }
            }
            one(t.clone())
        }
        OpKind::Reshape => {
            expect_operands(ops, 1)?;
            let t = declared_one(declared, "reshape")?;
            if t.dtype != ops[0].dtype || t.num_elements() != ops[0].num_elements() {
                return fail(
                    format!(
                        "cannot reshape {} ({} elements) to {t} ({} elements)",
                        ops[0],
                        ops[0].num_elements(),
                        t.num_elements()
                    ),
                    "keep the element type and the number of elements",
                );
            }
            one(t.clone())
        }
        OpKind::Transpose { permutation } => {
            expect_operands(ops, 1)?;
            let x = &ops[0];
            if permutation.len() != x.rank() {
                return fail(
                    format!(
                        "permutation has {} entries but the operand has rank {}",
                        permutation.len(),
                        x.rank()
                    ),
                    "give a permutation of all dimensions",
                );
            }
            check_perm(permutation, x.rank(), "permutation")?;
            one(TensorType::new(
                x.dtype,
                permutation.iter().map(|&p| x.shape[p]).collect::<Vec<_>>(),
            ))
        }
        OpKind::Slice {
            start,
            limit,
            strides,
        } => {
            expect_operands(ops, 1)?;
            let x = &ops[0];
            if start.len() != x.rank() || limit.len() != x.rank() || strides.len() != x.rank() {
                return fail(
                    format!(
                        "start, limit and strides need {} entries each (the operand's rank)",
                        x.rank()
                    ),
                    "give one entry per dimension",
                );
            }
            let mut shape = Vec::with_capacity(x.rank());
            for d in 0..x.rank() {
                if start[d] > limit[d] || limit[d] > x.shape[d] || strides[d] == 0 {
                    return fail(
                        format!(
                            "dimension {d}: slice [{}:{}:{}] does not fit size {}",
                            start[d], limit[d], strides[d], x.shape[d]
                        ),
                        "need 0 <= start <= limit <= size and stride >= 1",
                    );
                }
                shape.push((limit[d] - start[d]).div_ceil(strides[d]));
            }
            one(TensorType::new(x.dtype, shape))
        }
        OpKind::Concatenate { dimension } => {
            let Some(first) = ops.first() else {
                return fail(
                    "needs at least one operand",
                    "pass the tensors to concatenate",
                );
            };
            if *dimension >= first.rank() {
                return fail(
                    format!(
                        "dimension {dimension} is out of range for rank {}",
                        first.rank()
                    ),
                    "concatenate along an existing dimension",
                );
            }
            let mut shape = first.shape.clone();
            for (i, t) in ops.iter().enumerate().skip(1) {
                let same_elsewhere = t.rank() == first.rank()
                    && (0..t.rank()).all(|d| d == *dimension || t.shape[d] == first.shape[d]);
                if t.dtype != first.dtype || !same_elsewhere {
                    return fail(
                        format!(
                            "operand {i} ({t}) does not match operand 0 ({first}) outside dimension {dimension}"
                        ),
                        "make all operands agree except along the concatenated dimension",
                    );
                }
                shape[*dimension] += t.shape[*dimension];
            }
            one(TensorType::new(first.dtype, shape))
        }
        OpKind::Pad {
            low,
            high,
            interior,
        } => {
            expect_operands(ops, 2)?;
            let x = &ops[0];
            if ops[1] != TensorType::scalar(x.dtype) {
                return fail(
                    format!(
                        "padding value must be tensor<{}>, but is {}",
                        x.dtype, ops[1]
                    ),
                    "pass a scalar of the operand's element type",
                );
            }
            if low.len() != x.rank() || high.len() != x.rank() || interior.len() != x.rank() {
                return fail(
                    format!(
                        "low, high and interior need {} entries each (the operand's rank)",
                        x.rank()
                    ),
                    "give one entry per dimension",
                );
            }
            let mut shape = Vec::with_capacity(x.rank());
            for d in 0..x.rank() {
                let n = x.shape[d] as i64;
                let size = (n - 1)
                    .max(0)
                    .checked_mul(interior[d])
                    .and_then(|s| s.checked_add(low[d])?.checked_add(high[d])?.checked_add(n));
                let Some(size) = size else {
                    return fail(
                        format!(
                            "dimension {d}: padding {} + {} + {} interior overflows",
                            low[d], high[d], interior[d]
                        ),
                        "use paddings that give a reasonable size",
                    );
                };
                if interior[d] < 0 || size < 0 {
                    return fail(
                        format!(
                            "dimension {d}: interior padding {} or resulting size {size} is negative",
                            interior[d]
                        ),
                        "interior padding must be >= 0 and the padded size >= 0",
                    );
                }
                shape.push(size as usize);
            }
            one(TensorType::new(x.dtype, shape))
        }
        OpKind::DotGeneral(d) => {
            expect_operands(ops, 2)?;
            let (l, r) = (&ops[0], &ops[1]);
            if l.dtype != r.dtype {
                return fail(
                    format!("operands have element types {} and {}", l.dtype, r.dtype),
                    "convert one of them",
                );
            }
            if d.lhs_batch.len() != d.rhs_batch.len()
                || d.lhs_contracting.len() != d.rhs_contracting.len()
            {
                return fail(
                    "lhs and rhs must list as many batching dims as each other, and as many contracting dims",
                    "pair each lhs dimension with one rhs dimension",
                );
            }
            let lhs_dims: Vec<usize> = d
                .lhs_batch
                .iter()
                .chain(&d.lhs_contracting)
                .copied()
                .collect();
            let rhs_dims: Vec<usize> = d
                .rhs_batch
                .iter()
                .chain(&d.rhs_contracting)
                .copied()
                .collect();
            check_perm(&lhs_dims, l.rank(), "lhs batching+contracting dims")?;
            check_perm(&rhs_dims, r.rank(), "rhs batching+contracting dims")?;
            for (&a, &b) in lhs_dims.iter().zip(&rhs_dims) {
                if l.shape[a] != r.shape[b] {
                    return fail(
                        format!(
                            "lhs dimension {a} (size {}) is paired with rhs dimension {b} (size {})",
                            l.shape[a], r.shape[b]
                        ),
                        "paired batching/contracting dimensions must have equal sizes",
                    );
                }
            }
            let mut shape: Vec<usize> = d.lhs_batch.iter().map(|&a| l.shape[a]).collect();
            shape.extend(
                (0..l.rank())
                    .filter(|a| !lhs_dims.contains(a))
                    .map(|a| l.shape[a]),
            );
            shape.extend(
                (0..r.rank())
                    .filter(|b| !rhs_dims.contains(b))
                    .map(|b| r.shape[b]),
            );
            one(TensorType::new(l.dtype, shape))
        }
        OpKind::Reduce { dimensions } => {
            if ops.is_empty() || !ops.len().is_multiple_of(2) {
                return fail(
                    format!(
                        "takes N inputs and N init values, but was given {} operands",
                        ops.len()
                    ),
                    "pass each input with one scalar init value",
                );
            }
            let n = ops.len() / 2;
            let (inputs, inits) = ops.split_at(n);
            for (i, t) in inputs.iter().enumerate() {
                if t.shape != inputs[0].shape {
                    return fail(
                        format!(
                            "input {i} ({t}) and input 0 ({}) differ in shape",
                            inputs[0]
                        ),
                        "reduce inputs of one shape together",
                    );
                }
            }
            check_perm(dimensions, inputs[0].rank(), "dimensions")?;
            let mut out = Vec::with_capacity(n);
            for (t, init) in inputs.iter().zip(inits) {
                if *init != TensorType::scalar(t.dtype) {
                    return fail(
                        format!("init value {init} must be tensor<{}>", t.dtype),
                        "pass a scalar init of the input's element type",
                    );
                }
                let shape: Vec<usize> = (0..t.rank())
                    .filter(|d| !dimensions.contains(d))
                    .map(|d| t.shape[d])
                    .collect();
                out.push(TensorType::new(t.dtype, shape));
            }
            Ok(out)
        }
        OpKind::Gather(g) => {
            expect_operands(ops, 2)?;
            gather_type(g, &ops[0], &ops[1]).map(|t| vec![t])
        }
        OpKind::Scatter(d) => scatter_types(d, ops),
        OpKind::Reverse { dimensions } => {
            expect_operands(ops, 1)?;
            check_perm(dimensions, ops[0].rank(), "reversed dimensions")?;
            one(ops[0].clone())
        }
        OpKind::Convolution(d) => {
            expect_operands(ops, 2)?;
            let shape = conv_shape(d, &ops[0], &ops[1])?;
            let dtype = declared
                .and_then(|t| t.first())
                .map_or(ops[0].dtype, |t| t.dtype);
            if ops[0].dtype != ops[1].dtype || (dtype != ops[0].dtype && !dtype.is_float()) {
                return fail(
                    format!(
                        "convolves {} with {} into {dtype}",
                        ops[0].dtype, ops[1].dtype
                    ),
                    "give the input and kernel one element type (the result may be a wider float)",
                );
            }
            one(TensorType::new(dtype, shape))
        }
        OpKind::SelectAndScatter(w) => {
            expect_operands(ops, 3)?;
            let (x, source, init) = (&ops[0], &ops[1], &ops[2]);
            let windows = window_type(w, x)?;
            if windows.shape != source.shape || source.dtype != x.dtype {
                return fail(
                    format!("the operand {x} has windows {windows}, but the source is {source}"),
                    "give one source element per window, of the operand's element type",
                );
            }
            if *init != TensorType::scalar(x.dtype) {
                return fail(
                    format!("init value {init} must be tensor<{}>", x.dtype),
                    "pass a scalar init of the operand's element type",
                );
            }
            one(x.clone())
        }
        OpKind::Sort { dimension, .. } => {
            let Some(x) = ops.first() else {
                return fail("sorts no operands", "pass one tensor or more");
            };
            if let Some(t) = ops.iter().find(|t| t.shape != x.shape) {
                return fail(
                    format!("sorts operands of one shape together, but has {x} and {t}"),
                    "give every sorted operand the same shape",
                );
            }
            if *dimension >= x.rank().max(1) {
                return fail(
                    format!(
                        "sort dimension {dimension} is beyond the operands' rank {}",
                        x.rank()
                    ),
                    "sort along a dimension of the operands",
                );
            }
            Ok(ops.to_vec())
        }
        OpKind::DynamicSlice { sizes } => {
            let Some(x) = ops.first() else {
                return fail(
                    "takes an operand and its start indices, but was given none",
                    "pass the operand and one start index per dimension",
                );
            };
            starts(&ops[1..], x.rank())?;
            if sizes.len() != x.rank() {
                return fail(
                    format!(
                        "slice_sizes has {} entries for an operand of rank {}",
                        sizes.len(),
                        x.rank()
                    ),
                    "give one size per operand dimension",
                );
            }
            if let Some(d) = (0..x.rank()).find(|&d| sizes[d] > x.shape[d]) {
                return fail(
                    format!(
                        "slice size {} of dimension {d} exceeds the operand's {}",
                        sizes[d], x.shape[d]
                    ),
                    "take a slice no larger than the operand",
                );
            }
            one(TensorType::new(x.dtype, sizes.clone()))
        }
        OpKind::DynamicUpdateSlice => {
            let (Some(x), Some(u)) = (ops.first(), ops.get(1)) else {
                return fail(
                    "takes an operand, an update and the start indices",
                    "pass them in that order",
                );
            };
            starts(&ops[2..], x.rank())?;
            if u.dtype != x.dtype
                || u.rank() != x.rank()
                || (0..x.rank()).any(|d| u.shape[d] > x.shape[d])
            {
                return fail(
                    format!("the update {u} does not fit in the operand {x}"),
                    "give an update of the operand's element type and rank, no larger in any dimension",
                );
            }
            one(x.clone())
        }
        OpKind::ReduceWindow(w) => {
            if ops.len() != 2 {
                return fail(
                    format!(
                        "takes one input and its init value, but was given {} operands (variadic reduce_window is not supported)",
                        ops.len()
                    ),
                    "reduce one input per reduce_window",
                );
            }
            if ops[1] != TensorType::scalar(ops[0].dtype) {
                return fail(
                    format!("init value {} must be tensor<{}>", ops[1], ops[0].dtype),
                    "pass a scalar init of the input's element type",
                );
            }
            window_type(w, &ops[0]).map(|t| vec![t])
        }
        OpKind::Random { .. } => {
            expect_operands(ops, 1)?;
            if ops[0] != TensorType::scalar(DType::I64) {
                return fail(
                    format!("seed must be tensor<i64>, but is {}", ops[0]),
                    "pass a scalar i64 seed",
                );
            }
            let t = declared_one(declared, "random")?;
            if !t.dtype.is_float() {
                return fail(
                    format!("random produces floats, not {}", t.dtype),
                    "declare a float result",
                );
            }
            one(t.clone())
        }
        // The carried values' types (the regions are checked by the verifier); captured
        // operands follow them.
        OpKind::While => {
            let Some(ts) = declared else {
                return fail(
                    "cannot derive the results of a while without their types",
                    "state the carried values' types",
                );
            };
            if ops.len() < ts.len() || ops[..ts.len()] != *ts {
                return fail(
                    format!(
                        "a while's results are its carried values, but it carries ({}) and declares results ({})",
                        show_types(&ops[..ts.len().min(ops.len())]),
                        show_types(ts)
                    ),
                    "declare one result per carried value, of its type",
                );
            }
            Ok(ts.to_vec())
        }
        OpKind::Case => {
            let index_ok = ops
                .first()
                .is_some_and(|t| t.rank() == 0 && t.dtype == DType::I32);
            if !index_ok {
                return fail(
                    format!(
                        "a case's first operand is its branch index, a tensor<i32>, but it is {}",
                        ops.first().map_or("missing".to_string(), |t| t.to_string())
                    ),
                    "pass the branch index as a scalar i32 (convert a boolean predicate first)",
                );
            }
            match declared {
                Some(ts) => Ok(ts.to_vec()),
                None => fail(
                    "cannot derive the results of a case without their types",
                    "state them",
                ),
            }
        }
        OpKind::OptimizationBarrier => Ok(ops.to_vec()),
        OpKind::Cholesky { .. } => {
            expect_operands(ops, 1)?;
            square_float_matrices(&ops[0], "the operand")?;
            one(ops[0].clone())
        }
        OpKind::TriangularSolve { left_side, .. } => {
            expect_operands(ops, 2)?;
            let (a, b) = (&ops[0], &ops[1]);
            square_float_matrices(a, "a (operand 0)")?;
            let r = a.rank();
            let solved = if *left_side { r - 2 } else { r - 1 };
            if b.dtype != a.dtype
                || b.rank() != r
                || b.shape[..r - 2] != a.shape[..r - 2]
                || b.shape[solved] != a.shape[r - 1]
            {
                return fail(
                    format!(
                        "b (operand 1) is {b}, but a is {a}: b must have a's element type and batch dimensions, and its {} ({}) a's order {}",
                        if *left_side { "rows" } else { "columns" },
                        b.shape
                            .get(solved)
                            .map_or("none".to_string(), ToString::to_string),
                        a.shape[r - 1]
                    ),
                    "solve with a b of one row per row of a (left_side = true) or one column per column of a (left_side = false)",
                );
            }
            one(b.clone())
        }
        OpKind::Lu => {
            expect_operands(ops, 1)?;
            let a = &ops[0];
            let (batch, k) = float_matrices(a)?;
            let mut pivots = batch.clone();
            pivots.push(k);
            Ok(vec![
                a.clone(),
                TensorType::new(DType::I32, pivots),
                TensorType::new(DType::I32, batch),
            ])
        }
        OpKind::TridiagonalSolve => {
            expect_operands(ops, 4)?;
            let (d, b) = (&ops[1], &ops[3]);
            let r = d.rank();
            if !matches!(d.dtype, DType::F32 | DType::F64) || r == 0 {
                return fail(
                    format!(
                        "solves with f32 or f64 diagonals of at least one dimension, but d (operand 1) is {d}"
                    ),
                    "convert to f32 or f64",
                );
            }
            for (k, name) in [(0, "dl"), (2, "du")] {
                same_type(
                    &ops[k],
                    d,
                    &format!("{name} (operand {k}) and d (operand 1)"),
                )?;
            }
            if b.dtype != d.dtype || b.rank() != r + 1 || b.shape[..r] != d.shape[..] {
                return fail(
                    format!(
                        "b (operand 3) is {b}, but d is {d}: b must have d's element type, its batch dimensions, one row per diagonal element ({}) and a last dimension of right-hand sides",
                        d.shape[r - 1]
                    ),
                    "give b the shape [batch..., n, nrhs]",
                );
            }
            Ok(vec![
                d.clone(),
                d.clone(),
                d.clone(),
                b.clone(),
                TensorType::new(DType::I32, d.shape[..r - 1].to_vec()),
            ])
        }
        OpKind::Fft { fft_type, lengths } => {
            expect_operands(ops, 1)?;
            fft(&ops[0], *fft_type, lengths).map(|t| vec![t])
        }
        OpKind::Geqrf => {
            expect_operands(ops, 1)?;
            let a = &ops[0];
            let (mut taus, k) = float_matrices(a)?;
            taus.push(k);
            Ok(vec![a.clone(), TensorType::new(a.dtype, taus)])
        }
        OpKind::Eigh { .. } => {
            expect_operands(ops, 1)?;
            let a = &ops[0];
            square_float_matrices(a, "the matrix (operand 0)")?;
            let r = a.rank();
            Ok(vec![
                a.clone(),
                TensorType::new(a.dtype, a.shape[..r - 1].to_vec()),
            ])
        }
        OpKind::Svd { full_matrices } => {
            expect_operands(ops, 1)?;
            let a = &ops[0];
            let (batch, k) = float_matrices(a)?;
            let r = a.rank();
            let (m, n) = (a.shape[r - 2], a.shape[r - 1]);
            let (u, vt) = if *full_matrices {
                ([m, m], [n, n])
            } else {
                ([m, k], [k, n])
            };
            let with = |tail: &[usize]| {
                let mut s = batch.clone();
                s.extend_from_slice(tail);
                TensorType::new(a.dtype, s)
            };
            Ok(vec![with(&[k]), with(&u), with(&vt)])
        }
        OpKind::HouseholderProduct => {
            expect_operands(ops, 2)?;
            let (a, tau) = (&ops[0], &ops[1]);
            let r = a.rank();
            let fits = matches!(a.dtype, DType::F32 | DType::F64)
                && r >= 2
                && a.shape[r - 1] <= a.shape[r - 2]
                && tau.dtype == a.dtype
                && tau.rank() == r - 1
                && tau.shape[..r - 2] == a.shape[..r - 2]
                && tau.shape[r - 2] <= a.shape[r - 1];
            if !fits {
                return fail(
                    format!(
                        "takes geqrf's reflectors (an f32 or f64 m x n matrix with n <= m) and their k <= n scales of the same batch, but got {a} and {tau}"
                    ),
                    "pass both results of geqrf (on a matrix with at least as many rows as columns)",
                );
            }
            one(a.clone())
        }
        OpKind::RngBitGenerator { algorithm } => {
            expect_operands(ops, 1)?;
            let state = &ops[0];
            let lengths: &[usize] = match algorithm {
                RngAlgorithm::ThreeFry => &[2],
                RngAlgorithm::Default | RngAlgorithm::Philox => &[2, 3],
            };
            if state.dtype != DType::U64 || state.rank() != 1 || !lengths.contains(&state.shape[0])
            {
                return fail(
                    format!(
                        "the {} state is {state}, not tensor<{}xui64>",
                        algorithm.name(),
                        lengths
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("xui64> or tensor<")
                    ),
                    "pass the generator's ui64 state (a key, then the counter)",
                );
            }
            let Some([s, bits]) = declared
                .map(<[TensorType]>::to_vec)
                .and_then(|d| <[TensorType; 2]>::try_from(d).ok())
            else {
                return fail(
                    "rng_bit_generator gives the next state and the bits".to_string(),
                    "declare two results: (state type, bits type)",
                );
            };
            if s != *state {
                return fail(
                    format!("the next state is declared {s}, but the state is {state}"),
                    "declare the next state with the state's type",
                );
            }
            if !bits.dtype.is_int() {
                return fail(
                    format!("rng_bit_generator gives integer bits, not {}", bits.dtype),
                    "declare an integer (ui32, ui64, ...) bits type and convert the bits",
                );
            }
            Ok(vec![s, bits])
        }
        OpKind::PartitionId => {
            expect_operands(ops, 0)?;
            one(TensorType::scalar(DType::U32))
        }
        OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            ..
        } => {
            let Some(ts) = declared else {
                return fail(
                    "cannot derive the results of a manual computation without their types",
                    "state them",
                );
            };
            if in_shardings.len() != ops.len() || out_shardings.len() != ts.len() {
                return fail(
                    format!(
                        "has {} operand(s) and {} result(s) but {} in_shardings and {} out_shardings",
                        ops.len(),
                        ts.len(),
                        in_shardings.len(),
                        out_shardings.len()
                    ),
                    "give one in_sharding per operand and one out_sharding per result",
                );
            }
            Ok(ts.to_vec())
        }
        OpKind::Call { callee } => match declared {
            Some(ts) => Ok(ts.to_vec()),
            None => fail(
                format!("cannot derive the result types of a call to @{callee} here"),
                "state them",
            ),
        },
        OpKind::AllGather { dim, groups }
        | OpKind::ReduceScatter { dim, groups }
        | OpKind::ShardSlice { dim, groups } => {
            expect_operands(ops, 1)?;
            let g = group_size(groups)?;
            let t = declared_one(declared, kind_name(kind))?;
            let x = &ops[0];
            let (small, big) = if matches!(kind, OpKind::AllGather { .. }) {
                (x, t)
            } else {
                (t, x)
            };
            let fits = t.dtype == x.dtype
                && t.rank() == x.rank()
                && *dim < x.rank()
                && (0..x.rank()).all(|d| {
                    if d == *dim {
                        small.shape[d] * g == big.shape[d]
                    } else {
                        t.shape[d] == x.shape[d]
                    }
                });
            if !fits {
                return fail(
                    format!(
                        "{x} cannot become {t} along dimension {dim} over groups of {g} devices"
                    ),
                    format!(
                        "the dimension grows (all_gather) or shrinks (reduce_scatter, shard_slice) by a factor of {g}; the rest stays"
                    ),
                );
            }
            one(t.clone())
        }
        OpKind::AllReduce { groups } => {
            expect_operands(ops, 1)?;
            group_size(groups)?;
            one(ops[0].clone())
        }
        OpKind::AllToAll {
            split_dim,
            concat_dim,
            groups,
        } => {
            expect_operands(ops, 1)?;
            let g = group_size(groups)?;
            let t = declared_one(declared, "all_to_all")?;
            let x = &ops[0];
            let mut want = x.shape.clone();
            let fits = *split_dim < x.rank()
                && *concat_dim < x.rank()
                && x.shape[*split_dim].is_multiple_of(g)
                && {
                    want[*split_dim] /= g;
                    want[*concat_dim] *= g;
                    t.dtype == x.dtype && t.shape == want
                };
            if !fits {
                return fail(
                    format!(
                        "{x} cannot become {t} splitting dimension {split_dim} and concatenating dimension {concat_dim} over groups of {g} devices"
                    ),
                    format!(
                        "the split dimension must divide by {g}, and shrinks by it; the concatenated one grows by it"
                    ),
                );
            }
            one(t.clone())
        }
        OpKind::CollectivePermute { pairs } => {
            expect_operands(ops, 1)?;
            let mut sources = std::collections::HashSet::new();
            let mut targets = std::collections::HashSet::new();
            for &(s, t) in pairs {
                if !sources.insert(s) {
                    return fail(
                        format!("device {s} is the source of two pairs"),
                        "each device sends at most once",
                    );
                }
                if !targets.insert(t) {
                    return fail(
                        format!("device {t} is the target of two pairs"),
                        "each device receives at most once",
                    );
                }
            }
            one(ops[0].clone())
        }
        OpKind::AxisIndex { groups } => {
            expect_operands(ops, 0)?;
            group_size(groups)?;
            let t = declared_one(declared, "axis_index")?;
            if t.rank() != 0 || !t.dtype.is_int() {
                return fail(
                    format!("axis_index gives a scalar integer, not {t}"),
                    "declare tensor<i64>",
                );
            }
            one(t.clone())
        }
        OpKind::Rotate { dimension, .. } => {
            expect_operands(ops, 1)?;
            if *dimension >= ops[0].rank() {
                return fail(
                    format!(
                        "rotates dimension {dimension}, which is out of range for rank {}",
                        ops[0].rank()
                    ),
                    "rotate along an existing dimension",
                );
            }
            one(ops[0].clone())
        }
        OpKind::ShardingConstraint(s) => {
            expect_operands(ops, 1)?;
            if s.rank() != ops[0].rank() {
                return fail(
                    format!(
                        "sharding has {} dimension(s) but the value has rank {}",
                        s.rank(),
                        ops[0].rank()
                    ),
                    "give one {...} per dimension",
                );
            }
            one(ops[0].clone())
        }
    }
}

fn gather_type(
    g: &crate::op::GatherDims,
    operand: &TensorType,
    indices: &TensorType,
) -> Result<TensorType, Violation> {
    if !indices.dtype.is_int() {
        return fail(
            format!("start_indices must be integers, not {}", indices.dtype),
            "convert the indices to i32 or i64",
        );
    }
    if g.slice_sizes.len() != operand.rank() {
        return fail(
            format!(
                "slice_sizes has {} entries but the operand has rank {}",
                g.slice_sizes.len(),
                operand.rank()
            ),
            "give one slice size per operand dimension",
        );
    }
    for (d, (&s, &n)) in g.slice_sizes.iter().zip(&operand.shape).enumerate() {
        if s > n {
            return fail(
                format!("slice size {s} exceeds operand dimension {d} (size {n})"),
                "shrink the slice",
            );
        }
    }
    let collapsed: Vec<usize> = g
        .collapsed_slice_dims
        .iter()
        .chain(&g.operand_batching_dims)
        .copied()
        .collect();
    check_perm(
        &collapsed,
        operand.rank(),
        "collapsed_slice_dims+operand_batching_dims",
    )?;
    for &d in &collapsed {
        if g.slice_sizes[d] != 1 {
            return fail(
                format!(
                    "collapsed or batching dimension {d} has slice size {}",
                    g.slice_sizes[d]
                ),
                "use slice size 1 there",
            );
        }
    }
    check_perm(&g.start_index_map, operand.rank(), "start_index_map")?;
    if g.index_vector_dim > indices.rank() {
        return fail(
            format!(
                "index_vector_dim {} exceeds the indices' rank {}",
                g.index_vector_dim,
                indices.rank()
            ),
            "pick a dimension of start_indices, or its rank for scalar indices",
        );
    }
    let index_len = if g.index_vector_dim < indices.rank() {
        indices.shape[g.index_vector_dim]
    } else {
        1
    };
    if index_len != g.start_index_map.len() {
        return fail(
            format!(
                "each index has {index_len} component(s) but start_index_map lists {}",
                g.start_index_map.len()
            ),
            "map each index component to one operand dimension",
        );
    }
    if g.operand_batching_dims.len() != g.start_indices_batching_dims.len() {
        return fail(
            "operand_batching_dims and start_indices_batching_dims differ in length",
            "pair them one to one",
        );
    }
    check_perm(
        &g.start_indices_batching_dims,
        indices.rank(),
        "start_indices_batching_dims",
    )?;
    for (&o, &i) in g
        .operand_batching_dims
        .iter()
        .zip(&g.start_indices_batching_dims)
    {
        if i == g.index_vector_dim || operand.shape[o] != indices.shape[i] {
            return fail(
                format!(
                    "operand batching dimension {o} is paired with start_indices dimension {i}, which is the index vector dimension or differs in size"
                ),
                "pair each operand batching dimension with a start_indices batch dimension of the same size",
            );
        }
    }
    let batch: Vec<usize> = (0..indices.rank())
        .filter(|&d| d != g.index_vector_dim)
        .map(|d| indices.shape[d])
        .collect();
    let offsets: Vec<usize> = (0..operand.rank())
        .filter(|d| !collapsed.contains(d))
        .map(|d| g.slice_sizes[d])
        .collect();
    if g.offset_dims.len() != offsets.len() {
        return fail(
            format!(
                "offset_dims has {} entries but {} slice dimensions are not collapsed",
                g.offset_dims.len(),
                offsets.len()
            ),
            "list one result dimension per uncollapsed slice dimension",
        );
    }
    let rank = batch.len() + offsets.len();
    check_perm(&g.offset_dims, rank, "offset_dims")?;
    let (mut b, mut o) = (batch.iter(), offsets.iter());
    let shape: Vec<usize> = (0..rank)
        .map(|d| {
            if g.offset_dims.contains(&d) {
                *o.next().unwrap_or(&0)
            } else {
                *b.next().unwrap_or(&0)
            }
        })
        .collect();
    Ok(TensorType::new(operand.dtype, shape))
}

/// `shardc.fft`'s result: complex values are held as pairs in an innermost dimension of 2
/// (see [`OpKind::Fft`]).
fn fft(x: &TensorType, fft_type: FftType, lengths: &[usize]) -> Result<TensorType, Violation> {
    if !matches!(x.dtype, DType::F32 | DType::F64) {
        return fail(
            format!(
                "transforms f32 or f64 values (complex<f32> or complex<f64>), but the operand is {x}"
            ),
            "convert to f32 or f64 (complex<f32>, complex<f64>) first",
        );
    }
    let k = lengths.len();
    if !(1..=3).contains(&k) || lengths.contains(&0) {
        return fail(
            format!(
                "transforms 1 to 3 dimensions of non-zero length, but the lengths are {lengths:?}"
            ),
            "give fft_length 1 to 3 positive lengths",
        );
    }
    let complex_in = fft_type != FftType::Rfft;
    let batch = x.rank().checked_sub(k + usize::from(complex_in));
    let Some(batch) = batch.filter(|_| !complex_in || x.shape.last() == Some(&2)) else {
        let of = if complex_in {
            "complex values (an innermost dimension of 2: real, imaginary)"
        } else {
            "real values"
        };
        return fail(
            format!("transforms the last {k} dimension(s) of {of}, but the operand is {x}"),
            "give the operand the transformed dimensions last",
        );
    };
    let mut want = lengths.to_vec();
    let half = lengths[k - 1] / 2 + 1;
    if fft_type == FftType::Irfft {
        want[k - 1] = half;
    }
    if x.shape[batch..batch + k] != want[..] {
        return fail(
            format!(
                "{} of lengths {lengths:?} takes transformed dimensions {want:?}, but the operand is {x}",
                fft_type.name()
            ),
            "make fft_length match the operand's last dimensions (for IRFFT, the last is n/2 + 1 of the real length n)",
        );
    }
    let mut shape = x.shape[..batch].to_vec();
    shape.extend_from_slice(lengths);
    match fft_type {
        FftType::Fft | FftType::Ifft => shape.push(2),
        FftType::Rfft => {
            shape[batch + k - 1] = half;
            shape.push(2);
        }
        FftType::Irfft => {}
    }
    Ok(TensorType::new(x.dtype, shape))
}
