//! The GPU matmul: a classic tiled kernel in the `gpu` dialect, written out here rather
//! than derived by MLIR (upstream's workgroup-memory promotion copies each tile with
//! every thread; this kernel splits the copies over the block).
//!
//! `C[b] = A[b] x B[b]` with `A: [batch, m, k]`, `B: [batch, k, n]` (no batch: 2-D). One
//! block of 16 x 16 threads computes a 64 x 64 tile of `C`; grid `(n/64, m/64, batch)`.
//! Per step of 16 along `k`:
//!
//! - the block copies the 64 x 16 tile of `A` and the 16 x 64 tile of `B` into
//!   workgroup (shared) memory, 4 elements per thread, thread `t` taking elements
//!   `t, t + 256, ...` of each tile in row-major order: consecutive threads read
//!   consecutive addresses (coalesced) and write consecutive shared words (no bank
//!   conflicts); positions outside the matrices read as 0;
//! - `gpu.barrier`; each thread accumulates a 4 x 4 register tile, rows `ty + 16 i`
//!   and columns `tx + 16 j`, reading `A`'s tile by row (a broadcast within a warp)
//!   and `B`'s by column (consecutive words); `gpu.barrier`.
//!
//! Each thread then stores its 16 results (in bounds only), consecutive threads to
//! consecutive columns. Floats accumulate with fused multiply-adds, bf16/f16 in f32
//! (rounded once at the end), integers wrap.

use super::linalg::{Emitter, memref, tt};
use shardc_ir::{DType, TensorType};

/// Rows and columns of `C` per block, and the step along `k`.
pub(crate) const TILE_M: usize = 64;
pub(crate) const TILE_N: usize = 64;
pub(crate) const TILE_K: usize = 16;
/// Threads per block along x and y; each computes a 4 x 4 register tile.
pub(crate) const THREADS: usize = 16;
const PER_THREAD: usize = TILE_M / THREADS;

/// Emits the kernel for canonical operands `a` and `b`; gives `C` as a tensor of
/// `c_ty` (accumulated in `acc`).
pub(crate) fn emit(
    e: &mut Emitter,
    a: &str,
    a_ty: &TensorType,
    b: &str,
    b_ty: &TensorType,
    c_ty: &TensorType,
    acc_dt: DType,
) -> String {
    // The accumulator as kernels store it (unsigned integers signless).
    let acc = super::scalar::storage(acc_dt);
    let batched = c_ty.rank() == 3;
    let (m, k, n) = (
        a_ty.shape[a_ty.rank() - 2],
        a_ty.shape[a_ty.rank() - 1],
        b_ty.shape[b_ty.rank() - 1],
    );
    let batch = if batched { c_ty.shape[0] } else { 1 };
    let dt = c_ty.dtype;
    let abuf = e.op(format!(
        "bufferization.to_buffer {a} read_only : {} to {}",
        tt(a_ty),
        memref(a_ty)
    ));
    let bbuf = e.op(format!(
        "bufferization.to_buffer {b} read_only : {} to {}",
        tt(b_ty),
        memref(b_ty)
    ));
    let cbuf = e.op(format!("memref.alloc() : {}", memref(c_ty)));
    let gx = e.op(format!("arith.constant {} : index", n.div_ceil(TILE_N)));
    let gy = e.op(format!("arith.constant {} : index", m.div_ceil(TILE_M)));
    let gz = e.op(format!("arith.constant {batch} : index"));
    let threads = e.op(format!("arith.constant {THREADS} : index"));
    let one = e.op("arith.constant 1 : index");
    let names: Vec<String> = (0..12).map(|_| e.fresh_name()).collect();
    let [bx, by, bz, tx, ty, tz, gxa, gya, gza, sxa, sya, sza] =
        names.try_into().expect("12 names");
    let (a_s, b_s) = (e.fresh_name(), e.fresh_name());
    let shared = |rows: usize, cols: usize| {
        format!("memref<{rows}x{cols}x{acc}, #gpu.address_space<workgroup>>")
    };
    e.lines.push(format!(
        "gpu.launch blocks({bx}, {by}, {bz}) in ({gxa} = {gx}, {gya} = {gy}, {gza} = {gz}) \
         threads({tx}, {ty}, {tz}) in ({sxa} = {threads}, {sya} = {threads}, {sza} = {one}) \
         workgroup({a_s} : {}, {b_s} : {}) {{",
        shared(TILE_M, TILE_K),
        shared(TILE_K, TILE_N)
    ));
    let mut k_ = Kernel {
        e,
        lines: Vec::new(),
    };
    let c = |k_: &mut Kernel, v: usize| k_.op(format!("arith.constant {v} : index"));
    let c0 = c(&mut k_, 0);
    let c1 = c(&mut k_, 1);
    let c_threads = c(&mut k_, THREADS);
    let c_tm = c(&mut k_, TILE_M);
    let c_tn = c(&mut k_, TILE_N);
    let c_tk = c(&mut k_, TILE_K);
    let c_m = c(&mut k_, m);
    let c_n = c(&mut k_, n);
    let c_k = c(&mut k_, k);
    let row0 = k_.op(format!("arith.muli {by}, {c_tm} : index"));
    let col0 = k_.op(format!("arith.muli {bx}, {c_tn} : index"));
    let tid = k_.op(format!("arith.muli {ty}, {c_threads} : index"));
    let tid = k_.op(format!("arith.addi {tid}, {tx} : index"));
    let zero = if acc_dt.is_float() {
        k_.op(format!(
            "arith.constant {} : {acc}",
            super::scalar::float_hex(0.0, acc_dt)
        ))
    } else {
        k_.op(format!("arith.constant 0 : {acc}"))
    };
    let batch_index = |v: &str| {
        if batched {
            format!("{bz}, {v}")
        } else {
            v.to_string()
        }
    };
    let accs = PER_THREAD * PER_THREAD;
    // The k loop carries the 16 accumulators.
    let kt = k_.fresh();
    let carried: Vec<String> = (0..accs).map(|_| k_.fresh()).collect();
    let outer = k_.fresh();
    let acc_types = vec![acc.to_string(); accs].join(", ");
    k_.lines.push(format!(
        "{outer}:{accs} = scf.for {kt} = {c0} to {c_k} step {c_tk} iter_args({}) -> ({acc_types}) {{",
        carried
            .iter()
            .map(|v| format!("{v} = {zero}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    // Copy the tiles into workgroup memory.
    let block_threads = THREADS * THREADS;
    for (tile_rows, tile_cols, buf, buf_ty, shared_buf, row_base, col_base, rows, cols) in [
        (TILE_M, TILE_K, &abuf, a_ty, &a_s, &row0, &kt, &c_m, &c_k),
        (TILE_K, TILE_N, &bbuf, b_ty, &b_s, &kt, &col0, &c_k, &c_n),
    ] {
        let c_cols = c(&mut k_, tile_cols);
        for i in 0..tile_rows * tile_cols / block_threads {
            let off = c(&mut k_, i * block_threads);
            let el = k_.op(format!("arith.addi {tid}, {off} : index"));
            let r = k_.op(format!("arith.divui {el}, {c_cols} : index"));
            let cc = k_.op(format!("arith.remui {el}, {c_cols} : index"));
            let gr = k_.op(format!("arith.addi {row_base}, {r} : index"));
            let gc = k_.op(format!("arith.addi {col_base}, {cc} : index"));
            let in_r = k_.op(format!("arith.cmpi ult, {gr}, {rows} : index"));
            let in_c = k_.op(format!("arith.cmpi ult, {gc}, {cols} : index"));
            let ok = k_.op(format!("arith.andi {in_r}, {in_c} : i1"));
            let sr = k_.op(format!("arith.select {ok}, {gr}, {c0} : index"));
            let sc = k_.op(format!("arith.select {ok}, {gc}, {c0} : index"));
            let v = k_.op(format!(
                "memref.load {buf}[{}, {sc}] : {}",
                batch_index(&sr),
                memref(buf_ty)
            ));
            let v = if acc_dt != dt {
                k_.scalar(|b| super::scalar::widen(b, &v, dt))
            } else {
                v
            };
            let v = k_.op(format!("arith.select {ok}, {v}, {zero} : {acc}"));
            k_.lines.push(format!(
                "memref.store {v}, {shared_buf}[{r}, {cc}] : {}",
                shared(tile_rows, tile_cols)
            ));
        }
    }
    k_.lines.push("gpu.barrier".to_string());
    // Multiply the tiles.
    let kk = k_.fresh();
    let inner_carried: Vec<String> = (0..accs).map(|_| k_.fresh()).collect();
    let inner = k_.fresh();
    k_.lines.push(format!(
        "{inner}:{accs} = scf.for {kk} = {c0} to {c_tk} step {c1} iter_args({}) -> ({acc_types}) {{",
        inner_carried
            .iter()
            .zip(&carried)
            .map(|(v, o)| format!("{v} = {o}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let rows: Vec<String> = (0..PER_THREAD)
        .map(|i| {
            let off = c(&mut k_, i * THREADS);
            let r = k_.op(format!("arith.addi {ty}, {off} : index"));
            k_.op(format!(
                "memref.load {a_s}[{r}, {kk}] : {}",
                shared(TILE_M, TILE_K)
            ))
        })
        .collect();
    let cols: Vec<String> = (0..PER_THREAD)
        .map(|j| {
            let off = c(&mut k_, j * THREADS);
            let cc = k_.op(format!("arith.addi {tx}, {off} : index"));
            k_.op(format!(
                "memref.load {b_s}[{kk}, {cc}] : {}",
                shared(TILE_K, TILE_N)
            ))
        })
        .collect();
    let mut updated = Vec::new();
    for i in 0..PER_THREAD {
        for j in 0..PER_THREAD {
            let old = &inner_carried[i * PER_THREAD + j];
            let v = if acc_dt.is_float() {
                k_.op(format!("math.fma {}, {}, {old} : {acc}", rows[i], cols[j]))
            } else {
                let p = k_.op(format!("arith.muli {}, {} : {acc}", rows[i], cols[j]));
                k_.op(format!("arith.addi {old}, {p} : {acc}"))
            };
            updated.push(v);
        }
    }
    k_.lines
        .push(format!("scf.yield {} : {acc_types}", updated.join(", ")));
    k_.lines.push("}".to_string());
    k_.lines.push("gpu.barrier".to_string());
    let inner_results: Vec<String> = (0..accs).map(|i| format!("{inner}#{i}")).collect();
    k_.lines.push(format!(
        "scf.yield {} : {acc_types}",
        inner_results.join(", ")
    ));
    k_.lines.push("}".to_string());
    // Store the results in bounds.
    for i in 0..PER_THREAD {
        for j in 0..PER_THREAD {
            let ro = c(&mut k_, i * THREADS);
            let co = c(&mut k_, j * THREADS);
            let r = k_.op(format!("arith.addi {row0}, {ty} : index"));
            let r = k_.op(format!("arith.addi {r}, {ro} : index"));
            let cc = k_.op(format!("arith.addi {col0}, {tx} : index"));
            let cc = k_.op(format!("arith.addi {cc}, {co} : index"));
            let in_r = k_.op(format!("arith.cmpi ult, {r}, {c_m} : index"));
            let in_c = k_.op(format!("arith.cmpi ult, {cc}, {c_n} : index"));
            let ok = k_.op(format!("arith.andi {in_r}, {in_c} : i1"));
            k_.lines.push(format!("scf.if {ok} {{"));
            let v = format!("{outer}#{}", i * PER_THREAD + j);
            let v = if acc_dt != dt {
                k_.scalar(|b| super::scalar::narrow(b, &v, dt))
            } else {
                v
            };
            k_.lines.push(format!(
                "memref.store {v}, {cbuf}[{}, {cc}] : {}",
                batch_index(&r),
                memref(c_ty)
            ));
            k_.lines.push("}".to_string());
        }
    }
    k_.lines.push("gpu.terminator".to_string());
    let body = std::mem::take(&mut k_.lines);
    for l in body {
        e.lines.push(format!("  {l}"));
    }
    e.lines.push("}".to_string());
    e.op(format!(
        "bufferization.to_tensor {cbuf} restrict writable : {} to {}",
        memref(c_ty),
        tt(c_ty)
    ))
}

/// Lines of the kernel body, numbered by the emitter's counter.
struct Kernel<'e, 'f> {
    e: &'e mut Emitter<'f>,
    lines: Vec<String>,
}

impl Kernel<'_, '_> {
    fn fresh(&mut self) -> String {
        self.e.fresh_name()
    }

    fn op(&mut self, rhs: String) -> String {
        let n = self.fresh();
        self.lines.push(format!("{n} = {rhs}"));
        n
    }

    /// Scalar ops from `scalar.rs` (bf16/f16 conversions) in the kernel body.
    fn scalar(&mut self, f: impl FnOnce(&mut super::scalar::Body) -> String) -> String {
        let (next, externs) = self.e.counters();
        let mut b = super::scalar::Body::new(next, externs);
        let r = f(&mut b);
        let lines = b.lines;
        self.lines.extend(lines);
        r
    }
}
