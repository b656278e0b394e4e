//! `shardc bench kernels`: the MLIR CPU kernels on one core, next to the references
//! that say how good they are — the `gemm` crate (single thread) for matmuls, the
//! core's peak, and `memcpy` for a fused elementwise chain. Prints one JSON object.
//!
//! Throughput is the median of timed repetitions (after one warm-up run), each kernel
//! writing into buffers allocated once (`CpuKernel::run_into`), so allocation and page
//! faults are not timed; the JIT and gemm see the same inputs and shapes.

use shardc::compiler::lower::Matmul;
use shardc::compiler::lower::cpu::{self, CpuKernel, CpuOptions, Tiling};
use shardc::ir::{BinaryOp, DotDims, Elements, FunctionBuilder, UnaryOp};
use shardc::{DType, Literal, TensorType};
use std::time::{Duration, Instant};

/// f32 peak of one core as DESIGN.md states it for this project's machines: Zen 3 with
/// AVX2 + FMA, 2 FMA pipes x 8 lanes x 2 flops per cycle at ~2.45 GHz.
const PEAK_GFLOPS_PER_CORE: f64 = 78.0;
const PEAK_SOURCE: &str = "DESIGN.md: Zen 3, AVX2+FMA, ~78 GFLOP/s f32 per core (2 FMA pipes x 8 lanes x 2 flops x ~2.45 GHz)";

/// The median time of `f` over repetitions lasting at least `budget` in all (at least
/// `min_reps`), after one untimed warm-up call.
/// [`median_time`] of a kernel's runs; the first failure, if any, is the error.
fn time_kernel(
    k: &cpu::CpuKernel,
    inputs: &[Literal],
    out: &mut [Literal],
    budget: Duration,
) -> Result<Duration, shardc::compiler::lower::LowerError> {
    let mut failed = None;
    let t = median_time(
        || {
            if let Err(e) = k.run_into(inputs, out) {
                failed.get_or_insert(e);
            }
        },
        budget,
        5,
    );
    failed.map_or(Ok(t), Err)
}

fn median_time(mut f: impl FnMut(), budget: Duration, min_reps: usize) -> Duration {
    f();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < min_reps || start.elapsed() < budget {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn f32_values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn literal(shape: &[usize], v: Vec<f32>) -> Literal {
    Literal {
        ty: TensorType::new(DType::F32, shape),
        elements: Elements::F32(v),
    }
}

fn f32_slice(l: &Literal) -> &[f32] {
    match &l.elements {
        Elements::F32(v) => v,
        _ => &[],
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

fn zeros_like(k: &CpuKernel) -> Vec<Literal> {
    k.outputs()
        .iter()
        .map(|t| Literal {
            ty: t.clone(),
            elements: Elements::zeros(t.dtype, t.num_elements()),
        })
        .collect()
}

/// How a matmul's operands are laid out, as a training step's three products are: the
/// forward `x w` ([m, k] by [k, n]), the input gradient `dy wᵀ` (the right operand stored
/// [n, k]) and the weight gradient `xᵀ dy` (the left operand stored [k, m]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    /// `[m, k] x [k, n]`.
    Nn,
    /// `[m, k] x [n, k]`, contracting both operands' last dimension.
    Nt,
    /// `[k, m] x [k, n]`, contracting both operands' first dimension.
    Tn,
}

/// One matmul `[m, k] x [k, n]` with its operands laid out as `layout` says: the JIT and
/// gemm (reading the same buffers through strides), their GFLOP/s, and the largest
/// difference.
fn matmul(
    (m, n, k): (usize, usize, usize),
    layout: Layout,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    // Stored shapes, contracted dimensions, and (row, column) strides of the logical
    // [m, k] and [k, n] matrices in those buffers.
    let (lhs_shape, lhs_c, lhs_strides) = match layout {
        Layout::Nn | Layout::Nt => ([m, k], 1, (k as isize, 1)),
        Layout::Tn => ([k, m], 0, (1, m as isize)),
    };
    let (rhs_shape, rhs_c, rhs_strides) = match layout {
        Layout::Nn | Layout::Tn => ([k, n], 0, (n as isize, 1)),
        Layout::Nt => ([n, k], 1, (1, k as isize)),
    };
    let mut b = FunctionBuilder::new(
        "matmul",
        &[
            TensorType::new(DType::F32, lhs_shape),
            TensorType::new(DType::F32, rhs_shape),
        ],
    );
    let dims = DotDims {
        lhs_contracting: vec![lhs_c],
        rhs_contracting: vec![rhs_c],
        ..DotDims::default()
    };
    let (x, w) = (b.arg(0), b.arg(1));
    let y = b.dot_general(x, w, dims)?;
    let f = b.finish(&[y]);
    let kernel = cpu::compile(&f, &CpuOptions::default())?;
    let inputs = [
        literal(&lhs_shape, f32_values(m * k, 1)),
        literal(&rhs_shape, f32_values(k * n, 2)),
    ];
    let mut out = zeros_like(&kernel);
    let budget = Duration::from_millis(1500);
    let jit = time_kernel(&kernel, &inputs, &mut out, budget)?;
    let mut dst = vec![0f32; m * n];
    let (lhs, rhs) = (f32_slice(&inputs[0]), f32_slice(&inputs[1]));
    let gemm_time = median_time(
        || {
            // SAFETY: row-major buffers of the stated shapes read through strides that
            // stay inside them, all live and non-overlapping.
            unsafe {
                gemm::gemm(
                    m,
                    n,
                    k,
                    dst.as_mut_ptr(),
                    1,
                    n as isize,
                    false,
                    lhs.as_ptr(),
                    lhs_strides.1,
                    lhs_strides.0,
                    rhs.as_ptr(),
                    rhs_strides.1,
                    rhs_strides.0,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                )
            }
        },
        budget,
        5,
    );
    let max_diff = f32_slice(&out[0])
        .iter()
        .zip(&dst)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    let flops = 2.0 * (m * n * k) as f64;
    let gflops = |d: Duration| flops / d.as_secs_f64() / 1e9;
    let tiling = Tiling::for_matmul(&Matmul {
        tag: 0,
        m,
        n,
        k,
        dtype: DType::F32,
    });
    Ok(serde_json::json!({
        "shape": [m, n, k],
        "layout": format!("{layout:?}").to_lowercase(),
        "jit_gflops": round(gflops(jit), 1),
        "gemm_gflops": round(gflops(gemm_time), 1),
        "jit_over_gemm": round(gflops(jit) / gflops(gemm_time), 3),
        "jit_over_peak": round(gflops(jit) / PEAK_GFLOPS_PER_CORE, 3),
        "jit_ms": round(jit.as_secs_f64() * 1e3, 3),
        "gemm_ms": round(gemm_time.as_secs_f64() * 1e3, 3),
        "max_abs_diff_vs_gemm": max_diff,
        "tiling": format!("{tiling:?}"),
        "compile_ms": round(kernel.compile_time().as_secs_f64() * 1e3, 1),
    }))
}

/// A chain of five elementwise ops on three inputs, fused into one loop: its bandwidth
/// (bytes read and written per second) next to memcpy moving the same bytes.
fn chain(mb: usize, transcendental: bool) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let len = mb * (1 << 20) / 4;
    let shape = [len / 1024, 1024];
    let t = TensorType::new(DType::F32, shape);
    let mut b = FunctionBuilder::new("chain", &[t.clone(), t.clone(), t]);
    let (x, y, z) = (b.arg(0), b.arg(1), b.arg(2));
    let s = b.binary(BinaryOp::Multiply, x, y)?;
    let s = b.binary(BinaryOp::Add, s, x)?;
    let s = if transcendental {
        b.unary(UnaryOp::Tanh, s)?
    } else {
        b.binary(BinaryOp::Subtract, s, y)?
    };
    let s = b.binary(BinaryOp::Maximum, s, z)?;
    let r = b.unary(UnaryOp::Negate, s)?;
    let f = b.finish(&[r]);
    let k = cpu::compile(&f, &CpuOptions::default())?;
    let n = shape[0] * shape[1];
    let inputs: Vec<Literal> = (0..3)
        .map(|i| literal(&shape, f32_values(n, 10 + i)))
        .collect();
    let mut out = zeros_like(&k);
    let budget = Duration::from_millis(1500);
    let jit = time_kernel(&k, &inputs, &mut out, budget)?;
    // memcpy of half the traffic moves the same bytes (it reads and writes each).
    let bytes = 4 * n * 4;
    let src = vec![1u8; bytes / 2];
    let mut dst = vec![0u8; bytes / 2];
    let copy = median_time(|| dst.copy_from_slice(&src), budget, 5);
    std::hint::black_box(&dst);
    let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    Ok(serde_json::json!({
        "ops": if transcendental { "multiply, add, tanh, maximum, negate" } else { "multiply, add, subtract, maximum, negate" },
        "elements": n,
        "bytes_moved": bytes,
        "jit_gbs": round(gbs(jit), 2),
        "memcpy_gbs": round(gbs(copy), 2),
        "jit_time_over_memcpy": round(jit.as_secs_f64() / copy.as_secs_f64(), 2),
        "compile_ms": round(k.compile_time().as_secs_f64() * 1e3, 1),
    }))
}

/// The row and column reductions of a transformer, `[rows, cols]` f32, each compiled with
/// its reductions vectorized (`CpuOptions::vectorize_reductions`) and as plain loops, run
/// side by side: the time of both, their ratio, and that they give the same bits.
fn reductions(
    rows: usize,
    cols: usize,
) -> Result<Vec<serde_json::Value>, Box<dyn std::error::Error>> {
    let x = format!("tensor<{rows}x{cols}xf32>");
    let v = format!("tensor<{rows}xf32>");
    let c = format!("tensor<{cols}xf32>");
    let head = |ret: &str| {
        format!(
            "module {{\n func.func @main(%x: {x}) -> {ret} {{\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        )
    };
    let texts = [
        (
            "layer_norm_rows",
            format!(
                "{}  %n = stablehlo.constant dense<{cols}.0> : {v}\n  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : ({x}, tensor<f32>) -> {v}\n  %m = stablehlo.divide %s, %n : {v}\n  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({v}) -> {x}\n  %d = stablehlo.subtract %x, %mb : {x}\n  %q = stablehlo.multiply %d, %d : {x}\n  %w = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : ({x}, tensor<f32>) -> {v}\n  %va = stablehlo.divide %w, %n : {v}\n  %i = stablehlo.rsqrt %va : {v}\n  %ib = stablehlo.broadcast_in_dim %i, dims = [0] : ({v}) -> {x}\n  %y = stablehlo.multiply %d, %ib : {x}\n  return %y : {x}\n }}\n}}",
                head(&x)
            ),
        ),
        (
            "softmax_rows",
            format!(
                "{}  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n  %m = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [1] : ({x}, tensor<f32>) -> {v}\n  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({v}) -> {x}\n  %d = stablehlo.subtract %x, %mb : {x}\n  %e = stablehlo.exponential %d : {x}\n  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : ({x}, tensor<f32>) -> {v}\n  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : ({v}) -> {x}\n  %y = stablehlo.divide %e, %sb : {x}\n  return %y : {x}\n }}\n}}",
                head(&x)
            ),
        ),
        (
            "column_sum",
            format!(
                "{}  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : ({x}, tensor<f32>) -> {c}\n  return %s : {c}\n }}\n}}",
                head(&c)
            ),
        ),
    ];
    let mut cases = Vec::new();
    for (case, text) in texts {
        let m = shardc::ir::text::parse_module(&text)?;
        let f = shardc::compiler::lower::whole_function(m.function("main").ok_or("no main")?)?;
        let on = cpu::compile(&f, &CpuOptions::default())?;
        let off = cpu::compile(
            &f,
            &CpuOptions {
                vectorize_reductions: false,
                ..CpuOptions::default()
            },
        )?;
        let inputs = [literal(&[rows, cols], f32_values(rows * cols, 31))];
        let (mut out_on, mut out_off) = (zeros_like(&on), zeros_like(&off));
        let budget = Duration::from_millis(1000);
        // Alternated, so that both see the same machine.
        let mut times = (Vec::new(), Vec::new());
        for _ in 0..3 {
            times
                .0
                .push(time_kernel(&on, &inputs, &mut out_on, budget / 3)?);
            times
                .1
                .push(time_kernel(&off, &inputs, &mut out_off, budget / 3)?);
        }
        times.0.sort();
        times.1.sort();
        let (v, l) = (times.0[1], times.1[1]);
        cases.push(serde_json::json!({
            "case": case,
            "shape": [rows, cols],
            "vectorized_ms": round(v.as_secs_f64() * 1e3, 3),
            "loops_ms": round(l.as_secs_f64() * 1e3, 3),
            "speedup": round(l.as_secs_f64() / v.as_secs_f64(), 2),
            "same_bits": out_on == out_off,
        }));
    }
    Ok(cases)
}

/// The host CPU as Linux names it, and whether it has AVX-512.
fn host() -> serde_json::Value {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    #[cfg(target_arch = "x86_64")]
    let (avx2, avx512) = (
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512f"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (avx2, avx512) = (false, false);
    serde_json::json!({ "cpu": model, "avx2": avx2, "avx512f": avx512 })
}

/// Square matmuls of `sizes` (laid out `nn`), then each of `shapes` (`m, n, k`) in each
/// of `layouts`.
pub fn bench(
    sizes: &[usize],
    shapes: &[(usize, usize, usize)],
    layouts: &[Layout],
    chain_mb: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut matmuls: Vec<serde_json::Value> = sizes
        .iter()
        .map(|&n| matmul((n, n, n), Layout::Nn))
        .collect::<Result<_, _>>()?;
    for &shape in shapes {
        for &layout in layouts {
            matmuls.push(matmul(shape, layout)?);
        }
    }
    let chains = vec![chain(chain_mb, false)?, chain(chain_mb, true)?];
    let reductions = reductions(2048, 768)?;
    let above_peak = matmuls
        .iter()
        .any(|m| m["jit_gflops"].as_f64().unwrap_or(0.0) > PEAK_GFLOPS_PER_CORE);
    let json = serde_json::json!({
        "bench": "kernels",
        "threads": 1,
        "host": host(),
        "peak_gflops_per_core": PEAK_GFLOPS_PER_CORE,
        "peak_source": PEAK_SOURCE,
        "peak_note": if above_peak {
            "measured above the stated peak: this host is faster than the Zen 3 the constant describes (its boost clock is not visible to the guest)"
        } else {
            "the stated peak bounds every measurement"
        },
        "matmul_f32": matmuls,
        "elementwise_chain_f32": chains,
        "reductions_f32": reductions,
    });
    super::emit(&serde_json::to_string_pretty(&json)?);
    Ok(())
}
