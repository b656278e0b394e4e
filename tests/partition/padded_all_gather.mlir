// options: pad_uneven
// Rows of 10 split over "model" (4 devices, blocks of 3) gathered back to replicated:
// each device sends its 3x4 f32 block (48 B) to the 3 others (3 * 48 = 144 B), receives
// 12 rows, and drops the 2 rows of padding: the result is exactly 10x4.
// expect: all_gather {model} 144
module @padded_all_gather {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<10x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<10x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %y = stablehlo.negate %x : tensor<10x4xf32>
    return %y : tensor<10x4xf32>
  }
}
