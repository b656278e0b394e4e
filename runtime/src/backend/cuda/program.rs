//! A compute segment compiled for a GPU, as the cuda backend runs it: PTX modules, the
//! buffers the segment needs (its inputs, its outputs, temporaries), and the kernel
//! launches in order, each with its grid, block and the exact 64-bit values of its `.param`
//! list (pointers into buffers, or integers). Plain data: the compiler makes it
//! (`shardc_compiler::lower::gpu_program`), the cuda backend loads and launches it, and the tests
//! check it without a GPU.

use crate::engine::{Buffers, EngineError, Kernel};
use shardc_ir::{DType, Literal, TensorType};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A buffer of a compiled segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buffer {
    /// The segment's input `i` (read only).
    Input(usize),
    /// The segment's output `i`, allocated by the backend before the launches.
    Output(usize),
    /// Temporary `i`, allocated before the launches and freed after them.
    Temp(usize),
}

/// One 64-bit kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// The device address of a buffer plus `byte_offset`.
    Pointer {
        /// The buffer.
        buffer: Buffer,
        /// Bytes past its start.
        byte_offset: u64,
    },
    /// An integer (a memref descriptor's offset, size or stride).
    Value(u64),
}

/// One PTX module (`.version`, `.target`, entries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuModule {
    /// Its name (for errors and the module cache).
    pub name: String,
    /// Its PTX text.
    pub ptx: String,
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuLaunch {
    /// Index into [`GpuProgram::modules`].
    pub module: usize,
    /// The entry point (`.visible .entry NAME`).
    pub kernel: String,
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// The values of the entry's `.param`s, in order.
    pub params: Vec<Param>,
}

/// A compute segment compiled for a GPU.
#[derive(Clone, Debug)]
pub struct GpuProgram {
    /// Unique per program made in this process: the backend caches loaded modules by it.
    pub id: u64,
    /// The chip the PTX was compiled for (`sm_90`) and its PTX ISA version (80 = 8.0).
    pub chip: String,
    /// The PTX ISA version the modules declare (80 = 8.0).
    pub ptx_version: u32,
    /// Its PTX modules.
    pub modules: Vec<GpuModule>,
    /// The segment's input types, in order.
    pub inputs: Vec<TensorType>,
    /// The segment's output types, in order.
    pub outputs: Vec<TensorType>,
    /// Bytes of each temporary.
    pub temps: Vec<u64>,
    /// Its launches, in order.
    pub launches: Vec<GpuLaunch>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl GpuProgram {
    /// A program with a fresh id; checks that every launch refers to a module and to
    /// buffers that exist, and that every pointer stays inside its buffer.
    pub fn new(
        chip: String,
        ptx_version: u32,
        modules: Vec<GpuModule>,
        inputs: Vec<TensorType>,
        outputs: Vec<TensorType>,
        temps: Vec<u64>,
        launches: Vec<GpuLaunch>,
    ) -> Result<GpuProgram, String> {
        let p = GpuProgram {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            chip,
            ptx_version,
            modules,
            inputs,
            outputs,
            temps,
            launches,
        };
        p.check()?;
        Ok(p)
    }

    /// The size in bytes of a buffer, if it exists.
    pub fn buffer_bytes(&self, b: Buffer) -> Option<u64> {
        match b {
            Buffer::Input(i) => self.inputs.get(i).map(tensor_bytes),
            Buffer::Output(i) => self.outputs.get(i).map(tensor_bytes),
            Buffer::Temp(i) => self.temps.get(i).copied(),
        }
    }

    fn check(&self) -> Result<(), String> {
        for (i, l) in self.launches.iter().enumerate() {
            if l.module >= self.modules.len() {
                return Err(format!(
                    "launch {i} ({}) names module {} of {}",
                    l.kernel,
                    l.module,
                    self.modules.len()
                ));
            }
            if l.grid.contains(&0) || l.block.contains(&0) {
                return Err(format!(
                    "launch {i} ({}) has an empty grid {:?} or block {:?}",
                    l.kernel, l.grid, l.block
                ));
            }
            for p in &l.params {
                if let Param::Pointer {
                    buffer,
                    byte_offset,
                } = *p
                {
                    let Some(bytes) = self.buffer_bytes(buffer) else {
                        return Err(format!(
                            "launch {i} ({}) points into {buffer:?}, which the segment does not have",
                            l.kernel
                        ));
                    };
                    if byte_offset > bytes {
                        return Err(format!(
                            "launch {i} ({}) points {byte_offset} bytes into {buffer:?}, which has {bytes}",
                            l.kernel
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The bytes a tensor takes in device memory (MLIR stores `i1` in a byte).
pub fn tensor_bytes(t: &TensorType) -> u64 {
    (t.num_elements() * element_bytes(t.dtype)) as u64
}

/// The bytes one element takes in device memory (`i1`: one byte, 0 or 1).
pub fn element_bytes(d: DType) -> usize {
    match d {
        DType::I1 => 1,
        d => d.size_bytes(),
    }
}

/// A literal's elements as they lie in device memory: little endian, `i1` as bytes 0/1,
/// bf16 and f16 as their 16-bit patterns; a splat is expanded ([`Literal::to_le_bytes`]).
pub fn to_device_bytes(l: &Literal) -> Vec<u8> {
    l.to_le_bytes()
}

/// The literal of type `ty` whose device bytes are `bytes` (the inverse of
/// [`to_device_bytes`]; any nonzero byte is `true`).
pub fn from_device_bytes(ty: &TensorType, bytes: &[u8]) -> Result<Literal, String> {
    Literal::from_le_bytes(ty, bytes).map_err(|e| e.to_string())
}

/// A segment's kernel for the cuda backend: it holds the GPU program, which only a
/// `CudaMesh` runs (buffers stay on the GPU between segments); [`Kernel::run`] refuses.
#[derive(Clone, Debug)]
pub struct GpuKernel(pub Arc<GpuProgram>);

impl Kernel for GpuKernel {
    fn run_reusing(
        &self,
        _inputs: &[&Literal],
        _buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        Err(
            "a GPU kernel runs on the cuda backend's devices (backend::cuda::CudaMesh), \
             not on host literals: run the executable on a CudaMesh, or prepare it with a \
             host engine (Interpreted, the MLIR JIT) for the cpu and mpi backends"
                .into(),
        )
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_bytes_round_trip_every_dtype() {
        for (dt, vals) in [
            (DType::F32, vec![1.5, -0.0, 3.25]),
            (DType::F64, vec![1e300, -2.0, 0.1]),
            (DType::BF16, vec![1.0, -2.5, 0.0]),
            (DType::F16, vec![0.5, 65504.0, -1.0]),
            (DType::I32, vec![-7.0, 0.0, 2147483647.0]),
            (DType::I64, vec![-1.0, 1e15, 3.0]),
            (DType::I1, vec![1.0, 0.0, 1.0]),
        ] {
            let l = Literal::from_f64(dt, &[3], &vals).unwrap();
            let b = to_device_bytes(&l);
            assert_eq!(b.len(), 3 * element_bytes(dt), "{dt}");
            assert_eq!(from_device_bytes(&l.ty, &b).unwrap(), l, "{dt}");
        }
        let l = Literal::from_f64(DType::I1, &[2], &[1.0, 0.0]).unwrap();
        assert_eq!(to_device_bytes(&l), [1, 0]);
        let t = TensorType::new(DType::F32, [2]);
        assert!(
            from_device_bytes(&t, &[0; 7])
                .unwrap_err()
                .contains("takes 8")
        );
    }

    #[test]
    fn programs_refer_only_to_their_buffers() {
        let t = TensorType::new(DType::F32, [4]);
        let launch = |params| GpuLaunch {
            module: 0,
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [4, 1, 1],
            params,
        };
        let module = vec![GpuModule {
            name: "m".into(),
            ptx: String::new(),
        }];
        let make = |params| {
            GpuProgram::new(
                "sm_90".into(),
                80,
                module.clone(),
                vec![t.clone()],
                vec![t.clone()],
                vec![],
                vec![launch(params)],
            )
        };
        let ok = make(vec![
            Param::Pointer {
                buffer: Buffer::Input(0),
                byte_offset: 0,
            },
            Param::Pointer {
                buffer: Buffer::Output(0),
                byte_offset: 16,
            },
            Param::Value(4),
        ])
        .unwrap();
        let other = make(vec![]).unwrap();
        assert_ne!(ok.id, other.id);
        let e = make(vec![Param::Pointer {
            buffer: Buffer::Temp(0),
            byte_offset: 0,
        }])
        .unwrap_err();
        assert!(e.contains("Temp(0)"), "{e}");
        let e = make(vec![Param::Pointer {
            buffer: Buffer::Output(0),
            byte_offset: 20,
        }])
        .unwrap_err();
        assert!(e.contains("20 bytes into Output(0), which has 16"), "{e}");
    }
}
