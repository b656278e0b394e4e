// A module in MLIR's generic form, as `mlir-opt --mlir-print-op-generic` writes it, with
// locations and location aliases.
#loc = loc(unknown)
"builtin.module"() <{sym_name = "jit_generic"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2], device_ids=[3, 2, 1, 0]>, sym_name = "mesh"}> : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, {}], function_type = (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8x16xf32> loc("x"), %arg1: tensor<f32> loc(#loc1)):
    %0 = "stablehlo.reduce"(%arg0, %arg1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %4 = "stablehlo.maximum"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc)
      "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32> loc("jit(f)/reduce_max"("f.py":3:10))
    %1 = "stablehlo.compare"(%0, %0) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %2 = "stablehlo.select"(%1, %0, %0) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %3 = "sdy.sharding_constraint"(%2) <{sharding = #sdy.sharding<@mesh, [{"model"}]>}> : (tensor<8xf32>) -> tensor<8xf32>
    %5 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %6 = "stablehlo.slice"(%5) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<2xi64>) -> tensor<1xi64>
    %7 = "stablehlo.reshape"(%6) : (tensor<1xi64>) -> tensor<i64>
    %8 = "shardc.random"(%7) <{distribution = #shardc<distribution NORMAL>}> : (tensor<i64>) -> tensor<8xf32>
    %9 = "stablehlo.add"(%3, %8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %rot = "shardc.rotate"(%9) <{dimension = 0 : i64, shift = -3 : i64}> : (tensor<8xf32>) -> tensor<8xf32>
    %10 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<8xf32>
    %11 = "stablehlo.concatenate"(%rot, %10) <{dimension = 0 : i64}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<16xf32>
    %12 = "stablehlo.pad"(%11, %arg1) <{edge_padding_high = array<i64: -8>, edge_padding_low = array<i64: 0>, interior_padding = array<i64: 0>}> : (tensor<16xf32>, tensor<f32>) -> tensor<8xf32>
    %13 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %14 = "stablehlo.dot_general"(%13, %12) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x8xf32>, tensor<8xf32>) -> tensor<16xf32>
    %15 = "stablehlo.broadcast_in_dim"(%14) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xf32>) -> tensor<16x8xf32>
    %16 = "stablehlo.convert"(%15) : (tensor<16x8xf32>) -> tensor<16x8xf16>
    %17 = "stablehlo.clamp"(%arg1, %0, %arg1) : (tensor<f32>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %18 = "func.call"(%17) <{callee = @id}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%18) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "id", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    "func.return"(%arg0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()
#loc1 = loc("y")
