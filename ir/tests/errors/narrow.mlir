// narrow types (float8 read as f32, int4 as int8, brought back where computed): where they are not read

// the bits of float8 values
func.func @main(%a: tensor<8xf32>) -> tensor<8xi8> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
  %1 = stablehlo.bitcast_convert %0 : (tensor<8xf8E4M3FN>) -> tensor<8xi8>
  return %1 : tensor<8xi8>
}

// -----

// the bits of int4 values, as unsigned ones
func.func @main(%a: tensor<8xi4>) -> tensor<8xi32> {
  %0 = stablehlo.bitcast_convert %a : (tensor<8xi4>) -> tensor<8xui4>
  %1 = stablehlo.convert %0 : (tensor<8xui4>) -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// -----

// a logical shift of int4 values (the bits above the 4 would shift in)
func.func @main(%a: tensor<8xi4>) -> tensor<8xi32> {
  %c = stablehlo.constant dense<1> : tensor<8xi4>
  %0 = stablehlo.shift_right_logical %a, %c : tensor<8xi4>
  %1 = stablehlo.convert %0 : (tensor<8xi4>) -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// -----

// top_k of float8 values
func.func @main(%a: tensor<8xf32>) -> tensor<2xf32> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
  %1:2 = chlo.top_k(%0, k = 2) : tensor<8xf8E4M3FN> -> (tensor<2xf8E4M3FN>, tensor<2xi32>)
  %2 = stablehlo.convert %1#0 : (tensor<2xf8E4M3FN>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// a float8 type that is not read
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FNUZ>
  %1 = stablehlo.convert %0 : (tensor<8xf8E4M3FNUZ>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// a 2-bit integer type
func.func @main(%a: tensor<8xi32>) -> tensor<8xi32> {
  %0 = stablehlo.convert %a : (tensor<8xi32>) -> tensor<8xi2>
  %1 = stablehlo.convert %0 : (tensor<8xi2>) -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// -----

// float8 values as the operand of a convert whose result type is not the operand's shape
func.func @main(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
  %1 = stablehlo.convert %0 : (tensor<8xf8E4M3FN>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
