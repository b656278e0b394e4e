// Megatron sequence parallelism: activations outside the MLP are split over the
// sequence on "model". The sequence is all-gathered before the column-parallel matmul
// and the row-parallel matmul's partial sums are reduce-scattered back onto it.
// x 16x8 f32 split 4 ways: all-gather output 512 B: 3/4*512 = 384 B.
// y partial 16x8 = 512 B: reduce-scatter 3/4*512 = 384 B.
// expect: all_gather {model} 384
// expect: reduce_scatter {model} 384
module @seq_parallel {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %w1: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %g = stablehlo.tanh %h : tensor<16x32xf32>
    %y = stablehlo.dot_general %g, %w2, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %y : tensor<16x8xf32>
  }
}
