//! Whole programs: random f32 programs, fusion, the kernel cache, the libm mode, errors.

use super::{Tol, check_module, module_of, values};
use proptest::prelude::*;
use shardc_compiler::lower::{self, Flavour, Math, cpu};
use shardc_ir::testing::arb_program_f32;
use shardc_ir::text::parse_module;
use shardc_ir::{BinaryOp, DType, FunctionBuilder, Literal, TensorType, UnaryOp};
use shardc_runtime::engine::{Buffers, Compute, Input, Step, steps};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Random f32 programs (every op arb_program_f32 draws: elementwise, dot_general,
    /// reduce, transpose, reshape, broadcast, sharding constraints), the whole body as
    /// one segment, against the reference.
    #[test]
    fn random_f32_programs_match_the_reference(p in arb_program_f32()) {
        let f = p.module.entry().unwrap();
        let r = check_module(&p.module, &f.name, &p.inputs, Tol::F32);
        prop_assert!(r.is_ok(), "{}\n{}", r.unwrap_err(), shardc_ir::text::print_module(&p.module));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random f32 programs through the JIT engine: every segment cut into fusion
    /// clusters, each compiled (or reused) and run in order, against the reference.
    #[test]
    fn random_f32_programs_as_clusters_match_the_reference(p in arb_program_f32()) {
        let f = p.module.entry().unwrap();
        let want = shardc_runtime::reference::run(&p.module, &f.name, &p.inputs).unwrap();
        // Every matmul the library GEMM can serve run by it, however small, so that random
        // dimension numbers exercise its strides (`random_f32_programs_match_the_reference`
        // covers compiled matmuls).
        let jit = cpu::NativeCompute::new(cpu::CpuOptions {
            library_matmuls: Some(0),
            ..cpu::CpuOptions::default()
        });
        let module = &p.module;
        let got = shardc_runtime::simulate::run_on(
            &jit,
            module,
            &f.name,
            &[shardc_ir::DeviceId(0)],
            std::slice::from_ref(&p.inputs),
        )
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", shardc_ir::text::print_module(module))))?
        .remove(0);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let r = super::compare(g, w, Tol::F32);
            prop_assert!(
                r.is_ok(),
                "result {i}: {}\n{}",
                r.unwrap_err(),
                shardc_ir::text::print_module(module)
            );
        }
        let stats = jit.stats();
        prop_assert_eq!(
            stats.compiled + stats.reused + stats.library,
            stats.kernels,
            "{:?}",
            stats
        );
    }
}

/// Three layers `tanh(h w_i + b_i)` of the same shapes: the clusters of the second and
/// third (`broadcast + add + tanh` of the previous layer fused into this layer's
/// `dot_general`) print the same, so they share one kernel.
#[test]
fn identical_layers_share_cluster_kernels() {
    let src = r#"module {
  func.func @main(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x16xf32>, %b2: tensor<16xf32>, %w3: tensor<16x16xf32>, %b3: tensor<16xf32>) -> tensor<8x16xf32> {
    %d1 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %a1 = stablehlo.add %d1, %bb1 : tensor<8x16xf32>
    %t1 = stablehlo.tanh %a1 : tensor<8x16xf32>
    %d2 = stablehlo.dot_general %t1, %w2, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %a2 = stablehlo.add %d2, %bb2 : tensor<8x16xf32>
    %t2 = stablehlo.tanh %a2 : tensor<8x16xf32>
    %d3 = stablehlo.dot_general %t2, %w3, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %bb3 = stablehlo.broadcast_in_dim %b3, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %a3 = stablehlo.add %d3, %bb3 : tensor<8x16xf32>
    %t3 = stablehlo.tanh %a3 : tensor<8x16xf32>
    return %t3 : tensor<8x16xf32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let f = m.entry().unwrap();
    let shapes: [&[usize]; 7] = [
        &[8, 16],
        &[16, 16],
        &[16],
        &[16, 16],
        &[16],
        &[16, 16],
        &[16],
    ];
    let args: Vec<Literal> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n = s.iter().product();
            Literal::from_f64(DType::F32, s, &values(n, 40 + i as u64, -0.5, 0.5)).unwrap()
        })
        .collect();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
    // Matmuls compiled: clusters [d1], [bb1 a1 t1 d2], [bb2 a2 t2 d3], [bb3 a3 t3]; the
    // middle two share.
    let compiled = cpu::NativeCompute::new(cpu::CpuOptions {
        library_matmuls: None,
        ..cpu::CpuOptions::default()
    });
    let k = compiled.prepare(&m, f, seg).unwrap();
    super::compare(&k.run(&args).unwrap()[0], &want[0], Tol::F32).unwrap();
    let stats = compiled.stats();
    assert_eq!(
        (stats.segments, stats.kernels, stats.compiled, stats.reused),
        (1, 4, 3, 1),
        "{stats:?}"
    );
    // Matmuls run by the library GEMM (by default only from 128^3 on; here all): each
    // alone, and the three [bbi ai ti] share one kernel.
    let jit = cpu::NativeCompute::new(cpu::CpuOptions {
        library_matmuls: Some(0),
        ..cpu::CpuOptions::default()
    });
    let k = jit.prepare(&m, f, seg).unwrap();
    super::compare(&k.run(&args).unwrap()[0], &want[0], Tol::F32).unwrap();
    let stats = jit.stats();
    assert_eq!(
        (
            stats.segments,
            stats.kernels,
            stats.compiled,
            stats.reused,
            stats.library
        ),
        (1, 6, 1, 2, 3),
        "{stats:?}"
    );
    // A second run on other inputs writes the buffers of the first again.
    let other: Vec<Literal> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let n = a.ty.num_elements();
            Literal::from_f64(
                DType::F32,
                &a.ty.shape,
                &values(n, 90 + i as u64, -0.5, 0.5),
            )
            .unwrap()
        })
        .collect();
    let want_other = shardc_runtime::reference::run(&m, "main", &other).unwrap();
    super::compare(&k.run(&other).unwrap()[0], &want_other[0], Tol::F32).unwrap();
    // Preparing the segment again compiles nothing.
    let again = jit.prepare(&m, f, seg).unwrap();
    super::compare(&again.run(&args).unwrap()[0], &want[0], Tol::F32).unwrap();
    let stats = jit.stats();
    assert_eq!(
        (stats.kernels, stats.compiled, stats.reused, stats.library),
        (12, 1, 5, 6),
        "{stats:?}"
    );
}

/// `x + y -> * x -> tanh -> max z -> negate`: five elementwise ops.
fn chain(n: usize) -> shardc_ir::Function {
    let t = TensorType::new(DType::F32, [n, 64]);
    let mut b = FunctionBuilder::new("main", &[t.clone(), t.clone(), t]);
    let (x, y, z) = (b.arg(0), b.arg(1), b.arg(2));
    let a = b.binary(BinaryOp::Add, x, y).unwrap();
    let m = b.binary(BinaryOp::Multiply, a, x).unwrap();
    let h = b.unary(UnaryOp::Tanh, m).unwrap();
    let c = b.binary(BinaryOp::Maximum, h, z).unwrap();
    let r = b.unary(UnaryOp::Negate, c).unwrap();
    b.finish(&[r])
}

#[test]
fn five_elementwise_ops_fuse_into_one_loop_nest_with_no_intermediate_buffer() {
    let f = chain(32);
    let lowered = lower::lower(&f, Flavour::Cpu, Math::Approximate).unwrap();
    assert_eq!(lowered.text.matches("linalg.generic").count(), 5);
    let fused = lower::fused(&lowered, false).unwrap();
    assert_eq!(fused.matches("linalg.generic").count(), 1, "{fused}");
    // After bufferization: no allocation at all (the one loop nest writes into the
    // caller's buffer).
    let mut stages = cpu::Stages::default();
    let k = cpu::compile_with_stages(&f, &cpu::CpuOptions::default(), Some(&mut stages)).unwrap();
    let tiled = stages.get("tile").unwrap();
    assert_eq!(tiled.matches("memref.alloc").count(), 0, "{tiled}");
    assert_eq!(tiled.matches("linalg.generic").count(), 1, "{tiled}");
    let args: Vec<Literal> = (0..3)
        .map(|s| Literal::from_f64(DType::F32, &[32, 64], &values(32 * 64, s, -2.0, 2.0)).unwrap())
        .collect();
    let want = shardc_runtime::reference::run(&module_of(f), "main", &args).unwrap();
    super::compare(&k.run(&args).unwrap()[0], &want[0], Tol::F32).unwrap();
}

#[test]
fn matmuls_are_tiled_and_vectorized() {
    let t = |m, n| TensorType::new(DType::F32, [m, n]);
    let mut b = FunctionBuilder::new("main", &[t(128, 256), t(256, 64)]);
    let (x, w) = (b.arg(0), b.arg(1));
    let dims = shardc_ir::DotDims {
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
        ..Default::default()
    };
    let y = b.dot_general(x, w, dims).unwrap();
    let f = b.finish(&[y]);
    let mut stages = cpu::Stages::default();
    cpu::compile_with_stages(&f, &cpu::CpuOptions::default(), Some(&mut stages)).unwrap();
    let tiled = stages.get("tile").unwrap();
    // The register tile: FMAs of whole vectors in a loop over k, the accumulators
    // carried in registers (iter_args), not reloaded from memory per step.
    assert!(tiled.contains("vector.fma"), "{tiled}");
    assert!(tiled.contains("iter_args"), "{tiled}");
    assert!(!tiled.contains("linalg.matmul"), "{tiled}");
    let off = cpu::CpuOptions {
        vectorize_matmuls: false,
        ..Default::default()
    };
    let mut stages = cpu::Stages::default();
    cpu::compile_with_stages(&f, &off, Some(&mut stages)).unwrap();
    assert!(stages.get("tile").unwrap().contains("linalg.matmul"));
}

/// Row statistics (a layer norm's sum of squares, a softmax's max), a full sum and a sum
/// over the outer and inner dimensions, with sizes that tile unevenly: each folded in
/// vectors with its accumulator in registers; a bias gradient's column sum stays loops
/// along memory. The same bits as the reference (the order is the reference's).
#[test]
fn reductions_are_vectorized_in_the_reference_order() {
    let src = r#"module {
  func.func @main(%x: tensor<48x40xf32>, %g: tensor<3x20x24xf32>) -> (tensor<48xf32>, tensor<48xf32>, tensor<24xf32>, tensor<f32>, tensor<20xf32>) {
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %sq = stablehlo.multiply %x, %x : tensor<48x40xf32>
    %0 = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<48x40xf32>, tensor<f32>) -> tensor<48xf32>
    %1 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<48x40xf32>, tensor<f32>) -> tensor<48xf32>
    %2 = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x20x24xf32>, tensor<f32>) -> tensor<24xf32>
    %3 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<48x40xf32>, tensor<f32>) -> tensor<f32>
    %4 = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0, 2] : (tensor<3x20x24xf32>, tensor<f32>) -> tensor<20xf32>
    return %0, %1, %2, %3, %4 : tensor<48xf32>, tensor<48xf32>, tensor<24xf32>, tensor<f32>, tensor<20xf32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[48, 40], &values(1920, 5, -3.0, 3.0)).unwrap(),
        Literal::from_f64(DType::F32, &[3, 20, 24], &values(1440, 6, -1.0, 1e3)).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::EXACT).unwrap();
    let f = lower::whole_function(m.function("main").unwrap()).unwrap();
    let mut stages = cpu::Stages::default();
    cpu::compile_with_stages(&f, &cpu::CpuOptions::default(), Some(&mut stages)).unwrap();
    let tiled = stages.get("tile").unwrap();
    // One reduction left as a loop nest (the column sum); accumulators carried as vectors.
    let reductions = |t: &str| t.lines().filter(|l| l.contains("\"reduction\"")).count();
    assert_eq!(reductions(tiled), 1, "{tiled}");
    assert!(tiled.contains("iter_args"), "{tiled}");
    assert!(tiled.contains("-> (vector<"), "{tiled}");
    let off = cpu::CpuOptions {
        vectorize_reductions: false,
        ..Default::default()
    };
    let mut stages = cpu::Stages::default();
    cpu::compile_with_stages(&f, &off, Some(&mut stages)).unwrap();
    let loops = stages.get("tile").unwrap();
    assert_eq!(reductions(loops), 5, "{loops}");
}

/// An argmax (two results folded together) is not a reduction the vectorizer folds: it
/// stays loops, and the module compiles.
#[test]
fn a_reduction_the_vectorizer_does_not_fold_stays_loops() {
    let src = r#"module {
  func.func @main(%x: tensor<16x24xf32>, %i: tensor<16x24xi32>) -> (tensor<16xf32>, tensor<16xi32>) {
    %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.reduce(%x init: %m), (%i init: %z) across dimensions = [1] : (tensor<16x24xf32>, tensor<16x24xi32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xi32>)
     reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %p = stablehlo.compare GE, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v = stablehlo.select %p, %a, %c : tensor<i1>, tensor<f32>
      %j = stablehlo.select %p, %b, %d : tensor<i1>, tensor<i32>
      stablehlo.return %v, %j : tensor<f32>, tensor<i32>
    }
    return %0#0, %0#1 : tensor<16xf32>, tensor<16xi32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let idx: Vec<f64> = (0..384).map(|k| (k % 24) as f64).collect();
    let args = [
        Literal::from_f64(DType::F32, &[16, 24], &values(384, 9, -1.0, 1.0)).unwrap(),
        Literal::from_f64(DType::I32, &[16, 24], &idx).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::EXACT).unwrap();
    let f = lower::whole_function(m.function("main").unwrap()).unwrap();
    let mut stages = cpu::Stages::default();
    cpu::compile_with_stages(&f, &cpu::CpuOptions::default(), Some(&mut stages)).unwrap();
    assert!(stages.get("tile").unwrap().contains("\"reduction\""));
}

#[test]
fn identical_segments_compile_once() {
    // The same local program under two names, with different op shardings.
    let src = r#"module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.exponential %x {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func @other(%y: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.exponential %y : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let jit = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let x = Literal::from_f64(DType::F32, &[8], &values(8, 3, -1.0, 1.0)).unwrap();
    for name in ["main", "other", "main"] {
        let f = m.function(name).unwrap();
        let Step::Compute(seg) = &steps(f)[0] else {
            panic!("a compute segment")
        };
        let k = jit.prepare(&m, f, seg).unwrap();
        let want = shardc_runtime::reference::run(&m, name, std::slice::from_ref(&x)).unwrap();
        super::compare(
            &k.run(std::slice::from_ref(&x)).unwrap()[0],
            &want[0],
            Tol::F32,
        )
        .unwrap();
    }
    let stats = jit.stats();
    assert_eq!((stats.compiled, stats.reused), (1, 2), "{stats:?}");
}

#[test]
fn kernels_run_from_many_threads() {
    let f = chain(16);
    let k = std::sync::Arc::new(cpu::compile(&f, &cpu::CpuOptions::default()).unwrap());
    let m = module_of(f);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (k, m) = (k.clone(), &m);
            s.spawn(move || {
                let args: Vec<Literal> = (0..3)
                    .map(|i| {
                        Literal::from_f64(
                            DType::F32,
                            &[16, 64],
                            &values(1024, t * 3 + i, -1.0, 1.0),
                        )
                        .unwrap()
                    })
                    .collect();
                let want = shardc_runtime::reference::run(m, "main", &args).unwrap();
                for _ in 0..20 {
                    super::compare(&k.run(&args).unwrap()[0], &want[0], Tol::F32).unwrap();
                }
            });
        }
    });
}

#[test]
fn libm_mode_matches_the_reference_more_closely() {
    let t = TensorType::new(DType::F32, [64]);
    let mut b = FunctionBuilder::new("main", std::slice::from_ref(&t));
    let x = b.arg(0);
    let ops = [
        UnaryOp::Exponential,
        UnaryOp::ExponentialMinusOne,
        UnaryOp::Log,
        UnaryOp::LogPlusOne,
        UnaryOp::Tanh,
        UnaryOp::Cbrt,
        UnaryOp::Sine,
        UnaryOp::Cosine,
        UnaryOp::Tan,
    ];
    let rs: Vec<_> = ops.iter().map(|&u| b.unary(u, x).unwrap()).collect();
    let y = b.binary(BinaryOp::Power, x, rs[0]).unwrap();
    let z = b.binary(BinaryOp::Atan2, x, rs[1]).unwrap();
    let mut results = rs;
    results.extend([y, z]);
    let f = b.finish(&results);
    let arg = Literal::from_f64(DType::F32, &[64], &values(64, 9, 0.01, 20.0)).unwrap();
    let want =
        shardc_runtime::reference::run(&module_of(f.clone()), "main", std::slice::from_ref(&arg))
            .unwrap();
    let options = cpu::CpuOptions {
        math: Math::Libm,
        ..Default::default()
    };
    let got = cpu::compile(&f, &options).unwrap().run(&[arg]).unwrap();
    // libm's functions, called as the reference calls them: within an ulp or two
    // (LLVM may still fold or reorder around the calls).
    let tight = Tol {
        abs: 1e-7,
        rel: 3e-7,
    };
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        super::compare(g, w, tight).unwrap_or_else(|e| panic!("result {i}: {e}"));
    }
}

/// Through the engine: an op kernels do not lower by design (random numbers, loops) runs
/// on the host as a cluster of its own, equal to the reference, the rest compiled; one they
/// cannot lower (a bitcast between widths) fails its segment with the lowering's error
/// (the op and the fix), and the engine stays usable.
/// A `while` (as `lax.fori_loop` writes it, nesting another) is run by the engine: its
/// condition and body compiled once each and run per iteration, reading a captured
/// weight and passing a value through untouched, equal to the reference bit for bit.
#[test]
fn loops_run_their_compiled_regions_per_iteration() {
    let m = parse_module(
        r#"module {
  func.func @main(%w: tensor<4x4xf32>, %x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<i32>, tensor<2x4xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%i = %zero, %h = %x, %keep = %x) : tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>
      cond {
        %n = stablehlo.constant dense<5> : tensor<i32>
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %d = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        %t = stablehlo.tanh %d : tensor<2x4xf32>
        %z = stablehlo.constant dense<0> : tensor<i32>
        %inner:2 = stablehlo.while(%j = %z, %g = %t) : tensor<i32>, tensor<2x4xf32>
          cond {
            %two = stablehlo.constant dense<2> : tensor<i32>
            %c2 = stablehlo.compare LT, %j, %two, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
            stablehlo.return %c2 : tensor<i1>
          } do {
            %half = stablehlo.constant dense<5.000000e-01> : tensor<2x4xf32>
            %g2 = stablehlo.multiply %g, %half : tensor<2x4xf32>
            %one = stablehlo.constant dense<1> : tensor<i32>
            %j2 = stablehlo.add %j, %one : tensor<i32>
            stablehlo.return %j2, %g2 : tensor<i32>, tensor<2x4xf32>
          }
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i2, %inner#1, %keep : tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>
      }
    return %r#1, %r#0, %r#2 : tensor<2x4xf32>, tensor<i32>, tensor<2x4xf32>
  }
}"#,
    )
    .unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[4, 4], &values(16, 3, -0.9, 0.9)).unwrap(),
        Literal::from_f64(DType::F32, &[2, 4], &values(8, 5, -1.0, 1.0)).unwrap(),
    ];
    let (got, _, stats) = run_segment(&m, &args);
    assert_eq!(got[1].get(0).as_i64(), 5);
    assert_eq!(
        got[2], args[1],
        "the passed-through value comes back as it went in"
    );
    // Both loops run by the engine (the inner one inside the outer's body), nothing
    // interpreted.
    assert_eq!((stats.loops, stats.hosted), (2, 0), "{stats:?}");
}

/// A `case` (`lax.switch`) is run by the engine: each branch prepared as a kernel once
/// (one passing a captured value through, one computing, one holding a loop), the branch
/// the index picks run, an index out of range running the last, as the interpreter does.
#[test]
fn the_engine_runs_branches_equal_to_the_interpreter() {
    let m = parse_module(
        r#"module {
  func.func @main(%i: tensor<i32>, %x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<i32>) {
    %r:2 = "stablehlo.case"(%i) ({
      %z = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %x, %z : tensor<2x4xf32>, tensor<i32>
    }, {
      %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
      %t = stablehlo.tanh %d : tensor<2x4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      stablehlo.return %t, %one : tensor<2x4xf32>, tensor<i32>
    }, {
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %l:2 = stablehlo.while(%j = %c0, %g = %x) : tensor<i32>, tensor<2x4xf32>
        cond {
          %three = stablehlo.constant dense<3> : tensor<i32>
          %c = stablehlo.compare LT, %j, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          %half = stablehlo.constant dense<5.000000e-01> : tensor<2x4xf32>
          %g2 = stablehlo.multiply %g, %half : tensor<2x4xf32>
          %one = stablehlo.constant dense<1> : tensor<i32>
          %j2 = stablehlo.add %j, %one : tensor<i32>
          stablehlo.return %j2, %g2 : tensor<i32>, tensor<2x4xf32>
        }
      stablehlo.return %l#1, %l#0 : tensor<2x4xf32>, tensor<i32>
    }) : (tensor<i32>) -> (tensor<2x4xf32>, tensor<i32>)
    return %r#0, %r#1 : tensor<2x4xf32>, tensor<i32>
  }
}"#,
    )
    .unwrap();
    let f = m.entry().unwrap();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let k = jit.prepare(&m, f, seg).unwrap();
    let x = Literal::from_f64(DType::F32, &[2, 4], &values(8, 5, -1.0, 1.0)).unwrap();
    let w = Literal::from_f64(DType::F32, &[4, 4], &values(16, 3, -0.9, 0.9)).unwrap();
    for (index, counted) in [(0, 0), (1, 1), (2, 3), (7, 3), (-1, 3)] {
        let args = [
            Literal::scalar(DType::I32, shardc_ir::Scalar::Int(index)),
            x.clone(),
            w.clone(),
        ];
        let inputs: Vec<Literal> = seg
            .inputs
            .iter()
            .map(|v| args[f.args().iter().position(|a| a == v).unwrap()].clone())
            .collect();
        let outputs = k.run(&inputs).unwrap();
        let got: Vec<&Literal> = f
            .results()
            .iter()
            .map(|r| &outputs[seg.outputs.iter().position(|o| o == r).unwrap()])
            .collect();
        let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
        for (g, w) in got.iter().zip(&want) {
            super::compare(g, w, Tol::F32).unwrap();
        }
        assert_eq!(got[1].get(0).as_i64(), counted, "index {index}");
    }
    // The case and the loop in its last branch run by the engine, nothing interpreted.
    let stats = jit.stats();
    assert_eq!((stats.loops, stats.hosted), (2, 0), "{stats:?}");
}

#[test]
fn the_engine_names_an_op_it_cannot_lower() {
    let m = parse_module(
        r#"module {
  func.func @main(%s: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = shardc.random %s, distribution = UNIFORM : (tensor<i64>) -> tensor<4xf32>
    %1 = stablehlo.exponential %x : tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}"#,
    )
    .unwrap();
    let f = m.entry().unwrap();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let k = jit.prepare(&m, f, seg).unwrap();
    let args = [
        Literal::scalar(DType::I64, shardc_ir::Scalar::Int(7)),
        Literal::from_f64(DType::F32, &[4], &[0.5, -1.0, 2.0, 0.0]).unwrap(),
    ];
    let got = k.run(&args).unwrap();
    let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
    super::compare(&got[0], &want[0], Tol::F32).unwrap();
    assert_eq!(jit.stats().hosted, 1, "{:?}", jit.stats());
    let m = parse_module(
        r#"module {
  func.func @main(%x: tensor<4xui64>) -> tensor<4x2xui32> {
    %0 = stablehlo.bitcast_convert %x : (tensor<4xui64>) -> tensor<4x2xui32>
    return %0 : tensor<4x2xui32>
  }
}"#,
    )
    .unwrap();
    let f = m.entry().unwrap();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    // A bitcast between element widths regroups elements across a dimension, which the
    // kernels do not lower: the engine runs it on the host, bit for bit.
    let k = jit.prepare(&m, f, seg).unwrap();
    let x = Literal::new(
        TensorType::new(DType::U64, [4]),
        shardc_ir::Elements::U64(vec![0, 1, u64::MAX, 0x0123_4567_89AB_CDEF]),
    )
    .unwrap();
    let got = k.run(std::slice::from_ref(&x)).unwrap();
    let want = shardc_runtime::reference::run(&m, "main", &[x]).unwrap();
    assert_eq!(got, want);
    assert_eq!(jit.stats().hosted, 2, "{:?}", jit.stats());
    // Compiled alone (no engine to host it), the op is an error naming it.
    let e = lower::whole_function(f)
        .and_then(|sf| cpu::compile(&sf, &cpu::CpuOptions::default()))
        .expect_err("an error")
        .to_string();
    assert!(
        e.starts_with("stablehlo.bitcast_convert defining") && e.contains("between element widths"),
        "{e}"
    );
}

#[test]
fn errors_name_the_op_and_the_fix() {
    let err = |src: &str| {
        let m = parse_module(src).unwrap();
        let f = m.entry().unwrap();
        lower::whole_function(f)
            .and_then(|sf| cpu::compile(&sf, &cpu::CpuOptions::default()))
            .unwrap_err()
            .to_string()
    };
    let random = err(r#"module {
  func.func @main(%s: tensor<i64>) -> tensor<4xf32> {
    %0 = shardc.random %s, distribution = UNIFORM : (tensor<i64>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#);
    assert!(
        random.starts_with("shardc.random defining %0 in @kernel: it is not lowered to kernels")
            && random.contains("shardc_runtime::engine::Interpreted"),
        "{random}"
    );
    let call = err(r#"module {
  func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#);
    assert!(
        call.contains("func.call") && call.contains("inline"),
        "{call}"
    );
    let collective = err(r#"module {
  func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}"#);
    assert!(
        collective.contains("stablehlo.all_gather") && collective.contains("engine::steps"),
        "{collective}"
    );
    // A kernel called with the wrong types says which argument.
    let k = cpu::compile(&chain(2), &cpu::CpuOptions::default()).unwrap();
    let bad = Literal::from_f64(DType::F32, &[3], &[1.0, 2.0, 3.0]).unwrap();
    let e = k
        .run(&[bad.clone(), bad.clone(), bad])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "kernel input 0: expected tensor<2x64xf32>, got tensor<3xf32>"
    );
}

/// Bit for bit: libm's math functions, matmuls as plain loops (no FMA contraction: the
/// reference sums products in the same order), every other op in the reference's order.
fn exact_options() -> cpu::CpuOptions {
    cpu::CpuOptions {
        math: Math::Libm,
        vectorize_matmuls: false,
        ..Default::default()
    }
}

/// Same bits, NaN payloads aside.
fn same_bits(a: &Literal, b: &Literal) -> bool {
    a.ty == b.ty
        && (0..a.ty.num_elements()).all(|j| {
            let (x, y) = (a.get(j), b.get(j));
            x == y || (x.as_f64().is_nan() && y.as_f64().is_nan())
        })
}

/// Whether every `TOTALORDER` comparison of `f` reads only arguments and constants. Such
/// a comparison orders NaNs by their sign, and which NaN an arithmetic op returns (its
/// sign among its payload) is left to the hardware and the compiler's order of
/// operations (IEEE 754 does not fix it): on a computed value it is not reproducible bit
/// for bit, as no payload is.
fn total_orders_read_given_values(f: &shardc_ir::Function) -> bool {
    f.body_ops().all(|(_, op)| {
        !matches!(
            op.kind,
            shardc_ir::OpKind::Compare {
                compare_type: Some(shardc_ir::ComparisonType::TotalOrder),
                ..
            }
        ) || op.operands.iter().all(|&v| {
            f.defining_op(v)
                .is_none_or(|d| matches!(f.op(d).kind, shardc_ir::OpKind::Constant(_)))
        })
    })
}

/// Random modules of every op kind and dtype, with random inputs of their argument types
/// (NaNs, infinities, -0 and subnormals among them).
fn modules_with_inputs() -> impl Strategy<Value = (shardc_ir::Module, Vec<Literal>)> {
    shardc_ir::testing::arb_module().prop_flat_map(|m| {
        let types = m.entry().unwrap().arg_types();
        (
            Just(m),
            shardc_ir::testing::choices(4096).prop_map(move |mut c| {
                types
                    .iter()
                    .map(|t| shardc_ir::testing::gen_literal(&mut c, t))
                    .collect::<Vec<_>>()
            }),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random modules of every op kind and dtype (calls inlined; those drawing random
    /// numbers skipped), on random inputs with NaNs, infinities, -0 and subnormals: the
    /// JIT equals the reference bit for bit (NaN payloads aside).
    #[test]
    fn random_modules_match_the_reference_bit_for_bit(
        (m, inputs) in modules_with_inputs()
    ) {
        let m = shardc_compiler::passes::inline::inline(&m).unwrap();
        let f = m.entry().unwrap();
        prop_assume!(!f.ops.iter().any(|o| matches!(o.kind, shardc_ir::OpKind::Random { .. })));
        prop_assume!(total_orders_read_given_values(f));
        let want = shardc_runtime::reference::run(&m, &f.name, &inputs).unwrap();
        let sf = lower::whole_function(f).unwrap();
        let k = cpu::compile(&sf, &exact_options());
        prop_assert!(k.is_ok(), "{}\n{}", k.unwrap_err(), shardc_ir::text::print_module(&m));
        let got = k.unwrap().run(&inputs).unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert!(same_bits(g, w), "result {i}: got {:?}\nwant {:?}\n{}", g.to_f64_vec(), w.to_f64_vec(), shardc_ir::text::print_module(&m));
        }
    }
}

/// The kernel of `f` compiled at LLVM level `opt_level` with the default options (the
/// JIT's: approximate math, vectorized matmuls), run on `inputs`.
fn run_at_level(f: &shardc_ir::Function, opt_level: usize, inputs: &[Literal]) -> Vec<Literal> {
    let options = cpu::CpuOptions {
        opt_level,
        cache: None,
        ..Default::default()
    };
    let k = cpu::compile(&lower::whole_function(f).unwrap(), &options);
    let k = k.unwrap_or_else(|e| panic!("{}\n{e}", shardc_ir::text::print_function(f)));
    k.run(inputs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// What tiered compilation (`lower/tier.rs`) rests on: a kernel compiled without
    /// LLVM's optimisations (its first tier) and at O3 (its final code) computes the same
    /// bits, on random modules of every op kind and dtype with NaNs, infinities and
    /// subnormals, so a run is reproducible whichever tier each kernel ran at.
    #[test]
    fn both_tiers_compute_the_same_bits(
        (m, inputs) in modules_with_inputs()
    ) {
        let m = shardc_compiler::passes::inline::inline(&m).unwrap();
        let f = m.entry().unwrap();
        prop_assume!(!f.ops.iter().any(|o| matches!(o.kind, shardc_ir::OpKind::Random { .. })));
        prop_assume!(total_orders_read_given_values(f));
        let (first, last) = (run_at_level(f, 0, &inputs), run_at_level(f, 3, &inputs));
        for (i, (a, b)) in first.iter().zip(&last).enumerate() {
            prop_assert!(same_bits(a, b), "result {i}: O0 {:?}\nO3 {:?}\n{}", a.to_f64_vec(), b.to_f64_vec(), shardc_ir::text::print_module(&m));
        }
    }
}

/// A 2-layer MLP with a large matmul: its kernels run long enough at O0 to tier up.
const MLP: &str = r#"module {
  func.func @main(%x: tensor<192x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x64xf32>) -> tensor<192x64xf32> {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<192x256xf32>, tensor<256x256xf32>) -> tensor<192x256xf32>
    %t = stablehlo.tanh %h : tensor<192x256xf32>
    %y = stablehlo.dot_general %t, %w2, contracting_dims = [1] x [0] : (tensor<192x256xf32>, tensor<256x64xf32>) -> tensor<192x64xf32>
    %e = stablehlo.exponential %y : tensor<192x64xf32>
    return %e : tensor<192x64xf32>
  }
}"#;

fn mlp_inputs(m: &shardc_ir::Module) -> Vec<Literal> {
    m.entry()
        .unwrap()
        .arg_types()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Literal::from_f64(
                t.dtype,
                &t.shape,
                &values(t.num_elements(), 60 + i as u64, -0.2, 0.2),
            )
            .unwrap()
        })
        .collect()
}

/// Tiered compilation: kernels first compiled at O0; `finish_tiering` compiles each
/// again at the full level and swaps it in; the results keep their bits; the full-level
/// kernels are stored in the disk cache, so a later engine (process) starts with them.
#[test]
fn kernels_tier_up_to_the_full_level_and_keep_their_bits() {
    let m = parse_module(MLP).unwrap();
    let f = m.entry().unwrap();
    let args = mlp_inputs(&m);
    let dir = std::env::temp_dir().join(format!("shardc-tier-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = cpu::CpuOptions {
        cache: Some(cpu::DiskCache::new(&dir)),
        ..Default::default()
    };
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(options.clone());
    let k = jit.prepare(&m, f, seg).unwrap();
    let stats = jit.stats();
    assert!(stats.compiled >= 2, "{stats:?}");
    assert_eq!(
        (stats.first_level, stats.loaded),
        (stats.compiled, 0),
        "{stats:?}"
    );
    let first = k.run(&args).unwrap();
    let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
    super::compare(&first[0], &want[0], Tol::F32).unwrap();
    jit.finish_tiering();
    assert_eq!(
        jit.stats().optimized,
        stats.first_level,
        "{:?}",
        jit.stats()
    );
    let last = k.run(&args).unwrap();
    assert!(same_bits(&first[0], &last[0]));
    // A later engine loads the full-level kernels the tier-up stored.
    let again = cpu::NativeCompute::new(options);
    let k2 = again.prepare(&m, f, seg).unwrap();
    let s2 = again.stats();
    assert_eq!((s2.loaded, s2.first_level), (s2.compiled, 0), "{s2:?}");
    assert!(same_bits(&k2.run(&args).unwrap()[0], &last[0]));
    // Without tiering every kernel is compiled at the full level at once.
    let plain = cpu::NativeCompute::new(cpu::CpuOptions {
        cache: None,
        ..Default::default()
    })
    .with_tiering(None);
    let k3 = plain.prepare(&m, f, seg).unwrap();
    assert_eq!(plain.stats().first_level, 0);
    assert!(same_bits(&k3.run(&args).unwrap()[0], &last[0]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel that has run at O0 for as long as its compile took is compiled again in the
/// background, while runs go on, without anyone asking.
#[test]
fn hot_kernels_tier_up_in_the_background() {
    let m = parse_module(MLP).unwrap();
    let f = m.entry().unwrap();
    let args = mlp_inputs(&m);
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(cpu::CpuOptions {
        cache: None,
        ..Default::default()
    });
    let k = jit.prepare(&m, f, seg).unwrap();
    let first = k.run(&args).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while jit.stats().optimized == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "no kernel tiered up in 120 s of runs: {:?}",
            jit.stats()
        );
        assert!(same_bits(&k.run(&args).unwrap()[0], &first[0]));
    }
    assert!(same_bits(&k.run(&args).unwrap()[0], &first[0]));
}
/// A vector-matrix product returned and also read by a second one (found by
/// `both_tiers_compute_the_same_bits`): the reshapes between the two vectorized matmuls
/// undo each other, and the value is copied out of the fusion's way once, not twice into
/// one buffer (which bufferization refused: "cannot avoid RaW conflict").
#[test]
fn a_matmul_result_returned_and_read_by_another_matmul_compiles() {
    let src = "func.func @main(%a: tensor<4xf64>) -> (tensor<8xf64>, tensor<4xf64>, tensor<8xf64>) {
  %w = stablehlo.constant dense<2.0> : tensor<4x8xf64>
  %h = stablehlo.dot_general %a, %w, contracting_dims = [0] x [0] : (tensor<4xf64>, tensor<4x8xf64>) -> tensor<8xf64>
  %v = stablehlo.constant dense<0.5> : tensor<8x4xf64>
  %y = stablehlo.dot_general %h, %v, contracting_dims = [0] x [0] : (tensor<8xf64>, tensor<8x4xf64>) -> tensor<4xf64>
  return %h, %y, %h : tensor<8xf64>, tensor<4xf64>, tensor<8xf64>
}";
    let m = parse_module(src).unwrap();
    let f = m.entry().unwrap();
    let args = vec![Literal::from_f64(DType::F64, &[4], &[1.0, -2.0, 0.5, 3.0]).unwrap()];
    let want = shardc_runtime::reference::run(&m, "main", &args).unwrap();
    let got = run_at_level(f, 3, &args);
    for (g, w) in got.iter().zip(&want) {
        assert!(
            same_bits(g, w),
            "{:?} vs {:?}",
            g.to_f64_vec(),
            w.to_f64_vec()
        );
    }
}

/// A matmul's result copied for a second matmul through an identity broadcast (which the
/// emitter cannot see through, canonicalization folds away), and reshaped to a result:
/// each copy gets a buffer of its own (a random program found two copies of one value
/// written into one buffer, which bufferization refused).
#[test]
fn a_value_copied_twice_for_matmuls_gets_two_buffers() {
    let src = r#"module {
  func.func @main(%x: tensor<4xf32>, %w: tensor<4x4x4xf32>) -> (tensor<4x4xf32>, tensor<8x2x1xf32>, tensor<4x4x2xf32>) {
    %1 = stablehlo.dot_general %x, %w, contracting_dims = [0] x [2] : (tensor<4xf32>, tensor<4x4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.transpose %1, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.reshape %1 : (tensor<4x4xf32>) -> tensor<8x2x1xf32>
    %5 = stablehlo.subtract %2, %2 : tensor<4x4xf32>
    %6 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %7 = stablehlo.constant dense<[-1.875000e-01, 5.000000e-01]> : tensor<2xf32>
    %8 = stablehlo.dot_general %6, %7, contracting_dims = [] x [] : (tensor<4x4xf32>, tensor<2xf32>) -> tensor<4x4x2xf32>
    return %5, %3, %8 : tensor<4x4xf32>, tensor<8x2x1xf32>, tensor<4x4x2xf32>
  }
}"#;
    let m = parse_module(src).unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[4], &values(4, 3, -1.0, 1.0)).unwrap(),
        Literal::from_f64(DType::F32, &[4, 4, 4], &values(64, 4, -1.0, 1.0)).unwrap(),
    ];
    check_module(&m, "main", &args, Tol::F32).unwrap();
}

/// An update (`dynamic_update_slice`, compiled; a one-input `scatter`, on the host) of a
/// value the run owns and reads no more writes into that value's buffer (no copy of the
/// whole tensor); of a borrowed value, into a copy, the value left as it was. Indices
/// out of range are clamped (`dynamic_update_slice`) or skipped (`scatter`) as the spec
/// says, in place too.
#[test]
fn updates_write_into_the_buffer_they_are_given() {
    let dus = r#"module {
  func.func @main(%ys: tensor<6x4xf32>, %u: tensor<1x4xf32>, %i: tensor<i32>) -> tensor<6x4xf32> {
    %t = stablehlo.tanh %u : tensor<1x4xf32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %r = stablehlo.dynamic_update_slice %ys, %t, %i, %z : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    return %r : tensor<6x4xf32>
  }
}"#;
    let scatter = r#"module {
  func.func @main(%ys: tensor<6x4xf32>, %u: tensor<1x4xf32>, %i: tensor<i32>) -> tensor<6x4xf32> {
    %t = stablehlo.tanh %u : tensor<1x4xf32>
    %k = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %r = "stablehlo.scatter"(%ys, %k, %t) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      stablehlo.return %b : tensor<f32>
    }) : (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> tensor<6x4xf32>
    return %r : tensor<6x4xf32>
  }
}"#;
    for text in [dus, scatter] {
        updates_in_place(&parse_module(text).unwrap());
    }
}

fn updates_in_place(m: &shardc_ir::Module) {
    let f = m.entry().unwrap();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let k = jit.prepare(m, f, seg).unwrap();
    assert_eq!(jit.stats().in_place, 1, "{:?}", jit.stats());
    let ys = Literal::from_f64(DType::F32, &[6, 4], &values(24, 1, -1.0, 1.0)).unwrap();
    let u = Literal::from_f64(DType::F32, &[1, 4], &values(4, 2, -1.0, 1.0)).unwrap();
    let address = |l: &Literal| match &l.elements {
        shardc_ir::Elements::F32(v) => v.as_ptr() as usize,
        _ => unreachable!("f32"),
    };
    for i in [0, 3, 5, 9, -2] {
        let idx = Literal::from_f64(DType::I32, &[], &[f64::from(i)]).unwrap();
        let args = [ys.clone(), u.clone(), idx.clone()];
        let want = shardc_runtime::reference::run(m, "main", &args).unwrap();
        let by_value = |v: &shardc_ir::ValueId| f.args().iter().position(|a| a == v).unwrap();
        // Owned: the output is the input's buffer.
        let mut owned = Some(ys.clone());
        let at = owned.as_ref().map(address);
        let inputs: Vec<Input> = (seg.inputs.iter())
            .map(|v| match by_value(v) {
                0 => Input::Owned(owned.take().unwrap()),
                j => Input::Borrowed(&args[j]),
            })
            .collect();
        let mut pool = Buffers::default();
        let ran = k.run_owning(inputs, &mut pool).unwrap();
        super::compare(&ran.outputs[0], &want[0], Tol::F32).unwrap();
        assert_eq!(Some(address(&ran.outputs[0])), at, "updated in place");
        // Borrowed: a copy, the input untouched.
        let inputs: Vec<Input> = (seg.inputs.iter())
            .map(|v| Input::Borrowed(&args[by_value(v)]))
            .collect();
        let out = k.run_owning(inputs, &mut pool).unwrap().outputs;
        super::compare(&out[0], &want[0], Tol::F32).unwrap();
        assert_ne!(address(&out[0]), address(&args[0]));
        assert_eq!(args[0], ys, "a borrowed input is not written");
    }
}

/// A scan (`lax.scan` with stacked outputs, as JAX writes it): each iteration's row is
/// written into the loop's carried tensor in place, equal to the reference; a row read
/// from the old tensor after the update (program order) still sees the old value, the
/// update then made into a copy.
#[test]
fn scans_write_their_stacked_outputs_in_place() {
    let m = parse_module(
        r#"module {
  func.func @main(%w: tensor<4x4xf32>, %x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %c0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %ys0 = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<f32>) -> tensor<5x2x4xf32>
    %r:5 = stablehlo.while(%i = %zero, %h = %x, %ys = %ys0, %zs = %ys0, %last = %x) : tensor<i32>, tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>
      cond {
        %n = stablehlo.constant dense<5> : tensor<i32>
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %d = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        %t = stablehlo.tanh %d : tensor<2x4xf32>
        %row = stablehlo.reshape %t : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
        %z = stablehlo.constant dense<0> : tensor<i32>
        %ys2 = stablehlo.dynamic_update_slice %ys, %row, %i, %z, %z : (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x2x4xf32>
        %nrow = stablehlo.negate %row : tensor<1x2x4xf32>
        %zs2 = stablehlo.dynamic_update_slice %zs, %nrow, %i, %z, %z : (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x2x4xf32>
        %old = stablehlo.dynamic_slice %zs, %i, %z, %z, sizes = [1, 2, 4] : (tensor<5x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xf32>
        %last2 = stablehlo.reshape %old : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i2 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i2, %t, %ys2, %zs2, %last2 : tensor<i32>, tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>
      }
    return %r#1, %r#2, %r#3, %r#4 : tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>
  }
}"#,
    )
    .unwrap();
    let args = [
        Literal::from_f64(DType::F32, &[4, 4], &values(16, 3, -0.9, 0.9)).unwrap(),
        Literal::from_f64(DType::F32, &[2, 4], &values(8, 5, -1.0, 1.0)).unwrap(),
    ];
    let (_, want, stats) = run_segment(&m, &args);
    // The last row read is the old (zero) one: the update into %zs was not seen.
    assert!(want[3].to_f64_vec().iter().all(|&v| v == 0.0));
    // %ys0 starts two carried values, written apart: each its own copy.
    assert_ne!(want[1], want[2]);
    assert_eq!((stats.loops, stats.in_place), (1, 2), "{stats:?}");
}

/// The entry function of `m` (one compute segment) run by the engine on `args`, its
/// arguments, and checked against the reference: the results in the function's order,
/// the reference's, and what the engine did.
fn run_segment(
    m: &shardc_ir::Module,
    args: &[Literal],
) -> (Vec<Literal>, Vec<Literal>, cpu::NativeStats) {
    let f = m.entry().unwrap();
    let Step::Compute(seg) = &steps(f)[0] else {
        panic!("a compute segment")
    };
    let jit = cpu::NativeCompute::new(cpu::CpuOptions::default());
    let k = jit.prepare(m, f, seg).unwrap();
    // The segment reads its inputs in first-use order, and gives its outputs in the
    // order they are defined: the function's results picked.
    let position = |v: &shardc_ir::ValueId| f.args().iter().position(|a| a == v).unwrap();
    let inputs: Vec<Literal> = seg
        .inputs
        .iter()
        .map(|v| args[position(v)].clone())
        .collect();
    let outputs = k.run(&inputs).unwrap();
    let got: Vec<Literal> = (f.results().iter())
        .map(|r| outputs[seg.outputs.iter().position(|o| o == r).unwrap()].clone())
        .collect();
    let want = shardc_runtime::reference::run(m, "main", args).unwrap();
    for (g, w) in got.iter().zip(&want) {
        super::compare(g, w, Tol::F32).unwrap();
    }
    (got, want, jit.stats())
}
