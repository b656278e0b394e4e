// Twin of tests/upstream/seq_parallel_constrained.mlir: seq_parallel with the hidden
// activation h = x w1 constrained to columns over "model", as a JAX user would pin it.
module @seq_parallel_constrained {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %w1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %h_cols = sdy.sharding_constraint %h <@mesh, [{}, {"model"}]> : tensor<8x32xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<8x32xf32>
    %r = stablehlo.maximum %h_cols, %zero : tensor<8x32xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
