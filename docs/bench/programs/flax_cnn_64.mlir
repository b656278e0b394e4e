module @jit_cnn_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<3x3x3x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg2: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<3x3x32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg4: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<3x3x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg6: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<3x3x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg8: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<4096x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg10: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg11: tensor<3x3x3x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg12: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg13: tensor<3x3x32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg14: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg15: tensor<3x3x32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg16: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg17: tensor<3x3x64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, %arg18: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg19: tensor<4096x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg20: tensor<64x32x32x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}, {}]>}, %arg21: tensor<64xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> (tensor<f32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<32xf32> {jax.result_info = "result[1]['params']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x3x32xf32> {jax.result_info = "result[1]['params']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<32xf32> {jax.result_info = "result[1]['params']['Conv_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x32x32xf32> {jax.result_info = "result[1]['params']['Conv_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<64xf32> {jax.result_info = "result[1]['params']['Conv_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x32x64xf32> {jax.result_info = "result[1]['params']['Conv_2']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<64xf32> {jax.result_info = "result[1]['params']['Conv_3']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x64x64xf32> {jax.result_info = "result[1]['params']['Conv_3']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<10xf32> {jax.result_info = "result[1]['params']['Dense_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<4096x10xf32> {jax.result_info = "result[1]['params']['Dense_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<32xf32> {jax.result_info = "result[2][0].trace['params']['Conv_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x3x32xf32> {jax.result_info = "result[2][0].trace['params']['Conv_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<32xf32> {jax.result_info = "result[2][0].trace['params']['Conv_1']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x32x32xf32> {jax.result_info = "result[2][0].trace['params']['Conv_1']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<64xf32> {jax.result_info = "result[2][0].trace['params']['Conv_2']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x32x64xf32> {jax.result_info = "result[2][0].trace['params']['Conv_2']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<64xf32> {jax.result_info = "result[2][0].trace['params']['Conv_3']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<3x3x64x64xf32> {jax.result_info = "result[2][0].trace['params']['Conv_3']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}, tensor<10xf32> {jax.result_info = "result[2][0].trace['params']['Dense_0']['bias']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<4096x10xf32> {jax.result_info = "result[2][0].trace['params']['Dense_0']['kernel']", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.convolution(%arg20, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x32x32x3xf32>, tensor<3x3x3x32xf32>) -> tensor<64x32x32x32xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<64x32x32x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<64x32x32x32xf32>
    %4 = call @relu(%3) : (tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32x32x32xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<64x32x32x32xf32>, tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xi1>
    %7 = stablehlo.convolution(%4, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x32x32x32xf32>, tensor<3x3x32x32xf32>) -> tensor<64x32x32x32xf32>
    %8 = stablehlo.reshape %arg2 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<64x32x32x32xf32>
    %10 = stablehlo.add %7, %9 : tensor<64x32x32x32xf32>
    %11 = call @relu(%10) : (tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x32x32x32xf32>
    %13 = stablehlo.compare GT, %10, %12, FLOAT : (tensor<64x32x32x32xf32>, tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xi1>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %15 = "stablehlo.reduce_window"(%11, %14) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %180 = stablehlo.maximum %arg22, %arg23 : tensor<f32>
      stablehlo.return %180 : tensor<f32>
    }) : (tensor<64x32x32x32xf32>, tensor<f32>) -> tensor<64x16x16x32xf32>
    %16 = stablehlo.convolution(%15, %arg5) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x32xf32>, tensor<3x3x32x64xf32>) -> tensor<64x16x16x64xf32>
    %17 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2, 3] : (tensor<1x1x1x64xf32>) -> tensor<64x16x16x64xf32>
    %19 = stablehlo.add %16, %18 : tensor<64x16x16x64xf32>
    %20 = call @relu_0(%19) : (tensor<64x16x16x64xf32>) -> tensor<64x16x16x64xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64x16x16x64xf32>
    %22 = stablehlo.compare GT, %19, %21, FLOAT : (tensor<64x16x16x64xf32>, tensor<64x16x16x64xf32>) -> tensor<64x16x16x64xi1>
    %23 = stablehlo.convolution(%20, %arg7) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x64xf32>, tensor<3x3x64x64xf32>) -> tensor<64x16x16x64xf32>
    %24 = stablehlo.reshape %arg6 : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<1x1x1x64xf32>) -> tensor<64x16x16x64xf32>
    %26 = stablehlo.add %23, %25 : tensor<64x16x16x64xf32>
    %27 = call @relu_0(%26) : (tensor<64x16x16x64xf32>) -> tensor<64x16x16x64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64x16x16x64xf32>
    %29 = stablehlo.compare GT, %26, %28, FLOAT : (tensor<64x16x16x64xf32>, tensor<64x16x16x64xf32>) -> tensor<64x16x16x64xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<f32>
    %31 = "stablehlo.reduce_window"(%27, %30) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %180 = stablehlo.add %arg22, %arg23 : tensor<f32>
      stablehlo.return %180 : tensor<f32>
    }) : (tensor<64x16x16x64xf32>, tensor<f32>) -> tensor<64x8x8x64xf32>
    %cst_5 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<64x8x8x64xf32>
    %33 = stablehlo.divide %31, %32 : tensor<64x8x8x64xf32>
    %34 = stablehlo.reshape %33 : (tensor<64x8x8x64xf32>) -> tensor<64x4096xf32>
    %35 = stablehlo.dot_general %34, %arg9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x4096xf32>, tensor<4096x10xf32>) -> tensor<64x10xf32>
    %36 = stablehlo.reshape %arg8 : (tensor<10xf32>) -> tensor<1x10xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<64x10xf32>
    %38 = stablehlo.add %35, %37 : tensor<64x10xf32>
    %39 = stablehlo.broadcast_in_dim %arg21, dims = [0] : (tensor<64xi32>) -> tensor<64x1xi32>
    %40:2 = call @take_along_axis(%38, %39) : (tensor<64x10xf32>, tensor<64x1xi32>) -> (tensor<64x1xf32>, tensor<64x1x1xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %41:2 = call @_take(%40#0, %c) : (tensor<64x1xf32>, tensor<i32>) -> (tensor<64xf32>, tensor<1xi32>)
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %42 = stablehlo.reduce(%38 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<64x10xf32>, tensor<f32>) -> tensor<64xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %44 = stablehlo.maximum %43, %42 : tensor<64xf32>
    %45 = stablehlo.is_finite %44 : (tensor<64xf32>) -> tensor<64xi1>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %47 = stablehlo.select %45, %44, %46 : tensor<64xi1>, tensor<64xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x10xf32>
    %50 = stablehlo.subtract %38, %49 : tensor<64x10xf32>
    %51 = stablehlo.exponential %50 : tensor<64x10xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<64x10xf32>, tensor<f32>) -> tensor<64xf32>
    %53 = stablehlo.abs %52 : tensor<64xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %55 = stablehlo.compare GE, %52, %54, FLOAT : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
    %56 = stablehlo.log %53 : tensor<64xf32>
    %57 = stablehlo.add %56, %47 : tensor<64xf32>
    %58 = stablehlo.subtract %57, %41#0 : tensor<64xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.reduce(%58 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
    %cst_12 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %60 = stablehlo.divide %59, %cst_12 : tensor<f32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_14 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %61 = stablehlo.divide %cst_13, %cst_14 : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %63 = stablehlo.negate %62 : tensor<64xf32>
    %64 = stablehlo.divide %62, %53 : tensor<64xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %66 = stablehlo.select %55, %65, %64 : tensor<64xi1>, tensor<64xf32>
    %67 = stablehlo.select %55, %64, %65 : tensor<64xi1>, tensor<64xf32>
    %68 = stablehlo.negate %66 : tensor<64xf32>
    %69 = stablehlo.add %67, %68 : tensor<64xf32>
    %70 = stablehlo.broadcast_in_dim %69, dims = [0] : (tensor<64xf32>) -> tensor<64x10xf32>
    %71 = stablehlo.multiply %70, %51 : tensor<64x10xf32>
    %72 = call @_take_1(%41#1, %63) : (tensor<1xi32>, tensor<64xf32>) -> tensor<64x1xf32>
    %73 = call @take_along_axis_2(%40#1, %72) : (tensor<64x1x1xi32>, tensor<64x1xf32>) -> tensor<64x10xf32>
    %74 = stablehlo.add %71, %73 : tensor<64x10xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.reduce(%74 init: %cst_16) applies stablehlo.add across dimensions = [0] : (tensor<64x10xf32>, tensor<f32>) -> tensor<10xf32>
    %76 = stablehlo.reshape %75 : (tensor<10xf32>) -> tensor<1x10xf32>
    %77 = stablehlo.reshape %76 : (tensor<1x10xf32>) -> tensor<10xf32>
    %78 = stablehlo.dot_general %74, %34, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x10xf32>, tensor<64x4096xf32>) -> tensor<10x4096xf32>
    %79 = stablehlo.transpose %78, dims = [1, 0] : (tensor<10x4096xf32>) -> tensor<4096x10xf32>
    %80 = stablehlo.dot_general %74, %arg9, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x10xf32>, tensor<4096x10xf32>) -> tensor<64x4096xf32>
    %81 = stablehlo.reshape %80 : (tensor<64x4096xf32>) -> tensor<64x8x8x64xf32>
    %cst_17 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<64x8x8x64xf32>
    %83 = stablehlo.divide %81, %82 : tensor<64x8x8x64xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.pad %83, %cst_18, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<64x8x8x64xf32>, tensor<f32>) -> tensor<64x17x17x64xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<f32>
    %86 = "stablehlo.reduce_window"(%84, %85) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %180 = stablehlo.add %arg22, %arg23 : tensor<f32>
      stablehlo.return %180 : tensor<f32>
    }) : (tensor<64x17x17x64xf32>, tensor<f32>) -> tensor<64x16x16x64xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<64x16x16x64xf32>
    %88 = stablehlo.select %29, %86, %87 : tensor<64x16x16x64xi1>, tensor<64x16x16x64xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.reduce(%88 init: %cst_21) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<64x16x16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %90 = stablehlo.reshape %89 : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
    %91 = stablehlo.reshape %90 : (tensor<1x1x1x64xf32>) -> tensor<64xf32>
    %92 = stablehlo.convolution(%20, %88) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x64xf32>, tensor<64x16x16x64xf32>) -> tensor<3x3x64x64xf32>
    %93 = stablehlo.reverse %arg7, dims = [0, 1] : tensor<3x3x64x64xf32>
    %94 = stablehlo.convolution(%88, %93) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x64xf32>, tensor<3x3x64x64xf32>) -> tensor<64x16x16x64xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x16x16x64xf32>
    %96 = stablehlo.select %22, %94, %95 : tensor<64x16x16x64xi1>, tensor<64x16x16x64xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.reduce(%96 init: %cst_23) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<64x16x16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %98 = stablehlo.reshape %97 : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
    %99 = stablehlo.reshape %98 : (tensor<1x1x1x64xf32>) -> tensor<64xf32>
    %100 = stablehlo.convolution(%15, %96) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x32xf32>, tensor<64x16x16x64xf32>) -> tensor<3x3x32x64xf32>
    %101 = stablehlo.reverse %arg5, dims = [0, 1] : tensor<3x3x32x64xf32>
    %102 = stablehlo.convolution(%96, %101) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x16x16x64xf32>, tensor<3x3x32x64xf32>) -> tensor<64x16x16x32xf32>
    %cst_24 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %103 = stablehlo.pad %11, %cst_24, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<64x32x32x32xf32>, tensor<f32>) -> tensor<64x32x32x32xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = "stablehlo.select_and_scatter"(%103, %102, %cst_25) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %180 = stablehlo.compare GE, %arg22, %arg23, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %180 : tensor<i1>
    }, {
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %180 = stablehlo.add %arg22, %arg23 : tensor<f32>
      stablehlo.return %180 : tensor<f32>
    }) : (tensor<64x32x32x32xf32>, tensor<64x16x16x32xf32>, tensor<f32>) -> tensor<64x32x32x32xf32>
    %105 = stablehlo.slice %104 [0:64, 0:32, 0:32, 0:32] : (tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<64x32x32x32xf32>
    %107 = stablehlo.select %13, %105, %106 : tensor<64x32x32x32xi1>, tensor<64x32x32x32xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %108 = stablehlo.reduce(%107 init: %cst_27) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<64x32x32x32xf32>, tensor<f32>) -> tensor<32xf32>
    %109 = stablehlo.reshape %108 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %110 = stablehlo.reshape %109 : (tensor<1x1x1x32xf32>) -> tensor<32xf32>
    %111 = stablehlo.convolution(%4, %107) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x32x32x32xf32>, tensor<64x32x32x32xf32>) -> tensor<3x3x32x32xf32>
    %112 = stablehlo.reverse %arg3, dims = [0, 1] : tensor<3x3x32x32xf32>
    %113 = stablehlo.convolution(%107, %112) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x32x32x32xf32>, tensor<3x3x32x32xf32>) -> tensor<64x32x32x32xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %114 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<64x32x32x32xf32>
    %115 = stablehlo.select %6, %113, %114 : tensor<64x32x32x32xi1>, tensor<64x32x32x32xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %116 = stablehlo.reduce(%115 init: %cst_29) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<64x32x32x32xf32>, tensor<f32>) -> tensor<32xf32>
    %117 = stablehlo.reshape %116 : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %118 = stablehlo.reshape %117 : (tensor<1x1x1x32xf32>) -> tensor<32xf32>
    %119 = stablehlo.convolution(%arg20, %115) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<64x32x32x3xf32>, tensor<64x32x32x32xf32>) -> tensor<3x3x3x32xf32>
    %cst_30 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %121 = stablehlo.multiply %120, %arg10 : tensor<32xf32>
    %122 = stablehlo.add %118, %121 : tensor<32xf32>
    %cst_31 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<3x3x3x32xf32>
    %124 = stablehlo.multiply %123, %arg11 : tensor<3x3x3x32xf32>
    %125 = stablehlo.add %119, %124 : tensor<3x3x3x32xf32>
    %cst_32 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %127 = stablehlo.multiply %126, %arg12 : tensor<32xf32>
    %128 = stablehlo.add %110, %127 : tensor<32xf32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<3x3x32x32xf32>
    %130 = stablehlo.multiply %129, %arg13 : tensor<3x3x32x32xf32>
    %131 = stablehlo.add %111, %130 : tensor<3x3x32x32xf32>
    %cst_34 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %133 = stablehlo.multiply %132, %arg14 : tensor<64xf32>
    %134 = stablehlo.add %99, %133 : tensor<64xf32>
    %cst_35 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<3x3x32x64xf32>
    %136 = stablehlo.multiply %135, %arg15 : tensor<3x3x32x64xf32>
    %137 = stablehlo.add %100, %136 : tensor<3x3x32x64xf32>
    %cst_36 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %139 = stablehlo.multiply %138, %arg16 : tensor<64xf32>
    %140 = stablehlo.add %91, %139 : tensor<64xf32>
    %cst_37 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<3x3x64x64xf32>
    %142 = stablehlo.multiply %141, %arg17 : tensor<3x3x64x64xf32>
    %143 = stablehlo.add %92, %142 : tensor<3x3x64x64xf32>
    %cst_38 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %145 = stablehlo.multiply %144, %arg18 : tensor<10xf32>
    %146 = stablehlo.add %77, %145 : tensor<10xf32>
    %cst_39 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<4096x10xf32>
    %148 = stablehlo.multiply %147, %arg19 : tensor<4096x10xf32>
    %149 = stablehlo.add %79, %148 : tensor<4096x10xf32>
    %cst_40 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %150 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %151 = stablehlo.multiply %150, %122 : tensor<32xf32>
    %cst_41 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %152 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<3x3x3x32xf32>
    %153 = stablehlo.multiply %152, %125 : tensor<3x3x3x32xf32>
    %cst_42 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %154 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %155 = stablehlo.multiply %154, %128 : tensor<32xf32>
    %cst_43 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<3x3x32x32xf32>
    %157 = stablehlo.multiply %156, %131 : tensor<3x3x32x32xf32>
    %cst_44 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %158 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %159 = stablehlo.multiply %158, %134 : tensor<64xf32>
    %cst_45 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %160 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<3x3x32x64xf32>
    %161 = stablehlo.multiply %160, %137 : tensor<3x3x32x64xf32>
    %cst_46 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %163 = stablehlo.multiply %162, %140 : tensor<64xf32>
    %cst_47 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<3x3x64x64xf32>
    %165 = stablehlo.multiply %164, %143 : tensor<3x3x64x64xf32>
    %cst_48 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %167 = stablehlo.multiply %166, %146 : tensor<10xf32>
    %cst_49 = stablehlo.constant dense<-0.00999999977> : tensor<f32>
    %168 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4096x10xf32>
    %169 = stablehlo.multiply %168, %149 : tensor<4096x10xf32>
    %170 = stablehlo.add %arg0, %151 : tensor<32xf32>
    %171 = stablehlo.add %arg1, %153 : tensor<3x3x3x32xf32>
    %172 = stablehlo.add %arg2, %155 : tensor<32xf32>
    %173 = stablehlo.add %arg3, %157 : tensor<3x3x32x32xf32>
    %174 = stablehlo.add %arg4, %159 : tensor<64xf32>
    %175 = stablehlo.add %arg5, %161 : tensor<3x3x32x64xf32>
    %176 = stablehlo.add %arg6, %163 : tensor<64xf32>
    %177 = stablehlo.add %arg7, %165 : tensor<3x3x64x64xf32>
    %178 = stablehlo.add %arg8, %167 : tensor<10xf32>
    %179 = stablehlo.add %arg9, %169 : tensor<4096x10xf32>
    return %60, %170, %171, %172, %173, %174, %175, %176, %177, %178, %179, %122, %125, %128, %131, %134, %137, %140, %143, %146, %149 : tensor<f32>, tensor<32xf32>, tensor<3x3x3x32xf32>, tensor<32xf32>, tensor<3x3x32x32xf32>, tensor<64xf32>, tensor<3x3x32x64xf32>, tensor<64xf32>, tensor<3x3x64x64xf32>, tensor<10xf32>, tensor<4096x10xf32>, tensor<32xf32>, tensor<3x3x3x32xf32>, tensor<32xf32>, tensor<3x3x32x32xf32>, tensor<64xf32>, tensor<3x3x32x64xf32>, tensor<64xf32>, tensor<3x3x64x64xf32>, tensor<10xf32>, tensor<4096x10xf32>
  }
  func.func private @relu(%arg0: tensor<64x32x32x32xf32>) -> tensor<64x32x32x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32x32x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<64x32x32x32xf32>
    return %1 : tensor<64x32x32x32xf32>
  }
  func.func private @relu_0(%arg0: tensor<64x16x16x64xf32>) -> tensor<64x16x16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x16x16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<64x16x16x64xf32>
    return %1 : tensor<64x16x16x64xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<64x10xf32>, %arg1: tensor<64x1xi32>) -> (tensor<64x1xf32>, tensor<64x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<64x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<64x1xi32>, tensor<64x1xi32>) -> tensor<64x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<64x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<64x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<64x1xi1>, tensor<64x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<64x1xi32>) -> tensor<64x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<64x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<64x1x1xi32>, tensor<64x1x1xi32>) -> tensor<64x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<64x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<64x1x1xi32>, tensor<64x1x1xi32>) -> tensor<64x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<64x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<64x1x1xi1>, tensor<i1>) -> tensor<64x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<64x10xf32>, tensor<64x1x1xi32>) -> tensor<64x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<64x1xi1>, tensor<64x1xf32>
    return %15, %5 : tensor<64x1xf32>, tensor<64x1x1xi32>
  }
  func.func private @_take(%arg0: tensor<64x1xf32>, %arg1: tensor<i32>) -> (tensor<64xf32>, tensor<1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = call @_where(%0, %1, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<1xi32>
    %4 = stablehlo.convert %3 : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %7 = stablehlo.compare LE, %4, %c_1, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %8 = stablehlo.and %6, %7 : tensor<1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %9 = stablehlo.reduce(%8 init: %c_3) applies stablehlo.and across dimensions = [0] : (tensor<1xi1>, tensor<i1>) -> tensor<i1>
    %10 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 64, 1>}> : (tensor<64x1xf32>, tensor<1xi32>) -> tensor<64xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<64xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %13 = stablehlo.select %11, %10, %12 : tensor<64xi1>, tensor<64xf32>
    return %13, %3 : tensor<64xf32>, tensor<1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_take_1(%arg0: tensor<1xi32>, %arg1: tensor<64xf32>) -> tensor<64x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<64x1xf32>, tensor<1xi32>, tensor<64xf32>) -> tensor<64x1xf32>
    return %1 : tensor<64x1xf32>
  }
  func.func private @take_along_axis_2(%arg0: tensor<64x1x1xi32>, %arg1: tensor<64x1xf32>) -> tensor<64x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<64x10xf32>, tensor<64x1x1xi32>, tensor<64x1xf32>) -> tensor<64x10xf32>
    return %1 : tensor<64x10xf32>
  }
}
