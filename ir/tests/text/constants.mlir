// Constants of every dtype: splats, nested lists, booleans, hex bit patterns, hex byte strings,
// NaN and infinities, negative zero, subnormals, empty tensors, and a large one.
module @jit_constants {
  func.func public @main() -> (tensor<2x2xf32>, tensor<3xf64>) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.constant dense<[[1.000000e+00, -2.5], [9.99999974E-6, 3.40282347E+38]]> : tensor<2x2xf32>
    %2 = stablehlo.constant dense<[0x7FC00000, 0xFF800000, 0x7F800000, -0.000000e+00, 1.401298e-45, 0x00000001]> : tensor<6xf32>
    %3 = stablehlo.constant dense<[1.0, 0.1, 0x7FF8000000000000]> : tensor<3xf64>
    %4 = stablehlo.constant dense<[1.0, 0.333, 6.550400e+04, 5.96e-8, 0x7E00, -0.0]> : tensor<6xf16>
    %5 = stablehlo.constant dense<[1.0, 3.14159, 0x7FC0, 0xFF80, 1.0e-40]> : tensor<5xbf16>
    %6 = stablehlo.constant dense<[[1, -2, 2147483647], [-2147483648, 0, 0xFFFFFFFF]]> : tensor<2x3xi32>
    %7 = stablehlo.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
    %8 = stablehlo.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
    %9 = stablehlo.constant dense<1> : tensor<4x4xi1>
    %10 = stablehlo.constant dense<> : tensor<0x3xf32>
    %11 = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2x2xf32>
    %12 = stablehlo.constant dense<"0x0000C07F"> : tensor<8xf32>
    %13 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]> : tensor<20xf32>
    %14 = stablehlo.constant dense<[[7]]> : tensor<1x1xi64>
    %15 = stablehlo.constant dense<-3> : tensor<2x3xbf16>
    %16 = stablehlo.constant dense<"0x0100000002000000"> : tensor<2xi32>
    %17 = stablehlo.add %1, %11 : tensor<2x2xf32>
    return %17, %3 : tensor<2x2xf32>, tensor<3xf64>
  }
}
