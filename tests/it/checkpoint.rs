//! Checkpoints (train/src/checkpoint.rs) and training that restarts itself after a device
//! failure (train/src/restart.rs), on the cpu backend: a restarted run equals an uninterrupted
//! one bit for bit; a checkpoint loads into another strategy on another mesh; bad
//! checkpoints are clear errors.

use crate::util::det;
use shardc::ir::{DType, Literal, Mesh, TensorType};
use shardc::runtime::engine::{Compute, Interpreted};
use shardc::{Compiled, CpuProgram, Error, Tensor};
use shardc_train::checkpoint::{Checkpoint, Checkpointer, info};
use shardc_train::restart::{FailOnce, Supervisor, TrainLog};
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;
use std::path::PathBuf;

const BATCH: usize = 8;
const D: usize = 8;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

/// A residual MLP with hidden width `h` and a mean squared error.
fn mlp_step(strategy: Strategy, mesh: &Mesh, h: usize, optimizer: Optimizer) -> TrainStep {
    train_step(
        "mlp",
        |p: &[Tensor], b: &[Tensor]| {
            let (x, y) = (&b[0], &b[1]);
            let h = x + &x.matmul(&p[0]).relu().matmul(&p[1]);
            let e = &h - y;
            (&e * &e).mean(&[0, 1])
        },
        &[f32(&[D, h]), f32(&[h, D])],
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        mesh,
        strategy,
        optimizer,
    )
    .unwrap()
}

fn adamw() -> Optimizer {
    Optimizer::AdamW {
        lr: 1e-2,
        warmup: 2.0,
        total: 20.0,
        min_ratio: 0.1,
        adam: Default::default(),
    }
}

fn init(ts: &TrainStep) -> Vec<Literal> {
    ts.param_types
        .iter()
        .enumerate()
        .map(|(k, t)| det(&t.shape, k, 0.3))
        .collect()
}

fn batch(t: usize) -> Vec<Literal> {
    vec![det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)]
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardc-ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Trains `ts` to `steps` under a supervisor on the cpu backend, computing with `engine`.
fn supervised(
    ts: &TrainStep,
    c: &Compiled,
    sup: &Supervisor,
    steps: usize,
    engine: &dyn Compute,
    launches: &mut usize,
) -> Result<TrainLog, Error> {
    sup.train(
        ts,
        c,
        steps,
        || init(ts),
        batch,
        || {
            *launches += 1;
            CpuProgram::new(c, engine)
        },
    )
}

fn bits(ls: &[Literal]) -> Vec<Vec<u64>> {
    ls.iter()
        .map(|l| (0..l.elements.len()).map(|i| l.elements.bits(i)).collect())
        .collect()
}

fn ddp4() -> (TrainStep, Compiled) {
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let ts = mlp_step(Strategy::ddp(), &mesh, 16, adamw());
    let c = ts.program.compile(&ts.options()).unwrap();
    (ts, c)
}

#[test]
fn saved_checkpoints_load_exactly_and_name_their_tensors() {
    let (ts, _) = ddp4();
    let dir = scratch("round-trip");
    let ck = Checkpoint {
        step: 7,
        params: init(&ts),
        state: ts
            .init_state()
            .iter()
            .enumerate()
            .map(|(k, s)| det(&s.ty.shape, 40 + k, 1e-3))
            .collect(),
        data: None,
        loss_scale: None,
    };
    let cp = Checkpointer::new(&dir).param_names(vec!["w_in".into(), "w_out".into()]);
    let path = cp.save(&ts, &ck).unwrap();
    assert_eq!(path, dir.join("step-00000007.safetensors"));
    let back = cp.load_latest(&ts).unwrap().unwrap();
    assert_eq!(back.step, 7);
    assert_eq!(bits(&back.params), bits(&ck.params));
    assert_eq!(bits(&back.state), bits(&ck.state));
    let i = info(&path).unwrap();
    assert_eq!(
        (
            i.step,
            i.optimizer.as_str(),
            i.strategy.as_str(),
            i.mesh.as_str()
        ),
        (7, "adamw", "ddp", "data=4")
    );
    // The file is plain safetensors with the tensors named by parameter and slot.
    let bytes = std::fs::read(&path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut names = st.names();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "adam_m.w_in",
            "adam_m.w_out",
            "adam_v.w_in",
            "adam_v.w_out",
            "param.w_in",
            "param.w_out"
        ]
    );
    assert_eq!(st.tensor("param.w_in").unwrap().shape(), &[D, 16]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_the_newest_checkpoints_are_kept_and_temporaries_are_ignored() {
    let (ts, _) = ddp4();
    let dir = scratch("keep");
    let cp = Checkpointer::new(&dir).keep(2);
    for step in [1, 2, 3] {
        let ck = Checkpoint {
            step,
            params: init(&ts),
            state: ts.init_state(),
            data: None,
            loss_scale: None,
        };
        cp.save(&ts, &ck).unwrap();
    }
    // What an interrupted save leaves behind is not a checkpoint, and is removed.
    let stale = dir.join(".step-00000004.safetensors.tmp");
    std::fs::write(&stale, b"half").unwrap();
    let steps: Vec<usize> = cp.list().unwrap().into_iter().map(|(s, _)| s).collect();
    assert_eq!(steps, [2, 3]);
    assert_eq!(cp.load_latest(&ts).unwrap().unwrap().step, 3);
    assert_eq!(cp.remove_stale().unwrap(), vec![stale.clone()]);
    assert!(!stale.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The heart of it: a device fails in the middle of step 8; the supervisor relaunches the
/// mesh, goes back to the checkpoint of step 6 and trains on — and the result is the
/// uninterrupted run's, bit for bit. Then a new supervisor (a new process, as after a
/// crash) resumes from the directory and again ends where the uninterrupted run does.
#[test]
fn a_run_restarted_after_a_device_failure_equals_an_uninterrupted_run() {
    let (ts, c) = ddp4();
    let steps = 10;
    let counting = FailOnce::new(Interpreted, usize::MAX);
    let base_dir = scratch("baseline");
    let mut launches = 0;
    let sup = Supervisor::new(Checkpointer::new(&base_dir), 3);
    let base = supervised(&ts, &c, &sup, steps, &counting, &mut launches).unwrap();
    assert_eq!((launches, base.restarts.len(), base.saved), (1, 0, 4)); // 3, 6, 9, 10
    let per_step = counting.calls() / steps;
    assert!(per_step > 0 && counting.calls() % steps == 0);

    // Fail in the middle of step 8.
    let failing = FailOnce::new(Interpreted, 7 * per_step + per_step / 2);
    let dir = scratch("restarted");
    let sup = Supervisor::new(Checkpointer::new(&dir), 3);
    let mut launches = 0;
    let log = supervised(&ts, &c, &sup, steps, &failing, &mut launches).unwrap();
    assert!(failing.fired());
    assert_eq!(launches, 2);
    assert_eq!(log.restarts.len(), 1);
    let r = &log.restarts[0];
    assert_eq!((r.failed_at, r.resumed_from), (8, 6));
    assert!(r.error.contains("injected failure"), "{}", r.error);
    assert_eq!(log.last.step, steps);
    assert_eq!(bits(&log.last.params), bits(&base.last.params));
    assert_eq!(bits(&log.last.state), bits(&base.last.state));
    assert_eq!(log.losses, base.losses);

    // Resuming a directory: train to 6 in a fresh directory, then a new supervisor to 10.
    let dir2 = scratch("resumed");
    let mut launches = 0;
    let sup = Supervisor::new(Checkpointer::new(&dir2), 3);
    let first = supervised(&ts, &c, &sup, 6, &Interpreted, &mut launches).unwrap();
    assert_eq!(first.last.step, 6);
    let second = supervised(&ts, &c, &sup, steps, &Interpreted, &mut launches).unwrap();
    assert_eq!(second.started_from, 6);
    assert_eq!(second.losses, base.losses[6..]);
    assert_eq!(bits(&second.last.params), bits(&base.last.params));
    assert_eq!(bits(&second.last.state), bits(&base.last.state));
    // A run already at its last step has nothing to do.
    let done = supervised(&ts, &c, &sup, steps, &Interpreted, &mut launches).unwrap();
    assert_eq!((done.started_from, done.losses.len()), (steps, 0));
    for d in [base_dir, dir, dir2] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_run_gives_up_after_its_restarts_and_never_retries_wrong_inputs() {
    let (ts, c) = ddp4();
    let dir = scratch("give-up");
    let sup = Supervisor::new(Checkpointer::new(&dir), 3).max_restarts(0);
    let mut launches = 0;
    let e = supervised(
        &ts,
        &c,
        &sup,
        4,
        &FailOnce::new(Interpreted, 1),
        &mut launches,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("training gave up after 0 restarts; the last failure, at step 1: device")
            && text.contains("injected failure at kernel call 1"),
        "{text}"
    );

    // A batch of the wrong shape fails the same way every time: no restart.
    let mut launches = 0;
    let c = &c;
    let e = sup
        .train(
            &ts,
            c,
            4,
            || init(&ts),
            |_| vec![det(&[BATCH, D + 1], 1, 1.0), det(&[BATCH, D], 2, 1.0)],
            || {
                launches += 1;
                CpuProgram::new(c, &Interpreted)
            },
        )
        .unwrap_err();
    assert!(!e.is_device_failure(), "{e}");
    assert_eq!(launches, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tensors of a checkpoint are global: one written by DDP on 4 devices loads into
/// ZeRO-3 on 2, and training on from it matches the single-device reference.
#[test]
fn a_checkpoint_loads_into_another_strategy_on_another_mesh() {
    let (ddp, c) = ddp4();
    let dir = scratch("reshard");
    let sup = Supervisor::new(Checkpointer::new(&dir), 4);
    let mut launches = 0;
    supervised(&ddp, &c, &sup, 4, &Interpreted, &mut launches).unwrap();

    let mesh2 = Mesh::new("mesh", &[("data", 2)]).unwrap();
    let z3 = mlp_step(Strategy::zero3(), &mesh2, 16, adamw());
    let c3 = z3.program.compile(&z3.options()).unwrap();
    let log = supervised(&z3, &c3, &sup, 7, &Interpreted, &mut launches).unwrap();
    assert_eq!(log.started_from, 4);
    assert_eq!(
        info(&dir.join("step-00000007.safetensors"))
            .unwrap()
            .strategy,
        "zero3"
    );

    // The reference: the same three steps, on one device, from the step-4 checkpoint.
    let start = Checkpointer::new(&dir)
        .load(&ddp, &dir.join("step-00000004.safetensors"))
        .unwrap();
    let (mut params, mut state) = (start.params, start.state);
    for t in 5..=7 {
        let args = ddp.args(&params, &state, t, &batch(t));
        let (loss, p, s) = ddp.split(ddp.program.run_reference(&args).unwrap());
        let got = log.losses.iter().find(|(s, _)| *s == t).unwrap().1;
        assert!(
            (got - loss).abs() <= 1e-5 * loss.abs().max(1.0),
            "step {t}: {got} vs {loss}"
        );
        (params, state) = (p, s);
    }
    for (got, want) in log.last.params.iter().zip(&params) {
        for (g, w) in got.to_f64_vec().iter().zip(want.to_f64_vec()) {
            assert!((g - w).abs() <= 1e-5, "{g} vs {w}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_checkpoints_are_clear_errors() {
    let (ts, _) = ddp4();
    let dir = scratch("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let cp = Checkpointer::new(&dir);
    let ck = |ts: &TrainStep, step| Checkpoint {
        step,
        params: init(ts),
        state: ts.init_state(),
        data: None,
        loss_scale: None,
    };
    let mut messages = Vec::new();
    let mut say = |what: &str, e: Error| {
        let text = e.to_string().replace(dir.to_str().unwrap(), "<dir>");
        messages.push(format!("{what}:\n  {text}"));
    };

    // No directory yet: nothing to resume, not an error.
    assert!(
        Checkpointer::new(dir.join("none"))
            .load_latest(&ts)
            .unwrap()
            .is_none()
    );
    say(
        "a missing file",
        cp.load(&ts, &dir.join("step-00000009.safetensors"))
            .unwrap_err(),
    );
    let garbage = dir.join("garbage.safetensors");
    std::fs::write(&garbage, b"hello, world").unwrap();
    say("not safetensors", cp.load(&ts, &garbage).unwrap_err());

    let saved = cp.save(&ts, &ck(&ts, 1)).unwrap();
    let bytes = std::fs::read(&saved).unwrap();
    let cut = dir.join("cut.safetensors");
    std::fs::write(&cut, &bytes[..bytes.len() - 16]).unwrap();
    say("a truncated file", cp.load(&ts, &cut).unwrap_err());

    let plain = dir.join("plain.safetensors");
    let data = vec![0u8; 4 * D * 16];
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![D, 16], &data).unwrap();
    std::fs::write(
        &plain,
        safetensors::serialize([("param.0", view)], None).unwrap(),
    )
    .unwrap();
    say(
        "a safetensors file of someone else's",
        cp.load(&ts, &plain).unwrap_err(),
    );

    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let sgd = mlp_step(
        Strategy::ddp(),
        &mesh,
        16,
        Optimizer::Sgd {
            lr: 0.1,
            momentum: 0.9,
        },
    );
    say("another optimizer", cp.load(&sgd, &saved).unwrap_err());
    // ... whose parameters load alone, with the new optimizer's fresh state.
    let fresh = cp.load_params(&sgd, &saved).unwrap();
    assert_eq!(bits(&fresh.params), bits(&init(&ts)));
    assert_eq!(bits(&fresh.state), bits(&sgd.init_state()));
    assert_eq!(fresh.step, 1);
    let narrow = mlp_step(Strategy::ddp(), &mesh, 8, adamw());
    say("another model", cp.load(&narrow, &saved).unwrap_err());
    let named = Checkpointer::new(&dir).param_names(vec!["w_in".into(), "w_out".into()]);
    say(
        "other parameter names",
        named.load(&ts, &saved).unwrap_err(),
    );
    say(
        "a name per parameter",
        Checkpointer::new(&dir)
            .param_names(vec!["w".into()])
            .save(&ts, &ck(&ts, 2))
            .unwrap_err(),
    );
    let mut wrong = ck(&ts, 2);
    wrong.state.pop();
    say("state missing on save", cp.save(&ts, &wrong).unwrap_err());

    // A checkpoint of a three-matrix model, read as the two-matrix one: extra tensors.
    let deep = train_step(
        "mlp3",
        |p: &[Tensor], b: &[Tensor]| {
            let h = b[0].matmul(&p[0]).relu().matmul(&p[1]).matmul(&p[2]);
            let e = &h - &b[1];
            (&e * &e).mean(&[0, 1])
        },
        &[f32(&[D, 16]), f32(&[16, D]), f32(&[D, D])],
        &[f32(&[BATCH, D]), f32(&[BATCH, D])],
        &mesh,
        Strategy::ddp(),
        adamw(),
    )
    .unwrap();
    let deep_file = Checkpointer::new(dir.join("deep"))
        .save(&deep, &ck(&deep, 1))
        .unwrap();
    say("a larger model", cp.load(&ts, &deep_file).unwrap_err());
    insta::assert_snapshot!(messages.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every kind of damage to the newest checkpoint is refused naming the file (and the
/// tensor, where one is damaged), and resuming goes back to the previous checkpoint,
/// saying which it skipped: a flipped byte in a tensor, a NaN or zeros written over one,
/// two tensors' data swapped, garbage mesh metadata, a loss scale changed, a truncated file.
#[test]
fn damaged_checkpoints_are_refused_and_resuming_falls_back() {
    let (ts, _) = ddp4();
    let dir = scratch("damaged");
    let cp = Checkpointer::new(&dir);
    let ck = |step: usize| Checkpoint {
        step,
        params: init(&ts)
            .into_iter()
            .map(|p| scale(&p, step as f64))
            .collect(),
        state: ts.init_state(),
        data: None,
        loss_scale: (step == 2).then(|| "scale=1024 finite_in_a_row=0 skipped=1".to_string()),
    };
    cp.save(&ts, &ck(1)).unwrap();
    let newest = cp.save(&ts, &ck(2)).unwrap();
    let good = std::fs::read(&newest).unwrap();
    // Where param.0's data is in the file: after the 8-byte length and the header.
    let header = u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let (_, meta) = safetensors::SafeTensors::read_metadata(&good).unwrap();
    let range = |name: &str| {
        let (start, end) = meta.info(name).unwrap().data_offsets;
        (8 + header + start, 8 + header + end)
    };
    let (a0, a1) = range("param.0");
    let (b0, _) = range("param.1");
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut flip = good.clone();
    flip[a0 + 5] ^= 0x10;
    cases.push(("a flipped byte", flip));
    let mut nan = good.clone();
    nan[a0..a0 + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    cases.push(("a NaN written over an element", nan));
    let mut zeros = good.clone();
    zeros[a0..a1].fill(0);
    cases.push(("zeros written over a tensor", zeros));
    let mut swapped = good.clone();
    let n = 64.min(a1 - a0);
    let (x, y) = (good[a0..a0 + n].to_vec(), good[b0..b0 + n].to_vec());
    swapped[a0..a0 + n].copy_from_slice(&y);
    swapped[b0..b0 + n].copy_from_slice(&x);
    cases.push(("two tensors' data swapped", swapped));
    let text = String::from_utf8_lossy(&good[8..8 + header]).to_string();
    let garbage = text.replace("\"data=4\"", "\"data=x\"");
    assert_ne!(garbage, text, "the mesh is in the header");
    let mut bad_meta = good[..8].to_vec();
    bad_meta.extend_from_slice(garbage.as_bytes());
    bad_meta.extend_from_slice(&good[8 + header..]);
    cases.push(("garbage mesh metadata", bad_meta));
    let raised = text.replace("scale=1024 ", "scale=2048 ");
    assert_ne!(raised, text, "the loss scale is in the header");
    let mut bad_scale = good[..8].to_vec();
    bad_scale.extend_from_slice(raised.as_bytes());
    bad_scale.extend_from_slice(&good[8 + header..]);
    cases.push(("a loss scale changed after it was written", bad_scale));
    cases.push(("a truncated file", good[..good.len() / 2].to_vec()));
    let mut messages = Vec::new();
    for (what, bytes) in cases {
        std::fs::write(&newest, &bytes).unwrap();
        let e = cp.load(&ts, &newest).unwrap_err();
        assert!(matches!(e, Error::CheckpointDamaged { .. }), "{what}: {e}");
        messages.push(format!(
            "{what}:\n  {}",
            e.to_string().replace(dir.to_str().unwrap(), "<dir>")
        ));
        let r = cp.resume(&ts).unwrap();
        assert_eq!(r.checkpoint.unwrap().step, 1, "{what}");
        assert_eq!(r.skipped.len(), 1, "{what}");
        assert_eq!(r.skipped[0].0, newest, "{what}");
    }
    // A whole file loads again, bit for bit.
    std::fs::write(&newest, &good).unwrap();
    let back = cp.load(&ts, &newest).unwrap();
    assert_eq!(bits(&back.params), bits(&ck(2).params));
    assert_eq!(back.loss_scale, ck(2).loss_scale);
    insta::assert_snapshot!(messages.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn scale(x: &Literal, k: f64) -> Literal {
    let v: Vec<f64> = x.to_f64_vec().iter().map(|a| a * k).collect();
    Literal::from_f64(x.ty.dtype, &x.ty.shape, &v).unwrap()
}

/// A data set of 40 examples read through a `DistributedSampler` (one loader for the
/// global batch here: the cpu backend's single process feeds every device), the loader's
/// position saved with each checkpoint: a run stopped mid-epoch and resumed from its
/// checkpoint reads the same examples and ends with the same parameters, bit for bit, as
/// one that never stopped. The loader's text is checked against its checksum on load.
#[test]
fn a_run_resumed_mid_epoch_reads_the_same_examples_as_an_uninterrupted_one() {
    use shardc::runtime::backend::RunOptions;
    use shardc_train::sampler::DistributedSampler;
    use shardc_train::session::Session;
    let (ts, c) = ddp4();
    let examples: Vec<(Literal, Literal)> = (0..40)
        .map(|i| (det(&[1, D], 100 + i, 1.0), det(&[1, D], 200 + i, 0.5)))
        .collect();
    let gather = |idx: &[usize], k: usize| {
        let v: Vec<f64> = idx
            .iter()
            .flat_map(|&i| {
                let e = if k == 0 {
                    &examples[i].0
                } else {
                    &examples[i].1
                };
                e.to_f64_vec()
            })
            .collect();
        Literal::from_f64(DType::F32, &[idx.len(), D], &v).unwrap()
    };
    let sampler = || DistributedSampler::new(40, 1, 0).unwrap().shuffle(Some(11));
    // Steps 1..=steps (or until `stop_after`), each reading the next batch; a new epoch
    // when one runs out. Returns the indices read and the final parameters.
    let run = |dir: &PathBuf, steps: usize, stop_after: Option<usize>| {
        let program = CpuProgram::new(&c, &Interpreted).unwrap();
        let mut s =
            Session::resume(&ts, &c, &program, Checkpointer::new(dir), 3, || init(&ts)).unwrap();
        let mut loader = sampler();
        if let Some(state) = s.data() {
            loader.restore(state).unwrap();
        }
        let mut read = Vec::new();
        while s.steps_done() < steps.min(stop_after.unwrap_or(steps)) {
            let idx = loader.next_batch(BATCH).unwrap_or_else(|| {
                loader.set_epoch(loader.epoch() + 1);
                loader.next_batch(BATCH).unwrap()
            });
            read.push(idx.clone());
            s.set_data(loader.state());
            s.step(&[gather(&idx, 0), gather(&idx, 1)], &RunOptions::default())
                .unwrap();
        }
        (read, s.checkpoint().unwrap())
    };
    let (whole_dir, cut_dir) = (scratch("sampler-whole"), scratch("sampler-cut"));
    // 12 steps of 8 over 40 examples: 2 epochs and a half.
    let (all_read, whole) = run(&whole_dir, 12, None);
    let (first, _) = run(&cut_dir, 12, Some(7));
    // Stopped after step 7 (mid-epoch 1); the newest checkpoint is step 6's.
    let (rest, resumed) = run(&cut_dir, 12, None);
    assert_eq!(first.len(), 7);
    assert_eq!(rest.len(), 6, "resumed at step 6");
    assert_eq!(
        &all_read[6..],
        &rest[..],
        "the resumed run reads what the whole one did"
    );
    assert_eq!(bits(&resumed.params), bits(&whole.params));
    assert_eq!(bits(&resumed.state), bits(&whole.state));
    // Each epoch read every example once.
    for epoch in all_read[..10].chunks(5) {
        let mut seen: Vec<usize> = epoch.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..40).collect::<Vec<_>>());
    }
    assert_ne!(all_read[0], all_read[5], "a new order each epoch");
    // The loader's text is checksummed.
    let cp = Checkpointer::new(&cut_dir);
    let newest = cp.list().unwrap().last().unwrap().1.clone();
    let good = std::fs::read(&newest).unwrap();
    let saved = resumed.data.clone().unwrap();
    let start = good
        .windows(saved.len())
        .position(|w| w == saved.as_bytes())
        .expect("the loader's state is in the header");
    // One digit of the position changed, the header's length kept.
    let at = start + saved.find("position=").unwrap() + "position=".len();
    let mut tampered = good.clone();
    tampered[at] = if tampered[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&newest, &tampered).unwrap();
    let e = cp.load(&ts, &newest).unwrap_err();
    assert!(e.to_string().contains("data loader"), "{e}");
    std::fs::remove_dir_all(&whole_dir).unwrap();
    std::fs::remove_dir_all(&cut_dir).unwrap();
}
