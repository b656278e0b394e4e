//! Ops that create or move elements without arithmetic: `constant`, `iota`,
//! `broadcast_in_dim`, `reshape`, `transpose`, `slice`, `concatenate` and `pad`.
//!
//! Broadcast, transpose and slice are all a strided read of the operand
//! ([`strided_indices`]): only the strides per result dimension differ.

use super::convert::{Convert, Num};
use super::native::{Native, slice_of, with_native};
use shardc_ir::{Literal, TensorType};

/// For every position of `shape` in row-major order, the flat index
/// `base + Σ index[d] * strides[d]`.
pub(crate) fn strided_indices(shape: &[usize], strides: &[usize], base: usize) -> Vec<usize> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let Some((&inner, outer)) = shape.split_last() else {
        out.push(base);
        return out;
    };
    if n == 0 {
        return out;
    }
    let inner_stride = strides[outer.len()];
    let mut index = vec![0usize; outer.len()];
    let mut cur = base;
    loop {
        out.extend((0..inner).map(|j| cur + j * inner_stride));
        // Advance the outer dimensions like an odometer.
        let mut d = outer.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            cur += strides[d];
            if index[d] < outer[d] {
                break;
            }
            cur -= strides[d] * outer[d];
            index[d] = 0;
        }
    }
}

/// The flat index of a multi-index.
pub(crate) fn flat_index(index: &[usize], strides: &[usize]) -> usize {
    index.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// `iota`: each element is its index along `dimension`, converted to the element type.
pub(crate) fn iota(dimension: usize, out: &TensorType) -> Literal {
    let strides = out.strides();
    let (stride, size) = (strides[dimension], out.shape[dimension]);
    let elements = with_native!(out.dtype, T => T::wrap(
        (0..out.num_elements()).map(|i| T::from_num(Num::Int(((i / stride) % size) as i64))).collect()
    ));
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `broadcast_in_dim`: operand dimension `i` becomes result dimension `dims[i]`
/// (a size-1 operand dimension repeats).
pub(crate) fn broadcast_in_dim(x: &Literal, dims: &[usize], out: &TensorType) -> Literal {
    let x_strides = x.ty.strides();
    let mut strides = vec![0; out.rank()];
    for (i, &d) in dims.iter().enumerate() {
        if x.ty.shape[i] != 1 {
            strides[d] = x_strides[i];
        }
    }
    let elements = x.elements.gather(&strided_indices(&out.shape, &strides, 0));
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `reshape`: the same elements in row-major order under another shape.
pub(crate) fn reshape(x: &Literal, out: &TensorType) -> Literal {
    Literal {
        ty: out.clone(),
        elements: x.elements.clone(),
    }
}

/// `transpose`: result dimension `d` is operand dimension `permutation[d]`.
pub(crate) fn transpose(x: &Literal, permutation: &[usize], out: &TensorType) -> Literal {
    let x_strides = x.ty.strides();
    let strides: Vec<usize> = permutation.iter().map(|&p| x_strides[p]).collect();
    let elements = x.elements.gather(&strided_indices(&out.shape, &strides, 0));
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `slice`: positions `start[d] + k * strides[d]` below `limit[d]` of each dimension.
pub(crate) fn slice(x: &Literal, start: &[usize], steps: &[usize], out: &TensorType) -> Literal {
    let x_strides = x.ty.strides();
    let strides: Vec<usize> = x_strides.iter().zip(steps).map(|(s, k)| s * k).collect();
    let base = flat_index(start, &x_strides);
    let elements = x
        .elements
        .gather(&strided_indices(&out.shape, &strides, base));
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// The start indices of a dynamic slice of `sizes` in `shape`: each scalar read as an
/// integer and clamped into `[0, dim - size]`, as StableHLO defines it.
pub(crate) fn clamped_starts(starts: &[&Literal], shape: &[usize], sizes: &[usize]) -> Vec<usize> {
    starts
        .iter()
        .zip(shape.iter().zip(sizes))
        .map(|(s, (&n, &k))| {
            let i = super::gather::index_values(&s.elements)
                .and_then(|v| v.first().copied())
                .unwrap_or(0);
            i.clamp(0, (n - k) as i64) as usize
        })
        .collect()
}

/// `dynamic_slice`: the block of `out`'s shape at the clamped starts.
pub(crate) fn dynamic_slice(x: &Literal, starts: &[&Literal], out: &TensorType) -> Literal {
    let at = clamped_starts(starts, &x.ty.shape, &out.shape);
    slice(x, &at, &vec![1; at.len()], out)
}

/// `dynamic_update_slice`: `x` with the block at the clamped starts replaced by `u`.
pub(crate) fn dynamic_update_slice(x: &Literal, u: &Literal, starts: &[&Literal]) -> Literal {
    let at = clamped_starts(starts, &x.ty.shape, &u.ty.shape);
    let x_strides = x.ty.strides();
    let targets = strided_indices(&u.ty.shape, &x_strides, flat_index(&at, &x_strides));
    let dense = x.to_dense();
    let update = u.to_dense();
    let elements = with_native!(x.ty.dtype, T => {
        let mut v = slice_of::<T>(&dense.elements).to_vec();
        let w = slice_of::<T>(&update.elements);
        for (k, &i) in targets.iter().enumerate() {
            v[i] = w[k];
        }
        T::wrap(v)
    });
    Literal {
        ty: x.ty.clone(),
        elements,
    }
}

/// `concatenate` along `dimension`.
pub(crate) fn concatenate(xs: &[&Literal], dimension: usize, out: &TensorType) -> Literal {
    let outer: usize = out.shape[..dimension].iter().product();
    let chunks: Vec<usize> = xs
        .iter()
        .map(|x| x.ty.shape[dimension..].iter().product())
        .collect();
    let elements = with_native!(out.dtype, T => {
        let mut v: Vec<T> = Vec::with_capacity(out.num_elements());
        for o in 0..outer {
            for (x, &chunk) in xs.iter().zip(&chunks) {
                v.extend_from_slice(&slice_of::<T>(&x.elements)[o * chunk..(o + 1) * chunk]);
            }
        }
        T::wrap(v)
    });
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `shardc.rotate` (`jnp.roll`): along `dimension` (of size `n`), result element `i` is
/// operand element `(i - shift) mod n`; the blocks `[n - s, n)` then `[0, n - s)` of the
/// operand, with `s = shift mod n`.
pub(crate) fn rotate(x: &Literal, dimension: usize, shift: i64) -> Literal {
    let shape = &x.ty.shape;
    let n = shape[dimension];
    let outer: usize = shape[..dimension].iter().product();
    let inner: usize = shape[dimension + 1..].iter().product();
    let s = match i64::try_from(n) {
        Ok(n) if n > 0 => shift.rem_euclid(n) as usize,
        _ => 0,
    };
    let elements = with_native!(x.ty.dtype, T => {
        let src = slice_of::<T>(&x.elements);
        let mut v: Vec<T> = Vec::with_capacity(src.len());
        for o in 0..outer {
            let row = &src[o * n * inner..(o + 1) * n * inner];
            v.extend_from_slice(&row[(n - s) * inner..]);
            v.extend_from_slice(&row[..(n - s) * inner]);
        }
        T::wrap(v)
    });
    Literal {
        ty: x.ty.clone(),
        elements,
    }
}

/// `pad`: operand element `i` of dimension `d` lands at `low[d] + i * (interior[d] + 1)`;
/// positions that fall outside the result (negative padding) are dropped, and every other
/// position holds the padding value.
pub(crate) fn pad(
    x: &Literal,
    value: &Literal,
    low: &[i64],
    interior: &[i64],
    out: &TensorType,
) -> Literal {
    let x_strides = x.ty.strides();
    let out_strides = out.strides();
    // Per dimension: the operand indices that land inside the result form a range.
    let (mut src_base, mut dst_base) = (0usize, 0usize);
    let mut sub_shape = Vec::with_capacity(x.ty.rank());
    let mut dst_strides = Vec::with_capacity(x.ty.rank());
    for d in 0..x.ty.rank() {
        let step = interior[d] + 1;
        let (n, size) = (x.ty.shape[d] as i64, out.shape[d] as i64);
        // First index with low + i*step >= 0, and one past the last with low + i*step < size.
        let first = if low[d] >= 0 {
            0
        } else {
            (-low[d] + step - 1) / step
        };
        let end = if size - 1 - low[d] < 0 {
            0
        } else {
            (size - 1 - low[d]) / step + 1
        };
        let (first, end) = (first.min(n), end.min(n));
        let count = (end - first).max(0) as usize;
        sub_shape.push(count);
        dst_strides.push(step as usize * out_strides[d]);
        if count > 0 {
            src_base += first as usize * x_strides[d];
            dst_base += (low[d] + first * step) as usize * out_strides[d];
        }
    }
    let src = strided_indices(&sub_shape, &x_strides, src_base);
    let dst = strided_indices(&sub_shape, &dst_strides, dst_base);
    let elements = with_native!(out.dtype, T => {
        let (xs, fill) = (slice_of::<T>(&x.elements), slice_of::<T>(&value.elements)[0]);
        let mut v = vec![fill; out.num_elements()];
        if sub_shape.iter().all(|&c| c > 0) {
            for (&s, &t) in src.iter().zip(&dst) {
                v[t] = xs[s];
            }
        }
        T::wrap(v)
    });
    Literal {
        ty: out.clone(),
        elements,
    }
}

/// `reverse`: element `i` along each reversed dimension `d` is element `n_d - 1 - i`.
pub(crate) fn reverse(x: &Literal, dimensions: &[usize]) -> Literal {
    let shape = &x.ty.shape;
    let strides = x.ty.strides();
    let n = x.ty.num_elements();
    let mut index = vec![0usize; shape.len()];
    let mut from = Vec::with_capacity(n);
    for _ in 0..n {
        let flat: usize = (0..shape.len())
            .map(|d| {
                let i = if dimensions.contains(&d) {
                    shape[d] - 1 - index[d]
                } else {
                    index[d]
                };
                i * strides[d]
            })
            .sum();
        from.push(flat);
        shardc_ir::dtype::advance_row_major(&mut index, shape);
    }
    Literal {
        ty: x.ty.clone(),
        elements: x.to_dense().elements.gather(&from),
    }
}
