module @sequence_parallel_mlp {
  sdy.mesh @mesh = <["model"=2]>
  func.func @main(%x: tensor<512x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %w1: tensor<1024x4096xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<4096x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<512x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<512x1024xf32>, tensor<1024x4096xf32>) -> tensor<512x4096xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<512x4096xf32>
    %r = stablehlo.maximum %h, %zero : tensor<512x4096xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<512x4096xf32>, tensor<4096x1024xf32>) -> tensor<512x1024xf32>
    return %y : tensor<512x1024xf32>
  }
}
