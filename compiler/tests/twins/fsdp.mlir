// Twin of tests/upstream/fsdp.mlir: y = x w with x's batch rows and w's rows (the
// contracting dimension) split over "data"; y's rows split over "data".
module @fsdp {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>})
      -> (tensor<32x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
    return %y : tensor<32x32xf32>
  }
}
