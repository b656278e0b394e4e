// Sharding errors: each case names the value, the axis or dimension, the rule and the fix.

// unknown mesh axis
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}) -> tensor<8x16xf32> {
  return %arg0 : tensor<8x16xf32>
}

// -----

// axis used twice in one dimension
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "data"}, {}]>}) -> tensor<8x16xf32> {
  return %arg0 : tensor<8x16xf32>
}

// -----

// axis used twice across dimensions
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<8x16xf32>) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {"model"}]>}) {
  return %arg0 : tensor<8x16xf32>
}

// -----

// axis both replicated and splitting a dimension
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = sdy.sharding_constraint %arg0 <@mesh, [{"data"}, {}], replicated={"data"}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// dimension not divisible by its axes
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> tensor<6x16xf32> {
  return %arg0 : tensor<6x16xf32>
}

// -----

// dimension not divisible by two axes together
sdy.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%arg0: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"data", "model"}]>]>} : tensor<8x12xf32>
  return %0 : tensor<8x12xf32>
}

// -----

// sharding rank does not match the tensor rank
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> tensor<8x16xf32> {
  return %arg0 : tensor<8x16xf32>
}

// -----

// scalar given a dimension sharding
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<f32> {
  return %arg0 : tensor<f32>
}

// -----

// unknown mesh symbol
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mseh, [{"data"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// sub-axis that does not fit its axis
sdy.mesh @mesh = <["model"=4]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model":(2)4}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// overlapping sub-axes
sdy.mesh @mesh = <["model"=8]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model":(1)4}, {"model":(2)2}]>}) -> tensor<8x8xf32> {
  return %arg0 : tensor<8x8xf32>
}

// -----

// op sharding lists the wrong number of results
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>, <@mesh, [{}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// op sharding written as a single sharding
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// malformed sharding attribute
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// dimension sharding with the open marker first
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?, "data"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// unknown reduction of unreduced axes
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced={"data"}, reduction=mean>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// axis name without quotes
sdy.mesh @mesh = <["data"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{data}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}

// -----

// an axis of a mesh that has none
sdy.mesh @mesh = <[]>
func.func @main(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// Shardy's maximal sharding of a tensor
sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
func.func @main(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@maximal_mesh_0, []>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
