//! The demo's model, optimizer and text, shared by the demo, the benchmarks and the tests.

use crate::data::CharDataset;
use crate::models::{Blocks, GptConfig, TransformerDims, gpt_loss_with};
use crate::step::{Optimizer, TrainStep, train_step_accumulated};
use crate::strategy::Strategy;
use shardc::{DType, Error, Mesh, Tensor, TensorType};

/// The text the demo learns; its characters are the vocabulary (96 symbols).
pub const CORPUS: &str = include_str!("../../examples/data/corpus.txt");

/// The demo's model (`examples/demo.rs`): 4 layers, d_model 128, 4 heads, d_ff 512,
/// sequences of 64, batches of 16, the corpus's 96 characters.
pub fn demo_config() -> GptConfig {
    GptConfig {
        vocab: CharDataset::new(CORPUS).vocab.len(),
        layers: 4,
        block: TransformerDims {
            batch: 16,
            seq: 64,
            d_model: 128,
            heads: 4,
            d_ff: 512,
        },
    }
}

/// A model small enough for a debug-build test: 1 layer, d_model 16, 4 heads, d_ff 32,
/// sequences of 8, batches of 4.
pub fn tiny_config() -> GptConfig {
    GptConfig {
        vocab: CharDataset::new(CORPUS).vocab.len(),
        layers: 1,
        block: TransformerDims {
            batch: 4,
            seq: 8,
            d_model: 16,
            heads: 4,
            d_ff: 32,
        },
    }
}

/// The demo's optimizer, with the schedule of its default 150 steps: AdamW (betas 0.9 and
/// 0.999, eps 1e-8, weight decay 0.01), learning rate 3e-3 after 10 warm-up steps, cosine
/// decay to 3e-4 at step 150.
pub fn demo_optimizer() -> Optimizer {
    Optimizer::AdamW {
        lr: 3e-3,
        warmup: 10.0,
        total: 150.0,
        min_ratio: 0.1,
        adam: crate::optim::AdamW::default(),
    }
}

/// The demo's training step for `cfg` on `mesh` (which has `data` and `model`): the GPT's
/// loss, DP x TP (the batch over `data`, Megatron specs over `model`), `optimizer`, its
/// parameters named (`h0.wq`, ...).
pub fn demo_step(cfg: GptConfig, mesh: &Mesh, optimizer: Optimizer) -> Result<TrainStep, Error> {
    gpt_step(cfg, mesh, Strategy::dp_tp(cfg.param_specs()), optimizer, 1)?
        .with_param_names(&cfg.param_names())
}

/// The training step of `cfg`'s GPT (token and target batches of `[batch, seq]`) on `mesh`
/// under `strategy` and `optimizer`, its batch run as `microbatches` accumulated
/// micro-batches (`step::train_step_accumulated`; 1: the plain step).
pub fn gpt_step(
    cfg: GptConfig,
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    microbatches: usize,
) -> Result<TrainStep, Error> {
    gpt_step_with(
        cfg,
        mesh,
        strategy,
        optimizer,
        microbatches,
        Blocks::default(),
    )
}

/// [`gpt_step`] with every block computed as `blocks` says (its attention, and which
/// blocks are recomputed in the backward pass).
pub fn gpt_step_with(
    cfg: GptConfig,
    mesh: &Mesh,
    strategy: Strategy,
    optimizer: Optimizer,
    microbatches: usize,
    blocks: Blocks,
) -> Result<TrainStep, Error> {
    let tokens = TensorType::new(DType::I32, [cfg.block.batch, cfg.block.seq]);
    let loss = move |p: &[Tensor], b: &[Tensor]| gpt_loss_with(&cfg, &b[0], &b[1], p, &blocks);
    train_step_accumulated(
        "gpt",
        loss,
        &cfg.param_types(),
        &[tokens.clone(), tokens],
        mesh,
        strategy,
        optimizer,
        microbatches,
    )
}

/// The mesh for `n` devices: `data=1 x model=1` for one, `data=2 x model=n/2` for an even
/// count (2: 2x1, 4: 2x2, 8: 2x4, the demo's), `data=n x model=1` for an odd one.
pub fn mesh_shape(n: usize) -> Result<(usize, usize), Error> {
    match n {
        0 => Err(Error::Usage("a mesh needs at least one device".into())),
        1 => Ok((1, 1)),
        n if n % 2 == 0 => Ok((2, n / 2)),
        n => Ok((n, 1)),
    }
}
