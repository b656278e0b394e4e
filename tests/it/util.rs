//! Helpers the test modules share.

use shardc::ir::{DType, Literal};

/// Deterministic f32 values `sin(0.37 i + k) * scale`, rounded to f32.
pub fn det(shape: &[usize], k: usize, scale: f64) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * scale) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

/// The largest relative difference `|a - b| / (1 + |b|)` between two tensors.
pub fn worst_of(got: &Literal, want: &Literal) -> f64 {
    assert_eq!(got.ty, want.ty, "types differ");
    got.to_f64_vec()
        .iter()
        .zip(want.to_f64_vec())
        .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
        .fold(0.0, f64::max)
}

/// The largest relative difference over every element of every result.
pub fn worst(got: &[Literal], want: &[Literal]) -> f64 {
    assert_eq!(got.len(), want.len(), "result counts differ");
    got.iter()
        .zip(want)
        .map(|(g, w)| worst_of(g, w))
        .fold(0.0, f64::max)
}

/// Every result within `tol` (relative, as [`worst_of`]); `what` names the run.
pub fn assert_close(got: &[Literal], want: &[Literal], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: result counts differ");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let off = worst_of(g, w);
        assert!(
            off <= tol,
            "{what}: result {k} off by {off:e} (tolerance {tol:e})"
        );
    }
}

/// Runs `steps` training steps of `ts` (compiled as `c`), each from the reference's
/// parameters and state, on the simulated mesh, on the cpu backend and on the reference:
/// every result (loss, parameters, state) must agree within `tol` at every step. The
/// batch of step `t` (from 1) is `batch(t)`. Gives the reference's losses.
pub fn steps_match_the_reference(
    ts: &shardc_train::step::TrainStep,
    c: &shardc::Compiled,
    params: Vec<Literal>,
    batch: &dyn Fn(usize) -> Vec<Literal>,
    steps: usize,
    tol: f64,
) -> Vec<f64> {
    let cpu = shardc::CpuProgram::new(c, &shardc::runtime::engine::Interpreted).unwrap();
    let (mut params, mut state) = (params, ts.init_state());
    let mut losses = Vec::with_capacity(steps);
    for t in 1..=steps {
        let args = ts.args(&params, &state, t, &batch(t));
        let want = ts.program.run_reference(&args).unwrap();
        let sim = shardc::run_simulated(c, &args, 1e-5).unwrap();
        let on_cpu = cpu.run(c, &args, 1e-5).unwrap().outputs;
        for (backend, got) in [("simulated mesh", &sim), ("cpu backend", &on_cpu)] {
            assert_close(
                got,
                &want,
                tol,
                &format!(
                    "{} on {}: step {t} on the {backend}",
                    ts.strategy.name(),
                    ts.mesh
                ),
            );
        }
        let (loss, p, s) = ts.split(want);
        losses.push(loss);
        (params, state) = (p, s);
    }
    losses
}

/// (kind, axes, bytes per device) of every collective `explain` states, in program order.
pub fn collectives(c: &shardc::Compiled) -> Vec<(String, String, u64)> {
    c.explain()
        .collectives
        .iter()
        .map(|c| (c.kind.clone(), c.axes.join(","), c.bytes_per_device))
        .collect()
}

/// The AdamW the GPT strategy tests train with: learning rate 1e-2 after 2 warm-up steps,
/// cosine decay over 10.
pub fn adamw() -> shardc_train::step::Optimizer {
    shardc_train::step::Optimizer::AdamW {
        lr: 1e-2,
        warmup: 2.0,
        total: 10.0,
        min_ratio: 0.1,
        adam: Default::default(),
    }
}

/// The measured bytes of every collective: its kind and the bytes a device sent as the
/// compiler states them (for a permute, what a device that moves its block sends, the
/// others sending nothing; for the rest, the mean over devices, which is every device's
/// when the buffer divides evenly), sorted like [`stated`].
pub fn measured(report: &shardc::runtime::backend::RunReport) -> Vec<String> {
    measured_listing_once(report, &Default::default())
}

/// [`measured`] against what `c`'s `explain` states: a collective of a loop whose trip
/// count is not known when compiling, which `explain` lists once (`trips_unknown`), is
/// listed once however many times it ran.
pub fn measured_as_stated(
    report: &shardc::runtime::backend::RunReport,
    c: &shardc::Compiled,
) -> Vec<String> {
    let once = c
        .explain()
        .collectives
        .iter()
        .filter(|c| c.trips_unknown)
        .map(|c| format!("{} {}", c.kind, c.bytes_per_device))
        .collect();
    measured_listing_once(report, &once)
}

fn measured_listing_once(
    report: &shardc::runtime::backend::RunReport,
    once: &std::collections::HashSet<String>,
) -> Vec<String> {
    let mut got: Vec<String> = report
        .stats
        .ops
        .iter()
        .filter(|o| !matches!(o.kind.as_str(), "shard_slice" | "axis_index"))
        .flat_map(|o| {
            let bytes = if o.kind == "collective_permute" {
                let max = o.max_bytes();
                assert!(o.bytes_sent.iter().all(|&b| b == max || b == 0), "{o:?}");
                max
            } else {
                o.mean_bytes()
            };
            // A loop's collective once per iteration, as `explain` lists it.
            let runs = o.runs.max(1);
            let mut entry = format!("{} {}", o.kind, bytes / runs as u64);
            // A branch not taken sent nothing, and there is nothing to measure: it
            // stands for what explain lists of its kind once (when it lists one).
            if o.runs == 0 {
                let prefix = format!("{} ", o.kind);
                if let Some(stated) = once.iter().filter(|e| e.starts_with(&prefix)).min() {
                    entry = stated.clone();
                }
            }
            let listed = if once.contains(&entry) { 1 } else { runs };
            std::iter::repeat_n(entry, listed)
        })
        .collect();
    got.sort();
    got
}

/// The collectives `explain` states, with their bytes per device, sorted.
pub fn stated(c: &shardc::Compiled) -> Vec<String> {
    let mut want: Vec<String> = c
        .explain()
        .collectives
        .iter()
        .map(|c| format!("{} {}", c.kind, c.bytes_per_device))
        .collect();
    want.sort();
    want
}
