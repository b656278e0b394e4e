// Module-level errors: meshes, functions, calls.

// mesh axis of size 0
sdy.mesh @mesh = <["data"=0]>

// -----

// mesh axis declared twice
sdy.mesh @mesh = <["x"=2, "x"=4]>

// -----

// device ids that are not a permutation
sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[0, 1, 1, 3]>

// -----

// duplicate mesh
sdy.mesh @mesh = <["data"=2]>
sdy.mesh @mesh = <["data"=4]>

// -----

// duplicate function
func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}

// -----

// call of an undefined function
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = call @tril(%arg0) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// call with the wrong types
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @double(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @double(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// return of the wrong type
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xi32> {
  return %arg0 : tensor<4xf32>
}

// -----

// return of too few values
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %arg0 : tensor<4xf32>
}

// -----

// function attributes
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {jax.uses_shape_polymorphism = true} {
  return %arg0 : tensor<4xf32>
}

// -----

// op at module level
module {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
}

// -----

// nested module
module {
  module {
  }
}
