// Shape ops: iota, broadcast_in_dim, reshape, transpose, slice, concatenate, pad.
module @jit_shapes {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>) -> (tensor<12x6xf32>, tensor<8x7xf32>, tensor<3x2x4xi32>) {
    %0 = stablehlo.iota dim = 1 : tensor<3x2x4xi32>
    %1 = stablehlo.iota dim = 0 : tensor<6xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<6xf32>) -> tensor<4x6xf32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x4x6xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x4x6xf32>) -> tensor<8x6xf32>
    %5 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %6 = stablehlo.slice %5 [0:6:2, 1:3] : (tensor<6x4xf32>) -> tensor<3x2xf32>
    %7 = stablehlo.slice %arg0 [0:4, 0:6] : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %8 = stablehlo.concatenate %7, %2, %4, dim = 0 : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<8x6xf32>) -> tensor<16x6xf32>
    %9 = stablehlo.slice %8 [2:14, 0:6] : (tensor<16x6xf32>) -> tensor<12x6xf32>
    %10 = stablehlo.pad %6, %arg1, low = [-1, 2], high = [0, 2], interior = [3, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<8x7xf32>
    %11 = stablehlo.transpose %0, dims = [0, 1, 2] : (tensor<3x2x4xi32>) -> tensor<3x2x4xi32>
    return %9, %10, %11 : tensor<12x6xf32>, tensor<8x7xf32>, tensor<3x2x4xi32>
  }
}
