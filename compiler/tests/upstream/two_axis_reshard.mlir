// x[8,16] sharded [[0],[1]] (rows over data, columns over model) resharded to
// fully replicated.
// Expected: an all-gather over both axes (8 devices), or one per axis.
// optimal: 448 B: all_gather over data and model (N=8) of x (512 B gathered), 7/8*512
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @two_axis_reshard(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s_src = shard.sharding @mesh_data2_model4 split_axes = [[0], [1]] : !shard.sharding
  %s_dst = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %x_src = shard.shard %x to %s_src : tensor<8x16xf32>
  %x_dst = shard.shard %x_src to %s_dst annotate_for_users : tensor<8x16xf32>
  return %x_dst : tensor<8x16xf32>
}
