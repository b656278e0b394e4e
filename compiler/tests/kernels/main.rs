//! Kernels through MLIR (one test binary: each links MLIR statically).
//!
//! - `ops`: every lowered op, JIT against the reference interpreter;
//! - `programs`: random f32 programs and random modules of every op and dtype
//!   (bit for bit with libm and unvectorized matmuls), fusion, the cache, errors;
//! - `gpu`: PTX for sm_80 / sm_90, target validation, snapshots;
//! - `cache`: kernels kept on disk and loaded by a later compile; damaged entries.
//!
//! Tolerance (stated once, here): integer and boolean results are exact; f32 results
//! are within `abs 1e-5 + rel 1e-5` of the reference (MLIR's polynomial
//! approximations of exp, log, tanh, sin, ... are a few ulp from libm; matmuls use
//! fused multiply-adds and vector accumulators), products of contractions longer than
//! 64 within `rel 1e-4`; f64 within `1e-12`; bf16 and f16 within one unit in their
//! last place (an approximation's last-bit difference in f32 can round either way).

mod cache;
mod gpu;
mod ops;
mod programs;

use shardc_compiler::lower::{self, cpu};
use shardc_ir::{DType, Function, Literal, Module};

/// How close a result must be to the reference's.
#[derive(Copy, Clone, Debug)]
pub struct Tol {
    pub abs: f64,
    pub rel: f64,
}

impl Tol {
    pub const F32: Tol = Tol {
        abs: 1e-5,
        rel: 1e-5,
    };
    pub const F64: Tol = Tol {
        abs: 1e-12,
        rel: 1e-12,
    };
    pub const EXACT: Tol = Tol { abs: 0.0, rel: 0.0 };

    /// The tolerance of a dtype: exact for integers and booleans, one unit in the last
    /// place for bf16 (2^-8) and f16 (2^-11).
    pub fn of(dt: DType, f32: Tol) -> Tol {
        match dt {
            DType::F32 => f32,
            DType::F64 => Tol::F64,
            DType::BF16 => Tol {
                abs: 1e-5,
                rel: 1.0 / 128.0,
            },
            DType::F16 => Tol {
                abs: 1e-5,
                rel: 1.0 / 1024.0,
            },
            _ => Tol::EXACT,
        }
    }
}

/// `Err` naming the first element that differs more than `tol` (NaNs must match NaNs,
/// infinities exactly).
pub fn compare(got: &Literal, want: &Literal, tol: Tol) -> Result<(), String> {
    if got.ty != want.ty {
        return Err(format!("type {} where {} was expected", got.ty, want.ty));
    }
    let tol = Tol::of(want.ty.dtype, tol);
    for (i, (g, w)) in got
        .to_f64_vec()
        .into_iter()
        .zip(want.to_f64_vec())
        .enumerate()
    {
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol.abs + tol.rel * w.abs()
        };
        if !ok {
            return Err(format!(
                "element {i}: got {g}, want {w} (tolerance {tol:?})"
            ));
        }
    }
    Ok(())
}

/// Runs `func` of `m` with the reference interpreter and with the JIT (the whole body
/// as one segment) and compares every result.
pub fn check_module(m: &Module, func: &str, args: &[Literal], tol: Tol) -> Result<(), String> {
    let f = m.function(func).ok_or("no such function")?;
    let want = shardc_runtime::reference::run(m, func, args).map_err(|e| e.to_string())?;
    let got = jit(f, args)?;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        compare(g, w, tol).map_err(|e| format!("result {i}: {e}"))?;
    }
    Ok(())
}

/// Compiles `f` (whole body) for the CPU and runs it.
pub fn jit(f: &Function, args: &[Literal]) -> Result<Vec<Literal>, String> {
    let sf = lower::whole_function(f).map_err(|e| e.to_string())?;
    let k = cpu::compile(&sf, &cpu::CpuOptions::default()).map_err(|e| e.to_string())?;
    k.run(args).map_err(|e| e.to_string())
}

/// A module holding one function.
pub fn module_of(f: Function) -> Module {
    Module {
        functions: vec![f],
        ..Module::default()
    }
}

/// Deterministic pseudo-random values in `[lo, hi)` (a 64-bit LCG).
pub fn values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}
