// Vocabulary-parallel embedding lookup (Megatron's VocabParallelEmbedding): the table's
// rows are split over "model" (16 of the 64 per device) and stay where they are; each
// device looks up the rows it holds (indices offset into its block, misses zeroed), so
// the lookups are partial sums over "model" and one all-reduce of the 4x16 result
// completes them, where gathering the table would move 3072 B per device. Index 70 is
// past the table and clamps to row 63, as stablehlo.gather does.
// expect: all_reduce {model} 384
module @vocab_parallel_embedding {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%table: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %i = stablehlo.iota dim = 0 : tensor<8x1xi32>
    %ten = stablehlo.constant dense<10> : tensor<8x1xi32>
    %idx = stablehlo.multiply %i, %ten : tensor<8x1xi32>
    %rows = "stablehlo.gather"(%table, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<8x1xi32>) -> tensor<8x16xf32>
    return %rows : tensor<8x16xf32>
  }
}
