//! A small builder of [`OpRule`]s, in the manner of Shardy's `OpShardingRuleBuilder`:
//! add factors one at a time, each mapped to at most one dimension of each operand and
//! result; factors are named in the order they are added.

use super::{Factor, FactorId, FactorKind, OpRule, TensorMapping};

/// Builds the rule of one op instance.
pub(crate) struct RuleBuilder {
    factors: Vec<Factor>,
    operands: Vec<TensorMapping>,
    results: Vec<TensorMapping>,
    /// The first misuse of the builder (a dimension out of range), reported by `build`.
    error: Option<String>,
}

impl RuleBuilder {
    /// A builder for an op whose operands and results have these shapes.
    pub(crate) fn new(operand_shapes: &[&[usize]], result_shapes: &[&[usize]]) -> RuleBuilder {
        let empty =
            |shapes: &[&[usize]]| shapes.iter().map(|s| vec![Vec::new(); s.len()]).collect();
        RuleBuilder {
            factors: Vec::new(),
            operands: empty(operand_shapes),
            results: empty(result_shapes),
            error: None,
        }
    }

    /// Adds a factor and maps it to dimension `operand_dims[k]` of operand `k` and
    /// `result_dims[k]` of result `k`; `None` (or a missing entry) leaves that tensor out.
    /// Within a dimension, factors are major to minor in the order they are added.
    pub(crate) fn factor(
        &mut self,
        size: usize,
        kind: FactorKind,
        operand_dims: &[Option<usize>],
        result_dims: &[Option<usize>],
    ) -> FactorId {
        let id = FactorId::from_index(self.factors.len());
        self.factors.push(Factor { size, kind });
        for (what, mappings, dims) in [
            ("operand", &mut self.operands, operand_dims),
            ("result", &mut self.results, result_dims),
        ] {
            for (k, dim) in dims.iter().enumerate() {
                let Some(dim) = *dim else { continue };
                match mappings.get_mut(k).and_then(|m| m.get_mut(dim)) {
                    Some(factors) => factors.push(id),
                    None => {
                        self.error.get_or_insert_with(|| format!("factor {id} was mapped to dimension {dim} of {what} {k}, which does not exist"));
                    }
                }
            }
        }
        id
    }

    /// Adds a factor at dimension `dim` of every operand and result that is not a scalar:
    /// one dimension of a pointwise op.
    pub(crate) fn pointwise(&mut self, dim: usize, size: usize, kind: FactorKind) -> FactorId {
        let at = |m: &TensorMapping| (!m.is_empty()).then_some(dim);
        let operand_dims: Vec<Option<usize>> = self.operands.iter().map(at).collect();
        let result_dims: Vec<Option<usize>> = self.results.iter().map(at).collect();
        self.factor(size, kind, &operand_dims, &result_dims)
    }

    /// The rule. A dimension no factor was mapped to gets a pass-through factor of its own
    /// with size 1 (Shardy does the same, so every dimension has a factor); the rule's
    /// check then catches such a dimension if its size is not 1.
    pub(crate) fn build(mut self) -> Result<OpRule, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        for mapping in self.operands.iter_mut().chain(self.results.iter_mut()) {
            for factors in mapping.iter_mut().filter(|f| f.is_empty()) {
                factors.push(FactorId::from_index(self.factors.len()));
                self.factors.push(Factor {
                    size: 1,
                    kind: FactorKind::PassThrough,
                });
            }
        }
        Ok(OpRule {
            factors: self.factors,
            operands: self.operands,
            results: self.results,
        })
    }
}
