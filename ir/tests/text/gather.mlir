// stablehlo.gather, which JAX prints in generic form (x[idx], and a batched take).
module @jit_gather {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<4xi32>, %arg2: tensor<2x5x6xf32>, %arg3: tensor<2x3x1xi64>) -> (tensor<4x16xf32>, tensor<2x3x6xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<8x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
    %2 = "stablehlo.gather"(%arg2, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = true, slice_sizes = array<i64: 1, 1, 6>}> : (tensor<2x5x6xf32>, tensor<2x3x1xi64>) -> tensor<2x3x6xf32>
    return %1, %2 : tensor<4x16xf32>, tensor<2x3x6xf32>
  }
}
