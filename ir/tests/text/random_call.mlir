// shardc.random, stablehlo.rng_bit_generator (pretty and generic), shardc.rotate (a roll: by one, and by -1 with the short type), and calls of private functions with several results (call and func.call).
module @jit_random_call {
  func.func public @main(%seed: tensor<i64>, %state: tensor<2xui64>) -> (tensor<4x8xf32>, tensor<4x8xbf16>, tensor<2xui64>, tensor<3x5xui32>, tensor<7xui8>) {
    %u = shardc.random %seed, distribution = UNIFORM : (tensor<i64>) -> tensor<4x8xf32>
    %n = shardc.random %seed, distribution = NORMAL : (tensor<i64>) -> tensor<4x8xbf16>
    %next, %bits = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
    %last:2 = "stablehlo.rng_bit_generator"(%next) <{rng_algorithm = #stablehlo<rng_algorithm PHILOX>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui8>)
    %r = shardc.rotate %u, dim = 0, shift = 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %back = shardc.rotate %r, dim = 1, shift = -1 : tensor<4x8xf32>
    %pair:2 = call @swap(%back, %n) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>)
    %again:2 = func.call @swap(%pair#1, %pair#0) : (tensor<4x8xf32>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>)
    call @nothing() : () -> ()
    return %again#1, %again, %last#0, %bits, %last#1 : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<2xui64>, tensor<3x5xui32>, tensor<7xui8>
  }
  func.func private @swap(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
    return %b, %a : tensor<4x8xbf16>, tensor<4x8xf32>
  }
  func.func private @nothing() {
    return
  }
}
