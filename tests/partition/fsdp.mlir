// FSDP: the parameter is stored split over "data" (rows), the batch split over "data".
// "data" cannot split both the batch and the contraction, so the parameter is
// all-gathered before use: 16x32 f32 = 2048 B gathered over 2: (2-1)/2*2048 = 1024 B.
// expect: all_gather {data} 1024
module @fsdp {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>})
      -> (tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %y : tensor<8x32xf32>
  }
}
