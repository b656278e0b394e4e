//! The emission table: every compute op of a segment function becomes `linalg`,
//! `tensor`, `arith` and `math` ops on tensors, written as MLIR text inside one
//! `func.func @kernel`.
//!
//! | op | becomes |
//! | --- | --- |
//! | unary, binary, compare, select, clamp, convert | `linalg.generic`, all loops parallel, the scalar op of `scalar.rs` as body (scalar operands through `()` maps) |
//! | constant | a scalar: `arith.constant` (folded into the loops that read it); a splat: `linalg.generic` yielding the value (fuses into consumers); otherwise `arith.constant dense<...>` (a global; on GPUs in each kernel's module) |
//! | iota | `linalg.generic` over `linalg.index` |
//! | broadcast_in_dim, transpose | `linalg.generic` with the operand read through a projected map |
//! | reshape | `tensor.collapse_shape` to 1-D, then `tensor.expand_shape` |
//! | slice | `tensor.extract_slice` |
//! | dynamic_slice, dynamic_update_slice | `tensor.extract_slice`, `tensor.insert_slice` at the starts clamped into range; an update in place (marked `shardc.in_place`, `native.rs`): the update materialized into a `memref.subview` of the output, which holds the operand |
//! | concatenate | `tensor.empty` + one `tensor.insert_slice` per operand |
//! | pad (edge, negative, interior) | `linalg.generic` over the result: index arithmetic, `tensor.extract` of the operand, `arith.select` of the padding value |
//! | dot_general | operands transposed to `[batch, m, k]` / `[batch, k, n]` and reshaped; CPU: `linalg.matmul` (a batch is an `scf.for` of matmuls); GPU: a tiled shared-memory kernel (`gpu_matmul.rs`); i1: a contraction `linalg.generic` (AND, OR) |
//! | reduce | `linalg.generic` with reduction loops; the reducer body (any elementwise ops and constants, one or many inputs) translated op by op |
//! | gather | `linalg.generic` over the result: start indices read with `tensor.extract`, clamped as the spec says, then the operand read with `tensor.extract` |
//! | sdy.sharding_constraint | the operand itself |
//! | shardc.random, func.call, per-device ops | an error naming the op and the fix |
//!
//! The kernel writes its results into memrefs the caller passes after the inputs
//! (`bufferization.materialize_in_destination`): after empty-tensor elimination the op
//! producing a result writes straight into the caller's buffer; a result that is an
//! input, a view, a constant or another result is copied there.

use super::scalar::{self, Body, Mode};
use super::{Flavour, KERNEL, LowerError, Lowered, Math, Matmul, gpu_matmul};
use shardc_ir::{
    BinaryOp, BlockId, DType, DotDims, Elements, Function, GatherDims, Literal, Op, OpKind,
    TensorType, ValueId, WindowDims,
};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

/// Iterator type of one loop of a `linalg.generic`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Iter {
    Parallel,
    Reduction,
}

/// An input of a `linalg.generic`: an SSA tensor and its indexing map's results.
pub(crate) struct In {
    pub(crate) ssa: String,
    pub(crate) ty: TensorType,
    pub(crate) map: Vec<String>,
}

/// An output of a `linalg.generic`: its initial value (`None`: `tensor.empty`).
pub(crate) struct Out {
    pub(crate) init: Option<String>,
    pub(crate) ty: TensorType,
    pub(crate) map: Vec<String>,
}

/// Builds the body of one kernel function.
pub(crate) struct Emitter<'f> {
    f: &'f Function,
    names: Vec<String>,
    pub(crate) flavour: Flavour,
    mode: Mode,
    /// Declarations of the libm functions the kernel calls.
    externs: BTreeSet<String>,
    pub(crate) lines: Vec<String>,
    pub(crate) next: usize,
    ssa: HashMap<ValueId, String>,
    pub(crate) matmuls: Vec<Matmul>,
    /// Each reshape's result, its operand and the operand's type: reshaping it back
    /// gives the operand itself.
    reshaped: HashMap<String, (String, TensorType)>,
    /// The results of [`Emitter::barrier`]s.
    barriers: HashSet<String>,
}

/// `d0, d1, ...` for `n` loops.
fn dims(n: usize) -> Vec<String> {
    (0..n).map(|d| format!("d{d}")).collect()
}

fn affine_map(n: usize, results: &[String]) -> String {
    format!(
        "affine_map<({}) -> ({})>",
        dims(n).join(", "),
        results.join(", ")
    )
}

/// The memref type of a tensor type (identity layout).
pub(crate) fn memref(ty: &TensorType) -> String {
    let mut s = String::from("memref<");
    for d in &ty.shape {
        write!(s, "{d}x").expect("writing to a String");
    }
    write!(s, "{}>", scalar::storage(ty.dtype)).expect("writing to a String");
    s
}

/// The tensor type of a tensor type as kernels store it (bf16 as i16).
pub(crate) fn tt(ty: &TensorType) -> String {
    let mut s = String::from("tensor<");
    for d in &ty.shape {
        write!(s, "{d}x").expect("writing to a String");
    }
    write!(s, "{}>", scalar::storage(ty.dtype)).expect("writing to a String");
    s
}

fn list<T: ToString>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
}

/// Emits the module of a segment function: `func.func @kernel` over tensors.
pub fn emit(f: &Function, flavour: Flavour, math: Math) -> Result<Lowered, LowerError> {
    let mut e = Emitter {
        f,
        names: f.value_names(),
        flavour,
        mode: Mode {
            approximate: flavour == Flavour::Gpu || math == Math::Approximate,
            libm: flavour == Flavour::Cpu,
            gpu: flavour == Flavour::Gpu,
        },
        externs: BTreeSet::new(),
        lines: Vec::new(),
        next: 0,
        ssa: HashMap::new(),
        matmuls: Vec::new(),
        reshaped: HashMap::new(),
        barriers: HashSet::new(),
    };
    // An update in place: the operand it writes into is not a parameter; the caller
    // passes its value as the one output, and the kernel writes the update there.
    let (updated, into) = match in_place_operand(f)? {
        Some((v, o)) => (Some(v), Some(o)),
        None => (None, None),
    };
    let mut params = Vec::new();
    for (i, &a) in f.args().iter().enumerate() {
        if Some(a) == updated {
            // Read by the update only, which writes into its output instead.
            e.ssa.insert(a, String::new());
            continue;
        }
        let name = format!("%arg{i}");
        params.push(format!(
            "{name}: {} {{bufferization.writable = false}}",
            tt(f.ty(a))
        ));
        e.ssa.insert(a, name);
    }
    for (_, op) in f.body_ops() {
        let results = emit_op(&mut e, op)?;
        for (&r, s) in op.results.iter().zip(results) {
            e.ssa.insert(r, s);
        }
    }
    // Results: written into the caller's buffers.
    for (i, &r) in f.results().iter().enumerate() {
        let ty = f.ty(r);
        params.push(format!("%out{i}: {}", memref(ty)));
        if into == Some(i) {
            continue;
        }
        let (mut value, mut dest, mut dest_ty) =
            (e.ssa[&r].clone(), format!("%out{i}"), ty.clone());
        if flavour == Flavour::Gpu && ty.rank() == 0 {
            // A copy on a GPU needs a loop: write a scalar as one element.
            let one = TensorType::new(ty.dtype, vec![1]);
            value = e.op(format!(
                "tensor.expand_shape {value} [] output_shape [1] : {} into {}",
                tt(ty),
                tt(&one)
            ));
            dest = e.op(format!(
                "memref.expand_shape {dest} [] output_shape [1] : {} into {}",
                memref(ty),
                memref(&one)
            ));
            dest_ty = one;
        }
        e.lines.push(format!(
            "bufferization.materialize_in_destination {value} in restrict writable {dest} : ({}, {}) -> ()",
            tt(&dest_ty),
            memref(&dest_ty)
        ));
    }
    let outputs = f.result_types();
    let mut func = String::new();
    writeln!(
        func,
        "  func.func @{KERNEL}({}) attributes {{llvm.emit_c_interface}} {{",
        params.join(", ")
    )
    .expect("writing to a String");
    for l in &e.lines {
        writeln!(func, "    {l}").expect("writing to a String");
    }
    writeln!(func, "    return\n  }}").expect("writing to a String");
    for d in &e.externs {
        writeln!(func, "  {d}").expect("writing to a String");
    }
    Ok(Lowered {
        text: format!("module {{\n{func}}}\n"),
        ops: func,
        inputs: (f.args().iter())
            .filter(|&&a| Some(a) != updated)
            .map(|&a| f.ty(a).clone())
            .collect(),
        outputs,
        matmuls: e.matmuls,
    })
}

/// The attribute that marks a `dynamic_update_slice` its kernel computes in place: the
/// caller passes operand 0's value as the kernel's one output, and the kernel writes the
/// update into it (`native.rs` marks the clusters where that is safe).
pub(crate) const IN_PLACE: &str = "shardc.in_place";

fn is_in_place(op: &Op) -> bool {
    op.kind == OpKind::DynamicUpdateSlice && op.attrs.iter().any(|(k, _)| k == IN_PLACE)
}

/// The argument an update in place writes into, and the result it is: operand 0 of the
/// `dynamic_update_slice` marked [`IN_PLACE`], which must be an argument read by that op
/// only, and its result, which the function must return once.
fn in_place_operand(f: &Function) -> Result<Option<(ValueId, usize)>, LowerError> {
    let Some((_, op)) = f.body_ops().find(|(_, op)| is_in_place(op)) else {
        return Ok(None);
    };
    let into = op.operands[0];
    let reads = f
        .body_ops()
        .flat_map(|(_, o)| o.operands.iter())
        .filter(|&&v| v == into)
        .count();
    let returned: Vec<usize> = (f.results().iter().enumerate())
        .filter(|&(_, r)| *r == op.results[0])
        .map(|(i, _)| i)
        .collect();
    if let ([at], true, 1) = (returned.as_slice(), f.args().contains(&into), reads) {
        return Ok(Some((into, *at)));
    }
    Err(LowerError::Unsupported {
        op: "stablehlo.dynamic_update_slice".into(),
        at: format!("a kernel function of {} arguments", f.args().len()),
        why: format!(
            "marked {IN_PLACE}, it must be the kernel's one result and update an \
                 argument no other op reads"
        ),
        fix: "mark only the clusters `native::in_place` selects (a shardc bug)".into(),
    })
}

/// The op table: one entry per op kind.
fn emit_op(e: &mut Emitter, op: &Op) -> Result<Vec<String>, LowerError> {
    let f = e.f;
    let out = |i: usize| f.ty(op.results[i]).clone();
    let xs: Vec<String> = op.operands.iter().map(|v| e.ssa[v].clone()).collect();
    let x = |i: usize| xs[i].clone();
    let ty = |i: usize| f.ty(op.operands[i]).clone();
    // A result without elements (JAX's associative scans slice `[2:2]`) is an empty
    // tensor whatever the op: MLIR refuses slices that start at a dimension's end.
    if !op.results.is_empty() && op.results.iter().all(|&r| f.ty(r).num_elements() == 0) {
        return Ok(op
            .results
            .iter()
            .map(|&r| e.op(format!("tensor.empty() : {}", tt(f.ty(r)))))
            .collect());
    }
    Ok(vec![match &op.kind {
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare { .. }
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert => elementwise(e, op)?,
        OpKind::BitcastConvert if ty(0).dtype.bit_width() == out(0).dtype.bit_width() => {
            elementwise(e, op)?
        }
        OpKind::BitcastConvert => {
            return Err(e.unsupported(
                op,
                "a bitcast_convert between element widths is not lowered to kernels",
                "bitcast between types of one width, or run the segment interpreted",
            ));
        }
        OpKind::Constant(lit) => constant(e, lit)?,
        OpKind::Iota { dimension } => iota(e, *dimension, &out(0))?,
        OpKind::BroadcastInDim { dims } => broadcast(e, &x(0), &ty(0), dims, &out(0))?,
        OpKind::Reshape => e.reshape(&x(0), &ty(0), &out(0)),
        OpKind::Transpose { permutation } => e.transpose(&x(0), &ty(0), permutation)?,
        OpKind::Slice { start, strides, .. } => {
            let s = e.fresh_name();
            e.lines.push(format!(
                "{s} = tensor.extract_slice {}[{}] [{}] [{}] : {} to {}",
                x(0),
                list(start),
                list(&out(0).shape),
                list(strides),
                tt(&ty(0)),
                tt(&out(0))
            ));
            s
        }
        OpKind::Concatenate { dimension } => concatenate(e, op, *dimension, &out(0)),
        OpKind::Pad { low, interior, .. } => pad(e, &x(0), &ty(0), &x(1), low, interior, &out(0))?,
        OpKind::DotGeneral(dims) => dot_general(e, &x(0), &ty(0), &x(1), &ty(1), dims, &out(0))?,
        OpKind::Reduce { dimensions } => return reduce(e, op, dimensions),
        OpKind::ReduceWindow(w) => return reduce_window(e, op, w),
        OpKind::DynamicSlice { sizes } => {
            let at = clamped_starts(e, &op.operands[1..], &ty(0).shape, sizes);
            let ones = list(&vec![1; sizes.len()]);
            e.op(format!(
                "tensor.extract_slice {}[{}] [{}] [{ones}] : {} to {}",
                x(0),
                at.join(", "),
                list(sizes),
                tt(&ty(0)),
                tt(&out(0))
            ))
        }
        OpKind::DynamicUpdateSlice if is_in_place(op) => {
            // Into the caller's buffer, which holds operand 0 (`in_place_operand`).
            let (full, sizes) = (ty(0), ty(1).shape.clone());
            let at = clamped_starts(e, &op.operands[2..], &full.shape, &sizes);
            let ones = list(&vec![1; sizes.len()]);
            let strides: Vec<usize> = (0..full.rank())
                .map(|d| full.shape[d + 1..].iter().product())
                .collect();
            let view = format!(
                "memref<{}x{}, strided<[{}], offset: ?>>",
                sizes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                scalar::storage(full.dtype),
                list(&strides)
            );
            let into = in_place_operand(e.f)?.map_or(0, |(_, o)| o);
            let sub = e.op(format!(
                "memref.subview %out{into}[{}] [{}] [{ones}] : {} to {view}",
                at.join(", "),
                list(&sizes),
                memref(&full)
            ));
            e.lines.push(format!(
                "bufferization.materialize_in_destination {} in restrict writable {sub} : ({}, {view}) -> ()",
                x(1),
                tt(&ty(1))
            ));
            String::new()
        }
        OpKind::DynamicUpdateSlice => {
            let sizes = ty(1).shape.clone();
            let at = clamped_starts(e, &op.operands[2..], &ty(0).shape, &sizes);
            let ones = list(&vec![1; sizes.len()]);
            e.op(format!(
                "tensor.insert_slice {} into {}[{}] [{}] [{ones}] : {} into {}",
                x(1),
                x(0),
                at.join(", "),
                list(&sizes),
                tt(&ty(1)),
                tt(&ty(0))
            ))
        }
        OpKind::Gather(dims) => gather(e, &x(0), &ty(0), &x(1), &ty(1), dims, &out(0))?,
        OpKind::Reverse { dimensions } => reverse(e, &x(0), &ty(0), dimensions)?,
        OpKind::ShardingConstraint(_) => x(0),
        // A roll: the operand's last `s` positions along the dimension, then the rest.
        OpKind::Rotate { dimension, shift } => {
            let (t, d, ones) = (ty(0), *dimension, list(&vec![1; ty(0).rank()]));
            let n = t.shape[d];
            let s = i64::try_from(n).map_or(0, |m| shift.rem_euclid(m.max(1)) as usize);
            let mut acc = e.op(format!("tensor.empty() : {}", tt(&t)));
            for (from, len, to) in [(n - s, s, 0), (0, n - s, s)] {
                if len == 0 {
                    continue;
                }
                let (mut at, mut shape) = (vec![0; t.rank()], t.shape.clone());
                (at[d], shape[d]) = (from, len);
                let piece = TensorType::new(t.dtype, shape.clone());
                let src = e.op(format!(
                    "tensor.extract_slice {}[{}] [{}] [{ones}] : {} to {}",
                    x(0),
                    list(&at),
                    list(&shape),
                    tt(&t),
                    tt(&piece)
                ));
                at[d] = to;
                acc = e.op(format!(
                    "tensor.insert_slice {src} into {acc}[{}] [{}] [{ones}] : {} into {}",
                    list(&at),
                    list(&shape),
                    tt(&piece),
                    tt(&t)
                ));
            }
            acc
        }
        // The values themselves (a barrier orders nothing inside one kernel).
        OpKind::OptimizationBarrier => return Ok(xs),
        OpKind::Random { .. }
        | OpKind::RngBitGenerator { .. }
        | OpKind::While
        | OpKind::Case
        | OpKind::Scatter(_)
        | OpKind::Sort { .. }
        | OpKind::Convolution(_)
        | OpKind::SelectAndScatter(_)
        | OpKind::Cholesky { .. }
        | OpKind::TriangularSolve { .. }
        | OpKind::Lu
        | OpKind::TridiagonalSolve
        | OpKind::Fft { .. }
        | OpKind::Geqrf
        | OpKind::HouseholderProduct
        | OpKind::Eigh { .. }
        | OpKind::Svd { .. } => {
            return Err(e.unsupported(
                op,
                "it is not lowered to kernels: the JIT runs it on the host, through the reference interpreter (shardc.random's Philox stream is defined there bit for bit; loops and branches run their regions there)",
                "let the JIT engine cut segments into clusters (it gives such ops clusters of their own), or run the segment with shardc_runtime::engine::Interpreted",
            ));
        }
        OpKind::ManualComputation { .. } => {
            return Err(e.unsupported(
                op,
                "a manual computation is not lowered to kernels: partitioning puts its body in the per-device program",
                "compile the program (shardc_compiler::compile) and run the partitioned program",
            ));
        }
        OpKind::Call { .. } => {
            return Err(e.unsupported(
                op,
                "func.call is not lowered to kernels",
                "inline calls first (shardc_compiler::passes::inline::inline)",
            ));
        }
        OpKind::AllGather { .. }
        | OpKind::AllReduce { .. }
        | OpKind::ReduceScatter { .. }
        | OpKind::AllToAll { .. }
        | OpKind::ShardSlice { .. }
        | OpKind::AxisIndex { .. }
        | OpKind::PartitionId
        | OpKind::CollectivePermute { .. } => {
            return Err(e.unsupported(
                op,
                "it is a per-device op, which the device runs between kernels",
                "cut the function into segments with shardc_runtime::engine::steps",
            ));
        }
    }])
}

impl Emitter<'_> {
    /// The SSA counter and the libm declarations, for a [`Body`] built outside
    /// [`Emitter::generic`].
    pub(crate) fn counters(&mut self) -> (&mut usize, &mut BTreeSet<String>) {
        (&mut self.next, &mut self.externs)
    }

    pub(crate) fn fresh_name(&mut self) -> String {
        let n = format!("%v{}", self.next);
        self.next += 1;
        n
    }

    /// `%new = rhs` at function level.
    pub(crate) fn op(&mut self, rhs: impl AsRef<str>) -> String {
        let n = self.fresh_name();
        self.lines.push(format!("{n} = {}", rhs.as_ref()));
        n
    }

    fn at(&self, op: &Op) -> String {
        match op.results.first() {
            Some(r) => format!("{} in @{}", self.names[r.index()], self.f.name),
            None => format!("an op of @{}", self.f.name),
        }
    }

    pub(crate) fn unsupported(&self, op: &Op, why: &str, fix: &str) -> LowerError {
        LowerError::Unsupported {
            op: op.kind.name(),
            at: self.at(op),
            why: why.to_string(),
            fix: fix.to_string(),
        }
    }

    fn undefined(&self, op: &Op, dtype: DType) -> LowerError {
        self.unsupported(
            op,
            &format!("{} is not defined on {dtype}", op.kind.name()),
            "convert the operands to a type the op is defined on",
        )
    }

    /// A `linalg.generic`; `body` gets the block arguments of the inputs and of the
    /// outputs and gives the values to yield. Returns the results.
    ///
    /// On the GPU flavour a loop nest with no parallel loop gets a unit parallel loop
    /// (a grid needs one dimension): rank-0 outputs become `tensor<1x..>` and are
    /// collapsed back.
    pub(crate) fn generic(
        &mut self,
        iters: &[Iter],
        ins: &[In],
        outs: &[Out],
        body: impl FnOnce(&mut Body, &[String], &[String]) -> Result<Vec<String>, LowerError>,
    ) -> Result<Vec<String>, LowerError> {
        let mut iters = iters.to_vec();
        let unit = self.flavour == Flavour::Gpu && !iters.contains(&Iter::Parallel);
        let mut out_types: Vec<TensorType> = Vec::new();
        let mut out_maps: Vec<Vec<String>> = Vec::new();
        let mut inits: Vec<String> = Vec::new();
        if unit {
            iters.push(Iter::Parallel);
        }
        let n = iters.len();
        for o in outs {
            let (ty, map) = if unit {
                (
                    TensorType::new(o.ty.dtype, vec![1]),
                    vec![format!("d{}", n - 1)],
                )
            } else {
                (o.ty.clone(), o.map.clone())
            };
            let init = match &o.init {
                None => self.op(format!("tensor.empty() : {}", tt(&ty))),
                Some(v) if unit => self.op(format!(
                    "tensor.expand_shape {v} [] output_shape [1] : {} into {}",
                    tt(&o.ty),
                    tt(&ty)
                )),
                Some(v) => v.clone(),
            };
            out_types.push(ty);
            out_maps.push(map);
            inits.push(init);
        }
        let mut maps: Vec<String> = ins.iter().map(|i| affine_map(n, &i.map)).collect();
        maps.extend(out_maps.iter().map(|m| affine_map(n, m)));
        let iterators = list(
            &iters
                .iter()
                .map(|i| match i {
                    Iter::Parallel => "\"parallel\"",
                    Iter::Reduction => "\"reduction\"",
                })
                .collect::<Vec<_>>(),
        );
        let mut b = Body::new(&mut self.next, &mut self.externs);
        let in_args: Vec<String> = ins.iter().map(|_| b.fresh()).collect();
        let out_args: Vec<String> = outs.iter().map(|_| b.fresh()).collect();
        let yields = body(&mut b, &in_args, &out_args)?;
        let body_lines = b.lines;
        let results = if outs.len() == 1 {
            vec![self.fresh_name()]
        } else {
            let r = self.fresh_name();
            (0..outs.len()).map(|i| format!("{r}#{i}")).collect()
        };
        let head = match outs.len() {
            1 => results[0].clone(),
            k => format!("{}:{k}", results[0].split('#').next().expect("a name")),
        };
        let mut text = format!(
            "{head} = linalg.generic {{indexing_maps = [{}], iterator_types = [{iterators}]}}",
            maps.join(", ")
        );
        if !ins.is_empty() {
            write!(
                text,
                " ins({} : {})",
                list(&ins.iter().map(|i| i.ssa.clone()).collect::<Vec<_>>()),
                list(&ins.iter().map(|i| tt(&i.ty)).collect::<Vec<_>>())
            )
            .expect("writing to a String");
        }
        write!(
            text,
            " outs({} : {}) {{",
            inits.join(", "),
            list(&out_types.iter().map(tt).collect::<Vec<_>>())
        )
        .expect("writing to a String");
        self.lines.push(text);
        let mut args: Vec<String> = ins
            .iter()
            .zip(&in_args)
            .map(|(i, a)| format!("{a}: {}", scalar::storage(i.ty.dtype)))
            .collect();
        args.extend(
            outs.iter()
                .zip(&out_args)
                .map(|(o, a)| format!("{a}: {}", scalar::storage(o.ty.dtype))),
        );
        self.lines.push(format!("^bb0({}):", args.join(", ")));
        for l in body_lines {
            self.lines.push(format!("  {l}"));
        }
        let yield_types: Vec<&str> = outs.iter().map(|o| scalar::storage(o.ty.dtype)).collect();
        self.lines.push(format!(
            "  linalg.yield {} : {}",
            yields.join(", "),
            yield_types.join(", ")
        ));
        let result_types = if outs.len() == 1 {
            tt(&out_types[0])
        } else {
            format!("({})", list(&out_types.iter().map(tt).collect::<Vec<_>>()))
        };
        self.lines.push(format!("}} -> {result_types}"));
        let mut finals = Vec::new();
        for (r, o) in results.into_iter().zip(outs) {
            let r = if unit {
                self.op(format!(
                    "tensor.collapse_shape {r} [] : {} into {}",
                    tt(&TensorType::new(o.ty.dtype, vec![1])),
                    tt(&o.ty)
                ))
            } else {
                r
            };
            finals.push(r);
        }
        Ok(finals)
    }

    /// An all-parallel generic over `out` whose body yields one value.
    fn map(
        &mut self,
        ins: &[In],
        out: &TensorType,
        body: impl FnOnce(&mut Body, &[String]) -> Result<String, LowerError>,
    ) -> Result<String, LowerError> {
        let iters = vec![Iter::Parallel; out.rank()];
        let outs = [Out {
            init: None,
            ty: out.clone(),
            map: dims(out.rank()),
        }];
        let r = self.generic(&iters, ins, &outs, |b, a, _| Ok(vec![body(b, a)?]))?;
        Ok(r.into_iter().next().expect("one output"))
    }

    /// The same elements in row-major order under another shape: collapse to 1-D, then
    /// expand (both views after bufferization).
    pub(crate) fn reshape(&mut self, x: &str, from: &TensorType, to: &TensorType) -> String {
        if from.shape == to.shape {
            return x.to_string();
        }
        if let Some((source, ty)) = self.reshaped.get(x)
            && ty.shape == to.shape
        {
            return source.clone();
        }
        let r = self.reshape_through_1d(x, from, to);
        self.reshaped
            .insert(r.clone(), (x.to_string(), from.clone()));
        r
    }

    fn reshape_through_1d(&mut self, x: &str, from: &TensorType, to: &TensorType) -> String {
        let n = from.num_elements();
        let flat = TensorType::new(from.dtype, vec![n]);
        let (from_rank, to_shape) = (from.rank(), to.shape.clone());
        let (from, flat, to) = (tt(from), tt(&flat), tt(to));
        let mid = match from_rank {
            1 => x.to_string(),
            0 => self.op(format!(
                "tensor.expand_shape {x} [] output_shape [1] : {from} into {flat}"
            )),
            r => self.op(format!(
                "tensor.collapse_shape {x} [[{}]] : {from} into {flat}",
                list(&(0..r).collect::<Vec<_>>())
            )),
        };
        match to_shape.len() {
            1 => mid,
            0 => self.op(format!("tensor.collapse_shape {mid} [] : {flat} into {to}")),
            r => self.op(format!(
                "tensor.expand_shape {mid} [[{}]] output_shape [{}] : {flat} into {to}",
                list(&(0..r).collect::<Vec<_>>()),
                list(&to_shape)
            )),
        }
    }

    /// `stablehlo.transpose`: result dimension `i` is operand dimension `perm[i]`.
    pub(crate) fn transpose(
        &mut self,
        x: &str,
        ty: &TensorType,
        perm: &[usize],
    ) -> Result<String, LowerError> {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(x.to_string());
        }
        let out = TensorType::new(
            ty.dtype,
            perm.iter().map(|&p| ty.shape[p]).collect::<Vec<_>>(),
        );
        // Operand dimension j is read at the loop of the result dimension holding it.
        let mut map = vec![String::new(); ty.rank()];
        for (i, &p) in perm.iter().enumerate() {
            map[p] = format!("d{i}");
        }
        let input = In {
            ssa: x.to_string(),
            ty: ty.clone(),
            map,
        };
        self.map(&[input], &out, |_, a| Ok(a[0].clone()))
    }
}

/// Unary, binary, compare, select, clamp and convert: one loop per result dimension;
/// operands of the result's shape read at the same position, scalars through `()`.
fn elementwise(e: &mut Emitter, op: &Op) -> Result<String, LowerError> {
    let out = e.f.ty(op.results[0]).clone();
    let ins: Vec<In> = op
        .operands
        .iter()
        .map(|&v| {
            let ty = e.f.ty(v).clone();
            let map = if ty.rank() == out.rank() {
                dims(out.rank())
            } else {
                Vec::new()
            };
            In {
                ssa: e.ssa[&v].clone(),
                ty,
                map,
            }
        })
        .collect();
    let dts: Vec<DType> = op.operands.iter().map(|&v| e.f.ty(v).dtype).collect();
    let undefined = e.undefined(op, dts[0]);
    let mode = e.mode;
    e.map(&ins, &out, |b, a| {
        scalar_op(b, mode, &op.kind, &dts, out.dtype, a).ok_or(undefined)
    })
}

/// The scalar function of an elementwise op kind on block arguments `a` of types `dts`.
fn scalar_op(
    b: &mut Body,
    mode: Mode,
    kind: &OpKind,
    dts: &[DType],
    out: DType,
    a: &[String],
) -> Option<String> {
    match kind {
        OpKind::Unary(u) => scalar::unary(b, mode, *u, dts[0], &a[0]),
        OpKind::Binary(o) => scalar::binary(b, mode, *o, dts[0], &a[0], &a[1]),
        OpKind::Compare {
            direction,
            compare_type,
        } => scalar::compare(b, *direction, *compare_type, dts[0], &a[0], &a[1]),
        OpKind::Select => Some(scalar::select(b, dts[1], &a[0], &a[1], &a[2])),
        OpKind::Clamp => scalar::clamp(b, mode, dts[1], &a[0], &a[1], &a[2]),
        OpKind::Convert => Some(scalar::convert(b, dts[0], out, &a[0])),
        OpKind::BitcastConvert => Some(scalar::bitcast(b, dts[0], out, &a[0])),
        _ => None,
    }
}

/// One element of a literal as an MLIR scalar literal (floats as bit patterns).
fn element_text(l: &Literal, i: usize) -> String {
    match &l.elements {
        Elements::I1(v) => v[i].to_string(),
        // Integers as their storage type's signless value: the bits, sign-extended.
        e if e.dtype().is_int() => {
            let shift = 64 - e.dtype().bit_width();
            (((e.bits(i) << shift) as i64) >> shift).to_string()
        }
        _ => scalar::float_hex(l.elements.get(i).as_f64(), l.ty.dtype),
    }
}

/// `arith.constant` of one scalar literal (`true`/`false` are typed already).
fn scalar_constant(b: &mut Body, v: &str, dt: DType) -> String {
    if dt == DType::I1 {
        b.op(format!("arith.constant {v}"))
    } else {
        b.op(format!("arith.constant {v} : {}", scalar::storage(dt)))
    }
}

fn constant(e: &mut Emitter, lit: &Literal) -> Result<String, LowerError> {
    let ty = lit.ty.clone();
    if ty.rank() == 0 {
        // A scalar: folded into the loop bodies that read it.
        return Ok(e.op(format!(
            "arith.constant dense<{}> : {}",
            element_text(lit, 0),
            tt(&ty)
        )));
    }
    if lit.elements.len() == 1 {
        // A splat: a generic yielding the value, which fuses into its consumers.
        let v = element_text(lit, 0);
        return e.map(&[], &ty, |b, _| Ok(scalar_constant(b, &v, ty.dtype)));
    }
    let data = match &lit.elements {
        Elements::I1(v) => {
            // i1 has no raw-hex form; nested lists by shape.
            fn nest(v: &[bool], shape: &[usize]) -> String {
                match shape.split_first() {
                    None => v[0].to_string(),
                    Some((&n, rest)) => {
                        let step = rest.iter().product::<usize>();
                        let parts: Vec<String> = (0..n)
                            .map(|i| nest(&v[i * step..(i + 1) * step], rest))
                            .collect();
                        format!("[{}]", parts.join(", "))
                    }
                }
            }
            nest(v, &ty.shape)
        }
        els => {
            let bytes = ty.dtype.size_bytes();
            let mut hex = String::with_capacity(2 + 2 * bytes * els.len());
            hex.push_str("\"0x");
            for i in 0..els.len() {
                for byte in els.bits(i).to_le_bytes().iter().take(bytes) {
                    write!(hex, "{byte:02X}").expect("writing to a String");
                }
            }
            hex.push('"');
            hex
        }
    };
    Ok(e.op(format!("arith.constant dense<{data}> : {}", tt(&ty))))
}

fn iota(e: &mut Emitter, dimension: usize, out: &TensorType) -> Result<String, LowerError> {
    let dt = out.dtype;
    e.map(&[], out, |b, _| {
        let i = b.op(format!("linalg.index {dimension} : index"));
        let i = b.op(format!("arith.index_cast {i} : index to i64"));
        Ok(scalar::convert(b, DType::I64, dt, &i))
    })
}

/// Operand dimension `i` is result dimension `dims[i]`; a size-1 operand dimension
/// that the result widens is read at 0.
fn broadcast(
    e: &mut Emitter,
    x: &str,
    ty: &TensorType,
    bdims: &[usize],
    out: &TensorType,
) -> Result<String, LowerError> {
    // The identity (same shape, dimensions in order) is its operand: a copy loop here
    // would hide from the emitter that a matmul reads a value already copied for another
    // (`Emitter::barrier`), and canonicalization folds it away only afterwards.
    if ty.shape == out.shape && bdims.iter().enumerate().all(|(i, &d)| i == d) {
        return Ok(x.to_string());
    }
    let map = bdims
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if ty.shape[i] == 1 && out.shape[d] != 1 {
                "0".to_string()
            } else {
                format!("d{d}")
            }
        })
        .collect();
    let input = In {
        ssa: x.to_string(),
        ty: ty.clone(),
        map,
    };
    e.map(&[input], out, |_, a| Ok(a[0].clone()))
}

fn concatenate(e: &mut Emitter, op: &Op, dimension: usize, out: &TensorType) -> String {
    let mut acc = e.op(format!("tensor.empty() : {}", tt(out)));
    let mut offset = 0;
    for &v in &op.operands {
        let ty = e.f.ty(v).clone();
        if ty.num_elements() == 0 {
            continue;
        }
        let mut offsets = vec![0; out.rank()];
        offsets[dimension] = offset;
        offset += ty.shape[dimension];
        let x = e.ssa[&v].clone();
        acc = e.op(format!(
            "tensor.insert_slice {x} into {acc}[{}] [{}] [{}] : {} into {}",
            list(&offsets),
            list(&ty.shape),
            list(&vec![1; out.rank()]),
            tt(&ty),
            tt(out)
        ));
    }
    acc
}

/// Result position `o` of dimension `d` holds operand element `(o - low) / (interior + 1)`
/// when that divides exactly and lies inside the operand, else the padding value.
#[allow(clippy::too_many_arguments)]
fn pad(
    e: &mut Emitter,
    x: &str,
    ty: &TensorType,
    value: &str,
    low: &[i64],
    interior: &[i64],
    out: &TensorType,
) -> Result<String, LowerError> {
    let pad_value = In {
        ssa: value.to_string(),
        ty: TensorType::scalar(ty.dtype),
        map: Vec::new(),
    };
    let empty = ty.num_elements() == 0;
    let (x, ty) = (x.to_string(), ty.clone());
    e.map(&[pad_value], out, |b, a| {
        if empty {
            return Ok(a[0].clone());
        }
        let zero = b.index(0);
        let mut inside: Option<String> = None;
        let mut index = Vec::new();
        for d in 0..ty.rank() {
            let o = b.op(format!("linalg.index {d} : index"));
            let l = b.index(low[d]);
            let t = b.op(format!("arith.subi {o}, {l} : index"));
            let step = b.index(interior[d] + 1);
            let q = b.op(format!("arith.divsi {t}, {step} : index"));
            let r = b.op(format!("arith.remsi {t}, {step} : index"));
            let n = b.index(ty.shape[d] as i64);
            let c1 = b.op(format!("arith.cmpi sge, {t}, {zero} : index"));
            let c2 = b.op(format!("arith.cmpi eq, {r}, {zero} : index"));
            let c3 = b.op(format!("arith.cmpi slt, {q}, {n} : index"));
            let c = b.op(format!("arith.andi {c1}, {c2} : i1"));
            let c = b.op(format!("arith.andi {c}, {c3} : i1"));
            inside = Some(match inside {
                None => c,
                Some(prev) => b.op(format!("arith.andi {prev}, {c} : i1")),
            });
            index.push(q);
        }
        let Some(inside) = inside else {
            // Rank 0: the operand itself.
            return Ok(b.op(format!("tensor.extract {x}[] : {}", tt(&ty))));
        };
        let zero = b.index(0);
        let safe: Vec<String> = index
            .iter()
            .map(|q| b.op(format!("arith.select {inside}, {q}, {zero} : index")))
            .collect();
        let v = b.op(format!(
            "tensor.extract {x}[{}] : {}",
            safe.join(", "),
            tt(&ty)
        ));
        Ok(scalar::select(b, ty.dtype, &inside, &v, &a[0]))
    })
}

/// An operand laid out as the given groups of its dimensions, each group flattened into
/// one dimension (an empty group becomes a unit dimension).
fn canonical(
    e: &mut Emitter,
    x: &str,
    ty: &TensorType,
    groups: &[&[usize]],
) -> Result<(String, TensorType), LowerError> {
    let order: Vec<usize> = groups.iter().flat_map(|g| g.iter().copied()).collect();
    let t = e.transpose(x, ty, &order)?;
    let t_ty = TensorType::new(
        ty.dtype,
        order.iter().map(|&d| ty.shape[d]).collect::<Vec<_>>(),
    );
    let shape: Vec<usize> = groups
        .iter()
        .map(|g| g.iter().map(|&d| ty.shape[d]).product())
        .collect();
    let c_ty = TensorType::new(ty.dtype, shape);
    let r = e.reshape(&t, &t_ty, &c_ty);
    // (A batch's matmuls read slices inside a loop: nothing to fold there.)
    if e.flavour == Flavour::Cpu && groups.len() == 2 && t_ty.shape != c_ty.shape {
        return Ok((e.barrier(&r, &c_ty), c_ty));
    }
    Ok((r, c_ty))
}

impl Emitter<'_> {
    /// `x` copied into a tensor of its own (`bufferization.materialize_in_destination`),
    /// which elementwise fusion does not see through. Beside a CPU `linalg.matmul`, a
    /// reshape would otherwise let `linalg-fuse-elementwise-ops` fold itself into the
    /// matmul by expanding its loops, turning it into a `linalg.generic` (untiled,
    /// unvectorized) into which producers then fuse, recomputed for every output
    /// column. After bufferization, a copy (a result: none, empty-tensor elimination
    /// writes the matmul into the destination).
    ///
    /// A barrier's result is not copied again (a matmul's result read by another matmul,
    /// the reshapes between them undone): two copies of one value would be written into
    /// one buffer once CSE merges their identical `tensor.empty`s, which bufferization
    /// refuses.
    pub(crate) fn barrier(&mut self, x: &str, ty: &TensorType) -> String {
        if self.barriers.contains(x) {
            return x.to_string();
        }
        let t = tt(ty);
        let empty = self.op(format!("tensor.empty() : {t}"));
        let r = self.op(format!(
            "bufferization.materialize_in_destination {x} in {empty} : ({t}, {t}) -> {t}"
        ));
        self.barriers.insert(r.clone());
        r
    }
}

#[allow(clippy::too_many_arguments)]
fn dot_general(
    e: &mut Emitter,
    lhs: &str,
    lty: &TensorType,
    rhs: &str,
    rty: &TensorType,
    d: &DotDims,
    out: &TensorType,
) -> Result<String, LowerError> {
    // CPU: a right operand laid out [n, k] (as in `dy w^T`) would be transposed into a
    // copy of all its elements. When that copy is larger than transposing the left
    // operand and the result, compute the product with the operands swapped (`w dy^T`,
    // whose right operand is the small one) and transpose its result back.
    if e.flavour == Flavour::Cpu && lty.dtype != DType::I1 && d.lhs_batch.is_empty() {
        let swapped = DotDims {
            lhs_batch: Vec::new(),
            rhs_batch: Vec::new(),
            lhs_contracting: d.rhs_contracting.clone(),
            rhs_contracting: d.lhs_contracting.clone(),
            precision: d.precision.iter().rev().cloned().collect(),
            algorithm: d.algorithm.as_ref().map(shardc_ir::DotAlgorithm::swapped),
        };
        let copied = copied_elements(lty, rty, d);
        if copied_elements(rty, lty, &swapped) + out.num_elements() < copied {
            let nl = lty.rank() - d.lhs_contracting.len();
            let nr = rty.rank() - d.rhs_contracting.len();
            let t_out = TensorType::new(
                out.dtype,
                out.shape[nl..]
                    .iter()
                    .chain(&out.shape[..nl])
                    .copied()
                    .collect::<Vec<_>>(),
            );
            let t = dot_general(e, rhs, rty, lhs, lty, &swapped, &t_out)?;
            let back: Vec<usize> = (nr..nr + nl).chain(0..nr).collect();
            return e.transpose(&t, &t_out, &back);
        }
    }
    let lf = d.lhs_free(lty.rank());
    let rf = d.rhs_free(rty.rank());
    let size = |ty: &TensorType, g: &[usize]| g.iter().map(|&i| ty.shape[i]).product::<usize>();
    let (b, m, k, n) = (
        size(lty, &d.lhs_batch),
        size(lty, &lf),
        size(lty, &d.lhs_contracting),
        size(rty, &rf),
    );
    let dt = lty.dtype;
    let acc = match dt {
        DType::BF16 | DType::F16 => DType::F32,
        other => other,
    };
    // A batch of one is no batch: its unit dimensions join the free dimensions.
    let (mut lgroups, rgroups): (Vec<Vec<usize>>, Vec<Vec<usize>>) = if b == 1 {
        let lm: Vec<usize> = d.lhs_batch.iter().chain(&lf).copied().collect();
        let rn: Vec<usize> = d.rhs_batch.iter().chain(&rf).copied().collect();
        (
            vec![lm, d.lhs_contracting.clone()],
            vec![d.rhs_contracting.clone(), rn],
        )
    } else {
        (
            vec![d.lhs_batch.clone(), lf.clone(), d.lhs_contracting.clone()],
            vec![d.rhs_batch.clone(), d.rhs_contracting.clone(), rf.clone()],
        )
    };
    let in_order = |groups: &[&Vec<usize>]| {
        groups
            .iter()
            .flat_map(|g| g.iter().copied())
            .eq(0..groups.iter().map(|g| g.len()).sum::<usize>())
    };
    // CPU: a left operand laid out as [k, m] (contracting dimensions first, as in a
    // weight gradient `x^T dy`) is read as it is by a matmul with a transposed map
    // rather than transposed into a copy (its elements are broadcast one by one in the
    // register tile, so their layout costs nothing there).
    let transpose_a = e.flavour == Flavour::Cpu
        && dt != DType::I1
        && b == 1
        && !in_order(&[&lgroups[0], &lgroups[1]])
        && in_order(&[&lgroups[1], &lgroups[0]]);
    if transpose_a {
        lgroups.swap(0, 1);
    }
    let lrefs: Vec<&[usize]> = lgroups.iter().map(Vec::as_slice).collect();
    let rrefs: Vec<&[usize]> = rgroups.iter().map(Vec::as_slice).collect();
    let (a, a_ty) = canonical(e, lhs, lty, &lrefs)?;
    let (bm, b_ty) = canonical(e, rhs, rty, &rrefs)?;
    // CPU: an operand the kernel reshaped (`x[i]` of a loop's stacked batch, reshaped to
    // its rows) is copied first, as `canonical`'s own reshapes are (see `barrier`).
    let (a, bm) = if e.flavour == Flavour::Cpu {
        let mut settle = |x: String, ty: &TensorType| {
            if e.reshaped.contains_key(&x) {
                e.barrier(&x, ty)
            } else {
                x
            }
        };
        (settle(a, &a_ty), settle(bm, &b_ty))
    } else {
        (a, bm)
    };
    let batched = b != 1;
    let c_shape: Vec<usize> = if batched { vec![b, m, n] } else { vec![m, n] };
    let c_ty = TensorType::new(dt, c_shape.clone());
    let product = if dt == DType::I1 {
        contraction_i1(e, &a, &a_ty, &bm, &b_ty, &c_ty)?
    } else if e.flavour == Flavour::Gpu {
        gpu_matmul::emit(e, &a, &a_ty, &bm, &b_ty, &c_ty, acc)
    } else {
        // bf16/f16 operands are widened to f32 first (exact), so the matmul is an f32
        // one (tiled and vectorized) and is rounded once at the end.
        let (a, a_ty, bm, b_ty) = if acc != dt {
            let widen = |e: &mut Emitter,
                         x: &str,
                         ty: &TensorType|
             -> Result<(String, TensorType), LowerError> {
                let wide = TensorType::new(acc, ty.shape.clone());
                let input = In {
                    ssa: x.to_string(),
                    ty: ty.clone(),
                    map: dims(ty.rank()),
                };
                let r = e.map(&[input], &wide, |b, a| Ok(scalar::widen(b, &a[0], dt)))?;
                Ok((r, wide))
            };
            let (a, a_ty) = widen(e, &a, &a_ty)?;
            let (bm, b_ty) = widen(e, &bm, &b_ty)?;
            (a, a_ty, bm, b_ty)
        } else {
            (a, a_ty, bm, b_ty)
        };
        let acc_ty = TensorType::new(acc, c_shape);
        let mut r = matmul_cpu(e, &a, &a_ty, &bm, &b_ty, &acc_ty, (m, n, k), transpose_a)?;
        // A reshape of the result would fold into the matmul (see `barrier`).
        if !batched && c_ty.shape != out.shape {
            r = e.barrier(&r, &acc_ty);
        }
        if acc != dt {
            let input = In {
                ssa: r,
                ty: acc_ty.clone(),
                map: dims(acc_ty.rank()),
            };
            e.map(&[input], &c_ty, |b, a| Ok(scalar::narrow(b, &a[0], dt)))?
        } else {
            r
        }
    };
    Ok(e.reshape(&product, &c_ty, out))
}

/// The elements the CPU lowering of an unbatched dot copies to bring its operands into
/// matmul order: the left operand unless it is `[m, k]` or `[k, m]` (read through a
/// transposed map), the right unless it is `[k, n]`.
fn copied_elements(lty: &TensorType, rty: &TensorType, d: &DotDims) -> usize {
    let free = |rank: usize, contracting: &[usize]| -> Vec<usize> {
        (0..rank).filter(|i| !contracting.contains(i)).collect()
    };
    let order = |a: &[usize], b: &[usize]| a.iter().chain(b).copied().eq(0..a.len() + b.len());
    let (lf, rf) = (
        free(lty.rank(), &d.lhs_contracting),
        free(rty.rank(), &d.rhs_contracting),
    );
    let lhs = if order(&lf, &d.lhs_contracting) || order(&d.lhs_contracting, &lf) {
        0
    } else {
        lty.num_elements()
    };
    let rhs = if order(&d.rhs_contracting, &rf) {
        0
    } else {
        rty.num_elements()
    };
    lhs + rhs
}

/// `linalg.matmul` into a zero-filled accumulator (a batch: an `scf.for` over matmuls
/// of its slices), tagged for the CPU tiling script; `transpose_a`: `a` is `[k, m]`
/// (2-D only).
#[allow(clippy::too_many_arguments)]
fn matmul_cpu(
    e: &mut Emitter,
    a: &str,
    a_ty: &TensorType,
    b: &str,
    b_ty: &TensorType,
    c_ty: &TensorType,
    (m, n, k): (usize, usize, usize),
    transpose_a: bool,
) -> Result<String, LowerError> {
    let acc = c_ty.dtype;
    // As kernels store them (unsigned integers signless).
    let (a_tt, b_tt, c_tt, acc_s) = (tt(a_ty), tt(b_ty), tt(c_ty), scalar::storage(acc));
    let zero = if acc.is_float() {
        e.op(format!(
            "arith.constant {} : {acc_s}",
            scalar::float_hex(0.0, acc)
        ))
    } else {
        e.op(format!("arith.constant 0 : {acc_s}"))
    };
    let empty = e.op(format!("tensor.empty() : {c_tt}"));
    let filled = e.op(format!(
        "linalg.fill ins({zero} : {acc_s}) outs({empty} : {c_tt}) -> {c_tt}"
    ));
    let tag = e.matmuls.len();
    e.matmuls.push(Matmul {
        tag,
        m,
        n,
        k,
        dtype: a_ty.dtype,
    });
    let mm = |e: &mut Emitter,
              a: &str,
              at: &TensorType,
              b: &str,
              bt: &TensorType,
              c: &str,
              ct: &TensorType| {
        let maps = if transpose_a {
            "indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] "
        } else {
            ""
        };
        let (at, bt, ct) = (tt(at), tt(bt), tt(ct));
        e.op(format!(
            "linalg.matmul {maps}ins({a}, {b} : {at}, {bt}) outs({c} : {ct}) {{shardc.mm = {tag} : i64}} -> {ct}"
        ))
    };
    if c_ty.rank() == 2 {
        return Ok(mm(e, a, a_ty, b, b_ty, &filled, c_ty));
    }
    let batch = c_ty.shape[0];
    let a2 = TensorType::new(a_ty.dtype, vec![m, k]);
    let b2 = TensorType::new(b_ty.dtype, vec![k, n]);
    let c2 = TensorType::new(acc, vec![m, n]);
    let c0 = e.op("arith.constant 0 : index");
    let c1 = e.op("arith.constant 1 : index");
    let cb = e.op(format!("arith.constant {batch} : index"));
    let i = e.fresh_name();
    let carried = e.fresh_name();
    let result = e.fresh_name();
    e.lines.push(format!(
        "{result} = scf.for {i} = {c0} to {cb} step {c1} iter_args({carried} = {filled}) -> ({c_tt}) {{"
    ));
    let sa = e.op(format!(
        "tensor.extract_slice {a}[{i}, 0, 0] [1, {m}, {k}] [1, 1, 1] : {a_tt} to {}",
        tt(&a2)
    ));
    let sb = e.op(format!(
        "tensor.extract_slice {b}[{i}, 0, 0] [1, {k}, {n}] [1, 1, 1] : {b_tt} to {}",
        tt(&b2)
    ));
    let sc = e.op(format!(
        "tensor.extract_slice {carried}[{i}, 0, 0] [1, {m}, {n}] [1, 1, 1] : {c_tt} to {}",
        tt(&c2)
    ));
    let r = mm(e, &sa, &a2, &sb, &b2, &sc, &c2);
    let c2 = tt(&c2);
    let put = e.op(format!(
        "tensor.insert_slice {r} into {carried}[{i}, 0, 0] [1, {m}, {n}] [1, 1, 1] : {c2} into {c_tt}"
    ));
    e.lines.push(format!("scf.yield {put} : {c_tt}"));
    e.lines.push("}".to_string());
    Ok(result)
}

/// A dot product on i1: products are AND, sums OR.
fn contraction_i1(
    e: &mut Emitter,
    a: &str,
    a_ty: &TensorType,
    b: &str,
    b_ty: &TensorType,
    c_ty: &TensorType,
) -> Result<String, LowerError> {
    let batched = c_ty.rank() == 3;
    let (iters, amap, bmap, cmap): (Vec<Iter>, Vec<&str>, Vec<&str>, Vec<&str>) = if batched {
        (
            vec![
                Iter::Parallel,
                Iter::Parallel,
                Iter::Parallel,
                Iter::Reduction,
            ],
            vec!["d0", "d1", "d3"],
            vec!["d0", "d3", "d2"],
            vec!["d0", "d1", "d2"],
        )
    } else {
        (
            vec![Iter::Parallel, Iter::Parallel, Iter::Reduction],
            vec!["d0", "d2"],
            vec!["d2", "d1"],
            vec!["d0", "d1"],
        )
    };
    let s = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
    let init = e.map(&[], c_ty, |b, _| Ok(b.int(0, "i1")))?;
    let ins = [
        In {
            ssa: a.to_string(),
            ty: a_ty.clone(),
            map: s(amap),
        },
        In {
            ssa: b.to_string(),
            ty: b_ty.clone(),
            map: s(bmap),
        },
    ];
    let outs = [Out {
        init: Some(init),
        ty: c_ty.clone(),
        map: s(cmap),
    }];
    let r = e.generic(&iters, &ins, &outs, |b, x, acc| {
        let p = b.op(format!("arith.andi {}, {} : i1", x[0], x[1]));
        Ok(vec![b.op(format!("arith.ori {}, {p} : i1", acc[0]))])
    })?;
    Ok(r.into_iter().next().expect("one output"))
}

/// `reduce`: one generic over the inputs' dimensions, the reduced ones as reduction
/// loops (visited in ascending row-major order, as the reference folds), the outputs
/// starting from the inits; the reducer body is translated op by op.
fn reduce(e: &mut Emitter, op: &Op, dimensions: &[usize]) -> Result<Vec<String>, LowerError> {
    let n = op.operands.len() / 2;
    let in_ty = e.f.ty(op.operands[0]).clone();
    let rank = in_ty.rank();
    let region = op.regions[0];
    let f = e.f;
    let at = e.at(op);
    let mode = e.mode;
    if dimensions.is_empty() {
        // Nothing reduced: each result is the reducer applied once, to the inits and
        // the elements — an elementwise op. (Written as a reduction, an all-parallel
        // generic reading its outputs, linalg-fuse-elementwise-ops would fuse it into a
        // broadcasting consumer and accumulate twice.)
        let ins: Vec<In> = op.operands[n..]
            .iter()
            .map(|&v| In {
                ssa: e.ssa[&v].clone(),
                ty: e.f.ty(v).clone(),
                map: Vec::new(),
            })
            .chain(op.operands[..n].iter().map(|&v| In {
                ssa: e.ssa[&v].clone(),
                ty: e.f.ty(v).clone(),
                map: dims(rank),
            }))
            .collect();
        let outs: Vec<Out> = op
            .results
            .iter()
            .map(|&r| Out {
                init: None,
                ty: e.f.ty(r).clone(),
                map: dims(rank),
            })
            .collect();
        let iters = vec![Iter::Parallel; rank];
        return e.generic(&iters, &ins, &outs, |b, x, _| {
            region_body(b, mode, f, region, x, &at)
        });
    }
    let iters: Vec<Iter> = (0..rank)
        .map(|d| {
            if dimensions.contains(&d) {
                Iter::Reduction
            } else {
                Iter::Parallel
            }
        })
        .collect();
    let kept: Vec<String> = (0..rank)
        .filter(|d| !dimensions.contains(d))
        .map(|d| format!("d{d}"))
        .collect();
    if let Some(reducer) = wide_reducer(f, op, in_ty.dtype) {
        // As the reference: half-precision values folded in f32, each result rounded once.
        let (init_v, out_ty) = (op.operands[1], e.f.ty(op.results[0]).clone());
        let init = In {
            ssa: e.ssa[&init_v].clone(),
            ty: e.f.ty(init_v).clone(),
            map: Vec::new(),
        };
        let ins = [In {
            ssa: e.ssa[&op.operands[0]].clone(),
            ty: in_ty.clone(),
            map: dims(rank),
        }];
        return fold_wide(e, op, reducer, &iters, &ins, init, &out_ty, kept);
    }
    let mut outs = Vec::new();
    for j in 0..n {
        let init_v = op.operands[n + j];
        let out_ty = e.f.ty(op.results[j]).clone();
        let init = In {
            ssa: e.ssa[&init_v].clone(),
            ty: e.f.ty(init_v).clone(),
            map: Vec::new(),
        };
        let filled = e.map(&[init], &out_ty, |_, a| Ok(a[0].clone()))?;
        outs.push(Out {
            init: Some(filled),
            ty: out_ty,
            map: kept.clone(),
        });
    }
    let ins: Vec<In> = op.operands[..n]
        .iter()
        .map(|&v| In {
            ssa: e.ssa[&v].clone(),
            ty: e.f.ty(v).clone(),
            map: dims(rank),
        })
        .collect();
    e.generic(&iters, &ins, &outs, |b, x, acc| {
        // The reducer takes (accumulators..., elements...).
        let args: Vec<String> = acc.iter().chain(x).cloned().collect();
        region_body(b, mode, f, region, &args, &at)
    })
}

/// The start indices of a dynamic slice as `index` values, clamped into `[0, n - k]` per
/// dimension (StableHLO's semantics).
fn clamped_starts(
    e: &mut Emitter,
    starts: &[ValueId],
    shape: &[usize],
    sizes: &[usize],
) -> Vec<String> {
    let zero = e.op("arith.constant 0 : index");
    starts
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let t = e.f.ty(*s).clone();
            let v = e.op(format!("tensor.extract {}[] : {}", e.ssa[s], tt(&t)));
            let cast = if t.dtype.is_unsigned() {
                "arith.index_castui"
            } else {
                "arith.index_cast"
            };
            let i = e.op(format!(
                "{cast} {v} : {} to index",
                scalar::storage(t.dtype)
            ));
            let hi = e.op(format!("arith.constant {} : index", shape[d] - sizes[d]));
            let lo = e.op(format!("arith.maxsi {i}, {zero} : index"));
            e.op(format!("arith.minsi {lo}, {hi} : index"))
        })
        .collect()
}

/// `reduce_window`: the operand padded with the init (its `padding`, `base_dilations - 1`
/// between elements; as `pad` lowers), then one `linalg.generic` over the output's
/// dimensions (parallel) and the window's (reduction), reading the padded operand at
/// `o * stride + k * window_dilation` (the window's shape comes from an empty tensor of
/// that shape, as linalg's pooling ops take it), folding from the init.
fn reduce_window(e: &mut Emitter, op: &Op, w: &WindowDims) -> Result<Vec<String>, LowerError> {
    let x_ty = e.f.ty(op.operands[0]).clone();
    let out_ty = e.f.ty(op.results[0]).clone();
    let rank = x_ty.rank();
    let (xv, init) = (
        e.ssa[&op.operands[0]].clone(),
        e.ssa[&op.operands[1]].clone(),
    );
    let padded_shape: Vec<usize> = (0..rank)
        .map(|d| {
            let n = x_ty.shape[d] as i64;
            let dilated = if n == 0 {
                0
            } else {
                (n - 1) * w.base_dilations[d] as i64 + 1
            };
            (dilated + w.padding[d].0 + w.padding[d].1).max(0) as usize
        })
        .collect();
    let padded_ty = TensorType::new(x_ty.dtype, padded_shape);
    let padded = if padded_ty == x_ty && w.base_dilations.iter().all(|&b| b == 1) {
        xv
    } else {
        let low: Vec<i64> = w.padding.iter().map(|&(lo, _)| lo).collect();
        let interior: Vec<i64> = w.base_dilations.iter().map(|&b| b as i64 - 1).collect();
        pad(e, &xv, &x_ty, &init, &low, &interior, &padded_ty)?
    };
    let window_ty = TensorType::new(x_ty.dtype, w.window.clone());
    let window = e.op(format!("tensor.empty() : {}", tt(&window_ty)));
    let init_in = In {
        ssa: init,
        ty: TensorType::scalar(x_ty.dtype),
        map: Vec::new(),
    };
    let iters: Vec<Iter> = (0..2 * rank)
        .map(|i| {
            if i < rank {
                Iter::Parallel
            } else {
                Iter::Reduction
            }
        })
        .collect();
    let reads: Vec<String> = (0..rank)
        .map(|d| {
            format!(
                "d{d} * {} + d{} * {}",
                w.strides[d],
                rank + d,
                w.window_dilations[d]
            )
        })
        .collect();
    let ins = [
        In {
            ssa: padded,
            ty: padded_ty,
            map: reads,
        },
        In {
            ssa: window,
            ty: window_ty,
            map: (rank..2 * rank).map(|d| format!("d{d}")).collect(),
        },
    ];
    let (f, region, at, mode) = (e.f, op.regions[0], e.at(op), e.mode);
    if let Some(reducer) = wide_reducer(f, op, x_ty.dtype) {
        return fold_wide(e, op, reducer, &iters, &ins, init_in, &out_ty, dims(rank));
    }
    let filled = e.map(&[init_in], &out_ty, |_, a| Ok(a[0].clone()))?;
    let outs = [Out {
        init: Some(filled),
        ty: out_ty,
        map: dims(rank),
    }];
    e.generic(&iters, &ins, &outs, |b, x, acc| {
        region_body(b, mode, f, region, &[acc[0].clone(), x[0].clone()], &at)
    })
}

/// The reducer of a `reduce` or `reduce_window` of one bf16 or f16 input whose body is one
/// binary op (and whether its operands are swapped): such a fold accumulates in f32 and
/// rounds each result once, as the reference and XLA's CPU and GPU backends do.
fn wide_reducer(f: &Function, op: &Op, dt: DType) -> Option<(BinaryOp, bool)> {
    if !matches!(dt, DType::BF16 | DType::F16) || op.operands.len() != 2 {
        return None;
    }
    shardc_runtime::reference::single_binary(f, *op.regions.first()?)
}

/// The fold of [`wide_reducer`]: one generic over `iters` reading `ins` (the first one the
/// half-precision values; others, such as a window's shape, only indexed), accumulating
/// `op(acc, x)` in an f32 tensor of `out`'s shape (indexed by `kept`) that starts from
/// `init` widened, then rounded to `out`.
#[allow(clippy::too_many_arguments)]
fn fold_wide(
    e: &mut Emitter,
    op: &Op,
    (bop, swapped): (BinaryOp, bool),
    iters: &[Iter],
    ins: &[In],
    init: In,
    out: &TensorType,
    kept: Vec<String>,
) -> Result<Vec<String>, LowerError> {
    let dt = init.ty.dtype;
    let (mode, at) = (e.mode, e.at(op));
    let wide_ty = TensorType::new(DType::F32, out.shape.clone());
    let filled = e.map(&[init], &wide_ty, |b, a| Ok(scalar::widen(b, &a[0], dt)))?;
    let outs = [Out {
        init: Some(filled),
        ty: wide_ty.clone(),
        map: kept,
    }];
    let folded = e.generic(iters, ins, &outs, |b, x, acc| {
        let x = scalar::widen(b, &x[0], dt);
        let (l, r) = if swapped {
            (x, acc[0].clone())
        } else {
            (acc[0].clone(), x)
        };
        scalar::binary(b, mode, bop, DType::F32, &l, &r)
            .map(|r| vec![r])
            .ok_or_else(|| LowerError::Unsupported {
                op: op.kind.name(),
                at: at.clone(),
                why: format!("its reducer stablehlo.{} is not defined on f32", bop.name()),
                fix: "reduce with add, multiply, maximum or minimum".to_string(),
            })
    })?;
    let wide = In {
        ssa: folded.into_iter().next().expect("one output"),
        ty: wide_ty.clone(),
        map: dims(wide_ty.rank()),
    };
    Ok(vec![e.map(&[wide], out, |b, a| {
        Ok(scalar::narrow(b, &a[0], dt))
    })?])
}

/// Translates a reducer region (ops on rank-0 values) into scalar ops.
fn region_body(
    b: &mut Body,
    mode: Mode,
    f: &Function,
    block: BlockId,
    args: &[String],
    at: &str,
) -> Result<Vec<String>, LowerError> {
    let blk = f.block(block);
    let mut env: HashMap<ValueId, String> =
        blk.args.iter().copied().zip(args.iter().cloned()).collect();
    for &id in &blk.ops {
        let op = f.op(id);
        let unsupported = |why: String| LowerError::Unsupported {
            op: op.kind.name(),
            at: format!("the reducer of {at}"),
            why,
            fix: "write the reducer with elementwise ops and scalar constants".to_string(),
        };
        if op.results.iter().any(|&r| f.ty(r).rank() != 0) {
            return Err(unsupported("reducer ops must act on scalars".into()));
        }
        let operands: Vec<String> = op.operands.iter().map(|v| env[v].clone()).collect();
        let dts: Vec<DType> = op.operands.iter().map(|&v| f.ty(v).dtype).collect();
        let out = f.ty(op.results[0]).dtype;
        let r = match &op.kind {
            OpKind::Constant(lit) => scalar_constant(b, &element_text(lit, 0), lit.ty.dtype),
            // A scalar broadcast or reshaped to a scalar (JAX writes `broadcast_in_dim %c,
            // dims = []` of its reducer's constants) is that scalar.
            OpKind::ShardingConstraint(_) | OpKind::BroadcastInDim { .. } | OpKind::Reshape
                if op.operands.len() == 1 && f.ty(op.operands[0]) == f.ty(op.results[0]) =>
            {
                operands[0].clone()
            }
            kind if kind.is_elementwise() => scalar_op(b, mode, kind, &dts, out, &operands)
                .ok_or_else(|| unsupported(format!("it is not defined on {}", dts[0])))?,
            _ => {
                return Err(unsupported(
                    "kernels lower reducer bodies made of elementwise ops and constants only"
                        .into(),
                ));
            }
        };
        env.insert(op.results[0], r);
    }
    Ok(blk.results.iter().map(|v| env[v].clone()).collect())
}

/// `gather` with the spec's semantics (batching dimensions, `index_vector_dim`
/// anywhere, start indices clamped into the operand), one result element per loop
/// iteration.
fn gather(
    e: &mut Emitter,
    operand: &str,
    op_ty: &TensorType,
    indices: &str,
    idx_ty: &TensorType,
    g: &GatherDims,
    out: &TensorType,
) -> Result<String, LowerError> {
    if !idx_ty.dtype.is_int() {
        return Err(LowerError::Unsupported {
            op: "stablehlo.gather".into(),
            at: format!("a gather of {op_ty}"),
            why: format!("start indices of type {} are not integers", idx_ty.dtype),
            fix: "give the start indices as i32 or i64".into(),
        });
    }
    let ivd = g.index_vector_dim;
    let idx_batch_dims: Vec<usize> = (0..idx_ty.rank()).filter(|&d| d != ivd).collect();
    let batch_dims: Vec<usize> = (0..out.rank())
        .filter(|d| !g.offset_dims.contains(d))
        .collect();
    let offset_operand_dims: Vec<usize> = (0..op_ty.rank())
        .filter(|d| !g.collapsed_slice_dims.contains(d) && !g.operand_batching_dims.contains(d))
        .collect();
    let batching_pos: Vec<usize> = g
        .start_indices_batching_dims
        .iter()
        .map(|&d| if d < ivd { d } else { d - 1 })
        .collect();
    let (operand, op_ty, indices, idx_ty, g) = (
        operand.to_string(),
        op_ty.clone(),
        indices.to_string(),
        idx_ty.clone(),
        g.clone(),
    );
    let out_rank = out.rank();
    e.map(&[], out, |b, _| {
        let r: Vec<String> = (0..out_rank)
            .map(|d| b.op(format!("linalg.index {d} : index")))
            .collect();
        let batch_index: Vec<String> = batch_dims.iter().map(|&d| r[d].clone()).collect();
        let zero = b.index(0);
        let mut full: Vec<Option<String>> = vec![None; op_ty.rank()];
        let add = |b: &mut Body, full: &mut Vec<Option<String>>, d: usize, v: String| {
            full[d] = Some(match full[d].take() {
                None => v,
                Some(prev) => b.op(format!("arith.addi {prev}, {v} : index")),
            });
        };
        for (j, &d) in g.start_index_map.iter().enumerate() {
            let mut at = vec![zero.clone(); idx_ty.rank()];
            for (k, &bd) in idx_batch_dims.iter().enumerate() {
                at[bd] = batch_index[k].clone();
            }
            if ivd < idx_ty.rank() {
                at[ivd] = b.index(j as i64);
            }
            let s = b.op(format!(
                "tensor.extract {indices}[{}] : {}",
                at.join(", "),
                tt(&idx_ty)
            ));
            let s = scalar::to_index(b, &s, idx_ty.dtype);
            let max_start = b.index((op_ty.shape[d] - g.slice_sizes[d]) as i64);
            let s = b.op(format!("arith.maxsi {s}, {zero} : index"));
            let s = b.op(format!("arith.minsi {s}, {max_start} : index"));
            add(b, &mut full, d, s);
        }
        for (&d, &p) in g.operand_batching_dims.iter().zip(&batching_pos) {
            add(b, &mut full, d, batch_index[p].clone());
        }
        for (&d, &rd) in offset_operand_dims.iter().zip(&g.offset_dims) {
            add(b, &mut full, d, r[rd].clone());
        }
        let at: Vec<String> = full
            .into_iter()
            .map(|v| v.unwrap_or_else(|| zero.clone()))
            .collect();
        Ok(b.op(format!(
            "tensor.extract {operand}[{}] : {}",
            at.join(", "),
            tt(&op_ty)
        )))
    })
}

/// `reverse`: each output element extracted from the mirrored position.
fn reverse(
    e: &mut Emitter,
    x: &str,
    t: &TensorType,
    dimensions: &[usize],
) -> Result<String, LowerError> {
    let (x, t, dims) = (x.to_string(), t.clone(), dimensions.to_vec());
    let out = t.clone();
    e.map(&[], &out, |b, _| {
        let at: Vec<String> = (0..t.rank())
            .map(|d| {
                let i = b.op(format!("linalg.index {d} : index"));
                if dims.contains(&d) {
                    let last = b.index(t.shape[d] as i64 - 1);
                    b.op(format!("arith.subi {last}, {i} : index"))
                } else {
                    i
                }
            })
            .collect();
        Ok(b.op(format!(
            "tensor.extract {x}[{}] : {}",
            at.join(", "),
            tt(&t)
        )))
    })
}
