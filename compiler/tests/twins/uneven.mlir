// Twin of tests/upstream/uneven.mlir: x[6,16] with its rows split over "model" (4
// devices), returned replicated. Upstream states the uneven split with explicit offsets
// [0, 2, 4, 5, 6]; Shardy's sharding attribute has no offsets, so the nearest statement
// of the intent is the plain split of 6 rows over 4 devices. without padding asked
// for, shardc must reject the split, naming the dimension.
// expect-error: dimension 0 of argument 0 (%arg0) of @main has size 6, which "model" (4 shards) does not divide
// unsupported: shardc has no uneven shards at offsets (a Shardy sharding cannot state offsets), so the 2, 2, 1, 1 row split is not expressible, and the even split of 6 rows over 4 devices is rejected unless padding is asked for (`--pad`: blocks of 2 rows, the last all padding); an all-gather of the uneven pieces would move 320 B
module @uneven {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%x: tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<6x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    return %x : tensor<6x16xf32>
  }
}
