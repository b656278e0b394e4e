//! Tracing: Rust closures over [`Tensor`] handles record a global program.
//!
//! Every method adds one op to the function being traced. Shape errors do not panic:
//! the first one is recorded with the caller's source location and returned by
//! [`Jit::lower`](crate::Jit::lower); the tensor returned by the failing call stands in
//! for the missing value so tracing can finish.

use crate::error::Error;
use crate::spec::PartitionSpec;
use shardc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DType, Distribution, DotDims, FunctionBuilder,
    IrError, Literal, OpKind, Scalar, TensorType, UnaryOp, ValueId,
};
use std::cell::RefCell;
use std::panic::Location;
use std::rc::Rc;

pub(crate) struct TraceState {
    pub(crate) builder: FunctionBuilder,
    pub(crate) mesh: String,
    pub(crate) error: Option<Error>,
    /// Functions of other lowered programs this trace calls (`Lowered::call`).
    pub(crate) callees: Vec<shardc_ir::Function>,
}

impl TraceState {
    /// The builder, its scope set to the innermost [`named_scope`] open now.
    pub(crate) fn scoped(&mut self) -> &mut FunctionBuilder {
        let scope = SCOPES.with(|s| {
            let s = s.borrow();
            (!s.is_empty()).then(|| s.join("/"))
        });
        self.builder.set_scope(scope);
        let remat = REMATS.with(|r| r.borrow().last().cloned());
        self.builder.set_tags(
            remat
                .map(|r| vec![(shardc_ir::REMAT.to_string(), shardc_ir::quoted(&r))])
                .unwrap_or_default(),
        );
        &mut self.builder
    }
}

pub(crate) type Ctx = Rc<RefCell<TraceState>>;

thread_local! {
    /// The scopes [`named_scope`] has open on this thread, outermost first.
    static SCOPES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The [`remat`] regions open on this thread (their attribute values), innermost last.
    static REMATS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// How many [`remat`] regions this thread has opened: each region's number.
    static REMAT_COUNT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// What the gradient of a [`remat`] region keeps from the forward pass; the rest of the
/// region is computed again in the backward pass (JAX's `jax.checkpoint_policies`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RematPolicy {
    /// Keep only the region's inputs (`nothing_saveable`; PyTorch's
    /// `torch.utils.checkpoint`): the most memory saved, the whole forward recomputed.
    Nothing,
    /// Keep the results of matrix products (`dots_saveable`): only the cheap elementwise
    /// and reduction work is recomputed.
    Dots,
    /// Keep the values named so with [`Tensor::remat_name`] (`save_only_these_names`).
    Names(Vec<String>),
}

/// Traces `f` as a region whose activations are recomputed in the backward pass instead
/// of kept from the forward pass (`jax.checkpoint` / `jax.remat`, PyTorch's
/// `torch.utils.checkpoint`): the gradient keeps what `policy` says and the region's
/// inputs, and computes the rest again, from behind an `optimization_barrier` so it is not
/// merged back into the forward pass. Memory falls (the region's activations live only
/// during its forward and its backward), FLOPs rise by the recomputed part; the values and
/// gradients are the same. Applied per layer, it is the usual activation checkpointing
/// (`docs/autodiff.md`, Recomputing activations).
///
/// ```
/// use shardc::{DType, RematPolicy, Tensor, TensorType, jit, remat};
/// let t = TensorType::new(DType::F32, [8, 8]);
/// let loss = jit(|a: &[Tensor]| {
///     let h = remat(RematPolicy::Nothing, || a[0].matmul(&a[1]).tanh());
///     h.sum(&[0, 1])
/// })
/// .lower(&[t.clone(), t])?;
/// let grads = loss.grad(&[1])?;
/// // The backward pass computes the matmul and tanh again, from behind a barrier.
/// assert!(grads.as_text().contains("stablehlo.optimization_barrier"));
/// # Ok::<(), shardc::Error>(())
/// ```
pub fn remat<R>(policy: RematPolicy, f: impl FnOnce() -> R) -> R {
    /// Closes the region when `f` returns or unwinds.
    struct Open;
    impl Drop for Open {
        fn drop(&mut self) {
            REMATS.with(|r| r.borrow_mut().pop());
        }
    }
    let id = REMAT_COUNT.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let keep = match &policy {
        RematPolicy::Nothing => "nothing".to_string(),
        RematPolicy::Dots => "dots".to_string(),
        RematPolicy::Names(names) => format!("names={}", names.join(",")),
    };
    REMATS.with(|r| r.borrow_mut().push(format!("{id}:{keep}")));
    let _open = Open;
    f()
}

/// Traces `f` in a scope called `name`, as JAX's `jax.named_scope` and PyTorch's module
/// paths name what a layer computes: every op traced in it records its path
/// (`blocks.0/attn/dot_general` for a `dot_general` in `attn` in `blocks.0`; the
/// attribute `jax.op_path`, as JAX writes it), and so does its gradient's op
/// (`grad/blocks.0/attn/...`). Explanations and [`Compiled::decisions`](crate::Compiled::decisions)
/// name values by these paths, so a snapshot of a model's decisions reads by layer and
/// stays as it was when a layer is added elsewhere.
///
/// ```
/// use shardc::{DType, Tensor, TensorType, jit, named_scope};
/// let t = TensorType::new(DType::F32, [4, 4]);
/// let lowered = jit(|a: &[Tensor]| named_scope("mlp", || (&a[0] * &a[1]).tanh()))
///     .lower(&[t.clone(), t])?;
/// assert!(lowered.as_text().contains("jax.op_path = \"mlp/tanh\""));
/// # Ok::<(), shardc::Error>(())
/// ```
pub fn named_scope<R>(name: &str, f: impl FnOnce() -> R) -> R {
    /// Closes the scope when `f` returns or unwinds.
    struct Open;
    impl Drop for Open {
        fn drop(&mut self) {
            SCOPES.with(|s| s.borrow_mut().pop());
        }
    }
    SCOPES.with(|s| s.borrow_mut().push(name.to_string()));
    let _open = Open;
    f()
}

/// A traced value: a handle on one value of the program being built.
/// Cloning is cheap; operators take `&Tensor` or `Tensor`.
#[derive(Clone)]
pub struct Tensor {
    ctx: Ctx,
    id: ValueId,
    ty: TensorType,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor({} {})", self.id, self.ty)
    }
}

impl Tensor {
    pub(crate) fn from_value(ctx: &Ctx, id: ValueId) -> Tensor {
        let ty = ctx.borrow().builder.ty(id).clone();
        Tensor {
            ctx: ctx.clone(),
            id,
            ty,
        }
    }

    pub(crate) fn id(&self) -> ValueId {
        self.id
    }

    pub(crate) fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// Its type: element type and shape.
    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// Its shape.
    pub fn shape(&self) -> &[usize] {
        &self.ty.shape
    }

    /// Its element type.
    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    /// How many dimensions it has.
    pub fn rank(&self) -> usize {
        self.ty.rank()
    }

    /// Records the first tracing error; later ones are consequences of it.
    fn fail(
        &self,
        method: &'static str,
        at: &'static Location<'static>,
        source: IrError,
    ) -> Tensor {
        let mut st = self.ctx.borrow_mut();
        if st.error.is_none() {
            st.error = Some(Error::Trace {
                method,
                at,
                source: Box::new(source),
            });
        }
        self.clone()
    }

    /// Adds one op with one result; on a typing error records it and returns `self`.
    pub(crate) fn push(
        &self,
        method: &'static str,
        at: &'static Location<'static>,
        kind: OpKind,
        operands: &[&Tensor],
        declared: Option<TensorType>,
    ) -> Tensor {
        let ids: Vec<ValueId> = operands.iter().map(|t| t.id).collect();
        let r = {
            let mut st = self.ctx.borrow_mut();
            match declared {
                Some(t) => st.scoped().push1_typed(kind, &ids, t),
                None => st.scoped().push1(kind, &ids),
            }
        };
        match r {
            Ok(v) => Tensor::from_value(&self.ctx, v),
            Err(e) => self.fail(method, at, e),
        }
    }

    /// Names this value for a [`remat`] region's policy ([`RematPolicy::Names`]: JAX's
    /// `checkpoint_name`); the value itself is unchanged. An argument has nothing to name
    /// (a region's inputs are always kept).
    pub fn remat_name(&self, name: &str) -> Tensor {
        let mut st = self.ctx.borrow_mut();
        let def = st.builder.func().value(self.id).def;
        if let shardc_ir::ValueDef::OpResult { op, .. } = def {
            let attrs = &mut st.builder.op_mut(op).attrs;
            attrs.retain(|(k, _)| k != shardc_ir::REMAT_NAME);
            attrs.push((shardc_ir::REMAT_NAME.to_string(), shardc_ir::quoted(name)));
        }
        drop(st);
        self.clone()
    }

    /// Records a user error of a layer built on `Tensor` (as the model presets of
    /// `shardc-train` are): the trace fails with `method`'s name, the caller's location,
    /// the rule broken and the fix; the tensor returned stands in so tracing can go on.
    pub fn user_error(
        &self,
        method: &'static str,
        at: &'static Location<'static>,
        rule: String,
        fix: &str,
    ) -> Tensor {
        let source = IrError::InvalidOp {
            at: "the traced program".into(),
            op: method.to_string(),
            rule,
            fix: fix.to_string(),
        };
        self.fail(method, at, source)
    }

    /// A constant of this tensor's dtype with the given shape, filled with `value`.
    pub fn full(&self, shape: &[usize], value: f64) -> Tensor {
        let lit = Literal::splat(TensorType::new(self.dtype(), shape), Scalar::Float(value));
        let v = self.ctx.borrow_mut().scoped().constant(lit);
        Tensor::from_value(&self.ctx, v)
    }

    /// A scalar constant of this tensor's dtype.
    pub fn scalar(&self, value: f64) -> Tensor {
        self.full(&[], value)
    }

    /// A constant tensor from a literal.
    pub fn constant(&self, lit: Literal) -> Tensor {
        let v = self.ctx.borrow_mut().scoped().constant(lit);
        Tensor::from_value(&self.ctx, v)
    }

    /// `op` applied elementwise (`stablehlo.negate`, `exponential`, ...).
    #[track_caller]
    pub fn unary(&self, op: UnaryOp) -> Tensor {
        self.push(
            op.name(),
            Location::caller(),
            OpKind::Unary(op),
            &[self],
            None,
        )
    }

    /// Broadcasts to `shape` numpy-style (trailing dimensions aligned; size-1 dims stretch).
    #[track_caller]
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor {
        let at = Location::caller();
        if self.shape() == shape {
            return self.clone();
        }
        let (r, n) = (self.rank(), shape.len());
        if r > n {
            return self.user_error(
                "broadcast_to",
                at,
                format!("cannot broadcast {} to the lower rank {shape:?}", self.ty),
                "reshape or reduce the tensor first",
            );
        }
        let dims: Vec<usize> = (n - r..n).collect();
        for (i, &d) in dims.iter().enumerate() {
            if self.shape()[i] != 1 && self.shape()[i] != shape[d] {
                return self.user_error(
                    "broadcast_to",
                    at,
                    format!(
                        "dimension {i} of {} (size {}) cannot stretch to {}",
                        self.ty,
                        self.shape()[i],
                        shape[d]
                    ),
                    "only size-1 dimensions broadcast",
                );
            }
        }
        self.push(
            "broadcast_to",
            at,
            OpKind::BroadcastInDim { dims },
            &[self],
            Some(TensorType::new(self.dtype(), shape)),
        )
    }

    /// `broadcast_in_dim` with explicit dimension mapping.
    #[track_caller]
    pub fn broadcast_in_dim(&self, shape: &[usize], dims: &[usize]) -> Tensor {
        let t = TensorType::new(self.dtype(), shape);
        self.push(
            "broadcast_in_dim",
            Location::caller(),
            OpKind::BroadcastInDim {
                dims: dims.to_vec(),
            },
            &[self],
            Some(t),
        )
    }

    /// Binary op with numpy broadcasting of both operands to a common shape.
    #[track_caller]
    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> Tensor {
        let at = Location::caller();
        let (a, b) = match broadcast_pair(self, other) {
            Ok(p) => p,
            Err(rule) => {
                return self.user_error(
                    op.name(),
                    at,
                    rule,
                    "make the shapes broadcast-compatible",
                );
            }
        };
        self.push(op.name(), at, OpKind::Binary(op), &[&a, &b], None)
    }

    /// An elementwise comparison, giving booleans (numpy broadcasting).
    #[track_caller]
    pub fn compare(&self, direction: ComparisonDirection, other: &Tensor) -> Tensor {
        let at = Location::caller();
        let (a, b) = match broadcast_pair(self, other) {
            Ok(p) => p,
            Err(rule) => {
                return self.user_error(
                    "compare",
                    at,
                    rule,
                    "make the shapes broadcast-compatible",
                );
            }
        };
        let compare_type = Some(if a.dtype().is_float() {
            ComparisonType::Float
        } else {
            ComparisonType::Signed
        });
        self.push(
            "compare",
            at,
            OpKind::Compare {
                direction,
                compare_type,
            },
            &[&a, &b],
            None,
        )
    }

    /// `where(pred, on_true, on_false)`, with broadcasting of all three.
    #[track_caller]
    pub fn select(pred: &Tensor, on_true: &Tensor, on_false: &Tensor) -> Tensor {
        let at = Location::caller();
        let shape = match broadcast_shape(&broadcast_shape_or(pred, on_true), on_false.shape()) {
            Some(s) => s,
            None => {
                return pred.user_error(
                    "select",
                    at,
                    format!(
                        "shapes {:?}, {:?}, {:?} do not broadcast together",
                        pred.shape(),
                        on_true.shape(),
                        on_false.shape()
                    ),
                    "make the shapes broadcast-compatible",
                );
            }
        };
        let (p, t, f) = (
            pred.broadcast_to(&shape),
            on_true.broadcast_to(&shape),
            on_false.broadcast_to(&shape),
        );
        pred.push("select", at, OpKind::Select, &[&p, &t, &f], None)
    }

    /// The values in another element type (`stablehlo.convert`).
    #[track_caller]
    pub fn convert(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype() {
            return self.clone();
        }
        self.push(
            "convert",
            Location::caller(),
            OpKind::Convert,
            &[self],
            Some(self.ty.with_dtype(dtype)),
        )
    }

    /// The same elements in another shape, row-major.
    #[track_caller]
    pub fn reshape(&self, shape: &[usize]) -> Tensor {
        let t = TensorType::new(self.dtype(), shape);
        self.push(
            "reshape",
            Location::caller(),
            OpKind::Reshape,
            &[self],
            Some(t),
        )
    }

    /// The dimensions reordered: result dimension `i` is dimension `permutation[i]`.
    #[track_caller]
    pub fn transpose(&self, permutation: &[usize]) -> Tensor {
        self.push(
            "transpose",
            Location::caller(),
            OpKind::Transpose {
                permutation: permutation.to_vec(),
            },
            &[self],
            None,
        )
    }

    /// Swaps the last two dimensions.
    #[track_caller]
    pub fn t(&self) -> Tensor {
        let r = self.rank();
        let mut p: Vec<usize> = (0..r).collect();
        if r >= 2 {
            p.swap(r - 2, r - 1);
        }
        self.transpose(&p)
    }

    /// `shardc.rotate`, `jnp.roll(x, shift, axis=dimension)`: element `i` along `dimension`
    /// becomes element `(i + shift) mod n`, the last `shift` wrapping to the front. Along a
    /// dimension sharded in blocks that divide `shift` it partitions as a
    /// `collective_permute` of whole blocks (a pipeline's shift between stages).
    #[track_caller]
    pub fn roll(&self, shift: i64, dimension: usize) -> Tensor {
        self.push(
            "roll",
            Location::caller(),
            OpKind::Rotate { dimension, shift },
            &[self],
            None,
        )
    }

    /// `stablehlo.slice` with unit strides.
    #[track_caller]
    pub fn slice(&self, start: &[usize], limit: &[usize]) -> Tensor {
        let kind = OpKind::Slice {
            start: start.to_vec(),
            limit: limit.to_vec(),
            strides: vec![1; start.len()],
        };
        self.push("slice", Location::caller(), kind, &[self], None)
    }

    /// Concatenates `self` and `others` along `dimension`.
    #[track_caller]
    pub fn concatenate(&self, others: &[&Tensor], dimension: usize) -> Tensor {
        let parts: Vec<&Tensor> = std::iter::once(self)
            .chain(others.iter().copied())
            .collect();
        self.push(
            "concatenate",
            Location::caller(),
            OpKind::Concatenate { dimension },
            &parts,
            None,
        )
    }

    /// `stablehlo.dot_general` with explicit batching and contracting dimensions.
    #[track_caller]
    pub fn dot_general(
        &self,
        rhs: &Tensor,
        batch: (&[usize], &[usize]),
        contracting: (&[usize], &[usize]),
    ) -> Tensor {
        let dims = DotDims {
            lhs_batch: batch.0.to_vec(),
            rhs_batch: batch.1.to_vec(),
            lhs_contracting: contracting.0.to_vec(),
            rhs_contracting: contracting.1.to_vec(),
            precision: Vec::new(),
            algorithm: None,
        };
        self.push(
            "dot_general",
            Location::caller(),
            OpKind::DotGeneral(dims),
            &[self, rhs],
            None,
        )
    }

    /// Matrix product like `x @ w`: the last dimension of `self` contracts with the first of a
    /// rank-2 `rhs`; tensors of equal rank >= 3 are batched over their leading dimensions.
    #[track_caller]
    pub fn matmul(&self, rhs: &Tensor) -> Tensor {
        let at = Location::caller();
        let (l, r) = (self.rank(), rhs.rank());
        if l == 0 || r == 0 {
            return self.user_error(
                "matmul",
                at,
                "matmul needs operands of rank >= 1".into(),
                "use `*` for scalars",
            );
        }
        if r <= 2 {
            return self.push(
                "matmul",
                at,
                OpKind::DotGeneral(DotDims {
                    lhs_contracting: vec![l - 1],
                    rhs_contracting: vec![0],
                    ..DotDims::default()
                }),
                &[self, rhs],
                None,
            );
        }
        if l != r {
            return self.user_error(
                "matmul",
                at,
                format!(
                    "batched matmul needs operands of equal rank, got {} and {}",
                    self.ty, rhs.ty
                ),
                "broadcast the batch dimensions first",
            );
        }
        let batch: Vec<usize> = (0..l - 2).collect();
        self.push(
            "matmul",
            at,
            OpKind::DotGeneral(DotDims {
                lhs_batch: batch.clone(),
                rhs_batch: batch,
                lhs_contracting: vec![l - 1],
                rhs_contracting: vec![r - 2],
                precision: Vec::new(),
                algorithm: None,
            }),
            &[self, rhs],
            None,
        )
    }

    /// Reduces over `dims` with a single-op reducer starting from `init`.
    #[track_caller]
    pub fn reduce(&self, dims: &[usize], op: BinaryOp, init: f64) -> Tensor {
        let at = Location::caller();
        let init = self.scalar(init);
        let r = self
            .ctx
            .borrow_mut()
            .scoped()
            .reduce(self.id, init.id, dims, op);
        match r {
            Ok(v) => Tensor::from_value(&self.ctx, v),
            Err(e) => self.fail("reduce", at, e),
        }
    }

    /// Pins this value's layout: `sdy.sharding_constraint` (JAX's `with_sharding_constraint`).
    #[track_caller]
    pub fn with_sharding_constraint(&self, spec: PartitionSpec) -> Tensor {
        let at = Location::caller();
        let mesh = self.ctx.borrow().mesh.clone();
        match spec.to_sharding(&mesh, self.rank()) {
            Ok(s) => self.push(
                "with_sharding_constraint",
                at,
                OpKind::ShardingConstraint(s),
                &[self],
                None,
            ),
            Err(rule) => self.user_error(
                "with_sharding_constraint",
                at,
                rule,
                "give at most one entry per dimension",
            ),
        }
    }

    /// Counter-based random numbers of `shape` from this scalar `i64` seed: the same global
    /// tensor however it is sharded.
    #[track_caller]
    pub fn random(&self, distribution: Distribution, dtype: DType, shape: &[usize]) -> Tensor {
        let t = TensorType::new(dtype, shape);
        self.push(
            "random",
            Location::caller(),
            OpKind::Random { distribution },
            &[self],
            Some(t),
        )
    }

    /// `iota` of this tensor's dtype along `dimension` of `shape`.
    #[track_caller]
    pub fn iota(&self, dtype: DType, shape: &[usize], dimension: usize) -> Tensor {
        let t = TensorType::new(dtype, shape);
        self.push(
            "iota",
            Location::caller(),
            OpKind::Iota { dimension },
            &[],
            Some(t),
        )
    }

    /// The block of `sizes` starting at `starts`, one integer scalar per dimension
    /// (`stablehlo.dynamic_slice`, `lax.dynamic_slice`): each start is clamped so the
    /// block lies inside the tensor.
    #[track_caller]
    pub fn dynamic_slice(&self, starts: &[&Tensor], sizes: &[usize]) -> Tensor {
        let mut operands = vec![self];
        operands.extend(starts);
        let kind = OpKind::DynamicSlice {
            sizes: sizes.to_vec(),
        };
        self.push("dynamic_slice", Location::caller(), kind, &operands, None)
    }

    /// Embedding lookup: rows of this `[V, D]` table at integer `indices` of any shape,
    /// giving `indices.shape + [D]` (a `stablehlo.gather`).
    #[track_caller]
    pub fn take_rows(&self, indices: &Tensor) -> Tensor {
        let at = Location::caller();
        if self.rank() != 2 {
            return self.user_error(
                "take_rows",
                at,
                format!("the table must have rank 2, got {}", self.ty),
                "reshape it to [V, D]",
            );
        }
        let n = indices.rank();
        let g = shardc_ir::GatherDims {
            offset_dims: vec![n],
            collapsed_slice_dims: vec![0],
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
            start_index_map: vec![0],
            index_vector_dim: n,
            slice_sizes: vec![1, self.shape()[1]],
            indices_are_sorted: false,
        };
        self.push("take_rows", at, OpKind::Gather(g), &[self, indices], None)
    }
}

fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let get = |s: &[usize], i: usize| {
        if i + s.len() >= n {
            s[i + s.len() - n]
        } else {
            1
        }
    };
    (0..n)
        .map(|i| match (get(a, i), get(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

fn broadcast_shape_or(a: &Tensor, b: &Tensor) -> Vec<usize> {
    broadcast_shape(a.shape(), b.shape()).unwrap_or_else(|| a.shape().to_vec())
}

/// Both operands broadcast to their common shape, or why they cannot be.
#[track_caller]
fn broadcast_pair(a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor), String> {
    let shape = broadcast_shape(a.shape(), b.shape()).ok_or_else(|| {
        format!(
            "shapes {:?} and {:?} do not broadcast together",
            a.shape(),
            b.shape()
        )
    })?;
    Ok((a.broadcast_to(&shape), b.broadcast_to(&shape)))
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl std::ops::$trait<&Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                self.binary($op, rhs)
            }
        }
        impl std::ops::$trait<Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                self.binary($op, &rhs)
            }
        }
        impl std::ops::$trait<&Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                self.binary($op, rhs)
            }
        }
        impl std::ops::$trait<Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                self.binary($op, &rhs)
            }
        }
        impl std::ops::$trait<f64> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: f64) -> Tensor {
                self.binary($op, &self.scalar(rhs))
            }
        }
        impl std::ops::$trait<f64> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: f64) -> Tensor {
                self.binary($op, &self.scalar(rhs))
            }
        }
    };
}

binary_operator!(Add, add, BinaryOp::Add);
binary_operator!(Sub, sub, BinaryOp::Subtract);
binary_operator!(Mul, mul, BinaryOp::Multiply);
binary_operator!(Div, div, BinaryOp::Divide);

impl std::ops::Neg for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        self.unary(UnaryOp::Negate)
    }
}

impl std::ops::Neg for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        self.unary(UnaryOp::Negate)
    }
}

/// Runs `body` `trips` times over the carried values `init` (JAX's `lax.fori_loop`): one
/// `stablehlo.while` whose body is traced once, not `trips` copies of it. `body` gets the
/// iteration number (an `i32` scalar from 0) and the carried values, and returns the next
/// ones, one per value of `init` and of the same type. Values traced outside the loop may
/// be read inside it (the loop captures them); values traced inside must not be used
/// after it. A loop that carries nothing computes nothing anyone can read: it returns an
/// empty vector and adds nothing.
///
/// Partitioning runs the loop on the pieces of its carried values when the body needs no
/// communication for them (a gradient accumulator that starts at zero may stay a partial
/// sum through the loop and be reduced once after it); otherwise it runs whole on every
/// device (`docs/partitioning.md`, Loops).
///
/// ```
/// use shardc::{DType, Tensor, TensorType, fori_loop, jit};
/// let t = TensorType::new(DType::F32, [4, 3]);
/// let sums = jit(|a: &[Tensor]| {
///     // The rows of `a[0]` summed one per iteration.
///     let acc = a[0].full(&[1, 3], 0.0);
///     let out = fori_loop(4, &[acc], |i, c| {
///         let zero = i.scalar(0.0);
///         vec![&c[0] + &a[0].dynamic_slice(&[i, &zero], &[1, 3])]
///     });
///     out[0].clone()
/// })
/// .lower(&[t])?;
/// assert!(sums.as_text().contains("stablehlo.while"));
/// # Ok::<(), shardc::Error>(())
/// ```
#[track_caller]
pub fn fori_loop(
    trips: usize,
    init: &[Tensor],
    body: impl FnOnce(&Tensor, &[Tensor]) -> Vec<Tensor>,
) -> Vec<Tensor> {
    let at = Location::caller();
    let Some(first) = init.first() else {
        return Vec::new();
    };
    let ctx = first.ctx().clone();
    let fail = |rule: String, fix: &str| {
        first.user_error("fori_loop", at, rule, fix);
        init.to_vec()
    };
    let Ok(limit) = i32::try_from(trips) else {
        return fail(
            format!("{trips} trips do not fit the loop's i32 counter"),
            "split the loop into loops of at most 2^31 - 1 trips",
        );
    };
    let counter = TensorType::scalar(DType::I32);
    let int = |v: i64| Literal::splat(counter.clone(), Scalar::Int(v));
    let mut types = vec![counter.clone()];
    types.extend(init.iter().map(|t| t.ty().clone()));
    let start = ctx.borrow_mut().scoped().constant(int(0));
    // cond: i < trips.
    let cond = {
        let mut st = ctx.borrow_mut();
        let b = st.scoped();
        let args = b.begin_block(&types);
        let bound = b.constant(int(i64::from(limit)));
        let kind = OpKind::Compare {
            direction: ComparisonDirection::Lt,
            compare_type: Some(ComparisonType::Signed),
        };
        let go = b.push1(kind, &[args[0], bound]);
        let go = go.map(|g| b.end_block(&[g]));
        match go {
            Ok(block) => block,
            Err(e) => {
                drop(st);
                first.fail("fori_loop", at, e);
                return init.to_vec();
            }
        }
    };
    // body: (i + 1, body(i, carried)).
    let args = ctx.borrow_mut().scoped().begin_block(&types);
    let tensors: Vec<Tensor> = args.iter().map(|&v| Tensor::from_value(&ctx, v)).collect();
    let next = body(&tensors[0], &tensors[1..]);
    let mismatch = if next.len() != init.len() {
        Some(format!(
            "the body returned {} value(s) but the loop carries {}",
            next.len(),
            init.len()
        ))
    } else {
        next.iter()
            .zip(init)
            .enumerate()
            .find(|(_, (n, i))| n.ty() != i.ty())
            .map(|(k, (n, i))| {
                format!(
                    "the body returned {} for carried value {k}, which is {}",
                    n.ty(),
                    i.ty()
                )
            })
    };
    let one = tensors[0].constant(int(1));
    let step = &tensors[0] + &one;
    let mut results = vec![step.id()];
    match &mismatch {
        None => results.extend(next.iter().map(Tensor::id)),
        // Close the block on its arguments so the trace stays well formed.
        Some(_) => results.extend(args[1..].iter().copied()),
    }
    let body_block = ctx.borrow_mut().scoped().end_block(&results);
    if let Some(rule) = mismatch {
        return fail(rule, "return one value per carried value, each of its type");
    }
    let mut operands = vec![start];
    operands.extend(init.iter().map(Tensor::id));
    let r = ctx.borrow_mut().scoped().push_region_op(
        OpKind::While,
        &operands,
        Some(&types),
        vec![cond, body_block],
    );
    match r {
        Ok(op) => {
            let out = ctx.borrow().builder.func().op(op).results.clone();
            out[1..]
                .iter()
                .map(|&v| Tensor::from_value(&ctx, v))
                .collect()
        }
        Err(e) => {
            first.fail("fori_loop", at, e);
            init.to_vec()
        }
    }
}

/// `Lowered::call`: adds the callee module's functions (renamed so they cannot clash) and a
/// `func.call` of its entry.
pub(crate) fn call_lowered(
    m: &shardc_ir::Module,
    args: &[Tensor],
    at: &'static Location<'static>,
) -> Vec<Tensor> {
    let Some(first) = args.first() else {
        return Vec::new();
    };
    let ctx = first.ctx().clone();
    let fail = |rule: String| {
        let source = IrError::InvalidOp {
            at: "the traced program".into(),
            op: "call".into(),
            rule,
            fix: "pass one tensor per argument of the called program, traced on the same mesh"
                .into(),
        };
        let mut st = ctx.borrow_mut();
        if st.error.is_none() {
            st.error = Some(Error::Trace {
                method: "call",
                at,
                source: Box::new(source),
            });
        }
        drop(st);
        args.to_vec()
    };
    let Some(entry) = m.entry() else {
        return fail("the called program has no function".into());
    };
    if entry.args().len() != args.len() {
        return fail(format!(
            "the called program takes {} argument(s) but {} were given",
            entry.args().len(),
            args.len()
        ));
    }
    for (i, (a, t)) in args.iter().zip(entry.arg_types()).enumerate() {
        if *a.ty() != t {
            return fail(format!(
                "argument {i} is {} but the called program takes {t}",
                a.ty()
            ));
        }
    }
    let mesh = ctx.borrow().mesh.clone();
    if let Some(other) = m.meshes.iter().find(|x| x.name != mesh) {
        return fail(format!(
            "the called program uses mesh @{} but this trace uses @{mesh}",
            other.name
        ));
    }
    // Rename every function of the callee with a prefix unique in this trace.
    let prefix = format!(
        "{}_{}",
        m.name.as_deref().unwrap_or("call"),
        ctx.borrow().callees.len()
    );
    let rename = |n: &str| format!("{prefix}_{n}");
    let callee = rename(&entry.name);
    {
        let mut st = ctx.borrow_mut();
        for f in &m.functions {
            let mut g = f.clone();
            g.name = rename(&f.name);
            g.visibility = shardc_ir::Visibility::Private;
            for op in &mut g.ops {
                if let OpKind::Call { callee } = &mut op.kind {
                    *callee = rename(callee);
                }
            }
            st.callees.push(g);
        }
    }
    let ids: Vec<ValueId> = args.iter().map(|t| t.id()).collect();
    let types = entry.result_types();
    let r = ctx
        .borrow_mut()
        .scoped()
        .push(OpKind::Call { callee }, &ids, Some(&types), Vec::new());
    match r {
        Ok(op) => {
            let results = ctx.borrow().builder.func().op(op).results.clone();
            results
                .iter()
                .map(|&v| Tensor::from_value(&ctx, v))
                .collect()
        }
        Err(e) => {
            let mut st = ctx.borrow_mut();
            if st.error.is_none() {
                st.error = Some(Error::Trace {
                    method: "call",
                    at,
                    source: Box::new(e),
                });
            }
            drop(st);
            args.to_vec()
        }
    }
}
