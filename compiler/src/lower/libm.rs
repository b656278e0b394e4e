//! The math functions JIT'd kernels call, bound to Rust's own.
//!
//! Compiled kernels call libm for what they do not compute inline: LLVM turns
//! `llvm.exp.f64`, `frem` and friends into calls of `exp`, `fmod`, ..., and `scalar.rs`
//! calls `expm1`, `log1p` and `cbrt` directly. The execution engine would resolve those
//! names in the process (glibc's libm), but the reference interpreter computes with
//! Rust's `f64::cbrt` & co., which a Rust binary may take from another implementation
//! (Rust's bundled one: glibc's `cbrt(2.2250738585072014e-308)` differs from it in the
//! last bit). Each engine therefore gets these symbols bound to Rust's functions, so the
//! JIT and the reference agree bit for bit (`Math::Libm`).

use std::ffi::c_void;

macro_rules! unary {
    ($($name:ident, $f:ident: $t:ty => $m:ident;)*) => {
        $(
            extern "C" fn $f(x: $t) -> $t {
                x.$m()
            }
        )*
        const UNARY: &[(&str, *const c_void)] = &[$((stringify!($name), $f as *const c_void)),*];
    };
}

unary! {
    exp, exp_f64: f64 => exp;
    expf, exp_f32: f32 => exp;
    expm1, expm1_f64: f64 => exp_m1;
    expm1f, expm1_f32: f32 => exp_m1;
    log, log_f64: f64 => ln;
    logf, log_f32: f32 => ln;
    log1p, log1p_f64: f64 => ln_1p;
    log1pf, log1p_f32: f32 => ln_1p;
    tanh, tanh_f64: f64 => tanh;
    tanhf, tanh_f32: f32 => tanh;
    cbrt, cbrt_f64: f64 => cbrt;
    cbrtf, cbrt_f32: f32 => cbrt;
    sin, sin_f64: f64 => sin;
    sinf, sin_f32: f32 => sin;
    cos, cos_f64: f64 => cos;
    cosf, cos_f32: f32 => cos;
    tan, tan_f64: f64 => tan;
    tanf, tan_f32: f32 => tan;
}

extern "C" fn pow_f64(x: f64, y: f64) -> f64 {
    x.powf(y)
}
extern "C" fn pow_f32(x: f32, y: f32) -> f32 {
    x.powf(y)
}
extern "C" fn atan2_f64(y: f64, x: f64) -> f64 {
    y.atan2(x)
}
extern "C" fn atan2_f32(y: f32, x: f32) -> f32 {
    y.atan2(x)
}
extern "C" fn fmod_f64(x: f64, y: f64) -> f64 {
    x % y
}
extern "C" fn fmod_f32(x: f32, y: f32) -> f32 {
    x % y
}
/// `sincos`: LLVM fuses `sin(x)` and `cos(x)` of one value into it.
extern "C" fn sincos_f64(x: f64, s: *mut f64, c: *mut f64) {
    // SAFETY: LLVM passes two valid, writable pointers.
    unsafe {
        *s = x.sin();
        *c = x.cos();
    }
}
extern "C" fn sincos_f32(x: f32, s: *mut f32, c: *mut f32) {
    // SAFETY: as above.
    unsafe {
        *s = x.sin();
        *c = x.cos();
    }
}

const BINARY: &[(&str, *const c_void)] = &[
    ("pow", pow_f64 as *const c_void),
    ("powf", pow_f32 as *const c_void),
    ("atan2", atan2_f64 as *const c_void),
    ("atan2f", atan2_f32 as *const c_void),
    ("fmod", fmod_f64 as *const c_void),
    ("fmodf", fmod_f32 as *const c_void),
    ("sincos", sincos_f64 as *const c_void),
    ("sincosf", sincos_f32 as *const c_void),
];

/// Binds every math symbol in `engine` (before its first lookup).
///
/// # Safety
/// `engine` must be a valid execution engine not yet initialized or looked up.
pub(crate) unsafe fn register(engine: mlir_sys::MlirExecutionEngine) {
    for &(name, f) in UNARY.iter().chain(BINARY) {
        // SAFETY: a valid engine; the name is borrowed for the call; the pointer is a
        // function with the C signature LLVM calls the symbol with.
        unsafe {
            mlir_sys::mlirExecutionEngineRegisterSymbol(
                engine,
                mlir_sys::MlirStringRef {
                    data: name.as_ptr() as *const _,
                    length: name.len(),
                },
                f as *mut c_void,
            );
        }
    }
}
