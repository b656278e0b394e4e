//! The factorization of a reshape (the algorithm of Shardy's reshape rule, restated).
//!
//! A reshape keeps the row-major order of elements, so both shapes are two ways of
//! writing one flat index in mixed radix. Walking both shapes from the major end, we
//! split dimensions into factors: a factor *shared* by an operand dimension and a
//! result dimension is a digit of the flat index that both shapes contain (same size,
//! same stride), so sharding it in the operand shards the result the same way. Where
//! the shapes diverge (`2x3 -> 3x2`: no digit in common), each side gets factors of its
//! own until the running products meet again.
//!
//! ```text
//! 4x8x16 -> 4x8x4x4   ([i, j, kl])->([i, j, k, l]) {i=4, j=8, k=4, l=4}
//! 6      -> 2x3       ([ij])->([i, j]) {i=2, j=3}
//! 8x4x5  -> 2x16x5    ([ij, k, l])->([i, jk, l]) {i=2, j=4, k=4, l=5}
//! ```
//!
//! Dimensions of size 1 hold no digit: each gets a size-1 factor of its own.

/// One factor of a reshape: its size, and the operand and result dimension it is part
/// of (`None` when the factor is on one side only).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReshapeFactor {
    pub size: usize,
    pub input: Option<usize>,
    pub output: Option<usize>,
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One side of the walk: the dimension under the cursor, the product of the sizes of
/// the dimensions up to and including it, and the product of the factors emitted so far.
struct Side<'a> {
    shape: &'a [usize],
    dim: usize,
    dims_product: usize,
    factors_product: usize,
}

impl Side<'_> {
    fn in_range(&self) -> bool {
        self.dim < self.shape.len()
    }

    /// Starts the dimension under the cursor once the previous one is fully factored.
    fn open(&mut self) {
        if self.in_range() && self.dims_product == self.factors_product {
            self.dims_product *= self.shape[self.dim];
        }
    }

    /// What is left of the dimension under the cursor.
    fn remaining(&self) -> usize {
        self.dims_product / self.factors_product
    }

    fn emit(&mut self, size: usize) -> Option<usize> {
        self.factors_product *= size;
        Some(self.dim)
    }

    /// Moves on once the dimension under the cursor is fully factored.
    fn advance(&mut self) {
        if self.in_range() && self.dims_product == self.factors_product {
            self.dim += 1;
        }
    }
}

/// When one side (`behind`) has emitted less than the other (`ahead`), the size of the
/// next factor of the side behind, from what is left of its dimension (`next`): the
/// factor that makes both sides meet if there is one, else one that keeps the common
/// divisor `g` for the next step, else all that is left.
fn catch_up(next: usize, behind: usize, ahead: usize, g: usize) -> usize {
    if ahead.is_multiple_of(behind) && next.is_multiple_of(ahead / behind) {
        ahead / behind
    } else if next > g {
        next / g
    } else {
        next
    }
}

/// The factors of a reshape from `input` to `output`, in the order they are found.
///
/// Both shapes must hold the same, non-zero number of elements; otherwise, or if the walk
/// stops making progress (a bug), this says why.
pub(crate) fn reshape_factors(
    input: &[usize],
    output: &[usize],
) -> Result<Vec<ReshapeFactor>, String> {
    let (n_in, n_out) = (
        input.iter().product::<usize>(),
        output.iter().product::<usize>(),
    );
    if n_in != n_out || n_in == 0 {
        return Err(format!(
            "cannot factor a reshape of {input:?} ({n_in} elements) to {output:?} ({n_out} elements); both must hold the same non-zero number"
        ));
    }
    let side = |shape| Side {
        shape,
        dim: 0,
        dims_product: 1,
        factors_product: 1,
    };
    let (mut a, mut b) = (side(input), side(output));
    let mut factors = Vec::new();
    while a.in_range() || b.in_range() {
        if a.in_range() && input[a.dim] == 1 {
            factors.push(ReshapeFactor {
                size: 1,
                input: Some(a.dim),
                output: None,
            });
            a.dim += 1;
            continue;
        }
        if b.in_range() && output[b.dim] == 1 {
            factors.push(ReshapeFactor {
                size: 1,
                input: None,
                output: Some(b.dim),
            });
            b.dim += 1;
            continue;
        }
        a.open();
        b.open();
        let (next_in, next_out) = (a.remaining(), b.remaining());
        let g = gcd(next_in, next_out);
        let before = factors.len();
        if a.factors_product == b.factors_product {
            if g > 1 {
                // Both sides are at the same digit: the common divisor is shared.
                let (input, output) = (a.emit(g), b.emit(g));
                factors.push(ReshapeFactor {
                    size: g,
                    input,
                    output,
                });
            } else if next_in > 1 && next_out > 1 {
                // Nothing in common: each side takes what is left of its dimension.
                let input = a.emit(next_in);
                factors.push(ReshapeFactor {
                    size: next_in,
                    input,
                    output: None,
                });
                let output = b.emit(next_out);
                factors.push(ReshapeFactor {
                    size: next_out,
                    input: None,
                    output,
                });
            }
        } else if a.factors_product < b.factors_product {
            let size = catch_up(next_in, a.factors_product, b.factors_product, g);
            if size > 1 {
                let input = a.emit(size);
                factors.push(ReshapeFactor {
                    size,
                    input,
                    output: None,
                });
            }
        } else {
            let size = catch_up(next_out, b.factors_product, a.factors_product, g);
            if size > 1 {
                let output = b.emit(size);
                factors.push(ReshapeFactor {
                    size,
                    input: None,
                    output,
                });
            }
        }
        if factors.len() == before {
            return Err(format!(
                "the reshape walk of {input:?} -> {output:?} stopped making progress at operand dimension {} and result dimension {}",
                a.dim, b.dim
            ));
        }
        a.advance();
        b.advance();
    }
    Ok(factors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes factors as `([..])->([..])` with sizes, naming them i, j, ... in order.
    fn show(input: &[usize], output: &[usize]) -> String {
        let factors = reshape_factors(input, output).unwrap();
        let name = |i: usize| char::from(b'i' + i as u8);
        let side = |rank: usize, pick: fn(&ReshapeFactor) -> Option<usize>| {
            let dims: Vec<String> = (0..rank)
                .map(|d| {
                    factors
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| pick(f) == Some(d))
                        .map(|(i, _)| name(i))
                        .collect()
                })
                .collect();
            dims.join(", ")
        };
        let sizes: Vec<String> = factors
            .iter()
            .enumerate()
            .map(|(i, f)| format!("{}={}", name(i), f.size))
            .collect();
        format!(
            "([{}])->([{}]) {{{}}}",
            side(input.len(), |f| f.input),
            side(output.len(), |f| f.output),
            sizes.join(", ")
        )
    }

    #[test]
    fn factors_like_shardy() {
        // Expected strings are the factorizations Shardy's own tests expect.
        let cases: &[(&[usize], &[usize], &str)] = &[
            (&[2, 4], &[8], "([i, j])->([ij]) {i=2, j=4}"),
            (&[8], &[2, 4], "([ij])->([i, j]) {i=2, j=4}"),
            (
                &[4, 12],
                &[4, 2, 3, 2],
                "([i, jkl])->([i, j, k, l]) {i=4, j=2, k=3, l=2}",
            ),
            (
                &[8, 4, 5],
                &[2, 16, 5],
                "([ij, k, l])->([i, jk, l]) {i=2, j=4, k=4, l=5}",
            ),
            (&[3, 2], &[2, 3], "([i, l])->([j, k]) {i=3, j=2, k=3, l=2}"),
            (
                &[6, 4],
                &[4, 6],
                "([ij, mn])->([ik, ln]) {i=2, j=3, k=2, l=3, m=2, n=2}",
            ),
            (
                &[5, 2, 5, 3],
                &[5, 3, 5, 2],
                "([i, j, l, n])->([i, k, m, o]) {i=5, j=2, k=3, l=5, m=5, n=3, o=2}",
            ),
            (
                &[2, 3, 8],
                &[3, 4, 4],
                "([i, k, mn])->([j, lm, n]) {i=2, j=3, k=3, l=2, m=2, n=4}",
            ),
            (
                &[3, 4, 4],
                &[2, 3, 8],
                "([i, lm, n])->([j, k, mn]) {i=3, j=2, k=3, l=2, m=2, n=4}",
            ),
            (
                &[4, 7, 5, 8],
                &[14, 10, 8],
                "([ij, l, n, o])->([ik, mn, o]) {i=2, j=2, k=7, l=7, m=2, n=5, o=8}",
            ),
            (
                &[1, 8, 4],
                &[8, 1, 4, 1],
                "([i, j, l])->([j, k, l, m]) {i=1, j=8, k=1, l=4, m=1}",
            ),
            (&[8, 4], &[32, 1], "([i, j])->([ij, k]) {i=8, j=4, k=1}"),
            (&[32, 1], &[8, 4], "([ij, k])->([i, j]) {i=8, j=4, k=1}"),
            (&[32], &[8, 1, 4], "([ik])->([i, j, k]) {i=8, j=1, k=4}"),
            (&[1, 1], &[], "([i, j])->([]) {i=1, j=1}"),
        ];
        for (input, output, want) in cases {
            assert_eq!(show(input, output), *want, "{input:?} -> {output:?}");
        }
    }

    #[test]
    fn brief_examples() {
        assert_eq!(
            show(&[4, 8, 16], &[4, 8, 4, 4]),
            "([i, j, kl])->([i, j, k, l]) {i=4, j=8, k=4, l=4}"
        );
        assert_eq!(show(&[6], &[2, 3]), "([ij])->([i, j]) {i=2, j=3}");
        assert_eq!(
            show(&[2, 3], &[3, 2]),
            "([i, k])->([j, l]) {i=2, j=3, k=3, l=2}"
        );
        assert_eq!(show(&[], &[1, 1]), "([])->([i, j]) {i=1, j=1}");
        assert_eq!(show(&[], &[]), "([])->([]) {}");
    }

    #[test]
    fn rejects_mismatched_or_empty_shapes() {
        assert!(reshape_factors(&[2, 3], &[5]).is_err());
        assert!(reshape_factors(&[0, 3], &[3, 0]).is_err());
    }

    /// The flat (row-major) stride of each factor, seen from one side: the stride of its
    /// dimension times the sizes of the factors minor to it in that dimension.
    fn strides(
        factors: &[ReshapeFactor],
        shape: &[usize],
        pick: fn(&ReshapeFactor) -> Option<usize>,
    ) -> Vec<Option<usize>> {
        let dim_strides = crate::dtype::row_major_strides(shape);
        let mut out = vec![None; factors.len()];
        for (d, &stride) in dim_strides.iter().enumerate() {
            let mut s = stride;
            for (i, f) in factors
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, f)| pick(f) == Some(d))
            {
                out[i] = Some(s);
                s *= f.size;
            }
        }
        out
    }

    /// Every shape of rank <= 3 over a few sizes.
    fn shapes() -> Vec<Vec<usize>> {
        let sizes = [1, 2, 3, 4, 6, 8, 12];
        let mut all = vec![vec![]];
        for rank in 1..=3 {
            let mut next = Vec::new();
            for s in all.iter().filter(|s| s.len() == rank - 1) {
                for &n in &sizes {
                    let mut t = s.clone();
                    t.push(n);
                    next.push(t);
                }
            }
            all.extend(next);
        }
        all
    }

    /// On every pair of shapes with as many elements: each dimension's factors multiply
    /// to its size, and a shared factor is the same digit of the flat index on both sides
    /// (same size, same stride), which is what makes sharding it carry through.
    #[test]
    fn shared_factors_are_the_same_digit_of_the_flat_index() {
        let all = shapes();
        let mut pairs = 0;
        let mut shared = 0;
        for input in &all {
            for output in all
                .iter()
                .filter(|o| o.iter().product::<usize>() == input.iter().product::<usize>())
            {
                pairs += 1;
                let factors = reshape_factors(input, output).unwrap();
                for (shape, pick) in [
                    (
                        input,
                        (|f: &ReshapeFactor| f.input) as fn(&ReshapeFactor) -> Option<usize>,
                    ),
                    (output, |f| f.output),
                ] {
                    for (d, &n) in shape.iter().enumerate() {
                        let product: usize = factors
                            .iter()
                            .filter(|f| pick(f) == Some(d))
                            .map(|f| f.size)
                            .product();
                        let count = factors.iter().filter(|f| pick(f) == Some(d)).count();
                        assert!(
                            count >= 1,
                            "{input:?} -> {output:?}: dimension {d} has no factor"
                        );
                        assert_eq!(product, n, "{input:?} -> {output:?}: dimension {d}");
                    }
                }
                assert!(
                    factors
                        .iter()
                        .all(|f| f.input.is_some() || f.output.is_some())
                );
                assert!(factors.iter().all(|f| f.size > 1
                    || (f.input.is_none() || input[f.input.unwrap()] == 1)
                        && (f.output.is_none() || output[f.output.unwrap()] == 1)));
                let (si, so) = (
                    strides(&factors, input, |f| f.input),
                    strides(&factors, output, |f| f.output),
                );
                for (i, f) in factors.iter().enumerate() {
                    if f.input.is_some() && f.output.is_some() {
                        shared += 1;
                        assert_eq!(
                            si[i], so[i],
                            "{input:?} -> {output:?}: factor {i} ({f:?}) has different strides"
                        );
                    }
                }
            }
        }
        assert!(
            pairs > 1000 && shared > 1000,
            "{pairs} pairs, {shared} shared factors"
        );
    }

    /// A reshape to the same shape shares every dimension whole.
    #[test]
    fn identical_dimensions_are_shared_whole() {
        for shape in shapes().into_iter().filter(|s| !s.contains(&1)) {
            let factors = reshape_factors(&shape, &shape).unwrap();
            assert_eq!(factors.len(), shape.len(), "{shape:?}");
            for (d, f) in factors.iter().enumerate() {
                assert_eq!(
                    (f.input, f.output, f.size),
                    (Some(d), Some(d), shape[d]),
                    "{shape:?}"
                );
            }
        }
    }
}
