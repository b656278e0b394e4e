module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<12x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<6x50xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<10x50xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x12xf32>, tensor<12x6xf32>) -> tensor<16x6xf32>
    %1 = stablehlo.slice %0 [0:10, 0:6] : (tensor<16x6xf32>) -> tensor<10x6xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"data"}, {}]> : tensor<10x6xf32>
    %3 = stablehlo.tanh %2 : tensor<10x6xf32>
    %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10x6xf32>, tensor<6x50xf32>) -> tensor<10x50xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {"data"}]> : tensor<10x50xf32>
    %6 = stablehlo.tanh %2 : tensor<10x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = call @log_softmax(%5) : (tensor<10x50xf32>) -> tensor<10x50xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %9 = stablehlo.reduce(%2 init: %cst_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<10x6xf32>, tensor<f32>) -> tensor<f32>
    return %7, %8, %9 : tensor<6xf32>, tensor<10x50xf32>, tensor<f32>
  }
  func.func private @log_softmax(%arg0: tensor<10x50xf32>) -> tensor<10x50xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<10x50xf32>, tensor<f32>) -> tensor<10xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<10xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<10xf32>) -> tensor<10x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<10x1xf32>) -> tensor<10x50xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<10x50xf32>
    %6 = stablehlo.exponential %5 : tensor<10x50xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<10x50xf32>, tensor<f32>) -> tensor<10xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<10xf32>) -> tensor<10x1xf32>
    %9 = stablehlo.log %8 : tensor<10x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<10x1xf32>) -> tensor<10x50xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<10x50xf32>
    return %11 : tensor<10x50xf32>
  }
}
