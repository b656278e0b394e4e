// Two matmuls with their contracting dimensions split over "model", each divided by a
// count, then added: each quotient of a partial sum by a complete divisor is a partial sum
// (all_reduce(x) / n = all_reduce(x / n)), so both divisions and the sum run on the partial
// pieces and one all_reduce serves. 8x16 f32 = 512 B: 2*3/4*512 = 768 B.
// expect: all_reduce {model} 768
module @mean_of_partial_sums {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x1: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w1: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %x2: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %a = stablehlo.dot_general %x1, %w1, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %b = stablehlo.dot_general %x2, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %n = stablehlo.constant dense<32.0> : tensor<8x16xf32>
    %am = stablehlo.divide %a, %n : tensor<8x16xf32>
    %bm = stablehlo.divide %b, %n : tensor<8x16xf32>
    %y = stablehlo.add %am, %bm : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
