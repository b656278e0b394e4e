//! The reference interpreter: runs a *global* [`Module`] function on the host, and is the
//! numerical oracle every partitioned program and backend is compared against.
//!
//! - [`run`] runs a function of a module on argument literals.
//! - [`eval_op`] evaluates one op on given operand values (a simulated-mesh executor
//!   runs per-device programs op by op with it, and intercepts the collectives).
//! - [`random`] defines `shardc.random`'s numbers bit for bit.
//!
//! # Numerics
//!
//! Values are [`Literal`]s, each dtype stored natively. f32 arithmetic is done in f32 and
//! f64 in f64 (transcendental functions are Rust's std functions of that type); bf16 and
//! f16 are computed in f32 and rounded to the dtype after every op, as XLA does on CPU.
//! Integers wrap (two's complement). Where StableHLO leaves a result open, the choice is
//! documented in the file that makes it:
//!
//! - `elementwise.rs`: integer division and remainder by zero (-1 and the dividend, as
//!   XLA), shifts by out-of-range amounts (0, or the sign fill), integer powers with
//!   negative exponents, `sign` of ±0, NaN and ±0 in `maximum`/`minimum`, `compare`
//!   under FLOAT and TOTALORDER;
//! - `convert.rs`: float to int truncates toward zero and saturates, NaN gives 0;
//!   every conversion rounds once, to nearest even;
//! - `dot.rs`: products summed from 0 in ascending contracting order, no fused
//!   multiply-add; bf16/f16 accumulate in f32 and round once;
//! - `reduce.rs`: folded from the init in row-major order of the reduced positions;
//! - `gather.rs`: start indices clamped into the operand, as the spec says;
//! - [`random`]: `shardc.random`'s numbers, bit for bit.
//!
//! # How it runs
//!
//! A function is checked once (structure, typing rules, reducers, call signatures), then
//! its body runs op by op; each op's semantics is one entry of `Interp::evaluate`, the op
//! table, which hands it to the kernel of its family (one file per family). Values are
//! dropped after their last use. Region bodies (reducers) run through the same machinery.

// Errors carry the names and types a user needs to fix the program (op, value, expected
// and given types); they are rare, and the `Ok` side (literals) is as large.
#![allow(clippy::result_large_err)]

mod check;
mod conv;
mod convert;
mod dot;
mod elementwise;
mod error;
mod fft;
mod gather;
mod layout;
mod linalg;
mod native;
pub mod random;
mod reduce;
mod scatter;
mod sort;

pub use conv::select_and_scatter_into;
pub use error::InterpError;
pub use reduce::single_binary;
pub use scatter::{scatter_into, scatter_onto};

use shardc_ir::{DType, Function, Literal, Module, Op, OpKind, ValueId};
use std::borrow::Cow;
use std::collections::HashSet;
use std::rc::Rc;

/// Calls nested deeper than this are taken for recursion, which StableHLO forbids.
const MAX_CALL_DEPTH: usize = 64;

/// Runs function `func` of `module` on `args` and returns its results (dense literals).
///
/// The arguments must match the function's signature exactly (splat literals are
/// accepted and expanded). The module need not be verified: every op is checked against
/// its typing rule before the function runs.
pub fn run(module: &Module, func: &str, args: &[Literal]) -> Result<Vec<Literal>, InterpError> {
    let Some(f) = module.function(func) else {
        let known: Vec<String> = module
            .functions
            .iter()
            .map(|f| format!("@{}", f.name))
            .collect();
        return Err(InterpError::UnknownFunction {
            name: func.to_string(),
            known: if known.is_empty() {
                "no functions".to_string()
            } else {
                known.join(", ")
            },
        });
    };
    check::check_structure(f)?;
    let types = f.arg_types();
    if args.len() != types.len() {
        return Err(InterpError::ArgumentCount {
            func: f.name.clone(),
            expected: types.len(),
            types: types
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            given: args.len(),
        });
    }
    let names = f.value_names();
    for (index, ((arg, ty), &v)) in args.iter().zip(&types).zip(f.args()).enumerate() {
        let name = &names[v.index()];
        if arg.ty != *ty {
            return Err(InterpError::ArgumentType {
                func: f.name.clone(),
                index,
                name: name.clone(),
                expected: ty.clone(),
                given: arg.ty.clone(),
            });
        }
        check::check_literal(|| format!("argument {index} ({name}) of @{}", f.name), arg)?;
    }
    let args = args.iter().map(|a| Rc::new(a.to_dense())).collect();
    let results = Interp::new(module).call_function(f, args)?;
    Ok(results.into_iter().map(unwrap_rc).collect())
}

/// A binary op applied to whole element vectors (of one dtype and length), element by
/// element, with the op's exact semantics; `None` if they differ in dtype or length or the
/// op is not defined on the dtype. Backends combine the pieces of a reduction with it
/// (the one-op reducer of an `all_reduce` or `reduce_scatter`).
pub fn zip_elements(
    op: shardc_ir::BinaryOp,
    x: &shardc_ir::Elements,
    y: &shardc_ir::Elements,
) -> Option<shardc_ir::Elements> {
    elementwise::zip_elements(op, x, y)
}

/// `op` folded over the same `segments` of each of `parts`, in their order, with the op's
/// exact semantics (see [`zip_elements`]); the segments' results end to end. `None` if the
/// parts differ in dtype, a segment is out of range or the op is not defined on the dtype.
/// The cpu backend's shared-memory reductions fold their peers' pieces with it.
pub(crate) fn fold_segments(
    op: shardc_ir::BinaryOp,
    parts: &[&shardc_ir::Elements],
    segments: &[std::ops::Range<usize>],
) -> Option<shardc_ir::Elements> {
    elementwise::fold_segments(op, parts, segments)
}

/// Evaluates one op of `f` on the values of its operands and returns its results.
///
/// `inputs` holds one literal per operand, of the operand's type (splats are accepted).
/// The op is checked against its typing rule first. A reduce runs its region through the
/// interpreter (its body may read only its own arguments and values it defines, as
/// StableHLO reducers do); a `func.call` runs the callee (resolved in `module`).
///
/// `shardc.random` gives the elements at flat indices `0..n` of the op's own result type;
/// a per-device executor whose result is a shard of a larger global tensor draws the
/// shard's global indices with [`random::elements_at`] instead.
pub fn eval_op(
    module: &Module,
    f: &Function,
    op: &Op,
    inputs: &[Literal],
) -> Result<Vec<Literal>, InterpError> {
    check::check_op_structure(f, op)?;
    check::check_op(module, f, op)?;
    let site = Site { f, op };
    if inputs.len() != op.operands.len() {
        return Err(InterpError::OperandCount {
            op: op.kind.name(),
            at: site.at(),
            expected: op.operands.len(),
            given: inputs.len(),
        });
    }
    for (index, (input, &v)) in inputs.iter().zip(&op.operands).enumerate() {
        if input.ty != *f.ty(v) {
            return Err(InterpError::OperandType {
                op: op.kind.name(),
                at: site.at(),
                index,
                name: value_name(f, v),
                expected: f.ty(v).clone(),
                given: input.ty.clone(),
            });
        }
        let what = || {
            format!(
                "the value of operand {index} ({}) of {} defining {}",
                value_name(f, v),
                op.kind.name(),
                site.at()
            )
        };
        check::check_literal(what, input)?;
    }
    let dense: Vec<Cow<Literal>> = inputs
        .iter()
        .map(|l| {
            if l.is_splat() {
                Cow::Owned(l.to_dense())
            } else {
                Cow::Borrowed(l)
            }
        })
        .collect();
    let refs: Vec<&Literal> = dense.iter().map(|c| c.as_ref()).collect();
    let mut env: Env = vec![None; f.values.len()];
    Interp::new(module).evaluate(f, op, &refs, &mut env)
}

/// The values of a function's arena, by [`ValueId`] index, while it runs.
pub(crate) type Env = Vec<Option<Rc<Literal>>>;

fn unwrap_rc(v: Rc<Literal>) -> Literal {
    Rc::try_unwrap(v).unwrap_or_else(|shared| (*shared).clone())
}

/// `%3 in @main`, or the raw id (`v3 in @main`) if the function is malformed.
fn value_name(f: &Function, v: ValueId) -> String {
    let name = match check::check_structure(f) {
        Ok(()) => f.value_names()[v.index()].clone(),
        Err(_) => v.to_string(),
    };
    format!("{name} in @{}", f.name)
}

/// An op being checked or run, for error messages.
pub(crate) struct Site<'a> {
    pub(crate) f: &'a Function,
    pub(crate) op: &'a Op,
}

impl Site<'_> {
    /// The value the op defines, with its function: `%3 in @main`.
    pub(crate) fn at(&self) -> String {
        match self.op.results.first() {
            Some(&r) => value_name(self.f, r),
            None => format!("an op with no results in @{}", self.f.name),
        }
    }

    pub(crate) fn invalid(&self, rule: impl Into<String>, fix: impl Into<String>) -> InterpError {
        InterpError::InvalidOp {
            op: self.op.kind.name(),
            at: self.at(),
            rule: rule.into(),
            fix: fix.into(),
        }
    }

    pub(crate) fn unsupported(&self, dtype: DType, detail: String) -> InterpError {
        InterpError::UnsupportedType {
            op: self.op.kind.name(),
            at: self.at(),
            dtype,
            detail,
        }
    }

    /// A reduce whose single-op body is not defined on the element type.
    pub(crate) fn unsupported_reducer(&self, dtype: DType, op: shardc_ir::BinaryOp) -> InterpError {
        self.unsupported(
            dtype,
            format!(" (its reducer applies stablehlo.{})", op.name()),
        )
    }
}

/// The interpreter: the module (to resolve calls), the functions already checked, and
/// the current call depth.
pub(crate) struct Interp<'m> {
    module: &'m Module,
    checked: HashSet<String>,
    depth: usize,
}

impl<'m> Interp<'m> {
    fn new(module: &'m Module) -> Interp<'m> {
        Interp {
            module,
            checked: HashSet::new(),
            depth: 0,
        }
    }

    /// Runs a function's body on its (checked) arguments.
    fn call_function(
        &mut self,
        f: &Function,
        args: Vec<Rc<Literal>>,
    ) -> Result<Vec<Rc<Literal>>, InterpError> {
        if !self.checked.contains(&f.name) {
            check::check_structure(f)?;
            check::check_function(self.module, f)?;
            self.checked.insert(f.name.clone());
        }
        let mut env: Env = vec![None; f.values.len()];
        for (&v, a) in f.args().iter().zip(args) {
            env[v.index()] = Some(a);
        }
        let frees = last_uses(f);
        for (pos, &id) in f.body().ops.iter().enumerate() {
            self.exec_op(f, f.op(id), &mut env)?;
            for v in &frees[pos] {
                env[v.index()] = None;
            }
        }
        f.results()
            .iter()
            .map(|&v| read(f, &env, v, || format!("the return of @{}", f.name)))
            .collect()
    }

    /// Runs a region block on the given arguments and returns what it returns. Values
    /// defined before the region's op stay readable.
    pub(crate) fn exec_block(
        &mut self,
        f: &Function,
        block: shardc_ir::BlockId,
        args: &[Rc<Literal>],
        env: &mut Env,
    ) -> Result<Vec<Rc<Literal>>, InterpError> {
        let b = f.block(block);
        for (&v, a) in b.args.iter().zip(args) {
            env[v.index()] = Some(a.clone());
        }
        for &id in &b.ops {
            self.exec_op(f, f.op(id), env)?;
        }
        b.results
            .iter()
            .map(|&v| {
                read(f, env, v, || {
                    format!("the return of a region in @{}", f.name)
                })
            })
            .collect()
    }

    fn exec_op(&mut self, f: &Function, op: &Op, env: &mut Env) -> Result<(), InterpError> {
        let inputs: Vec<Rc<Literal>> = op
            .operands
            .iter()
            .map(|&v| {
                read(f, env, v, || {
                    format!("{} defining {}", op.kind.name(), Site { f, op }.at())
                })
            })
            .collect::<Result<_, _>>()?;
        let refs: Vec<&Literal> = inputs.iter().map(|r| r.as_ref()).collect();
        let results = self.evaluate(f, op, &refs, env)?;
        for (&r, value) in op.results.iter().zip(results) {
            env[r.index()] = Some(Rc::new(value));
        }
        Ok(())
    }

    /// The op table: each kind's semantics, handed to the kernel of its family. The op
    /// has been checked, so operand types and attributes are consistent.
    fn evaluate(
        &mut self,
        f: &Function,
        op: &Op,
        x: &[&Literal],
        env: &mut Env,
    ) -> Result<Vec<Literal>, InterpError> {
        let site = Site { f, op };
        let out = |i: usize| f.ty(op.results[i]);
        let result = match &op.kind {
            OpKind::Unary(u) => elementwise::unary(&site, *u, x[0], out(0))?,
            OpKind::Binary(b) => elementwise::binary(&site, *b, x[0], x[1])?,
            OpKind::Compare {
                direction,
                compare_type,
            } => elementwise::compare(&site, *direction, *compare_type, x[0], x[1])?,
            OpKind::Select => elementwise::select(x[0], x[1], x[2]),
            OpKind::Clamp => elementwise::clamp(&site, x[0], x[1], x[2])?,
            OpKind::Constant(lit) => lit.to_dense(),
            OpKind::Iota { dimension } => layout::iota(*dimension, out(0)),
            OpKind::Convert => convert::convert(x[0], out(0)),
            OpKind::BitcastConvert => convert::bitcast(&site, x[0], out(0))?,
            OpKind::BroadcastInDim { dims } => layout::broadcast_in_dim(x[0], dims, out(0)),
            OpKind::Reshape => layout::reshape(x[0], out(0)),
            OpKind::Transpose { permutation } => layout::transpose(x[0], permutation, out(0)),
            OpKind::Reverse { dimensions } => layout::reverse(x[0], dimensions),
            OpKind::Slice { start, strides, .. } => layout::slice(x[0], start, strides, out(0)),
            OpKind::Concatenate { dimension } => layout::concatenate(x, *dimension, out(0)),
            OpKind::Pad { low, interior, .. } => layout::pad(x[0], x[1], low, interior, out(0)),
            OpKind::DotGeneral(dims) => dot::dot_general(x[0], x[1], dims, out(0)),
            OpKind::Reduce { dimensions } => {
                return reduce::reduce(self, &site, x, dimensions, env);
            }
            OpKind::Gather(dims) => gather::gather(&site, x[0], x[1], dims, out(0))?,
            OpKind::Scatter(dims) => return scatter::scatter(self, &site, x, dims, env),
            OpKind::Sort { dimension, .. } => return sort::sort(self, &site, x, *dimension, env),
            OpKind::Convolution(d) => conv::convolution(x[0], x[1], d, out(0)),
            OpKind::SelectAndScatter(w) => {
                return conv::select_and_scatter(self, &site, x[0], x[1], x[2], w, env);
            }
            OpKind::DynamicSlice { .. } => layout::dynamic_slice(x[0], &x[1..], out(0)),
            OpKind::DynamicUpdateSlice => layout::dynamic_update_slice(x[0], x[1], &x[2..]),
            OpKind::ReduceWindow(w) => {
                return reduce::reduce_window(self, &site, x[0], x[1], w, env);
            }
            OpKind::Random { distribution } => {
                random::random_op(&site, *distribution, x[0], out(0))?
            }
            OpKind::RngBitGenerator { algorithm } => {
                return random::rng_bit_generator(&site, *algorithm, x[0], out(1));
            }
            OpKind::Cholesky { lower } => linalg::cholesky(x[0], *lower),
            OpKind::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            } => linalg::triangular_solve(
                x[0],
                x[1],
                *left_side,
                *lower,
                *unit_diagonal,
                *transpose_a,
            ),
            OpKind::Lu => return Ok(linalg::lu(x[0], [out(0), out(1), out(2)])),
            OpKind::TridiagonalSolve => return Ok(linalg::tridiagonal_solve(x, out(4))),
            OpKind::Fft { fft_type, lengths } => fft::fft(x[0], *fft_type, lengths, out(0)),
            OpKind::Geqrf => return Ok(linalg::geqrf(x[0], out(1))),
            OpKind::HouseholderProduct => linalg::householder_product(x[0], x[1]),
            OpKind::Eigh { lower } => return Ok(linalg::eigh(x[0], *lower, out(1))),
            OpKind::Svd { .. } => return Ok(linalg::svd(x[0], [out(0), out(1), out(2)])),
            OpKind::Call { callee } => return self.call(&site, callee, x),
            OpKind::While | OpKind::Case => return self.control(f, op, x, env),
            OpKind::ManualComputation { .. } => return self.manual(f, op, x),
            OpKind::OptimizationBarrier => return Ok(x.iter().map(|&l| l.clone()).collect()),
            OpKind::ShardingConstraint(_) => x[0].clone(),
            OpKind::Rotate { dimension, shift } => layout::rotate(x[0], *dimension, *shift),
            OpKind::AllGather { .. }
            | OpKind::AllReduce { .. }
            | OpKind::ReduceScatter { .. }
            | OpKind::AllToAll { .. }
            | OpKind::ShardSlice { .. }
            | OpKind::AxisIndex { .. }
            | OpKind::PartitionId
            | OpKind::CollectivePermute { .. } => {
                return Err(InterpError::InvalidOp {
                    op: op.kind.name(),
                    at: site.at(),
                    rule: "it is a per-device op of a partitioned program, whose value depends on which device runs it".into(),
                    fix: "run partitioned programs on a mesh (shardc_runtime::simulate)".into(),
                });
            }
        };
        Ok(vec![result])
    }

    /// `while` and `case`: the regions run through the interpreter, on the carried values
    /// (a loop) or none (a branch); the captured operands are what the regions read from
    /// outside.
    fn control(
        &mut self,
        f: &Function,
        op: &Op,
        x: &[&Literal],
        env: &mut Env,
    ) -> Result<Vec<Literal>, InterpError> {
        let written = op.written_operands().len();
        for (&v, &lit) in op.captured_operands().iter().zip(&x[written..]) {
            env[v.index()] = Some(Rc::new(lit.clone()));
        }
        let results = match (&op.kind, op.regions.as_slice()) {
            (OpKind::While, &[cond, body]) => {
                let mut carried: Vec<Rc<Literal>> =
                    x[..written].iter().map(|&l| Rc::new(l.clone())).collect();
                loop {
                    let go = self.exec_block(f, cond, &carried, env)?;
                    if !go.first().is_some_and(|c| c.get(0).as_bool()) {
                        break carried;
                    }
                    carried = self.exec_block(f, body, &carried, env)?;
                }
            }
            (OpKind::Case, branches) if !branches.is_empty() => {
                // An index out of range runs the last branch.
                let i = x[0].get(0).as_i64();
                let last = branches.len() - 1;
                let pick = usize::try_from(i).map_or(last, |i| i.min(last));
                self.exec_block(f, branches[pick], &[], env)?
            }
            _ => {
                return Err(Site { f, op }.invalid(
                    format!(
                        "has {} region(s), which its kind does not take",
                        op.regions.len()
                    ),
                    "give a while a cond and a body region, and a case one region per branch",
                ));
            }
        };
        Ok(results.into_iter().map(unwrap_rc).collect())
    }

    /// `sdy.manual_computation` (`shard_map`): the operands sharded by the in_shardings
    /// over the mesh, the body run on every device in lockstep on the simulated mesh (its
    /// collectives exact; loops that communicate unrolled), each result reassembled from
    /// the devices' pieces by its out_sharding (devices holding one block must agree, as
    /// JAX's replication check asks). Over axes the body is not manual over, its operands
    /// and results are whole.
    fn manual(
        &mut self,
        f: &Function,
        op: &Op,
        x: &[&Literal],
    ) -> Result<Vec<Literal>, InterpError> {
        let site = Site { f, op };
        let OpKind::ManualComputation {
            in_shardings,
            out_shardings,
            manual_axes,
        } = &op.kind
        else {
            return Err(site.invalid("is not a manual computation", "report it"));
        };
        let mesh = in_shardings
            .first()
            .or(out_shardings.first())
            .and_then(|s| self.module.mesh(&s.mesh))
            .ok_or_else(|| {
                site.invalid(
                    "its shardings name no mesh of the module",
                    "declare the mesh its shardings name",
                )
            })?;
        // Over its automatic axes, the body sees its operands whole.
        let in_shardings: Vec<_> = in_shardings
            .iter()
            .map(|s| s.over_axes(manual_axes))
            .collect();
        let out_shardings: Vec<_> = out_shardings
            .iter()
            .map(|s| s.over_axes(manual_axes))
            .collect();
        let failed = |e: String| site.invalid(e, "check the shard_map's specs against its body");
        const BODY: &str = "__shard_map_body";
        let body = shardc_ir::unroll::region_function(f, op.regions[0], BODY, &[])
            .and_then(|g| shardc_ir::inline::inline_calls(self.module, &g))
            .map_err(|e| failed(e.to_string()))?;
        let n = mesh.num_devices();
        let mut args: Vec<Vec<Literal>> = vec![Vec::with_capacity(x.len()); n];
        for (&lit, s) in x.iter().zip(in_shardings) {
            let pieces =
                crate::shard::shard_all(lit, &s, mesh).map_err(|e| failed(e.to_string()))?;
            for (a, p) in args.iter_mut().zip(pieces) {
                a.push(p);
            }
        }
        let devices = mesh.devices();
        // The body may call the module's functions.
        let mut module = self.module.clone();
        module.functions.push(body);
        let out = crate::simulate::run(&module, BODY, &devices, &args)
            .map_err(|e| failed(format!("its body failed on the devices: {e}")))?;
        out_shardings
            .iter()
            .zip(&op.results)
            .enumerate()
            .map(|(k, (s, &r))| {
                let pieces: Vec<Literal> = out.iter().map(|d| d[k].clone()).collect();
                crate::shard::unshard(&pieces, s, mesh, f.ty(r), 0.0).map_err(|e| {
                    failed(format!(
                        "result {k} cannot be reassembled by its out_sharding {s}: {e}"
                    ))
                })
            })
            .collect()
    }

    /// `func.call`: runs the callee on copies of the operands.
    fn call(
        &mut self,
        site: &Site,
        callee: &str,
        x: &[&Literal],
    ) -> Result<Vec<Literal>, InterpError> {
        let Some(g) = self.module.function(callee) else {
            return Err(InterpError::UnknownCallee {
                at: site.at(),
                callee: callee.to_string(),
            });
        };
        if self.depth >= MAX_CALL_DEPTH {
            return Err(InterpError::CallDepth {
                at: site.at(),
                callee: callee.to_string(),
                limit: MAX_CALL_DEPTH,
            });
        }
        self.depth += 1;
        let results = self.call_function(g, x.iter().map(|&l| Rc::new(l.clone())).collect());
        self.depth -= 1;
        Ok(results?.into_iter().map(unwrap_rc).collect())
    }
}

/// The current value of `v`; `reader` names what reads it, for the error message.
fn read(
    f: &Function,
    env: &Env,
    v: ValueId,
    reader: impl FnOnce() -> String,
) -> Result<Rc<Literal>, InterpError> {
    env[v.index()]
        .clone()
        .ok_or_else(|| InterpError::MissingValue {
            reader: reader(),
            name: value_name(f, v),
        })
}

/// For each op of the body (by position), the values whose last use it is: they are
/// dropped once it has run. Values the body returns are kept; uses inside an op's regions
/// count as uses by the op.
fn last_uses(f: &Function) -> Vec<Vec<ValueId>> {
    const KEEP: usize = usize::MAX;
    let body = f.body();
    let mut last = vec![KEEP; f.values.len()];
    let mut used = Vec::new();
    for (pos, &id) in body.ops.iter().enumerate() {
        let op = f.op(id);
        for &r in &op.results {
            last[r.index()] = pos;
        }
        used.clear();
        uses(f, op, &mut used);
        for v in &used {
            last[v.index()] = pos;
        }
    }
    for &v in &body.results {
        last[v.index()] = KEEP;
    }
    let mut frees = vec![Vec::new(); body.ops.len()];
    for (v, &pos) in last.iter().enumerate() {
        if pos != KEEP {
            frees[pos].push(ValueId::from_index(v));
        }
    }
    frees
}

fn uses(f: &Function, op: &Op, out: &mut Vec<ValueId>) {
    out.extend(&op.operands);
    for &r in &op.regions {
        let block = f.block(r);
        for &id in &block.ops {
            uses(f, f.op(id), out);
        }
        out.extend(&block.results);
    }
}
