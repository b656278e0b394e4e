//! Matmuls served by a library GEMM (the `gemm` crate) instead of a compiled kernel, as
//! XLA:CPU hands its dots to Eigen: a cluster that is one f32 or f64 `dot_general` whose
//! free and contracting dimensions each collapse to one stride per operand (any order of
//! them in memory: the GEMM takes strides, so no operand is transposed first), with one
//! GEMM per index of its batch dimensions (wherever they are).
//!
//! Which matmuls it serves is the table `serves` keeps, from `shardc bench kernels` on this
//! host (AMD EPYC, AVX-512, one core; ms per call, `--layouts nn nt tn`):
//!
//! | shape `m,n,k` | layout | gemm | compiled kernel |
//! | --- | --- | --- | --- |
//! | 512,1024,512 | nn | 2.08 | 2.86 |
//! | 512,1024,512 | tn | 2.25 | 2.96 |
//! | 512,2048,32 | nn | 0.28 | 0.46 |
//! | 2048,2048,64 | tn | 2.11 | 4.01 |
//! | 256,2048,512 | nt | 2.69 | 2.69 |
//! | 128,2048,512 | nt | 1.79 | 1.21 |
//! | 32,2048,512 | nt | 1.01 | 0.28 |
//!
//! The GEMM is as fast or faster in every `nn` and `tn` layout measured (at most 3%
//! slower, on the smallest shapes), but slower when the right operand is laid out
//! `[n, k]` (`nt`) and the left has fewer than 256 rows: it packs the whole right operand,
//! transposing it, per call, which a few rows do not pay back. Those stay compiled, and so
//! do products under [`MIN_MACS`] multiply-adds, whose call costs more through the GEMM in
//! a run of many devices per core.

use shardc_ir::{DType, DotDims, Elements, Function, Literal, Op, OpKind, TensorType};

/// One `dot_general` as a batch of strided GEMMs: `result[b] = lhs[b] x rhs[b]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Gemm {
    /// Each batch dimension: its size and its strides in the left and right operands (the
    /// result's batch dimensions lead, in this order).
    batch: Vec<(usize, isize, isize)>,
    m: usize,
    n: usize,
    k: usize,
    /// Strides of the left operand: per row (`m`), per column (`k`).
    lhs: [isize; 2],
    /// Strides of the right operand: per row (`k`), per column (`n`).
    rhs: [isize; 2],
    inputs: [TensorType; 2],
    outputs: Vec<TensorType>,
}

/// The rows (`m`) below which a right operand laid out `[n, k]` is multiplied faster by
/// the compiled kernel (see the table in the module's docs).
const NT_MIN_ROWS: usize = 256;

/// The multiply-adds (`m n k`) of one GEMM below which the compiled kernel is faster in
/// a run (`CpuOptions::library_matmuls`' default): `shardc calibrate --mesh data=8` (8
/// devices on 2 cores) measured square chains of 32^3 at 39-40 GFLOP/s per core through
/// the GEMM and 51-60 compiled, 64^3 at 92-100 and 110-114; from 256^3 up, the two at par
/// or the GEMM ahead.
pub const MIN_MACS: usize = 1 << 21;

/// The stride of one index over `dims` of `shape` taken in the order given (row-major
/// storage), when they are adjacent in that order; unit dimensions are skipped (they do
/// not move the offset). `Some(0)` when every one is a unit.
fn collapse(shape: &[usize], dims: &[usize]) -> Option<isize> {
    let real: Vec<usize> = dims.iter().copied().filter(|&d| shape[d] != 1).collect();
    let Some(&last) = real.last() else {
        return Some(0);
    };
    // Adjacent in storage: between two of them, only unit dimensions.
    let adjacent = real
        .windows(2)
        .all(|w| w[0] < w[1] && shape[w[0] + 1..w[1]].iter().all(|&s| s == 1));
    adjacent.then(|| shape[last + 1..].iter().product::<usize>() as isize)
}

impl Gemm {
    /// The GEMM of a cluster function that is one `dot_general` the GEMM serves
    /// ([`Gemm::of_op`]) taking its arguments and returning its result; `None` for any
    /// other function.
    pub(crate) fn of(f: &Function, min_macs: usize) -> Option<Gemm> {
        let [id] = f.body().ops.as_slice() else {
            return None;
        };
        let op = f.op(*id);
        (f.args() == op.operands.as_slice() && f.results() == op.results.as_slice())
            .then(|| Gemm::of_op(f, op, min_macs))
            .flatten()
    }

    /// The GEMM of `op` of `f` when it is an f32 or f64 `dot_general` of at least
    /// `min_macs` multiply-adds per GEMM whose dimension groups collapse to strides and
    /// that the GEMM computes faster ([`serves`]).
    pub(crate) fn of_op(f: &Function, op: &Op, min_macs: usize) -> Option<Gemm> {
        let OpKind::DotGeneral(d) = &op.kind else {
            return None;
        };
        let (&[l, r], &[out]) = (op.operands.as_slice(), op.results.as_slice()) else {
            return None;
        };
        let (lty, rty, oty) = (f.ty(l), f.ty(r), f.ty(out));
        if !matches!(lty.dtype, DType::F32 | DType::F64)
            || rty.dtype != lty.dtype
            || oty.dtype != lty.dtype
        {
            return None;
        }
        let g = Gemm::strided(lty, rty, d)?;
        let fits = g.m * g.n * g.batches() == oty.num_elements();
        (fits && g.m * g.n * g.k >= min_macs && serves(&g)).then_some(Gemm {
            outputs: vec![oty.clone()],
            ..g
        })
    }

    fn strided(lty: &TensorType, rty: &TensorType, d: &DotDims) -> Option<Gemm> {
        let lf = d.lhs_free(lty.rank());
        let rf = d.rhs_free(rty.rank());
        let size = |ty: &TensorType, g: &[usize]| g.iter().map(|&i| ty.shape[i]).product();
        let (ls, rs) = (&lty.shape[..], &rty.shape[..]);
        let stride = |shape: &[usize], d: usize| shape[d + 1..].iter().product::<usize>() as isize;
        Some(Gemm {
            batch: (d.lhs_batch.iter().zip(&d.rhs_batch))
                .filter(|&(&l, _)| ls[l] != 1)
                .map(|(&l, &r)| (ls[l], stride(ls, l), stride(rs, r)))
                .collect(),
            m: size(lty, &lf),
            n: size(rty, &rf),
            k: size(lty, &d.lhs_contracting),
            lhs: [collapse(ls, &lf)?, collapse(ls, &d.lhs_contracting)?],
            rhs: [collapse(rs, &d.rhs_contracting)?, collapse(rs, &rf)?],
            inputs: [lty.clone(), rty.clone()],
            outputs: Vec::new(),
        })
    }

    /// How many GEMMs: the product of the batch dimensions.
    fn batches(&self) -> usize {
        self.batch.iter().map(|b| b.0).product()
    }

    /// The result's type.
    pub(crate) fn outputs(&self) -> &[TensorType] {
        &self.outputs
    }

    /// Writes the product of `inputs` (the operands, of the types the GEMM was made for)
    /// into `outputs[0]`, whose storage is reused.
    pub(crate) fn run_refs_into(
        &self,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), String> {
        let (n_in, n_out) = (inputs.len(), outputs.len());
        let (&[l, r], [out]) = (inputs, outputs) else {
            return Err(format!(
                "a matmul takes 2 operands and writes 1 result; {n_in} and {n_out} were given"
            ));
        };
        for (given, ty) in [(&l.ty, &self.inputs[0]), (&r.ty, &self.inputs[1])]
            .into_iter()
            .chain([(&out.ty, &self.outputs[0])])
        {
            if given != ty {
                return Err(format!("a matmul over {ty} was given {given}"));
            }
        }
        fn dense(x: &Literal) -> std::borrow::Cow<'_, Literal> {
            if x.is_splat() {
                std::borrow::Cow::Owned(x.to_dense())
            } else {
                std::borrow::Cow::Borrowed(x)
            }
        }
        let (l, r) = (dense(l), dense(r));
        if out.is_splat() {
            *out = out.to_dense();
        }
        match (&l.elements, &r.elements, &mut out.elements) {
            (Elements::F32(a), Elements::F32(b), Elements::F32(c)) => self.multiply(a, b, c),
            (Elements::F64(a), Elements::F64(b), Elements::F64(c)) => self.multiply(a, b, c),
            _ => return Err(format!("a matmul over {} got other elements", l.ty)),
        }
        Ok(())
    }

    fn multiply<T: Copy + Default + From<u8> + 'static>(&self, a: &[T], b: &[T], c: &mut [T]) {
        let (m, n, k) = (self.m, self.n, self.k);
        if k == 0 {
            c.fill(T::default());
            return;
        }
        let (one, zero) = (T::from(1), T::from(0));
        for i in 0..self.batches() {
            // The operands' offsets of batch `i` (the last batch dimension fastest).
            let (mut lo, mut ro, mut rest) = (0, 0, i);
            for &(size, ls, rs) in self.batch.iter().rev() {
                lo += (rest % size) as isize * ls;
                ro += (rest % size) as isize * rs;
                rest /= size;
            }
            let dst = &mut c[i * m * n..(i + 1) * m * n];
            // SAFETY: every index the GEMM reads, `offset + row * row_stride + col *
            // col_stride` over its rows and columns, is an element of the operand: the
            // strides are those of adjacent dimension groups of the operand's own shape
            // (`collapse`), the batch offsets its batch dimensions' indices times their
            // strides, and the row and column counts their sizes; `dst` is this
            // batch's `m x n` block of the result, row-major. Splats were expanded above.
            unsafe {
                gemm::gemm(
                    m,
                    n,
                    k,
                    dst.as_mut_ptr(),
                    1,
                    n as isize,
                    false,
                    a.as_ptr().offset(lo),
                    self.lhs[1],
                    self.lhs[0],
                    b.as_ptr().offset(ro),
                    self.rhs[1],
                    self.rhs[0],
                    zero,
                    one,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
        }
    }
}

/// Whether the GEMM is the faster way to compute `g` (the table in the module's docs): all
/// but a right operand laid out `[n, k]` under few rows.
fn serves(g: &Gemm) -> bool {
    let rhs_nk = g.rhs[1] != 1 && g.rhs[0] == 1 && g.n > 1;
    !(rhs_nk && g.m < NT_MIN_ROWS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::parse_module;

    fn gemm_of(text: &str) -> Option<Gemm> {
        let module = parse_module(text).unwrap();
        Gemm::of(&module.functions[0], 0)
    }

    #[test]
    fn strides_follow_the_operands_layout() {
        // [b, k, m] x [b, n, k]: the left transposed, the right [n, k] with enough rows.
        let g = gemm_of(
            "func.func @kernel(%a: tensor<2x8x256xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x256x4xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<2x8x256xf32>, tensor<2x4x8xf32>) -> tensor<2x256x4xf32>
  return %0 : tensor<2x256x4xf32>
}",
        )
        .unwrap();
        assert_eq!(
            (g.batch.as_slice(), g.m, g.n, g.k),
            (&[(2, 8 * 256, 4 * 8)][..], 256, 4, 8)
        );
        assert_eq!(g.lhs, [1, 256]);
        assert_eq!(g.rhs, [1, 8]);
    }

    #[test]
    fn a_few_rows_over_an_n_by_k_operand_stay_compiled() {
        let nt = |m: usize| {
            gemm_of(&format!(
                "func.func @kernel(%a: tensor<{m}x64xf32>, %b: tensor<32x64xf32>) -> tensor<{m}x32xf32> {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<{m}x64xf32>, tensor<32x64xf32>) -> tensor<{m}x32xf32>
  return %0 : tensor<{m}x32xf32>
}}"
            ))
        };
        assert!(nt(32).is_none());
        assert!(nt(256).is_some());
    }

    #[test]
    fn other_functions_are_compiled() {
        // Split contracting dimensions (not adjacent), integer elements, an epilogue.
        for text in [
            "func.func @kernel(%a: tensor<4x3x5xf32>, %b: tensor<4x5xf32>) -> tensor<3xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0, 2] x [0, 1] : (tensor<4x3x5xf32>, tensor<4x5xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}",
            "func.func @kernel(%a: tensor<4x5xi32>, %b: tensor<5x6xi32>) -> tensor<4x6xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x5xi32>, tensor<5x6xi32>) -> tensor<4x6xi32>
  return %0 : tensor<4x6xi32>
}",
            "func.func @kernel(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  %1 = stablehlo.add %0, %0 : tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}",
        ] {
            assert!(gemm_of(text).is_none(), "{text}");
        }
    }

    #[test]
    fn products_match_the_reference_in_every_layout() {
        // (left, right, dimension numbers, result): nn; tn with a unit dimension; a batch
        // with the right laid out [n, k] under enough rows; f64.
        let cases = [
            (
                "3x4xf32",
                "4x5xf32",
                "contracting_dims = [1] x [0]",
                "3x5xf32",
            ),
            (
                "4x1x3xf32",
                "4x5xf32",
                "contracting_dims = [0] x [0]",
                "1x3x5xf32",
            ),
            (
                "2x256x3xf32",
                "2x5x3xf32",
                "batching_dims = [0] x [0], contracting_dims = [2] x [2]",
                "2x256x5xf32",
            ),
            // Batch dimensions apart ([b, s, h, d] x [b, h, d, t]).
            (
                "2x3x4x5xf32",
                "2x4x5x6xf32",
                "batching_dims = [0, 2] x [0, 1], contracting_dims = [3] x [2]",
                "2x4x3x6xf32",
            ),
            (
                "3x4xf64",
                "4x5xf64",
                "contracting_dims = [1] x [0]",
                "3x5xf64",
            ),
        ];
        for (lt, rt, dims, ot) in cases {
            let text = format!(
                "func.func @kernel(%a: tensor<{lt}>, %b: tensor<{rt}>) -> tensor<{ot}> {{
  %0 = stablehlo.dot_general %a, %b, {dims} : (tensor<{lt}>, tensor<{rt}>) -> tensor<{ot}>
  return %0 : tensor<{ot}>
}}"
            );
            let module = parse_module(&text).unwrap();
            let f = &module.functions[0];
            let g = Gemm::of(f, 0).unwrap_or_else(|| panic!("not served: {text}"));
            // Small integers: every sum is exact, in any order.
            let inputs: Vec<Literal> = f
                .args()
                .iter()
                .enumerate()
                .map(|(j, &v)| {
                    let ty = f.ty(v);
                    let xs: Vec<f64> = (0..ty.num_elements())
                        .map(|i| ((i * 7 + j * 3) % 11) as f64 - 5.0)
                        .collect();
                    Literal::from_f64(ty.dtype, &ty.shape, &xs).unwrap()
                })
                .collect();
            let want = shardc_runtime::reference::run(&module, "kernel", &inputs).unwrap();
            // The output's storage is reused: its old contents must not leak in.
            let mut got = vec![Literal::splat(
                f.result_types()[0].clone(),
                shardc_ir::Scalar::Float(9.0),
            )];
            let refs: Vec<&Literal> = inputs.iter().collect();
            g.run_refs_into(&refs, &mut got).unwrap();
            assert_eq!(got, want, "{text}");
        }
    }
}
