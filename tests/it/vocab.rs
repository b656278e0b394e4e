//! Megatron's vocabulary-parallel embedding: the GPT step with the (tied) token embedding's
//! rows split over `model` (`Strategy::DpTp` with `wte: P!["model", None]`). The lookup
//! runs on each device's rows (`compiler/src/local/offset.rs`: indices offset into the block,
//! misses zeroed, partial sums all-reduced) instead of gathering the table, and the tied
//! logits come out split over the vocabulary. The step must match the single-device
//! reference on the simulated mesh and the cpu backend.

use crate::util::{adamw, steps_match_the_reference};
use shardc::ir::OpKind;
use shardc::{DType, Mesh, P, Tensor, TensorType};
use shardc_train::data::CharDataset;
use shardc_train::models::{GptConfig, TransformerDims, gpt_loss};
use shardc_train::step::train_step;
use shardc_train::strategy::Strategy;

const TEXT: &str = "the quick brown fox jumps over the lazy dog; a stitch in time saves nine. ";

#[test]
fn vocab_parallel_embedding_looks_up_local_rows_and_matches_the_reference() {
    let data = CharDataset::new(TEXT);
    // A vocabulary `model` divides (the text's symbols and a few unused ones).
    let vocab = data.vocab.len().div_ceil(4) * 4;
    let cfg = GptConfig {
        vocab,
        layers: 1,
        block: TransformerDims {
            batch: 4,
            seq: 8,
            d_model: 16,
            heads: 2,
            d_ff: 32,
        },
    };
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
    let mut specs = cfg.param_specs();
    specs[0] = P!["model", None];
    let tokens = TensorType::new(DType::I32, [cfg.block.batch, cfg.block.seq]);
    let ts = train_step(
        "gpt",
        move |p: &[Tensor], b: &[Tensor]| gpt_loss(&cfg, &b[0], &b[1], p),
        &cfg.param_types(),
        &[tokens.clone(), tokens],
        &mesh,
        Strategy::dp_tp(specs),
        adamw(),
    )
    .unwrap();
    let c = ts.program.compile(&ts.options()).unwrap();

    // The decision: every lookup reads a quarter of the table's rows, and the table is
    // never gathered whole (no all-gather of `vocab x d_model` over `model`).
    let f = c.partitioned.module.entry().unwrap();
    let lookups: Vec<Vec<usize>> = f
        .body()
        .ops
        .iter()
        .map(|&o| f.op(o))
        .filter(|o| matches!(o.kind, OpKind::Gather(_)))
        .map(|o| f.ty(o.operands[0]).shape.clone())
        .collect();
    assert!(!lookups.is_empty());
    for shape in &lookups {
        assert_eq!(
            shape,
            &vec![vocab / 4, 16],
            "a lookup reads the whole table"
        );
    }
    let table_bytes = (vocab * 16 * 4) as u64;
    for col in c.explain().collectives {
        assert!(
            !(col.kind == "all_gather" && col.bytes_per_device == table_bytes * 3 / 4),
            "the table is gathered: {col:?}"
        );
    }

    let batch = |t: usize| {
        let (x, y) = data.batch(t as u64, cfg.block.batch, cfg.block.seq);
        vec![x, y]
    };
    steps_match_the_reference(&ts, &c, cfg.init(0), &batch, 3, 1e-5);
}
