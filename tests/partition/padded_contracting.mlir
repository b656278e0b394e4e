// options: pad_uneven
// A matmul whose contracting dimension of 10 is split over "model" (4 devices, blocks of
// 3, the last holding one real column): each device zeroes the padding of both operands
// (a select, so no garbage NaN enters), multiplies its blocks, and the partial sums are
// all-reduced. The 8x16 f32 result is 512 B: 2 * (4-1)/4 * 512 = 768 B.
// expect: all_reduce {model} 768
module @padded_contracting {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w: tensor<10x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x10xf32>, tensor<10x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
