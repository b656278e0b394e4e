// A partial sum (a contraction split over "data") divided by a count and read in two
// layouts: whole (the first result) and split over "data" (the second, times 2). One
// all_reduce gives the whole sum, and the split quotient is a local slice of the whole
// one: no second collective (a reduce_scatter of the partial quotient would move as much
// again). 8 f32 = 32 B: 2*3/4*32 = 48 B.
// expect: all_reduce {data} 48
module @reduce_once_for_two_layouts {
  sdy.mesh @mesh = <["data"=4]>
  func.func @main(%x: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>})
      -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>},
          tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}) {
    %s = stablehlo.dot_general %x, %w, contracting_dims = [0] x [0] : (tensor<16x8xf32>, tensor<16xf32>) -> tensor<8xf32>
    %n = stablehlo.constant dense<16.0> : tensor<8xf32>
    %m = stablehlo.divide %s, %n : tensor<8xf32>
    %two = stablehlo.constant dense<2.0> : tensor<8xf32>
    %d = stablehlo.multiply %m, %two : tensor<8xf32>
    return %m, %d : tensor<8xf32>, tensor<8xf32>
  }
}
