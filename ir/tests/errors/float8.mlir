// float8 values (read as f32 holding them, rounded where computed): where they are not read

// a public function taking float8 values
func.func @main(%a: tensor<8xf8E4M3FN>) -> tensor<8xf32> {
  %0 = stablehlo.convert %a : (tensor<8xf8E4M3FN>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// a public function giving float8 values
func.func @main(%a: tensor<8xf32>) -> tensor<8xf8E5M2> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E5M2>
  return %0 : tensor<8xf8E5M2>
}

// -----

// a public function in the generic form taking float8 values
"func.func"() <{function_type = (tensor<4xf8E5M2>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%a: tensor<4xf8E5M2>):
  %0 = "stablehlo.convert"(%a) : (tensor<4xf8E5M2>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// the bits of float8 values
func.func @main(%a: tensor<8xf32>) -> tensor<8xi8> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
  %1 = stablehlo.bitcast_convert %0 : (tensor<8xf8E4M3FN>) -> tensor<8xi8>
  return %1 : tensor<8xi8>
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

// float8 values as the operand of a convert whose result type is not the operand's shape
func.func @main(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
  %1 = stablehlo.convert %0 : (tensor<8xf8E4M3FN>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
