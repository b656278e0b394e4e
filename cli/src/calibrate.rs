//! `shardc calibrate`: measures the cpu backend on this host, with the mesh a program will
//! run on, and gives the [`CostModel`] compilation then optimises (`--cost-profile`,
//! `SHARDC_COST_PROFILE`).
//!
//! Every figure is a whole program run through the backend as a user's program runs —
//! sharded by the partitioner, one thread per device, the engine computing — so that what
//! the model predicts is what was measured: chains of matmuls every device computes at
//! once, at seven sizes (the contraction FLOP rate each device gets while all of them
//! compute, by size) and at five of each other shape class (skinny: 8 rows; batched: 8
//! products at once), a fused elementwise chain (the rate of every other op), a
//! matrix's row sums (the rate of reductions), a step that
//! computes almost nothing (what every step pays to start and join its devices), and, per
//! mesh axis, layers of matmuls with and without an all-reduce between them (a
//! collective's latency among kernels, as in a training step), with a permute between them
//! (a `collective_permute`'s, which waits on one peer, not the group), and all-reduces of two sizes
//! under the size from which collectives go through shared memory (the rings' bandwidth)
//! and two above it (shared memory's), each bandwidth fitted to the bytes the cost model
//! charges; on a mesh of several axes, also the layers with an all-reduce over all of them
//! (the latency of the largest groups, as a gradient's all-reduce over data x model has).

use serde_json::{Value, json};
use shardc::Resident;
use shardc::compiler::sharding::cost::{CostModel, DotClass, SharedHost, SharedMemory};
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

    // Contractions: chains of matmuls every device computes (`x = x w`, `m x k` by
    // `k x k`), at sizes from 8 KFLOP to 1 GFLOP (the rate grows with size); one link and
    // a long chain, so that their difference leaves out the run's own start and end, as
    // a dot inside a program pays neither. 256x512x512 is the model's single figure.
    let mut dot_ms = serde_json::Map::new();
    let mut class_rates = std::collections::BTreeMap::new();
    for (class, sizes) in DOT_SIZES {
        let mut rates = Vec::new();
        for &shape in sizes {
            let (size, per_dot) = per_dot(&mesh, shape, c)?;
            rates.push((size, size / per_dot));
            dot_ms.insert(dot_name(class, shape), json!(per_dot * 1e3));
        }
        class_rates.insert(class, rates);
    }
    let dot_rates = class_rates.remove(&DotClass::Square).unwrap_or_default();
    let flops = dot_rates[DOT_REFERENCE].1;

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

    // Reductions: the row sums of a 1024 x 1024 matrix (a softmax's or a layer norm's),
    // one FLOP per element, less a step's fixed cost (measured next).
    let rows = format!(
        "{mesh}
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024xf32> {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}}"
    );
    let reduce_s = seconds(&rows, c)?;

    // Ops that only move data: a concatenation of two vectors into a 4 MiB result on every
    // device (a gradient bucket's), less a step's fixed cost (measured next).
    let half = 1 << 19;
    let concat = format!(
        "{mesh}
func.func @main(%a: tensor<{half}xf32>, %b: tensor<{half}xf32>) -> tensor<{e}xf32> {{
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<{half}xf32>, tensor<{half}xf32>) -> tensor<{e}xf32>
  return %0 : tensor<{e}xf32>
}}"
    );
    let concat_s = seconds(&concat, c)?;

    // The step's fixed cost: a step of one add of 64 floats on every device.
    let trivial = format!(
        "{mesh}
func.func @main(%a: tensor<64xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) -> (tensor<64xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{
  %0 = stablehlo.add %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}}"
    );
    let step_overhead = seconds(&trivial, c)?;

    // A loop's fixed cost per iteration: a scan of 256 steps, each slicing a row of an
    // 8 x 64 tensor, computing on it and writing it back (four kernels), less a step's
    // fixed cost.
    let steps = 256;
    let scan = format!(
        "{mesh}
func.func @main(%a: tensor<8x64xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{}}]>}}) -> (tensor<8x64xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{}}]>}}) {{
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %z, %ys = %a) : tensor<i32>, tensor<8x64xf32>
    cond {{
      %n = stablehlo.constant dense<{steps}> : tensor<i32>
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }} do {{
      %eight = stablehlo.constant dense<8> : tensor<i32>
      %k = stablehlo.remainder %i, %eight : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %row = stablehlo.dynamic_slice %ys, %k, %zero, sizes = [1, 64] : (tensor<8x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
      %t = stablehlo.tanh %row : tensor<1x64xf32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %t, %k, %zero : (tensor<8x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<8x64xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %ys2 : tensor<i32>, tensor<8x64xf32>
    }}
  return %r#1 : tensor<8x64xf32>
}}"
    );
    let loop_iteration = (seconds(&scan, c)? - step_overhead).max(0.0) / steps as f64;
    let memory_bandwidth = (4 * e) as f64 / (concat_s - step_overhead).max(1e-7);
    let reduce_flops = e as f64 / (reduce_s - step_overhead).max(1e-7);

    // Collectives, per axis: all-reduces of 16 KiB and 240 KiB (their difference is
    // bytes over the axis), of 512 KiB and 4 MiB (the rate of large ones), and the layers
    // that give the latency. The cpu backend moves all of them through shared memory
    // (`shared::MIN_BYTES`).
    let (small, ring_large) = (4 << 10, 60 << 10);
    let (board_small, large) = (128 << 10, 1 << 20);
    let mut axis_bandwidth = std::collections::BTreeMap::new();
    let mut shared_bandwidth: Vec<f64> = Vec::new();
    let mut copy_bandwidth: Vec<f64> = Vec::new();
    let mut latencies = Vec::new();
    let mut permutes: Vec<f64> = Vec::new();
    let mut group_latency: Vec<(usize, f64)> = Vec::new();
    let mut per_axis = serde_json::Map::new();
    // Each run's time less its compute (the local sums and updates, at the elementwise
    // rate just measured).
    let compute_model = CostModel {
        vector_flops,
        ..CostModel::cpu(1)
    };
    let communication = |text: &str| -> Result<f64, Error> {
        let (t, compiled) = run(text, c)?;
        let compute = compiled
            .partitioned
            .module
            .entry()
            .map_or(0.0, |f| compute_model.program_time(f).compute);
        Ok((t - compute).max(1e-7))
    };
    for (axis, size) in c.axes.iter().filter(|a| a.1 > 1) {
        let all_reduce = |elements: usize| communication(&all_reduce(&mesh, axis, *size, elements));
        let t_one = all_reduce(small)?;
        let t_ring = all_reduce(ring_large)?;
        let t_board = all_reduce(board_small)?;
        let t_large = all_reduce(large)?;
        // A ring all-reduce sends 2(n-1)/n of the buffer per device.
        let ring = |elements: usize| (2 * (size - 1) * elements * 4) as f64 / *size as f64;
        // Latency: small all-reduces between small kernels, less the time of the
        // layers without them (and of the ops that make the sums).
        let one = std::slice::from_ref(axis);
        let t_plain = communication(&layer_chain(&mesh, one, *size, Between::Nothing))?;
        let t_reduced = communication(&layer_chain(&mesh, one, *size, Between::AllReduce))?;
        let latency = ((t_reduced - t_plain) / LAYERS as f64).max(1e-7);
        let t_permuted = communication(&layer_chain(&mesh, one, *size, Between::Permute))?;
        let permute = ((t_permuted - t_plain) / LAYERS as f64).max(1e-7);
        permutes.push(permute);
        group_latency.push((*size, latency));
        let bandwidth = (ring(ring_large) - ring(small)) / (t_ring - t_one).max(1e-9);
        axis_bandwidth.insert(axis.clone(), bandwidth);
        let shared = (ring(large) - ring(board_small)) / (t_large - t_board).max(1e-9);
        shared_bandwidth.push(shared);
        // Collectives that only copy: all-gathers of 512 KiB and 4 MiB results, whose
        // ring sends (n-1)/n of the result per device.
        let all_gather = |elements: usize| communication(&all_gather(&mesh, axis, elements));
        let (g_small, g_large) = (all_gather(board_small)?, all_gather(large)?);
        let gathered = |elements: usize| ((size - 1) * elements * 4) as f64 / *size as f64;
        let copy = (gathered(large) - gathered(board_small)) / (g_large - g_small).max(1e-9);
        copy_bandwidth.push(copy);
        latencies.push(latency);
        per_axis.insert(
            axis.clone(),
            json!({
                "size": size,
                "one_all_reduce_16KiB_us": t_one * 1e6,
                "one_all_reduce_240KiB_us": t_ring * 1e6,
                "one_all_reduce_512KiB_us": t_board * 1e6,
                "layers_without_all_reduces_us": t_plain * 1e6,
                "layers_with_all_reduces_us": t_reduced * 1e6,
                "layers_with_permutes_us": t_permuted * 1e6,
                "permute_latency_us": permute * 1e6,
                "one_all_reduce_4MiB_us": t_large * 1e6,
                "bandwidth_GBps": bandwidth / 1e9,
                "shared_memory_GBps": shared / 1e9,
                "one_all_gather_512KiB_us": g_small * 1e6,
                "one_all_gather_4MiB_us": g_large * 1e6,
                "shared_memory_copy_GBps": copy / 1e9,
                "latency_us": latency * 1e6,
            }),
        );
    }
    // A mesh of several axes: the latency of a collective over all of them (a gradient's
    // all-reduce over data x model), whose groups are larger than any one axis's.
    let split: Vec<String> = c
        .axes
        .iter()
        .filter(|a| a.1 > 1)
        .map(|a| a.0.clone())
        .collect();
    if split.len() > 1 {
        let t_plain = communication(&layer_chain(&mesh, &split, devices, Between::Nothing))?;
        let t_reduced = communication(&layer_chain(&mesh, &split, devices, Between::AllReduce))?;
        let latency = ((t_reduced - t_plain) / LAYERS as f64).max(1e-7);
        group_latency.push((devices, latency));
        per_axis.insert(
            split.join(","),
            json!({
                "size": devices,
                "layers_without_all_reduces_us": t_plain * 1e6,
                "layers_with_all_reduces_us": t_reduced * 1e6,
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
        // The slowest axis's: the board is one host's memory whatever the axis.
        shared_memory: base.shared_memory.map(|sm| SharedMemory {
            bandwidth: shared_bandwidth
                .iter()
                .copied()
                .reduce(f64::min)
                .unwrap_or(sm.bandwidth),
            copy_bandwidth: copy_bandwidth.iter().copied().reduce(f64::min),
            ..sm
        }),
        group_latency: by_size(group_latency),
        permute_latency: (!permutes.is_empty())
            .then(|| permutes.iter().sum::<f64>() / permutes.len() as f64),
        flops,
        dot_rates: dot_rates.clone(),
        dot_class_rates: class_rates.clone(),
        vector_flops,
        reduce_flops: Some(reduce_flops),
        memory_bandwidth: Some(memory_bandwidth),
        step_overhead,
        loop_iteration,
        shared_host: Some(SharedHost { cores, devices }),
        ..base
    };
    let raw = json!({
        "devices": devices,
        "cores": cores,
        "matmul_ms": dot_ms,
        "matmul_GFLOPs_per_device": gflops(&dot_rates),
        "matmul_GFLOPs_per_device_by_class": class_rates.iter().map(|(class, rates)| (format!("{class:?}").to_lowercase(), json!(gflops(rates)))).collect::<serde_json::Map<_, _>>(),
        "row_sums_1M_ms": reduce_s * 1e3,
        "reduce_GFLOPs_per_device": reduce_flops / 1e9,
        "elementwise_chain_1M_ms": chain_s * 1e3,
        "elementwise_GFLOPs_per_device": vector_flops / 1e9,
        "concatenate_4MiB_ms": concat_s * 1e3,
        "memory_GBps_per_device": memory_bandwidth / 1e9,
        "step_overhead_us": step_overhead * 1e6,
        "loop_iteration_us": loop_iteration * 1e6,
        "axes": per_axis,
    });
    Ok((model, raw))
}

/// `(b, m, k)`: `b` products of `m x k` by `k x k` (`b` = 1: no batch dimension).
type DotShape = (usize, usize, usize);

/// The matmuls whose rates are measured, per shape class, by increasing FLOPs.
const DOT_SIZES: [(DotClass, &[DotShape]); 3] = [
    (
        DotClass::Square,
        &[
            (1, 16, 16),
            (1, 32, 32),
            (1, 64, 64),
            (1, 128, 128),
            (1, 256, 256),
            (1, 256, 512),
            (1, 1024, 512),
        ],
    ),
    // A few rows against a large weight (a small batch's projection).
    (
        DotClass::Skinny,
        &[
            (1, 8, 128),
            (1, 8, 256),
            (1, 8, 512),
            (1, 8, 1024),
            (1, 8, 2048),
        ],
    ),
    // Eight products at once (attention's heads).
    (
        DotClass::Batched,
        &[
            (8, 16, 16),
            (8, 32, 32),
            (8, 64, 64),
            (8, 128, 128),
            (8, 256, 256),
        ],
    ),
];

/// Which of the square [`DOT_SIZES`] gives the model's single contraction rate
/// (`CostModel::flops`).
const DOT_REFERENCE: usize = 5;

/// FLOPs of the longer chain of each size (at least 9 links, at most 512).
const CHAIN_FLOPS: f64 = 268435456.0;

/// The FLOPs of one dot of `shape` and the seconds it takes among others like it: a chain
/// of one link and a long one, so that their difference leaves out the run's own start
/// and end, as a dot inside a program pays neither.
fn per_dot(mesh: &str, shape: DotShape, c: &Calibrate) -> Result<(f64, f64), Error> {
    let (b, m, k) = shape;
    let size = (2 * b * m * k * k) as f64;
    // Enough links for ~256 MFLOP of dots, so that small ones add up beyond the run's
    // jitter.
    let links = ((CHAIN_FLOPS / size) as usize).clamp(9, 512);
    let one = seconds(&dot_chain(mesh, shape, 1), c)?;
    let many = seconds(&dot_chain(mesh, shape, links), c)?;
    // Where the difference is lost in the noise (a chain of small dots on a busy
    // machine), the long chain alone, start and end spread over its links.
    let per_dot = if many - one > 0.5 * many {
        (many - one) / (links - 1) as f64
    } else {
        many / links as f64
    };
    Ok((size, per_dot))
}

/// How the raw figures name a measured dot: `256x512x512`, `8x(64x64x64)`.
fn dot_name(class: DotClass, (b, m, k): DotShape) -> String {
    match class {
        DotClass::Batched => format!("{b}x({m}x{k}x{k})"),
        _ => format!("{m}x{k}x{k}"),
    }
}

/// A table of rates in GFLOP/s, as the raw figures give it.
fn gflops(rates: &[(f64, f64)]) -> Vec<Value> {
    rates
        .iter()
        .map(|&(size, rate)| json!([size, rate / 1e9]))
        .collect()
}

/// `x = tanh(x w)` `links` times: `x: m x k`, `w: k x k`, or with a leading batch
/// dimension of `b` on both when `b > 1` (the tanh keeps values bounded and costs little
/// beside the dot).
fn dot_chain(mesh: &str, (b, m, k): DotShape, links: usize) -> String {
    let (x, w, dims) = if b > 1 {
        (
            format!("tensor<{b}x{m}x{k}xf32>"),
            format!("tensor<{b}x{k}x{k}xf32>"),
            "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
        )
    } else {
        (
            format!("tensor<{m}x{k}xf32>"),
            format!("tensor<{k}x{k}xf32>"),
            "contracting_dims = [1] x [0]",
        )
    };
    let mut body = String::new();
    let mut last = "%x".to_string();
    for i in 0..links {
        body.push_str(&format!(
            "  %d{i} = stablehlo.dot_general {last}, %w, {dims} : ({x}, {w}) -> {x}\n"
        ));
        body.push_str(&format!("  %t{i} = stablehlo.tanh %d{i} : {x}\n"));
        last = format!("%t{i}");
    }
    format!("{mesh}\nfunc.func @main(%x: {x}, %w: {w}) -> {x} {{\n{body}  return {last} : {x}\n}}")
}

/// One latency per group size (the mean of the axes of that size), by increasing size.
fn by_size(latencies: Vec<(usize, f64)>) -> Vec<(usize, f64)> {
    let mut sizes: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for (size, latency) in latencies {
        sizes.entry(size).or_default().push(latency);
    }
    sizes
        .into_iter()
        .map(|(size, l)| (size, l.iter().sum::<f64>() / l.len() as f64))
        .collect()
}

fn mesh_text(axes: &[(String, usize)]) -> String {
    let list: Vec<String> = axes.iter().map(|(a, n)| format!("\"{a}\"={n}")).collect();
    format!("sdy.mesh @mesh = <[{}]>", list.join(", "))
}

/// Layers in [`layer_chain`].
const LAYERS: usize = 16;

/// What [`layer_chain`] puts between its layers.
#[derive(Copy, Clone, PartialEq)]
enum Between {
    /// Nothing: the layers alone.
    Nothing,
    /// Each layer's column sums added to its output: an all-reduce of 256 B.
    AllReduce,
    /// Each layer's output moved one device along the axis (`shardc.rotate` by a
    /// device's rows): a `collective_permute` of 4 KiB, as a ring's step.
    Permute,
}

/// [`LAYERS`] layers of `h = tanh(h w)` on rows split over `axes` (16 rows per device,
/// 64 features: kernels of microseconds, so that collectives follow each other as in the
/// layers of a tensor-parallel stack), with `between` after each: for
/// [`Between::AllReduce`], the column sums of its output added to it, an all-reduce of
/// 256 B over `axes` between two matmuls. (Among
/// matmuls of 128 x 256 x 256 per device, 8 devices on 2 cores, the same all-reduce
/// measured 210-500 µs, noisier than the 250-320 µs here, where the peer programs' 257
/// all-reduces of `transformer_stack_16` take ~210 µs each.)
fn layer_chain(mesh: &str, axes: &[String], size: usize, between: Between) -> String {
    let axis = axes
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let (rows, k) = (16 * size, 64);
    let h = format!("tensor<{rows}x{k}xf32>");
    let w = format!("tensor<{k}x{k}xf32>");
    let v = format!("tensor<{k}xf32>");
    let mut body = String::from("  %z = stablehlo.constant dense<0.0> : tensor<f32>\n");
    let mut last = "%x".to_string();
    for i in 0..LAYERS {
        body.push_str(&format!(
            "  %d{i} = stablehlo.dot_general {last}, %w, contracting_dims = [1] x [0] : ({h}, {w}) -> {h}\n  %t{i} = stablehlo.tanh %d{i} : {h}\n"
        ));
        last = format!("%t{i}");
        match between {
            Between::Nothing => {}
            Between::AllReduce => {
                body.push_str(&format!(
                    "  %s{i} = stablehlo.reduce(%t{i} init: %z) applies stablehlo.add across dimensions = [0] : ({h}, tensor<f32>) -> {v}\n  %b{i} = stablehlo.broadcast_in_dim %s{i}, dims = [1] : ({v}) -> {h}\n  %a{i} = stablehlo.add %t{i}, %b{i} : {h}\n"
                ));
                last = format!("%a{i}");
            }
            Between::Permute => {
                body.push_str(&format!(
                    "  %r{i} = shardc.rotate %t{i}, dim = 0, shift = 16 : {h}\n"
                ));
                last = format!("%r{i}");
            }
        }
    }
    format!(
        "{mesh}\nfunc.func @main(%x: {h} {{sdy.sharding = #sdy.sharding<@mesh, [{{{axis}}}, {{}}]>}}, %w: {w}) -> ({h} {{sdy.sharding = #sdy.sharding<@mesh, [{{{axis}}}, {{}}]>}}) {{\n{body}  return {last} : {h}\n}}"
    )
}

/// A program whose only communication is one all-reduce over `axis` of `elements` f32
/// per device: the sum over a dimension split on the axis, added to an accumulator the
/// next run takes (a gradient's all-reduce feeding its update, the storage of the value it
/// replaces reused as in a training loop).
fn all_reduce(mesh: &str, axis: &str, size: usize, elements: usize) -> String {
    let ty = format!("tensor<{size}x{elements}xf32>");
    let v = format!("tensor<{elements}xf32>");
    format!(
        "{mesh}
func.func @main(%acc: {v} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}, %a: {ty} {{sdy.sharding = #sdy.sharding<@mesh, [{{\"{axis}\"}}, {{}}]>}}) -> ({v} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : ({ty}, tensor<f32>) -> {v}
  %s = stablehlo.add %acc, %r : {v}
  return %s : {v}
}}"
    )
}

/// A program whose only communication is one all-gather over `axis` of a result of
/// `elements` f32: an operand split over the axis, added to a replicated accumulator and
/// returned replicated.
fn all_gather(mesh: &str, axis: &str, elements: usize) -> String {
    let v = format!("tensor<{elements}xf32>");
    format!(
        "{mesh}
func.func @main(%acc: {v} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}, %a: {v} {{sdy.sharding = #sdy.sharding<@mesh, [{{\"{axis}\"}}]>}}) -> ({v} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}]>}}) {{
  %s = stablehlo.add %acc, %a : {v}
  return %s : {v}
}}"
    )
}

/// The median wall time of the program's runs on the cpu backend (the devices' run, from
/// the first starting to the last finishing; arguments already on the devices).
fn seconds(text: &str, c: &Calibrate) -> Result<f64, Error> {
    run(text, c).map(|(s, _)| s)
}

/// [`seconds`], and the program as compiled.
fn run(text: &str, c: &Calibrate) -> Result<(f64, shardc::Compiled), Error> {
    let m = shardc::ir::text::parse_module(text)
        .map_err(|e| Error::Usage(format!("calibration program: {e}")))?;
    let compiled = compile(&m, &Options::default()).map_err(|e| Error::Compile(Box::new(e)))?;
    let engine = c.engine.compute();
    let program = CpuProgram::new(&compiled, engine.as_ref())?;
    let f = m
        .entry()
        .ok_or_else(|| Error::Usage("calibration program without entry".into()))?;
    let inputs = crate::peer::inputs(&f.arg_types())?;
    let mut args = program.put(&compiled, &inputs)?;
    // Results carried into the next run as a training step's are: the storage of what
    // they replace returns to the devices' pools.
    let (carry, fresh) = crate::peer::carried(f, &inputs);
    let mut times: Vec<Duration> = Vec::new();
    for run in 0..=c.repeats {
        let (results, report) = program.call(args, &RunOptions::default())?;
        args = program.next_args(&compiled, results, &carry, &fresh)?;
        if run == 0 {
            // Timed runs use the kernels' final code, as `bench plans` and a training
            // loop's steady state do (`compiler::lower::tier`).
            engine.finish_tiering();
        } else {
            times.push(report.stats.wall);
        }
    }
    times.sort();
    Ok((times[times.len() / 2].as_secs_f64(), compiled))
}
