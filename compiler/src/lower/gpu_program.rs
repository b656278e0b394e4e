//! Segments compiled for the cuda backend: [`lower::gpu`](crate::lower::gpu)'s PTX plus
//! what the backend needs to launch it — the segment's buffers and, per launch, the
//! value of every kernel parameter — as a [`GpuProgram`]; and [`PtxCompiler`], the
//! [`Compute`] engine that makes them, compiling identical segments once.
//!
//! `lower::gpu::compile` gives the PTX modules and each launch's grid and block, but not
//! which buffers a launch passes. Those are read here from the module after kernel
//! outlining (its `outline` stage): the host function only allocates, makes views and
//! launches (`lower::gpu` checks it), so its text names, for each `gpu.launch_func`, the
//! memrefs passed and, through the views, the buffer each lies in (an argument: a
//! segment input or an output out-parameter; or an allocation: a temporary) and the
//! static strided layout the kernel sees. The parameter values then follow from the PTX
//! entry's `.param` list ([`shardc_runtime::backend::cuda::abi`]).

use crate::lower::gpu::{self, Target};
use crate::lower::{LowerError, segment_function};
use shardc_ir::{DType, Function, Module, TensorType};
use shardc_runtime::backend::cuda::abi::{self, MemrefArg};
use shardc_runtime::backend::cuda::program::element_bytes;
use shardc_runtime::backend::cuda::{Buffer, GpuKernel, GpuLaunch, GpuModule, GpuProgram};
use shardc_runtime::engine::{Compute, EngineError, Kernel, Segment};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use thiserror::Error;

/// Why a segment could not become a GPU program.
#[derive(Debug, Error)]
pub enum GpuProgramError {
    /// Lowering the segment failed.
    #[error(transparent)]
    Lower(#[from] LowerError),
    /// The host function after outlining is not what this module can read (a change
    /// of `lower::gpu`'s output); says what and where.
    #[error("the host function of the GPU segment: {0}")]
    Host(String),
    /// A kernel's `.param` list does not fit the memrefs its launch passes.
    #[error("the parameters of a GPU kernel: {0}")]
    Abi(String),
}

/// A memref type of the host function: element type and strided layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemrefType {
    /// Element type.
    pub dtype: DType,
    /// Sizes.
    pub shape: Vec<u64>,
    /// Strides in elements.
    pub strides: Vec<u64>,
    /// Offset of the first element, in elements.
    pub offset: u64,
}

impl MemrefType {
    /// The bytes its buffer takes when it is a whole (identity-layout) buffer.
    pub fn bytes(&self) -> u64 {
        self.shape.iter().product::<u64>() * element_bytes(self.dtype) as u64
    }
}

/// Splits `s` at commas outside `<>`, `[]`, `()`.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// Reads `memref<256x128xf32>`, `memref<f32>`, `memref<64x1xf32, strided<[1000, 1],
/// offset: 5>>` (static shapes, offsets and strides only).
pub fn parse_memref(text: &str) -> Result<MemrefType, String> {
    let t = text.trim();
    let inner = t
        .strip_prefix("memref<")
        .and_then(|r| r.strip_suffix('>'))
        .ok_or_else(|| format!("`{t}` is not a memref type"))?;
    let parts = split_top(inner);
    let dims: Vec<&str> = parts
        .first()
        .ok_or_else(|| format!("`{t}` is empty"))?
        .split('x')
        .collect();
    let (elem, sizes) = dims
        .split_last()
        .ok_or_else(|| format!("`{t}` has no type"))?;
    let dtype = DType::from_name(elem)
        .ok_or_else(|| format!("`{t}`: element type {elem} is not one of shardc's"))?;
    let shape = sizes
        .iter()
        .map(|s| {
            s.parse::<u64>()
                .map_err(|_| format!("`{t}`: dimension `{s}` is not static"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let mut offset = 0;
    match parts.get(1..) {
        None | Some([]) => {}
        Some([layout]) => {
            let body = layout
                .strip_prefix("strided<")
                .and_then(|r| r.strip_suffix('>'))
                .ok_or_else(|| format!("`{t}`: the layout `{layout}` is not strided<...>"))?;
            let fields = split_top(body);
            let list = fields
                .first()
                .and_then(|f| f.strip_prefix('['))
                .and_then(|f| f.strip_suffix(']'))
                .ok_or_else(|| format!("`{t}`: no stride list"))?;
            strides = split_top(list)
                .iter()
                .map(|s| {
                    s.parse::<u64>()
                        .map_err(|_| format!("`{t}`: stride `{s}` is not static"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if strides.len() != shape.len() {
                return Err(format!(
                    "`{t}`: {} strides for rank {}",
                    strides.len(),
                    shape.len()
                ));
            }
            if let Some(o) = fields.get(1) {
                let v = o
                    .strip_prefix("offset:")
                    .map(str::trim)
                    .ok_or_else(|| format!("`{t}`: cannot read `{o}`"))?;
                offset = v
                    .parse::<u64>()
                    .map_err(|_| format!("`{t}`: offset `{v}` is not static"))?;
            }
        }
        Some(_) => return Err(format!("`{t}`: a memory space or more than one layout")),
    }
    Ok(MemrefType {
        dtype,
        shape,
        strides,
        offset,
    })
}

/// One `gpu.launch_func` of the host function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLaunch {
    /// The `gpu.module` (`gpu.binary` after serialization) and the kernel in it.
    pub module: String,
    /// The kernel's name in the module.
    pub kernel: String,
    /// Each memref passed: the buffer it lies in and the type the kernel sees.
    pub args: Vec<(Buffer, MemrefType)>,
}

/// The host function of an outlined GPU module: its temporaries' bytes and its launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPlan {
    /// Bytes of each temporary buffer the host function allocates.
    pub temps: Vec<u64>,
    /// Its kernel launches, in order.
    pub launches: Vec<HostLaunch>,
}

/// Views: ops whose result lies in the buffer of their first operand.
const VIEWS: &[&str] = &[
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
];

/// Reads the host function `@kernel` of the `outline` stage: its first `inputs`
/// arguments are the segment's inputs, the others its outputs (out-parameters).
pub fn host_plan(outlined: &str, inputs: usize) -> Result<HostPlan, String> {
    let head = "func.func @kernel(";
    let start = outlined
        .find(head)
        .ok_or("no func.func @kernel in the outlined module")?;
    let body = &outlined[start..];
    let open = body.find('(').unwrap_or(0);
    let close = body[open..]
        .find(") ")
        .or_else(|| body[open..].find(')'))
        .map(|i| open + i)
        .ok_or("the arguments of @kernel do not end")?;
    let mut roots: HashMap<String, Buffer> = HashMap::new();
    for (i, a) in split_top(&body[open + 1..close]).iter().enumerate() {
        let name = a.split(':').next().unwrap_or("").trim().to_string();
        let b = if i < inputs {
            Buffer::Input(i)
        } else {
            Buffer::Output(i - inputs)
        };
        roots.insert(name, b);
    }
    let mut plan = HostPlan {
        temps: Vec::new(),
        launches: Vec::new(),
    };
    for line in body.lines().skip(1) {
        let l = line.trim();
        if l == "}" {
            return Ok(plan);
        }
        if l.is_empty() || l == "return" || l.starts_with("func.return") {
            continue;
        }
        if let Some(rest) = l.strip_prefix("gpu.launch_func") {
            plan.launches.push(launch(rest.trim(), &roots)?);
            continue;
        }
        let (name, op) = l
            .split_once(" = ")
            .ok_or_else(|| format!("cannot read the host op `{l}`"))?;
        let op_name = op.split([' ', '(']).next().unwrap_or("");
        if op_name == "arith.constant" {
            continue;
        }
        if op_name == "memref.alloc" {
            let ty = l
                .rsplit_once(" : ")
                .map(|(_, t)| t)
                .ok_or_else(|| format!("`{l}` has no type"))?;
            let t = parse_memref(ty)?;
            roots.insert(name.trim().to_string(), Buffer::Temp(plan.temps.len()));
            plan.temps.push(t.bytes());
            continue;
        }
        if VIEWS.contains(&op_name) {
            let src = op[op_name.len()..]
                .split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '_'))
                .find(|t| t.starts_with('%'))
                .ok_or_else(|| format!("`{l}` has no source"))?;
            let b = *roots
                .get(src)
                .ok_or_else(|| format!("`{l}`: {src} is not a buffer of the host function"))?;
            roots.insert(name.trim().to_string(), b);
            continue;
        }
        return Err(format!(
            "the host op `{l}` is not an allocation, a view or a launch"
        ));
    }
    Err("the body of @kernel does not end".into())
}

/// Reads `@m::@k blocks in (...) threads in (...)  args(%a : T, ...)`.
fn launch(rest: &str, roots: &HashMap<String, Buffer>) -> Result<HostLaunch, String> {
    let symbol = rest.split_whitespace().next().unwrap_or("");
    let (module, kernel) = symbol
        .trim_start_matches('@')
        .split_once("::@")
        .ok_or_else(|| format!("cannot read the kernel of `gpu.launch_func {rest}`"))?;
    if rest.contains("dynamic_shared_memory_size") || rest.contains("async") {
        return Err(format!(
            "`gpu.launch_func {rest}`: dynamic shared memory and async launches are not supported"
        ));
    }
    let mut args = Vec::new();
    if let Some(i) = rest.find("args(") {
        let list = rest[i + 5..]
            .strip_suffix(')')
            .ok_or_else(|| format!("the arguments of `gpu.launch_func {rest}` do not end"))?;
        for a in split_top(list) {
            let (name, ty) = a
                .split_once(" : ")
                .ok_or_else(|| format!("cannot read the launch argument `{a}`"))?;
            let b = *roots
                .get(name.trim())
                .ok_or_else(|| format!("the launch argument {name} is not a buffer"))?;
            args.push((b, parse_memref(ty)?));
        }
    }
    Ok(HostLaunch {
        module: module.to_string(),
        kernel: kernel.to_string(),
        args,
    })
}

/// Compiles a segment function (see [`segment_function`]) into a GPU program.
pub fn program(f: &Function, target: &Target) -> Result<GpuProgram, GpuProgramError> {
    let mut stages = gpu::Stages::default();
    let ptx = gpu::compile_with_stages(f, target, Some(&mut stages))?;
    let outlined = stages
        .get("outline")
        .ok_or_else(|| GpuProgramError::Host("lower::gpu kept no `outline` stage".into()))?;
    let inputs = f.arg_types();
    let outputs: Vec<TensorType> = f.results().iter().map(|&v| f.ty(v).clone()).collect();
    let host = host_plan(outlined, inputs.len()).map_err(GpuProgramError::Host)?;
    assemble(ptx, &host, inputs, outputs)
}

/// The program of compiled PTX and the host plan of its segment.
pub fn assemble(
    ptx: gpu::Ptx,
    host: &HostPlan,
    inputs: Vec<TensorType>,
    outputs: Vec<TensorType>,
) -> Result<GpuProgram, GpuProgramError> {
    let abi_err = GpuProgramError::Abi;
    if host.launches.len() != ptx.launches.len() {
        return Err(GpuProgramError::Host(format!(
            "{} launches in the host function, {} in the PTX",
            host.launches.len(),
            ptx.launches.len()
        )));
    }
    let modules: Vec<GpuModule> = ptx
        .modules
        .iter()
        .map(|(name, text)| GpuModule {
            name: name.clone(),
            ptx: text.clone(),
        })
        .collect();
    let mut launches = Vec::with_capacity(host.launches.len());
    for (h, l) in host.launches.iter().zip(&ptx.launches) {
        if h.kernel != l.kernel {
            return Err(GpuProgramError::Host(format!(
                "the host launches {}::{} where the PTX launches {}",
                h.module, h.kernel, l.kernel
            )));
        }
        let module = modules
            .iter()
            .position(|m| m.name == h.module)
            .ok_or_else(|| abi_err(format!("no PTX module {}", h.module)))?;
        let params = abi::entry_params(&modules[module].ptx, &h.kernel).map_err(abi_err)?;
        let args: Vec<MemrefArg> = h
            .args
            .iter()
            .map(|(b, t)| MemrefArg {
                buffer: *b,
                elem_bytes: element_bytes(t.dtype) as u64,
                offset: t.offset,
                sizes: t.shape.clone(),
                strides: t.strides.clone(),
            })
            .collect();
        let (_, params) = abi::pack(&h.kernel, &params, &args).map_err(abi_err)?;
        let dim = |v: [u64; 3]| -> Result<[u32; 3], GpuProgramError> {
            let c = |x: u64| {
                u32::try_from(x)
                    .map_err(|_| abi_err(format!("launch size {x} of {} exceeds u32", h.kernel)))
            };
            Ok([c(v[0])?, c(v[1])?, c(v[2])?])
        };
        launches.push(GpuLaunch {
            module,
            kernel: h.kernel.clone(),
            grid: dim(l.grid)?,
            block: dim(l.block)?,
            params,
        });
    }
    GpuProgram::new(
        ptx.target.chip.clone(),
        ptx.target.ptx,
        modules,
        inputs,
        outputs,
        host.temps.clone(),
        launches,
    )
    .map_err(abi_err)
}

/// What a [`PtxCompiler`] has done.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PtxStats {
    /// Segments compiled to PTX.
    pub compiled: usize,
    /// Segments served from the cache.
    pub reused: usize,
    /// Seconds spent compiling.
    pub compile_seconds: f64,
}

/// The compute engine of the cuda backend: each segment compiled to PTX for `target`
/// once (key: the segment function's text, so the same local program on every device,
/// and identical segments of a program, share one [`GpuProgram`], loaded once per GPU).
pub struct PtxCompiler {
    target: Target,
    cache: Mutex<HashMap<String, Arc<GpuProgram>>>,
    stats: Mutex<PtxStats>,
}

impl PtxCompiler {
    /// A compiler for `target` with an empty cache.
    pub fn new(target: Target) -> PtxCompiler {
        PtxCompiler {
            target,
            cache: Mutex::new(HashMap::new()),
            stats: Mutex::new(PtxStats::default()),
        }
    }

    /// The GPU it compiles for.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// What it compiled and reused so far.
    pub fn stats(&self) -> PtxStats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The program of a segment function, from the cache or compiled now.
    pub fn program(&self, f: &Function) -> Result<Arc<GpuProgram>, GpuProgramError> {
        let key = shardc_ir::text::print_function(f);
        if let Some(p) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            self.stats.lock().unwrap_or_else(|p| p.into_inner()).reused += 1;
            return Ok(Arc::clone(p));
        }
        let start = Instant::now();
        let p = Arc::new(program(f, &self.target)?);
        let mut stats = self.stats.lock().unwrap_or_else(|p| p.into_inner());
        stats.compiled += 1;
        stats.compile_seconds += start.elapsed().as_secs_f64();
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, Arc::clone(&p));
        Ok(p)
    }
}

impl Compute for PtxCompiler {
    fn prepare(
        &self,
        _module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        let sf = segment_function(f, segment)?;
        Ok(Box::new(GpuKernel(self.program(&sf)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memref_types() {
        assert_eq!(
            parse_memref("memref<256x128xf32>").unwrap(),
            MemrefType {
                dtype: DType::F32,
                shape: vec![256, 128],
                strides: vec![128, 1],
                offset: 0
            }
        );
        assert_eq!(
            parse_memref("memref<i1>").unwrap(),
            MemrefType {
                dtype: DType::I1,
                shape: vec![],
                strides: vec![],
                offset: 0
            }
        );
        let v = parse_memref("memref<64x1xbf16, strided<[1000, 1], offset: 5>>").unwrap();
        assert_eq!((v.strides, v.offset), (vec![1000, 1], 5));
        let v = parse_memref("memref<4x2xf64, strided<[8, 2]>>").unwrap();
        assert_eq!((v.strides, v.offset), (vec![8, 2], 0));
        assert!(
            parse_memref("memref<?x4xf32>")
                .unwrap_err()
                .contains("not static")
        );
        assert!(
            parse_memref("memref<4xf32, strided<[1], offset: ?>>")
                .unwrap_err()
                .contains("not static")
        );
        assert!(
            parse_memref("memref<4xf8E4M3FN>")
                .unwrap_err()
                .contains("f8E4M3FN")
        );
    }

    /// The host function of the softmax segment (`compiler/tests/kernels/gpu.rs`) after
    /// outlining, as `lower::gpu` prints it (abridged: constants).
    const SOFTMAX_HOST: &str = r#"module attributes {gpu.container_module} {
  func.func @kernel(%arg0: memref<64x1000xf32>, %arg1: memref<64x1000xf32>) attributes {llvm.emit_c_interface} {
    %c4 = arith.constant 4 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    gpu.launch_func  @kernel_kernel::@kernel_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)  args(%alloc : memref<64xf32>)
    gpu.launch_func  @kernel_kernel_0::@kernel_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)  args(%arg0 : memref<64x1000xf32>, %alloc : memref<64xf32>)
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<64x1000xf32>
    %subview = memref.subview %alloc_0[0, 8] [64, 4] [1, 1] : memref<64x1000xf32> to memref<64x4xf32, strided<[1000, 1], offset: 8>>
    gpu.launch_func  @kernel_kernel_1::@kernel_kernel blocks in (%c4, %c64, %c1) threads in (%c256, %c1, %c1)  args(%arg0 : memref<64x1000xf32>, %subview : memref<64x4xf32, strided<[1000, 1], offset: 8>>, %arg1 : memref<64x1000xf32>)
    return
  }
  gpu.module @kernel_kernel {
  }
}"#;

    #[test]
    fn host_functions_name_the_buffers_of_each_launch() {
        let plan = host_plan(SOFTMAX_HOST, 1).unwrap();
        assert_eq!(plan.temps, [256, 256_000]);
        let l: Vec<(&str, Vec<Buffer>)> = plan
            .launches
            .iter()
            .map(|l| {
                assert_eq!(l.kernel, "kernel_kernel");
                (l.module.as_str(), l.args.iter().map(|a| a.0).collect())
            })
            .collect();
        assert_eq!(
            l,
            [
                ("kernel_kernel", vec![Buffer::Temp(0)]),
                ("kernel_kernel_0", vec![Buffer::Input(0), Buffer::Temp(0)]),
                (
                    "kernel_kernel_1",
                    vec![Buffer::Input(0), Buffer::Temp(1), Buffer::Output(0)]
                ),
            ]
        );
        assert_eq!(plan.launches[2].args[1].1.offset, 8);
        let bad = SOFTMAX_HOST.replace("%c4 = arith.constant 4 : index", "%x = math.exp %y : f32");
        assert!(
            host_plan(&bad, 1)
                .unwrap_err()
                .contains("is not an allocation, a view or a launch")
        );
    }

    const MATMUL: &str = r#"module {
  func.func @main(%x: tensor<256x512xf32>, %w: tensor<512x128xf32>) -> tensor<256x128xf32> {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x128xf32>) -> tensor<256x128xf32>
    return %0 : tensor<256x128xf32>
  }
}"#;

    #[test]
    fn a_matmul_segment_becomes_a_program_and_is_compiled_once() {
        use shardc_runtime::backend::cuda::Param;
        let m = shardc_ir::text::parse_module(MATMUL).unwrap();
        let f = crate::lower::whole_function(m.entry().unwrap()).unwrap();
        let c = PtxCompiler::new(Target::sm90());
        let p = c.program(&f).unwrap();
        assert_eq!((p.chip.as_str(), p.ptx_version), ("sm_90", 80));
        // The tiled matmul into a temporary, then a copy into the output.
        assert_eq!(p.temps, [256 * 128 * 4]);
        assert_eq!(p.launches.len(), 2);
        let mm = &p.launches[0];
        assert_eq!((mm.grid, mm.block), ([2, 4, 1], [16, 16, 1]));
        assert_eq!(mm.params.len(), 21);
        let ptr = |b| Param::Pointer {
            buffer: b,
            byte_offset: 0,
        };
        assert_eq!(mm.params[0], ptr(Buffer::Input(0)));
        assert_eq!(
            mm.params[3..7],
            [
                Param::Value(256),
                Param::Value(512),
                Param::Value(512),
                Param::Value(1)
            ]
        );
        assert_eq!(mm.params[7], ptr(Buffer::Input(1)));
        assert_eq!(mm.params[14], ptr(Buffer::Temp(0)));
        let copy = &p.launches[1];
        assert_eq!(copy.params[0], ptr(Buffer::Temp(0)));
        assert_eq!(copy.params[7], ptr(Buffer::Output(0)));
        assert_ne!(copy.module, mm.module);
        // The same segment again: served from the cache, the same program (loaded once
        // per GPU by the backend).
        let again = c.program(&f).unwrap();
        assert!(Arc::ptr_eq(&p, &again));
        assert_eq!((c.stats().compiled, c.stats().reused), (1, 1));
    }
}
