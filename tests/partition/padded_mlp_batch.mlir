// options: pad_uneven
// A small MLP on a batch of 6 over "data" (4 devices, blocks of 2: the third holds one
// real row, the fourth none) with Megatron's split of the hidden layer over "model": the
// second matmul's partial sums are all-reduced over "model" (a 2x8 f32 block, 64 B:
// 2 * 1/2 * 64 = 64 B), and the mean squared output over the batch masks the padded rows
// before summing, then all-reduces the scalar over "data" (2 * 3/4 * 4 = 6 B).
// expect: all_reduce {model} 64
// expect: all_reduce {data} 6
module @padded_mlp_batch {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func @main(%x: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
          tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
    %z = stablehlo.constant dense<0.0> : tensor<6x16xf32>
    %r = stablehlo.maximum %h, %z : tensor<6x16xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<6x16xf32>, tensor<16x8xf32>) -> tensor<6x8xf32>
    %sq = stablehlo.multiply %y, %y : tensor<6x8xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<f32>
    %n = stablehlo.constant dense<48.0> : tensor<f32>
    %mean = stablehlo.divide %sum, %n : tensor<f32>
    return %y, %mean : tensor<6x8xf32>, tensor<f32>
  }
}
