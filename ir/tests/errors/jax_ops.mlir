// while whose body returns a type the loop does not carry
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.while(%it = %x) : tensor<4xf32>
  cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1.0> : tensor<8xf32>
    stablehlo.return %c : tensor<8xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// while whose condition is not a boolean
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.while(%it = %x) : tensor<4xf32>
  cond {
    %c = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %c : tensor<i32>
  } do {
    stablehlo.return %it : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// case whose branches return different types
func.func @main(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %x : tensor<4xf32>
  }, {
    %c = stablehlo.constant dense<1.0> : tensor<2xf32>
    stablehlo.return %c : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// case with a float index
func.func @main(%i: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// scatter whose updates do not match its indices
func.func @main(%x: tensor<8x4xf32>, %i: tensor<3x1xi32>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x4xf32>, tensor<3x1xi32>, tensor<2x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// scatter with float indices
func.func @main(%x: tensor<8x4xf32>, %i: tensor<2x1xf32>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// scatter whose update computation takes the wrong types
func.func @main(%x: tensor<8x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %s = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %s : tensor<f64>
  }) : (tensor<8x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// sort whose comparator does not return a boolean
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// sort along a dimension the operand does not have
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.sort"(%x) <{dimension = 3 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// top_k of more elements than the last dimension holds
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x9xf32>, tensor<4x9xi32>) {
  %v, %i = chlo.top_k(%x, k = 9) : tensor<4x8xf32> -> (tensor<4x9xf32>, tensor<4x9xi32>)
  return %v, %i : tensor<4x9xf32>, tensor<4x9xi32>
}

// -----

// convolution whose kernel's input features do not match the input's
func.func @main(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// convolution dimension numbers that name a dimension twice
func.func @main(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// convolution whose declared output shape is not the window's
func.func @main(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// bitcast_convert between widths without the ratio as the last dimension
func.func @main(%x: tensor<4x3xui32>) -> tensor<4xf64> {
  %0 = stablehlo.bitcast_convert %x : (tensor<4x3xui32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// an unsigned constant out of its type's range
func.func @main() -> tensor<ui8> {
  %0 = stablehlo.constant dense<256> : tensor<ui8>
  return %0 : tensor<ui8>
}

// -----

// a shard_map whose body takes the global shape instead of each device's piece
module {
  sdy.mesh @mesh = <["data"=8]>
  func.func @main(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data"} (%a: tensor<16x4xf32>) {
      sdy.return %a : tensor<16x4xf32>
    } : (tensor<16x4xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
}

// -----

// a shard_map over an axis its mesh does not have
module {
  sdy.mesh @mesh = <["data"=8]>
  func.func @main(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"model"} (%a: tensor<2x4xf32>) {
      sdy.return %a : tensor<2x4xf32>
    } : (tensor<16x4xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
}

// -----

// a shard_map with fewer in_shardings than operands
module {
  sdy.mesh @mesh = <["data"=8]>
  func.func @main(%x: tensor<16x4xf32>, %y: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = sdy.manual_computation(%x, %y) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data"} (%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) {
      sdy.return %a : tensor<2x4xf32>
    } : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
}

// -----

// custom_call of a LAPACK routine shardc does not read (jnp.linalg.eig, non-symmetric)
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%x) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>)
  return %0#0 : tensor<4x4xf32>
}

// -----

// jnp.linalg.eigh's syevd with a result too many (its results are vectors, values, status)
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0:4 = stablehlo.custom_call @lapack_ssyevd_ffi(%x) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8, mode = 86 : ui8}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>)
  return %0#0 : tensor<4x4xf32>
}

// -----

// svd of a non-float matrix
func.func @main(%x: tensor<4x3xi32>) -> tensor<3xi32> {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%x) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}} : (tensor<4x3xi32>) -> (tensor<4x3xi32>, tensor<3xi32>, tensor<4x3xi32>, tensor<3x3xi32>, tensor<i32>)
  return %0#1 : tensor<3xi32>
}

// -----

// shardc.eigh of a matrix that is not square
func.func @main(%x: tensor<4x3xf32>) -> tensor<3xf32> {
  %0:2 = shardc.eigh %x, lower = true : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

// a LAPACK routine shardc reads, typed wrongly (getrf's pivots are i32)
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%x) {backend_config = ""} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>)
  return %0#0 : tensor<4x4xf32>
}

// -----

// a LAPACK routine for f32 given f64 matrices
func.func @main(%x: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %0 = stablehlo.cholesky %x, lower = true : tensor<4x4xf64>
  %1:2 = stablehlo.custom_call @lapack_spotrf_ffi(%0) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<i32>)
  return %1#0 : tensor<4x4xf64>
}

// -----

// a triangular solve whose right-hand side does not fit the matrix
func.func @main(%a: tensor<4x4xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// a Cholesky of a matrix that is not square
func.func @main(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// custom_call of a Python callback, generic form
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.custom_call"(%x) <{call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = true}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// custom_call of an unknown target
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// jax.experimental.custom_partitioning, as JAX exports it (its body is a Python function)
func.func @main(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.custom_call @CustomSPMDPartitioning(%x) {api_version = 2 : i32, backend_config = "140365577989840", sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=8}, custom>} : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// jax.lax.ragged_all_to_all inside a shard_map body, as JAX exports it
func.func @main(%x: tensor<8x4xf32>, %out: tensor<8x4xf32>, %a: tensor<8xi32>, %b: tensor<8xi32>, %c: tensor<8xi32>, %d: tensor<8xi32>) -> tensor<8x4xf32> {
  %0 = stablehlo.custom_call @ragged_all_to_all(%x, %out, %a, %b, %c, %d) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// a placement annotation that changes the type
func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = stablehlo.custom_call @MoveToHost(%x) : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// generic custom_call without its target
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.custom_call"(%x) <{has_side_effect = true}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// approx_max_k asking for a TPU's unaggregated candidates (aggregate_to_topk = false)
func.func @top_k_gt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
}
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x3xf32> {
  %i = stablehlo.iota dim = 1 : tensor<4x16xi32>
  %c = stablehlo.constant dense<-1> : tensor<i32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %cst, %c) {called_computations = [@top_k_gt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = false, is_fallback = true, reduction_dim = 1 : i64, top_k = 3 : i64}} : (tensor<4x16xf32>, tensor<4x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return %0#0 : tensor<4x3xf32>
}

// -----

// approx_max_k whose result type does not keep top_k along the reduction dimension
func.func @top_k_gt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
}
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x4xf32> {
  %i = stablehlo.iota dim = 1 : tensor<4x16xi32>
  %c = stablehlo.constant dense<-1> : tensor<i32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %cst, %c) {called_computations = [@top_k_gt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, reduction_dim = 1 : i64, top_k = 3 : i64}} : (tensor<4x16xf32>, tensor<4x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<4x4xf32>, tensor<4x4xi32>)
  return %0#0 : tensor<4x4xf32>
}

// -----

// ApproxTopK with a comparator JAX does not write
func.func @my_order(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
}
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x3xf32> {
  %i = stablehlo.iota dim = 1 : tensor<4x16xi32>
  %c = stablehlo.constant dense<-1> : tensor<i32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %cst, %c) {called_computations = [@my_order], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, reduction_dim = 1 : i64, top_k = 3 : i64}} : (tensor<4x16xf32>, tensor<4x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return %0#0 : tensor<4x3xf32>
}

// -----

// lax.linalg.tridiagonal_solve's gtsv with a right-hand side of the wrong order
func.func @main(%dl: tensor<8xf32>, %d: tensor<8xf32>, %du: tensor<8xf32>, %b: tensor<6x3xf32>) -> tensor<6x3xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%dl, %d, %du, %b) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<6x3xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<6x3xf32>, tensor<i32>)
  return %0#3 : tensor<6x3xf32>
}

// -----

// tridiagonal_solve's diagonals of different types
func.func @main(%dl: tensor<8xf32>, %d: tensor<8xf32>, %du: tensor<7xf32>, %b: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %0:5 = shardc.tridiagonal_solve %dl, %d, %du, %b : (tensor<8xf32>, tensor<8xf32>, tensor<7xf32>, tensor<8x3xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<7xf32>, tensor<8x3xf32>, tensor<i32>)
  return %0#3 : tensor<8x3xf32>
}

// -----

// shard_alike's sharding_group without its group
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  sdy.sharding_group %x : tensor<4xf32>
  return %x : tensor<4xf32>
}
