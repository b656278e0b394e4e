// x[6,16] with its rows split unevenly over model (axis 1, size 4) through
// explicit shard offsets [0, 2, 4, 5, 6] (2, 2, 1 and 1 rows); a relu keeps the
// sharding and the result is returned with it.
// Expected: no communication; each device applies the relu to its own rows.
// optimal: 0 B: the relu is local on every device
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @uneven_elementwise(%x: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %s_rows = shard.sharding @mesh_data2_model4 split_axes = [[1]] sharded_dims_offsets = [0, 2, 4, 5, 6] : !shard.sharding
  %x_s = shard.shard %x to %s_rows : tensor<6x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_s : tensor<6x16xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6x16xf32>
  %r_s = shard.shard %r to %s_rows : tensor<6x16xf32>
  return %r_s : tensor<6x16xf32>
}
