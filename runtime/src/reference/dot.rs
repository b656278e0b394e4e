//! `stablehlo.dot_general`.
//!
//! Both operands are read into canonical layouts, `lhs` as `[batch, lhs_free, contracting]`
//! and `rhs` as `[batch, contracting, rhs_free]` (each group flattened), and multiplied as
//! a batch of matrices. The result's dimensions are batch, then lhs free, then rhs free,
//! which is that product's row-major order.
//!
//! Accumulation: each result element starts at 0 and adds the products over the
//! contracting positions in ascending row-major order of the contracting dimensions
//! (as listed in `lhs_contracting_dimensions`), each product and sum rounded separately
//! (no fused multiply-add). f32 and f64 accumulate in their own type; bf16 and f16 in f32
//! (their products are exact in f32), rounded to the dtype once at the end; integers wrap;
//! on i1 the product is AND and the sum OR.

use super::layout::strided_indices;
use super::native::{Compute, slice_of, with_native};
use half::{bf16, f16};
use shardc_ir::{DotDims, Elements, Literal, TensorType};

/// How an element type multiplies and accumulates in a dot product, in its compute type
/// (f32 for bf16 and f16, whose products are exact in f32).
trait Dot: Compute {
    const ZERO: Self::C;
    fn mul_add(acc: Self::C, a: Self::C, b: Self::C) -> Self::C;
}

macro_rules! dot {
    ($($t:ty => $zero:expr, |$acc:ident, $a:ident, $b:ident| $e:expr;)*) => {$(
        impl Dot for $t {
            const ZERO: Self::C = $zero;
            #[inline(always)]
            fn mul_add($acc: Self::C, $a: Self::C, $b: Self::C) -> Self::C {
                $e
            }
        }
    )*};
}

dot! {
    f32 => 0.0, |acc, a, b| acc + a * b;
    f64 => 0.0, |acc, a, b| acc + a * b;
    bf16 => 0.0, |acc, a, b| acc + a * b;
    f16 => 0.0, |acc, a, b| acc + a * b;
    i32 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    i64 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    i8 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    i16 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    u8 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    u16 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    u32 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    u64 => 0, |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    bool => false, |acc, a, b| acc | (a & b);
}

/// Sizes of a canonical batched matmul: `[b, m, k] x [b, k, n] -> [b, m, n]`.
#[derive(Copy, Clone, Debug)]
struct Dims {
    b: usize,
    m: usize,
    k: usize,
    n: usize,
}

/// The flat indices that read `ty` with its dimensions in `order`, or `None` when that
/// is the identity (the operand is already laid out so).
fn reorder(ty: &TensorType, order: &[usize]) -> Option<Vec<usize>> {
    if order.iter().enumerate().all(|(i, &d)| i == d) {
        return None;
    }
    let strides = ty.strides();
    let shape: Vec<usize> = order.iter().map(|&d| ty.shape[d]).collect();
    let read: Vec<usize> = order.iter().map(|&d| strides[d]).collect();
    Some(strided_indices(&shape, &read, 0))
}

pub(crate) fn dot_general(lhs: &Literal, rhs: &Literal, d: &DotDims, out: &TensorType) -> Literal {
    let lhs_free = d.lhs_free(lhs.ty.rank());
    let rhs_free = d.rhs_free(rhs.ty.rank());
    let size =
        |ty: &TensorType, dims: &[usize]| dims.iter().map(|&i| ty.shape[i]).product::<usize>();
    let dims = Dims {
        b: size(&lhs.ty, &d.lhs_batch),
        m: size(&lhs.ty, &lhs_free),
        k: size(&lhs.ty, &d.lhs_contracting),
        n: size(&rhs.ty, &rhs_free),
    };
    let lhs_order: Vec<usize> = d
        .lhs_batch
        .iter()
        .chain(&lhs_free)
        .chain(&d.lhs_contracting)
        .copied()
        .collect();
    let rhs_order: Vec<usize> = d
        .rhs_batch
        .iter()
        .chain(&d.rhs_contracting)
        .chain(&rhs_free)
        .copied()
        .collect();
    let lhs_read = reorder(&lhs.ty, &lhs_order);
    let rhs_read = reorder(&rhs.ty, &rhs_order);
    let elements = with_native!(out.dtype, T => {
        matmul::<T>(&lhs.elements, lhs_read.as_deref(), &rhs.elements, rhs_read.as_deref(), dims)
    });
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// The elements widened to the accumulator type, read through `read` if given.
fn widened<T: Dot>(x: &Elements, read: Option<&[usize]>) -> Vec<T::C> {
    let xs = slice_of::<T>(x);
    match read {
        Some(idx) => idx.iter().map(|&i| xs[i].widen()).collect(),
        None => xs.iter().map(|&x| x.widen()).collect(),
    }
}

fn matmul<T: Dot>(
    lhs: &Elements,
    lhs_read: Option<&[usize]>,
    rhs: &Elements,
    rhs_read: Option<&[usize]>,
    d: Dims,
) -> Elements {
    let a = widened::<T>(lhs, lhs_read);
    let b = widened::<T>(rhs, rhs_read);
    let mut c = vec![T::ZERO; d.b * d.m * d.n];
    if d.n > 0 && d.m > 0 {
        for ((a, b), c) in a
            .chunks_exact(d.m * d.k)
            .zip(b.chunks_exact(d.k * d.n))
            .zip(c.chunks_exact_mut(d.m * d.n))
        {
            matrix::<T>(a, b, c, d);
        }
    }
    T::wrap(c.into_iter().map(T::narrow).collect())
}

/// Rows of `c` computed together by [`block`].
const ROWS: usize = 4;
/// Columns of `c` computed together by [`block`].
const COLS: usize = 8;

/// `c[m, n] = a[m, k] · b[k, n]`, one matrix of the batch: blocks of [`ROWS`] x [`COLS`]
/// results held in registers over the whole contraction, then the rows and columns left.
fn matrix<T: Dot>(a: &[T::C], b: &[T::C], c: &mut [T::C], d: Dims) {
    let (m, k, n) = (d.m, d.k, d.n);
    let full_cols = n - n % COLS;
    let mut i = 0;
    while i + ROWS <= m {
        for j in (0..full_cols).step_by(COLS) {
            block::<T>(a, b, c, i, j, k, n);
        }
        for r in i..i + ROWS {
            row::<T>(
                &a[r * k..(r + 1) * k],
                b,
                &mut c[r * n..(r + 1) * n],
                full_cols,
                n,
            );
        }
        i += ROWS;
    }
    for r in i..m {
        row::<T>(&a[r * k..(r + 1) * k], b, &mut c[r * n..(r + 1) * n], 0, n);
    }
}

/// The results `c[i..i+ROWS, j..j+COLS]`, each summing its products in ascending `k`.
#[inline(always)]
fn block<T: Dot>(a: &[T::C], b: &[T::C], c: &mut [T::C], i: usize, j: usize, k: usize, n: usize) {
    let mut acc = [[T::ZERO; COLS]; ROWS];
    let a_rows: [&[T::C]; ROWS] = std::array::from_fn(|r| &a[(i + r) * k..(i + r + 1) * k]);
    for (p, b_row) in b.chunks_exact(n).enumerate() {
        let b_part: &[T::C; COLS] = b_row[j..j + COLS]
            .try_into()
            .expect("a block's columns are within the row");
        for (acc_row, a_row) in acc.iter_mut().zip(&a_rows) {
            let a_ip = a_row[p];
            for (x, &b_pj) in acc_row.iter_mut().zip(b_part) {
                *x = T::mul_add(*x, a_ip, b_pj);
            }
        }
    }
    for (r, acc_row) in acc.iter().enumerate() {
        c[(i + r) * n + j..(i + r) * n + j + COLS].copy_from_slice(acc_row);
    }
}

/// The results `c_row[from..to]` of one row, in i-k-j order: `c[i, :] += a[i, k] * b[k, :]`,
/// so each still sums its products in ascending `k`, and the inner loop runs over
/// contiguous elements.
fn row<T: Dot>(a_row: &[T::C], b: &[T::C], c_row: &mut [T::C], from: usize, to: usize) {
    if from == to {
        return;
    }
    for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(to)) {
        for (c_ij, &b_kj) in c_row[from..to].iter_mut().zip(&b_row[from..to]) {
            *c_ij = T::mul_add(*c_ij, a_ik, b_kj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked kernel sums each result's products in ascending `k`, rounding every
    /// product and sum: bit for bit the naive triple loop, whatever the sizes' remainders.
    #[test]
    fn blocked_matmul_is_the_naive_loop_bit_for_bit() {
        for (b, m, k, n) in [(2, 9, 7, 19), (1, 4, 3, 8), (3, 1, 5, 2), (1, 8, 16, 24)] {
            let x: Vec<f32> = (0..b * m * k)
                .map(|i| ((i as f32 * 0.37).sin() * 3.0).exp())
                .collect();
            let y: Vec<f32> = (0..b * k * n).map(|i| (i as f32 * 0.91).cos()).collect();
            let dims = Dims { b, m, k, n };
            let got = matmul::<f32>(
                &Elements::F32(x.clone()),
                None,
                &Elements::F32(y.clone()),
                None,
                dims,
            );
            let mut want = vec![0f32; b * m * n];
            for p in 0..b {
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = 0f32;
                        for q in 0..k {
                            acc += x[(p * m + i) * k + q] * y[(p * k + q) * n + j];
                        }
                        want[(p * m + i) * n + j] = acc;
                    }
                }
            }
            let Elements::F32(got) = got else {
                panic!("{:?}", got.dtype())
            };
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{b}x{m}x{k}x{n}");
        }
    }
}
