// FSDP: the parameter w[16,32] is stored row-sharded over data (axis 0); the
// activation x[32,16] is batch-sharded over data; the result stays
// batch-sharded.
// JAX/FSDP: all-gather w over data before the matmul. (The other plan, an
// all-to-all of x to k-sharded and a reduce-scatter of the partial result, moves
// 512 + 2048 B.)
// optimal: 1024 B: one all_gather over data (N=2) of w (2048 B gathered), 1/2*2048
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @fsdp(%x: tensor<32x16xf32>, %w: tensor<16x32xf32>) -> tensor<32x32xf32> {
  %s_x = shard.sharding @mesh_data2_model4 split_axes = [[0]] : !shard.sharding
  %s_w = shard.sharding @mesh_data2_model4 split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %s_x : tensor<32x16xf32>
  %w_s = shard.shard %w to %s_w : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = linalg.matmul ins(%x_s, %w_s : tensor<32x16xf32>, tensor<16x32xf32>) outs(%i : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s_y = shard.sharding @mesh_data2_model4 split_axes = [[0]] : !shard.sharding
  %y_s = shard.shard %y to %s_y : tensor<32x32xf32>
  return %y_s : tensor<32x32xf32>
}
