//! Model programs built with the tracing API: what the examples, the benchmarks and the
//! demo compile.

use crate::spec::PartitionSpec;
use crate::{DType, Error, Lowered, Mesh, P, Tensor, TensorType, jit};

/// Sizes of a GPT-style transformer.
#[derive(Copy, Clone, Debug)]
pub struct TransformerDims {
    pub batch: usize,
    pub seq: usize,
    pub d_model: usize,
    pub heads: usize,
    /// Hidden size of the MLP (4 * d_model in GPT-2).
    pub d_ff: usize,
}

/// The weights of one block, in argument order.
pub const BLOCK_WEIGHTS: [&str; 10] = [
    "ln1_g", "ln1_b", "wq", "wk", "wv", "wo", "ln2_g", "ln2_b", "w1", "w2",
];

/// One pre-layer-norm transformer block: causal multi-head self-attention, then a GELU MLP,
/// each with a residual connection. `w` holds the block's weights in [`BLOCK_WEIGHTS`] order.
pub fn transformer_block(x: &Tensor, w: &[Tensor], d: &TransformerDims) -> Tensor {
    let (b, t, dm, h) = (d.batch, d.seq, d.d_model, d.heads);
    let hd = dm / h;
    let ln1 = x.layer_norm(&w[0], &w[1], 1e-5);
    let split = |y: Tensor| y.reshape(&[b, t, h, hd]);
    let (q, k, v) = (
        split(ln1.matmul(&w[2])),
        split(ln1.matmul(&w[3])),
        split(ln1.matmul(&w[4])),
    );
    let scores = q.einsum("bthd,bshd->bhts", &k) / (hd as f64).sqrt();
    let rows = x.iota(DType::I32, &[t, t], 0);
    let cols = x.iota(DType::I32, &[t, t], 1);
    let causal = rows.compare(shardc_ir::ComparisonDirection::Ge, &cols);
    let masked = Tensor::select(&causal, &scores, &scores.scalar(-1e9));
    let att = masked.softmax(-1);
    let y = att.einsum("bhts,bshd->bthd", &v).reshape(&[b, t, dm]);
    let x = x + &y.matmul(&w[5]);
    let ln2 = x.layer_norm(&w[6], &w[7], 1e-5);
    let hidden = ln2.matmul(&w[8]).gelu();
    &x + &hidden.matmul(&w[9])
}

/// The Megatron shardings of one block's weights: Q, K, V and W1 split by columns (heads,
/// hidden units) over `model`, Wo and W2 by rows; layer-norm parameters replicated.
pub fn block_weight_specs() -> Vec<PartitionSpec> {
    vec![
        P![],
        P![],
        P![None, "model"],
        P![None, "model"],
        P![None, "model"],
        P!["model", None],
        P![],
        P![],
        P![None, "model"],
        P!["model", None],
    ]
}

/// The types of one block's weights.
pub fn block_weight_types(d: &TransformerDims) -> Vec<TensorType> {
    let f = |s: &[usize]| TensorType::new(DType::F32, s);
    let dm = d.d_model;
    vec![
        f(&[dm]),
        f(&[dm]),
        f(&[dm, dm]),
        f(&[dm, dm]),
        f(&[dm, dm]),
        f(&[dm, dm]),
        f(&[dm]),
        f(&[dm]),
        f(&[dm, d.d_ff]),
        f(&[d.d_ff, dm]),
    ]
}

/// A stack of `n` blocks over `x: [batch, seq, d_model]` split over `data`, with Megatron
/// weights over `model` on `mesh` (which needs both axes).
pub fn transformer_stack(n: usize, d: &TransformerDims, mesh: &Mesh) -> Result<Lowered, Error> {
    let dims = *d;
    let per_block = BLOCK_WEIGHTS.len();
    let f = move |args: &[Tensor]| {
        let mut x = args[0].clone();
        for i in 0..n {
            x = transformer_block(&x, &args[1 + i * per_block..1 + (i + 1) * per_block], &dims);
        }
        x
    };
    let mut types = vec![TensorType::new(DType::F32, [d.batch, d.seq, d.d_model])];
    let mut specs = vec![P!["data", None, None]];
    for _ in 0..n {
        types.extend(block_weight_types(d));
        specs.extend(block_weight_specs());
    }
    jit(f)
        .name(&format!("transformer_{n}"))
        .mesh(mesh)
        .in_shardings(specs)
        .out_shardings([P!["data", None, None]])
        .lower(&types)
}
