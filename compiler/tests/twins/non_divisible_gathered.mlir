// Twin of tests/upstream/non_divisible_gathered.mlir: x[6,16] with its rows split over
// "model" (4 devices; 6 is not a multiple of 4), a relu constrained to the same
// sharding, the result returned replicated. Must be rejected.
// expect-error: dimension 0 of argument 0 (%arg0) of @main has size 6, which "model" (4 shards) does not divide
module @non_divisible_gathered {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %zero = stablehlo.constant dense<0.0> : tensor<6x16xf32>
    %r = stablehlo.maximum %x, %zero : tensor<6x16xf32>
    %r_rows = sdy.sharding_constraint %r <@mesh, [{"model"}, {}]> : tensor<6x16xf32>
    return %r_rows : tensor<6x16xf32>
  }
}
