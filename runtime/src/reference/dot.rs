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
    let free = |rank: usize, batch: &[usize], contracting: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|i| !batch.contains(i) && !contracting.contains(i))
            .collect()
    };
    let lhs_free = free(lhs.ty.rank(), &d.lhs_batch, &d.lhs_contracting);
    let rhs_free = free(rhs.ty.rank(), &d.rhs_batch, &d.rhs_contracting);
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
    if d.n > 0 {
        for (row, c_row) in c.chunks_exact_mut(d.n).enumerate() {
            let batch = row / d.m.max(1);
            let a_row = &a[row * d.k..(row + 1) * d.k];
            let b_batch = &b[batch * d.k * d.n..(batch + 1) * d.k * d.n];
            // i-k-j order: c[i, :] += a[i, k] * b[k, :], so each c[i, j] still sums its
            // products in ascending k, and the inner loop runs over contiguous rows.
            for (&a_ik, b_row) in a_row.iter().zip(b_batch.chunks_exact(d.n)) {
                for (c_ij, &b_kj) in c_row.iter_mut().zip(b_row) {
                    *c_ij = T::mul_add(*c_ij, a_ik, b_kj);
                }
            }
        }
    }
    T::wrap(c.into_iter().map(T::narrow).collect())
}
