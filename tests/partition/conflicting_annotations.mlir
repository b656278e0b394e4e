// Two annotations that cannot both hold locally: "data" splits the rows of %x and the
// columns of %w, and a matmul cannot use one axis for two of its factors. Either %x
// (8x512 f32, 16 KiB) or %w (512x64 f32, 128 KiB) is gathered; the cost model gathers
// the smaller one, and the explanation shows what gathering %w would have cost.
// %x piece 4x512 f32: all-gather output 16384 B: 1/2*16384 = 8192 B.
// expect: all_gather {data} 8192
module @conflicting_annotations {
  sdy.mesh @mesh = <["data"=2]>
  func.func @main(%x: tensor<8x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<512x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"data"}]>})
      -> tensor<8x64xf32> {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x512xf32>, tensor<512x64xf32>) -> tensor<8x64xf32>
    return %y : tensor<8x64xf32>
  }
}
