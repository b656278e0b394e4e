//! The kernel parameter ABI: what a launch passes for each `.param` of a PTX entry.
//!
//! MLIR's `gpu-lower-to-nvvm-pipeline` passes each memref argument of a `gpu.func` as its
//! descriptor, expanded into 64-bit scalars: `allocated pointer, aligned pointer, offset,
//! sizes[rank], strides[rank]` (offset, sizes and strides in elements), so a kernel taking
//! three 2-d memrefs has 21 parameters (`compiler/tests/kernels/snapshots/*matmul*`). With
//! `use-bare-ptr-memref-call-conv` a memref is one pointer to its first element instead.
//! [`pack`] reads which of the two a PTX entry uses from its `.param` list
//! ([`entry_params`]) and gives the value of every parameter.

use super::program::{Buffer, Param};

/// One `.param` of a PTX entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// Its name in the entry's signature.
    pub name: String,
    /// `.u64`, `.b32`, ...
    pub ty: String,
    /// Marked `.ptr` (a pointer into global memory).
    pub pointer: bool,
}

/// The `.param` list of entry `kernel` in `ptx`.
pub fn entry_params(ptx: &str, kernel: &str) -> Result<Vec<PtxParam>, String> {
    let head = format!(".entry {kernel}(");
    let start = ptx
        .find(&head)
        .map(|i| i + head.len())
        .ok_or_else(|| format!("the PTX has no entry {kernel}"))?;
    let len = ptx[start..]
        .find(')')
        .ok_or_else(|| format!("the parameter list of entry {kernel} does not end"))?;
    let list = &ptx[start..start + len];
    let mut params = Vec::new();
    for item in list.split(',') {
        let tokens: Vec<&str> = item.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens[0] != ".param" || tokens.len() < 3 {
            return Err(format!(
                "entry {kernel}: cannot read the parameter `{}`",
                item.trim()
            ));
        }
        // `.param .align 8 .b8 name[16]` passes a struct by value.
        if tokens[1] == ".align" || tokens.last().is_some_and(|t| t.ends_with(']')) {
            return Err(format!(
                "entry {kernel}: the parameter `{}` is an aggregate; the cuda backend passes only 64-bit scalars",
                item.trim()
            ));
        }
        params.push(PtxParam {
            name: tokens[tokens.len() - 1].to_string(),
            ty: tokens[1].to_string(),
            pointer: tokens.contains(&".ptr"),
        });
    }
    Ok(params)
}

/// A memref a launch passes: where it lies (a buffer of the segment) and its strided
/// layout, all in elements, as its MLIR type states it (static shapes only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemrefArg {
    /// The segment's buffer it views.
    pub buffer: Buffer,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Its first element's offset in the buffer, in elements.
    pub offset: u64,
    /// Its sizes, per dimension.
    pub sizes: Vec<u64>,
    /// Its strides, per dimension, in elements.
    pub strides: Vec<u64>,
}

impl MemrefArg {
    /// The scalars of its descriptor: 3 + 2·rank.
    pub fn descriptor_len(&self) -> usize {
        3 + 2 * self.sizes.len()
    }
}

/// How an entry takes its memrefs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// Expanded descriptors (MLIR's default).
    Descriptors,
    /// One pointer per memref, to its first element (`use-bare-ptr-memref-call-conv`).
    BarePointers,
}

/// The value of every `.param` of entry `kernel` (whose list is `params`) when it is
/// launched on `args`, and the convention the list shows. Fails, saying what it expected,
/// when the list fits neither convention.
pub fn pack(
    kernel: &str,
    params: &[PtxParam],
    args: &[MemrefArg],
) -> Result<(Convention, Vec<Param>), String> {
    if let Some(p) = params
        .iter()
        .find(|p| !matches!(p.ty.as_str(), ".u64" | ".b64" | ".s64"))
    {
        return Err(format!(
            "entry {kernel}: parameter {} is {}; the cuda backend passes 64-bit values only",
            p.name, p.ty
        ));
    }
    let descriptors: usize = args.iter().map(MemrefArg::descriptor_len).sum();
    if params.len() == descriptors {
        let mut out = Vec::with_capacity(descriptors);
        for a in args {
            let base = Param::Pointer {
                buffer: a.buffer,
                byte_offset: 0,
            };
            out.push(base);
            out.push(base);
            out.push(Param::Value(a.offset));
            out.extend(a.sizes.iter().map(|&s| Param::Value(s)));
            out.extend(a.strides.iter().map(|&s| Param::Value(s)));
        }
        // Pointers where the PTX marks them: allocated and aligned of each descriptor.
        let marked: Vec<usize> = (0..params.len()).filter(|&i| params[i].pointer).collect();
        if !marked.is_empty() {
            let expected: Vec<usize> = (0..out.len())
                .filter(|&i| matches!(out[i], Param::Pointer { .. }))
                .collect();
            if marked != expected {
                return Err(format!(
                    "entry {kernel}: its pointer parameters are {marked:?}, but memref descriptors of ranks {:?} put pointers at {expected:?}",
                    args.iter().map(|a| a.sizes.len()).collect::<Vec<_>>()
                ));
            }
        }
        return Ok((Convention::Descriptors, out));
    }
    if params.len() == args.len() {
        let out = args
            .iter()
            .map(|a| Param::Pointer {
                buffer: a.buffer,
                byte_offset: a.offset * a.elem_bytes,
            })
            .collect();
        return Ok((Convention::BarePointers, out));
    }
    Err(format!(
        "entry {kernel} has {} parameters; its {} memref arguments (ranks {:?}) take {descriptors} as descriptors or {} as bare pointers",
        params.len(),
        args.len(),
        args.iter().map(|a| a.sizes.len()).collect::<Vec<_>>(),
        args.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of the matmul kernel of `compiler/tests/kernels/snapshots/
    /// kernels__gpu__ptx_matmul_sm90.snap` (LLVM 22's NVPTX back end, sm_90, PTX 8.0).
    const MATMUL: &str = include_str!(
        "../../../../compiler/tests/kernels/snapshots/kernels__gpu__ptx_matmul_sm90.snap"
    );

    fn memref(buffer: Buffer, sizes: &[u64]) -> MemrefArg {
        let mut strides = vec![1u64; sizes.len()];
        for d in (0..sizes.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * sizes[d + 1];
        }
        MemrefArg {
            buffer,
            elem_bytes: 4,
            offset: 0,
            sizes: sizes.to_vec(),
            strides,
        }
    }

    #[test]
    fn the_matmul_kernel_takes_three_expanded_descriptors() {
        let params = entry_params(MATMUL, "kernel_kernel").unwrap();
        assert_eq!(params.len(), 21);
        assert!(params.iter().all(|p| p.ty == ".u64"));
        assert_eq!(params[7].name, "kernel_kernel_param_7");
        // x: 256x512, w: 512x128 (the segment's inputs), into a 256x128 temporary.
        let args = [
            memref(Buffer::Input(0), &[256, 512]),
            memref(Buffer::Input(1), &[512, 128]),
            memref(Buffer::Temp(0), &[256, 128]),
        ];
        let (conv, values) = pack("kernel_kernel", &params, &args).unwrap();
        assert_eq!(conv, Convention::Descriptors);
        let p = |b| Param::Pointer {
            buffer: b,
            byte_offset: 0,
        };
        let v = Param::Value;
        assert_eq!(
            values,
            [
                p(Buffer::Input(0)),
                p(Buffer::Input(0)),
                v(0),
                v(256),
                v(512),
                v(512),
                v(1),
                p(Buffer::Input(1)),
                p(Buffer::Input(1)),
                v(0),
                v(512),
                v(128),
                v(128),
                v(1),
                p(Buffer::Temp(0)),
                p(Buffer::Temp(0)),
                v(0),
                v(256),
                v(128),
                v(128),
                v(1),
            ]
        );
        // The pointers are where the PTX marks `.ptr`.
        let marked: Vec<usize> = (0..21).filter(|&i| params[i].pointer).collect();
        assert_eq!(marked, [0, 1, 7, 8, 14, 15]);
    }

    #[test]
    fn lists_that_fit_no_convention_are_refused() {
        let params = entry_params(MATMUL, "kernel_kernel").unwrap();
        let two = [
            memref(Buffer::Input(0), &[256, 512]),
            memref(Buffer::Input(1), &[512, 128]),
        ];
        let e = pack("kernel_kernel", &params, &two).unwrap_err();
        assert_eq!(
            e,
            "entry kernel_kernel has 21 parameters; its 2 memref arguments (ranks [2, 2]) take 14 as descriptors or 2 as bare pointers"
        );
        // Same count, pointers elsewhere: a rank-1 and a rank-3 memref.
        let odd = [
            memref(Buffer::Input(0), &[4]),
            memref(Buffer::Input(1), &[2, 2, 2]),
            memref(Buffer::Temp(0), &[4, 4]),
        ];
        let e = pack("kernel_kernel", &params, &odd).unwrap_err();
        assert!(
            e.contains("pointer parameters are [0, 1, 7, 8, 14, 15]"),
            "{e}"
        );
        assert!(
            entry_params(MATMUL, "nope")
                .unwrap_err()
                .contains("no entry nope")
        );
    }

    #[test]
    fn bare_pointers_point_at_the_first_element() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .align 1 k_param_0,\n\t.param .u64 .ptr .align 1 k_param_1\n)\n{";
        let params = entry_params(ptx, "k").unwrap();
        let mut view = memref(Buffer::Input(0), &[4, 4]);
        view.offset = 5;
        let args = [view, memref(Buffer::Output(0), &[4])];
        let (conv, values) = pack("k", &params, &args).unwrap();
        assert_eq!(conv, Convention::BarePointers);
        assert_eq!(
            values[0],
            Param::Pointer {
                buffer: Buffer::Input(0),
                byte_offset: 20
            }
        );
        let agg = ".entry k(\n\t.param .align 8 .b8 k_param_0[24]\n)";
        assert!(
            entry_params(agg, "k")
                .unwrap_err()
                .contains("is an aggregate")
        );
        let narrow = ".entry k(\n\t.param .u32 k_param_0\n)";
        let e = pack("k", &entry_params(narrow, "k").unwrap(), &[]).unwrap_err();
        assert!(e.contains("is .u32"), "{e}");
        assert_eq!(entry_params(".entry k()", "k").unwrap(), vec![]);
    }
}
