//! The GPU path: PTX text for sm_80 and sm_90 (nothing runs: no GPU here), target
//! validation before LLVM sees a target, and snapshots of three kernels.

use shardc_compiler::lower::gpu::{self, Target};
use shardc_compiler::lower::{LowerError, whole_function};
use shardc_ir::text::parse_module;

fn ptx(src: &str, target: &Target) -> Result<gpu::Ptx, LowerError> {
    let m = parse_module(src).unwrap();
    gpu::compile(&whole_function(m.entry().unwrap())?, target)
}

const MATMUL: &str = r#"module {
  func.func @main(%x: tensor<256x512xf32>, %w: tensor<512x128xf32>) -> tensor<256x128xf32> {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x128xf32>) -> tensor<256x128xf32>
    return %0 : tensor<256x128xf32>
  }
}"#;

const SOFTMAX: &str = r#"module {
  func.func @main(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
    %d = stablehlo.subtract %x, %mb : tensor<64x1000xf32>
    %e = stablehlo.exponential %d : tensor<64x1000xf32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
    %r = stablehlo.divide %e, %sb : tensor<64x1000xf32>
    return %r : tensor<64x1000xf32>
  }
}"#;

const LAYER_NORM: &str = r#"module {
  func.func @main(%x: tensor<128x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<128x768xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %n = stablehlo.constant dense<768.0> : tensor<128xf32>
    %eps = stablehlo.constant dense<1.0e-5> : tensor<128xf32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<128x768xf32>, tensor<f32>) -> tensor<128xf32>
    %mean = stablehlo.divide %s, %n : tensor<128xf32>
    %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<128xf32>) -> tensor<128x768xf32>
    %d = stablehlo.subtract %x, %mb : tensor<128x768xf32>
    %sq = stablehlo.multiply %d, %d : tensor<128x768xf32>
    %v = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<128x768xf32>, tensor<f32>) -> tensor<128xf32>
    %var = stablehlo.divide %v, %n : tensor<128xf32>
    %ve = stablehlo.add %var, %eps : tensor<128xf32>
    %r = stablehlo.rsqrt %ve : tensor<128xf32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<128xf32>) -> tensor<128x768xf32>
    %y = stablehlo.multiply %d, %rb : tensor<128x768xf32>
    %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<768xf32>) -> tensor<128x768xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<768xf32>) -> tensor<128x768xf32>
    %yg = stablehlo.multiply %y, %gb : tensor<128x768xf32>
    %out = stablehlo.add %yg, %bb : tensor<128x768xf32>
    return %out : tensor<128x768xf32>
  }
}"#;

/// Compiles for sm_90 / PTX 8.0 and checks what every kernel must show.
fn sm90(src: &str) -> gpu::Ptx {
    let p = ptx(src, &Target::sm90()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.modules.len(), p.launches.len());
    for (name, text) in &p.modules {
        assert!(text.contains(".version 8.0\n.target sm_90"), "{name}");
        // No libdevice: every math function is a polynomial or an instruction.
        assert!(!text.contains("__nv_"), "{name} calls libdevice:\n{text}");
    }
    p
}

#[test]
fn matmul_is_tiled_through_shared_memory() {
    let p = sm90(MATMUL);
    let (name, text) = &p.modules[0];
    // 64 x 16 and 16 x 64 f32 tiles in shared memory, filled with coalesced loads
    // between barriers, 4 x 4 results per thread by fused multiply-adds.
    assert_eq!(
        text.matches(".shared .align 4 .b8").count(),
        2,
        "{name}:\n{text}"
    );
    assert!(text.contains("[4096]"));
    assert!(text.contains("st.shared.b32"));
    assert!(text.contains("ld.shared"));
    assert!(text.matches("bar.sync").count() >= 2);
    assert!(text.matches("fma.rn.f32").count() >= 16);
    assert_eq!(
        p.launches[0],
        gpu::Launch {
            kernel: "kernel_kernel".into(),
            grid: [128 / 64, 256 / 64, 1],
            block: [16, 16, 1],
        }
    );
    insta::assert_snapshot!("ptx_matmul_sm90", p.as_text());
}

#[test]
fn softmax_and_layer_norm_kernels() {
    let p = sm90(SOFTMAX);
    // exp as a polynomial: no ex2.approx from libdevice, no calls at all.
    assert!(p.modules.iter().all(|(_, t)| !t.contains("call.uni")));
    insta::assert_snapshot!("ptx_softmax_sm90", p.as_text());
    let p = sm90(LAYER_NORM);
    // rsqrt(x) is 1 / sqrt(x): IEEE sqrt and division instructions.
    assert!(p.modules.iter().any(|(_, t)| t.contains("sqrt.rn.f32")));
    insta::assert_snapshot!("ptx_layer_norm_sm90", p.as_text());
}

#[test]
fn sm80_with_ptx_7_0() {
    for src in [MATMUL, SOFTMAX, LAYER_NORM] {
        let p = ptx(src, &Target::sm80()).unwrap_or_else(|e| panic!("{e}"));
        for (_, text) in &p.modules {
            assert!(text.contains(".version 7.0\n.target sm_80"));
        }
    }
}

#[test]
fn targets_are_validated_before_llvm_sees_them() {
    let t = |chip: &str, ptx: u32| Target {
        chip: chip.into(),
        ptx,
        libdevice: None,
    };
    for (chip, ptx) in [
        ("sm_80", 70),
        ("sm_80", 88),
        ("sm_90", 78),
        ("sm_90", 80),
        ("sm_90a", 80),
        ("sm_100", 86),
    ] {
        t(chip, ptx)
            .validate()
            .unwrap_or_else(|e| panic!("{chip} {ptx}: {e}"));
    }
    let err = |target: Target| {
        // Through compile: the error comes before MLIR (LLVM would abort the process).
        ptx(MATMUL, &target).unwrap_err().to_string()
    };
    assert_eq!(
        err(t("sm_90", 70)),
        "GPU target sm_90 with PTX ISA 7.0: sm_90 needs PTX ISA 7.8 or later (LLVM would abort the process); raise ptx to at least 78"
    );
    assert_eq!(
        err(t("sm_80", 65)),
        "GPU target sm_80 with PTX ISA 6.5: sm_80 needs PTX ISA 7.0 or later (LLVM would abort the process); raise ptx to at least 70"
    );
    assert_eq!(
        err(t("sm_99", 80)),
        "GPU target sm_99 with PTX ISA 8.0: LLVM's NVPTX back end does not know this chip; use one of sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_101, sm_120, sm_120a"
    );
    assert_eq!(
        err(t("sm_90", 91)),
        "GPU target sm_90 with PTX ISA 9.1: LLVM 22 cannot emit this PTX ISA version; use a version from 7.8 to 9.0 (ptx: 78 to 90)"
    );
    assert_eq!(
        err(Target::sm90().with_libdevice("/nonexistent/libdevice.10.bc")),
        "GPU target sm_90 with PTX ISA 8.0: libdevice /nonexistent/libdevice.10.bc is not a file; give the path of CUDA's nvvm/libdevice/libdevice.10.bc, or none"
    );
}

#[test]
fn f64_math_needs_libdevice() {
    let src = r#"module {
  func.func @main(%x: tensor<64xf64>) -> tensor<64xf64> {
    %0 = stablehlo.exponential %x : tensor<64xf64>
    return %0 : tensor<64xf64>
  }
}"#;
    let e = ptx(src, &Target::sm90()).unwrap_err().to_string();
    assert_eq!(
        e,
        "math.exp on f64 defining a GPU kernel: only f32 math functions have polynomial approximations here; this one would call CUDA's libdevice; compute it in f32, or give Target::with_libdevice(path to libdevice.10.bc)"
    );
    // f64 arithmetic without math functions needs none.
    let src = r#"module {
  func.func @main(%x: tensor<64xf64>) -> tensor<64xf64> {
    %0 = stablehlo.multiply %x, %x : tensor<64xf64>
    %1 = stablehlo.sqrt %0 : tensor<64xf64>
    return %1 : tensor<64xf64>
  }
}"#;
    let p = sm90(src);
    assert!(p.modules[0].1.contains("sqrt.rn.f64"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
    /// Every random f32 program lowers to PTX: every loop nest is mapped to the grid
    /// and nothing is left on the host.
    #[test]
    fn random_f32_programs_lower_to_ptx(p in shardc_ir::testing::arb_program_f32()) {
        let f = whole_function(p.module.entry().unwrap()).unwrap();
        let r = gpu::compile(&f, &Target::sm90());
        proptest::prop_assert!(r.is_ok(), "{}\n{}", r.unwrap_err(), shardc_ir::text::print_module(&p.module));
        for (_, text) in &r.unwrap().modules {
            proptest::prop_assert!(!text.contains("__nv_"));
        }
    }
}

#[test]
fn every_op_test_program_lowers_to_ptx() {
    use super::ops;
    for (name, src) in [
        ("select_clamp", ops::SELECT_CLAMP),
        ("constants", ops::CONSTANTS),
        ("layout", ops::LAYOUT),
        ("pads", ops::PADS),
        ("reductions", ops::REDUCTIONS),
        ("argmax", ops::ARGMAX),
        ("gathers", ops::GATHERS),
        ("constraint", ops::CONSTRAINT),
        ("results", ops::RESULTS),
    ] {
        let p = ptx(src, &Target::sm80()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!p.modules.is_empty(), "{name}");
        for (m, text) in &p.modules {
            assert!(!text.contains("__nv_"), "{name}/{m} calls libdevice");
        }
    }
}

#[test]
fn every_elementwise_op_and_type_lowers_to_ptx() {
    use shardc_ir::{BinaryOp, DType, FunctionBuilder, OpKind, TensorType, UnaryOp};
    for dt in [
        DType::F32,
        DType::BF16,
        DType::F16,
        DType::I32,
        DType::I64,
        DType::I1,
    ] {
        let t = TensorType::new(dt, [4, 33]);
        let mut b = FunctionBuilder::new("main", &[t.clone(), t.clone()]);
        let (x, y) = (b.arg(0), b.arg(1));
        let mut results = Vec::new();
        for &u in UnaryOp::ALL {
            results.extend(b.unary(u, x).ok());
        }
        for &o in BinaryOp::ALL {
            results.extend(b.binary(o, x, y).ok());
        }
        for to in [DType::F32, DType::BF16, DType::I32, DType::I1] {
            results.push(
                b.push1_typed(OpKind::Convert, &[x], t.with_dtype(to))
                    .unwrap(),
            );
        }
        let f = b.finish(&results);
        let p = gpu::compile(&whole_function(&f).unwrap(), &Target::sm90())
            .unwrap_or_else(|e| panic!("{dt}: {e}"));
        for (m, text) in &p.modules {
            assert!(!text.contains("__nv_"), "{dt}/{m} calls libdevice:\n{text}");
        }
    }
    // Matmuls of every float and integer type, batched and not.
    for dt in [
        DType::F32,
        DType::BF16,
        DType::F16,
        DType::I32,
        DType::I64,
        DType::I1,
    ] {
        let src = format!(
            r#"module {{
  func.func @main(%x: tensor<3x70x20x{dt}>, %w: tensor<3x20x50x{dt}>, %v: tensor<20x{dt}>) -> (tensor<3x70x50x{dt}>, tensor<3x70x{dt}>) {{
    %0 = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x70x20x{dt}>, tensor<3x20x50x{dt}>) -> tensor<3x70x50x{dt}>
    %1 = stablehlo.dot_general %x, %v, contracting_dims = [2] x [0] : (tensor<3x70x20x{dt}>, tensor<20x{dt}>) -> tensor<3x70x{dt}>
    return %0, %1 : tensor<3x70x50x{dt}>, tensor<3x70x{dt}>
  }}
}}"#
        );
        let p = ptx(&src, &Target::sm90()).unwrap_or_else(|e| panic!("{dt}: {e}"));
        assert!(!p.modules.is_empty());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Random modules of every op kind and dtype lower to PTX, or fail for the two
    /// documented reasons: shardc.random, or an f64 math function without libdevice.
    #[test]
    fn random_modules_lower_to_ptx(m in shardc_ir::testing::arb_module()) {
        let m = shardc_compiler::passes::inline::inline(&m).unwrap();
        let f = whole_function(m.entry().unwrap()).unwrap();
        match gpu::compile(&f, &Target::sm80()) {
            Ok(p) => {
                for (_, text) in &p.modules {
                    proptest::prop_assert!(!text.contains("__nv_"));
                }
            }
            Err(LowerError::Unsupported { op, why, .. })
                if op == "shardc.random" || why.contains("libdevice") => {}
            Err(e) => proptest::prop_assert!(false, "{e}\n{}", shardc_ir::text::print_module(&m)),
        }
    }
}

/// A result that is a view of a constant (a slice of a transposed constant, folded into
/// one global): the global is read inside the kernel that copies it, not on the host
/// (found by `random_modules_lower_to_ptx`).
#[test]
fn views_of_constants_are_read_in_kernels() {
    let src = r#"module {
  func.func @main(%a: tensor<1xi64>) -> (tensor<1x1xi64>, tensor<1x1xi64>, tensor<1xi64>) {
    %0 = stablehlo.constant dense<[[17, -61, -78, -90]]> : tensor<1x4xi64>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<1x4xi64>) -> tensor<4x1xi64>
    %2 = stablehlo.slice %1 [2:3:3, 0:1:2] : (tensor<4x1xi64>) -> tensor<1x1xi64>
    %3 = stablehlo.abs %a : tensor<1xi64>
    return %2, %2, %3 : tensor<1x1xi64>, tensor<1x1xi64>, tensor<1xi64>
  }
}"#;
    let p = ptx(src, &Target::sm80()).unwrap_or_else(|e| panic!("{e}"));
    // Both copies of the slice read the global in the kernel, where LLVM folds the read:
    // each stores -78 (row 2 of the transposed constant; low word 2^32 - 78).
    let reading = p
        .modules
        .iter()
        .filter(|(_, text)| text.contains("4294967218;"))
        .count();
    assert_eq!(reading, 2, "{}", p.as_text());
}
