// Lexical and syntax errors.

// bad element type
func.func @main(%arg0: tensor<4xf33>) -> tensor<4xf33> {
  return %arg0 : tensor<4xf33>
}

// -----

// dynamic dimension
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %arg0 : tensor<?x4xf32>
}

// -----

// unterminated string
sdy.mesh @mesh = <["data=2]>

// -----

// truncated text
module @jit_f {
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.negate %arg0 : tensor<8xf32>

// -----

// truncated op
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims =

// -----

// missing type signature
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0
  return %0 : tensor<8xf32>
}

// -----

// missing return
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
}

// -----

// unexpected character
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> ;
  return %0 : tensor<8xf32>
}

// -----

// malformed dense literal
func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, , 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// dense literal with the wrong number of elements
func.func @main() -> tensor<2x2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// ragged dense literal
func.func @main() -> tensor<2x2xi32> {
  %0 = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// integer out of range for its type
func.func @main() -> tensor<i32> {
  %0 = stablehlo.constant dense<3000000000> : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// float for an integer type
func.func @main() -> tensor<i64> {
  %0 = stablehlo.constant dense<1.5> : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// hex bit pattern too wide for bf16
func.func @main() -> tensor<bf16> {
  %0 = stablehlo.constant dense<0x7FC00000> : tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// hex dense string of the wrong size
func.func @main() -> tensor<4xf32> {
  %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// regions nested too deep
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %a) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
   reducer(%x0: tensor<f32>, %y0: tensor<f32>)  {
    %1 = stablehlo.reduce(%x0 init: %y0) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
     reducer(%x1: tensor<f32>, %y1: tensor<f32>)  {
      %2 = stablehlo.reduce(%x1 init: %y1) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
       reducer(%x2: tensor<f32>, %y2: tensor<f32>)  {
        %3 = stablehlo.reduce(%x2 init: %y2) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
         reducer(%x3: tensor<f32>, %y3: tensor<f32>)  {
          %4 = stablehlo.reduce(%x3 init: %y3) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
           reducer(%x4: tensor<f32>, %y4: tensor<f32>)  {
            %5 = stablehlo.reduce(%x4 init: %y4) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
             reducer(%x5: tensor<f32>, %y5: tensor<f32>)  {
              %6 = stablehlo.reduce(%x5 init: %y5) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
               reducer(%x6: tensor<f32>, %y6: tensor<f32>)  {
                %7 = stablehlo.reduce(%x6 init: %y6) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                 reducer(%x7: tensor<f32>, %y7: tensor<f32>)  {
                  %8 = stablehlo.reduce(%x7 init: %y7) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                   reducer(%x8: tensor<f32>, %y8: tensor<f32>)  {
                    %9 = stablehlo.reduce(%x8 init: %y8) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                     reducer(%x9: tensor<f32>, %y9: tensor<f32>)  {
                      %10 = stablehlo.reduce(%x9 init: %y9) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                       reducer(%x10: tensor<f32>, %y10: tensor<f32>)  {
                        %11 = stablehlo.reduce(%x10 init: %y10) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                         reducer(%x11: tensor<f32>, %y11: tensor<f32>)  {
                          %12 = stablehlo.reduce(%x11 init: %y11) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                           reducer(%x12: tensor<f32>, %y12: tensor<f32>)  {
                            %13 = stablehlo.reduce(%x12 init: %y12) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                             reducer(%x13: tensor<f32>, %y13: tensor<f32>)  {
                              %14 = stablehlo.reduce(%x13 init: %y13) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                               reducer(%x14: tensor<f32>, %y14: tensor<f32>)  {
                                %15 = stablehlo.reduce(%x14 init: %y14) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                                 reducer(%x15: tensor<f32>, %y15: tensor<f32>)  {
                                  %16 = stablehlo.reduce(%x15 init: %y15) across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
                                   reducer(%x16: tensor<f32>, %y16: tensor<f32>)  {
                                    stablehlo.return %x16 : tensor<f32>
                                  }
                                  stablehlo.return %16 : tensor<f32>
                                }
                                stablehlo.return %15 : tensor<f32>
                              }
                              stablehlo.return %14 : tensor<f32>
                            }
                            stablehlo.return %13 : tensor<f32>
                          }
                          stablehlo.return %12 : tensor<f32>
                        }
                        stablehlo.return %11 : tensor<f32>
                      }
                      stablehlo.return %10 : tensor<f32>
                    }
                    stablehlo.return %9 : tensor<f32>
                  }
                  stablehlo.return %8 : tensor<f32>
                }
                stablehlo.return %7 : tensor<f32>
              }
              stablehlo.return %6 : tensor<f32>
            }
            stablehlo.return %5 : tensor<f32>
          }
          stablehlo.return %4 : tensor<f32>
        }
        stablehlo.return %3 : tensor<f32>
      }
      stablehlo.return %2 : tensor<f32>
    }
    stablehlo.return %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// hex dense string one byte short of two f32s (not a splat and a stray byte)
func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<"0x0000803F112233"> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// a complex element type of half precision
func.func @main(%x: tensor<8xcomplex<f16>>) -> tensor<8xcomplex<f16>> {
  return %x : tensor<8xcomplex<f16>>
}
