// dot_general in its forms; reduce in the short form and the general form (argmax, as JAX prints it).
module @jit_dot_reduce {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%arg0: tensor<8x16xf32>, %w: tensor<16x4xf32>, %q: tensor<2x8x3xf32>, %k: tensor<2x5x3xf32>) -> (tensor<8xi32>, tensor<8x4xf32>, tensor<2x8x5xf32>, tensor<f32>) {
    %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [HIGHEST, HIGH] : (tensor<2x8x3xf32>, tensor<2x5x3xf32>) -> tensor<2x8x5xf32>
    %2 = stablehlo.dot_general %0, %0, contracting_dims = [0, 1] x [0, 1] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32>
    %3 = stablehlo.iota dim = 1 : tensor<8x16xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:2 = stablehlo.reduce(%arg0 init: %cst), (%3 init: %c) across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>, <@mesh, [{"data"}]>]>} : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %9 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %10 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %11 = stablehlo.or %9, %10 : tensor<i1>
      %12 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %13 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %14 = stablehlo.and %12, %13 : tensor<i1>
      %15 = stablehlo.or %11, %14 : tensor<i1>
      %16 = stablehlo.select %11, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %17 = stablehlo.select %15, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %16, %17 : tensor<f32>, tensor<i32>
    }
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 2] : (tensor<2x8x5xf32>, tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.reduce(%5 init: %cst_0) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %d = stablehlo.subtract %a, %b : tensor<f32>
      stablehlo.return %d : tensor<f32>
    }
    %t = stablehlo.constant dense<true> : tensor<i1>
    %p = stablehlo.compare GT, %arg0, %arg0, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %7 = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [0, 1] : (tensor<8x16xi1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.add %6, %2 : tensor<f32>
    return %4#1, %0, %1, %8 : tensor<8xi32>, tensor<8x4xf32>, tensor<2x8x5xf32>, tensor<f32>
  }
}
