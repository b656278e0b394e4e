// Matmul whose contracting dimension k is sharded over model (axis 1) in both
// operands; the result is replicated.
// JAX/GSPMD: one all-reduce over model.
// optimal: 1536 B: one all_reduce over model (N=4) of the partial [8,32] f32 (1024 B), 2*3/4*1024
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @contracting_replicated(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %s_a = shard.sharding @mesh_data2_model4 split_axes = [[], [1]] : !shard.sharding
  %s_b = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %a_s = shard.shard %a to %s_a : tensor<8x16xf32>
  %b_s = shard.shard %b to %s_b : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c = linalg.matmul ins(%a_s, %b_s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%i : tensor<8x32xf32>) -> tensor<8x32xf32>
  %s_c = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %c_s = shard.shard %c to %s_c : tensor<8x32xf32>
  return %c_s : tensor<8x32xf32>
}
