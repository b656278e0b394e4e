// The conflict of conflicting_annotations.mlir, decided by priority instead of cost: %x's
// split is p0 and %w's p1, so %x keeps its rows split over "data" (the result follows
// it) and the larger %w is gathered, though gathering %x would move less (see the
// alternatives in the explanation).
// %w piece 512x32 f32: all-gather output 131072 B: 1/2*131072 = 65536 B.
// expect: all_gather {data} 65536
module @priorities {
  sdy.mesh @mesh = <["data"=2]>
  func.func @main(%x: tensor<8x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}p0, {}]>},
                  %w: tensor<512x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}p1]>})
      -> tensor<8x64xf32> {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x512xf32>, tensor<512x64xf32>) -> tensor<8x64xf32>
    return %y : tensor<8x64xf32>
  }
}
