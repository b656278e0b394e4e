// Free-form value names, comments, locations, quoted symbols, a multi-result value used
// through `%x#1`, and meshes and functions without a `module` around them.
sdy.mesh @"mesh-1" = <["i"=4]>

// A function whose name needs quotes.
func.func private @"helper.v2"(%in_value: tensor<4xf32> loc("in")) -> tensor<4xf32> {
  %cst_0 = stablehlo.constant dense<2.0> : tensor<f32> loc(unknown)
  %scaled = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %out$1 = stablehlo.multiply %in_value, %scaled : tensor<4xf32> // trailing comment
  func.return %out$1 : tensor<4xf32>
} loc("helper")

func.func @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@"mesh-1", [{"i"}]>}) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.reduce(%a init: %z), (%a init: %z) across dimensions = [] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
   reducer(%acc0: tensor<f32>, %x0: tensor<f32>) (%acc1: tensor<f32>, %x1: tensor<f32>) {
    // A reducer computes from its arguments and what it defines itself; only a loop's
    // and a branch's regions read values from outside.
    %s0 = stablehlo.add %acc0, %x0 : tensor<f32>
    %floor = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.maximum %acc1, %x1 : tensor<f32>
    %s1 = stablehlo.maximum %m, %floor : tensor<f32>
    stablehlo.return %s0, %s1 : tensor<f32>, tensor<f32>
  }
  %h = call @"helper.v2"(%r#1) : (tensor<4xf32>) -> tensor<4xf32>
  return %h : tensor<4xf32>
}
