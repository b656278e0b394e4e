// options: pad_uneven
// A contraction over 10 split over "model" (masked) whose 10 output rows leave split over
// "model" too: the partial 10x6 sums are padded to 12 rows and reduce-scattered, each
// device keeping a 3x6 block (the last with 2 rows of padding). The collective reads the
// padded 12x6 f32 piece (288 B): (4-1)/4 * 288 = 216 B.
// expect: reduce_scatter {model} 216
module @padded_reduce_scatter {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<10x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<10x10xf32>, tensor<10x6xf32>) -> tensor<10x6xf32>
    return %y : tensor<10x6xf32>
  }
}
