// A value split over both mesh axes, returned replicated (upstream MLIR returns the wrong
// shape here). Gather "data" (piece 4x4 -> 8x4: 1/2*128 = 64 B), then "model"
// (8x4 -> 8x16: 3/4*512 = 384 B).
// expect: all_gather {data} 64
// expect: all_gather {model} 384
module @two_axis_reshard {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %y = stablehlo.negate %x : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
