//! Two-operand einsum, lowered to one `dot_general` plus a transpose.
//!
//! ```text
//! "bthd,bshd->bhts": batch {b, h} (in both operands and the output), contracting {d}
//! (in both operands, not the output), lhs free {t}, rhs free {s}.
//! ```

use crate::trace::Tensor;
use std::panic::Location;

impl Tensor {
    /// `einsum(spec, self, rhs)` for two operands, e.g. `"bthd,bshd->bhts"`. Labels in one
    /// operand only and absent from the output are summed out first.
    #[track_caller]
    pub fn einsum(&self, spec: &str, rhs: &Tensor) -> Tensor {
        let at = Location::caller();
        match plan(spec, self.rank(), rhs.rank()) {
            Ok(p) => {
                let lhs = if p.lhs_sum.is_empty() {
                    self.clone()
                } else {
                    self.reduce(&p.lhs_sum, shardc_ir::BinaryOp::Add, 0.0)
                };
                let rhs = if p.rhs_sum.is_empty() {
                    rhs.clone()
                } else {
                    rhs.reduce(&p.rhs_sum, shardc_ir::BinaryOp::Add, 0.0)
                };
                let d = lhs.dot_general(
                    &rhs,
                    (&p.lhs_batch, &p.rhs_batch),
                    (&p.lhs_contract, &p.rhs_contract),
                );
                if p.permutation.iter().enumerate().all(|(i, &x)| i == x) {
                    d
                } else {
                    d.transpose(&p.permutation)
                }
            }
            Err(rule) => {
                let source = shardc_ir::IrError::InvalidOp {
                    at: "the traced program".into(),
                    op: "einsum".into(),
                    rule,
                    fix: "write `lhs,rhs->out` with one letter per dimension".into(),
                };
                let mut st = self.ctx().borrow_mut();
                if st.error.is_none() {
                    st.error = Some(crate::Error::Trace {
                        method: "einsum",
                        at,
                        source: Box::new(source),
                    });
                }
                drop(st);
                self.clone()
            }
        }
    }
}

#[derive(Debug, PartialEq)]
struct Plan {
    lhs_sum: Vec<usize>,
    rhs_sum: Vec<usize>,
    lhs_batch: Vec<usize>,
    rhs_batch: Vec<usize>,
    lhs_contract: Vec<usize>,
    rhs_contract: Vec<usize>,
    permutation: Vec<usize>,
}

fn plan(spec: &str, lrank: usize, rrank: usize) -> Result<Plan, String> {
    let (ins, out) = spec
        .split_once("->")
        .ok_or_else(|| format!("`{spec}` has no `->`"))?;
    let (l, r) = ins
        .split_once(',')
        .ok_or_else(|| format!("`{spec}` needs two operands separated by `,`"))?;
    let (l, r, out): (Vec<char>, Vec<char>, Vec<char>) = (
        l.trim().chars().collect(),
        r.trim().chars().collect(),
        out.trim().chars().collect(),
    );
    for (labels, rank, what) in [(&l, lrank, "lhs"), (&r, rrank, "rhs")] {
        if labels.len() != rank {
            return Err(format!(
                "`{spec}`: the {what} has rank {rank} but {} labels",
                labels.len()
            ));
        }
        for (i, c) in labels.iter().enumerate() {
            if labels[..i].contains(c) {
                return Err(format!(
                    "`{spec}`: label `{c}` repeats within the {what} (diagonals are not supported)"
                ));
            }
        }
    }
    for c in &out {
        if !l.contains(c) && !r.contains(c) {
            return Err(format!(
                "`{spec}`: output label `{c}` is in neither operand"
            ));
        }
    }
    // Labels summed out of one operand before the dot.
    let lhs_sum: Vec<usize> = (0..l.len())
        .filter(|&i| !r.contains(&l[i]) && !out.contains(&l[i]))
        .collect();
    let rhs_sum: Vec<usize> = (0..r.len())
        .filter(|&i| !l.contains(&r[i]) && !out.contains(&r[i]))
        .collect();
    let l2: Vec<char> = l
        .iter()
        .enumerate()
        .filter(|(i, _)| !lhs_sum.contains(i))
        .map(|(_, &c)| c)
        .collect();
    let r2: Vec<char> = r
        .iter()
        .enumerate()
        .filter(|(i, _)| !rhs_sum.contains(i))
        .map(|(_, &c)| c)
        .collect();
    let pos = |v: &[char], c: char| v.iter().position(|&x| x == c).unwrap_or(usize::MAX);
    let batch: Vec<char> = l2
        .iter()
        .copied()
        .filter(|c| r2.contains(c) && out.contains(c))
        .collect();
    let contract: Vec<char> = l2
        .iter()
        .copied()
        .filter(|c| r2.contains(c) && !out.contains(c))
        .collect();
    let lfree: Vec<char> = l2.iter().copied().filter(|c| !r2.contains(c)).collect();
    let rfree: Vec<char> = r2.iter().copied().filter(|c| !l2.contains(c)).collect();
    let result: Vec<char> = batch.iter().chain(&lfree).chain(&rfree).copied().collect();
    if result.len() != out.len() {
        return Err(format!(
            "`{spec}`: the output must list every batch and free label exactly once"
        ));
    }
    Ok(Plan {
        lhs_sum,
        rhs_sum,
        lhs_batch: batch.iter().map(|&c| pos(&l2, c)).collect(),
        rhs_batch: batch.iter().map(|&c| pos(&r2, c)).collect(),
        lhs_contract: contract.iter().map(|&c| pos(&l2, c)).collect(),
        rhs_contract: contract.iter().map(|&c| pos(&r2, c)).collect(),
        permutation: out.iter().map(|&c| pos(&result, c)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_scores() {
        let p = plan("bthd,bshd->bhts", 4, 4).unwrap();
        assert_eq!(p.lhs_batch, vec![0, 2]);
        assert_eq!(p.rhs_batch, vec![0, 2]);
        assert_eq!(p.lhs_contract, vec![3]);
        assert_eq!(p.rhs_contract, vec![3]);
        // dot result is (b, h, t, s), already the output order.
        assert_eq!(p.permutation, vec![0, 1, 2, 3]);
    }

    #[test]
    fn transposed_output() {
        let p = plan("ij,jk->ki", 2, 2).unwrap();
        assert_eq!(p.permutation, vec![1, 0]);
    }

    #[test]
    fn sums_unshared_labels() {
        let p = plan("ij,k->ik", 2, 1).unwrap();
        assert_eq!(p.lhs_sum, vec![1]);
        assert!(p.lhs_contract.is_empty());
    }

    #[test]
    fn rejects_bad_specs() {
        assert!(plan("ij,jk", 2, 2).unwrap_err().contains("->"));
        assert!(plan("ij,jk->ix", 2, 2).unwrap_err().contains("`x`"));
        assert!(plan("iij,jk->ik", 3, 2).unwrap_err().contains("repeats"));
        assert!(plan("ij,jk->ik", 3, 2).unwrap_err().contains("rank 3"));
    }
}
