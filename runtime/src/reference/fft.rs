//! `shardc.fft` (see `OpKind::Fft`): discrete Fourier transforms of complex values held as
//! pairs (real, imaginary) in an innermost dimension of 2. Computed in `f64` by `rustfft`
//! (any length: mixed radix, Bluestein's algorithm for large primes) and rounded once to
//! the element type, so at least as accurate as XLA's CPU FFT in the element type.

use rustfft::FftPlanner;
use rustfft::num_complex::Complex;
use shardc_ir::{Elements, FftType, Literal, TensorType};

/// The transform of `x` into a value of type `out`.
pub(crate) fn fft(x: &Literal, fft_type: FftType, lengths: &[usize], out: &TensorType) -> Literal {
    let values = x.to_dense().elements.to_f64_vec();
    let k = lengths.len();
    // The complex values transformed and their shape (batch dimensions, then `lengths`,
    // or for IRFFT the last of them halved).
    let (mut data, mut shape): (Vec<Complex<f64>>, Vec<usize>) = match fft_type {
        FftType::Rfft => (
            values.iter().map(|&v| Complex::new(v, 0.0)).collect(),
            x.ty.shape.clone(),
        ),
        _ => (
            values
                .chunks_exact(2)
                .map(|p| Complex::new(p[0], p[1]))
                .collect(),
            x.ty.shape[..x.ty.rank() - 1].to_vec(),
        ),
    };
    let first = shape.len() - k;
    let mut planner = FftPlanner::new();
    let inverse = matches!(fft_type, FftType::Ifft | FftType::Irfft);
    let full = if fft_type == FftType::Irfft { k - 1 } else { k };
    for axis in first..first + full {
        along(&mut planner, &mut data, &shape, axis, inverse);
    }
    if fft_type == FftType::Irfft {
        // The last dimension from its non-negative frequencies by Hermitian symmetry
        // (the imaginary parts of the zero and Nyquist frequencies are not read, as
        // pocketfft's c2r does not), then inverted; the real parts are the values.
        let n = lengths[k - 1];
        let m = shape[shape.len() - 1];
        data = data
            .chunks_exact(m)
            .flat_map(|half| {
                (0..n).map(move |j| {
                    let c = if j < m { half[j] } else { half[n - j].conj() };
                    if j == 0 || 2 * j == n {
                        Complex::new(c.re, 0.0)
                    } else {
                        c
                    }
                })
            })
            .collect();
        *shape.last_mut().expect("the transform has a dimension") = n;
        along(&mut planner, &mut data, &shape, shape.len() - 1, true);
    }
    if inverse {
        let scale = 1.0 / lengths.iter().product::<usize>() as f64;
        data.iter_mut().for_each(|c| *c *= scale);
    }
    let flat: Vec<f64> = match fft_type {
        FftType::Irfft => data.iter().map(|c| c.re).collect(),
        FftType::Rfft => {
            let n = shape[shape.len() - 1];
            let m = n / 2 + 1;
            data.chunks_exact(n)
                .flat_map(|line| line[..m].iter().flat_map(|c| [c.re, c.im]))
                .collect()
        }
        FftType::Fft | FftType::Ifft => data.iter().flat_map(|c| [c.re, c.im]).collect(),
    };
    Literal {
        ty: out.clone(),
        elements: Elements::from_f64(out.dtype, &flat),
    }
}

/// Transforms every line of `data` (row-major, of `shape`) along `axis`, unscaled.
fn along(
    planner: &mut FftPlanner<f64>,
    data: &mut [Complex<f64>],
    shape: &[usize],
    axis: usize,
    inverse: bool,
) {
    let n = shape[axis];
    if n == 0 || data.is_empty() {
        return;
    }
    let plan = if inverse {
        planner.plan_fft_inverse(n)
    } else {
        planner.plan_fft_forward(n)
    };
    let inner: usize = shape[axis + 1..].iter().product();
    let outer = data.len() / (n * inner);
    let mut line = vec![Complex::new(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            for (j, c) in line.iter_mut().enumerate() {
                *c = data[at(j)];
            }
            plan.process(&mut line);
            for (j, c) in line.iter().enumerate() {
                data[at(j)] = *c;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::DType;

    /// The transform by its definition, over the last `k` dimensions of complex `[b, n...]`.
    fn naive(x: &[Complex<f64>], shape: &[usize], k: usize, inverse: bool) -> Vec<Complex<f64>> {
        let first = shape.len() - k;
        let mut data = x.to_vec();
        for axis in first..shape.len() {
            let n = shape[axis];
            let inner: usize = shape[axis + 1..].iter().product();
            let outer = data.len() / (n * inner);
            let sign = if inverse { 1.0 } else { -1.0 };
            let mut out = data.clone();
            for o in 0..outer {
                for i in 0..inner {
                    for f in 0..n {
                        let mut s = Complex::new(0.0, 0.0);
                        for j in 0..n {
                            let angle =
                                sign * 2.0 * std::f64::consts::PI * (f * j) as f64 / n as f64;
                            s += data[(o * n + j) * inner + i] * Complex::from_polar(1.0, angle);
                        }
                        out[(o * n + f) * inner + i] = s;
                    }
                }
            }
            data = out;
        }
        data
    }

    fn pairs(ty: &[usize], values: &[Complex<f64>]) -> Literal {
        let flat: Vec<f64> = values.iter().flat_map(|c| [c.re, c.im]).collect();
        Literal::from_f64(DType::F64, ty, &flat).unwrap()
    }

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9 * (1.0 + w.abs()), "{g} vs {w}");
        }
    }

    /// Every transform type over two dimensions of odd and even lengths (7 is prime:
    /// rustfft's Rader/Bluestein path), against the definition; IRFFT inverts RFFT.
    #[test]
    fn transforms_equal_the_definition() {
        let shape = [3, 6, 7];
        let n: usize = shape.iter().product();
        let x: Vec<Complex<f64>> = (0..n)
            .map(|i| Complex::new((0.37 * i as f64).sin(), (0.11 * i as f64).cos()))
            .collect();
        let ty = |s: &[usize]| TensorType::new(DType::F64, s);
        let input = pairs(&[3, 6, 7, 2], &x);
        let lengths = [6, 7];
        let forward = fft(&input, FftType::Fft, &lengths, &ty(&[3, 6, 7, 2]));
        let want = naive(&x, &shape, 2, false);
        close(
            &forward.elements.to_f64_vec(),
            &pairs(&[3, 6, 7, 2], &want).elements.to_f64_vec(),
        );
        let back = fft(&forward, FftType::Ifft, &lengths, &ty(&[3, 6, 7, 2]));
        close(&back.elements.to_f64_vec(), &input.elements.to_f64_vec());
        // RFFT: the real parts' transform, the last dimension's first 7/2 + 1 = 4 bins.
        let real: Vec<f64> = x.iter().map(|c| c.re).collect();
        let real_in = Literal::from_f64(DType::F64, &shape, &real).unwrap();
        let r = fft(&real_in, FftType::Rfft, &lengths, &ty(&[3, 6, 4, 2]));
        let full = naive(
            &real
                .iter()
                .map(|&v| Complex::new(v, 0.0))
                .collect::<Vec<_>>(),
            &shape,
            2,
            false,
        );
        let kept: Vec<Complex<f64>> = full.chunks(7).flat_map(|l| l[..4].to_vec()).collect();
        close(
            &r.elements.to_f64_vec(),
            &pairs(&[3, 6, 4, 2], &kept).elements.to_f64_vec(),
        );
        let inverse = fft(&r, FftType::Irfft, &lengths, &ty(&shape));
        close(&inverse.elements.to_f64_vec(), &real);
    }
}
