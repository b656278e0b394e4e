//! The tracing API: what `jit` records, and how it reports misuse.

use shardc::ir::{OpKind, Sharding};
use shardc::{DType, Error, Mesh, P, Tensor, TensorType, jit};

fn f32(shape: &[usize]) -> TensorType {
    TensorType::new(DType::F32, shape)
}

fn mesh24() -> Mesh {
    Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap()
}

fn op_names(l: &shardc::Lowered) -> Vec<String> {
    let f = l.module().entry().unwrap();
    f.body_ops().map(|(_, op)| op.kind.name()).collect()
}

#[test]
fn megatron_mlp_records_ops_and_shardings() {
    let mesh = mesh24();
    let l = jit(|x: Tensor, w1: Tensor, w2: Tensor| x.matmul(&w1).relu().matmul(&w2))
        .name("mlp")
        .mesh(&mesh)
        .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
        .out_shardings([P!["data", None]])
        .lower(&[f32(&[8, 16]), f32(&[16, 32]), f32(&[32, 16])])
        .unwrap();
    assert_eq!(
        op_names(&l),
        [
            "stablehlo.dot_general",
            "stablehlo.constant",
            "stablehlo.broadcast_in_dim",
            "stablehlo.maximum",
            "stablehlo.dot_general"
        ]
    );
    let m = l.module();
    assert_eq!(m.name.as_deref(), Some("jit_mlp"));
    assert_eq!(m.meshes, vec![mesh]);
    let f = m.entry().unwrap();
    assert_eq!(
        f.arg_attrs[1].sharding,
        Some(Sharding::split("mesh", &[&[], &["model"]]))
    );
    assert_eq!(
        f.result_attrs[0].sharding,
        Some(Sharding::split("mesh", &[&["data"], &[]]))
    );
    assert_eq!(f.result_types(), vec![f32(&[8, 16])]);
}

#[test]
fn shape_errors_name_the_method_and_the_callers_line() {
    let line = line!() + 1;
    let err = jit(|x: Tensor, w: Tensor| x.matmul(&w))
        .lower(&[f32(&[8, 16]), f32(&[32, 4])])
        .unwrap_err();
    let Error::Trace { method, at, .. } = &err else {
        panic!("expected a trace error, got {err:?}")
    };
    assert_eq!(*method, "matmul");
    assert_eq!(at.line(), line);
    assert!(at.file().ends_with("trace.rs"));
    let msg = err.to_string();
    assert!(
        msg.contains("lhs dimension 1 (size 16) is paired with rhs dimension 0 (size 32)"),
        "{msg}"
    );
}

#[test]
fn broadcasting_follows_numpy() {
    let l = jit(|x: Tensor, b: Tensor| &x + &b)
        .lower(&[f32(&[4, 8]), f32(&[8])])
        .unwrap();
    let f = l.module().entry().unwrap();
    let (_, bcast) = f.body_ops().next().unwrap();
    assert_eq!(bcast.kind, OpKind::BroadcastInDim { dims: vec![1] });
    let err = jit(|x: Tensor, b: Tensor| &x + &b)
        .lower(&[f32(&[4, 8]), f32(&[4])])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("shapes [4, 8] and [4] do not broadcast together"),
        "{err}"
    );
}

#[test]
fn sharding_spec_misuse_is_reported() {
    let mesh = mesh24();
    let too_long = jit(|x: Tensor| x.exp())
        .mesh(&mesh)
        .in_shardings([P!["data", None]])
        .lower(&[f32(&[])])
        .unwrap_err();
    assert!(
        too_long
            .to_string()
            .contains("for scalars the PartitionSpec should be P![]"),
        "{too_long}"
    );

    let count = jit(|x: Tensor, y: Tensor| &x * &y)
        .mesh(&mesh)
        .in_shardings([P!["data"]])
        .lower(&[f32(&[8]), f32(&[8])])
        .unwrap_err();
    assert!(
        count
            .to_string()
            .contains("in_shardings has 1 spec(s) but the function has 2 argument(s)"),
        "{count}"
    );

    let no_mesh = jit(|x: Tensor| x.exp())
        .in_shardings([P!["data"]])
        .lower(&[f32(&[8])])
        .unwrap_err();
    assert!(no_mesh.to_string().contains("no mesh"), "{no_mesh}");

    let bad_axis = jit(|x: Tensor| x.exp())
        .mesh(&mesh)
        .in_shardings([P!["batch"]])
        .lower(&[f32(&[8])])
        .unwrap_err();
    assert!(
        bad_axis
            .to_string()
            .contains("uses axis \"batch\", which mesh @mesh does not have"),
        "{bad_axis}"
    );

    let indivisible = jit(|x: Tensor| x.exp())
        .mesh(&mesh)
        .in_shardings([P!["model"]])
        .lower(&[f32(&[6])])
        .unwrap_err();
    assert!(
        indivisible
            .to_string()
            .contains("dimension 0 of argument 0"),
        "{indivisible}"
    );
}

#[test]
fn constraints_and_slices_of_arguments() {
    let mesh = mesh24();
    let l = jit(|xs: &[Tensor]| {
        vec![
            xs[0].exp().with_sharding_constraint(P![None, "model"]),
            xs[1].clone(),
        ]
    })
    .mesh(&mesh)
    .lower(&[f32(&[8, 8]), f32(&[2])])
    .unwrap();
    let f = l.module().entry().unwrap();
    let kinds: Vec<&OpKind> = f.body_ops().map(|(_, o)| &o.kind).collect();
    assert_eq!(
        *kinds[1],
        OpKind::ShardingConstraint(Sharding::split("mesh", &[&[], &["model"]]))
    );
    assert_eq!(f.results()[1], f.args()[1]);
}

#[test]
fn einsum_lowers_to_dot_general_and_transpose() {
    let l = jit(|q: Tensor, k: Tensor| q.einsum("bthd,bshd->bhts", &k))
        .lower(&[f32(&[2, 8, 4, 16]), f32(&[2, 8, 4, 16])])
        .unwrap();
    assert_eq!(op_names(&l), ["stablehlo.dot_general"]);
    assert_eq!(
        l.module().entry().unwrap().result_types(),
        vec![f32(&[2, 4, 8, 8])]
    );
    let l = jit(|a: Tensor, b: Tensor| a.einsum("ij,jk->ki", &b))
        .lower(&[f32(&[2, 3]), f32(&[3, 5])])
        .unwrap();
    assert_eq!(
        op_names(&l),
        ["stablehlo.dot_general", "stablehlo.transpose"]
    );
    assert_eq!(
        l.module().entry().unwrap().result_types(),
        vec![f32(&[5, 2])]
    );
}

mod composites {
    use super::*;
    use shardc::Literal;

    fn run1(l: &shardc::Lowered, args: &[Literal]) -> Vec<f64> {
        l.run_reference(args).unwrap()[0].to_f64_vec()
    }

    fn lit(shape: &[usize], v: &[f64]) -> Literal {
        Literal::from_f64(DType::F32, shape, v).unwrap()
    }

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn softmax_by_hand() {
        let l = jit(|x: Tensor| x.softmax(-1))
            .lower(&[f32(&[2, 3])])
            .unwrap();
        let got = run1(&l, &[lit(&[2, 3], &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0])]);
        let third = 1.0 / 3.0;
        close(
            &got,
            &[0.09003057, 0.24472847, 0.66524096, third, third, third],
        );
    }

    #[test]
    fn layer_norm_by_hand() {
        let l = jit(|x: Tensor, g: Tensor, b: Tensor| x.layer_norm(&g, &b, 0.0))
            .lower(&[f32(&[1, 4]), f32(&[4]), f32(&[4])])
            .unwrap();
        let got = run1(
            &l,
            &[
                lit(&[1, 4], &[1.0, 2.0, 3.0, 4.0]),
                lit(&[4], &[1.0, 1.0, 2.0, 1.0]),
                lit(&[4], &[0.0, 0.0, 0.0, 1.0]),
            ],
        );
        // mean 2.5, variance 1.25: (x - 2.5) / sqrt(1.25), then * gamma + beta.
        close(&got, &[-1.3416408, -0.4472136, 0.8944272, 2.3416408]);
    }

    #[test]
    fn gelu_by_hand() {
        let l = jit(|x: Tensor| x.gelu()).lower(&[f32(&[3])]).unwrap();
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) at -1, 0, 1.
        close(
            &run1(&l, &[lit(&[3], &[-1.0, 0.0, 1.0])]),
            &[-0.15880801, 0.0, 0.84119199],
        );
    }

    #[test]
    fn sin_cos_and_silu_by_hand() {
        let l = jit(|x: Tensor| vec![x.sin(), x.cos(), x.silu()])
            .lower(&[f32(&[3])])
            .unwrap();
        let got = l.run_reference(&[lit(&[3], &[-1.0, 0.0, 1.0])]).unwrap();
        close(&got[0].to_f64_vec(), &[-0.84147098, 0.0, 0.84147098]);
        close(&got[1].to_f64_vec(), &[0.54030231, 1.0, 0.54030231]);
        // x * sigmoid(x): -1 / (1 + e), 0, 1 / (1 + 1/e).
        close(&got[2].to_f64_vec(), &[-0.26894142, 0.0, 0.73105858]);
    }

    #[test]
    fn rms_norm_by_hand() {
        let l = jit(|x: Tensor, g: Tensor| x.rms_norm(&g, 0.0))
            .lower(&[f32(&[1, 4]), f32(&[4])])
            .unwrap();
        let got = run1(
            &l,
            &[
                lit(&[1, 4], &[1.0, 2.0, 3.0, 4.0]),
                lit(&[4], &[1.0, 1.0, 2.0, 2.0]),
            ],
        );
        // mean of squares 30/4 = 7.5; 1/sqrt(7.5) = 0.36514837.
        close(&got, &[0.36514837, 0.73029674, 2.19089023, 2.92118698]);
    }

    #[test]
    fn swiglu_by_hand() {
        let l = jit(|x: Tensor, wg: Tensor, wu: Tensor| x.swiglu(&wg, &wu))
            .lower(&[f32(&[1, 2]), f32(&[2, 1]), f32(&[2, 1])])
            .unwrap();
        let got = run1(
            &l,
            &[
                lit(&[1, 2], &[1.0, 2.0]),
                lit(&[2, 1], &[1.0, 0.0]),
                lit(&[2, 1], &[0.0, 1.0]),
            ],
        );
        // silu(1) * 2.
        close(&got, &[2.0 * 0.73105858]);
    }

    #[test]
    fn rotary_by_hand() {
        let l = jit(|x: Tensor| x.rotary(100.0))
            .lower(&[f32(&[2, 4])])
            .unwrap();
        let got = run1(
            &l,
            &[lit(&[2, 4], &[1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0])],
        );
        // Position 0 is not turned. Position 1: pairs (x0, x2) by 1 rad and (x1, x3) by
        // 100^(-1/2) = 0.1 rad: x0 cos 1 - x2 sin 1, x1 cos .1 - x3 sin .1,
        // x2 cos 1 + x0 sin 1, x3 cos .1 + x1 sin .1.
        close(
            &got,
            &[
                1.0,
                2.0,
                3.0,
                4.0,
                -1.98411063,
                1.59067466,
                2.46237791,
                4.17968351,
            ],
        );
        let odd = jit(|x: Tensor| x.rotary(10_000.0)).lower(&[f32(&[2, 3])]);
        let err = match odd {
            Ok(_) => panic!("an odd head dimension is refused"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("rotary") && err.contains("d even"), "{err}");
    }

    #[test]
    fn cross_entropy_by_hand() {
        let l = jit(|logits: Tensor, labels: Tensor| logits.cross_entropy(&labels))
            .lower(&[f32(&[2, 3]), TensorType::new(DType::I32, [2])])
            .unwrap();
        let labels = Literal::from_f64(DType::I32, &[2], &[2.0, 0.0]).unwrap();
        let got = run1(&l, &[lit(&[2, 3], &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0]), labels]);
        // mean of -log softmax: -ln(0.66524096) = 0.40760596 and -ln(1/3) = 1.09861229.
        close(&got, &[(0.40760596 + 1.09861229) / 2.0]);
    }

    #[test]
    fn dropout_keeps_expected_fraction_and_scales() {
        let l = jit(|x: Tensor, seed: Tensor| x.dropout(&seed, 0.25))
            .lower(&[f32(&[64, 64]), TensorType::new(DType::I64, [])])
            .unwrap();
        let seed = Literal::from_f64(DType::I64, &[], &[7.0]).unwrap();
        let got = run1(&l, &[lit(&[64, 64], &vec![1.0; 4096]), seed]);
        let kept = got.iter().filter(|&&v| v != 0.0).count();
        assert!(
            got.iter()
                .all(|&v| v == 0.0 || (v - 1.0 / 0.75).abs() < 1e-6)
        );
        let frac = kept as f64 / 4096.0;
        assert!((frac - 0.75).abs() < 0.03, "kept {frac}");
    }
}

mod optimizers {
    use super::*;
    use shardc::Literal;
    use shardc_train::optim::{AdamW, Sgd, clip_by_global_norm, warmup_cosine};

    fn scalar(v: f64) -> Literal {
        Literal::from_f64(DType::F32, &[], &[v]).unwrap()
    }

    fn run(l: &shardc::Lowered, args: &[Literal]) -> Vec<f64> {
        l.run_reference(args)
            .unwrap()
            .iter()
            .flat_map(|r| r.to_f64_vec())
            .collect()
    }

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn sgd_momentum_by_hand() {
        // v' = 0.9 * 0.2 + 0.5 = 0.68; p' = 1 - 0.1 * 0.68 = 0.932.
        let l = jit(|lr: Tensor, p: Tensor, g: Tensor, v: Tensor| {
            let (p2, v2) = Sgd { momentum: 0.9 }.step(&lr, &[p], &[g], &[v]);
            vec![p2[0].clone(), v2[0].clone()]
        })
        .lower(&[f32(&[]), f32(&[]), f32(&[]), f32(&[])])
        .unwrap();
        close(
            &run(&l, &[scalar(0.1), scalar(1.0), scalar(0.5), scalar(0.2)]),
            &[0.932, 0.68],
        );
    }

    #[test]
    fn adamw_first_step_by_hand() {
        // t = 1: m' = 0.05, v' = 0.00025, m̂ = 0.5, v̂ = 0.25, m̂/(sqrt(v̂)+eps) ≈ 1;
        // p' = 1 - 0.1 * (1 + 0.01 * 1) = 0.899.
        let l = jit(
            |t: Tensor, lr: Tensor, p: Tensor, g: Tensor, m: Tensor, v: Tensor| {
                let (p2, m2, v2) = AdamW::default().step(&t, &lr, &[p], &[g], &[m], &[v]);
                vec![p2[0].clone(), m2[0].clone(), v2[0].clone()]
            },
        )
        .lower(&[f32(&[]), f32(&[]), f32(&[]), f32(&[]), f32(&[]), f32(&[])])
        .unwrap();
        let got = run(
            &l,
            &[
                scalar(1.0),
                scalar(0.1),
                scalar(1.0),
                scalar(0.5),
                scalar(0.0),
                scalar(0.0),
            ],
        );
        close(&got, &[0.899, 0.05, 0.00025]);
        // Second step from there with g = 0.5 again: m = 0.095, v = 0.00049975,
        // m̂ = 0.095/0.19 = 0.5, v̂ = 0.00049975/0.001999 = 0.25 → same update: 0.899 - 0.1*(1 + 0.00899).
        let got2 = run(
            &l,
            &[
                scalar(2.0),
                scalar(0.1),
                scalar(0.899),
                scalar(0.5),
                scalar(0.05),
                scalar(0.00025),
            ],
        );
        // (f32 arithmetic: 1 - 0.999² loses digits, so within 1e-5 here.)
        assert!(
            (got2[0] - (0.899 - 0.1 * (1.0 + 0.00899))).abs() < 1e-5,
            "{got2:?}"
        );
    }

    #[test]
    fn global_norm_clipping_by_hand() {
        // grads [3] and [4]: norm 5; clipped to norm 1: [0.6], [0.8].
        let l = jit(|a: Tensor, b: Tensor| {
            let (g, n) = clip_by_global_norm(&[a, b], 1.0);
            vec![g[0].clone(), g[1].clone(), n]
        })
        .lower(&[f32(&[1]), f32(&[1])])
        .unwrap();
        let lit = |v: f64| Literal::from_f64(DType::F32, &[1], &[v]).unwrap();
        close(&run(&l, &[lit(3.0), lit(4.0)]), &[0.6, 0.8, 5.0]);
        // Below the limit nothing changes.
        close(&run(&l, &[lit(0.3), lit(0.4)]), &[0.3, 0.4, 0.5]);
    }

    #[test]
    fn schedules_by_hand() {
        use shardc_train::optim::Schedule;
        let cases: [(Schedule, &[(f64, f64)]); 4] = [
            (Schedule::Constant { lr: 0.3 }, &[(1.0, 0.3), (500.0, 0.3)]),
            (
                Schedule::WarmupLinear {
                    lr: 1.0,
                    warmup: 10.0,
                    total: 110.0,
                    end_ratio: 0.0,
                },
                &[
                    (5.0, 0.5),
                    (10.0, 1.0),
                    (35.0, 0.75),
                    (110.0, 0.0),
                    (200.0, 0.0),
                ],
            ),
            (
                Schedule::Step {
                    lr: 1.0,
                    every: 10.0,
                    gamma: 0.5,
                },
                &[(1.0, 1.0), (9.0, 1.0), (10.0, 0.5), (25.0, 0.25)],
            ),
            (
                // Up to 1 over 10 steps, a drop to 0.1 at 50, constant after 100.
                Schedule::Piecewise(&[
                    (0.0, 0.0),
                    (10.0, 1.0),
                    (50.0, 1.0),
                    (50.0, 0.1),
                    (100.0, 0.2),
                ]),
                &[
                    (5.0, 0.5),
                    (30.0, 1.0),
                    (49.0, 1.0),
                    (50.0, 0.1),
                    (75.0, 0.15),
                    (300.0, 0.2),
                ],
            ),
        ];
        let unsorted = jit(|s: Tensor| Schedule::Piecewise(&[(10.0, 1.0), (0.0, 0.0)]).rate(&s))
            .lower(&[f32(&[])]);
        match unsorted {
            Ok(_) => panic!("unsorted points are refused"),
            Err(e) => assert!(e.to_string().contains("non-decreasing steps"), "{e}"),
        }
        for (schedule, points) in cases {
            let l = jit(move |s: Tensor| schedule.rate(&s))
                .lower(&[f32(&[])])
                .unwrap();
            for &(step, want) in points {
                let got = run(&l, &[scalar(step)]);
                assert!(
                    (got[0] - want).abs() < 1e-6,
                    "{schedule:?} at {step}: {got:?}, want {want}"
                );
            }
        }
    }

    #[test]
    fn clipping_inside_the_training_step_by_hand() {
        use shardc::ir::Mesh;
        use shardc_train::optim::Schedule;
        use shardc_train::step::{Optimizer, train_step};
        use shardc_train::strategy::Strategy;
        // loss = sum(p * x): the gradient is x = [3, 4, 0, 0], of norm 5.
        let first_moment = |clip_norm: Option<f64>| {
            let ts = train_step(
                "dot",
                |p: &[Tensor], b: &[Tensor]| (&p[0] * &b[0]).sum(&[0]),
                &[f32(&[4])],
                &[f32(&[4])],
                &Mesh::new("mesh", &[("data", 1)]).unwrap(),
                Strategy::ddp(),
                Optimizer::AdamWScheduled {
                    schedule: Schedule::Constant { lr: 0.1 },
                    adam: AdamW::default(),
                    clip_norm,
                },
            )
            .unwrap();
            let x = shardc::Literal::from_f64(DType::F32, &[4], &[3.0, 4.0, 0.0, 0.0]).unwrap();
            let p = shardc::Literal::from_f64(DType::F32, &[4], &[1.0; 4]).unwrap();
            let out = ts
                .program
                .run_reference(&ts.args(&[p], &ts.init_state(), 1, &[x]))
                .unwrap();
            let (_, _, state) = ts.split(out);
            // After step 1, m = (1 - beta1) g.
            state[0].to_f64_vec()
        };
        close(&first_moment(None), &[0.3, 0.4, 0.0, 0.0]);
        // Scaled by 1 / (5 + 1e-6): the norm becomes 1.
        close(&first_moment(Some(1.0)), &[0.06, 0.08, 0.0, 0.0]);
        close(&first_moment(Some(10.0)), &[0.3, 0.4, 0.0, 0.0]);
    }

    #[test]
    fn warmup_then_cosine_by_hand() {
        let l = jit(|s: Tensor| warmup_cosine(&s, 1.0, 10.0, 110.0, 0.1))
            .lower(&[f32(&[])])
            .unwrap();
        for (step, want) in [
            (0.0, 0.0),
            (5.0, 0.5),
            (10.0, 1.0),
            (60.0, 0.55),
            (110.0, 0.1),
            (200.0, 0.1),
        ] {
            close(&run(&l, &[scalar(step)]), &[want]);
        }
    }
}

/// A lowered program called inside another trace: its functions join the module, its
/// shardings constrain the call, and the whole compiles and runs like one program.
#[test]
fn lowered_programs_call_each_other() {
    let mesh = mesh24();
    let mlp = jit(|x: Tensor, w1: Tensor, w2: Tensor| x.matmul(&w1).relu().matmul(&w2))
        .name("mlp")
        .mesh(&mesh)
        .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
        .out_shardings([P!["data", None]])
        .lower(&[f32(&[8, 16]), f32(&[16, 32]), f32(&[32, 16])])
        .unwrap();
    let outer = jit(|x: Tensor, w1: Tensor, w2: Tensor| {
        let y = mlp.call(&[x.clone(), w1.clone(), w2.clone()]);
        &y[0] + &x
    })
    .mesh(&mesh)
    .lower(&[f32(&[8, 16]), f32(&[16, 32]), f32(&[32, 16])])
    .unwrap();
    let m = outer.module();
    assert_eq!(m.functions.len(), 2);
    assert!(
        m.functions[1].name.starts_with("jit_mlp_0_"),
        "{}",
        m.functions[1].name
    );
    let c = outer.compile(&shardc::Options::default()).unwrap();
    // The callee's shardings constrained the call: Megatron's single all-reduce.
    let e = c.explain();
    assert_eq!(
        e.collectives
            .iter()
            .map(|c| c.kind.as_str())
            .collect::<Vec<_>>(),
        ["all_reduce"],
        "{e}"
    );
    let args: Vec<shardc::Literal> = [[8, 16], [16, 32], [32, 16]]
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let n = s[0] * s[1];
            shardc::Literal::from_f64(
                DType::F32,
                s,
                &(0..n)
                    .map(|i| ((i + k) as f64 * 0.37).sin())
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        })
        .collect();
    let want = outer.run_reference(&args).unwrap();
    let got = shardc::run_simulated(&c, &args, 1e-5).unwrap();
    let diff = got[0]
        .to_f64_vec()
        .iter()
        .zip(want[0].to_f64_vec())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(diff < 1e-5, "{diff}");

    // A call with the wrong argument type is an error at the caller's line.
    let line = line!() + 1;
    let err = jit(|x: Tensor| mlp.call(&[x.clone(), x.clone(), x])[0].clone())
        .mesh(&mesh)
        .lower(&[f32(&[8, 16])])
        .unwrap_err();
    let Error::Trace { method, at, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*method, at.line()), ("call", line));
    assert!(
        err.to_string().contains(
            "argument 1 is tensor<8x16xf32> but the called program takes tensor<16x32xf32>"
        ),
        "{err}"
    );
}

/// A small GPT's loss at initialisation is about ln(vocabulary): the logits start near 0.
#[test]
fn gpt_loss_at_init_is_log_vocab() {
    use shardc_train::models::{GptConfig, TransformerDims, gpt_loss};
    let cfg = GptConfig {
        vocab: 32,
        layers: 2,
        block: TransformerDims {
            batch: 2,
            seq: 8,
            d_model: 16,
            heads: 2,
            d_ff: 64,
        },
    };
    let tokens = TensorType::new(DType::I32, [2, 8]);
    let mut types = vec![tokens.clone(), tokens];
    types.extend(cfg.param_types());
    let l = jit(move |a: &[Tensor]| gpt_loss(&cfg, &a[0], &a[1], &a[2..]))
        .lower(&types)
        .unwrap();
    let ids: Vec<f64> = (0..16).map(|i| ((i * 7) % 32) as f64).collect();
    let next: Vec<f64> = (0..16).map(|i| ((i * 7 + 3) % 32) as f64).collect();
    let mut args = vec![
        shardc::Literal::from_f64(DType::I32, &[2, 8], &ids).unwrap(),
        shardc::Literal::from_f64(DType::I32, &[2, 8], &next).unwrap(),
    ];
    args.extend(cfg.init(0));
    let loss = l.run_reference(&args).unwrap()[0].to_f64_vec()[0];
    assert!(
        (loss - 32f64.ln()).abs() < 0.05,
        "loss {loss} vs ln 32 = {}",
        32f64.ln()
    );
}

/// Sums and means of bf16 and f16 values accumulate in f32, as `jnp.sum`/`jnp.mean` do: a
/// bf16 running sum of 1,024 terms of 4.5 would stop at 2,048 (its unit there is 16, so
/// adding 4.5 rounds away); in f32 it is 4,608, which bf16 holds exactly.
#[test]
fn half_precision_sums_accumulate_in_f32() {
    use shardc::ir::DType;
    for dtype in [DType::BF16, DType::F16] {
        let t = TensorType::new(dtype, [1024]);
        let l = shardc::jit(|x: Tensor| (x.sum(&[0]), x.mean(&[0])))
            .lower(std::slice::from_ref(&t))
            .unwrap();
        let x = shardc::Literal::from_f64(dtype, &[1024], &[4.5; 1024]).unwrap();
        let out = l.run_reference(&[x]).unwrap();
        assert_eq!(out[0].ty.dtype, dtype);
        let (sum, mean) = (out[0].to_f64_vec()[0], out[1].to_f64_vec()[0]);
        assert_eq!((sum, mean), (4608.0, 4.5), "{dtype:?}");
    }
}

/// `fori_loop` traces its body once into a `stablehlo.while` that the reference runs
/// `trips` times; a body returning the wrong types is an error naming the carried value.
#[test]
fn fori_loop_traces_one_while_and_refuses_a_body_of_the_wrong_type() {
    use shardc::fori_loop;
    // x doubled 5 times, plus the iteration numbers 0 + 1 + 2 + 3 + 4 = 10 in f32.
    let l = jit(|x: Tensor| {
        let sum = x.full(&[], 0.0);
        let out = fori_loop(5, &[x.clone(), sum], |i, c| {
            vec![&c[0] + &c[0], &c[1] + &i.convert(DType::F32)]
        });
        (out[0].clone(), out[1].clone())
    })
    .lower(&[f32(&[3])])
    .unwrap();
    assert_eq!(l.as_text().matches("stablehlo.while").count(), 1);
    let x =
        shardc::Literal::new(f32(&[3]), shardc::ir::Elements::F32(vec![1.0, -2.0, 0.5])).unwrap();
    let out = l.run_reference(&[x]).unwrap();
    assert_eq!(out[0].to_f64_vec(), vec![32.0, -64.0, 16.0]);
    assert_eq!(out[1].to_f64_vec(), vec![10.0]);
    // The body gives an f32[3] where the loop carries an f32[]: refused, named.
    let line = line!() + 3;
    let err = jit(|x: Tensor| {
        let sum = x.full(&[], 0.0);
        fori_loop(2, &[sum], |_, _| vec![x.clone()])[0].clone()
    })
    .lower(&[f32(&[3])])
    .unwrap_err();
    let Error::Trace { method, at, .. } = &err else {
        panic!("expected a trace error, got {err:?}")
    };
    assert_eq!((*method, at.line()), ("fori_loop", line));
    let msg = err.to_string();
    assert!(
        msg.contains("returned tensor<3xf32> for carried value 0, which is tensor<f32>"),
        "{msg}"
    );
}
