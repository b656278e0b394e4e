// Megatron MLP: x[8,16] rows over data (axis 0), w1[16,32] column-parallel and
// w2[32,16] row-parallel over model (axis 1), relu between, result rows over data.
// JAX/GSPMD: one all-reduce over model of the partial result.
// optimal: 384 B: one all_reduce over model (N=4) of y's local [4,16] f32 (256 B), 2*3/4*256
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @megatron_mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %s_x = shard.sharding @mesh_data2_model4 split_axes = [[0]] : !shard.sharding
  %s_w1 = shard.sharding @mesh_data2_model4 split_axes = [[], [1]] : !shard.sharding
  %s_w2 = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %x_s = shard.shard %x to %s_x : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %s_w1 : tensor<16x32xf32>
  %w2_s = shard.shard %w2 to %s_w2 : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x_s, %w1_s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%i1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%r, %w2_s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%i2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s_y = shard.sharding @mesh_data2_model4 split_axes = [[0]] : !shard.sharding
  %y_s = shard.shard %y to %s_y : tensor<8x16xf32>
  return %y_s : tensor<8x16xf32>
}
