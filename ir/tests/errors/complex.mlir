// complex values (read as pairs of floats): ops that are not read on them, and types that
// do not match

// an FFT of real values
func.func @main(%a: tensor<8xf32>) -> tensor<8xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// an FFT length that is not the operand's
func.func @main(%a: tensor<4x16xcomplex<f32>>) -> tensor<4x16xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<4x16xcomplex<f32>>) -> tensor<4x16xcomplex<f32>>
  return %0 : tensor<4x16xcomplex<f32>>
}

// -----

// an unknown FFT type
func.func @main(%a: tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = DCT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
  return %0 : tensor<16xcomplex<f32>>
}

// -----

// the real part of real values
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.real %a : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// complex values of parts of different types
func.func @main(%a: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<8xcomplex<f32>> {
  %0 = stablehlo.complex %a, %b : tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// the maximum of complex values (they have no order)
func.func @main(%a: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %0 = stablehlo.maximum %a, %a : tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// complex values compared by order
func.func @main(%a: tensor<8xcomplex<f32>>) -> tensor<8xi1> {
  %0 = stablehlo.compare LT, %a, %a : (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// the maximum of complex values by reduce
func.func @main(%a: tensor<8xcomplex<f32>>) -> tensor<complex<f32>> {
  %cst = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
  %0 = stablehlo.reduce(%a init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<8xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
  return %0 : tensor<complex<f32>>
}

// -----

// a chlo function of complex values
func.func @main(%a: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %0 = chlo.erf %a : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// a sharding of a complex value with a dimension too many
sdy.mesh @mesh = <["data"=8]>
func.func @main(%a: tensor<8x2xcomplex<f32>> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {}]>}) -> tensor<8x2xcomplex<f32>> {
  return %a : tensor<8x2xcomplex<f32>>
}

// -----

// complex values of integers
func.func @main(%a: tensor<8xcomplex<i32>>) -> tensor<8xcomplex<i32>> {
  return %a : tensor<8xcomplex<i32>>
}

// -----

// a complex element literal of one part
func.func @main() -> tensor<complex<f32>> {
  %cst = stablehlo.constant dense<(1.000000e+00)> : tensor<complex<f32>>
  return %cst : tensor<complex<f32>>
}

// -----

// two complex inputs reduced together
func.func @main(%a: tensor<8xcomplex<f32>>, %b: tensor<8xcomplex<f32>>) -> tensor<complex<f32>> {
  %cst = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
  %0:2 = stablehlo.reduce(%a init: %cst), (%b init: %cst) across dimensions = [0] : (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>) -> (tensor<complex<f32>>, tensor<complex<f32>>)
    reducer(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>) (%z: tensor<complex<f32>>, %w: tensor<complex<f32>>) {
      %1 = stablehlo.multiply %x, %y : tensor<complex<f32>>
      stablehlo.return %1, %1 : tensor<complex<f32>>, tensor<complex<f32>>
    }
  return %0#0 : tensor<complex<f32>>
}

// -----

// a complex cumulative sum whose signature lists one operand type for two (a fuzzer's panic)
func.func @main(%a: tensor<8x6xcomplex<f32>>) -> tensor<8x6xcomplex<f32>> {
  %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
  %0 = "stablehlo.reduce_window"(%a, %cst) <{padding = dense<[[0, 0], [5, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 6>}> ({
  ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):
    %1 = stablehlo.add %x, %y : tensor<complex<f32>>
    stablehlo.return %1 : tensor<complex<f32>>
  }) : (tensor<8x6xcomplex<f32>>) -> tensor<8x6xcomplex<f32>>
  return %0 : tensor<8x6xcomplex<f32>>
}
