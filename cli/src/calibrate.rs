//! `shardc calibrate`: measures the cpu backend on this host, with the mesh a program will
//! run on, and gives the [`CostModel`] compilation then optimises (`--cost-profile`,
//! `SHARDC_COST_PROFILE`).
//!
//! Every figure is a whole program run through the backend as a user's program runs —
//! sharded by the partitioner, one thread per device, the engine computing — so that what
//! the model predicts is what was measured: a matmul every device computes at once (the
//! contraction FLOP rate each device gets while all of them compute), a fused elementwise
//! chain (the rate of every other op), and, per mesh axis, one and nine all-reduces of a
//! small buffer (the latency of a collective, without the run's own start and end) and one
//! of a large buffer (bandwidth, fitted to the bytes the cost model charges).

use serde_json::{Value, json};
use shardc::Resident;
use shardc::compiler::sharding::cost::{CostModel, SharedHost};
use shardc::compiler::{Options, compile};
use shardc::{CpuProgram, Engine, Error};
use shardc_runtime::backend::RunOptions;
use std::time::Duration;

/// What `shardc calibrate` measures with.
pub struct Calibrate {
    /// Mesh axes and sizes, as a program's `sdy.mesh` would have them.
    pub axes: Vec<(String, usize)>,
    /// What computes each device's segments.
    pub engine: Engine,
    /// Timed runs per figure (their median is taken), after one untimed.
    pub repeats: usize,
}

/// The measured model, and the raw figures (JSON) it was fitted to.
pub fn calibrate(c: &Calibrate) -> Result<(CostModel, Value), Error> {
    let devices: usize = c.axes.iter().map(|a| a.1).product();
    let mesh = mesh_text(&c.axes);
    let all: Vec<String> = c.axes.iter().map(|(a, n)| format!("{a}={n}")).collect();

    // Contractions: a 256x512 by 512x1024 matmul every device computes.
    let (m, k, n) = (256, 512, 1024);
    let dot = format!(
        "{mesh}
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %c : tensor<{m}x{n}xf32>
}}"
    );
    let dot_s = seconds(&dot, c)?;
    let flops = (2 * m * k * n) as f64 / dot_s;

    // Everything else: a fused chain of three elementwise ops over 2^20 elements.
    let e = 1 << 20;
    let chain = format!(
        "{mesh}
func.func @main(%a: tensor<{e}xf32>, %b: tensor<{e}xf32>) -> tensor<{e}xf32> {{
  %0 = stablehlo.multiply %a, %b : tensor<{e}xf32>
  %1 = stablehlo.add %0, %a : tensor<{e}xf32>
  %2 = stablehlo.maximum %1, %b : tensor<{e}xf32>
  return %2 : tensor<{e}xf32>
}}"
    );
    let chain_s = seconds(&chain, c)?;
    let vector_flops = (3 * e) as f64 / chain_s;

    // Collectives, per axis: one all-reduce of 16 KiB, nine of 16 KiB (their difference
    // is eight collectives' latency, the run's own start and end left out), one of 4 MiB
    // (its difference from one of 16 KiB is bytes over the link).
    let (small, large) = (4 << 10, 1 << 20);
    let mut axis_bandwidth = std::collections::BTreeMap::new();
    let mut latencies = Vec::new();
    let mut per_axis = serde_json::Map::new();
    for (axis, size) in c.axes.iter().filter(|a| a.1 > 1) {
        let t_one = seconds(&all_reduces(&mesh, axis, *size, small, 1), c)?;
        let t_nine = seconds(&all_reduces(&mesh, axis, *size, small, 9), c)?;
        let t_large = seconds(&all_reduces(&mesh, axis, *size, large, 1), c)?;
        // A ring all-reduce sends 2(n-1)/n of the buffer per device.
        let ring = |elements: usize| (2 * (size - 1) * elements * 4) as f64 / *size as f64;
        let latency = ((t_nine - t_one) / 8.0).max(1e-7);
        let bandwidth = (ring(large) - ring(small)) / (t_large - t_one).max(1e-9);
        axis_bandwidth.insert(axis.clone(), bandwidth);
        latencies.push(latency);
        per_axis.insert(
            axis.clone(),
            json!({
                "size": size,
                "one_all_reduce_16KiB_us": t_one * 1e6,
                "nine_all_reduces_16KiB_us": t_nine * 1e6,
                "one_all_reduce_4MiB_us": t_large * 1e6,
                "bandwidth_GBps": bandwidth / 1e9,
                "latency_us": latency * 1e6,
            }),
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let base = CostModel::cpu(cores);
    let default_bandwidth = axis_bandwidth
        .values()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let model = CostModel {
        source: format!(
            "calibrated by `shardc calibrate` on this host ({cores} cores, mesh {}, engine {})",
            all.join(","),
            c.engine.name()
        ),
        default_bandwidth: if default_bandwidth.is_finite() {
            default_bandwidth
        } else {
            base.default_bandwidth
        },
        latency: if latencies.is_empty() {
            base.latency
        } else {
            latencies.iter().sum::<f64>() / latencies.len() as f64
        },
        axis_bandwidth,
        flops,
        vector_flops,
        shared_host: Some(SharedHost { cores, devices }),
        ..base
    };
    let raw = json!({
        "devices": devices,
        "cores": cores,
        "matmul_256x512x1024_ms": dot_s * 1e3,
        "matmul_GFLOPs_per_device": flops / 1e9,
        "elementwise_chain_1M_ms": chain_s * 1e3,
        "elementwise_GFLOPs_per_device": vector_flops / 1e9,
        "axes": per_axis,
    });
    Ok((model, raw))
}

fn mesh_text(axes: &[(String, usize)]) -> String {
    let list: Vec<String> = axes.iter().map(|(a, n)| format!("\"{a}\"={n}")).collect();
    format!("sdy.mesh @mesh = <[{}]>", list.join(", "))
}

/// A program whose only communication is `count` all-reduces over `axis` of `elements`
/// f32 per device: sums over a dimension split on the axis, one per argument.
fn all_reduces(mesh: &str, axis: &str, size: usize, elements: usize, count: usize) -> String {
    let ty = format!("tensor<{size}x{elements}xf32>");
    let args: Vec<String> = (0..count)
        .map(|i| {
            format!("%a{i}: {ty} {{sdy.sharding = #sdy.sharding<@mesh, [{{\"{axis}\"}}, {{}}]>}}")
        })
        .collect();
    let out = format!("tensor<{elements}xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}");
    let outs = vec![out; count].join(", ");
    let body: String = (0..count)
        .map(|i| {
            format!(
                "  %r{i} = stablehlo.reduce(%a{i} init: %z) applies stablehlo.add across dimensions = [0] : ({ty}, tensor<f32>) -> tensor<{elements}xf32>\n"
            )
        })
        .collect();
    let results: Vec<String> = (0..count).map(|i| format!("%r{i}")).collect();
    let types = vec![format!("tensor<{elements}xf32>"); count].join(", ");
    format!(
        "{mesh}
func.func @main({}) -> ({outs}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
{body}  return {} : {types}
}}",
        args.join(", "),
        results.join(", ")
    )
}

/// The median wall time of the program's runs on the cpu backend (the devices' run, from
/// the first starting to the last finishing; arguments already on the devices).
fn seconds(text: &str, c: &Calibrate) -> Result<f64, Error> {
    let m = shardc::ir::text::parse_module(text)
        .map_err(|e| Error::Usage(format!("calibration program: {e}")))?;
    let compiled = compile(&m, &Options::default()).map_err(|e| Error::Compile(Box::new(e)))?;
    let engine = c.engine.compute();
    let program = CpuProgram::new(&compiled, engine.as_ref())?;
    let f = m
        .entry()
        .ok_or_else(|| Error::Usage("calibration program without entry".into()))?;
    let inputs = crate::peer::inputs(&f.arg_types())?;
    let args = program.put(&compiled, &inputs)?;
    let mut times: Vec<Duration> = Vec::new();
    for run in 0..=c.repeats {
        let (_, report) = program.call(args.clone(), &RunOptions::default())?;
        if run > 0 {
            times.push(report.stats.wall);
        }
    }
    times.sort();
    Ok(times[times.len() / 2].as_secs_f64())
}
