//! The op sharding-rule registry: an einsum-like *factor rule* for every op instance.
//!
//! This is Shardy's model (openxla/shardy, `OpShardingRuleAttr` and
//! `op_sharding_rule_registry.cc`). A rule lists *factors* with sizes, and maps each
//! dimension of each operand and result to the factors it is made of, major to minor:
//!
//! ```text
//! stablehlo.dot_general (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
//!   ([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}
//! stablehlo.reshape (tensor<6xf32>) -> tensor<2x3xf32>
//!   ([ij])->([i, j]) {i=2, j=3}
//! ```
//!
//! A factor is an axis of the op's iteration space. Sharding a factor over mesh axes
//! means sharding every tensor dimension it appears in, at its position. Each factor
//! has a [`FactorKind`] that says what sharding it costs:
//!
//! - *pass-through*: no communication; every device runs the op on its shards;
//! - *reduction*: appears in operands but no result; sharding it leaves the results
//!   partial (unreduced) over its axes, owing the reduction its [`Combiner`] names;
//! - *need-replication*: must be unsharded for the op to run locally;
//! - *permutation*: elements move across devices (a collective permute), but no
//!   tensor needs replicating;
//! - *rotation*: elements move cyclically along the factor by a fixed shift (`shardc.rotate`):
//!   sharded in blocks, a shift by whole blocks is a collective permute of the blocks and
//!   the op otherwise runs locally.
//!
//! Propagation and partitioning read rules; they never `match` on op kinds. The rule of
//! an op instance comes from [`op_rule`]; the per-family derivations are in `registry`,
//! the reshape factorization in `reshape`, the builder they share in `builder`.
//! `docs/rules.md` works an example of every family.
//!
//! # Invariants of every rule [`op_rule`] returns
//! - one mapping per operand and per result, with one entry per dimension;
//! - every dimension has at least one factor (a dimension with nothing to share gets a
//!   factor of its own, of size 1 when its size is 1, as Shardy does);
//! - a factor appears at most once in a tensor, and in at least one tensor;
//! - the factor sizes of a dimension multiply to the dimension's size, except for a
//!   dimension whose one factor is a permutation or need-replication factor shared by
//!   tensors whose sizes differ there (slice, pad and concatenate along the changed
//!   dimension; the factor has the size of one side, as in Shardy);
//! - reduction factors appear in no result;
//! - a factor of size > 1 that appears in operands but in no result is a reduction or
//!   need-replication factor: a pass-through factor of size > 1 always reaches a result.

mod builder;
mod registry;
mod reshape;

pub use registry::op_rule;

use crate::op::BinaryOp;
use crate::sharding::Reduction;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// A factor of one rule, by index. Printed as Shardy prints it: `i`, `j`, ..., `z`,
/// then `z_1`, `z_2`, ...
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FactorId(pub u32);

/// How many factors get a letter of their own (`i` to `z`); the rest are `z_N`.
const LETTERED: u32 = (b'z' - b'i') as u32;

impl FactorId {
    /// Its position in the rule's factors.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The factor at position `i`.
    pub fn from_index(i: usize) -> FactorId {
        FactorId(u32::try_from(i).expect("FactorId overflow: more than 2^32 factors"))
    }
}

impl fmt::Display for FactorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 <= LETTERED {
            write!(f, "{}", char::from(b'i' + self.0 as u8))
        } else {
            write!(f, "z_{}", self.0 - LETTERED)
        }
    }
}

/// How the partial results of a reduction factor combine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Combiner {
    /// Added.
    Sum,
    /// The largest kept.
    Max,
    /// The smallest kept.
    Min,
    /// Multiplied.
    Product,
    /// Logical or bitwise and.
    And,
    /// Logical or bitwise or.
    Or,
    /// Applying the op's reducer region (region 0) to pairs of partial results: a
    /// general `reduce` body such as argmax's. An all-reduce with this combiner runs the
    /// body as its reduction function.
    Body,
}

/// The reducer bodies that are a single binary op, and the combiner each stands for.
const BINARY_COMBINERS: &[(BinaryOp, Combiner)] = &[
    (BinaryOp::Add, Combiner::Sum),
    (BinaryOp::Maximum, Combiner::Max),
    (BinaryOp::Minimum, Combiner::Min),
    (BinaryOp::Multiply, Combiner::Product),
    (BinaryOp::And, Combiner::And),
    (BinaryOp::Or, Combiner::Or),
];

impl Combiner {
    /// Every combiner.
    pub const ALL: [Combiner; 7] = [
        Combiner::Sum,
        Combiner::Max,
        Combiner::Min,
        Combiner::Product,
        Combiner::And,
        Combiner::Or,
        Combiner::Body,
    ];

    /// Its name in rules and layouts (`sum`, `max`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Combiner::Sum => "sum",
            Combiner::Max => "max",
            Combiner::Min => "min",
            Combiner::Product => "product",
            Combiner::And => "and",
            Combiner::Or => "or",
            Combiner::Body => "body",
        }
    }

    /// The combiner of a reducer body that is this one binary op, if it is one of the
    /// associative and commutative ones.
    pub fn of_binary(op: BinaryOp) -> Option<Combiner> {
        BINARY_COMBINERS
            .iter()
            .find(|(b, _)| *b == op)
            .map(|(_, c)| *c)
    }

    /// The [`Reduction`] an unreduced sharding records for this combiner, where the
    /// sharding model has one (every combiner but a reducer body).
    pub fn reduction(self) -> Option<Reduction> {
        match self {
            Combiner::Sum => Some(Reduction::Sum),
            Combiner::Max => Some(Reduction::Max),
            Combiner::Min => Some(Reduction::Min),
            Combiner::Product => Some(Reduction::Product),
            Combiner::And => Some(Reduction::And),
            Combiner::Or => Some(Reduction::Or),
            Combiner::Body => None,
        }
    }
}

impl fmt::Display for Combiner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What sharding a factor costs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FactorKind {
    /// Sharded the same way in every tensor it appears in, the op runs locally.
    PassThrough,
    /// In operands only; sharding it makes the results partial over its axes.
    Reduction(Combiner),
    /// Must not be sharded: the op needs every element along it.
    NeedReplication,
    /// Sharding it needs elements moved between devices, not replicated.
    Permutation,
    /// Element `i` along the factor moves to `(i + shift) mod size` (`0 < shift < size`).
    /// Sharded over `n` devices, in blocks of `b = size / n`: when `b` divides `shift`, every
    /// block moves whole, block `j` to block `(j + shift / b) mod n`, so the op runs on its
    /// pieces and a collective permute over the factor's axes moves them; any other shift
    /// needs the factor unsharded (what a permutation factor needs).
    Rotation {
        /// Positions each element moves up along the factor (mod its size).
        shift: usize,
    },
}

impl FactorKind {
    /// [`FactorKind::PassThrough`].
    pub fn is_pass_through(self) -> bool {
        self == FactorKind::PassThrough
    }

    /// [`FactorKind::Reduction`].
    pub fn is_reduction(self) -> bool {
        matches!(self, FactorKind::Reduction(_))
    }

    /// [`FactorKind::NeedReplication`].
    pub fn is_need_replication(self) -> bool {
        self == FactorKind::NeedReplication
    }

    /// [`FactorKind::Permutation`].
    pub fn is_permutation(self) -> bool {
        self == FactorKind::Permutation
    }

    /// [`FactorKind::Rotation`].
    pub fn is_rotation(self) -> bool {
        matches!(self, FactorKind::Rotation { .. })
    }

    /// The shift of a rotation factor.
    pub fn shift(self) -> Option<usize> {
        match self {
            FactorKind::Rotation { shift } => Some(shift),
            _ => None,
        }
    }

    /// Whether a factor of this kind and `size` may be split into `shards` blocks with the
    /// op still running on each device's pieces (apart from the collective permute a
    /// rotation by whole blocks needs): pass-through and reduction factors whenever the
    /// blocks divide the factor, rotation factors when the shift is a multiple of the
    /// block, permutation and need-replication factors never.
    pub fn splits_into(self, size: usize, shards: usize) -> bool {
        if shards == 0 || !size.is_multiple_of(shards) {
            return false;
        }
        match self {
            FactorKind::PassThrough | FactorKind::Reduction(_) => true,
            FactorKind::Rotation { shift } => shift.is_multiple_of(size / shards),
            FactorKind::NeedReplication | FactorKind::Permutation => false,
        }
    }

    /// The combiner of a reduction factor.
    pub fn combiner(self) -> Option<Combiner> {
        match self {
            FactorKind::Reduction(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for FactorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FactorKind::PassThrough => f.write_str("pass-through"),
            FactorKind::Reduction(c) => write!(f, "reduction({c})"),
            FactorKind::NeedReplication => f.write_str("need-replication"),
            FactorKind::Permutation => f.write_str("permutation"),
            FactorKind::Rotation { shift } => write!(f, "rotation(by {shift})"),
        }
    }
}

/// One factor of a rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Factor {
    /// Its size (the product over the dimensions it appears in, for its share).
    pub size: usize,
    /// How sharding it affects the op.
    pub kind: FactorKind,
}

/// An operand or result of the op a rule describes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TensorRef {
    /// Operand `k`.
    Operand(usize),
    /// Result `k`.
    Result(usize),
}

impl fmt::Display for TensorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorRef::Operand(k) => write!(f, "operand {k}"),
            TensorRef::Result(k) => write!(f, "result {k}"),
        }
    }
}

/// Where a factor appears: a dimension of a tensor, and its position among the
/// dimension's factors (0 is the major-most).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FactorUse {
    /// The tensor.
    pub tensor: TensorRef,
    /// Its dimension.
    pub dim: usize,
    /// The factor's position among that dimension's factors (0: major-most).
    pub position: usize,
}

/// The factors of each dimension of one tensor, major to minor within a dimension.
pub type TensorMapping = Vec<Vec<FactorId>>;

/// The sharding rule of one op instance. `Display`s in Shardy's syntax:
/// `([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OpRule {
    /// Indexed by [`FactorId`].
    pub factors: Vec<Factor>,
    /// One mapping per operand.
    pub operands: Vec<TensorMapping>,
    /// One mapping per result.
    pub results: Vec<TensorMapping>,
}

impl OpRule {
    /// How many factors it has.
    pub fn num_factors(&self) -> usize {
        self.factors.len()
    }

    /// Every factor id, in order.
    pub fn factor_ids(&self) -> impl Iterator<Item = FactorId> + use<> {
        (0..self.factors.len()).map(FactorId::from_index)
    }

    /// # Panics
    /// If `id` is not a factor of this rule (ids index the rule's arena, as
    /// [`Function::op`](crate::Function::op) does).
    pub fn factor(&self, id: FactorId) -> &Factor {
        &self.factors[id.index()]
    }

    /// The size of a factor (panics like [`factor`](Self::factor)).
    pub fn size(&self, id: FactorId) -> usize {
        self.factor(id).size
    }

    /// The kind of a factor (panics like [`factor`](Self::factor)).
    pub fn kind(&self, id: FactorId) -> FactorKind {
        self.factor(id).kind
    }

    /// The factors of every dimension of operand `k`.
    pub fn operand(&self, k: usize) -> Option<&TensorMapping> {
        self.operands.get(k)
    }

    /// The factors of every dimension of result `k`.
    pub fn result(&self, k: usize) -> Option<&TensorMapping> {
        self.results.get(k)
    }

    /// The factors of every dimension of an operand or result.
    pub fn tensor(&self, t: TensorRef) -> Option<&TensorMapping> {
        match t {
            TensorRef::Operand(k) => self.operand(k),
            TensorRef::Result(k) => self.result(k),
        }
    }

    /// Every operand, then every result, with its mapping.
    pub fn tensors(&self) -> impl Iterator<Item = (TensorRef, &TensorMapping)> {
        let operands = self
            .operands
            .iter()
            .enumerate()
            .map(|(k, m)| (TensorRef::Operand(k), m));
        let results = self
            .results
            .iter()
            .enumerate()
            .map(|(k, m)| (TensorRef::Result(k), m));
        operands.chain(results)
    }

    /// The factors of one dimension of a tensor, major to minor.
    pub fn dim_factors(&self, t: TensorRef, dim: usize) -> Option<&[FactorId]> {
        self.tensor(t)?.get(dim).map(Vec::as_slice)
    }

    /// Every place a factor appears, operands first, in dimension order.
    pub fn uses(&self, id: FactorId) -> Vec<FactorUse> {
        let mut uses = Vec::new();
        for (tensor, mapping) in self.tensors() {
            for (dim, factors) in mapping.iter().enumerate() {
                if let Some(position) = factors.iter().position(|&f| f == id) {
                    uses.push(FactorUse {
                        tensor,
                        dim,
                        position,
                    });
                }
            }
        }
        uses
    }

    /// Where a factor appears in one tensor (a factor appears at most once per tensor).
    pub fn use_in(&self, id: FactorId, t: TensorRef) -> Option<FactorUse> {
        let mapping = self.tensor(t)?;
        mapping.iter().enumerate().find_map(|(dim, factors)| {
            let position = factors.iter().position(|&f| f == id)?;
            Some(FactorUse {
                tensor: t,
                dim,
                position,
            })
        })
    }

    /// The factors whose kind satisfies `pred`, in order:
    /// `rule.factors_where(FactorKind::is_reduction)`.
    pub fn factors_where(&self, pred: impl Fn(FactorKind) -> bool) -> Vec<FactorId> {
        self.factor_ids()
            .filter(|&id| pred(self.kind(id)))
            .collect()
    }

    /// Checks the invariants listed in the module docs against the op's operand and
    /// result shapes; says which one breaks.
    pub fn check(
        &self,
        operand_shapes: &[&[usize]],
        result_shapes: &[&[usize]],
    ) -> Result<(), String> {
        check_shapes("operand", &self.operands, operand_shapes)?;
        check_shapes("result", &self.results, result_shapes)?;
        let shape_of = |t: TensorRef| match t {
            TensorRef::Operand(k) => operand_shapes[k],
            TensorRef::Result(k) => result_shapes[k],
        };
        let mut used = vec![false; self.factors.len()];
        for (t, mapping) in self.tensors() {
            let mut seen = vec![false; self.factors.len()];
            for (dim, factors) in mapping.iter().enumerate() {
                if factors.is_empty() {
                    return Err(format!("dimension {dim} of {t} has no factor"));
                }
                let mut product: usize = 1;
                for &id in factors {
                    let Some(factor) = self.factors.get(id.index()) else {
                        return Err(format!(
                            "dimension {dim} of {t} names factor #{}, but the rule has {}",
                            id.0,
                            self.factors.len()
                        ));
                    };
                    if std::mem::replace(&mut seen[id.index()], true) {
                        return Err(format!("factor {id} appears twice in {t}"));
                    }
                    used[id.index()] = true;
                    product = product.saturating_mul(factor.size);
                }
                let size = shape_of(t)[dim];
                let moves = matches!(factors.as_slice(), [one] if matches!(self.kind(*one), FactorKind::Permutation | FactorKind::NeedReplication));

                if product != size && !moves {
                    return Err(format!(
                        "the factors of dimension {dim} of {t} multiply to {product}, but the dimension has size {size}"
                    ));
                }
            }
        }
        for id in self.factor_ids() {
            if !used[id.index()] {
                return Err(format!("factor {id} appears in no tensor"));
            }
            let factor = self.factor(id);
            if let FactorKind::Rotation { shift } = factor.kind
                && (shift == 0 || shift >= factor.size)
            {
                return Err(format!(
                    "rotation factor {id} of size {} has shift {shift}; a rotation moves by 0 < shift < size",
                    factor.size
                ));
            }
            let uses = self.uses(id);
            let in_result = uses
                .iter()
                .any(|u| matches!(u.tensor, TensorRef::Result(_)));
            if factor.kind.is_reduction() && in_result {
                return Err(format!("reduction factor {id} appears in a result"));
            }
            if !in_result && factor.size > 1 && factor.kind == FactorKind::PassThrough {
                return Err(format!(
                    "pass-through factor {id} of size {} appears in operands only; it must be a reduction or need replication",
                    factor.size
                ));
            }
        }
        Ok(())
    }
}

fn check_shapes(what: &str, mappings: &[TensorMapping], shapes: &[&[usize]]) -> Result<(), String> {
    if mappings.len() != shapes.len() {
        return Err(format!(
            "the rule maps {} {what}(s), but the op has {}",
            mappings.len(),
            shapes.len()
        ));
    }
    for (k, (m, s)) in mappings.iter().zip(shapes).enumerate() {
        if m.len() != s.len() {
            return Err(format!(
                "the rule maps {} dimension(s) of {what} {k}, which has rank {}",
                m.len(),
                s.len()
            ));
        }
    }
    Ok(())
}

fn write_mappings(f: &mut fmt::Formatter<'_>, mappings: &[TensorMapping]) -> fmt::Result {
    f.write_str("(")?;
    for (k, mapping) in mappings.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        f.write_str("[")?;
        for (d, factors) in mapping.iter().enumerate() {
            if d > 0 {
                f.write_str(", ")?;
            }
            for id in factors {
                write!(f, "{id}")?;
            }
        }
        f.write_str("]")?;
    }
    f.write_str(")")
}

/// ` key=tag{i, j}`, or nothing when `ids` is empty.
fn write_factor_set(
    f: &mut fmt::Formatter<'_>,
    key: &str,
    tag: &str,
    ids: &[FactorId],
) -> fmt::Result {
    if ids.is_empty() {
        return Ok(());
    }
    write!(f, " {key}={tag}{{")?;
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{id}")?;
    }
    f.write_str("}")
}

/// Shardy's syntax. Reductions that combine by sum print as Shardy prints them,
/// `reduction={k}`; other combiners are shardc's extension, written like Shardy's
/// unreduced shardings: `reduction=max{k}`, `reduction=body{k}`.
impl fmt::Display for OpRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_mappings(f, &self.operands)?;
        f.write_str("->")?;
        write_mappings(f, &self.results)?;
        if !self.factors.is_empty() {
            f.write_str(" {")?;
            for (i, factor) in self.factors.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}={}", FactorId::from_index(i), factor.size)?;
            }
            f.write_str("}")?;
        }
        for c in Combiner::ALL {
            let tag = if c == Combiner::Sum { "" } else { c.name() };
            write_factor_set(
                f,
                "reduction",
                tag,
                &self.factors_where(|k| k == FactorKind::Reduction(c)),
            )?;
        }
        write_factor_set(
            f,
            "need_replication",
            "",
            &self.factors_where(FactorKind::is_need_replication),
        )?;
        write_factor_set(
            f,
            "permutation",
            "",
            &self.factors_where(FactorKind::is_permutation),
        )?;
        // shardc's extension: ` rotation={i by 1}`, each factor with its shift.
        let rotations = self.factors_where(FactorKind::is_rotation);
        if !rotations.is_empty() {
            f.write_str(" rotation={")?;
            for (i, &id) in rotations.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{id} by {}", self.kind(id).shift().unwrap_or(0))?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

/// Why an op has no rule. Each message names the op (and the value it defines), the
/// rule broken and the fix.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RuleError {
    /// The op kind has no sharding rule by design (today only `func.call`). A user-facing
    /// error: the program must be transformed first.
    #[error("{op} defining {at} has no sharding rule: {why}; {fix}")]
    NoRule {
        /// The op's name.
        op: String,
        /// The value the op defines, with its function: `%3 in @main`.
        at: String,
        /// Why it has none.
        why: String,
        /// How to transform the program.
        fix: String,
    },

    /// The op breaks its typing rule (or refers to values or regions its function does
    /// not have), so no rule can be derived. Run the verifier on the module first.
    #[error("{op} defining {at} is malformed, so it has no sharding rule: {rule}; {fix}")]
    InvalidOp {
        /// The op's name.
        op: String,
        /// The value the op defines, with its function.
        at: String,
        /// The typing rule broken.
        rule: String,
        /// How to fix it.
        fix: String,
    },

    /// The registry derived a rule that breaks the rule invariants: a bug in shardc.
    #[error(
        "internal error: the sharding rule derived for {op} defining {at} ({rule}) is inconsistent: {detail}; this is a bug in shardc's rule registry, please report it with the op"
    )]
    Inconsistent {
        /// The op's name.
        op: String,
        /// The value the op defines, with its function.
        at: String,
        /// The rule derived, in Shardy's syntax.
        rule: String,
        /// Which invariant it breaks.
        detail: String,
    },
}
