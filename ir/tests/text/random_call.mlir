// shardc.random, and calls of private functions with several results (call and func.call).
module @jit_random_call {
  func.func public @main(%seed: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
    %u = shardc.random %seed, distribution = UNIFORM : (tensor<i64>) -> tensor<4x8xf32>
    %n = shardc.random %seed, distribution = NORMAL : (tensor<i64>) -> tensor<4x8xbf16>
    %pair:2 = call @swap(%u, %n) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>)
    %again:2 = func.call @swap(%pair#1, %pair#0) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>)
    call @nothing() : () -> ()
    return %again#1, %again : tensor<4x8xf32>, tensor<4x8xbf16>
  }
  func.func private @swap(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
    return %b, %a : tensor<4x8xbf16>, tensor<4x8xf32>
  }
  func.func private @nothing() {
    return
  }
}
