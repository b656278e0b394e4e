// Value errors: undefined, redefined, out of scope, wrong result numbers.

// undefined value
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// redefined value
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf32>
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// argument redefined by an op
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %x = stablehlo.abs %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// value of a region used outside it
func.func @main(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %c) across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// result number out of range
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %a : tensor<4xf32>
  return %0#1 : tensor<4xf32>
}
