//! Convolutions served by the library GEMM (the `gemm` crate), as XLA:CPU hands its
//! convolutions to Eigen and oneDNN: each feature group's input windows laid out as the
//! rows of a matrix (*im2col*: one row per output position, one column per window
//! element and input feature, zeros where the window reads padding or between the
//! points of a dilated input), multiplied by the kernel laid out as a matrix of window
//! elements and input features by output features, the product written into the
//! result's layout.
//!
//! Every f32 and f64 convolution with one batch group is served: dimension numbers
//! anywhere, strides, padding (negative too), input and kernel dilation, reversal and
//! feature groups (depthwise). The others (batch groups: the kernel gradient of a
//! grouped convolution; integer and half types) run on the reference interpreter, as
//! before. The products are summed in the element type, in the GEMM's order, as XLA's
//! CPU convolutions sum (the interpreter sums in `f64`).
//!
//! A Flax CNN training step (four 3x3 convolutions of 32 and 64 features on 32x32
//! images, batch 64 over 8 devices: `docs/bench/programs/flax_cnn_64.mlir`) took 28 s a
//! step on the interpreter; through the GEMM 134 ms, beside XLA's 72 ms (`docs/kernels.md`).

use shardc_ir::dtype::advance_row_major;
use shardc_ir::{ConvDims, Elements, Literal, Op, OpKind};

/// Writes convolution `op` of `x` by `k` into `out` (a buffer of the result's type,
/// whatever it holds). `Ok(false)`, `out` untouched, when the GEMM does not serve it.
pub(crate) fn convolve_into(
    op: &Op,
    x: &Literal,
    k: &Literal,
    out: &mut Literal,
) -> Result<bool, String> {
    let OpKind::Convolution(d) = &op.kind else {
        return Ok(false);
    };
    if d.batch_group_count != 1 || x.ty.dtype != k.ty.dtype || x.ty.dtype != out.ty.dtype {
        return Ok(false);
    }
    let (x, k) = (x.to_dense(), k.to_dense());
    if out.is_splat() {
        *out = out.to_dense();
    }
    let shape = Shape::of(d, &x, &k, out)?;
    match (&x.elements, &k.elements, &mut out.elements) {
        (Elements::F32(a), Elements::F32(b), Elements::F32(c)) => shape.convolve(d, a, b, c),
        (Elements::F64(a), Elements::F64(b), Elements::F64(c)) => shape.convolve(d, a, b, c),
        _ => return Ok(false),
    }
    Ok(true)
}

/// The sizes and strides of one convolution, by role.
struct Shape {
    batch: usize,
    groups: usize,
    /// Input features per group (the GEMM's columns per window element).
    per_group_in: usize,
    /// Output features per group (the GEMM's columns of the result).
    per_group_out: usize,
    /// The kernel's spatial sizes, and the output's.
    window: Vec<usize>,
    spatial_out: Vec<usize>,
    /// The input's spatial sizes.
    spatial_in: Vec<usize>,
    x_strides: Vec<usize>,
    k_strides: Vec<usize>,
    out_strides: Vec<usize>,
}

impl Shape {
    fn of(d: &ConvDims, x: &Literal, k: &Literal, out: &Literal) -> Result<Shape, String> {
        let groups = d.feature_group_count.max(1);
        let features_out = out.ty.shape[d.output_feature];
        if !features_out.is_multiple_of(groups) {
            return Err(format!(
                "a convolution of {features_out} output features in {groups} groups"
            ));
        }
        Ok(Shape {
            batch: x.ty.shape[d.input_batch],
            groups,
            per_group_in: k.ty.shape[d.kernel_input_feature],
            per_group_out: features_out / groups,
            window: d.kernel_spatial.iter().map(|&s| k.ty.shape[s]).collect(),
            spatial_out: d.output_spatial.iter().map(|&s| out.ty.shape[s]).collect(),
            spatial_in: d.input_spatial.iter().map(|&s| x.ty.shape[s]).collect(),
            x_strides: x.ty.strides(),
            k_strides: k.ty.strides(),
            out_strides: out.ty.strides(),
        })
    }

    fn convolve<T: Copy + Default + From<u8> + 'static>(
        &self,
        d: &ConvDims,
        x: &[T],
        k: &[T],
        out: &mut [T],
    ) {
        let positions: usize = self.spatial_out.iter().product();
        let taps: usize = self.window.iter().product();
        let (cg, og) = (self.per_group_in, self.per_group_out);
        let (rows, cols) = (self.batch * positions, taps * cg);
        let zero = T::default();
        // Per output position and window element, the input's offset (its spatial part),
        // or none where the window reads padding or a hole of a dilated input.
        let mut offsets: Vec<Option<usize>> = Vec::with_capacity(positions * taps);
        let mut o = vec![0usize; self.spatial_out.len()];
        for _ in 0..positions {
            let mut w = vec![0usize; self.window.len()];
            for _ in 0..taps {
                offsets.push(self.input_offset(d, &o, &w));
                advance_row_major(&mut w, &self.window);
            }
            advance_row_major(&mut o, &self.spatial_out);
        }
        // Per window element, the kernel's offset (its spatial part, reversal applied).
        let kernel_offsets: Vec<usize> = {
            let mut w = vec![0usize; self.window.len()];
            (0..taps)
                .map(|_| {
                    let at = w
                        .iter()
                        .enumerate()
                        .map(|(s, &i)| {
                            let i = if d.window_reversal[s] {
                                self.window[s] - 1 - i
                            } else {
                                i
                            };
                            i * self.k_strides[d.kernel_spatial[s]]
                        })
                        .sum();
                    advance_row_major(&mut w, &self.window);
                    at
                })
                .collect()
        };
        let mut a = vec![zero; rows * cols];
        let mut b = vec![zero; cols * og];
        let mut c = vec![zero; rows * og];
        let (xb, xf) = (
            self.x_strides[d.input_batch],
            self.x_strides[d.input_feature],
        );
        let (kin, kout) = (
            self.k_strides[d.kernel_input_feature],
            self.k_strides[d.kernel_output_feature],
        );
        for group in 0..self.groups {
            // im2col: row (batch, position), column (window element, input feature).
            for n in 0..self.batch {
                for p in 0..positions {
                    let row = &mut a[(n * positions + p) * cols..][..cols];
                    for (t, slot) in row.chunks_exact_mut(cg).enumerate() {
                        match offsets[p * taps + t] {
                            Some(at) => {
                                let base = n * xb + at + group * cg * xf;
                                for (ci, v) in slot.iter_mut().enumerate() {
                                    *v = x[base + ci * xf];
                                }
                            }
                            None => slot.fill(zero),
                        }
                    }
                }
            }
            // The kernel: row (window element, input feature), column output feature.
            for (t, &at) in kernel_offsets.iter().enumerate() {
                for ci in 0..cg {
                    let row = &mut b[(t * cg + ci) * og..][..og];
                    for (oi, v) in row.iter_mut().enumerate() {
                        *v = k[at + ci * kin + (group * og + oi) * kout];
                    }
                }
            }
            gemm_rows(rows, og, cols, &a, &b, &mut c);
            // The product into the result's layout.
            let (ob, of) = (
                self.out_strides[d.output_batch],
                self.out_strides[d.output_feature],
            );
            let mut o = vec![0usize; self.spatial_out.len()];
            for p in 0..positions {
                let at: usize = o
                    .iter()
                    .zip(&d.output_spatial)
                    .map(|(&i, &s)| i * self.out_strides[s])
                    .sum();
                for n in 0..self.batch {
                    let from = &c[(n * positions + p) * og..][..og];
                    let base = n * ob + at + group * og * of;
                    for (oi, &v) in from.iter().enumerate() {
                        out[base + oi * of] = v;
                    }
                }
                advance_row_major(&mut o, &self.spatial_out);
            }
        }
    }

    /// The input offset (spatial dimensions only) window element `w` of output position
    /// `o` reads, or `None` for padding or a hole between dilated input points.
    fn input_offset(&self, d: &ConvDims, o: &[usize], w: &[usize]) -> Option<usize> {
        let mut at = 0;
        for s in 0..o.len() {
            let pos =
                (o[s] * d.window_strides[s] + w[s] * d.rhs_dilation[s]) as i64 - d.padding[s].0;
            let ld = d.lhs_dilation[s].max(1) as i64;
            if pos < 0 || pos % ld != 0 || (pos / ld) as usize >= self.spatial_in[s] {
                return None;
            }
            at += (pos / ld) as usize * self.x_strides[d.input_spatial[s]];
        }
        Some(at)
    }
}

/// `c = a x b`, all three row-major (`a` is `m x k`, `b` is `k x n`).
fn gemm_rows<T: Copy + Default + From<u8> + 'static>(
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    b: &[T],
    c: &mut [T],
) {
    if k == 0 {
        c.fill(T::default());
        return;
    }
    // SAFETY: the three slices hold `m k`, `k n` and `m n` elements, read and written
    // row-major through the strides given (column stride 1, row stride the width).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            T::from(0),
            T::from(1),
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;
    use shardc_ir::{DType, TensorType};

    /// Through the GEMM, convolutions of every form the GEMM serves (strides, negative
    /// padding, input and kernel dilation, reversal, feature groups, dimensions in any
    /// order) give the interpreter's values within f32 rounding; a batch-grouped one is
    /// left to the interpreter.
    #[test]
    fn convolutions_through_the_gemm_equal_the_interpreter() {
        let convs = [
            (
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]",
                "1",
                "1",
                [2, 6, 5, 4],
                [3, 3, 4, 6],
                [2, 6, 5, 6],
            ),
            (
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "stride = [2, 1], pad = [[-1, 2], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [true, false]",
                "2",
                "1",
                [2, 6, 5, 4],
                [2, 3, 2, 6],
                [2, 3, 4, 6],
            ),
            (
                "[b, f, 0, 1]x[o, i, 0, 1]->[b, 0, f, 1]",
                "stride = [1, 1], pad = [[1, 0], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]",
                "1",
                "1",
                [2, 4, 3, 3],
                [6, 4, 2, 2],
                [2, 5, 6, 7],
            ),
            (
                "[f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]",
                "stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]",
                "1",
                "2",
                [4, 5, 5, 2],
                [4, 3, 3, 6],
                [3, 3, 1, 6],
            ),
        ];
        for (k, (dims, window, groups, batch_groups, xs, ks, os)) in convs.into_iter().enumerate() {
            let t = |s: [usize; 4]| format!("tensor<{}x{}x{}x{}xf32>", s[0], s[1], s[2], s[3]);
            let text = format!(
                "func.func @main(%x: {x}, %k: {kk}) -> {o} {{
                   %r = stablehlo.convolution(%x, %k) dim_numbers = {dims}, window = {{{window}}} {{batch_group_count = {batch_groups} : i64, feature_group_count = {groups} : i64}} : ({x}, {kk}) -> {o}
                   return %r : {o}
                 }}",
                x = t(xs),
                kk = t(ks),
                o = t(os)
            );
            let m = parse_module(&text).unwrap_or_else(|e| panic!("conv {k}: {e}"));
            shardc_ir::verify_module(&m).unwrap_or_else(|e| panic!("conv {k}: {e}"));
            let x = Literal::deterministic(&TensorType::new(DType::F32, xs), 2 * k).unwrap();
            let w = Literal::deterministic(&TensorType::new(DType::F32, ks), 2 * k + 1).unwrap();
            let want = shardc_runtime::reference::run(&m, "main", &[x.clone(), w.clone()]).unwrap();
            let f = m.entry().unwrap();
            let (_, op) = f.body_ops().next().unwrap();
            let mut out =
                Literal::from_f64(DType::F32, &os, &vec![7.0; os.iter().product()]).unwrap();
            let served = convolve_into(op, &x, &w, &mut out).unwrap();
            assert_eq!(served, batch_groups == "1", "conv {k}");
            if !served {
                continue;
            }
            for (i, (g, e)) in out
                .to_f64_vec()
                .iter()
                .zip(want[0].to_f64_vec())
                .enumerate()
            {
                assert!(
                    (g - e).abs() <= 1e-5 * (1.0 + e.abs()),
                    "conv {k}, element {i}: {g} vs {e}"
                );
            }
        }
    }
}
