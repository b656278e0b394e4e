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
    /// MLIR kernels JIT-compiled for the host CPU, each distinct segment once
    /// (`compiler::lower::cpu::JitCompute`; `docs/kernels.md`).
    Jit,
}

impl Engine {
    pub const ALL: &'static [Engine] = &[Engine::Interpreted, Engine::Jit];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Interpreted => "interpreted",
            Engine::Jit => "jit",
        }
    }

    /// The engine itself.
    pub fn compute(self) -> Box<dyn Compute> {
        match self {
            Engine::Interpreted => Box::new(Interpreted),
            Engine::Jit => Box::new(shardc_compiler::lower::cpu::JitCompute::new(
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
                format!("unknown engine {s:?}; known: {}", known.join(", "))
            })
    }
}
