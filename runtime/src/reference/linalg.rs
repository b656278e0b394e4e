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

/// `shardc.tridiagonal_solve` (see `OpKind::TridiagonalSolve`): LAPACK's `gtsv` on each
/// system, its subdiagonal `dl[1..]` (JAX's `dl` has a leading entry LAPACK does not read):
/// at each row, the row and the next are interchanged when the next's subdiagonal entry is
/// larger in magnitude; a zero pivot sets the status and stops, the arrays left as they
/// are then (as LAPACK leaves them; JAX masks the solution of such a system).
pub(crate) fn tridiagonal_solve(x: &[&Literal], status_ty: &TensorType) -> Vec<Literal> {
    let [dl, d, du, b] = [0, 1, 2, 3].map(|k| x[k].elements.to_f64_vec());
    let r = x[1].ty.rank();
    let n = x[1].ty.shape[r - 1];
    let nrhs = x[3].ty.shape[r];
    let systems: usize = x[1].ty.shape[..r - 1].iter().product();
    let (mut dl, mut d, mut du, mut b) = (dl, d, du, b);
    let mut status = Vec::with_capacity(systems);
    for s in 0..systems {
        let (v, m) = (s * n..(s + 1) * n, s * n * nrhs..(s + 1) * n * nrhs);
        status.push(gtsv(
            &mut dl[v.clone()],
            &mut d[v.clone()],
            &mut du[v],
            &mut b[m],
            nrhs,
        ));
    }
    let out = |k: usize, values: &[f64]| Literal {
        ty: x[k].ty.clone(),
        elements: Elements::from_f64(x[k].ty.dtype, values),
    };
    vec![
        out(0, &dl),
        out(1, &d),
        out(2, &du),
        out(3, &b),
        Literal {
            ty: status_ty.clone(),
            elements: Elements::I32(status),
        },
    ]
}

/// One system of [`tridiagonal_solve`]: `b` (`n x nrhs`, row-major) overwritten with the
/// solution; the status.
fn gtsv(dl: &mut [f64], d: &mut [f64], du: &mut [f64], b: &mut [f64], nrhs: usize) -> i32 {
    let n = d.len();
    if n == 0 {
        return 0;
    }
    for k in 0..n - 1 {
        // The subdiagonal entry below d[k] (LAPACK's DL(k+1), 1-based).
        let below = dl[k + 1];
        if d[k].abs() >= below.abs() {
            if d[k] == 0.0 {
                return k as i32 + 1;
            }
            let fact = below / d[k];
            d[k + 1] -= fact * du[k];
            for j in 0..nrhs {
                b[(k + 1) * nrhs + j] -= fact * b[k * nrhs + j];
            }
            if k + 2 < n {
                dl[k + 1] = 0.0;
            }
        } else {
            // Interchange rows k and k + 1.
            let fact = d[k] / below;
            d[k] = below;
            let temp = d[k + 1];
            d[k + 1] = du[k] - fact * temp;
            if k + 2 < n {
                dl[k + 1] = du[k + 1];
                du[k + 1] = -fact * dl[k + 1];
            }
            du[k] = temp;
            for j in 0..nrhs {
                let upper = b[k * nrhs + j];
                b[k * nrhs + j] = b[(k + 1) * nrhs + j];
                b[(k + 1) * nrhs + j] = upper - fact * b[(k + 1) * nrhs + j];
            }
        }
    }
    if d[n - 1] == 0.0 {
        return n as i32;
    }
    // Back substitution through U's three diagonals (d, du, and dl[1..] above du).
    for k in (0..n).rev() {
        for j in 0..nrhs {
            let mut v = b[k * nrhs + j];
            if k + 1 < n {
                v -= du[k] * b[(k + 1) * nrhs + j];
            }
            if k + 2 < n {
                v -= dl[k + 1] * b[(k + 2) * nrhs + j];
            }
            b[k * nrhs + j] = v / d[k];
        }
    }
    0
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

/// `shardc.eigh` (see `OpKind::Eigh`): the cyclic Jacobi method on the symmetric matrix
/// read from the `lower` (or upper) triangle, rotations until the off-diagonal part is
/// below rounding; eigenvalues ascending, eigenvectors as columns, each signed so that its
/// largest component is positive (LAPACK fixes no sign). A matrix holding a NaN or an
/// infinity gives NaN everywhere.
pub(crate) fn eigh(a: &Literal, lower: bool, values_ty: &TensorType) -> Vec<Literal> {
    let (mats, n, _) = matrices(a);
    let mut vectors = Vec::with_capacity(mats.len());
    let mut values = Vec::with_capacity(mats.len());
    for m in mats {
        let mut s: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                let (hi, lo) = (i.max(j), i.min(j));
                if lower {
                    m[hi * n + lo]
                } else {
                    m[lo * n + hi]
                }
            })
            .collect();
        if s.iter().any(|x| !x.is_finite()) {
            vectors.push(vec![f64::NAN; n * n]);
            values.push(vec![f64::NAN; n]);
            continue;
        }
        let mut v = identity(n);
        jacobi_eigen(&mut s, &mut v, n);
        let w: Vec<f64> = (0..n).map(|i| s[i * n + i]).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| w[i].total_cmp(&w[j]));
        let mut out = vec![0.0; n * n];
        for (c, &from) in order.iter().enumerate() {
            let sign = column_sign(&v, n, n, from);
            for r in 0..n {
                out[r * n + c] = sign * v[r * n + from];
            }
        }
        vectors.push(out);
        values.push(order.iter().map(|&i| w[i]).collect());
    }
    vec![literal(&a.ty, vectors), literal(values_ty, values)]
}

/// `shardc.svd` (see `OpKind::Svd`): one-sided Jacobi (Hestenes) on the columns of the
/// matrix, or of its transpose when it is wide, until every pair of columns is orthogonal
/// to rounding; singular values descending, `U`'s and `V`'s columns signed as
/// [`eigh`]'s, completed to orthonormal bases for `full_matrices` (and where a singular
/// value is zero). A matrix holding a NaN or an infinity gives NaN everywhere.
pub(crate) fn svd(a: &Literal, outs: [&TensorType; 3]) -> Vec<Literal> {
    let (mats, m, n) = matrices(a);
    let k = m.min(n);
    let r = outs[1].rank();
    let (ucols, vrows) = (outs[1].shape[r - 1], outs[2].shape[r - 2]);
    let (mut ss, mut us, mut vts) = (Vec::new(), Vec::new(), Vec::new());
    for x in mats {
        if x.iter().any(|v| !v.is_finite()) {
            ss.push(vec![f64::NAN; k]);
            us.push(vec![f64::NAN; m * ucols]);
            vts.push(vec![f64::NAN; vrows * n]);
            continue;
        }
        // Work on a tall matrix t (p x q, p >= q): x itself, or xᵀ when x is wide.
        let tall = m >= n;
        let (p, q) = if tall { (m, n) } else { (n, m) };
        let mut t: Vec<f64> = (0..p * q)
            .map(|e| {
                let (i, j) = (e / q, e % q);
                if tall { x[i * n + j] } else { x[j * n + i] }
            })
            .collect();
        let mut w = identity(q);
        jacobi_columns(&mut t, &mut w, p, q);
        let norms: Vec<f64> = (0..q)
            .map(|j| {
                (0..p)
                    .map(|i| t[i * q + j] * t[i * q + j])
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        let mut order: Vec<usize> = (0..q).collect();
        order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
        let largest = norms.iter().copied().fold(0.0, f64::max);
        // Left vectors of t (p-vectors: t's columns normalised), right vectors (w's columns).
        let mut left: Vec<Option<Vec<f64>>> = Vec::new();
        let mut right: Vec<Vec<f64>> = Vec::new();
        for &j in &order {
            let s = norms[j];
            let wj: Vec<f64> = (0..q).map(|i| w[i * q + j]).collect();
            let sign = if s > largest * 1e-300 && s > 0.0 {
                let col: Vec<f64> = (0..p).map(|i| t[i * q + j] / s).collect();
                let sign = signed_by_largest(&col);
                left.push(Some(col.iter().map(|c| c * sign).collect()));
                sign
            } else {
                left.push(None);
                1.0
            };
            right.push(wj.iter().map(|c| c * sign).collect());
        }
        let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
        let (lw, rw) = if tall { (ucols, vrows) } else { (vrows, ucols) };
        let left = orthonormal_basis(left, p, lw);
        let right = orthonormal_basis(right.into_iter().map(Some).collect(), q, rw.min(q));
        // t = L diag(s) Rᵀ; x = t (tall) or tᵀ = R diag(s) Lᵀ (wide).
        let (u_cols, v_cols) = if tall { (left, right) } else { (right, left) };
        let mut u = vec![0.0; m * ucols];
        for (c, col) in u_cols.iter().enumerate().take(ucols) {
            for i in 0..m {
                u[i * ucols + c] = col[i];
            }
        }
        let mut vt = vec![0.0; vrows * n];
        for (rr, col) in v_cols.iter().enumerate().take(vrows) {
            vt[rr * n..(rr + 1) * n].copy_from_slice(&col[..n]);
        }
        ss.push(s);
        us.push(u);
        vts.push(vt);
    }
    vec![
        literal(outs[0], ss),
        literal(outs[1], us),
        literal(outs[2], vts),
    ]
}

fn identity(n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    v
}

/// +1 or -1: the sign that makes the largest-magnitude entry of `v` positive.
fn signed_by_largest(v: &[f64]) -> f64 {
    let big = v
        .iter()
        .copied()
        .fold(0.0f64, |a, x| if x.abs() > a.abs() { x } else { a });
    if big < 0.0 { -1.0 } else { 1.0 }
}

/// [`signed_by_largest`] of column `c` of a `rows x cols` matrix.
fn column_sign(v: &[f64], rows: usize, cols: usize, c: usize) -> f64 {
    let col: Vec<f64> = (0..rows).map(|r| v[r * cols + c]).collect();
    signed_by_largest(&col)
}

/// Diagonalises the symmetric `s` (`n x n`) by Jacobi rotations, accumulating them in `v`
/// (`s_in = v diag(s_out) vᵀ`).
fn jacobi_eigen(s: &mut [f64], v: &mut [f64], n: usize) {
    let norm2: f64 = s.iter().map(|x| x * x).sum();
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| s[i * n + j] * s[i * n + j])
            .sum();
        if off <= norm2 * 1e-32 {
            return;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (s[q * n + q] - s[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + theta.hypot(1.0));
                let c = 1.0 / t.hypot(1.0);
                let sn = t * c;
                // s <- Jᵀ s J with J the rotation in the (p, q) plane; v <- v J.
                rotate(s, n, (c, sn), |k| (k * n + p, k * n + q));
                rotate(s, n, (c, sn), |k| (p * n + k, q * n + k));
                rotate(v, n, (c, sn), |k| (k * n + p, k * n + q));
            }
        }
    }
}

/// A plane rotation by `(cos, sin)` of `len` pairs of elements of `m`, pair `k` at the
/// indices `at(k)`: `(x, y) <- (c x - s y, s x + c y)`.
fn rotate(m: &mut [f64], len: usize, (c, s): (f64, f64), at: impl Fn(usize) -> (usize, usize)) {
    for k in 0..len {
        let (i, j) = at(k);
        let (x, y) = (m[i], m[j]);
        m[i] = c * x - s * y;
        m[j] = s * x + c * y;
    }
}

/// Rotates pairs of columns of `t` (`p x q`) until they are orthogonal, accumulating the
/// rotations in `w` (`q x q`): `t_in = t_out wᵀ`, with `t_out`'s columns orthogonal.
fn jacobi_columns(t: &mut [f64], w: &mut [f64], p: usize, q: usize) {
    for _sweep in 0..100 {
        let mut rotated = false;
        for a in 0..q {
            for b in a + 1..q {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for i in 0..p {
                    let (x, y) = (t[i * q + a], t[i * q + b]);
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if gamma == 0.0 || gamma.abs() <= 1e-16 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t_ = zeta.signum() / (zeta.abs() + zeta.hypot(1.0));
                let c = 1.0 / t_.hypot(1.0);
                let s = c * t_;
                rotate(t, p, (c, s), |i| (i * q + a, i * q + b));
                rotate(w, q, (c, s), |i| (i * q + a, i * q + b));
            }
        }
        if !rotated {
            return;
        }
    }
}

/// `count` orthonormal `len`-vectors: the given ones where present (already orthonormal),
/// the missing ones and any beyond them by Gram-Schmidt (twice) on the unit vectors
/// `e_0, e_1, ...`, taking those with a residual of their own.
fn orthonormal_basis(given: Vec<Option<Vec<f64>>>, len: usize, count: usize) -> Vec<Vec<f64>> {
    let mut slots: Vec<Option<Vec<f64>>> = given;
    slots.resize(count.max(slots.len()), None);
    let mut next_unit = 0;
    for i in 0..slots.len() {
        if slots[i].is_some() {
            continue;
        }
        while next_unit < len {
            let mut x = vec![0.0; len];
            x[next_unit] = 1.0;
            next_unit += 1;
            for _ in 0..2 {
                for b in slots.iter().flatten() {
                    let d: f64 = b.iter().zip(&x).map(|(p, q)| p * q).sum();
                    for (xe, be) in x.iter_mut().zip(b) {
                        *xe -= d * be;
                    }
                }
            }
            let norm = x.iter().map(|e| e * e).sum::<f64>().sqrt();
            if norm > 1e-8 {
                slots[i] = Some(x.iter().map(|e| e / norm).collect());
                break;
            }
        }
    }
    slots
        .into_iter()
        .take(count)
        .map(|s| s.unwrap_or_else(|| vec![0.0; len]))
        .collect()
}
