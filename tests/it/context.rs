//! Context (sequence) parallelism: a GPT training step with every batch tensor's sequence
//! split over `context` (and its batch over `data`), `Strategy::Context`. Propagation
//! gathers each layer's keys and values over `context` for attention (Llama 3's
//! all-gather context parallelism) and reduce-scatters their gradients in backward;
//! everything else stays split by position. The step must match the single-device
//! reference on the simulated mesh and the cpu backend.

use crate::util::steps_match_the_reference;
use shardc::data::CharDataset;
use shardc::models::{GptConfig, TransformerDims, gpt_loss};
use shardc::train::{Optimizer, Strategy, TrainStep, train_step};
use shardc::{Compiled, DType, Mesh, P, PartitionSpec, Tensor, TensorType};

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
        Strategy::Context(specs),
        Optimizer::AdamW {
            lr: 1e-2,
            warmup: 2.0,
            total: 10.0,
            min_ratio: 0.1,
            adam: Default::default(),
        },
    )
}

fn collectives(c: &Compiled) -> Vec<(String, String, u64)> {
    c.explain()
        .collectives
        .iter()
        .map(|c| (c.kind.clone(), c.axes.join(","), c.bytes_per_device))
        .collect()
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
