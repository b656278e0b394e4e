// options: pad_uneven
// Ops that read positions along a dimension never see its padding. x's 10 elements are
// split over "model" (blocks of 3); the iota is computed whole and cut like x (padded to
// 12 first), so the add runs on the padded blocks (the sum is read by two slices, so
// neither is computed on its window: `passes::narrow`). The slices and the concatenation
// read positions along the dimension (permutation factors): the sum is gathered whole
// first (each device sends its 3 elements, 12 B, to the 3 others: 36 B) and the 2 padding
// elements are dropped, so the slices see exactly 10. The 14 results are cut anew over
// "model" (blocks of 4, the last holding 2), which moves nothing.
// expect: all_gather {model} 36
module @padded_positions {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>})
      -> (tensor<14xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}) {
    %i = stablehlo.iota dim = 0 : tensor<10xf32>
    %y = stablehlo.add %x, %i : tensor<10xf32>
    %s = stablehlo.slice %y [1:8] : (tensor<10xf32>) -> tensor<7xf32>
    %t = stablehlo.slice %y [3:10] : (tensor<10xf32>) -> tensor<7xf32>
    %c = stablehlo.concatenate %s, %t, dim = 0 : (tensor<7xf32>, tensor<7xf32>) -> tensor<14xf32>
    return %c : tensor<14xf32>
  }
}
