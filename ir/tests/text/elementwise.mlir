// Every elementwise op, compare in all its forms, select, clamp and convert.
module @jit_elementwise attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @floats(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
    %0 = stablehlo.negate %x : tensor<4xf32>
    %1 = stablehlo.exponential %0 : tensor<4xf32>
    %2 = stablehlo.exponential_minus_one %1 : tensor<4xf32>
    %3 = stablehlo.log %2 : tensor<4xf32>
    %4 = stablehlo.log_plus_one %3 : tensor<4xf32>
    %5 = stablehlo.tanh %4 : tensor<4xf32>
    %6 = stablehlo.sqrt %5 : tensor<4xf32>
    %7 = stablehlo.rsqrt %6 : tensor<4xf32>
    %8 = stablehlo.cbrt %7 : tensor<4xf32>
    %9 = stablehlo.abs %8 : tensor<4xf32>
    %10 = stablehlo.logistic %9 : tensor<4xf32>
    %11 = stablehlo.sine %10 : tensor<4xf32>
    %12 = stablehlo.cosine %11 : tensor<4xf32>
    %13 = stablehlo.tan %12 : tensor<4xf32>
    %14 = stablehlo.floor %13 : tensor<4xf32>
    %15 = stablehlo.ceil %14 : tensor<4xf32>
    %16 = stablehlo.sign %15 : tensor<4xf32>
    %17 = stablehlo.round_nearest_even %16 : tensor<4xf32>
    %18 = stablehlo.round_nearest_afz %17 : (tensor<4xf32>) -> tensor<4xf32>
    %19 = stablehlo.is_finite %18 : (tensor<4xf32>) -> tensor<4xi1>
    %20 = stablehlo.add %18, %y : tensor<4xf32>
    %21 = stablehlo.subtract %20, %y : tensor<4xf32>
    %22 = stablehlo.multiply %21, %y : tensor<4xf32>
    %23 = stablehlo.divide %22, %y : tensor<4xf32>
    %24 = stablehlo.remainder %23, %y : tensor<4xf32>
    %25 = stablehlo.maximum %24, %y : tensor<4xf32>
    %26 = stablehlo.minimum %25, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %27 = stablehlo.power %26, %y : tensor<4xf32>
    %28 = stablehlo.atan2 %27, %y : tensor<4xf32>
    %29 = stablehlo.compare  GT, %28, %y,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %30 = stablehlo.compare LE, %28, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %31 = stablehlo.compare EQ, %28, %y, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %32 = stablehlo.and %29, %30 : tensor<4xi1>
    %33 = stablehlo.or %32, %31 : tensor<4xi1>
    %34 = stablehlo.xor %33, %19 : tensor<4xi1>
    %35 = stablehlo.not %34 : tensor<4xi1>
    %36 = stablehlo.select %35, %28, %y : tensor<4xi1>, tensor<4xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %37 = stablehlo.select %c, %36, %x : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %lo = stablehlo.constant dense<-1.0> : tensor<f32>
    %hi = stablehlo.constant dense<1.0> : tensor<f32>
    %38 = stablehlo.clamp %lo, %37, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %39 = stablehlo.clamp %x, %38, %y : tensor<4xf32>
    return %39, %35 : tensor<4xf32>, tensor<4xi1>
  }
  func.func private @ints(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) -> tensor<2x3xi64> {
    %0 = stablehlo.shift_left %a, %b : tensor<2x3xi32>
    %1 = stablehlo.shift_right_logical %0, %b : tensor<2x3xi32>
    %2 = stablehlo.shift_right_arithmetic %1, %b : tensor<2x3xi32>
    %3 = stablehlo.and %2, %b : tensor<2x3xi32>
    %4 = stablehlo.not %3 : tensor<2x3xi32>
    %5 = stablehlo.negate %4 : tensor<2x3xi32>
    %abs = stablehlo.abs %5 : tensor<2x3xi32>
    %ones = stablehlo.popcnt %abs : tensor<2x3xi32>
    %6 = stablehlo.count_leading_zeros %ones : tensor<2x3xi32>
    %7 = stablehlo.compare LT, %6, %b, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %8 = stablehlo.compare NE, %6, %b, UNSIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %9 = stablehlo.select %7, %6, %b : tensor<2x3xi1>, tensor<2x3xi32>
    %10 = stablehlo.convert %9 : (tensor<2x3xi32>) -> tensor<2x3xi64>
    %11 = stablehlo.convert %8 : (tensor<2x3xi1>) -> tensor<2x3xi64>
    %12 = stablehlo.add %10, %11 : tensor<2x3xi64>
    return %12 : tensor<2x3xi64>
  }
  func.func private @halves(%h: tensor<3xf16>, %b: tensor<3xbf16>, %d: tensor<3xf64>) -> tensor<3xf64> {
    %0 = stablehlo.convert %h : (tensor<3xf16>) -> tensor<3xbf16>
    %1 = stablehlo.multiply %0, %b : tensor<3xbf16>
    %2 = stablehlo.convert %1 : (tensor<3xbf16>) -> tensor<3xf64>
    %3 = stablehlo.convert %d : tensor<3xf64>
    %4 = stablehlo.add %2, %3 : tensor<3xf64>
    return %4 : tensor<3xf64>
  }
}
