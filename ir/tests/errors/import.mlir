// What JAX exports that shardc refuses by name rather than ignoring or misreading.

// a GSPMD sharding on an argument (JAX with Shardy off)
func.func @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<8x4xf32> {
  return %arg0 : tensor<8x4xf32>
}

// -----

// a GSPMD sharding on a result
func.func @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"}) {
  return %arg0 : tensor<8x4xf32>
}

// -----

// a GSPMD sharding on an op
func.func @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 {mhlo.sharding = "{devices=[2,1]<=[2]}"} : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// num_partitions that is not the mesh's device count
module @m attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["data"=4]>
  func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}

// -----

// a chlo op shardc does not decompose
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.conj %arg0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// chlo.erf of an integer
func.func @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {
  %0 = chlo.erf %arg0 : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// chlo.erf_inv of integers
func.func @main(%arg0: tensor<8xi64>) -> tensor<8xi64> {
  %0 = chlo.erf_inv %arg0 : tensor<8xi64> -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// a chlo op whose type does not match its operand
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<8xf32>
}

// -----

// chlo.is_inf whose result is not i1
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.is_inf %arg0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// chlo.next_after given one operand (it takes two)
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.next_after %arg0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// chlo.next_after of two types
func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf64>) -> tensor<8xf32> {
  %0 = chlo.next_after %arg0, %arg1 : tensor<8xf32>, tensor<8xf64> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// reduce_precision with more exponent bits than its type has
func.func @main(%arg0: tensor<8xf16>) -> tensor<8xf16> {
  %0 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// reduce_precision with a format that is not eEmM
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.reduce_precision %arg0, format = bf16 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// reduce_precision of integers
func.func @main(%arg0: tensor<8xi32>) -> tensor<8xi32> {
  %0 = "stablehlo.reduce_precision"(%arg0) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

