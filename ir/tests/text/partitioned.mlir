// The per-device ops of a partitioned program, as XLA prints them after partitioning:
// generic form, with replica groups of device ids (a 2x4 mesh: rows are "data" groups
// of one "model" index, columns the reverse).
module @jit_partitioned {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<8x16xf32>, tensor<4x4xf32>, tensor<4x1xf32>, tensor<16x1xf32>, tensor<2x4xf32>, tensor<i64>, tensor<4x4xf32>, tensor<ui32>) {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<4x4xf32>) -> tensor<4x16xf32>
    %1 = "stablehlo.all_gather"(%0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>}> : (tensor<4x16xf32>) -> tensor<8x16xf32>
    %2 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = "stablehlo.reduce_scatter"(%arg0) <{scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %4 = "stablehlo.all_to_all"(%3) <{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %5 = "stablehlo.all_to_all"(%4) <{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, replica_groups = dense<[[0], [1], [2], [3], [4], [5], [6], [7]]> : tensor<8x1xi64>}> : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %6 = "stablehlo.all_gather"(%5) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : (tensor<4x1xf32>) -> tensor<16x1xf32>
    %7 = "shardc.shard_slice"(%arg0) <{dimension = 0 : i64, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>}> : (tensor<4x4xf32>) -> tensor<2x4xf32>
    %9 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 1], [1, 0], [2, 2]]> : tensor<3x2xi64>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %8 = "shardc.axis_index"() <{replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>}> : () -> tensor<i64>
    %10 = stablehlo.partition_id : tensor<ui32>
    return %1, %2, %3, %6, %7, %8, %9, %10 : tensor<8x16xf32>, tensor<4x4xf32>, tensor<4x1xf32>, tensor<16x1xf32>, tensor<2x4xf32>, tensor<i64>, tensor<4x4xf32>, tensor<ui32>
  }
}
