//! Dense linear algebra per matrix of the last two dimensions (the others are batch
//! dimensions): `stablehlo.cholesky`, `stablehlo.triangular_solve` and `shardc.lu`
//! (LAPACK's `getrf`). Each matrix is computed in `f64` and rounded once to the result
//! type: at least as accurate as LAPACK in the element type, which JAX's CPU lowering
//! calls.

use shardc_ir::{Elements, Literal, SolveTranspose, TensorType};

/// The matrices of `x` (row-major, in f64), with their order `rows x cols`.
fn matrices(x: &Literal) -> (Vec<Vec<f64>>, usize, usize) {
    let r = x.ty.rank();
    let (rows, cols) = (x.ty.shape[r - 2], x.ty.shape[r - 1]);
    let all = x.elements.to_f64_vec();
    let size = rows * cols;
    let mats = if size == 0 {
        vec![Vec::new(); x.ty.shape[..r - 2].iter().product()]
    } else {
        all.chunks(size).map(<[f64]>::to_vec).collect()
    };
    (mats, rows, cols)
}

fn literal(ty: &TensorType, mats: Vec<Vec<f64>>) -> Literal {
    let flat: Vec<f64> = mats.into_iter().flatten().collect();
    Literal {
        ty: ty.clone(),
        elements: Elements::from_f64(ty.dtype, &flat),
    }
}

/// `stablehlo.cholesky` (see `OpKind::Cholesky`): the factor from the `lower` (or upper)
/// triangle of each matrix, zeros in the other; NaN from the first column whose pivot is
/// not positive (or NaN) on.
pub(crate) fn cholesky(a: &Literal, lower: bool) -> Literal {
    let (mats, n, _) = matrices(a);
    let out = mats
        .into_iter()
        .map(|m| {
            // The symmetric matrix as read from the given triangle.
            let at = |i: usize, j: usize| {
                let (hi, lo) = (i.max(j), i.min(j));
                if lower {
                    m[hi * n + lo]
                } else {
                    m[lo * n + hi]
                }
            };
            let mut l = vec![0.0; n * n];
            'columns: for j in 0..n {
                let s = at(j, j) - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
                if s.is_nan() || s <= 0.0 {
                    for c in j..n {
                        for i in c..n {
                            l[i * n + c] = f64::NAN;
                        }
                    }
                    break 'columns;
                }
                let d = s.sqrt();
                l[j * n + j] = d;
                for i in j + 1..n {
                    let s = at(i, j) - (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>();
                    l[i * n + j] = s / d;
                }
            }
            if lower {
                l
            } else {
                (0..n * n).map(|k| l[(k % n) * n + k / n]).collect()
            }
        })
        .collect();
    literal(&a.ty, out)
}

/// Solves `t x = rhs` in place for a triangular `t` (`n x n`, row-major; `lower` or upper)
/// by substitution.
fn substitute(t: &[f64], n: usize, lower: bool, x: &mut [f64]) {
    let order: Vec<usize> = if lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for (step, &i) in order.iter().enumerate() {
        let mut s = x[i];
        for &k in &order[..step] {
            s -= t[i * n + k] * x[k];
        }
        x[i] = s / t[i * n + i];
    }
}

/// `stablehlo.triangular_solve` (see `OpKind::TriangularSolve`).
pub(crate) fn triangular_solve(
    a: &Literal,
    b: &Literal,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: SolveTranspose,
) -> Literal {
    let (amats, n, _) = matrices(a);
    let (bmats, rows, cols) = matrices(b);
    let transposed = transpose_a != SolveTranspose::NoTranspose;
    let out = amats
        .into_iter()
        .zip(bmats)
        .map(|(am, bm)| {
            // op(a), restricted to its triangle, as a dense matrix.
            let mut t = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    let inside = if lower { j <= i } else { j >= i };
                    let v = if i == j && unit_diagonal {
                        1.0
                    } else if inside {
                        am[i * n + j]
                    } else {
                        0.0
                    };
                    if transposed {
                        t[j * n + i] = v;
                    } else {
                        t[i * n + j] = v;
                    }
                }
            }
            let t_lower = lower != transposed;
            let mut x = bm;
            if left_side {
                // t x = b, one column of b at a time.
                for c in 0..cols {
                    let mut col: Vec<f64> = (0..rows).map(|r| x[r * cols + c]).collect();
                    substitute(&t, n, t_lower, &mut col);
                    for (r, v) in col.into_iter().enumerate() {
                        x[r * cols + c] = v;
                    }
                }
            } else {
                // x t = b: tᵀ xᵀ = bᵀ, one row of b at a time.
                let tt: Vec<f64> = (0..n * n).map(|k| t[(k % n) * n + k / n]).collect();
                for r in 0..rows {
                    substitute(&tt, n, !t_lower, &mut x[r * cols..(r + 1) * cols]);
                }
            }
            x
        })
        .collect();
    literal(&b.ty, out)
}

/// `shardc.lu` (see `OpKind::Lu`): LAPACK's `getf2` (partial pivoting on the first
/// largest magnitude; a zero pivot sets the status and skips its interchange and scaling).
pub(crate) fn lu(a: &Literal, outs: [&TensorType; 3]) -> Vec<Literal> {
    let (mats, m, n) = matrices(a);
    let k = m.min(n);
    let mut factors = Vec::with_capacity(mats.len());
    let mut pivots = Vec::with_capacity(mats.len() * k);
    let mut status = Vec::with_capacity(mats.len());
    for mut x in mats {
        let mut info = 0i32;
        for j in 0..k {
            let mut p = j;
            for i in j + 1..m {
                if x[i * n + j].abs() > x[p * n + j].abs() {
                    p = i;
                }
            }
            pivots.push(p as i32 + 1);
            let pivot = x[p * n + j];
            if pivot != 0.0 {
                if p != j {
                    for c in 0..n {
                        x.swap(j * n + c, p * n + c);
                    }
                }
                for i in j + 1..m {
                    x[i * n + j] /= pivot;
                }
            } else if info == 0 {
                info = j as i32 + 1;
            }
            for i in j + 1..m {
                let f = x[i * n + j];
                for c in j + 1..n {
                    x[i * n + c] -= f * x[j * n + c];
                }
            }
        }
        factors.push(x);
        status.push(info);
    }
    vec![
        literal(outs[0], factors),
        Literal {
            ty: outs[1].clone(),
            elements: Elements::I32(pivots),
        },
        Literal {
            ty: outs[2].clone(),
            elements: Elements::I32(status),
        },
    ]
}

/// `shardc.geqrf` (see `OpKind::Geqrf`): LAPACK's `geqr2`, one Householder reflection per
/// column (`dlarfg`'s convention: `beta = -sign(alpha) |(alpha, x)|`, `tau = (beta -
/// alpha) / beta`, `v = x / (alpha - beta)`; no reflection, `tau = 0`, when `x` is zero).
pub(crate) fn geqrf(a: &Literal, tau_ty: &TensorType) -> Vec<Literal> {
    let (mats, m, n) = matrices(a);
    let k = m.min(n);
    let mut factors = Vec::with_capacity(mats.len());
    let mut taus = Vec::with_capacity(mats.len());
    for mut x in mats {
        let mut tau = vec![0.0; k];
        for j in 0..k {
            let alpha = x[j * n + j];
            let xnorm = (j + 1..m)
                .map(|i| x[i * n + j] * x[i * n + j])
                .sum::<f64>()
                .sqrt();
            if xnorm == 0.0 {
                continue;
            }
            let beta = -alpha.hypot(xnorm).copysign(alpha);
            tau[j] = (beta - alpha) / beta;
            let scale = 1.0 / (alpha - beta);
            for i in j + 1..m {
                x[i * n + j] *= scale;
            }
            x[j * n + j] = beta;
            // Apply H = I - tau v vᵀ (v = (1, x[j+1.., j])) to the columns on the right.
            for c in j + 1..n {
                let w = x[j * n + c] + (j + 1..m).map(|i| x[i * n + j] * x[i * n + c]).sum::<f64>();
                let tw = tau[j] * w;
                x[j * n + c] -= tw;
                for i in j + 1..m {
                    x[i * n + c] -= tw * x[i * n + j];
                }
            }
        }
        factors.push(x);
        taus.push(tau);
    }
    vec![literal(&a.ty, factors), literal(tau_ty, taus)]
}

/// `shardc.householder_product` (see `OpKind::HouseholderProduct`): LAPACK's `org2r`, the
/// identity's first `n` columns multiplied by `H_k`, then `H_(k-1)`, ..., `H_1`.
pub(crate) fn householder_product(a: &Literal, tau: &Literal) -> Literal {
    let (mats, m, n) = matrices(a);
    let taus = tau.elements.to_f64_vec();
    let k = tau.ty.shape[tau.ty.rank() - 1];
    let out = mats
        .into_iter()
        .enumerate()
        .map(|(b, v)| {
            let mut q = vec![0.0; m * n];
            for i in 0..n {
                q[i * n + i] = 1.0;
            }
            for j in (0..k).rev() {
                let t = taus[b * k + j];
                for c in 0..n {
                    let w =
                        q[j * n + c] + (j + 1..m).map(|i| v[i * n + j] * q[i * n + c]).sum::<f64>();
                    let tw = t * w;
                    q[j * n + c] -= tw;
                    for i in j + 1..m {
                        q[i * n + c] -= tw * v[i * n + j];
                    }
                }
            }
            q
        })
        .collect();
    literal(&a.ty, out)
}
