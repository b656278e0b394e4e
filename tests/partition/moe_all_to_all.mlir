// MoE dispatch: tokens arrive grouped per expert [E=4, C=8, D=256] but split over the
// token (capacity) dimension; the experts' weights [E, D, F=512] (2 MiB) are split over
// experts. Gathering the weights would move 1.5 MiB per device; instead tokens move
// from capacity-split to expert-split (all-to-all), each device runs its expert, and the
// outputs move back. Piece 4x2x256 f32 = 8192 B: 3/4*8192 = 6144 B; back: the piece
// 1x8x512 = 16384 B: 3/4*16384 = 12288 B.
// expect: all_to_all {model} 6144
// expect: all_to_all {model} 12288
module @moe_all_to_all {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%x: tensor<4x8x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>},
                  %w: tensor<4x256x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}, {}]>})
      -> (tensor<4x8x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}, {}]>}) {
    %y = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x8x256xf32>, tensor<4x256x512xf32>) -> tensor<4x8x512xf32>
    return %y : tensor<4x8x512xf32>
  }
}
