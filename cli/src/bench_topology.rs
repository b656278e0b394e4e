//! `shardc bench topology`: a gradient-sized all-reduce over two emulated nodes, the flat
//! ring beside the hierarchical algorithm, predicted and measured in one invocation.
//!
//! The program is data parallelism's gradient sum: `x: f32[D, N]` split over `data` (one
//! row per device), its sum over rows replicated — one all-reduce of `4N` bytes. The
//! bench first measures that all-reduce on the host as it is (a ring of messages between
//! the device threads, no emulation) and takes the rate it achieves as the intra-node link; the inter-node link is `slowdown` times
//! slower. It compiles the program twice, with and without the topology in the cost model
//! (the first must route the all-reduce hierarchically on its own: `chosen_by_compiler`),
//! then runs both under the emulated topology ([`RunOptions::emulated_topology`]),
//! alternating, and reports the median of each with the compiler's two predictions.

use serde_json::{Value, json};
use shardc::compiler::{Compiled, CostModel, Options, compile};
use shardc::ir::Literal;
use shardc::ir::topology::{Algorithm, LinkClass, Topology};
use shardc::runtime::backend::RunOptions;
use shardc::{CpuProgram, Engine, Error, Resident};
use std::time::{Duration, Instant};

/// What `shardc bench topology` runs.
pub struct TopologyBench {
    /// Emulated nodes.
    pub nodes: usize,
    /// Devices on each.
    pub devices_per_node: usize,
    /// MiB all-reduced.
    pub mib: usize,
    /// How many times slower the links across nodes are than the host's own.
    pub slowdown: f64,
    /// Timed runs of each algorithm, alternating, after one untimed.
    pub runs: usize,
    /// What computes each device's segments.
    pub engine: Engine,
}

fn program(devices: usize, n: usize) -> Result<shardc::ir::Module, Error> {
    let text = format!(
        r#"module @gradient_sum {{
  sdy.mesh @mesh = <["data"={devices}]>
  func.func @main(%x: tensor<{devices}x{n}xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}})
      -> (tensor<{n}xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<{devices}x{n}xf32>, tensor<f32>) -> tensor<{n}xf32>
    return %s : tensor<{n}xf32>
  }}
}}"#
    );
    shardc::ir::text::parse_module(&text).map_err(|e| Error::Usage(format!("{e}")))
}

/// The median of `runs` calls (after one untimed) of each program, alternating.
fn medians(
    programs: &[(&Compiled, &CpuProgram, &RunOptions)],
    x: &[Literal],
    runs: usize,
) -> Result<Vec<Duration>, Error> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); programs.len()];
    for k in 0..=runs {
        for (i, (c, p, options)) in programs.iter().enumerate() {
            let args = p.put(c, x)?;
            let t = Instant::now();
            p.call(args, options)?;
            if k > 0 {
                times[i].push(t.elapsed());
            }
        }
    }
    Ok(times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect())
}

fn ms(d: f64) -> f64 {
    (d * 1e6).round() / 1e3
}

/// One JSON object: the emulated topology, both algorithms predicted and measured.
pub fn bench(b: &TopologyBench) -> Result<Value, Error> {
    let devices = b.nodes * b.devices_per_node;
    let n = b.mib * (1 << 20) / 4;
    let bytes = 4 * n as u64;
    let m = program(devices, n)?;
    let compute = b.engine.compute();
    let values: Vec<f64> = (0..devices * n).map(|i| (i % 7) as f64 * 0.5).collect();
    let x = vec![
        Literal::from_f64(shardc::ir::DType::F32, &[devices, n], &values)
            .map_err(|e| Error::Usage(e.to_string()))?,
    ];
    // The host's own ring, as messages between device threads (as emulated runs move
    // them): the intra-node link.
    let ring = compile(&m, &Options::default()).map_err(|e| Error::Compile(Box::new(e)))?;
    let ring_program = CpuProgram::new(&ring, compute.as_ref())?;
    let plain = RunOptions {
        shared_memory_min_bytes: usize::MAX,
        ..RunOptions::default()
    };
    let host = medians(&[(&ring, &ring_program, &plain)], &x, b.runs)?[0].as_secs_f64();
    let steps = 2.0 * (devices - 1) as f64;
    let intra = LinkClass::new(steps * (bytes as f64 / devices as f64) / host, 0.0);
    let inter = LinkClass::new(intra.bandwidth / b.slowdown, 0.0);
    let topology =
        Topology::new(b.nodes, b.devices_per_node, intra, inter).map_err(Error::Usage)?;
    let routed = compile(
        &m,
        &Options {
            cost: CostModel::host()
                .for_devices(devices)
                .with_topology(topology.clone()),
            ..Options::default()
        },
    )
    .map_err(|e| Error::Compile(Box::new(e)))?;
    let choice = routed
        .routes
        .first()
        .and_then(|r| r.choice.clone())
        .ok_or_else(|| Error::Usage("the program has no all-reduce to route".into()))?;
    let routed_program = CpuProgram::new(&routed, compute.as_ref())?;
    let emulated = RunOptions {
        emulated_topology: Some(topology.clone()),
        ..RunOptions::default()
    };
    let measured = medians(
        &[
            (&ring, &ring_program, &emulated),
            (&routed, &routed_program, &emulated),
        ],
        &x,
        b.runs,
    )?;
    let (ring_s, hier_s) = (measured[0].as_secs_f64(), measured[1].as_secs_f64());
    let predicted_hier = choice.hierarchical_s.unwrap_or(f64::NAN);
    Ok(json!({
        "bench": "topology",
        "engine": b.engine.name(),
        "topology": topology,
        "all_reduce_bytes": bytes,
        "host_ring_ms": ms(host),
        "chosen_by_compiler": match choice.algorithm {
            Algorithm::Ring => "ring".to_string(),
            a => a.attribute().unwrap_or_default(),
        },
        "ring": {"predicted_ms": ms(choice.ring_s), "measured_ms": ms(ring_s)},
        "hierarchical": {"predicted_ms": ms(predicted_hier), "measured_ms": ms(hier_s)},
        "predicted_speedup": (choice.ring_s / predicted_hier * 100.0).round() / 100.0,
        "measured_speedup": (ring_s / hier_s * 100.0).round() / 100.0,
    }))
}
