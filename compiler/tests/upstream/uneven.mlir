// x[6,16] with its rows split unevenly over model (axis 1, size 4) through
// explicit shard offsets [0, 2, 4, 5, 6] (2, 2, 1 and 1 rows), resharded to
// replicated.
// Expected: an all-gather of uneven pieces (all_gatherv).
// optimal: 320 B: each device receives the 384 B tensor minus its own rows; 320 B on the 1-row devices, 256 B on the others
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @uneven(%x: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %s_src = shard.sharding @mesh_data2_model4 split_axes = [[1]] sharded_dims_offsets = [0, 2, 4, 5, 6] : !shard.sharding
  %s_dst = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %x_src = shard.shard %x to %s_src : tensor<6x16xf32>
  %x_dst = shard.shard %x_src to %s_dst annotate_for_users : tensor<6x16xf32>
  return %x_dst : tensor<6x16xf32>
}
