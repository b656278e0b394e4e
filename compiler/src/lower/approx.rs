//! Polynomial approximations of math functions, so kernels need no math library: on
//! GPUs `math.exp` & co. would otherwise become calls into CUDA's libdevice, and on CPUs
//! calls into libm that LLVM cannot vectorize.
//!
//! MLIR 22 implements them as rewrite patterns (`populateMathPolynomialApproximation
//! Patterns`: exp, expm1, log, log1p, log2, tanh, erf, erfc, atan, atan2, sin, cos,
//! cbrt, asin, acos on f32) but exposes them as a pass only in its test library, as
//! `test-math-polynomial-approximation` (`mlir-opt --help | grep -i approx`). Debian's
//! `libmlir-22-dev` ships that library (`libMLIRMathTestPasses.a`), and `mlir-sys` links
//! every `libMLIR*.a`, so the pass is here once registered.
//!
//! Where an approximation misses C's special cases or loses accuracy, `scalar.rs`
//! wraps it: `cbrt(±inf)`, `atan2` at zeros and infinities, `pow` (as `exp(y log|x|)`
//! with C99's special cases; MLIR's `math-expand-ops` gives NaN for `pow(0, 0)`), and
//! `sin`/`cos`/`tan` (reduced to `[-pi/4, pi/4]` in f64 and summed as series in f64:
//! MLIR's f32 approximation has an absolute, not relative, error near zero).
//!
//! f64 functions are not approximated: on CPUs they call libm; on GPUs they need a
//! libdevice path (`gpu::Target::libdevice`).

unsafe extern "C" {
    /// `mlir::test::registerTestMathPolynomialApproximationPass()` (C++, no arguments,
    /// no result: the C calling convention is the same).
    #[link_name = "_ZN4mlir4test43registerTestMathPolynomialApproximationPassEv"]
    fn register_test_math_polynomial_approximation_pass();
}

/// The passes, in order, for a textual pipeline.
pub(crate) const PASSES: [&str; 1] = ["test-math-polynomial-approximation"];

/// Registers the approximation pass with MLIR's pass registry (once per process; see
/// `super::init`).
pub(crate) fn register() {
    // SAFETY: a registration function with no arguments that adds a pass to MLIR's
    // global registry; called once (under `std::sync::Once`) before any pipeline is
    // parsed.
    unsafe { register_test_math_polynomial_approximation_pass() }
}
