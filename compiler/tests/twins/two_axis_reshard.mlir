// Twin of tests/upstream/two_axis_reshard.mlir: x[8,16] with rows over "data" and
// columns over "model", returned replicated.
module @two_axis_reshard {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    return %x : tensor<8x16xf32>
  }
}
