// The same axes in another order: rows split over ("data", "model") must become rows
// split over ("model", "data"). Every device holds the right amount of data, only the
// wrong block: one collective permute moves each 1x16 f32 piece (64 B) once, where
// gathering and slicing again would move 7/8 of the whole tensor to every device.
// expect: collective_permute {model,data} 64
module @axis_order_permute {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model", "data"}, {}]>}) {
    %y = stablehlo.negate %x : tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
