// Reductions that combine by product and by logical and over a split dimension: each
// device reduces its 16 columns, and one all-reduce with `multiply` (and one with `and`)
// combines the devices' partial results, where gathering `x` would move 3/4 of it.
// expect: all_reduce {model} 48
// expect: all_reduce {model} 12
module @product_and_all {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%x: tensor<8x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>})
      -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>},
          tensor<8xi1> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<8x64xf32>
    %y = stablehlo.add %x, %one : tensor<8x64xf32>
    %init = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %p = stablehlo.reduce(%y init: %init) applies stablehlo.multiply across dimensions = [1] : (tensor<8x64xf32>, tensor<f32>) -> tensor<8xf32>
    %bound = stablehlo.constant dense<-4.500000e-01> : tensor<8x64xf32>
    %above = stablehlo.compare GT, %x, %bound : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xi1>
    %true = stablehlo.constant dense<true> : tensor<i1>
    %all = stablehlo.reduce(%above init: %true) applies stablehlo.and across dimensions = [1] : (tensor<8x64xi1>, tensor<i1>) -> tensor<8xi1>
    return %p, %all : tensor<8xf32>, tensor<8xi1>
  }
}
