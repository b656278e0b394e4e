//! Model programs built with the tracing API: what the examples, the benchmarks and the
//! demo compile.

use crate::strategy::axis::{DATA, MODEL};
use shardc::{
    DType, Error, Lowered, Mesh, P, RematPolicy, Tensor, TensorType, jit, named_scope, remat,
};
use shardc::{DimSpec, PartitionSpec};

/// Sizes of a GPT-style transformer.
#[derive(Copy, Clone, Debug)]
pub struct TransformerDims {
    /// Sequences per batch.
    pub batch: usize,
    /// Tokens per sequence.
    pub seq: usize,
    /// Width of the residual stream.
    pub d_model: usize,
    /// Attention heads (`d_model` divides by it).
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
    transformer_block_with(x, w, d, Attention::Full)
}

/// How a block's causal self-attention is computed; every way gives the same values
/// (within rounding).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Attention {
    /// Every query against every key at once: `softmax(q·kᵀ)·v`. With the sequence split
    /// over an axis, propagation gathers the keys and values over it (all-gather context
    /// parallelism, Llama 3's).
    #[default]
    Full,
    /// Ring attention (Liu et al.) over mesh axis `axis`: the sequence cut into `blocks`
    /// blocks, one per device of `axis` (its size); in step `r` each query block meets the key and value block `r`
    /// places before it, the softmax accumulated online (running maximum and sum), and the
    /// keys and values rolled one block along (`Tensor::roll`), each rolled block pinned to
    /// `axis` by a sharding constraint, so that every roll is a `collective_permute` to the
    /// next device: a device holds one block of keys and values at a time, never the
    /// whole sequence's.
    Ring {
        /// The mesh axis the sequence is split over.
        axis: &'static str,
        /// Sequence blocks: the axis's size.
        blocks: usize,
    },
}

/// How every block of a model is computed: its attention, and whether its activations
/// are kept for the backward pass or recomputed there ([`shardc::remat`] per block, the
/// usual activation checkpointing).
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    /// How each block's attention is computed.
    pub attention: Attention,
    /// Which blocks' activations are recomputed in the backward pass, and how.
    pub remat: Remat,
}

/// Which blocks of a model are recomputed in the backward pass ([`shardc::remat`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Remat {
    /// Every activation kept.
    #[default]
    Off,
    /// Every block recomputed under this policy.
    Every(RematPolicy),
    /// Block `l` recomputed under `policies[l]` (kept where `None` or past the end):
    /// what [`shardc::choose_remat`] chooses under a memory budget.
    Layers(Vec<Option<RematPolicy>>),
}

impl Remat {
    /// The policy of block `l`, if it is recomputed.
    pub fn of_layer(&self, l: usize) -> Option<&RematPolicy> {
        match self {
            Remat::Off => None,
            Remat::Every(p) => Some(p),
            Remat::Layers(ps) => ps.get(l).and_then(Option::as_ref),
        }
    }
}

/// [`transformer_block`] with the attention computed as `attention` says.
pub fn transformer_block_with(
    x: &Tensor,
    w: &[Tensor],
    d: &TransformerDims,
    attention: Attention,
) -> Tensor {
    // The rows are `x`'s (a micro-batch has fewer than `d.batch`).
    let (b, t, dm, h) = (x.shape()[0], d.seq, d.d_model, d.heads);
    let hd = dm / h;
    // Scopes as the weights are named (`ln1_g`, `wq`, `w1`): `attn`, `mlp`.
    let y = named_scope("attn", || {
        let ln1 = x.layer_norm(&w[0], &w[1], 1e-5);
        let split = |y: Tensor| y.reshape(&[b, t, h, hd]);
        let (q, k, v) = (
            split(ln1.matmul(&w[2])),
            split(ln1.matmul(&w[3])),
            split(ln1.matmul(&w[4])),
        );
        match attention {
            Attention::Full => full_attention(&q, &k, &v),
            Attention::Ring { axis, blocks } => ring_attention(&q, &k, &v, axis, blocks),
        }
        .reshape(&[b, t, dm])
        .matmul(&w[5])
    });
    let x = x + &y;
    let y = named_scope("mlp", || {
        let ln2 = x.layer_norm(&w[6], &w[7], 1e-5);
        ln2.matmul(&w[8]).gelu().matmul(&w[9])
    });
    &x + &y
}

/// Causal attention of `q, k, v: [batch, seq, heads, head_dim]`, every query at once.
fn full_attention(q: &Tensor, k: &Tensor, v: &Tensor) -> Tensor {
    let (t, hd) = (q.shape()[1], q.shape()[3]);
    let scores = q.einsum("bthd,bshd->bhts", k) / (hd as f64).sqrt();
    let rows = q.iota(DType::I32, &[t, t], 0);
    let cols = q.iota(DType::I32, &[t, t], 1);
    let causal = rows.compare(shardc_ir::ComparisonDirection::Ge, &cols);
    let masked = Tensor::select(&causal, &scores, &scores.scalar(-1e9));
    masked.softmax(-1).einsum("bhts,bshd->bthd", v)
}

/// Causal ring attention of `q, k, v: [batch, seq, heads, head_dim]` over mesh axis
/// `axis` ([`Attention::Ring`]), in `n` blocks of the sequence. Blocks are a
/// dimension of their own (`[b, n, blk, h, d]`, the block index major, so a sequence
/// split over `axis` splits it whole); step `r` pairs query block `i` with key block
/// `i - r` (mod `n`): `r = 0` is the diagonal block, so every query has a real maximum
/// after it, and a later block whose keys are all in its future adds `exp(-1e9 - max) = 0`.
#[track_caller]
fn ring_attention(q: &Tensor, k: &Tensor, v: &Tensor, axis: &'static str, n: usize) -> Tensor {
    use shardc::DimSpec;
    use shardc_ir::ComparisonDirection::Ge;
    let (b, t, h, hd) = (q.shape()[0], q.shape()[1], q.shape()[2], q.shape()[3]);
    if n == 0 || !t.is_multiple_of(n) {
        return q.user_error(
            "ring attention",
            std::panic::Location::caller(),
            format!("the sequence ({t}) does not split into {n} equal blocks"),
            "give Attention::Ring as many blocks as mesh axis `axis` has devices, a number that divides the sequence",
        );
    }
    let blk = t / n;
    // A block dimension pinned to `axis`, every other dimension left to propagation.
    let pinned = |x: Tensor, dim: usize| {
        let mut dims = vec![DimSpec::Unconstrained; x.rank()];
        dims[dim] = DimSpec::axes(&[axis]);
        x.with_sharding_constraint(PartitionSpec::new(dims))
    };
    let blocked = |x: &Tensor| pinned(x.reshape(&[b, n, blk, h, hd]), 1);
    let (q, mut k, mut v) = (blocked(q), blocked(k), blocked(v));
    // Global positions of the queries and of the keys, which travel with their block.
    let position =
        &(&q.iota(DType::I32, &[n, blk], 0) * blk as f64) + &q.iota(DType::I32, &[n, blk], 1);
    let q_pos = position.reshape(&[n, blk, 1]);
    let mut k_pos = pinned(position, 0);
    let scale = 1.0 / (hd as f64).sqrt();
    let mut max = q.full(&[b, h, n, blk], -1e30);
    let mut sum = q.full(&[b, h, n, blk], 0.0);
    let mut acc = q.full(&[b, h, n, blk, hd], 0.0);
    for r in 0..n {
        // The next block's hop first, so that it travels while this block is attended to.
        let next = (r + 1 < n).then(|| {
            (
                pinned(k.roll(1, 1), 1),
                pinned(v.roll(1, 1), 1),
                pinned(k_pos.roll(1, 0), 0),
            )
        });
        let scores = q.einsum("bnqhd,bnkhd->bhnqk", &k) * scale;
        let causal = q_pos.compare(Ge, &k_pos.reshape(&[n, 1, blk]));
        let scores = Tensor::select(&causal, &scores, &scores.scalar(-1e9));
        let new_max = max.maximum(&scores.max(&[-1]));
        let kept = (&max - &new_max).exp();
        let p = (&scores - &new_max.keep_dims(&[-1], 5)).exp();
        sum = &(&sum * &kept) + &p.sum(&[-1]);
        acc = &(&acc * &kept.keep_dims(&[-1], 5)) + &p.einsum("bhnqk,bnkhd->bhnqd", &v);
        max = new_max;
        if let Some((k_next, v_next, pos_next)) = next {
            (k, v, k_pos) = (k_next, v_next, pos_next);
        }
    }
    let out = &acc / &sum.keep_dims(&[-1], 5);
    // [b, h, n, blk, hd] -> [b, t, h, hd]
    out.transpose(&[0, 2, 3, 1, 4]).reshape(&[b, t, h, hd])
}

/// The Megatron shardings of one block's weights: Q, K, V and W1 split by columns (heads,
/// hidden units) over `model`, Wo and W2 by rows; layer-norm parameters replicated.
pub fn block_weight_specs() -> Vec<PartitionSpec> {
    vec![
        P![],
        P![],
        P![None, (MODEL)],
        P![None, (MODEL)],
        P![None, (MODEL)],
        P![(MODEL), None],
        P![],
        P![],
        P![None, (MODEL)],
        P![(MODEL), None],
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
            x = named_scope(&format!("h{i}"), || {
                transformer_block(&x, &args[1 + i * per_block..1 + (i + 1) * per_block], &dims)
            });
        }
        x
    };
    let mut types = vec![TensorType::new(DType::F32, [d.batch, d.seq, d.d_model])];
    let mut specs = vec![P![(DATA), None, None]];
    for _ in 0..n {
        types.extend(block_weight_types(d));
        specs.extend(block_weight_specs());
    }
    jit(f)
        .name(&format!("transformer_{n}"))
        .mesh(mesh)
        .in_shardings(specs)
        .out_shardings([P![(DATA), None, None]])
        .lower(&types)
}

/// How a parameter starts.
enum Init {
    Constant(f64),
    /// Normal with this standard deviation.
    Normal(f64),
}

/// Parameters of `types`, parameter `k` as `how(k)` says; normal values drawn by Philox
/// (as `shardc.random`) at key `seed * 1000003 + k`, so deterministic in `seed`.
fn initial(
    types: &[TensorType],
    seed: i64,
    how: impl Fn(usize) -> Init,
) -> Vec<shardc_ir::Literal> {
    use shardc_runtime::reference::random::{bits, normal_f64};
    types
        .iter()
        .enumerate()
        .map(|(k, ty)| {
            let n = ty.num_elements();
            let values: Vec<f64> = match how(k) {
                Init::Constant(c) => vec![c; n],
                Init::Normal(std) => {
                    let s = seed.wrapping_mul(1_000_003).wrapping_add(k as i64);
                    (0..n)
                        .map(|i| std * normal_f64(bits(s, i as u64)))
                        .collect()
                }
            };
            shardc_ir::Literal::from_f64(DType::F32, &ty.shape, &values)
                .expect("as many values as the type has elements")
        })
        .collect()
}

/// Sizes of a GPT-style language model.
#[derive(Copy, Clone, Debug)]
pub struct GptConfig {
    /// Token ids run `0..vocab`.
    pub vocab: usize,
    /// Transformer blocks.
    pub layers: usize,
    /// Sizes of each block and of the batch.
    pub block: TransformerDims,
}

impl GptConfig {
    /// The names of the parameters, in argument order (after the token and target batches).
    pub fn param_names(&self) -> Vec<String> {
        let mut names = vec!["wte".to_string(), "wpe".to_string()];
        for l in 0..self.layers {
            names.extend(BLOCK_WEIGHTS.iter().map(|w| format!("h{l}.{w}")));
        }
        names.extend(["ln_f_g".to_string(), "ln_f_b".to_string()]);
        names
    }

    /// The types of the parameters, in [`param_names`](Self::param_names) order.
    pub fn param_types(&self) -> Vec<TensorType> {
        let f = |s: &[usize]| TensorType::new(DType::F32, s);
        let d = &self.block;
        let mut types = vec![f(&[self.vocab, d.d_model]), f(&[d.seq, d.d_model])];
        for _ in 0..self.layers {
            types.extend(block_weight_types(d));
        }
        types.extend([f(&[d.d_model]), f(&[d.d_model])]);
        types
    }

    /// Megatron shardings of the parameters over `model`: attention and MLP weights split
    /// as in [`block_weight_specs`]; embeddings and layer norms replicated.
    pub fn param_specs(&self) -> Vec<PartitionSpec> {
        let mut specs = vec![P![], P![]];
        for _ in 0..self.layers {
            specs.extend(block_weight_specs());
        }
        specs.extend([P![], P![]]);
        specs
    }
}

/// The mean next-token cross-entropy of a GPT-style model: `tokens` and `targets` are
/// `[batch, seq]` integers; `params` in [`GptConfig::param_names`] order. Token and
/// position embeddings, `layers` pre-layer-norm blocks, a final layer norm, and logits
/// from the token embedding (tied weights).
pub fn gpt_loss(cfg: &GptConfig, tokens: &Tensor, targets: &Tensor, params: &[Tensor]) -> Tensor {
    gpt_loss_with(cfg, tokens, targets, params, &Blocks::default())
}

/// [`gpt_loss`] with every block computed as `blocks` says.
pub fn gpt_loss_with(
    cfg: &GptConfig,
    tokens: &Tensor,
    targets: &Tensor,
    params: &[Tensor],
    blocks: &Blocks,
) -> Tensor {
    let d = &cfg.block;
    let per_block = BLOCK_WEIGHTS.len();
    let (wte, wpe) = (&params[0], &params[1]);
    // Scopes as the parameters are named (`wte`, `h0.wq`, `ln_f_g`).
    let mut x = named_scope("embed", || {
        &wte.take_rows(tokens)
            + &wpe.broadcast_in_dim(&[tokens.shape()[0], d.seq, d.d_model], &[1, 2])
    });
    for l in 0..cfg.layers {
        let block = || {
            transformer_block_with(
                &x,
                &params[2 + l * per_block..2 + (l + 1) * per_block],
                d,
                blocks.attention,
            )
        };
        x = named_scope(&format!("h{l}"), || match blocks.remat.of_layer(l) {
            Some(policy) => remat(policy.clone(), block),
            None => block(),
        });
    }
    let n = params.len();
    named_scope("head", || {
        let h = x.layer_norm(&params[n - 2], &params[n - 1], 1e-5);
        let logits = h.dot_general(wte, (&[], &[]), (&[2], &[1]));
        logits.cross_entropy(targets)
    })
}

impl GptConfig {
    /// Initial parameters, GPT-2 style: embeddings and weights normal with std 0.02,
    /// layer-norm gains 1 and biases 0; deterministic in `seed` (Philox, as `shardc.random`).
    pub fn init(&self, seed: i64) -> Vec<shardc_ir::Literal> {
        let names = self.param_names();
        initial(&self.param_types(), seed, |k| {
            if names[k].ends_with("_g") {
                Init::Constant(1.0)
            } else if names[k].ends_with("_b") {
                Init::Constant(0.0)
            } else {
                Init::Normal(0.02)
            }
        })
    }
}

/// Sizes of a Llama-style decoder: RMSNorm before attention and MLP, rotary position
/// embeddings on queries and keys, causal multi-head attention, a SwiGLU MLP, no biases,
/// an untied output head (transformers' `LlamaForCausalLM`, without grouped-query
/// attention).
#[derive(Copy, Clone, Debug)]
pub struct LlamaConfig {
    /// Token ids run `0..vocab`.
    pub vocab: usize,
    /// Decoder layers.
    pub layers: usize,
    /// Width of the residual stream.
    pub d_model: usize,
    /// Attention heads.
    pub heads: usize,
    /// The SwiGLU MLP's hidden width.
    pub ffn: usize,
    /// Sequences per batch.
    pub batch: usize,
    /// Tokens per sequence.
    pub seq: usize,
    /// The rotary embeddings' base (Llama's 10000).
    pub rope_base: f64,
}

/// The weights of one Llama layer, in argument order.
pub const LLAMA_LAYER_WEIGHTS: [&str; 9] = [
    "attn_norm",
    "attn.wq",
    "attn.wk",
    "attn.wv",
    "attn.wo",
    "mlp_norm",
    "mlp.w_gate",
    "mlp.w_up",
    "mlp.w_down",
];

impl LlamaConfig {
    /// The parameters' names, in argument order: `embed`, `layers.L.attn.wq`, ...,
    /// `norm`, `lm_head`.
    pub fn param_names(&self) -> Vec<String> {
        let mut names = vec!["embed".to_string()];
        for l in 0..self.layers {
            names.extend(
                LLAMA_LAYER_WEIGHTS
                    .iter()
                    .map(|w| format!("layers.{l}.{w}")),
            );
        }
        names.extend(["norm".to_string(), "lm_head".to_string()]);
        names
    }

    /// The parameters' types, in [`param_names`](Self::param_names) order.
    pub fn param_types(&self) -> Vec<TensorType> {
        let f = |s: &[usize]| TensorType::new(DType::F32, s);
        let (d, h) = (self.d_model, self.ffn);
        let mut types = vec![f(&[self.vocab, d])];
        for _ in 0..self.layers {
            types.extend([
                f(&[d]),
                f(&[d, d]),
                f(&[d, d]),
                f(&[d, d]),
                f(&[d, d]),
                f(&[d]),
                f(&[d, h]),
                f(&[d, h]),
                f(&[h, d]),
            ]);
        }
        types.extend([f(&[d]), f(&[d, self.vocab])]);
        types
    }

    /// Megatron shardings over `axis`: Q, K, V, the gate and the up projection split by
    /// columns (heads, hidden units), the output and down projections by rows, so each
    /// layer needs one all-reduce forward for attention and one for the MLP; embeddings,
    /// norms and the head replicated (FSDP x TP adds `data` on a free dimension).
    pub fn param_specs(&self, axis: &str) -> Vec<PartitionSpec> {
        let cols = PartitionSpec::new(vec![DimSpec::replicated(), DimSpec::axes(&[axis])]);
        let rows = PartitionSpec::new(vec![DimSpec::axes(&[axis]), DimSpec::replicated()]);
        let mut specs = vec![P![]];
        for _ in 0..self.layers {
            specs.extend([
                P![],
                cols.clone(),
                cols.clone(),
                cols.clone(),
                rows.clone(),
                P![],
                cols.clone(),
                cols.clone(),
                rows.clone(),
            ]);
        }
        specs.extend([P![], P![]]);
        specs
    }

    /// Initial parameters: norms' gains 1, every other weight normal with std 0.02;
    /// deterministic in `seed`.
    pub fn init(&self, seed: i64) -> Vec<shardc_ir::Literal> {
        let names = self.param_names();
        initial(&self.param_types(), seed, |k| {
            if names[k].ends_with("norm") {
                Init::Constant(1.0)
            } else {
                Init::Normal(0.02)
            }
        })
    }
}

/// The mean next-token cross-entropy of a [`LlamaConfig`] model: `tokens` and `targets`
/// `[batch, seq]` integers, `p` in [`LlamaConfig::param_names`] order.
pub fn llama_loss(cfg: &LlamaConfig, tokens: &Tensor, targets: &Tensor, p: &[Tensor]) -> Tensor {
    // The rows are `tokens`' (a micro-batch has fewer than `cfg.batch`).
    let (b, t, d, h) = (tokens.shape()[0], cfg.seq, cfg.d_model, cfg.heads);
    let hd = d / h;
    let per_layer = LLAMA_LAYER_WEIGHTS.len();
    // Scopes as the parameters are named (`layers.0.attn.wq`).
    let mut x = named_scope("embed", || p[0].take_rows(tokens));
    for l in 0..cfg.layers {
        let w = &p[1 + l * per_layer..1 + (l + 1) * per_layer];
        x = named_scope(&format!("layers.{l}"), || {
            let y = named_scope("attn", || {
                let a = x.rms_norm(&w[0], 1e-6);
                // [b, t, d] -> [b, heads, t, hd] for the rotary embedding, and back.
                let heads = |y: Tensor| y.reshape(&[b, t, h, hd]).transpose(&[0, 2, 1, 3]);
                let back = |y: Tensor| y.transpose(&[0, 2, 1, 3]);
                let q = back(heads(a.matmul(&w[1])).rotary(cfg.rope_base));
                let k = back(heads(a.matmul(&w[2])).rotary(cfg.rope_base));
                let v = a.matmul(&w[3]).reshape(&[b, t, h, hd]);
                full_attention(&q, &k, &v).reshape(&[b, t, d]).matmul(&w[4])
            });
            let x = &x + &y;
            let y = named_scope("mlp", || {
                x.rms_norm(&w[5], 1e-6).swiglu(&w[6], &w[7]).matmul(&w[8])
            });
            &x + &y
        });
    }
    let n = p.len();
    named_scope("head", || {
        x.rms_norm(&p[n - 2], 1e-6)
            .matmul(&p[n - 1])
            .cross_entropy(targets)
    })
}

/// Sizes of a mixture-of-experts layer (GShard's grouped top-k routing with a capacity
/// per expert, Switch Transformer's for `top_k = 1`): tokens come in `groups` groups of
/// `tokens` each; every token goes to the `top_k` experts its router ranks first, each
/// expert taking at most [`MoeConfig::capacity`] tokens of a group.
#[derive(Copy, Clone, Debug)]
pub struct MoeConfig {
    /// Groups of tokens routed together.
    pub groups: usize,
    /// Tokens per group.
    pub tokens: usize,
    /// Width of each token.
    pub d_model: usize,
    /// Hidden size of each expert's MLP.
    pub d_ff: usize,
    /// Experts.
    pub experts: usize,
    /// How many experts each token goes to: 1 (Switch) or 2 (GShard).
    pub top_k: usize,
    /// Each expert's buffer per group holds `ceil(capacity_factor * tokens * top_k /
    /// experts)` tokens (GShard and Switch use 1.0 to 2.0); `experts / top_k` or more
    /// never drops a token.
    pub capacity_factor: f64,
    /// Weight of Switch's load-balancing loss (0.01 in the paper).
    pub balance: f64,
}

impl MoeConfig {
    /// Tokens of one group each expert takes: `ceil(capacity_factor * tokens * top_k /
    /// experts)`, at least 1 and at most `tokens`.
    pub fn capacity(&self) -> usize {
        let want = self.capacity_factor * (self.tokens * self.top_k) as f64 / self.experts as f64;
        (want.ceil() as usize).clamp(1, self.tokens.max(1))
    }

    /// `router [d_model, experts]`, `w_in [experts, d_model, d_ff]`,
    /// `w_out [experts, d_ff, d_model]`.
    pub fn param_names(&self) -> Vec<String> {
        ["router", "w_in", "w_out"].map(String::from).to_vec()
    }

    /// The parameters' types, in [`MoeConfig::param_names`] order.
    pub fn param_types(&self) -> Vec<TensorType> {
        let f = |s: &[usize]| TensorType::new(DType::F32, s);
        let (m, h, e) = (self.d_model, self.d_ff, self.experts);
        vec![f(&[m, e]), f(&[e, m, h]), f(&[e, h, m])]
    }

    /// Expert parallelism over `axis`: the experts' weights split by expert (each device
    /// holds `experts / |axis|` experts), the router replicated. With the token groups
    /// split over the same axis (GShard), tokens travel to their experts and back by
    /// all-to-all.
    pub fn expert_specs(&self, axis: &str) -> Vec<PartitionSpec> {
        vec![
            P![],
            PartitionSpec::new(vec![
                shardc::DimSpec::axes(&[axis]),
                shardc::DimSpec::replicated(),
                shardc::DimSpec::replicated(),
            ]),
            PartitionSpec::new(vec![
                shardc::DimSpec::axes(&[axis]),
                shardc::DimSpec::replicated(),
                shardc::DimSpec::replicated(),
            ]),
        ]
    }

    /// Batch `t` of a regression task the layer can learn (the MoE example and tests
    /// train on it): inputs `sin(0.61 i + 1.7 t) · 1.5`, rounded to f32, and as targets
    /// `tanh` of a fixed mix of each token's features; both `[groups, tokens, d_model]`.
    pub fn regression_batch(&self, t: usize) -> Vec<shardc_ir::Literal> {
        let (g, s, m) = (self.groups, self.tokens, self.d_model);
        let x: Vec<f64> = (0..g * s * m)
            .map(|i| ((0.61 * i as f64 + 1.7 * t as f64).sin() * 1.5) as f32 as f64)
            .collect();
        let y: Vec<f64> = (0..g * s * m)
            .map(|i| {
                let (tok, f) = (i / m, i % m);
                (x[tok * m + (f + 3) % m] * 0.8 - x[tok * m + (f + 7) % m] * 0.5).tanh()
            })
            .collect();
        [x, y]
            .iter()
            .map(|v| {
                shardc_ir::Literal::from_f64(DType::F32, &[g, s, m], v)
                    .expect("g * s * m values for a [g, s, m] tensor")
            })
            .collect()
    }

    /// The `[groups, tokens, d_model]` type of the layer's input and of its target.
    pub fn token_type(&self) -> TensorType {
        TensorType::new(DType::F32, [self.groups, self.tokens, self.d_model])
    }

    /// Router weights normal with std 0.5 (so routing starts spread over the experts),
    /// expert weights with std `1/sqrt(fan_in)`; deterministic in `seed`.
    pub fn init(&self, seed: i64) -> Vec<shardc_ir::Literal> {
        let scales = [
            0.5,
            1.0 / (self.d_model as f64).sqrt(),
            1.0 / (self.d_ff as f64).sqrt(),
        ];
        initial(&self.param_types(), seed, |k| Init::Normal(scales[k]))
    }
}

/// A top-k mixture-of-experts MLP with a residual connection, `x: [groups, tokens,
/// d_model]` -> the same shape; `p` in [`MoeConfig::param_names`] order. Returns the
/// output and Switch's load-balancing loss (`experts * sum_e f_e * P_e`: `f_e` the
/// fraction of tokens whose first choice is expert `e`, `P_e` its mean router
/// probability; 1 when balanced).
///
/// GShard's dispatch with capacity `C` ([`MoeConfig::capacity`]): within a group, each
/// expert takes the tokens that chose it in token order — every first choice before any
/// second choice — until its `C` slots are full; a token past them is dropped by that
/// expert (it keeps the residual and its other expert). `dispatch[g, s, e, c]` is 1 where
/// token `(g, s)` sits in slot `c` of expert `e`, so the experts compute on `[experts,
/// groups, C, d_model]` (`top_k · capacity_factor` tokens' worth, not every token), and
/// `combine` is `dispatch` weighted by the token's gate: its router probability for `top_k
/// = 1` (the gradient that trains the router), the two probabilities normalized to sum
/// to 1 for `top_k = 2`. Ties between experts go to the lower index.
pub fn moe_layer(x: &Tensor, p: &[Tensor], cfg: &MoeConfig) -> (Tensor, Tensor) {
    use shardc_ir::ComparisonDirection::{Eq, Ge, Gt, Lt};
    let (router, w_in, w_out) = (&p[0], &p[1], &p[2]);
    let (g, s, e, c) = (cfg.groups, cfg.tokens, cfg.experts, cfg.capacity());
    let probs = x.einsum("gsm,me->gse", router).softmax(-1);
    let experts = x.iota(DType::F32, &[g, s, e], 2);
    // The highest of `scores` per token, as a one-hot over the experts (the lowest index
    // among ties).
    let choose = |scores: &Tensor| -> Tensor {
        let best = scores.max(&[-1]).keep_dims(&[-1], 3);
        let at_best = scores.compare(Ge, &best);
        let none = x.full(&[g, s, e], e as f64);
        let index = Tensor::select(&at_best, &experts, &none);
        let first = (-&(-&index).max(&[-1])).keep_dims(&[-1], 3);
        experts.compare(Eq, &first).convert(DType::F32)
    };
    let first = choose(&probs);
    let mut choices = vec![first.clone()];
    if cfg.top_k >= 2 {
        let taken = first.compare(Gt, &x.scalar(0.0));
        let rest = Tensor::select(&taken, &x.full(&[g, s, e], -1.0), &probs);
        choices.push(choose(&rest));
    }
    // Slot of each choice in its expert's buffer: the tokens before it in the group that
    // chose the same expert (`earlier[s, t] = 1` for `t < s`), after all first choices.
    let earlier = x
        .iota(DType::F32, &[s, s], 1)
        .compare(Lt, &x.iota(DType::F32, &[s, s], 0))
        .convert(DType::F32);
    let slots = x.iota(DType::F32, &[g, s, e, c], 3);
    let mut before = x.full(&[g, 1, e], 0.0);
    let gates: Vec<Tensor> = choices.iter().map(|m| (&probs * m).sum(&[-1])).collect();
    let total = gates.iter().skip(1).fold(gates[0].clone(), |a, b| &a + b);
    let (mut dispatch, mut combine) = (x.full(&[g, s, e, c], 0.0), x.full(&[g, s, e, c], 0.0));
    for (chosen, gate) in choices.iter().zip(&gates) {
        let position = &chosen.einsum("gte,st->gse", &earlier) + &before;
        before = &before + &chosen.sum(&[1]).keep_dims(&[1], 3);
        let fits = position
            .compare(Lt, &x.scalar(c as f64))
            .convert(DType::F32);
        let kept = chosen * &fits;
        let slot = slots
            .compare(Eq, &position.keep_dims(&[3], 4))
            .convert(DType::F32);
        let placed = &slot * &kept.keep_dims(&[3], 4);
        let weight = if cfg.top_k >= 2 {
            gate / &total
        } else {
            gate.clone()
        };
        combine = &combine + &(&placed * &weight.keep_dims(&[2, 3], 4));
        dispatch = &dispatch + &placed;
    }
    let dispatched = dispatch.einsum("gsec,gsm->egcm", x);
    let hidden = dispatched.einsum("egcm,emh->egch", w_in).relu();
    let out = hidden.einsum("egch,ehm->egcm", w_out);
    let combined = out.einsum("egcm,gsec->gsm", &combine);
    let routed = first.mean(&[0, 1]);
    let importance = probs.mean(&[0, 1]);
    let balance = (&routed * &importance).sum(&[0]) * cfg.experts as f64;
    (x + &combined, balance)
}

/// The mean squared error of [`moe_layer`] against `target`, plus `cfg.balance` times its
/// load-balancing loss.
pub fn moe_loss(cfg: &MoeConfig, x: &Tensor, target: &Tensor, p: &[Tensor]) -> Tensor {
    let (y, balance) = moe_layer(x, p, cfg);
    let e = &y - target;
    (&e * &e).mean(&[0, 1, 2]) + &(balance * cfg.balance)
}
