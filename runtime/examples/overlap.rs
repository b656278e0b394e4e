//! Overlap on the cpu backend: a data-parallel step on 8 device threads where two gradient
//! all-reduces sit in the middle of other compute. Runs it with overlap on and off, prints
//! the wall time, each device's compute / communication / waiting time and bytes sent,
//! and writes the trace of the last overlapped run (open it in https://ui.perfetto.dev).
//!
//! `cargo run --release -p shardc-runtime --example overlap -- [--size N] [--runs R] [--trace FILE]`

use shardc_ir::text::parse_module;
use shardc_ir::{DType, Literal};
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::{Executable, RunOptions, RunReport};
use shardc_runtime::engine::Interpreted;
use std::time::Duration;

const DEVICES: usize = 8;

/// `g2 = x·w2` is all-reduced while `g1 = (x·w1)·w1` is computed, `g1` while `h = x·x`
/// is; the updates read the reduced gradients last.
fn program(n: usize) -> String {
    let t = format!("tensor<{n}x{n}xf32>");
    let dot = |a: &str, b: &str| {
        format!("stablehlo.dot_general {a}, {b}, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}")
    };
    let all_reduce = |x: &str| {
        format!(
            r#""stablehlo.all_reduce"({x}) <{{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}}> ({{
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }}) : ({t}) -> {t}"#
        )
    };
    format!(
        r#"module @two_chains {{
  func.func public @main(%x: {t}, %w1: {t}, %w2: {t}) -> ({t}, {t}, {t}) {{
    %g2 = {}
    %r2 = {}
    %a1 = {}
    %g1 = {}
    %r1 = {}
    %h = {}
    %u2 = stablehlo.subtract %w2, %r2 : {t}
    %u1 = stablehlo.subtract %w1, %r1 : {t}
    return %u1, %u2, %h : {t}, {t}, {t}
  }}
}}"#,
        dot("%x", "%w2"),
        all_reduce("%g2"),
        dot("%x", "%w1"),
        dot("%a1", "%w1"),
        all_reduce("%g1"),
        dot("%x", "%x"),
    )
}

fn args(n: usize) -> Vec<Vec<Literal>> {
    (0..DEVICES)
        .map(|d| {
            (0..3)
                .map(|k| {
                    let v: Vec<f64> = (0..n * n)
                        .map(|i| (0.37 * i as f64 + (k + 3 * d) as f64).sin() * 0.5)
                        .collect();
                    Literal::from_f64(DType::F32, &[n, n], &v).expect("sizes match")
                })
                .collect()
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn summary(label: &str, walls: &mut [Duration], last: &RunReport) {
    walls.sort();
    let devices = last.stats.devices.len().max(1) as u32;
    let waiting: Duration = last.stats.devices.iter().map(|s| s.waiting).sum();
    println!(
        "{label}: median wall {:.1} ms over {} runs; last run: {:.1} ms waiting per device",
        ms(walls[walls.len() / 2]),
        walls.len(),
        ms(waiting / devices)
    );
    println!("  device  compute ms  communication ms  waiting ms  bytes sent");
    for (d, s) in last.stats.devices.iter().enumerate() {
        println!(
            "  {d:>6}  {:>10.1}  {:>16.1}  {:>10.1}  {:>10}",
            ms(s.compute),
            ms(s.communication),
            ms(s.waiting),
            s.bytes_sent
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut size = 96;
    let mut runs = 5;
    let mut trace = "overlap_trace.json".to_string();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--size" => size = value()?.parse()?,
            "--runs" => runs = value()?.parse()?,
            "--trace" => trace = value()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let m = parse_module(&program(size))?;
    let exe = Executable::new(&m, "main", &Interpreted)?;
    let mesh = CpuMesh::new(DEVICES)?;
    println!(
        "{DEVICES} devices on {} cores; per device three {size}x{size} f32 matmul chains, two all-reduces of {} B",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        size * size * 4
    );
    for op in &exe.run(&mesh, args(size))?.stats.ops {
        println!(
            "  {} {}: {:?} B sent per device",
            op.kind, op.value, op.bytes_sent
        );
    }
    for overlap in [false, true] {
        let mut walls = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let r = exe.run_with(
                &mesh,
                args(size),
                &RunOptions {
                    overlap,
                    ..RunOptions::default()
                },
            )?;
            walls.push(r.stats.wall);
            last = Some(r);
        }
        let last = last.ok_or("--runs must be at least 1")?;
        summary(
            if overlap { "overlap on" } else { "overlap off" },
            &mut walls,
            &last,
        );
        if overlap {
            last.write_trace(&trace)?;
            println!("trace: {trace} ({} spans)", last.spans.len());
        }
    }
    Ok(())
}
