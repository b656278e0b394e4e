// Twin of tests/upstream/moe_all_to_all.mlir: x[4 experts, 8 tokens, 16] arrives with its
// tokens split over "model" and is returned with its experts split over "model".
module @moe_all_to_all {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>})
      -> (tensor<4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>}) {
    return %x : tensor<4x8x16xf32>
  }
}
