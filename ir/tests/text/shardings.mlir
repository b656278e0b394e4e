// Meshes (1-D, 2-D, explicit device order, a single device) and shardings of every kind:
// closed and open dimensions, priorities, sub-axes, replicated and unreduced axes with their
// reduction, scalars, op shardings, sharding constraints, and a mesh declared after its use.
module @jit_shardings attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  sdy.mesh @mesh_ring = <["x"=8], device_ids=[0, 2, 4, 6, 1, 3, 5, 7]>
  sdy.mesh @single = <[]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", ?}p1, {"model":(1)2, "model":(2)2}]>}, %arg1: tensor<16x32xf32> {jax.arg_info = "w", sdy.sharding = #sdy.sharding<@mesh, [{?}, {"model"}p0], replicated={"data"}>}, %arg2: tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}) -> (tensor<8x32xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}], unreduced={"model"}>}, tensor<8x32xf32> {jax.result_info = "result[1]"}, tensor<8x32xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}], unreduced=max{"model"}>]>} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}], unreduced={"data"}, reduction=min> {mhlo.frontend_attributes = {xla.sdy.foo = "bar"}} : tensor<8x32xf32>
    %3 = sdy.sharding_constraint %2 <@mesh_ring, [{"x"}, {?}]> : tensor<8x32xf32>
    %4 = stablehlo.broadcast_in_dim %arg2, dims = [] {sdy.sharding = #sdy.sharding_per_value<[<@later, [{"a"}, {}]>]>} : (tensor<f32>) -> tensor<8x32xf32>
    %5 = stablehlo.add %3, %4 {sdy.sharding = #sdy.sharding_per_value<[<@single, [{}, {}]>]>} : tensor<8x32xf32>
    return %1, %5, %0 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
  }
  sdy.mesh @later = <["a"=2]>
}
