//! Random valid modules for property tests (enabled by the `testing` feature).
//!
//! Every generator is driven by [`Choices`], a stream of random numbers read one decision at
//! a time. A proptest strategy generates the stream (`vec(any::<u32>(), ..)`), and shrinking
//! it (shorter, smaller numbers) gives simpler programs: an exhausted stream answers 0, the
//! first and simplest option, to every decision. The deterministic `gen_*` functions take a
//! `&mut Choices`; the `arb_*` functions wrap them as proptest strategies.
//!
//! Programs are built with [`FunctionBuilder`], so every op is type-correct, and every
//! sharding divides the dimensions it splits: [`gen_module`] always passes
//! [`verify_module`](crate::verify_module).
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! use shardc_ir::{testing::arb_module, verify_module};
//!
//! let mut runner = TestRunner::deterministic();
//! let m = arb_module().new_tree(&mut runner).unwrap().current();
//! verify_module(&m).unwrap();
//! ```
#![cfg(feature = "testing")]

use crate::builder::FunctionBuilder;
use crate::dtype::{DType, TensorType};
use crate::infer;
use crate::literal::{Elements, Literal};
use crate::mesh::Mesh;
use crate::module::{Function, Module, ValueAttrs, ValueId, Visibility};
use crate::op::{
    BinaryOp, ComparisonDirection, ComparisonType, Distribution, DotDims, GatherDims, OpKind,
    Precision, UnaryOp,
};
use crate::sharding::{AxisRef, DimSharding, Reduction, Sharding, SubAxis};
pub mod jax;

use proptest::collection::vec;
use proptest::prelude::*;

/// A stream of random decisions. Reading past its end gives 0 (the simplest choice).
#[derive(Clone, Debug)]
pub struct Choices {
    values: Vec<u32>,
    next: usize,
}

impl Choices {
    /// The decisions `values`, read in order.
    pub fn new(values: Vec<u32>) -> Choices {
        Choices { values, next: 0 }
    }

    fn raw(&mut self) -> u32 {
        let v = self.values.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        v
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        let v = self.raw() as usize;
        if n == 0 { 0 } else { v % n }
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1).max(1) as usize) as i64
    }

    /// `true` once in `n` times (never for an exhausted stream).
    pub fn one_in(&mut self, n: usize) -> bool {
        n > 0 && self.below(n) == n - 1
    }

    /// One of `items` (which must not be empty).
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// 64 random bits.
    pub fn bits(&mut self) -> u64 {
        (u64::from(self.raw()) << 32) | u64::from(self.raw())
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i + 1);
            p.swap(i, j);
        }
        p
    }
}

/// A stream of `len / 4` to `len` decisions.
pub fn choices(len: usize) -> impl Strategy<Value = Choices> {
    vec(any::<u32>(), len / 4..=len).prop_map(Choices::new)
}

// ----- types, literals, meshes, shardings -----

/// Dimension sizes the generators use: small, and divisible by the usual mesh axes.
const DIMS: &[usize] = &[1, 2, 3, 4, 6, 8];

/// Dimension sizes of uneven programs: most of them not multiples of the mesh axes.
const UNEVEN_DIMS: &[usize] = &[2, 3, 5, 6, 7, 8];

/// Any element type.
pub fn gen_dtype(c: &mut Choices) -> DType {
    c.pick(&DType::ALL)
}

/// A shape of rank 0 to `max_rank` with sizes from 1 to 8.
pub fn gen_shape(c: &mut Choices, max_rank: usize) -> Vec<usize> {
    let rank = c.below(max_rank + 1);
    (0..rank).map(|_| c.pick(DIMS)).collect()
}

/// A tensor type of any element type and rank 0 to 3.
pub fn gen_tensor_type(c: &mut Choices) -> TensorType {
    let dtype = gen_dtype(c);
    TensorType::new(dtype, gen_shape(c, 3))
}

/// A float's bits: often a special value (NaN with and without payload, infinities, signed
/// zeros, subnormals, the largest finite value), else simple values or random bits.
fn float_bits(c: &mut Choices, dtype: DType) -> u64 {
    let (exp_bits, man_bits) = match dtype {
        DType::F64 => (11, 52),
        DType::F32 => (8, 23),
        DType::F16 => (5, 10),
        _ => (8, 7),
    };
    let width = 1 + exp_bits + man_bits;
    let sign = 1u64 << (width - 1);
    let inf = ((1u64 << exp_bits) - 1) << man_bits;
    let quiet = 1u64 << (man_bits - 1);
    match c.below(12) {
        0 => inf | quiet,                 // canonical NaN
        1 => sign | inf | quiet | 1,      // negative NaN with a payload
        2 => inf,                         // +inf
        3 => sign | inf,                  // -inf
        4 => sign,                        // -0.0
        5 => 1 + c.below(3) as u64,       // smallest subnormals
        6 => (1u64 << man_bits) - 1,      // largest subnormal
        7 => inf - 1 - c.below(4) as u64, // near the largest finite
        8..=9 => {
            // A small integer or half-integer, exactly representable.
            let v = c.range(-8, 8) as f64 / if c.one_in(2) { 2.0 } else { 1.0 };
            Elements::from_f64(dtype, &[v]).bits(0)
        }
        _ => {
            c.bits()
                & if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                }
        }
    }
}

/// A literal of a type: a splat a third of the time (and always for more than 64
/// elements), else one element per position. Floats include NaNs, infinities, -0.0 and
/// subnormals.
pub fn gen_literal(c: &mut Choices, ty: &TensorType) -> Literal {
    // Splats a third of the time, and for large types (to keep the decisions for ops).
    let n = if c.one_in(3) || ty.num_elements() > 64 {
        1
    } else {
        ty.num_elements()
    };
    let bits: Vec<u64> = (0..n)
        .map(|_| match ty.dtype {
            DType::I1 => c.below(2) as u64,
            DType::I32 => {
                if c.one_in(4) {
                    c.bits() & 0xFFFF_FFFF
                } else {
                    c.range(-100, 100) as i32 as u32 as u64
                }
            }
            DType::I64 => {
                if c.one_in(4) {
                    c.bits()
                } else {
                    c.range(-100, 100) as u64
                }
            }
            d => float_bits(c, d),
        })
        .collect();
    Literal {
        ty: ty.clone(),
        elements: Elements::from_bits(ty.dtype, &bits),
    }
}

const AXIS_NAMES: &[&str] = &["data", "model", "x", "y", "pipe"];

/// A 1-D or 2-D mesh named `name` with axes of size 1 to 4, sometimes with an explicit
/// device order.
pub fn gen_mesh(c: &mut Choices, name: &str) -> Mesh {
    gen_mesh_of(c, name, &[2, 4, 1, 3, 8])
}

/// A 1-D or 2-D mesh with axis sizes from `sizes`.
fn gen_mesh_of(c: &mut Choices, name: &str, sizes: &[usize]) -> Mesh {
    let rank = 1 + c.below(2);
    let first = c.below(AXIS_NAMES.len());
    let axes: Vec<(&str, usize)> = (0..rank)
        .map(|i| (AXIS_NAMES[(first + i) % AXIS_NAMES.len()], c.pick(sizes)))
        .collect();
    let mesh = Mesh::new(name, &axes).expect("distinct names and positive sizes make a valid mesh");
    if c.one_in(4) {
        let ids = c.permutation(mesh.num_devices());
        return mesh
            .with_device_ids(ids)
            .expect("a permutation is a valid device order");
    }
    mesh
}

/// The pieces of a mesh a sharding may use: whole axes, or an axis split in two sub-axes.
fn axis_units(c: &mut Choices, mesh: &Mesh) -> Vec<(AxisRef, usize)> {
    let mut units = Vec::new();
    for a in &mesh.axes {
        let split = (2..a.size).find(|d| a.size % d == 0);
        match split {
            Some(d) if c.one_in(3) => {
                for (pre_size, size) in [(1, d), (d, a.size / d)] {
                    if size > 1 {
                        let sub = Some(SubAxis { pre_size, size });
                        units.push((
                            AxisRef {
                                name: a.name.clone(),
                                sub,
                            },
                            size,
                        ));
                    }
                }
            }
            _ => units.push((AxisRef::new(&a.name), a.size)),
        }
    }
    let order = c.permutation(units.len());
    order.into_iter().map(|i| units[i].clone()).collect()
}

/// A sharding of a tensor of type `ty` on `mesh` that the verifier accepts: each dimension
/// split over axes whose sizes multiply to a divisor of it, open dimensions, priorities,
/// sub-axes, replicated axes and unreduced axes with a reduction.
pub fn gen_sharding(c: &mut Choices, mesh: &Mesh, ty: &TensorType) -> Sharding {
    sharding_of(c, mesh, ty, true, false)
}

/// A sharding as [`gen_sharding`] makes them, with unreduced axes only if `unreduced`, and
/// axes that need not divide the dimensions they split if `uneven` (padded shardings).
fn sharding_of(
    c: &mut Choices,
    mesh: &Mesh,
    ty: &TensorType,
    unreduced: bool,
    uneven: bool,
) -> Sharding {
    let mut units = axis_units(c, mesh);
    let mut dims = Vec::with_capacity(ty.rank());
    for &size in &ty.shape {
        let mut d = DimSharding::default();
        let mut shards = 1;
        units.retain(|(axis, n)| {
            if (uneven || size % (shards * n) == 0) && c.one_in(2) {
                shards *= n;
                d.axes.push(axis.clone());
                false
            } else {
                true
            }
        });
        d.open = c.one_in(5);
        if c.one_in(6) {
            d.priority = Some(c.below(3) as u32);
        }
        dims.push(d);
    }
    let mut s = Sharding::new(&mesh.name, dims);
    for (axis, _) in units {
        match c.below(6) {
            0 => s.replicated.push(axis),
            1 if unreduced => s.unreduced.push(axis),
            _ => {}
        }
    }
    if !s.unreduced.is_empty() {
        s.reduction = c.pick(&[Reduction::Sum, Reduction::Max, Reduction::Min]);
    }
    s
}

/// A sharding of `ty` on one of `meshes`, or `None` when there are none. Programs of the
/// `NumericF32` set get no unreduced axes (their inputs and outputs are whole values).
fn maybe_sharding(
    c: &mut Choices,
    meshes: &[Mesh],
    ty: &TensorType,
    set: OpSet,
    uneven: bool,
) -> Option<Sharding> {
    if meshes.is_empty() {
        return None;
    }
    let mesh = c.pick(meshes);
    Some(sharding_of(c, &mesh, ty, set == OpSet::All, uneven))
}

// ----- functions -----

/// Which ops a generated function may use.
#[derive(Copy, Clone, PartialEq, Eq)]
enum OpSet {
    /// Every op kind and dtype.
    All,
    /// f32 elementwise ops, dot_general, reduce, transpose, reshape, broadcast_in_dim and
    /// sharding constraints: what the interpreter and partitioner tests start from.
    NumericF32,
}

/// The function under construction and what it can draw from.
struct Gen<'a> {
    c: &'a mut Choices,
    b: FunctionBuilder,
    /// Values ops may use.
    pool: Vec<ValueId>,
    meshes: &'a [Mesh],
    callees: &'a [Function],
    set: OpSet,
    /// Dimension sizes the meshes' axes need not divide, and shardings that pad them.
    uneven: bool,
}

/// An op generator: adds one op (and the constants it needs) and returns its results, or
/// `None` if it does not apply to what was picked.
type OpGen = fn(&mut Gen<'_>) -> Option<Vec<ValueId>>;

/// Every op family, with its generator. `NumericF32` programs use the ones marked `true`.
const OP_GENS: &[(&str, OpGen, bool)] = &[
    ("unary", gen_unary, true),
    ("binary", gen_binary, true),
    ("compare", gen_compare, false),
    ("select", gen_select, false),
    ("clamp", gen_clamp, false),
    ("constant", gen_constant_op, false),
    ("iota", gen_iota, false),
    ("convert", gen_convert, false),
    ("broadcast_in_dim", gen_broadcast, true),
    ("reshape", gen_reshape, true),
    ("transpose", gen_transpose, true),
    ("slice", gen_slice, false),
    ("concatenate", gen_concatenate, false),
    ("pad", gen_pad, false),
    ("dot_general", gen_dot, true),
    ("reduce", gen_reduce, true),
    ("gather", gen_gather, false),
    ("random", gen_random, false),
    ("call", gen_call, false),
    ("sharding_constraint", gen_constraint, true),
];

/// The elementwise ops of `NumericF32` programs (numerically tame on any input).
const F32_UNARY: &[UnaryOp] = &[
    UnaryOp::Negate,
    UnaryOp::Abs,
    UnaryOp::Tanh,
    UnaryOp::Logistic,
    UnaryOp::Sine,
    UnaryOp::Cosine,
];
const F32_BINARY: &[BinaryOp] = &[
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
];

const COMMUTATIVE: &[BinaryOp] = &[
    BinaryOp::Add,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
];

fn ok<T>(r: Result<T, crate::IrError>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("the generator built an ill-typed op (a bug in shardc_ir::testing): {e}"),
    }
}

impl Gen<'_> {
    fn ty(&self, v: ValueId) -> TensorType {
        self.b.ty(v).clone()
    }

    /// A value from the pool that satisfies `pred`.
    fn value(&mut self, pred: impl Fn(&TensorType) -> bool) -> Option<ValueId> {
        let fits: Vec<ValueId> = self
            .pool
            .iter()
            .copied()
            .filter(|&v| pred(self.b.ty(v)))
            .collect();
        if fits.is_empty() {
            return None;
        }
        // Prefer recent values, so programs are chains more than fans.
        let i = fits.len() - 1 - self.c.below(fits.len()).min(self.c.below(fits.len()));
        Some(fits[i])
    }

    /// A dimension size (for f32 programs, one the usual mesh axes divide).
    fn dim(&mut self) -> usize {
        match self.set {
            OpSet::All => self.c.pick(DIMS),
            OpSet::NumericF32 if self.uneven => self.c.pick(UNEVEN_DIMS),
            OpSet::NumericF32 => self.c.pick(&[2, 4, 8]),
        }
    }

    fn dtype(&mut self) -> DType {
        match self.set {
            OpSet::All => gen_dtype(self.c),
            OpSet::NumericF32 => DType::F32,
        }
    }

    fn constant(&mut self, ty: &TensorType) -> ValueId {
        let lit = match self.set {
            OpSet::All => gen_literal(self.c, ty),
            OpSet::NumericF32 => small_f32_literal(self.c, ty),
        };
        self.b.constant(lit)
    }

    /// A pool value of type `ty`, or a new constant of it.
    fn value_of(&mut self, ty: &TensorType) -> ValueId {
        if self.c.one_in(3)
            && let Some(v) = self.value(|t| t == ty)
        {
            return v;
        }
        self.constant(ty)
    }

    fn scalar(&mut self, dtype: DType) -> ValueId {
        self.constant(&TensorType::scalar(dtype))
    }

    /// A pool value, or a new constant when the pool is empty.
    fn any(&mut self) -> ValueId {
        match self.value(|_| true) {
            Some(v) => v,
            None => {
                let dtype = self.dtype();
                let shape = gen_shape(self.c, 3);
                self.constant(&TensorType::new(dtype, shape))
            }
        }
    }

    fn one(
        &mut self,
        kind: OpKind,
        operands: &[ValueId],
        declared: Option<TensorType>,
    ) -> Option<Vec<ValueId>> {
        let v = match declared {
            Some(t) => ok(self.b.push1_typed(kind, operands, t)),
            None => ok(self.b.push1(kind, operands)),
        };
        Some(vec![v])
    }

    /// The op kinds of `candidates` whose typing rule accepts `operands`.
    fn accepted<K: Copy>(
        &self,
        candidates: &[K],
        kind: impl Fn(K) -> OpKind,
        operands: &[TensorType],
    ) -> Vec<K> {
        candidates
            .iter()
            .copied()
            .filter(|&k| infer::result_types(&kind(k), operands, None).is_ok())
            .collect()
    }
}

fn small_f32_literal(c: &mut Choices, ty: &TensorType) -> Literal {
    let n = ty.num_elements();
    let v: Vec<f64> = (0..n).map(|_| c.range(-16, 16) as f64 / 16.0).collect();
    Literal::from_f64(DType::F32, &ty.shape, &v).expect("one value per element")
}

fn gen_unary(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let ops = match g.set {
        OpSet::All => g.accepted(UnaryOp::ALL, OpKind::Unary, &[t]),
        OpSet::NumericF32 => F32_UNARY.to_vec(),
    };
    if ops.is_empty() {
        return None;
    }
    let u = g.c.pick(&ops);
    g.one(OpKind::Unary(u), &[x], None)
}

fn gen_binary(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let ops = match g.set {
        OpSet::All => g.accepted(BinaryOp::ALL, OpKind::Binary, &[t.clone(), t.clone()]),
        OpSet::NumericF32 => F32_BINARY.to_vec(),
    };
    if ops.is_empty() {
        return None;
    }
    let b = g.c.pick(&ops);
    let y = g.value_of(&t);
    g.one(OpKind::Binary(b), &[x, y], None)
}

fn compare_type_for(c: &mut Choices, d: DType) -> Option<ComparisonType> {
    if c.one_in(4) {
        return None;
    }
    Some(match d {
        _ if d.is_float() => c.pick(&[ComparisonType::Float, ComparisonType::TotalOrder]),
        DType::I1 => ComparisonType::Unsigned,
        _ => c.pick(&[ComparisonType::Signed, ComparisonType::Unsigned]),
    })
}

fn gen_compare(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let y = g.value_of(&t);
    let direction = g.c.pick(ComparisonDirection::ALL);
    let compare_type = compare_type_for(g.c, t.dtype);
    g.one(
        OpKind::Compare {
            direction,
            compare_type,
        },
        &[x, y],
        None,
    )
}

fn gen_select(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let y = g.value_of(&t);
    let pred_ty = if g.c.one_in(3) {
        TensorType::scalar(DType::I1)
    } else {
        t.with_dtype(DType::I1)
    };
    let pred = g.value_of(&pred_ty);
    g.one(OpKind::Select, &[pred, x, y], None)
}

fn gen_clamp(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let bound = |g: &mut Gen<'_>| {
        if g.c.one_in(2) {
            g.scalar(t.dtype)
        } else {
            g.value_of(&t)
        }
    };
    let (lo, hi) = (bound(g), bound(g));
    g.one(OpKind::Clamp, &[lo, x, hi], None)
}

fn gen_constant_op(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    if g.c.one_in(10) {
        // An empty tensor, kept out of the pool (ops on it would need special cases).
        let dtype = g.dtype();
        g.constant(&TensorType::new(dtype, [2, 0]));
        return Some(Vec::new());
    }
    let ty = if g.c.one_in(8) {
        // A large constant, which prints as a hex string.
        TensorType::new(g.dtype(), [4, 6])
    } else {
        gen_tensor_type(g.c)
    };
    Some(vec![g.constant(&ty)])
}

fn gen_iota(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let dtype = g.c.pick(&[DType::I32, DType::I64, DType::F32, DType::BF16]);
    let mut shape = gen_shape(g.c, 3);
    if shape.is_empty() {
        shape.push(g.dim());
    }
    let dimension = g.c.below(shape.len());
    g.one(
        OpKind::Iota { dimension },
        &[],
        Some(TensorType::new(dtype, shape)),
    )
}

fn gen_convert(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let to = g.ty(x).with_dtype(gen_dtype(g.c));
    g.one(OpKind::Convert, &[x], Some(to))
}

fn gen_broadcast(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.value(|t| t.rank() < 4)?;
    let t = g.ty(x);
    let rank = (t.rank() + g.c.below(3)).min(4).max(t.rank());
    let mut dims: Vec<usize> = g.c.permutation(rank).into_iter().take(t.rank()).collect();
    dims.sort_unstable();
    let mut shape: Vec<usize> = (0..rank).map(|_| g.dim()).collect();
    for (i, &d) in dims.iter().enumerate() {
        if t.shape[i] != 1 || g.c.one_in(2) {
            shape[d] = t.shape[i];
        }
    }
    g.one(
        OpKind::BroadcastInDim { dims },
        &[x],
        Some(TensorType::new(t.dtype, shape)),
    )
}

/// A shape with `n` elements: `n`'s prime factors dealt to up to 4 dimensions.
fn factor_shape(c: &mut Choices, n: usize) -> Vec<usize> {
    let mut factors = Vec::new();
    let (mut m, mut p) = (n, 2);
    while m > 1 && p * p <= m {
        while m % p == 0 {
            factors.push(p);
            m /= p;
        }
        p += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    let rank = (1 + c.below(4)).min(factors.len().max(1));
    let mut shape = vec![1; rank];
    for f in factors {
        let i = c.below(rank);
        shape[i] *= f;
    }
    if n == 1 && c.one_in(2) {
        shape.clear();
    }
    shape
}

fn gen_reshape(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.value(|t| t.num_elements() > 0)?;
    let t = g.ty(x);
    let shape = factor_shape(g.c, t.num_elements());
    g.one(OpKind::Reshape, &[x], Some(TensorType::new(t.dtype, shape)))
}

fn gen_transpose(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let permutation = g.c.permutation(g.ty(x).rank());
    g.one(OpKind::Transpose { permutation }, &[x], None)
}

fn gen_slice(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let (mut start, mut limit, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    for &n in &t.shape {
        let s = g.c.below(n);
        start.push(s);
        limit.push(s + 1 + g.c.below(n - s));
        strides.push(1 + g.c.below(3));
    }
    g.one(
        OpKind::Slice {
            start,
            limit,
            strides,
        },
        &[x],
        None,
    )
}

fn gen_concatenate(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.value(|t| t.rank() > 0)?;
    let t = g.ty(x);
    let dimension = g.c.below(t.rank());
    let mut operands = vec![x];
    for _ in 0..1 + g.c.below(2) {
        let mut shape = t.shape.clone();
        shape[dimension] = 1 + g.c.below(3);
        let ty = TensorType::new(t.dtype, shape);
        operands.push(if g.c.one_in(3) { x } else { g.value_of(&ty) });
    }
    g.one(OpKind::Concatenate { dimension }, &operands, None)
}

fn gen_pad(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let (mut low, mut high, mut interior) = (Vec::new(), Vec::new(), Vec::new());
    for &n in &t.shape {
        let n = n as i64;
        let i = g.c.range(0, 2);
        let l = g.c.range(-1, 2);
        let mut h = g.c.range(-1, 2);
        let size = l + h + n + (n - 1) * i;
        if size < 1 {
            h += 1 - size;
        }
        low.push(l);
        high.push(h);
        interior.push(i);
    }
    let v = g.scalar(t.dtype);
    g.one(
        OpKind::Pad {
            low,
            high,
            interior,
        },
        &[x, v],
        None,
    )
}

fn gen_dot(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.value(|t| t.rank() > 0 && t.rank() <= 3 && !t.dtype.is_bool())?;
    let t = g.ty(x);
    let mut d = DotDims::default();
    // Each lhs dimension is batching (0), contracting (1) or free (2).
    let roles: Vec<usize> = (0..t.rank()).map(|_| g.c.below(3)).collect();
    // The rhs: batching dims, contracting dims, then free ones, in a random order.
    let mut rhs: Vec<(usize, usize)> = Vec::new(); // (role, size)
    for (i, &r) in roles.iter().enumerate() {
        if r < 2 {
            rhs.push((r, t.shape[i]));
        }
    }
    for _ in 0..g.c.below(3) {
        rhs.push((2, g.dim()));
    }
    let order = g.c.permutation(rhs.len());
    let position = |k: usize| order.iter().position(|&o| o == k).unwrap_or(0);
    let mut k = 0;
    for (i, &r) in roles.iter().enumerate() {
        match r {
            0 => {
                d.lhs_batch.push(i);
                d.rhs_batch.push(position(k));
                k += 1;
            }
            1 => {
                d.lhs_contracting.push(i);
                d.rhs_contracting.push(position(k));
                k += 1;
            }
            _ => {}
        }
    }
    if g.c.one_in(2) {
        d.precision = vec![g.c.pick(Precision::ALL), g.c.pick(Precision::ALL)];
    }
    if g.c.one_in(4) {
        d.algorithm = Some(crate::DotAlgorithm {
            lhs_precision: g.c.pick(&crate::DotAlgorithm::TYPES).to_string(),
            rhs_precision: g.c.pick(&crate::DotAlgorithm::TYPES).to_string(),
            accumulation: g.c.pick(&crate::DotAlgorithm::TYPES).to_string(),
            primitive_operations: g.c.pick(&[1, 3, 6]),
            allow_imprecise_accumulation: g.c.one_in(2),
        });
    }
    let shape: Vec<usize> = order.iter().map(|&o| rhs[o].1).collect();
    let y = g.value_of(&TensorType::new(t.dtype, shape));
    g.one(OpKind::DotGeneral(d), &[x, y], None)
}

/// Reduced dimensions: a random subset of `0..rank`, in increasing order.
fn reduce_dims(c: &mut Choices, rank: usize) -> Vec<usize> {
    (0..rank).filter(|_| c.one_in(2)).collect()
}

fn gen_reduce(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let t = g.ty(x);
    let dims = reduce_dims(g.c, t.rank());
    if g.uneven && g.set == OpSet::NumericF32 && g.c.one_in(2) {
        // The reducer's identity as init: a reduction a padded layout may split.
        let b = g.c.pick(&[BinaryOp::Add, BinaryOp::Maximum]);
        let identity = if b == BinaryOp::Add {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        let init =
            g.b.constant(Literal::from_f64(DType::F32, &[], &[identity]).ok()?);
        return Some(vec![ok(g.b.reduce(x, init, &dims, b))]);
    }
    let s = TensorType::scalar(t.dtype);
    let combine = match g.set {
        OpSet::All => g.accepted(BinaryOp::ALL, OpKind::Binary, &[s.clone(), s.clone()]),
        OpSet::NumericF32 => vec![BinaryOp::Add, BinaryOp::Maximum],
    };
    if combine.is_empty() {
        return None;
    }
    let init = g.scalar(t.dtype);
    let form = if g.set == OpSet::All { g.c.below(3) } else { 0 };
    match form {
        // `applies`: one commutative op.
        0 => {
            let commutative: Vec<BinaryOp> = combine
                .iter()
                .copied()
                .filter(|b| COMMUTATIVE.contains(b))
                .collect();
            if commutative.is_empty() {
                return None;
            }
            let b = g.c.pick(&commutative);
            Some(vec![ok(g.b.reduce(x, init, &dims, b))])
        }
        // A reducer of several ops.
        1 => {
            let args = g.b.begin_block(&[s.clone(), s.clone()]);
            let b1 = g.c.pick(&combine);
            let r = ok(g.b.binary(b1, args[0], args[1]));
            let b2 = g.c.pick(&combine);
            let r = ok(g.b.binary(b2, r, args[0]));
            let body = g.b.end_block(&[r]);
            let op = ok(g.b.push(
                OpKind::Reduce { dimensions: dims },
                &[x, init],
                None,
                vec![body],
            ));
            Some(g.b.func().op(op).results.clone())
        }
        // Two inputs: argmax along the reduced dimensions, as JAX writes it.
        _ => {
            let (iota_ty, idx) = (t.with_dtype(DType::I32), TensorType::scalar(DType::I32));
            let iota = if t.rank() > 0 {
                ok(g.b.push1_typed(
                    OpKind::Iota {
                        dimension: g.c.below(t.rank()),
                    },
                    &[],
                    iota_ty,
                ))
            } else {
                g.constant(&iota_ty)
            };
            let init_i = g.scalar(DType::I32);
            let a = g.b.begin_block(&[s.clone(), idx.clone(), s, idx]);
            let cmp = |g: &mut Gen<'_>, dir, l, r| {
                let kind = OpKind::Compare {
                    direction: dir,
                    compare_type: None,
                };
                ok(g.b.push1(kind, &[l, r]))
            };
            let gt = cmp(g, ComparisonDirection::Gt, a[0], a[2]);
            let eq = cmp(g, ComparisonDirection::Eq, a[0], a[2]);
            let lt = cmp(g, ComparisonDirection::Lt, a[1], a[3]);
            let tie = ok(g.b.binary(BinaryOp::And, eq, lt));
            let take = ok(g.b.binary(BinaryOp::Or, gt, tie));
            let v = ok(g.b.push1(OpKind::Select, &[take, a[0], a[2]]));
            let i = ok(g.b.push1(OpKind::Select, &[take, a[1], a[3]]));
            let body = g.b.end_block(&[v, i]);
            let op = ok(g.b.push(
                OpKind::Reduce { dimensions: dims },
                &[x, iota, init, init_i],
                None,
                vec![body],
            ));
            Some(g.b.func().op(op).results.clone())
        }
    }
}

fn gen_gather(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.value(|t| t.rank() > 0)?;
    let t = g.ty(x);
    let d = g.c.below(t.rank());
    let k = 1 + g.c.below(4);
    let index_ty = TensorType::new(g.c.pick(&[DType::I32, DType::I64]), [k, 1]);
    let indices: Vec<f64> = (0..k).map(|_| g.c.below(t.shape[d]) as f64).collect();
    let lit = Literal::from_f64(index_ty.dtype, &index_ty.shape, &indices)
        .expect("one index per position");
    let idx = g.b.constant(lit);
    let mut slice_sizes: Vec<usize> = t
        .shape
        .iter()
        .map(|&n| if g.c.one_in(3) { 1 + g.c.below(n) } else { n })
        .collect();
    slice_sizes[d] = 1;
    let dims = GatherDims {
        offset_dims: (1..t.rank()).collect(),
        collapsed_slice_dims: vec![d],
        start_index_map: vec![d],
        index_vector_dim: 1,
        slice_sizes,
        indices_are_sorted: g.c.one_in(2),
        ..GatherDims::default()
    };
    g.one(OpKind::Gather(dims), &[x, idx], None)
}

fn gen_random(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let seed = g.value_of(&TensorType::scalar(DType::I64));
    let dtype = g.c.pick(&[DType::F32, DType::BF16, DType::F16, DType::F64]);
    let ty = TensorType::new(dtype, gen_shape(g.c, 3));
    let distribution = g.c.pick(Distribution::ALL);
    g.one(OpKind::Random { distribution }, &[seed], Some(ty))
}

fn gen_call(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    if g.callees.is_empty() {
        return None;
    }
    let callee = g.c.pick(g.callees);
    let args: Vec<ValueId> = callee.arg_types().iter().map(|t| g.value_of(t)).collect();
    let kind = OpKind::Call {
        callee: callee.name.clone(),
    };
    let op =
        ok(g.b.push(kind, &args, Some(&callee.result_types()), Vec::new()));
    Some(g.b.func().op(op).results.clone())
}

fn gen_constraint(g: &mut Gen<'_>) -> Option<Vec<ValueId>> {
    let x = g.any();
    let ty = g.ty(x);
    let s = maybe_sharding(g.c, g.meshes, &ty, g.set, g.uneven)?;
    g.one(OpKind::ShardingConstraint(s), &[x], None)
}

/// A function named `name` with 1 to 3 arguments and up to `max_ops` random ops, whose
/// shardings (arguments, results, ops, constraints) use `meshes` and whose calls go to
/// `callees`.
pub fn gen_function(
    c: &mut Choices,
    name: &str,
    meshes: &[Mesh],
    callees: &[Function],
    max_ops: usize,
) -> Function {
    gen_function_of(c, name, meshes, callees, max_ops, OpSet::All, false)
}

fn gen_function_of(
    c: &mut Choices,
    name: &str,
    meshes: &[Mesh],
    callees: &[Function],
    max_ops: usize,
    set: OpSet,
    uneven: bool,
) -> Function {
    let n_args = 1 + c.below(3);
    let sizes: &[usize] = if uneven { UNEVEN_DIMS } else { &[2, 4, 8] };
    let arg_types: Vec<TensorType> = (0..n_args)
        .map(|_| match set {
            OpSet::All => gen_tensor_type(c),
            OpSet::NumericF32 => TensorType::new(
                DType::F32,
                (0..1 + c.below(3))
                    .map(|_| c.pick(sizes))
                    .collect::<Vec<_>>(),
            ),
        })
        .collect();
    let mut b = FunctionBuilder::new(name, &arg_types);
    for (i, t) in arg_types.iter().enumerate() {
        let a = b.arg_attrs_mut(i);
        if c.one_in(2) {
            a.sharding = maybe_sharding(c, meshes, t, set, uneven);
        }
        if set == OpSet::All && c.one_in(6) {
            a.attrs
                .push(("jax.arg_info".to_string(), format!("\"x[{i}]\"")));
        }
    }
    let pool = b.args();
    let mut g = Gen {
        c,
        b,
        pool,
        meshes,
        callees,
        set,
        uneven,
    };
    let gens: Vec<&(&str, OpGen, bool)> = OP_GENS
        .iter()
        .filter(|(_, _, numeric)| set == OpSet::All || *numeric)
        .collect();
    let min_ops = if set == OpSet::All { 1 } else { 3 };
    let n_ops = min_ops + g.c.below(max_ops.saturating_sub(min_ops) + 1);
    for _ in 0..n_ops {
        let (_, generate, _) = g.c.pick(&gens);
        let Some(results) = generate(&mut g) else {
            continue;
        };
        let Some(&last) = results.last() else {
            continue;
        };
        let op = g.b.func().defining_op(last);
        if let Some(op) = op {
            if g.c.one_in(5) {
                let types: Vec<TensorType> = results.iter().map(|&r| g.ty(r)).collect();
                let shardings: Option<Vec<Sharding>> = types
                    .iter()
                    .map(|t| maybe_sharding(g.c, meshes, t, set, uneven))
                    .collect();
                g.b.op_mut(op).shardings = shardings;
            }
            if set == OpSet::All && g.c.one_in(12) {
                g.b.op_mut(op).attrs.push((
                    "mhlo.frontend_attributes".to_string(),
                    "{_xla_compute_type = \"host\"}".to_string(),
                ));
            }
        }
        g.pool.extend(results);
    }
    let n_results = 1 + g.c.below(3);
    let results: Vec<ValueId> = (0..n_results).filter_map(|_| g.value(|_| true)).collect();
    let Gen { c, b, .. } = g;
    let mut f = b.finish(&results);
    for (i, &r) in results.iter().enumerate() {
        let ty = f.ty(r).clone();
        let a: &mut ValueAttrs = &mut f.result_attrs[i];
        if c.one_in(2) {
            a.sharding = maybe_sharding(c, meshes, &ty, set, uneven);
        }
        if set == OpSet::All && c.one_in(3) {
            a.attrs
                .push(("jax.result_info".to_string(), format!("\"result[{i}]\"")));
        }
    }
    f
}

/// The names of the ops of `m`'s entry function's body, in order (`stablehlo.add`, ...):
/// what a pass's tests compare to say what it made.
pub fn body_op_names(m: &Module) -> Vec<String> {
    m.entry()
        .map(|f| f.body_ops().map(|(_, op)| op.kind.name()).collect())
        .unwrap_or_default()
}

/// A module with 0 to 2 meshes, 0 to 2 private functions and a public `main` that may
/// call them; every op kind and dtype appears across modules.
pub fn gen_module(c: &mut Choices) -> Module {
    let n_meshes = c.pick(&[1, 2, 0]);
    let meshes: Vec<Mesh> = (0..n_meshes)
        .map(|i| gen_mesh(c, if i == 0 { "mesh" } else { "mesh_b" }))
        .collect();
    let mut functions: Vec<Function> = Vec::new();
    for i in 0..c.below(3) {
        let mut f = gen_function(c, &format!("helper{i}"), &meshes, &functions, 6);
        f.visibility = Visibility::Private;
        functions.push(f);
    }
    let main = gen_function(c, "main", &meshes, &functions, 14);
    functions.insert(0, main);
    let mut m = Module {
        name: Some(c.pick(&["jit_f", "jit_main"]).to_string()),
        attrs: Vec::new(),
        meshes,
        functions,
    };
    if c.one_in(2) {
        let n: usize = m.meshes.iter().map(Mesh::num_devices).max().unwrap_or(1);
        m.attrs
            .push(("mhlo.num_partitions".to_string(), format!("{n} : i32")));
        m.attrs
            .push(("mhlo.num_replicas".to_string(), "1 : i32".to_string()));
    }
    if c.one_in(4) {
        m.name = None;
    }
    m
}

/// Random valid modules of every op kind and dtype: see [`gen_module`].
pub fn arb_module() -> impl Strategy<Value = Module> {
    choices(4096).prop_map(|mut c| gen_module(&mut c))
}

/// A random 1-D or 2-D mesh named `mesh`: see [`gen_mesh`].
pub fn arb_mesh() -> impl Strategy<Value = Mesh> {
    choices(16).prop_map(|mut c| gen_mesh(&mut c, "mesh"))
}

/// A random valid sharding of a tensor of type `ty` on `mesh`: see [`gen_sharding`].
pub fn arb_sharding_for(mesh: &Mesh, ty: &TensorType) -> impl Strategy<Value = Sharding> {
    let (mesh, ty) = (mesh.clone(), ty.clone());
    choices(64).prop_map(move |mut c| gen_sharding(&mut c, &mesh, &ty))
}

/// A random literal of type `ty`, special floats included: see [`gen_literal`].
pub fn arb_literal(ty: &TensorType) -> impl Strategy<Value = Literal> {
    let ty = ty.clone();
    choices(4 * ty.num_elements() + 4).prop_map(move |mut c| gen_literal(&mut c, &ty))
}

/// A random function named `name` over `meshes` (no calls): see [`gen_function`].
pub fn arb_function(name: &str, meshes: Vec<Mesh>) -> impl Strategy<Value = Function> {
    let name = name.to_string();
    choices(2048).prop_map(move |mut c| gen_function(&mut c, &name, &meshes, &[], 12))
}

/// A small numeric program and inputs for it.
#[derive(Clone, Debug)]
pub struct Program {
    /// One mesh `@mesh` and a public `main`.
    pub module: Module,
    /// One literal per argument of `main`, values in [-1, 1] (multiples of 1/16).
    pub inputs: Vec<Literal>,
}

/// A program of f32 ops only (negate, abs, tanh, logistic, sine, cosine; add, subtract,
/// multiply, maximum, minimum; dot_general, reduce with add or maximum, transpose, reshape,
/// broadcast_in_dim; sharding constraints) on a random 1-D or 2-D mesh with axes of size
/// 1, 2 or 4, with random valid shardings (no unreduced axes) on arguments, results, ops and
/// constraints, and input values for `main`. Every
/// op is defined on every input, so a reference interpreter and any partitioning of the
/// program must agree within rounding.
pub fn gen_program_f32(c: &mut Choices) -> Program {
    let mesh = gen_mesh_of(c, "mesh", &[2, 4, 2, 1]);
    let meshes = vec![mesh];
    let main = gen_function_of(c, "main", &meshes, &[], 10, OpSet::NumericF32, false);
    program_of(c, meshes, main)
}

fn program_of(c: &mut Choices, meshes: Vec<Mesh>, main: Function) -> Program {
    let inputs = main
        .arg_types()
        .iter()
        .map(|t| small_f32_literal(c, t))
        .collect();
    Program {
        module: Module {
            name: Some("jit_program".to_string()),
            attrs: Vec::new(),
            meshes,
            functions: vec![main],
        },
        inputs,
    }
}

/// Random f32 programs with inputs: see [`gen_program_f32`].
pub fn arb_program_f32() -> impl Strategy<Value = Program> {
    choices(1024).prop_map(|mut c| gen_program_f32(&mut c))
}

/// A program as [`gen_program_f32`] makes them, with uneven shapes and shardings: dimension
/// sizes 2, 3, 5, 6, 7 or 8 on meshes with axes of size 1 to 4, split by any axes whether
/// they divide or not, and reduces whose init is the reducer's identity half the time
/// (the ones a padded reduction may split). It verifies only with padding asked for
/// ([`verify_module_with`](crate::verify_module_with) and [`Uneven::Pad`](crate::Uneven)).
pub fn gen_program_f32_uneven(c: &mut Choices) -> Program {
    let mesh = gen_mesh_of(c, "mesh", &[2, 4, 3, 1]);
    let meshes = vec![mesh];
    let main = gen_function_of(c, "main", &meshes, &[], 10, OpSet::NumericF32, true);
    program_of(c, meshes, main)
}

/// Random uneven f32 programs with inputs: see [`gen_program_f32_uneven`].
pub fn arb_program_f32_uneven() -> impl Strategy<Value = Program> {
    choices(1024).prop_map(|mut c| gen_program_f32_uneven(&mut c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify_module;

    #[test]
    fn generated_modules_verify() {
        for seed in 0..300u32 {
            let values: Vec<u32> = (0..600u32)
                .map(|i| {
                    seed.wrapping_mul(2_654_435_761)
                        .wrapping_add(i.wrapping_mul(40_503))
                        .rotate_left(i % 31)
                })
                .collect();
            let m = gen_module(&mut Choices::new(values.clone()));
            verify_module(&m).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let p = gen_program_f32(&mut Choices::new(values.clone()));
            verify_module(&p.module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(p.inputs.len(), p.module.functions[0].args().len());
            let u = gen_program_f32_uneven(&mut Choices::new(values));
            crate::verify_module_with(&u.module, crate::Uneven::Pad)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }

    #[test]
    fn an_exhausted_stream_gives_the_simplest_module() {
        let m = gen_module(&mut Choices::new(Vec::new()));
        verify_module(&m).unwrap();
        assert_eq!(m.functions.len(), 1);
    }
}
