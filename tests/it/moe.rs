//! Expert parallelism: a top-1 mixture-of-experts layer (train/src/models.rs `moe_layer`) trained
//! with its experts split over `data` (`Strategy::Expert`). Propagation must move tokens
//! to their experts and back by all-to-all (not gather the experts' weights), keep the
//! experts' gradients local, and all-reduce only the router's; the partitioned step must
//! match the single-device reference on the simulated mesh and the cpu backend.

use crate::util::{collectives, steps_match_the_reference};
use shardc::runtime::engine::Interpreted;
use shardc::{CpuProgram, DType, Literal, Mesh, Tensor};
use shardc_train::models::{MoeConfig, moe_layer, moe_loss};
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;

/// GShard's top-2 with capacity factor 2: 4 slots per expert and group (of 8 tokens).
const CFG: MoeConfig = MoeConfig {
    groups: 8,
    tokens: 8,
    d_model: 16,
    d_ff: 64,
    experts: 8,
    top_k: 2,
    capacity_factor: 2.0,
    balance: 0.01,
};

const SGD: Optimizer = Optimizer::Sgd {
    lr: 0.1,
    momentum: 0.9,
};

fn step(cfg: MoeConfig, mesh: &Mesh) -> Result<TrainStep, shardc::Error> {
    train_step(
        "moe",
        move |p: &[Tensor], b: &[Tensor]| moe_loss(&cfg, &b[0], &b[1], p),
        &cfg.param_types(),
        &[cfg.token_type(), cfg.token_type()],
        mesh,
        Strategy::expert(cfg.expert_specs("data")),
        SGD,
    )
}

#[test]
fn tokens_travel_to_their_experts_by_all_to_all() {
    let n = 4u64;
    let mesh = Mesh::new("mesh", &[("data", n as usize)]).unwrap();
    let ts = step(CFG, &mesh).unwrap();
    let c = ts.program.compile(&ts.options()).unwrap();
    let got = collectives(&c);

    // The dispatched tokens, [experts, groups, capacity, d_model] f32, one device's piece
    // (groups split, or experts split), of which (n-1)/n leaves the device.
    let (e, g, cap, m) = (
        CFG.experts as u64,
        CFG.groups as u64,
        CFG.capacity() as u64,
        CFG.d_model as u64,
    );
    assert_eq!(cap, 4);
    let piece = e * g * cap * m * 4 / n;
    let to_all = (n - 1) * piece / n;
    let all_reduce = |bytes: u64| 2 * (n - 1) * bytes / n;
    let a2a = ("all_to_all".to_string(), "data".to_string(), to_all);
    let ar = |bytes| {
        (
            "all_reduce".to_string(),
            "data".to_string(),
            all_reduce(bytes),
        )
    };
    let want = vec![
        // Forward: tokens to their experts, the experts' outputs back to their groups.
        a2a.clone(),
        a2a.clone(),
        // The load-balancing statistics, per-expert means over every token: the fraction
        // routed all-reduced (the router's backward reads it for every expert); the mean
        // probability reduce-scattered, `(n - 1) / n` of it: a mean of partial sums stays
        // partial (`linear.rs`), each device multiplies its experts' share by the fraction
        // and sums, and that partial sum joins the loss's all-reduce.
        ar(e * 4),
        (
            "reduce_scatter".to_string(),
            "data".to_string(),
            (n - 1) * e * 4 / n,
        ),
        ar(4),
        // Backward: the output's gradient to the experts (the input's is not needed: it
        // is data).
        a2a,
        // Only the router's gradient is reduced; each expert's gradients stay on its
        // device.
        ar(m * e * 4),
    ];
    assert_eq!(got, want);
    // Gathering the experts' weights instead would move far more.
    let weights = 2 * e * m * CFG.d_ff as u64 * 4;
    assert!(3 * to_all < (n - 1) * weights / n);
    let mem = ts.memory_per_device().unwrap();
    let mut text = format!(
        "expert parallelism ({} experts, {} per device) on {}\nper device: params {} B, grads {} B, optimizer state {} B\n",
        CFG.experts,
        CFG.experts / n as usize,
        ts.mesh,
        mem.params,
        mem.grads,
        mem.optimizer
    );
    // The arguments' layouts (parameters, momenta, batch) and the collectives.
    for line in c.explain().summary().to_string().lines() {
        if line.starts_with("%arg") || !line.starts_with('%') {
            text.push_str(line);
            text.push('\n');
        }
    }
    insta::assert_snapshot!(text);
}

/// Five steps, each run from the reference's state on the simulated mesh, on the cpu
/// backend and on one device: loss, parameters and momenta agree within 1e-5. (Step by
/// step rather than free-running: top-1 routing is discontinuous, so two runs that drift
/// by rounding may route a near-tied token differently.)
#[test]
fn expert_parallel_steps_match_the_reference() {
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let ts = step(CFG, &mesh).unwrap();
    let c = ts.program.compile(&ts.options()).unwrap();
    let losses =
        steps_match_the_reference(&ts, &c, CFG.init(0), &|t| CFG.regression_batch(t), 5, 1e-5);
    assert!(losses[4] < losses[0], "{losses:?}");
}

/// Trained for 40 steps on the cpu backend, the layer learns: the loss falls by more than
/// half, and the router keeps several experts busy.
#[test]
fn the_moe_layer_learns_on_the_cpu_backend() {
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let ts = step(CFG, &mesh).unwrap();
    let c = ts.program.compile(&ts.options()).unwrap();
    let cpu = CpuProgram::new(&c, &Interpreted).unwrap();
    let (mut params, mut state) = (CFG.init(0), ts.init_state());
    let mut losses = Vec::new();
    for t in 1..=40 {
        let args = ts.args(&params, &state, t, &CFG.regression_batch(t));
        let (loss, p, s) = ts.split(cpu.run(&c, &args, 1e-5).unwrap().outputs);
        losses.push(loss);
        (params, state) = (p, s);
    }
    assert!(losses[39] < 0.5 * losses[0], "{:?}", losses);

    // Which expert each token of a batch goes to, from the trained router.
    let x = CFG.regression_batch(1)[0].to_f64_vec();
    let router = params[0].to_f64_vec();
    let (m, e) = (CFG.d_model, CFG.experts);
    let mut used = vec![0usize; e];
    for tok in x.chunks(m) {
        let logits: Vec<f64> = (0..e)
            .map(|j| (0..m).map(|i| tok[i] * router[i * e + j]).sum())
            .collect();
        let best = (0..e)
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
            .unwrap();
        used[best] += 1;
    }
    assert!(used.iter().filter(|&&u| u > 0).count() >= e / 2, "{used:?}");
}

#[test]
fn experts_that_do_not_divide_over_the_axis_are_an_error() {
    let cfg = MoeConfig { experts: 6, ..CFG };
    let mesh = Mesh::new("mesh", &[("data", 4)]).unwrap();
    let e = step(cfg, &mesh)
        .and_then(|ts| ts.program.compile(&ts.options()))
        .err()
        .expect("6 experts over 4 devices");
    insta::assert_snapshot!(e.to_string());
}

/// Capacity: with every token's router preferring expert 0 (then expert 1), an expert
/// takes the first `capacity` tokens of the group that chose it, in token order, and a
/// token past them is dropped: its output is its input (the residual) exactly. Top-1
/// with capacity 2: tokens 0 and 1 reach expert 0, 2..7 pass through. Top-2 with capacity
/// 2: tokens 0 and 1 reach experts 0 and 1 (first choices fill expert 0, second choices
/// expert 1), the rest pass through. With a capacity of every token, none is dropped.
#[test]
fn experts_take_at_most_their_capacity_in_token_order() {
    let (s, m, e) = (8, 4, 4);
    for (top_k, capacity_factor, capacity, reached) in [
        (1, 1.0, 2, 2),
        (2, 0.5, 2, 2),
        (1, 4.0, 8, 8),
        (2, 2.0, 8, 8),
    ] {
        let cfg = MoeConfig {
            groups: 1,
            tokens: s,
            d_model: m,
            d_ff: 3,
            experts: e,
            top_k,
            capacity_factor,
            balance: 0.0,
        };
        assert_eq!(cfg.capacity(), capacity);
        let f32 = |shape: &[usize], v: &dyn Fn(usize) -> f64| {
            let n: usize = shape.iter().product();
            Literal::from_f64(DType::F32, shape, &(0..n).map(v).collect::<Vec<_>>()).unwrap()
        };
        let x = f32(&[1, s, m], &|i| 1.0 + 0.01 * i as f64);
        // Logits 5·Σx for expert 0, 2·Σx for expert 1, 0 for the others.
        let router = f32(&[m, e], &|i| match i % e {
            0 => 5.0,
            1 => 2.0,
            _ => 0.0,
        });
        let w_in = f32(&[e, m, 3], &|_| 0.1);
        let w_out = f32(&[e, 3, m], &|_| 0.1);
        let layer = shardc::jit(move |a: &[Tensor]| moe_layer(&a[0], &a[1..], &cfg).0);
        let types: Vec<_> = [&x, &router, &w_in, &w_out]
            .iter()
            .map(|l| l.ty.clone())
            .collect();
        let y = layer
            .lower(&types)
            .unwrap()
            .run_reference(&[x.clone(), router, w_in, w_out])
            .unwrap()
            .remove(0)
            .to_f64_vec();
        let x = x.to_f64_vec();
        for t in 0..s {
            let moved = (0..m).any(|j| y[t * m + j] != x[t * m + j]);
            assert_eq!(
                moved,
                t < reached,
                "top-{top_k}, capacity {capacity}: token {t} {}",
                if moved {
                    "reached an expert"
                } else {
                    "was dropped"
                }
            );
        }
    }
}
