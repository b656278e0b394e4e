// Devices laid out on the mesh in another order than their ids (`device_ids`, as a
// topology-aware placement or a transposed device array gives): position p holds device
// device_ids[p]. Pieces go by position, collectives name device ids: the Megatron MLP's
// all-reduce over "model" groups the devices at positions 0-3 (ids 0, 2, 4, 6) and 4-7
// (ids 1, 3, 5, 7); the batch gathered over "data" joins ids 0 and 1, 2 and 3, ... and
// each device slices its rows of ("model", "data") by its position.
// expect: all_gather {data} 256
// expect: all_reduce {model} 384
module @permuted_device_ids {
  sdy.mesh @mesh = <["data"=2, "model"=4], device_ids=[0, 2, 4, 6, 1, 3, 5, 7]>
  func.func @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
          tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model", "data"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<8x32xf32>
    %r = stablehlo.maximum %h, %zero : tensor<8x32xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %n = stablehlo.negate %x : tensor<8x16xf32>
    return %y, %n : tensor<8x16xf32>, tensor<8x16xf32>
  }
}
