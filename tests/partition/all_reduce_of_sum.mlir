// Two matmuls with their contracting dimensions split over "model", added: each is a
// partial sum, and all_reduce(x) + all_reduce(y) = all_reduce(x + y), so the sum is
// formed on the partial pieces and reduced once. 8x16 f32 = 512 B: 2*3/4*512 = 768 B.
// expect: all_reduce {model} 768
module @all_reduce_of_sum {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x1: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w1: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %x2: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %a = stablehlo.dot_general %x1, %w1, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %b = stablehlo.dot_general %x2, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %y = stablehlo.add %a, %b : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
