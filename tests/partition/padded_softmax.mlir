// options: pad_uneven
// Softmax over a vocabulary of 10 split over "model" (4 devices, blocks of 3): the max
// fills the padding with -inf and the sum with 0 before reducing (masks), each owing a
// reduction over "model" of a 4-element f32 vector (16 B): 2 * 3/4 * 16 = 24 B each.
// The result keeps the vocabulary split, padded.
// expect: all_reduce {model} 24
// expect: all_reduce {model} 24
module @padded_softmax {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<4x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>})
      -> (tensor<4x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x10xf32>
    %d = stablehlo.subtract %x, %mb : tensor<4x10xf32>
    %e = stablehlo.exponential %d : tensor<4x10xf32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x10xf32>
    %p = stablehlo.divide %e, %sb : tensor<4x10xf32>
    return %p : tensor<4x10xf32>
  }
}
