// A gather addressed by two indices, (row, column) of a 32x4 grid of 8-vectors, with the
// grid's rows split over "model": each device offsets the row component (the column one
// is left as it is), looks up what it holds and zeroes the rest; one all-reduce over
// "model" completes the 6x8 result.
// expect: all_reduce {model} 288
module @vocab_parallel_two_indices {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%grid: tensor<32x4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>})
      -> (tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %i = stablehlo.iota dim = 0 : tensor<6x2xi32>
    %j = stablehlo.iota dim = 1 : tensor<6x2xi32>
    %six = stablehlo.constant dense<6> : tensor<6x2xi32>
    %one = stablehlo.constant dense<1> : tensor<6x2xi32>
    %a = stablehlo.multiply %i, %six : tensor<6x2xi32>
    %b = stablehlo.subtract %one, %j : tensor<6x2xi32>
    %c = stablehlo.multiply %a, %b : tensor<6x2xi32>
    %d = stablehlo.multiply %i, %j : tensor<6x2xi32>
    %idx = stablehlo.add %c, %d : tensor<6x2xi32>
    %v = "stablehlo.gather"(%grid, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>}> : (tensor<32x4x8xf32>, tensor<6x2xi32>) -> tensor<6x8xf32>
    return %v : tensor<6x8xf32>
  }
}
