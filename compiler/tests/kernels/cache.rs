//! The kernel cache on disk (`lower/cache.rs`): a kernel compiled once is loaded by a later
//! compile (as by another process) and computes the same bits; a damaged or foreign entry
//! is a miss, compiled again; a kernel calling math functions bound to Rust's is not kept.

use super::{Tol, compare, values};
use shardc_compiler::lower::{self, cpu};
use shardc_ir::Literal;
use shardc_ir::text::parse_module;
use std::path::{Path, PathBuf};

const PROGRAM: &str = "func.func @main(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %d = stablehlo.add %c, %c : tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}";

const WITH_MATH: &str = "func.func @main(%a: tensor<64xf64>) -> tensor<64xf64> {
  %e = stablehlo.exponential %a : tensor<64xf64>
  return %e : tensor<64xf64>
}";

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardc-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn entries(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v
}

fn compile(text: &str, dir: &Path, math: cpu::Math) -> (cpu::CpuKernel, Vec<Literal>) {
    let m = parse_module(text).unwrap();
    let f = m.entry().unwrap();
    let options = cpu::CpuOptions {
        math,
        cache: Some(cpu::DiskCache::new(dir)),
        ..cpu::CpuOptions::default()
    };
    let k = cpu::compile(&lower::whole_function(f).unwrap(), &options).unwrap();
    let args: Vec<Literal> = f
        .arg_types()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let v = values(t.num_elements(), i as u64 + 3, -1.0, 1.0);
            Literal::from_f64(t.dtype, &t.shape, &v).unwrap()
        })
        .collect();
    let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
    let got = k.run(&args).unwrap();
    compare(&got[0], &want[0], Tol::F32).unwrap();
    (k, got)
}

#[test]
fn a_kernel_compiled_once_is_loaded_by_a_later_compile() {
    let dir = fresh_dir("hit");
    let (first, first_out) = compile(PROGRAM, &dir, cpu::Math::Approximate);
    assert!(!first.loaded_from_disk());
    assert_eq!(entries(&dir, "so").len(), 1, "one library stored");
    assert_eq!(entries(&dir, "key").len(), 1, "beside its key");
    let (second, second_out) = compile(PROGRAM, &dir, cpu::Math::Approximate);
    assert!(
        second.loaded_from_disk(),
        "the second compile loads the library"
    );
    assert_eq!(first_out, second_out, "the same bits");
    // Another kernel is another entry.
    let (third, _) = compile(
        &PROGRAM.replace("stablehlo.add", "stablehlo.multiply"),
        &dir,
        cpu::Math::Approximate,
    );
    assert!(!third.loaded_from_disk());
    assert_eq!(entries(&dir, "so").len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_or_foreign_entry_is_compiled_again() {
    let dir = fresh_dir("damaged");
    compile(PROGRAM, &dir, cpu::Math::Approximate);
    // A truncated library does not load: compiled again (and stored again).
    let so = entries(&dir, "so").remove(0);
    std::fs::write(&so, b"\x7fELF truncated").unwrap();
    let (again, _) = compile(PROGRAM, &dir, cpu::Math::Approximate);
    assert!(!again.loaded_from_disk());
    let (restored, _) = compile(PROGRAM, &dir, cpu::Math::Approximate);
    assert!(restored.loaded_from_disk(), "the entry was stored again");
    // A key file that names another kernel (a hash collision) is a miss.
    let key = entries(&dir, "key").remove(0);
    std::fs::write(&key, "another kernel").unwrap();
    let (collided, _) = compile(PROGRAM, &dir, cpu::Math::Approximate);
    assert!(!collided.loaded_from_disk());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernels_calling_math_bound_to_rust_are_not_kept() {
    let dir = fresh_dir("math");
    let (k, _) = compile(WITH_MATH, &dir, cpu::Math::Libm);
    assert!(!k.loaded_from_disk());
    assert!(
        entries(&dir, "so").is_empty(),
        "exp is bound to Rust's at run time; a library would take the C library's"
    );
    let (k, _) = compile(WITH_MATH, &dir, cpu::Math::Libm);
    assert!(!k.loaded_from_disk());
    let _ = std::fs::remove_dir_all(&dir);
}
