//! Choosing what to recompute under a memory budget: which of a program's regions (its
//! layers) to wrap in [`remat`](crate::remat), and under which policy, so that the plan
//! fits a per-device budget with as little recomputation as possible.
//!
//! The program is built by the caller for any assignment of policies to its regions;
//! each assignment is compiled and its planned peak (`explain().peak_bytes_per_device`,
//! what the memory report states before running) compared with the budget. The
//! assignments tried grow the recomputation one region at a time — first keeping only
//! matrix products ([`RematPolicy::Dots`]) in the first `k` regions, then recomputing the
//! first `k` regions whole ([`RematPolicy::Nothing`]) on top of that — and the first `k`
//! that fits is found by bisection (the peak falls as `k` grows), so a model of `L`
//! layers compiles about `2 log2 L` times. Recomputed FLOPs are counted on the global
//! program after autodiff, against the program with no region recomputed.

use crate::error::Error;
use crate::jit::Lowered;
use crate::trace::RematPolicy;
use shardc_compiler::{Compiled, Options};

/// What [`choose_remat`] chose and what it costs.
pub struct RematChoice {
    /// The policy of each region (`None`: kept as it is).
    pub policies: Vec<Option<RematPolicy>>,
    /// The chosen program, compiled.
    pub compiled: Compiled,
    /// Its planned peak per device, in bytes.
    pub peak_bytes: u64,
    /// FLOPs it computes beyond the program with no region recomputed (the global
    /// program's, summed over its ops).
    pub recomputed_flops: u64,
    /// The planned peak with no region recomputed.
    pub plain_peak_bytes: u64,
}

/// The cheapest recomputation found that fits `budget` bytes per device: `build` traces
/// the program with region `i` under `policies[i]` (for `regions` regions), which is
/// compiled with `opts`. An error names the budget and the least peak reached (every
/// region recomputed whole) when nothing fits.
pub fn choose_remat(
    regions: usize,
    budget: u64,
    opts: &Options,
    build: impl Fn(&[Option<RematPolicy>]) -> Result<Lowered, Error>,
) -> Result<RematChoice, Error> {
    let opts = Options {
        memory_per_device: None,
        ..opts.clone()
    };
    // Step k of the ladder: the first k regions kept to their matrix products (k <=
    // regions), then the first k - regions of those recomputed whole.
    let policies = |k: usize| -> Vec<Option<RematPolicy>> {
        (0..regions)
            .map(|i| {
                if i < k.saturating_sub(regions) {
                    Some(RematPolicy::Nothing)
                } else if i < k {
                    Some(RematPolicy::Dots)
                } else {
                    None
                }
            })
            .collect()
    };
    let compile = |k: usize| -> Result<(Compiled, u64), Error> {
        let c = build(&policies(k))?.compile(&opts)?;
        let peak = c.explain().peak_bytes_per_device;
        Ok((c, peak))
    };
    let (plain, plain_peak) = compile(0)?;
    let plain_flops = flops(&plain);
    let chosen = |k: usize, c: Compiled, peak: u64| RematChoice {
        policies: policies(k),
        recomputed_flops: flops(&c).saturating_sub(plain_flops),
        compiled: c,
        peak_bytes: peak,
        plain_peak_bytes: plain_peak,
    };
    if plain_peak <= budget {
        return Ok(chosen(0, plain, plain_peak));
    }
    let last = 2 * regions;
    let (most, most_peak) = compile(last)?;
    if most_peak > budget {
        return Err(Error::Usage(format!(
            "choose_remat: no recomputation fits {budget} B per device: the plan holds {plain_peak} B with every activation kept and {most_peak} B with all {regions} region(s) recomputed whole; raise the budget, spread the program over more devices (a larger data or model axis) or recompute inside the regions (smaller regions)"
        )));
    }
    // The least k that fits, between 1 and `last` (the peak falls as k grows).
    let (mut lo, mut hi) = (1, last);
    let mut best = (most, most_peak);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (c, peak) = compile(mid)?;
        if peak <= budget {
            hi = mid;
            best = (c, peak);
        } else {
            lo = mid + 1;
        }
    }
    Ok(chosen(hi, best.0, best.1))
}

/// FLOPs of the global program (after autodiff), op by op.
fn flops(c: &Compiled) -> u64 {
    let Some(f) = c.global.entry() else {
        return 0;
    };
    f.body_ops()
        .map(|(_, op)| {
            let ins: Vec<_> = op.operands.iter().map(|&v| f.ty(v).clone()).collect();
            let outs: Vec<_> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
            shardc_compiler::sharding::cost::op_flops(&op.kind, &ins, &outs)
        })
        .sum()
}
