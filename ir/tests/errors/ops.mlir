// Op errors: typing rules of each op, as the builder checks them while reading.

// shape mismatch between the operands of add
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.add %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dot_general contracting dimensions of different sizes
func.func @main(%a: tensor<8x16xf32>, %b: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// broadcast_in_dim mapping a dimension to one of another size
func.func @main(%a: tensor<3xf32>) -> tensor<4x5xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// broadcast_in_dim with too few dims
func.func @main(%a: tensor<3x5xf32>) -> tensor<4x3x5xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3x5xf32>) -> tensor<4x3x5xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// reshape changing the element count
func.func @main(%a: tensor<4x6xf32>) -> tensor<5x5xf32> {
  %0 = stablehlo.reshape %a : (tensor<4x6xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

// transpose with a repeated dimension
func.func @main(%a: tensor<4x6xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<4x6xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice out of bounds
func.func @main(%a: tensor<4x6xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.slice %a [0:4, 4:8] : (tensor<4x6xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// reduce with an init value of the wrong type
func.func @main(%a: tensor<4x6xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reduce applying a non-commutative op
func.func @main(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.subtract across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reducer argument of the wrong type
func.func @main(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%a init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%x: tensor<f32>, %y: tensor<i32>)  {
    stablehlo.return %x : tensor<f32>
  }
  return %0 : tensor<4xf32>
}

// -----

// reducer ending with the function's return
func.func @main(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%a init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    return %x : tensor<f32>
  }
  return %0 : tensor<4xf32>
}

// -----

// wrong declared result type
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

// operand of a type other than the signature says
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// wrong number of results in the result names
func.func @main(%a: tensor<4x6xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %2:3 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %2#0 : tensor<4xf32>
}

// -----

// unknown op
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.batch_norm_grad %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// unknown op in generic form
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.batch_norm_inference"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// generic op missing a property
func.func @main(%a: tensor<4x6xf32>) -> tensor<6x4xf32> {
  %0 = "stablehlo.transpose"(%a) : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// gather written in a pretty form
func.func @main(%a: tensor<8x16xf32>, %i: tensor<4x1xi32>) -> tensor<4x16xf32> {
  %0 = stablehlo.gather %a, %i : (tensor<8x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// random with a seed that is not i64
func.func @main(%s: tensor<i32>) -> tensor<4xf32> {
  %0 = shardc.random %s, distribution = UNIFORM : (tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// unknown comparison direction
func.func @main(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.compare GEQ, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// an empty dot algorithm
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = #stablehlo.dot_algorithm<> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// reduce_window whose window has the wrong rank
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 8, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_window with a zero stride
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_window whose declared result is not the windows' shape
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_window with padding of the wrong shape
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{padding = dense<[1, 0]> : tensor<2xi64>, window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_window whose init is not a scalar of the input's type
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 1>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_window whose reducer takes the wrong types
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x7xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %s = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %s : tensor<f64>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// reduce_window whose reducer reads a value from outside its region
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x7xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %c : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// dynamic_slice with one start index for a rank-2 operand
func.func @main(%x: tensor<16x16xf32>, %i: tensor<i32>) -> tensor<2x16xf32> {
  %0 = stablehlo.dynamic_slice %x, %i, sizes = [2, 16] : (tensor<16x16xf32>, tensor<i32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// dynamic_slice with a float start index
func.func @main(%x: tensor<16xf32>, %i: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<16xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// dynamic_slice larger than its operand
func.func @main(%x: tensor<16xf32>, %i: tensor<i32>) -> tensor<20xf32> {
  %0 = stablehlo.dynamic_slice %x, %i, sizes = [20] : (tensor<16xf32>, tensor<i32>) -> tensor<20xf32>
  return %0 : tensor<20xf32>
}

// -----

// dynamic_update_slice whose update does not fit
func.func @main(%x: tensor<4xf32>, %u: tensor<8xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %0 = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<4xf32>, tensor<8xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// a dot algorithm naming an f8 precision
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E4M3FN, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// a dot algorithm of complex components
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 2, rhs_component_count = 2, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// a dot algorithm without its accumulation type
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
