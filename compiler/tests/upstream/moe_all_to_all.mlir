// Mixture of experts dispatch: x[4 experts, 8 tokens, 16] sharded on tokens
// over model (axis 1) resharded to experts over model.
// Expected: one all-to-all over model.
// optimal: 384 B: one all_to_all over model (N=4) of the local [4,2,16] f32 (512 B), 3/4*512
shard.grid @mesh_data2_model4(shape = 2x4)

func.func @moe_all_to_all(%x: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %s_tokens = shard.sharding @mesh_data2_model4 split_axes = [[], [1]] : !shard.sharding
  %s_experts = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %x_tokens = shard.shard %x to %s_tokens : tensor<4x8x16xf32>
  %x_experts = shard.shard %x_tokens to %s_experts annotate_for_users : tensor<4x8x16xf32>
  return %x_experts : tensor<4x8x16xf32>
}
