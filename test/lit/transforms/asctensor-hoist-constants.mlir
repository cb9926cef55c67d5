// RUN: pyasc-opt %s -p asctensor-hoist-constants | filecheck %s

// a folded batch norm: the weight product and the bias move into @conv_constants; the program
// reads them as new constant parameters, where the old ones were
func.func @conv(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32> {asctensor.constant}, %k: tensor<8xf32> {asctensor.constant}, %c: tensor<8x1x1xf32> {asctensor.constant}, %y: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %0 = asctensor.reshape %k : tensor<8xf32> -> tensor<8x1x1x1xf32>
  %1 = asctensor.broadcast %0 : tensor<8x1x1x1xf32> -> tensor<8x4x3x3xf32>
  %2 = arith.mulf %w, %1 : tensor<8x4x3x3xf32>
  %3 = asctensor.reshape %c : tensor<8x1x1xf32> -> tensor<8xf32>
  %4 = asctensor.full 1.000000e+00 : f32 -> tensor<8xf32>
  %5 = arith.addf %3, %4 : tensor<8xf32>
  %6 = asctensor.conv2d %x, %2 bias %5 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32> -> tensor<2x8x8x8xf32>
  %7 = arith.addf %6, %y : tensor<2x8x8x8xf32>
  func.return %7 : tensor<2x8x8x8xf32>
}

// CHECK:       func.func private @conv_constants(%w: tensor<8x4x3x3xf32> {asctensor.constant}, %k: tensor<8xf32> {asctensor.constant}, %c: tensor<8x1x1xf32> {asctensor.constant}) -> (tensor<8x4x3x3xf32>, tensor<8xf32>) attributes {asctensor.constants_of = "conv"} {
// CHECK-NEXT:    %[[K:.*]] = asctensor.reshape %k : tensor<8xf32> -> tensor<8x1x1x1xf32>
// CHECK-NEXT:    %[[KW:.*]] = asctensor.broadcast %[[K]] : tensor<8x1x1x1xf32> -> tensor<8x4x3x3xf32>
// CHECK-NEXT:    %[[W:.*]] = arith.mulf %w, %[[KW]] : tensor<8x4x3x3xf32>
// CHECK-NEXT:    %[[C:.*]] = asctensor.reshape %c : tensor<8x1x1xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.addf %[[C]], %[[ONE]] : tensor<8xf32>
// CHECK-NEXT:    func.return %[[W]], %[[B]] : tensor<8x4x3x3xf32>, tensor<8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @conv(%x: tensor<2x4x8x8xf32>, %folded0: tensor<8x4x3x3xf32> {asctensor.constant}, %folded1: tensor<8xf32> {asctensor.constant}, %y: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
// CHECK-NEXT:    %[[R:.*]] = asctensor.conv2d %x, %folded0 bias %folded1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[R]], %y : tensor<2x8x8x8xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<2x8x8x8xf32>
// CHECK-NEXT:  }

// a parameter the program still reads is passed through; a splat stays; a broadcast the program
// reads stays (hoisting it would enlarge the data), the transpose under it moves
func.func @mixed(%x: tensor<4x8xf32>, %a: tensor<8x4xf32> {asctensor.constant}, %b: tensor<4x8xf32> {asctensor.constant}) -> tensor<4x8xf32> {
  %0 = asctensor.transpose %a permutation = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %1 = asctensor.slice %0 offsets [0, 0] : tensor<4x8xf32> -> tensor<1x8xf32>
  %2 = asctensor.broadcast %1 : tensor<1x8xf32> -> tensor<4x8xf32>
  %3 = arith.mulf %x, %2 : tensor<4x8xf32>
  %4 = asctensor.full 3.000000e+00 : f32 -> tensor<4x8xf32>
  %5 = arith.mulf %3, %4 : tensor<4x8xf32>
  %6 = arith.addf %5, %b : tensor<4x8xf32>
  func.return %6 : tensor<4x8xf32>
}

// CHECK:       func.func private @mixed_constants(%a: tensor<8x4xf32> {asctensor.constant}, %b: tensor<4x8xf32> {asctensor.constant}) -> (tensor<4x8xf32>, tensor<1x8xf32>) attributes {asctensor.constants_of = "mixed"} {
// CHECK-NEXT:    %[[T:.*]] = asctensor.transpose %a permutation = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = asctensor.slice %[[T]] offsets [0, 0] : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %b, %[[S]] : tensor<4x8xf32>, tensor<1x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @mixed(%x: tensor<4x8xf32>, %b: tensor<4x8xf32> {asctensor.constant}, %folded0: tensor<1x8xf32> {asctensor.constant}) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[B:.*]] = asctensor.broadcast %folded0 : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %[[B]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.*]] = asctensor.full 3.000000e+00 : f32 -> tensor<4x8xf32>
// CHECK-NEXT:    %[[M2:.*]] = arith.mulf %[[M]], %[[F]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[M2]], %b : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<4x8xf32>

// no constant parameters: nothing moves
func.func @plain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = asctensor.full 2.000000e+00 : f32 -> tensor<8xf32>
  %1 = arith.mulf %0, %0 : tensor<8xf32>
  %2 = arith.addf %x, %1 : tensor<8xf32>
  func.return %2 : tensor<8xf32>
}

// CHECK-NOT:   @plain_constants
// CHECK:       func.func @plain(%x: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    asctensor.full
// CHECK-NEXT:    arith.mulf

// what splats alone give stays in the program (a kernel builds it); the constants function
// computes its own copy for the constant it feeds
func.func @splats(%x: tensor<8xf32>, %k: tensor<8xf32> {asctensor.constant}) -> tensor<8xf32> {
  %0 = asctensor.full 2.000000e+00 : f32 -> tensor<8xf32>
  %1 = arith.mulf %0, %0 : tensor<8xf32>
  %2 = arith.addf %k, %1 : tensor<8xf32>
  %3 = arith.mulf %x, %2 : tensor<8xf32>
  %4 = arith.addf %3, %1 : tensor<8xf32>
  func.return %4 : tensor<8xf32>
}

// CHECK:       func.func private @splats_constants(%k: tensor<8xf32> {asctensor.constant}) -> tensor<8xf32> attributes {asctensor.constants_of = "splats"} {
// CHECK-NEXT:    %[[F:.*]] = asctensor.full 2.000000e+00 : f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.mulf %[[F]], %[[F]] : tensor<8xf32>
// CHECK-NEXT:    %[[K:.*]] = arith.addf %k, %[[S]] : tensor<8xf32>
// CHECK-NEXT:    func.return %[[K]] : tensor<8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @splats(%x: tensor<8xf32>, %folded0: tensor<8xf32> {asctensor.constant}) -> tensor<8xf32> {
// CHECK-NEXT:    %[[F2:.*]] = asctensor.full 2.000000e+00 : f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[S2:.*]] = arith.mulf %[[F2]], %[[F2]] : tensor<8xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %folded0 : tensor<8xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[M]], %[[S2]] : tensor<8xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<8xf32>

// a mask made from a constant bool tensor (``where(causal, -inf, x)`` decomposed) is computed on the host:
// the compare and the select of constants move, the select on the data stays
func.func @masked(%x: tensor<7x7xf16>, %causal: tensor<7x7xi1> {asctensor.constant}) -> tensor<7x7xf16> {
  %one = asctensor.full 1.000000e+00 : f16 -> tensor<7x7xf16>
  %zero = asctensor.full 0.000000e+00 : f16 -> tensor<7x7xf16>
  %m = asctensor.select %causal, %one, %zero : tensor<7x7xi1>, tensor<7x7xf16>
  %c = asctensor.compare ne %m, %zero : tensor<7x7xf16> -> tensor<7x7xi1>
  %inf = asctensor.full 0xfc00 : f16 -> tensor<7x7xf16>
  %y = asctensor.select %c, %inf, %x : tensor<7x7xi1>, tensor<7x7xf16>
  func.return %y : tensor<7x7xf16>
}
// CHECK:       func.func private @masked_constants(%causal: tensor<7x7xi1> {asctensor.constant}) -> tensor<7x7xi1> attributes {asctensor.constants_of = "masked"} {
// CHECK:         %[[M:.*]] = asctensor.select %causal
// CHECK:         %[[C:.*]] = asctensor.compare ne %[[M]]
// CHECK:         func.return %[[C]] : tensor<7x7xi1>
// CHECK:       func.func @masked(%x: tensor<7x7xf16>, %folded0: tensor<7x7xi1> {asctensor.constant}) -> tensor<7x7xf16> {
// CHECK:         %[[Y:.*]] = asctensor.select %folded0, %{{.*}}, %x
// CHECK-NEXT:    func.return %[[Y]]

// a kernel called on constants only, whose ops the host evaluates (the phases of a weight, an im2col kernel of
// asctensor-fuse-matmul's): inlined, then hoisted with the rest; the kernel goes with its last call
func.func @phases_im2col0(%w: tensor<4x3x3x3xf32>) -> tensor<4x12x4xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %w kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<4x3x3x3xf32> -> tensor<4x12x4xf32>
  func.return %0 : tensor<4x12x4xf32>
}
func.func @phases(%x: tensor<4x12x4xf32>, %w: tensor<4x3x3x3xf32> {asctensor.constant}) -> tensor<4x12x4xf32> {
  %0 = func.call @phases_im2col0(%w) : (tensor<4x3x3x3xf32>) -> tensor<4x12x4xf32>
  %1 = arith.addf %x, %0 : tensor<4x12x4xf32>
  func.return %1 : tensor<4x12x4xf32>
}

// CHECK-NOT:   func.func @phases_im2col0
// CHECK:       func.func private @phases_constants(%w: tensor<4x3x3x3xf32> {asctensor.constant}) -> tensor<4x12x4xf32> attributes {asctensor.constants_of = "phases"} {
// CHECK-NEXT:    %[[P:.*]] = asctensor.im2col %w kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<4x3x3x3xf32> -> tensor<4x12x4xf32>
// CHECK-NEXT:    func.return %[[P]] : tensor<4x12x4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @phases(%x: tensor<4x12x4xf32>, %folded0: tensor<4x12x4xf32> {asctensor.constant}) -> tensor<4x12x4xf32> {
// CHECK-NEXT:    %[[S:.*]] = arith.addf %x, %folded0 : tensor<4x12x4xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<4x12x4xf32>
