// seq_parallel with one more annotation, the way a JAX user would pin the
// hidden activation: h = x*w1 is constrained to [[], [1]] (columns over model).
// Megatron-SP/GSPMD: all-gather of x before w1, reduce-scatter after w2.
// optimal: 768 B: all_gather over model (N=4) of x (512 B gathered), 3/4*512, and reduce_scatter over model of the partial [8,16] f32 (512 B), 3/4*512
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @seq_parallel_constrained(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %s_seq = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %s_col = shard.sharding @mesh_data2_model4 split_axes = [[], [1]] : !shard.sharding
  %x_s = shard.shard %x to %s_seq : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %s_col : tensor<16x32xf32>
  %w2_s = shard.shard %w2 to %s_seq : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x_s, %w1_s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%i1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h_c = shard.shard %h to %s_col : tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h_c : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%r, %w2_s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%i2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y_s = shard.shard %y to %s_seq : tensor<8x16xf32>
  return %y_s : tensor<8x16xf32>
}
