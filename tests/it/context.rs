//! Context (sequence) parallelism: a GPT training step with every batch tensor's sequence
//! split over `context` (and its batch over `data`), `Strategy::Context`. Propagation
//! gathers each layer's keys and values over `context` for attention (Llama 3's
//! all-gather context parallelism) and reduce-scatters their gradients in backward;
//! everything else stays split by position. With ring attention (`Attention::Ring`) the
//! keys and values instead travel around the ring one block per hop. The step must match
//! the single-device reference on the simulated mesh and the cpu backend.

use crate::util::{adamw, collectives, steps_match_the_reference};
use shardc::ir::OpKind;
use shardc::{DType, Mesh, P, PartitionSpec, Tensor, TensorType};
use shardc_train::data::CharDataset;
use shardc_train::models::{GptConfig, TransformerDims, gpt_loss};
use shardc_train::step::{TrainStep, train_step};
use shardc_train::strategy::Strategy;

const CFG: GptConfig = GptConfig {
    vocab: 16,
    layers: 2,
    block: TransformerDims {
        batch: 4,
        seq: 16,
        d_model: 16,
        heads: 2,
        d_ff: 32,
    },
};

const TEXT: &str = "the quick brown fox jumps over the lazy dog; a stitch in time saves nine. ";

fn step(mesh: &Mesh, specs: Vec<PartitionSpec>, vocab: usize) -> Result<TrainStep, shardc::Error> {
    let cfg = GptConfig { vocab, ..CFG };
    let tokens = TensorType::new(DType::I32, [CFG.block.batch, CFG.block.seq]);
    train_step(
        "gpt",
        move |p: &[Tensor], b: &[Tensor]| gpt_loss(&cfg, &b[0], &b[1], p),
        &cfg.param_types(),
        &[tokens.clone(), tokens],
        mesh,
        Strategy::context(specs),
        adamw(),
    )
}

#[test]
fn attention_gathers_keys_and_values_over_context() {
    let data = CharDataset::new(TEXT);
    let mesh = Mesh::new("mesh", &[("data", 2), ("context", 4)]).unwrap();
    let cfg = GptConfig {
        vocab: data.vocab.len(),
        ..CFG
    };
    let ts = step(&mesh, vec![P![]; cfg.param_types().len()], cfg.vocab).unwrap();
    let c = ts.program.compile(&ts.options()).unwrap();
    let got = collectives(&c);
    let d = &CFG.block;
    // One layer's keys (or values) on one device once gathered: its half of the batch
    // (data = 2), every position, every head; (n-1)/n of it arrives from the others.
    let kv = (d.batch / 2 * d.seq * d.d_model * 4) as u64;
    let gathered = 3 * kv / 4;
    let count = |kind: &str, axes: &str, bytes: u64| {
        got.iter()
            .filter(|(k, a, b)| k == kind && a == axes && *b == bytes)
            .count()
    };
    // Forward: keys and values of every layer gathered, nothing else over `context`.
    assert_eq!(count("all_gather", "context", gathered), 2 * CFG.layers);
    // Backward: gradients summed over the devices' queries and reduce-scattered back to
    // positions: the keys', the values' (for the weights' gradients) and the layer
    // input's, each the gathered volume.
    assert_eq!(count("reduce_scatter", "context", gathered), 3 * CFG.layers);
    // Every other collective reduces parameter gradients (and the loss) over the whole
    // mesh, or is the position embedding's gradient (rows split by position).
    for (k, a, _) in &got {
        assert!(
            (k == "all_reduce" && (a == "data,context" || a == "data"))
                || (k == "all_gather" || k == "reduce_scatter") && a == "context",
            "{k} {{{a}}}"
        );
    }
    let mut text = format!("context parallelism on {}\n", ts.mesh);
    for (k, a, b) in &got {
        text.push_str(&format!("{k} {{{a}}} {b} B\n"));
    }
    insta::assert_snapshot!(text);
}

/// Three AdamW steps, each from the reference's state, on the simulated mesh, on the cpu
/// backend and on one device: loss and every parameter and moment agree within 1e-5.
#[test]
fn context_parallel_steps_match_the_reference() {
    let data = CharDataset::new(TEXT);
    let vocab = data.vocab.len();
    for axes in [&[("context", 4)][..], &[("data", 2), ("context", 4)][..]] {
        let mesh = Mesh::new("mesh", axes).unwrap();
        let cfg = GptConfig { vocab, ..CFG };
        let ts = step(&mesh, vec![P![]; cfg.param_types().len()], vocab).unwrap();
        let c = ts.program.compile(&ts.options()).unwrap();
        let batch = |t: usize| {
            let (x, y) = data.batch(t as u64, CFG.block.batch, CFG.block.seq);
            vec![x, y]
        };
        steps_match_the_reference(&ts, &c, cfg.init(0), &batch, 3, 1e-5);
    }
}

#[test]
fn context_parallelism_needs_a_context_axis_and_a_sequence() {
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let e = step(&mesh, vec![P![]; CFG.param_types().len()], CFG.vocab)
        .err()
        .expect("no context axis");
    insta::assert_snapshot!(e.to_string());
}

/// Ring attention (`Attention::Ring`): on one device it gives full attention's loss and
/// update; with the sequence split over `context = 4` the keys and values travel around
/// the ring, one block per hop by `collective_permute` (never gathered over `context`),
/// and three AdamW steps match the single-device reference on the simulated mesh and the
/// cpu backend, on `context = 4` and `data = 2 x context = 4`.
#[test]
fn ring_attention_passes_keys_and_values_around_the_ring() {
    use shardc_train::models::{Attention, Blocks, gpt_loss_with};
    let data = CharDataset::new(TEXT);
    let cfg = GptConfig {
        vocab: data.vocab.len(),
        ..CFG
    };
    let tokens = TensorType::new(DType::I32, [CFG.block.batch, CFG.block.seq]);
    let with = |mesh: &Mesh, attention: Attention| {
        train_step(
            "gpt",
            move |p: &[Tensor], b: &[Tensor]| {
                gpt_loss_with(
                    &cfg,
                    &b[0],
                    &b[1],
                    p,
                    &Blocks {
                        attention,
                        remat: shardc_train::models::Remat::Off,
                    },
                )
            },
            &cfg.param_types(),
            &[tokens.clone(), tokens.clone()],
            mesh,
            Strategy::context(vec![P![]; cfg.param_types().len()]),
            adamw(),
        )
        .unwrap()
    };
    let ring = Attention::Ring {
        axis: "context",
        blocks: 4,
    };
    // The same numbers as full attention, on one device.
    let one = Mesh::new("mesh", &[("context", 1)]).unwrap();
    let full = with(&one, Attention::Full);
    let (x, y) = data.batch(1, CFG.block.batch, CFG.block.seq);
    let args = full.args(&cfg.init(0), &full.init_state(), 1, &[x, y]);
    let want = full.program.run_reference(&args).unwrap();
    let got = with(&one, ring).program.run_reference(&args).unwrap();
    crate::util::assert_close(&got, &want, 1e-5, "ring attention against full attention");

    for axes in [&[("context", 4)][..], &[("data", 2), ("context", 4)][..]] {
        let mesh = Mesh::new("mesh", axes).unwrap();
        let ts = with(&mesh, ring);
        let c = ts.program.compile(&ts.options()).unwrap();
        let got = collectives(&c);
        let d = &CFG.block;
        let batch = d.batch / if axes.len() == 2 { 2 } else { 1 };
        // One device's block of keys (or values): its batch, a quarter of the positions.
        let block = (batch * d.seq / 4 * d.d_model * 4) as u64;
        let hops = got
            .iter()
            .filter(|(k, a, b)| k == "collective_permute" && a == "context" && *b == block)
            .count();
        // Keys and values, 3 hops each per layer, forward; their gradients back, backward.
        assert_eq!(hops, 2 * 2 * 3 * CFG.layers, "hops of a block: {got:?}");
        let gathered = (3 * block) / 4 * 4;
        assert!(
            !got.iter()
                .any(|(k, a, b)| k == "all_gather" && a == "context" && *b >= gathered),
            "keys or values gathered over context: {got:?}"
        );
        // The next block's hop is issued before this block's attention, so it can travel
        // while the block is attended to: the first permute of a block of keys comes before
        // the first product of queries and keys.
        let f = c.partitioned.module.entry().unwrap();
        let ops: Vec<_> = f.body().ops.iter().map(|&o| f.op(o)).collect();
        let first = |pred: &dyn Fn(&shardc::ir::Op) -> bool| ops.iter().position(|o| pred(o));
        let hop = first(&|o| {
            matches!(o.kind, OpKind::CollectivePermute { .. }) && f.ty(o.operands[0]).rank() == 5
        });
        let scores = first(&|o| {
            matches!(&o.kind, OpKind::DotGeneral(d) if !d.lhs_batch.is_empty())
                && f.ty(o.operands[0]).rank() == 5
        });
        assert!(
            hop.is_some() && hop < scores,
            "hop {hop:?}, scores {scores:?}"
        );
        let batch_of = |t: usize| {
            let (x, y) = data.batch(t as u64, CFG.block.batch, CFG.block.seq);
            vec![x, y]
        };
        steps_match_the_reference(&ts, &c, cfg.init(0), &batch_of, 3, 1e-5);
    }
}
