//! Composite operations built from primitives: what a model is written with.
//!
//! Each is a few primitive ops, so propagation and autodiff see only primitives.

use crate::trace::Tensor;
use shardc_ir::{BinaryOp, ComparisonDirection, DType, Distribution, UnaryOp};

impl Tensor {
    fn norm_dims(&self, dims: &[isize]) -> Vec<usize> {
        let r = self.rank() as isize;
        dims.iter()
            .map(|&d| if d < 0 { (d + r) as usize } else { d as usize })
            .collect()
    }

    /// Sum over `dims` (negative dims count from the end); the dims are removed.
    #[track_caller]
    pub fn sum(&self, dims: &[isize]) -> Tensor {
        self.in_f32_if_half(|x| x.reduce(&x.norm_dims(dims), BinaryOp::Add, 0.0))
    }

    /// Maximum over `dims`; the dims are removed.
    #[track_caller]
    pub fn max(&self, dims: &[isize]) -> Tensor {
        self.reduce(&self.norm_dims(dims), BinaryOp::Maximum, f64::NEG_INFINITY)
    }

    /// Mean over `dims`; the dims are removed.
    #[track_caller]
    pub fn mean(&self, dims: &[isize]) -> Tensor {
        let d = self.norm_dims(dims);
        let n: usize = d.iter().filter_map(|&i| self.shape().get(i)).product();
        self.in_f32_if_half(|x| x.sum(dims) / n as f64)
    }

    /// `f(self)`, computed in f32 when `self` is bf16 or f16 and converted back: sums of
    /// half-precision values accumulate in f32, as `jnp.sum` and `jnp.mean` do (a bf16
    /// running sum stops growing once it is 2^8 times its terms: 1,024 losses of 4.5
    /// summed in bf16 come to 2,048, not 4,608).
    fn in_f32_if_half(&self, f: impl FnOnce(&Tensor) -> Tensor) -> Tensor {
        match self.dtype() {
            DType::BF16 | DType::F16 => f(&self.convert(DType::F32)).convert(self.dtype()),
            _ => f(self),
        }
    }

    /// Re-inserts reduced dimensions as size 1 (`keepdims`), so the result broadcasts back.
    #[track_caller]
    pub fn keep_dims(&self, reduced: &[isize], full_rank: usize) -> Tensor {
        let r = full_rank as isize;
        let mut dims: Vec<usize> = reduced
            .iter()
            .map(|&d| if d < 0 { (d + r) as usize } else { d as usize })
            .collect();
        dims.sort_unstable();
        let mut shape = self.shape().to_vec();
        for &d in &dims {
            shape.insert(d.min(shape.len()), 1);
        }
        self.reshape(&shape)
    }

    /// `e^x`, elementwise.
    #[track_caller]
    pub fn exp(&self) -> Tensor {
        self.unary(UnaryOp::Exponential)
    }

    /// The natural logarithm, elementwise.
    #[track_caller]
    pub fn log(&self) -> Tensor {
        self.unary(UnaryOp::Log)
    }

    /// The hyperbolic tangent, elementwise.
    #[track_caller]
    pub fn tanh(&self) -> Tensor {
        self.unary(UnaryOp::Tanh)
    }

    /// The square root, elementwise.
    #[track_caller]
    pub fn sqrt(&self) -> Tensor {
        self.unary(UnaryOp::Sqrt)
    }

    /// `1 / sqrt(x)`, elementwise.
    #[track_caller]
    pub fn rsqrt(&self) -> Tensor {
        self.unary(UnaryOp::Rsqrt)
    }

    /// `1 / (1 + e^-x)`, elementwise.
    #[track_caller]
    pub fn sigmoid(&self) -> Tensor {
        self.unary(UnaryOp::Logistic)
    }

    /// The sine, elementwise.
    #[track_caller]
    pub fn sin(&self) -> Tensor {
        self.unary(UnaryOp::Sine)
    }

    /// The cosine, elementwise.
    #[track_caller]
    pub fn cos(&self) -> Tensor {
        self.unary(UnaryOp::Cosine)
    }

    /// SiLU (swish): `x * sigmoid(x)`, as `jax.nn.silu` and `torch.nn.SiLU`.
    #[track_caller]
    pub fn silu(&self) -> Tensor {
        self * &self.sigmoid()
    }

    /// The larger of the two, elementwise (numpy broadcasting).
    #[track_caller]
    pub fn maximum(&self, other: &Tensor) -> Tensor {
        self.binary(BinaryOp::Maximum, other)
    }

    /// The smaller of the two, elementwise (numpy broadcasting).
    #[track_caller]
    pub fn minimum(&self, other: &Tensor) -> Tensor {
        self.binary(BinaryOp::Minimum, other)
    }

    /// `self^other`, elementwise (numpy broadcasting).
    #[track_caller]
    pub fn pow(&self, other: &Tensor) -> Tensor {
        self.binary(BinaryOp::Power, other)
    }

    /// `max(x, 0)`, elementwise.
    #[track_caller]
    pub fn relu(&self) -> Tensor {
        self.maximum(&self.scalar(0.0))
    }

    /// GELU, tanh approximation: `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    #[track_caller]
    pub fn gelu(&self) -> Tensor {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        let x3 = self * self * self;
        let inner = (self + &(x3 * 0.044715)) * c;
        self * &((inner.tanh() + 1.0) * 0.5)
    }

    /// Softmax along `dim`, with the maximum subtracted first for stability.
    #[track_caller]
    pub fn softmax(&self, dim: isize) -> Tensor {
        let r = self.rank();
        let m = self.max(&[dim]).keep_dims(&[dim], r);
        let e = (self - &m).exp();
        let s = e.sum(&[dim]).keep_dims(&[dim], r);
        e / s
    }

    /// `log(softmax(x))` along `dim`, computed stably.
    #[track_caller]
    pub fn log_softmax(&self, dim: isize) -> Tensor {
        let r = self.rank();
        let m = self.max(&[dim]).keep_dims(&[dim], r);
        let z = self - &m;
        let lse = z.exp().sum(&[dim]).log().keep_dims(&[dim], r);
        z - lse
    }

    /// Layer normalisation over the last dimension, then scale by `gamma` and shift by `beta`
    /// (both of the last dimension's size).
    #[track_caller]
    pub fn layer_norm(&self, gamma: &Tensor, beta: &Tensor, eps: f64) -> Tensor {
        let r = self.rank();
        let mu = self.mean(&[-1]).keep_dims(&[-1], r);
        let xc = self - &mu;
        let var = (&xc * &xc).mean(&[-1]).keep_dims(&[-1], r);
        let y = xc * (var + eps).rsqrt();
        y * gamma + beta
    }

    /// RMS normalisation over the last dimension (Llama's `RMSNorm`, `flax.linen.RMSNorm`):
    /// `x / sqrt(mean(x^2) + eps) * gamma`, `gamma` of the last dimension's size.
    #[track_caller]
    pub fn rms_norm(&self, gamma: &Tensor, eps: f64) -> Tensor {
        let r = self.rank();
        let ms = (self * self).mean(&[-1]).keep_dims(&[-1], r);
        self * &(ms + eps).rsqrt() * gamma
    }

    /// The gated half of a SwiGLU feed-forward (Llama's MLP before its down projection):
    /// `silu(x @ w_gate) * (x @ w_up)`.
    #[track_caller]
    pub fn swiglu(&self, w_gate: &Tensor, w_up: &Tensor) -> Tensor {
        self.matmul(w_gate).silu() * self.matmul(w_up)
    }

    /// Rotary position embedding (RoPE) in the rotate-half convention of GPT-NeoX and Llama
    /// (transformers' `apply_rotary_pos_emb`): for `x` of shape `[.., seq, d]` (`d` even)
    /// and position `p` in `0..seq`, the pair `(x[i], x[i + d/2])` turned by the angle
    /// `p * base^(-2i/d)`: `x * cos + rotate_half(x) * sin` with
    /// `rotate_half(x) = [-x[d/2..], x[..d/2]]`. The angles' sines and cosines are
    /// constants of the program (computed in `f64`, rounded to `x`'s dtype).
    #[track_caller]
    pub fn rotary(&self, base: f64) -> Tensor {
        let at = std::panic::Location::caller();
        let shape = self.shape().to_vec();
        let r = shape.len();
        if r < 2 || !shape[r - 1].is_multiple_of(2) || base <= 0.0 {
            return self.user_error(
                "rotary",
                at,
                format!(
                    "rotary takes [.., seq, d] with d even and a positive base; got shape {shape:?} and base {base}"
                ),
                "give the heads' dimension last (an even size) and the sequence before it",
            );
        }
        let (seq, d) = (shape[r - 2], shape[r - 1]);
        let half = d / 2;
        let angle = |p: usize, j: usize| p as f64 * base.powf(-2.0 * (j % half) as f64 / d as f64);
        let table = |f: fn(f64) -> f64| -> Vec<f64> {
            (0..seq)
                .flat_map(|p| (0..d).map(move |j| f(angle(p, j))))
                .collect()
        };
        let constant =
            |values: Vec<f64>| match shardc_ir::Literal::from_f64(self.dtype(), &[seq, d], &values)
            {
                Ok(lit) => self.constant(lit),
                Err(e) => self.user_error(
                    "rotary",
                    at,
                    format!("the angle tables do not fit {}: {e}", self.dtype()),
                    "apply rotary to a floating-point tensor",
                ),
            };
        let (cos, sin) = (constant(table(f64::cos)), constant(table(f64::sin)));
        let mut start = vec![0; r];
        let mut limit = shape.clone();
        limit[r - 1] = half;
        let first = self.slice(&start, &limit);
        start[r - 1] = half;
        limit[r - 1] = d;
        let second = self.slice(&start, &limit);
        let rotated = (-second).concatenate(&[&first], r - 1);
        self * &cos + rotated * sin
    }

    /// Batch normalisation over the leading (batch) dimension, in training mode: each
    /// feature normalised with the mean and (biased) variance of the whole batch, then
    /// scaled by `gamma` and shifted by `beta` (both of the trailing dimensions' shape).
    /// With the batch split over devices the statistics stay global: propagation inserts
    /// the cross-device reduction (PyTorch's `SyncBatchNorm` semantics, by construction).
    #[track_caller]
    pub fn batch_norm(&self, gamma: &Tensor, beta: &Tensor, eps: f64) -> Tensor {
        let r = self.rank();
        let mu = self.mean(&[0]).keep_dims(&[0], r);
        let xc = self - &mu;
        let var = (&xc * &xc).mean(&[0]).keep_dims(&[0], r);
        xc * (var + eps).rsqrt() * gamma + beta
    }

    /// One-hot encoding of integer labels of any shape: `labels.shape + [classes]`.
    #[track_caller]
    pub fn one_hot(&self, classes: usize, dtype: DType) -> Tensor {
        let mut shape = self.shape().to_vec();
        shape.push(classes);
        let r = shape.len();
        let iota = self.iota(self.dtype(), &shape, r - 1);
        let labels = self.keep_dims(&[-1], r);
        iota.compare(ComparisonDirection::Eq, &labels)
            .convert(dtype)
    }

    /// Mean softmax cross-entropy of `logits [.., C]` against integer `labels [..]`.
    #[track_caller]
    pub fn cross_entropy(&self, labels: &Tensor) -> Tensor {
        let classes = self.shape().last().copied().unwrap_or(1);
        let logp = self.log_softmax(-1);
        let picked = (logp * labels.one_hot(classes, self.dtype())).sum(&[-1]);
        let n = picked.shape().iter().product::<usize>().max(1);
        -(picked.sum(&(0..picked.rank() as isize).collect::<Vec<_>>()) / n as f64)
    }

    /// A key derived from this `i64` key and `data`, as JAX's `random.fold_in`: `key *
    /// 2654435761 + data` (wrapping), so each use of randomness in a step (each dropout
    /// layer) draws its own numbers: `key.fold_in(0)`, `key.fold_in(1)`, ...
    #[track_caller]
    pub fn fold_in(&self, data: u32) -> Tensor {
        &(self * &self.scalar(2_654_435_761.0)) + &self.scalar(data as f64)
    }

    /// Inverted dropout with keep probability `1 - rate`, from the counter-based random op
    /// seeded by the scalar `i64` tensor `seed`: the same mask on every mesh.
    #[track_caller]
    pub fn dropout(&self, seed: &Tensor, rate: f64) -> Tensor {
        let u = seed.random(Distribution::Uniform, self.dtype(), self.shape());
        let keep = u.compare(ComparisonDirection::Ge, &u.scalar(rate));
        Tensor::select(&keep, &(self / (1.0 - rate)), &self.scalar(0.0))
    }
}
