//! The engine that computes each device's segments: the reference interpreter or the
//! MLIR kernels, chosen by name on the command line and in the examples.

use shardc_runtime::engine::{Compute, Interpreted};
use std::str::FromStr;

/// The engine that computes each device's segments. Adding one is adding a variant here:
/// its name and [`Engine::compute`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference interpreter, op by op (`runtime::engine::Interpreted`).
    Interpreted,
    /// Native kernels: each distinct segment lowered through MLIR and compiled for the
    /// host CPU just in time, once (`compiler::lower::cpu::NativeCompute`;
    /// `docs/kernels.md`).
    Native,
}

impl Engine {
    /// Every engine, in the order the command line lists them.
    pub const ALL: &'static [Engine] = &[Engine::Interpreted, Engine::Native];

    /// Its name on the command line and in benchmark JSON (`interpreted`, `native`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interpreted => "interpreted",
            Engine::Native => "native",
        }
    }

    /// The engine itself.
    pub fn compute(self) -> Box<dyn Compute> {
        match self {
            Engine::Interpreted => Box::new(Interpreted),
            Engine::Native => Box::new(shardc_compiler::lower::cpu::NativeCompute::new(
                shardc_compiler::lower::cpu::CpuOptions::default(),
            )),
        }
    }
}

impl FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Engine, String> {
        Engine::ALL
            .iter()
            .copied()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
                let renamed = if s == "jit" {
                    " (the native engine was called `jit` before; `jit` is now only tracing's)"
                } else {
                    ""
                };
                format!("unknown engine {s:?}; known: {}{renamed}", known.join(", "))
            })
    }
}
