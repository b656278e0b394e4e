// Twin of tests/upstream/contracting_replicated.mlir: c = a b with the contracting
// dimension k split over "model" in both operands; c replicated.
module @contracting_replicated {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%a: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %b: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %c : tensor<8x32xf32>
  }
}
