// Attention with the heads dimension sharded over model (axis 1), as far as
// linalg expresses it: scores[h,s,t] = q[h,s,d] * k[h,t,d] (batch matmul with a
// transposed operand), out[h,s,d] = scores[h,s,t] * v[h,t,d] (batch matmul;
// softmax left out), then the output projection y[s,e] = sum_{h,d}
// out[h,s,d] * wo[h,d,e] (row-parallel over heads, an einsum as linalg.generic).
// Expected: no communication until the projection, then one all-reduce over
// model of y.
// optimal: 768 B: one all_reduce over model (N=4) of the partial y[8,16] f32 (512 B), 2*3/4*512
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @attention_heads(%q: tensor<8x8x16xf32>, %k: tensor<8x8x16xf32>, %v: tensor<8x8x16xf32>, %wo: tensor<8x16x16xf32>) -> tensor<8x16xf32> {
  %s_heads = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %q_s = shard.shard %q to %s_heads : tensor<8x8x16xf32>
  %k_s = shard.shard %k to %s_heads : tensor<8x8x16xf32>
  %v_s = shard.shard %v to %s_heads : tensor<8x8x16xf32>
  %wo_s = shard.shard %wo to %s_heads : tensor<8x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %e_scores = tensor.empty() : tensor<8x8x8xf32>
  %i_scores = linalg.fill ins(%zero : f32) outs(%e_scores : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %scores = linalg.batch_matmul indexing_maps = [
      affine_map<(h, s, t, d) -> (h, s, d)>,
      affine_map<(h, s, t, d) -> (h, t, d)>,
      affine_map<(h, s, t, d) -> (h, s, t)>]
    ins(%q_s, %k_s : tensor<8x8x16xf32>, tensor<8x8x16xf32>) outs(%i_scores : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %e_out = tensor.empty() : tensor<8x8x16xf32>
  %i_out = linalg.fill ins(%zero : f32) outs(%e_out : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %out = linalg.batch_matmul ins(%scores, %v_s : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%i_out : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %e_y = tensor.empty() : tensor<8x16xf32>
  %i_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(s, e, h, d) -> (h, s, d)>, affine_map<(s, e, h, d) -> (h, d, e)>, affine_map<(s, e, h, d) -> (s, e)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%out, %wo_s : tensor<8x8x16xf32>, tensor<8x16x16xf32>) outs(%i_y : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<8x16xf32>
  %s_rep = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %y_s = shard.shard %y to %s_rep : tensor<8x16xf32>
  return %y_s : tensor<8x16xf32>
}
