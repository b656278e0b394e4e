// non_divisible, with the result gathered back to replicated: x[6,16] rows over
// model (axis 1, size 4), a relu, then a reshard to [[]].
// Expected: an error naming the tensor, dimension and axis (or padding, if
// asked for).
// optimal: error: dimension 0 (6) of x does not split over model (4)
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @non_divisible_gathered(%x: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %s_rows = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %x_s = shard.shard %x to %s_rows : tensor<6x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_s : tensor<6x16xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6x16xf32>
  %r_s = shard.shard %r to %s_rows : tensor<6x16xf32>
  %s_rep = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %r_rep = shard.shard %r_s to %s_rep annotate_for_users : tensor<6x16xf32>
  return %r_rep : tensor<6x16xf32>
}
