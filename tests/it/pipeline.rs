//! Pipeline parallelism (`docs/pipeline.md`): the rotate op a pipeline shifts its stages
//! with (`shardc.rotate`: values, text, partitioning into collective permutes); the
//! schedules' tick tables; GPipe and 1F1B training steps against the single-device
//! reference and a plain sequential model (simulated mesh, cpu backend, the JIT); their
//! collectives; the activations 1F1B keeps next to GPipe's; the errors.

use shardc::ir::text::{parse_module, print_module};
use shardc::ir::{DType, Literal, Mesh, OpKind, TensorType};
use shardc::{Options, P, PartitionSpec, Tensor, jit};

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

fn iota(shape: &[usize]) -> Literal {
    let n: usize = shape.iter().product();
    Literal::from_f64(
        DType::F32,
        shape,
        &(0..n).map(|i| i as f64).collect::<Vec<_>>(),
    )
    .unwrap()
}

fn mesh(axes: &[(&str, usize)]) -> Mesh {
    Mesh::new("mesh", axes).unwrap()
}

/// The per-device ops of the partitioned program, by name.
fn per_device_ops(c: &shardc::Compiled) -> Vec<String> {
    c.partitioned
        .module
        .entry()
        .unwrap()
        .ops
        .iter()
        .filter(|o| o.kind.is_per_device())
        .map(|o| o.kind.name())
        .collect()
}

mod rotate {
    use super::*;

    #[test]
    fn rolls_like_numpy() {
        // [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]: rows move down by one, the last
        // to the front; columns left by one (shift -1 = 2 of 3).
        let f = jit(|x: Tensor| (x.roll(1, 0), x.roll(-1, 1), x.roll(9, 0)))
            .lower(&[f32(&[4, 3])])
            .unwrap();
        let out = f.run_reference(&[iota(&[4, 3])]).unwrap();
        assert_eq!(
            out[0].to_f64_vec(),
            [9., 10., 11., 0., 1., 2., 3., 4., 5., 6., 7., 8.]
        );
        assert_eq!(
            out[1].to_f64_vec(),
            [1., 2., 0., 4., 5., 3., 7., 8., 6., 10., 11., 9.]
        );
        // 9 = 1 (mod 4).
        assert_eq!(out[2].to_f64_vec(), out[0].to_f64_vec());
    }

    #[test]
    fn text_round_trips_in_both_forms() {
        let text = r#"module @m {
  func.func public @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = shardc.rotate %x, dim = 0, shift = -1 : tensor<4x3xf32>
    %1 = "shardc.rotate"(%0) <{dimension = 1 : i64, shift = 2 : i64}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    return %1 : tensor<4x3xf32>
  }
}
"#;
        let m = parse_module(text).unwrap();
        let printed = print_module(&m);
        assert!(
            printed.contains("shardc.rotate %arg0, dim = 0, shift = -1 : tensor<4x3xf32>"),
            "{printed}"
        );
        assert!(
            printed.contains("shardc.rotate %0, dim = 1, shift = 2 : tensor<4x3xf32>"),
            "{printed}"
        );
        assert_eq!(parse_module(&printed).unwrap(), m);
        let generic = shardc::ir::text::print_module_generic(&m);
        assert!(
            generic.contains(r#""shardc.rotate"(%arg0) <{dimension = 0 : i64, shift = -1 : i64}>"#),
            "{generic}"
        );
        assert_eq!(parse_module(&generic).unwrap(), m);
        // The rule says the op breaks when the dimension is out of range.
        let bad = text.replace("dim = 0", "dim = 2");
        let err = parse_module(&bad).unwrap_err().to_string();
        assert!(
            err.contains("rotates dimension 2, which is out of range for rank 2"),
            "{err}"
        );
    }

    /// `roll(x, shift) * 2` with `x` split over `pipe` along the rolled dimension: a shift
    /// by whole blocks is one collective permute of each device's block; any other shift
    /// gathers the dimension first. Both equal the reference, on every mesh shape.
    fn roll_on(mesh: &Mesh, spec: PartitionSpec, shape: &[usize], shift: i64) -> shardc::Compiled {
        let f = jit(move |x: Tensor| &x.roll(shift, 0) * 2.0)
            .mesh(mesh)
            .in_shardings([spec.clone()])
            .out_shardings([spec])
            .lower(&[f32(shape)])
            .unwrap();
        let c = f.compile(&Options::default()).unwrap();
        let x = iota(shape);
        let want = f.run_reference(std::slice::from_ref(&x)).unwrap();
        let got = shardc::run_simulated(&c, std::slice::from_ref(&x), 0.0).unwrap();
        assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec(), "shift {shift}");
        let cpu = shardc::run_cpu(
            &c,
            std::slice::from_ref(&x),
            &shardc::runtime::engine::Interpreted,
            0.0,
        )
        .unwrap();
        assert_eq!(cpu.outputs[0].to_f64_vec(), want[0].to_f64_vec());
        c
    }

    #[test]
    fn whole_blocks_move_by_collective_permute() {
        let m = mesh(&[("pipe", 4)]);
        // 8 rows over 4 devices: blocks of 2 rows of 3 f32 = 24 B.
        for shift in [2, 4, -2, 6, 10] {
            let c = roll_on(&m, P!["pipe"], &[8, 3], shift);
            assert_eq!(
                crate::util::collectives(&c),
                [("collective_permute".to_string(), "pipe".to_string(), 24)],
                "shift {shift}"
            );
            assert_eq!(per_device_ops(&c), ["stablehlo.collective_permute"]);
        }
        // The pairs: device j sends to j + shift / block.
        let c = roll_on(&m, P!["pipe"], &[8, 3], 2);
        let f = c.partitioned.module.entry().unwrap();
        let pairs = f.ops.iter().find_map(|o| match &o.kind {
            OpKind::CollectivePermute { pairs } => Some(pairs.clone()),
            _ => None,
        });
        assert_eq!(pairs.unwrap(), [(0, 1), (1, 2), (2, 3), (3, 0)]);
        // A shift of 8 rows moves nothing.
        let c = roll_on(&m, P!["pipe"], &[8, 3], 8);
        assert!(crate::util::collectives(&c).is_empty());
    }

    #[test]
    fn shifts_inside_a_block_gather_first() {
        let m = mesh(&[("pipe", 4)]);
        for shift in [1, -1, 3] {
            let c = roll_on(&m, P!["pipe"], &[8, 3], shift);
            let kinds: Vec<String> = crate::util::collectives(&c)
                .into_iter()
                .map(|c| c.0)
                .collect();
            assert!(
                kinds.contains(&"all_gather".to_string())
                    && !kinds.contains(&"collective_permute".to_string()),
                "shift {shift}: {kinds:?}"
            );
        }
    }

    #[test]
    fn with_data_parallelism_each_data_group_rotates_alone() {
        let m = mesh(&[("data", 2), ("pipe", 4)]);
        let c = roll_on(&m, P!["pipe", "data"], &[4, 6], 1);
        // One row of 3 f32 per device.
        assert_eq!(
            crate::util::collectives(&c),
            [("collective_permute".to_string(), "pipe".to_string(), 12)]
        );
        let f = c.partitioned.module.entry().unwrap();
        let pairs = f.ops.iter().find_map(|o| match &o.kind {
            OpKind::CollectivePermute { pairs } => Some(pairs.clone()),
            _ => None,
        });
        // Devices are row-major over (data, pipe): the data groups are 0..4 and 4..8.
        assert_eq!(
            pairs.unwrap(),
            [
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 4)
            ]
        );
        // Split over both axes along the rolled dimension (8 blocks of 1 row): a shift of
        // 2 rows moves each block two devices along (pipe, data) order.
        let c = roll_on(&m, P![("pipe", "data")], &[8, 3], 2);
        assert_eq!(
            crate::util::collectives(&c),
            [(
                "collective_permute".to_string(),
                "pipe,data".to_string(),
                12
            )]
        );
    }

    #[test]
    fn the_gradient_rolls_back_by_collective_permute() {
        let m = mesh(&[("pipe", 4)]);
        let f = jit(|x: Tensor, w: Tensor| {
            let y = &x.roll(1, 0) * &w;
            (&y * &y).sum(&[0, 1])
        })
        .mesh(&m)
        .in_shardings([P!["pipe"], P!["pipe"]])
        .lower(&[f32(&[4, 3]), f32(&[4, 3])])
        .unwrap();
        let g = f.grad(&[0]).unwrap();
        let c = g.compile(&Options::default()).unwrap();
        let kinds: Vec<(String, String, u64)> = crate::util::collectives(&c);
        // Forward: x's rows to the next device; backward: the cotangent back (a rotation
        // by -1 = 3 blocks); the loss is not a result of `grad`.
        assert_eq!(
            kinds,
            [
                ("collective_permute".to_string(), "pipe".to_string(), 12),
                ("collective_permute".to_string(), "pipe".to_string(), 12),
            ]
        );
        let args = [iota(&[4, 3]), iota(&[4, 3])];
        let want = g.run_reference(&args).unwrap();
        let got = shardc::run_simulated(&c, &args, 1e-6).unwrap();
        assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec());
    }
}

mod schedules {
    use shardc_train::pipelining::{Schedule, schedule_table};
    use std::collections::HashMap;

    /// Every table: each stage runs each microbatch's forward once and its backward once,
    /// later; a microbatch reaches stage `k + 1` at the tick after stage `k` (forward) and
    /// its cotangent reaches stage `k` at the tick after stage `k + 1` (backward), which
    /// is what the one roll per tick carries.
    #[test]
    fn tables_are_consistent() {
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            for stages in 1..=5 {
                for micro in 1..=9 {
                    let ticks = schedule.ticks(stages, micro);
                    let mut fwd = HashMap::new();
                    let mut bwd = HashMap::new();
                    for (t, tick) in ticks.iter().enumerate() {
                        for k in 0..stages {
                            if let Some(m) = tick.forward[k] {
                                assert!(fwd.insert((k, m), t).is_none());
                            }
                            if let Some(m) = tick.backward[k] {
                                assert!(bwd.insert((k, m), t).is_none());
                            }
                        }
                    }
                    let what = format!("{} S={stages} M={micro}", schedule.name());
                    assert_eq!(fwd.len(), stages * micro, "{what}");
                    assert_eq!(bwd.len(), stages * micro, "{what}");
                    for k in 0..stages {
                        for m in 0..micro {
                            assert!(fwd[&(k, m)] <= bwd[&(k, m)], "{what}");
                            if k + 1 < stages {
                                assert_eq!(fwd[&(k + 1, m)], fwd[&(k, m)] + 1, "{what}");
                                assert_eq!(bwd[&(k, m)], bwd[&(k + 1, m)] + 1, "{what}");
                            }
                        }
                    }
                    // Both schedules have GPipe's bubble, (S - 1) / (M + S - 1).
                    let bubble = (stages - 1) as f64 / (micro + stages - 1) as f64;
                    assert!(
                        (schedule.bubble_fraction(stages, micro) - bubble).abs() < 1e-12,
                        "{what}"
                    );
                    // Kept activation slots: GPipe (M + S - 1) inputs and M loss
                    // gradients; 1F1B 2S - 1 inputs and one gradient once M >= S.
                    let kept = schedule.kept_slots(stages, micro);
                    match schedule {
                        Schedule::Gpipe => assert_eq!(kept, 2 * micro + stages - 1, "{what}"),
                        Schedule::OneFOneB if micro >= stages => {
                            assert_eq!(kept, 2 * stages, "{what}")
                        }
                        Schedule::OneFOneB => {
                            assert!(kept <= Schedule::Gpipe.kept_slots(stages, micro), "{what}")
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tables_for_four_stages_and_eight_microbatches() {
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            insta::assert_snapshot!(
                format!("table_{}", schedule.name()),
                schedule_table(schedule, 4, 8)
            );
        }
    }
}

mod training {
    use super::*;
    pub use crate::util::det;
    use crate::util::worst;
    use shardc_train::pipelining::{PIPE, Schedule, Stages, sequential_loss, train_step};
    use shardc_train::step::{Optimizer, TrainStep};
    use shardc_train::strategy::Strategy;

    pub const S: usize = 4;
    pub const M: usize = 8;
    pub const BATCH: usize = 32;
    pub const D: usize = 8;
    pub const H: usize = 16;

    /// One residual MLP block with biases per stage, batched over the leading stage
    /// dimension: `x: [S, mb, D]`, `w1: [S, D, H]`, `b1: [S, H]`, `w2: [S, H, D]`.
    pub fn stage(w: &[Tensor], x: &Tensor) -> Tensor {
        let (s, mb) = (x.shape()[0], x.shape()[1]);
        let b1 = w[1].broadcast_in_dim(&[s, mb, H], &[0, 2]);
        x + &(&x.matmul(&w[0]) + &b1).gelu().matmul(&w[2])
    }

    /// Each stage's mean squared error on its microbatch: `[S]`.
    pub fn loss(out: &Tensor, target: &Tensor) -> Tensor {
        let e = out - target;
        (&e * &e).mean(&[1, 2])
    }

    pub type Model = Stages<fn(&[Tensor], &Tensor) -> Tensor, fn(&Tensor, &Tensor) -> Tensor>;

    pub fn model() -> Model {
        Stages {
            stage: stage as fn(&[Tensor], &Tensor) -> Tensor,
            loss: loss as fn(&Tensor, &Tensor) -> Tensor,
        }
    }

    pub fn param_types() -> Vec<TensorType> {
        vec![f32(&[S, D, H]), f32(&[S, H]), f32(&[S, H, D])]
    }

    pub fn batch_types() -> Vec<TensorType> {
        vec![f32(&[BATCH, D]), f32(&[BATCH, D])]
    }

    pub fn params() -> Vec<Literal> {
        param_types()
            .iter()
            .enumerate()
            .map(|(k, t)| det(&t.shape, k, 0.3))
            .collect()
    }

    pub fn batch(step: usize) -> Vec<Literal> {
        vec![
            det(&[BATCH, D], 10 + step, 1.0),
            det(&[BATCH, D], 20 + step, 0.5),
        ]
    }

    pub const SGD: Optimizer = Optimizer::Sgd {
        lr: 0.05,
        momentum: 0.9,
    };

    pub fn step(schedule: Schedule, m: &Mesh) -> TrainStep {
        train_step(
            "mlp",
            model(),
            &param_types(),
            &batch_types(),
            m,
            schedule,
            M,
            SGD,
        )
        .unwrap()
    }

    /// The same model without a pipeline, on one device: the stages one after the other on
    /// the whole batch.
    fn sequential() -> TrainStep {
        shardc_train::step::train_step(
            "mlp_sequential",
            sequential_loss(model(), S),
            &param_types(),
            &batch_types(),
            &mesh(&[("data", 1)]),
            Strategy::ddp(),
            SGD,
        )
        .unwrap()
    }

    /// Tolerance of every comparison below, relative (`worst`): f32 sums in different
    /// orders over five steps.
    const TOL: f64 = 1e-5;

    /// 5 steps, each from the previous step's results of the same run: the pipelined step
    /// on the simulated mesh and on the cpu backend against the pipelined program on one
    /// device (the reference interpreter), and that against the model trained without a
    /// pipeline on the same batches. Every result (loss, parameters, optimizer state)
    /// agrees within `TOL` at every step. Gives the losses.
    pub fn train_five_steps(ts: &TrainStep, c: &shardc::Compiled) -> Vec<f64> {
        let plain = sequential();
        let cpu = shardc::CpuProgram::new(c, &shardc::runtime::engine::Interpreted).unwrap();
        let (mut p_ref, mut s_ref) = (params(), ts.init_state());
        let (mut p_sim, mut s_sim) = (params(), ts.init_state());
        let (mut p_cpu, mut s_cpu) = (params(), ts.init_state());
        let (mut p_seq, mut s_seq) = (params(), plain.init_state());
        let mut losses = Vec::new();
        let name = ts.strategy.name();
        for t in 1..=5 {
            let b = batch(t);
            let want = ts
                .program
                .run_reference(&ts.args(&p_ref, &s_ref, t, &b))
                .unwrap();
            let got = shardc::run_simulated(c, &ts.args(&p_sim, &s_sim, t, &b), TOL).unwrap();
            let on_cpu = cpu
                .run(c, &ts.args(&p_cpu, &s_cpu, t, &b), TOL)
                .unwrap()
                .outputs;
            let seq = plain
                .program
                .run_reference(&plain.args(&p_seq, &s_seq, t, &b))
                .unwrap();
            let off = worst(&got, &want);
            assert!(off <= TOL, "{name} step {t}: simulated mesh off by {off:e}");
            let off = worst(&on_cpu, &want);
            assert!(off <= TOL, "{name} step {t}: cpu backend off by {off:e}");
            let off = worst(&want, &seq);
            assert!(
                off <= TOL,
                "{name} step {t}: pipelined vs sequential off by {off:e}"
            );
            let (loss, p, s) = ts.split(want);
            losses.push(loss);
            (p_ref, s_ref) = (p, s);
            (_, p_sim, s_sim) = ts.split(got);
            (_, p_cpu, s_cpu) = ts.split(on_cpu);
            (_, p_seq, s_seq) = plain.split(seq);
        }
        losses
    }

    fn trains(schedule: Schedule, m: &Mesh) {
        let ts = step(schedule, m);
        let c = ts.program.compile(&ts.options()).unwrap();
        let losses = train_five_steps(&ts, &c);
        assert!(losses[4] < losses[0] * 0.9, "{losses:?}");
    }

    /// One step of each schedule on `data=2 x pipe=4` with every device's compute
    /// segments compiled by the MLIR CPU JIT (`docs/kernels.md`), against the reference
    /// within the kernels' tolerance (`1e-4` relative: fused multiply-adds, polynomial
    /// GELU), each segment cut into fusion clusters and each distinct cluster compiled
    /// once for all devices.
    #[test]
    fn a_step_of_each_schedule_runs_on_the_jit() {
        use shardc::compiler::lower::cpu;
        let m = mesh(&[("data", 2), (PIPE, S)]);
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            let ts = step(schedule, &m);
            let c = ts.program.compile(&ts.options()).unwrap();
            let args = ts.args(&params(), &ts.init_state(), 1, &batch(1));
            let want = ts.program.run_reference(&args).unwrap();
            let engine = cpu::NativeCompute::new(cpu::CpuOptions::default());
            let got = shardc::run_simulated_with(&engine, &c, &args, 1e-4).unwrap();
            let off = worst(&got, &want);
            assert!(
                off <= 1e-4,
                "{}: the JIT is off by {off:e}",
                schedule.name()
            );
            let f = c.partitioned.module.entry().unwrap();
            let segments = shardc::runtime::engine::steps(f)
                .iter()
                .filter(|s| matches!(s, shardc::runtime::engine::Step::Compute(_)))
                .count();
            let stats = engine.stats();
            assert_eq!(stats.segments, segments, "{stats:?}");
            assert_eq!(
                stats.compiled + stats.reused + stats.library,
                stats.kernels,
                "{stats:?}"
            );
        }
    }

    /// Fewer microbatches than stages, one microbatch, one stage: for both schedules one
    /// step on the simulated mesh agrees with the model trained without a pipeline.
    #[test]
    fn small_pipes_and_few_microbatches() {
        for (stages, micro) in [(1, 1), (1, 3), (2, 1), (4, 1), (4, 2), (4, 3), (3, 6)] {
            let types = vec![
                f32(&[stages, D, H]),
                f32(&[stages, H]),
                f32(&[stages, H, D]),
            ];
            let rows = 4 * micro;
            let bt = [f32(&[rows, D]), f32(&[rows, D])];
            let p: Vec<Literal> = types
                .iter()
                .enumerate()
                .map(|(k, t)| det(&t.shape, k, 0.3))
                .collect();
            let b = vec![det(&[rows, D], 3, 1.0), det(&[rows, D], 4, 0.5)];
            let plain = shardc_train::step::train_step(
                "mlp_sequential",
                sequential_loss(model(), stages),
                &types,
                &bt,
                &mesh(&[("data", 1)]),
                Strategy::ddp(),
                SGD,
            )
            .unwrap();
            let want = plain
                .program
                .run_reference(&plain.args(&p, &plain.init_state(), 1, &b))
                .unwrap();
            for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
                let ts = train_step(
                    "mlp",
                    model(),
                    &types,
                    &bt,
                    &mesh(&[(PIPE, stages)]),
                    schedule,
                    micro,
                    SGD,
                )
                .unwrap();
                let c = ts.program.compile(&ts.options()).unwrap();
                let got =
                    shardc::run_simulated(&c, &ts.args(&p, &ts.init_state(), 1, &b), TOL).unwrap();
                let off = worst(&got, &want);
                assert!(
                    off <= TOL,
                    "{} with S = {stages}, M = {micro}: off by {off:e}",
                    schedule.name()
                );
            }
        }
    }

    #[test]
    fn gpipe_trains_like_the_sequential_model() {
        trains(Schedule::Gpipe, &mesh(&[(PIPE, S)]));
    }

    #[test]
    fn one_f_one_b_trains_like_the_sequential_model() {
        trains(Schedule::OneFOneB, &mesh(&[(PIPE, S)]));
    }

    #[test]
    fn gpipe_times_data_parallelism_trains_like_the_sequential_model() {
        trains(Schedule::Gpipe, &mesh(&[("data", 2), (PIPE, S)]));
    }

    #[test]
    fn one_f_one_b_times_data_parallelism_trains_like_the_sequential_model() {
        trains(Schedule::OneFOneB, &mesh(&[("data", 2), (PIPE, S)]));
    }
}

mod collectives {
    use super::training::*;
    use super::*;
    use shardc_train::pipelining::{PIPE, Schedule};

    /// Ring all-reduce volume over `n` devices of `bytes`: `2 (n - 1) / n * bytes`.
    fn all_reduce(n: u64, bytes: u64) -> u64 {
        2 * (n - 1) * bytes / n
    }

    /// The step's collectives, in program order, with the formulas each must meet:
    /// - a `collective_permute {pipe}` per forward tick but the last (`M + S - 2`, each
    ///   stage's output to the next) and per backward tick but the last (`M + S - 2`, each
    ///   stage's input cotangent to the one before), each of one microbatch's activations
    ///   on one device: `BATCH / M / data * D * 4` bytes;
    /// - the loss, a scalar, all-reduced over `pipe` (and over `data`);
    /// - with `data`, every parameter's gradient all-reduced over `data`, one stage's
    ///   slice per device.
    fn check(schedule: Schedule, data: usize) {
        let m = if data > 1 {
            mesh(&[("data", data), (PIPE, S)])
        } else {
            mesh(&[(PIPE, S)])
        };
        let ts = step(schedule, &m);
        let c = ts.program.compile(&ts.options()).unwrap();
        let got = crate::util::collectives(&c);
        let per_tick = (BATCH / M / data * D * 4) as u64;
        let permutes: Vec<_> = got
            .iter()
            .filter(|(k, _, _)| k == "collective_permute")
            .collect();
        assert_eq!(permutes.len(), 2 * (M + S - 2), "{got:?}");
        for (_, axes, bytes) in &permutes {
            assert_eq!((axes.as_str(), *bytes), (PIPE, per_tick), "{got:?}");
        }
        let mut rest: Vec<(String, String, u64)> = got
            .iter()
            .filter(|(k, _, _)| k != "collective_permute")
            .cloned()
            .collect();
        rest.sort();
        let mut want = vec![(
            "all_reduce".to_string(),
            PIPE.to_string(),
            all_reduce(S as u64, 4),
        )];
        if data > 1 {
            let d = data as u64;
            want.push(("all_reduce".into(), "data".into(), all_reduce(d, 4)));
            for t in param_types() {
                let local = (t.shape.iter().product::<usize>() / S * 4) as u64;
                want.push(("all_reduce".into(), "data".into(), all_reduce(d, local)));
            }
        }
        want.sort();
        assert_eq!(rest, want);
        let e = c.explain();
        // One stage's parameters per device: the stacked parameters split `S` ways.
        let mem = ts.memory_per_device().unwrap();
        let stacked: usize = param_types().iter().map(|t| t.size_bytes()).sum();
        assert_eq!(mem.params, stacked / S);
        let mut text = format!(
            "{} on {}: {S} stages, {M} microbatches of {} rows ({} per device)\n\
             per device: params {} B, grads {} B, optimizer state {} B\n\
             collective_permute {{pipe}}: {} of {per_tick} B (forward and backward)\n",
            ts.strategy.name(),
            ts.mesh,
            BATCH / M,
            BATCH / M / data,
            mem.params,
            mem.grads,
            mem.optimizer,
            permutes.len()
        );
        // Program order, runs of permutes folded: where the loss and gradient reductions
        // fall between the ticks.
        let mut run = 0;
        for (k, a, b) in got.iter().chain([&("end".to_string(), String::new(), 0)]) {
            if k == "collective_permute" {
                run += 1;
                continue;
            }
            if run > 0 {
                text.push_str(&format!(
                    "  {run} x collective_permute {{pipe}} {per_tick} B\n"
                ));
                run = 0;
            }
            if k != "end" {
                text.push_str(&format!("  {k} {{{a}}} {b} B\n"));
            }
        }
        text.push_str(&format!("total {} B/device\n", e.bytes_per_device));
        insta::assert_snapshot!(format!("collectives_{}_data{data}", schedule.name()), text);
    }

    #[test]
    fn gpipe_on_pipe() {
        check(Schedule::Gpipe, 1);
    }

    #[test]
    fn one_f_one_b_on_pipe() {
        check(Schedule::OneFOneB, 1);
    }

    #[test]
    fn gpipe_on_data_times_pipe() {
        check(Schedule::Gpipe, 2);
    }

    #[test]
    fn one_f_one_b_on_data_times_pipe() {
        check(Schedule::OneFOneB, 2);
    }
}

mod memory {
    use super::training::*;
    use super::*;
    use shardc::compiler::passes::memory::{peak_bytes, peak_computed_bytes};
    use shardc_train::pipelining::{PIPE, Schedule, train_step};

    /// (computed, with arguments) peak bytes per device of the step with `micro`
    /// microbatches of `BATCH / M` rows.
    fn peaks(schedule: Schedule, micro: usize) -> (u64, u64) {
        let rows = BATCH / M * micro;
        let ts = train_step(
            "mlp",
            model(),
            &param_types(),
            &[f32(&[rows, D]), f32(&[rows, D])],
            &mesh(&[(PIPE, S)]),
            schedule,
            micro,
            SGD,
        )
        .unwrap();
        let c = ts.program.compile(&ts.options()).unwrap();
        let f = c.partitioned.module.entry().unwrap();
        (peak_computed_bytes(f), peak_bytes(f))
    }

    /// What a device allocates running the step on top of its arguments (parameters,
    /// optimizer state, batch): `peak_computed_bytes` of the per-device program, walked in
    /// program order (`compiler/src/passes/memory.rs`). For the same `S` and `M`, 1F1B's is lower
    /// than GPipe's; and as `M` doubles from 8 to 16 (microbatches of the same size),
    /// GPipe's grows by the activation slots it keeps for the extra microbatches (`2M + S
    /// - 1` slots in all, `kept_slots`: a stage input per forward tick and a loss gradient
    /// per microbatch, one microbatch's activations each, `BATCH / M * D * 4` bytes per
    /// device) while 1F1B's (`2S` slots) does not grow at all.
    ///
    /// The peak with the arguments (`explain`'s) is printed, not compared: the whole
    /// batch is an argument on every device, and 1F1B holds it longer (its last
    /// microbatch enters after the backwards began), which at this size outweighs the
    /// saving.
    #[test]
    fn one_f_one_b_keeps_fewer_activations_than_gpipe() {
        let slot = (BATCH / M * D * 4) as u64;
        let (g8, g8_all) = peaks(Schedule::Gpipe, 8);
        let (o8, o8_all) = peaks(Schedule::OneFOneB, 8);
        let (g16, _) = peaks(Schedule::Gpipe, 16);
        let (o16, _) = peaks(Schedule::OneFOneB, 16);
        eprintln!(
            "computed bytes per device, M = 8: gpipe {g8}, 1f1b {o8}; M = 16: gpipe {g16}, 1f1b {o16} (slots of {slot} B); with the arguments, M = 8: gpipe {g8_all}, 1f1b {o8_all}"
        );
        assert!(o8 < g8, "M = 8: 1f1b {o8} B, gpipe {g8} B");
        assert!(o16 < g16, "M = 16: 1f1b {o16} B, gpipe {g16} B");
        let slots = |s: Schedule, m| s.kept_slots(S, m) as u64;
        assert_eq!(
            g16 - g8,
            (slots(Schedule::Gpipe, 16) - slots(Schedule::Gpipe, 8)) * slot
        );
        assert_eq!(slots(Schedule::OneFOneB, 16), slots(Schedule::OneFOneB, 8));
        assert_eq!(o16, o8);
    }
}

mod errors {
    use super::training::*;
    use super::*;
    use shardc_train::pipelining::{PIPE, Schedule, Stages, train_step};

    fn message(
        model: Model,
        params: &[TensorType],
        batch: &[TensorType],
        m: &Mesh,
        micro: usize,
    ) -> String {
        match train_step(
            "mlp",
            model,
            params,
            batch,
            m,
            Schedule::OneFOneB,
            micro,
            SGD,
        ) {
            Ok(_) => panic!("the step was built"),
            Err(e) => e.to_string(),
        }
    }

    /// A stage that widens its activations to `H`.
    fn widening(w: &[Tensor], x: &Tensor) -> Tensor {
        x.matmul(&w[0])
    }

    /// A loss that is already the mean over the stages, `[]` instead of `[S]`.
    fn scalar_loss(out: &Tensor, target: &Tensor) -> Tensor {
        let e = out - target;
        (&e * &e).mean(&[0, 1, 2])
    }

    /// Every bad input, one line each: the message names the tensor, dimension or axis,
    /// the rule and the fix.
    #[test]
    fn bad_inputs_are_named_with_the_fix() {
        let pipe = mesh(&[(PIPE, S)]);
        let bt = batch_types();
        let cases: Vec<(&str, String)> = vec![
            (
                "mesh without pipe",
                message(model(), &param_types(), &bt, &mesh(&[("data", 4)]), M),
            ),
            (
                "stages not the size of pipe",
                message(
                    model(),
                    &[f32(&[3, D, H]), f32(&[3, H]), f32(&[3, H, D])],
                    &bt,
                    &pipe,
                    M,
                ),
            ),
            (
                "scalar parameter",
                message(model(), &[f32(&[])], &bt, &pipe, M),
            ),
            (
                "microbatches do not divide the batch",
                message(model(), &param_types(), &bt, &pipe, 5),
            ),
            (
                "no microbatches",
                message(model(), &param_types(), &bt, &pipe, 0),
            ),
            (
                "microbatch not split by data",
                message(
                    model(),
                    &param_types(),
                    &bt,
                    &mesh(&[("data", 8), (PIPE, S)]),
                    M,
                ),
            ),
            (
                "targets of another batch size",
                message(
                    model(),
                    &param_types(),
                    &[f32(&[BATCH, D]), f32(&[BATCH / 2, D])],
                    &pipe,
                    M,
                ),
            ),
            (
                "one batch tensor",
                message(model(), &param_types(), &bt[..1], &pipe, M),
            ),
            (
                "stage changes the activations",
                message(
                    Stages {
                        stage: widening as fn(&[Tensor], &Tensor) -> Tensor,
                        loss,
                    },
                    &param_types(),
                    &bt,
                    &pipe,
                    M,
                ),
            ),
            (
                "loss not per stage",
                message(
                    Stages {
                        stage,
                        loss: scalar_loss as fn(&Tensor, &Tensor) -> Tensor,
                    },
                    &param_types(),
                    &bt,
                    &pipe,
                    M,
                ),
            ),
        ];
        let text: String = cases
            .iter()
            .map(|(case, msg)| format!("{case}:\n  {msg}\n"))
            .collect();
        insta::assert_snapshot!(text);
    }
}

/// 3-D parallelism: `data=2 x pipe=2 x model=2` (8 devices), each stage's MLP split
/// Megatron-style over `model` inside the pipeline (`pipeline::train_step_with_specs`).
mod three_d {
    use super::training::{SGD, model};
    use super::*;
    use crate::util::{assert_close, det};
    use shardc_train::pipelining::{Schedule, sequential_loss, train_step_with_specs};
    use shardc_train::step::TrainStep;
    use shardc_train::strategy::Strategy;

    const S: usize = 2;
    const M: usize = 4;
    const BATCH: usize = 16;
    const D: usize = super::training::D;
    const H: usize = super::training::H;

    fn param_types() -> Vec<TensorType> {
        vec![f32(&[S, D, H]), f32(&[S, H]), f32(&[S, H, D])]
    }

    fn batch_types() -> Vec<TensorType> {
        vec![f32(&[BATCH, D]), f32(&[BATCH, D])]
    }

    fn step(schedule: Schedule) -> TrainStep {
        let m = mesh(&[("data", 2), ("pipe", S), ("model", 2)]);
        train_step_with_specs(
            "mlp3d",
            model(),
            &param_types(),
            // Column-parallel first matmul and bias, row-parallel second.
            &[P![None, "model"], P!["model"], P!["model", None]],
            &batch_types(),
            &m,
            schedule,
            M,
            SGD,
        )
        .unwrap()
    }

    /// Per step: `2(M+S-2)` collective permutes over `pipe` (forward and backward, one
    /// microbatch's activations each); an all-reduce over `model` after each forward tick's
    /// row-parallel matmul (`M+S-1`) and each backward tick's input gradient but the last
    /// (whose gradient, the first stage's input's, is not needed: `M+S-2`), one
    /// microbatch's activations each; each stage's gradients all-reduced over `data`; the
    /// loss over `pipe` and `data`.
    #[test]
    fn each_dimension_moves_what_it_should() {
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            let ts = step(schedule);
            let c = ts.program.compile(&ts.options()).unwrap();
            let got = crate::util::collectives(&c);
            let count = |kind: &str, axes: &str, bytes: u64| {
                got.iter()
                    .filter(|(k, a, b)| k == kind && a == axes && *b == bytes)
                    .count()
            };
            // One microbatch's activations on one device: [mb / data, D] f32.
            let act = (BATCH / M / 2 * D * 4) as u64;
            let ar = |n: u64, b: u64| 2 * (n - 1) * b / n;
            let name = schedule.name();
            assert_eq!(
                count("collective_permute", "pipe", act),
                2 * (M + S - 2),
                "{name}"
            );
            assert_eq!(
                count("all_reduce", "model", ar(2, act)),
                2 * (M + S) - 3,
                "{name}"
            );
            // A device's piece of each stage parameter's gradient: one stage, half of H
            // (w1 and w2 have the same size).
            let (w, b1) = ((D * H / 2 * 4) as u64, (H / 2 * 4) as u64);
            assert_eq!(count("all_reduce", "data", ar(2, w)), 2, "{name}");
            assert_eq!(count("all_reduce", "data", ar(2, b1)), 1, "{name}");
            assert_eq!(count("all_reduce", "pipe", ar(S as u64, 4)), 1, "{name}");
            assert_eq!(count("all_reduce", "data", ar(2, 4)), 1, "{name}");
            let accounted = 2 * (M + S - 2) + 2 * (M + S) - 3 + 3 + 2;
            assert_eq!(got.len(), accounted, "{name}: {got:?}");
        }
    }

    /// Three steps of each schedule on the simulated mesh and the cpu backend, each from
    /// the reference's state, against the pipelined program on one device and the model
    /// trained without a pipeline (the stages one after the other) on one device.
    #[test]
    fn three_d_steps_match_the_sequential_model() {
        let plain = shardc_train::step::train_step(
            "mlp_sequential",
            sequential_loss(model(), S),
            &param_types(),
            &batch_types(),
            &mesh(&[("data", 1)]),
            Strategy::ddp(),
            SGD,
        )
        .unwrap();
        for schedule in [Schedule::Gpipe, Schedule::OneFOneB] {
            let ts = step(schedule);
            let c = ts.program.compile(&ts.options()).unwrap();
            let cpu = shardc::CpuProgram::new(&c, &shardc::runtime::engine::Interpreted).unwrap();
            let mut params: Vec<Literal> = param_types()
                .iter()
                .enumerate()
                .map(|(k, t)| det(&t.shape, k, 0.3))
                .collect();
            let mut state = ts.init_state();
            let mut losses = Vec::new();
            for t in 1..=3 {
                let b = vec![det(&[BATCH, D], 10 + t, 1.0), det(&[BATCH, D], 20 + t, 0.5)];
                let args = ts.args(&params, &state, t, &b);
                let want = ts.program.run_reference(&args).unwrap();
                let seq = plain
                    .program
                    .run_reference(&plain.args(&params, &state, t, &b))
                    .unwrap();
                let sim = shardc::run_simulated(&c, &args, 1e-5).unwrap();
                let on_cpu = cpu.run(&c, &args, 1e-5).unwrap().outputs;
                for (what, got) in [("simulated", &sim), ("cpu", &on_cpu), ("sequential", &seq)] {
                    assert_close(
                        got,
                        &want,
                        1e-5,
                        &format!("{} step {t}: {what}", schedule.name()),
                    );
                }
                let (loss, p, st) = ts.split(want);
                losses.push(loss);
                (params, state) = (p, st);
            }
            assert!(losses[2] < losses[0], "{losses:?}");
        }
    }

    #[test]
    fn stage_specs_may_not_name_pipe_or_data() {
        let m = mesh(&[("data", 2), ("pipe", S), ("model", 2)]);
        let bad = |specs: &[PartitionSpec]| {
            train_step_with_specs(
                "mlp3d",
                model(),
                &param_types(),
                specs,
                &batch_types(),
                &m,
                Schedule::Gpipe,
                M,
                SGD,
            )
            .err()
            .expect("refused")
            .to_string()
        };
        let messages = [
            bad(&[P![None, "pipe"], P![], P![]]),
            bad(&[P!["data"], P![], P![]]),
            bad(&[P![None, "model"]]),
            bad(&[P![None, None, "model"], P![], P![]]),
        ];
        insta::assert_snapshot!(messages.join("\n"));
    }
}
