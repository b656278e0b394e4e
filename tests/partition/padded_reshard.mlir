// options: pad_uneven
// Resharding padded dimensions. %x: 8 rows over "model" move to its 6 columns over
// "model" (blocks of 2, the last all padding): each device pads its 2x6 block to 2x8 and
// one all-to-all moves 3/4 of it (48 B); no trim, as the 8 rows come whole. %y: 10 rows
// in 8 blocks of 2 (over data and model) go to 2 blocks of 5 rows over "data" with the 6
// columns over "model": 4 blocks of 2 rows do not make a block of 5, so the rows are
// gathered whole (each device's 2x6 block, 48 B, to the 7 others: 336 B), trimmed to 10,
// and cut anew, the columns padded from 6 to 8 first.
// expect: all_to_all {model} 48
// expect: all_gather {data,model} 336
module @padded_reshard {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %y: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}, {}]>})
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
          tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    return %x, %y : tensor<8x6xf32>, tensor<10x6xf32>
  }
}
