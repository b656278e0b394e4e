//! The cost model: seconds of communication, compute and (as a tie-breaker) memory per
//! device.
//!
//! Communication: each collective step moves [`Step::bytes_per_device`] bytes over the
//! slowest link among its axes, plus a fixed latency. Compute: an op's FLOPs on its local
//! pieces at the device's FLOP rate. Memory: the bytes of every piece a device holds,
//! weighted, so that of two plans with equal time the one holding less wins.

use crate::sharding::layout::Layout;
use crate::sharding::reshard::{Plan, Step};
use serde::Serialize;
use shardc_ir::{Mesh, OpKind, TensorType, UnaryOp};
use std::collections::BTreeMap;

/// Machine parameters. Axis bandwidths are per mesh axis name (bytes per second); an axis
/// not listed uses `default_bandwidth`.
#[derive(Clone, Debug, Serialize)]
pub struct CostModel {
    pub axis_bandwidth: BTreeMap<String, f64>,
    pub default_bandwidth: f64,
    /// Seconds per collective, whatever its size.
    pub latency: f64,
    /// FLOP/s per device.
    pub flops: f64,
    /// Seconds charged per byte a device holds (a tie-breaker towards smaller pieces).
    pub memory_weight: f64,
}

impl Default for CostModel {
    /// A GPU-cluster-like default: 100 GB/s links, 5 µs latency, 100 TFLOP/s devices.
    fn default() -> CostModel {
        CostModel {
            axis_bandwidth: BTreeMap::new(),
            default_bandwidth: 100e9,
            latency: 5e-6,
            flops: 100e12,
            memory_weight: 1e-15,
        }
    }
}

impl CostModel {
    /// Sets the bandwidth of one mesh axis.
    pub fn with_axis_bandwidth(mut self, axis: &str, bytes_per_second: f64) -> CostModel {
        self.axis_bandwidth
            .insert(axis.to_string(), bytes_per_second);
        self
    }

    pub fn bandwidth(&self, axis: &str) -> f64 {
        self.axis_bandwidth
            .get(axis)
            .copied()
            .unwrap_or(self.default_bandwidth)
    }

    /// Seconds one step takes.
    pub fn step_time(&self, step: &Step, mesh: &Mesh, global: &TensorType, from: &Layout) -> f64 {
        let bytes = step.bytes_per_device(mesh, global, from);
        if step.axes().is_empty() || step.moves_nothing(mesh, from) {
            return 0.0;
        }
        let bw = step
            .axes()
            .iter()
            .map(|a| self.bandwidth(&a.name))
            .fold(f64::INFINITY, f64::min);
        self.latency + bytes as f64 / bw
    }

    /// Seconds a whole plan takes, and the bytes each device sends.
    pub fn plan_cost(
        &self,
        plan: &Plan,
        mesh: &Mesh,
        global: &TensorType,
        from: &Layout,
    ) -> (f64, u64) {
        let mut cur = from.clone();
        let (mut time, mut bytes) = (0.0, 0);
        for s in &plan.steps {
            time += self.step_time(s, mesh, global, &cur);
            bytes += s.bytes_per_device(mesh, global, &cur);
            match s.apply(&cur) {
                Some(next) => cur = next,
                None => return (f64::INFINITY, bytes),
            }
        }
        (time, bytes)
    }

    /// Seconds of compute of one op on local pieces of the given types.
    pub fn op_time(&self, kind: &OpKind, operands: &[TensorType], results: &[TensorType]) -> f64 {
        op_flops(kind, operands, results) as f64 / self.flops
    }

    /// The memory tie-breaker of holding a piece.
    pub fn memory(&self, local: &TensorType) -> f64 {
        local.size_bytes() as f64 * self.memory_weight
    }
}

/// FLOPs of one op on pieces of the given types: `2*M*N*K` for a dot, one per input
/// element for a reduce, a few per element for transcendental functions, one per result
/// element for other elementwise ops, and none for ops that only move data.
pub fn op_flops(kind: &OpKind, operands: &[TensorType], results: &[TensorType]) -> u64 {
    let out: u64 = results.iter().map(|t| t.num_elements() as u64).sum();
    match kind {
        OpKind::DotGeneral(d) => {
            let k: u64 = d
                .lhs_contracting
                .iter()
                .map(|&i| operands[0].shape[i] as u64)
                .product();
            2 * out * k
        }
        OpKind::Reduce { .. } => operands
            .iter()
            .take(operands.len() / 2)
            .map(|t| t.num_elements() as u64)
            .sum(),
        // One reducer application per window element of every result element.
        OpKind::ReduceWindow(w) => out * w.window.iter().map(|&k| k as u64).product::<u64>(),
        OpKind::Unary(
            UnaryOp::Exponential
            | UnaryOp::ExponentialMinusOne
            | UnaryOp::Log
            | UnaryOp::LogPlusOne
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sine
            | UnaryOp::Cosine
            | UnaryOp::Tan
            | UnaryOp::Cbrt,
        ) => 8 * out,
        k if k.is_elementwise() => out,
        _ => 0,
    }
}
