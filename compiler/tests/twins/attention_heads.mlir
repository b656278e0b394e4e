// Twin of tests/upstream/attention_heads.mlir: heads (dimension 0) of q, k, v and wo
// split over "model"; scores[h,s,t] = sum_d q[h,s,d] k[h,t,d], out[h,s,d] =
// sum_t scores[h,s,t] v[h,t,d] (softmax left out), y[s,e] = sum_{h,d} out[h,s,d] wo[h,d,e];
// y replicated.
module @attention_heads {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%q: tensor<8x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>},
                  %k: tensor<8x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>},
                  %v: tensor<8x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>},
                  %wo: tensor<8x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %scores = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> tensor<8x8x8xf32>
    %out = stablehlo.dot_general %scores, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x8x8xf32>, tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
    %y = stablehlo.dot_general %out, %wo, contracting_dims = [0, 2] x [0, 1] : (tensor<8x8x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
