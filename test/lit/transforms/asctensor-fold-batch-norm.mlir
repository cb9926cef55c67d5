// RUN: pyasc-opt %s -p asctensor-fold-batch-norm | filecheck %s

// conv2d(x, W, b) * k + c with per-channel constants k, c: conv2d(x, W * k, b * k + c)
func.func @conv(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32> {asctensor.constant}, %b: tensor<8xf32> {asctensor.constant}, %k: tensor<8x1x1xf32> {asctensor.constant}, %c: tensor<8x1x1xf32> {asctensor.constant}) -> tensor<2x8x8x8xf32> {
  %0 = asctensor.conv2d %x, %w bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32> -> tensor<2x8x8x8xf32>
  %1 = asctensor.broadcast %k : tensor<8x1x1xf32> -> tensor<2x8x8x8xf32>
  %2 = arith.mulf %0, %1 : tensor<2x8x8x8xf32>
  %3 = asctensor.broadcast %c : tensor<8x1x1xf32> -> tensor<2x8x8x8xf32>
  %4 = arith.addf %3, %2 : tensor<2x8x8x8xf32>
  func.return %4 : tensor<2x8x8x8xf32>
}

// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    %[[K:.*]] = asctensor.reshape %k : tensor<8x1x1xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[K4:.*]] = asctensor.reshape %[[K]] : tensor<8xf32> -> tensor<8x1x1x1xf32>
// CHECK-NEXT:    %[[KW:.*]] = asctensor.broadcast %[[K4]] : tensor<8x1x1x1xf32> -> tensor<8x4x3x3xf32>
// CHECK-NEXT:    %[[W:.*]] = arith.mulf %w, %[[KW]] : tensor<8x4x3x3xf32>
// CHECK-NEXT:    %[[BK:.*]] = arith.mulf %b, %[[K]] : tensor<8xf32>
// CHECK-NEXT:    %[[C:.*]] = asctensor.reshape %c : tensor<8x1x1xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.addf %[[BK]], %[[C]] : tensor<8xf32>
// CHECK-NEXT:    %[[R:.*]] = asctensor.conv2d %x, %[[W]] bias %[[B]] stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
// CHECK-NEXT:    func.return %[[R]] : tensor<2x8x8x8xf32>

// linear (W is N x K) then a per-column scale of rank 1 and a splat shift: the bias is the splat
func.func @linear(%x: tensor<4x16xf16>, %w: tensor<8x16xf16> {asctensor.constant}, %k: tensor<8xf16> {asctensor.constant}) -> tensor<4x8xf16> {
  %0 = asctensor.matmul %x, %w transpose_b : tensor<4x16xf16>, tensor<8x16xf16> -> tensor<4x8xf16>
  %1 = asctensor.broadcast %k : tensor<8xf16> -> tensor<4x8xf16>
  %2 = arith.mulf %1, %0 : tensor<4x8xf16>
  %3 = asctensor.full 5.000000e-01 : f16 -> tensor<4x8xf16>
  %4 = arith.subf %2, %3 : tensor<4x8xf16>
  func.return %4 : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @linear(
// CHECK-NEXT:    %[[K2:.*]] = asctensor.reshape %k : tensor<8xf16> -> tensor<8x1xf16>
// CHECK-NEXT:    %[[KW:.*]] = asctensor.broadcast %[[K2]] : tensor<8x1xf16> -> tensor<8x16xf16>
// CHECK-NEXT:    %[[W:.*]] = arith.mulf %w, %[[KW]] : tensor<8x16xf16>
// CHECK-NEXT:    %[[S:.*]] = asctensor.full 5.000000e-01 : f16 -> tensor<8xf16>
// CHECK-NEXT:    %[[B:.*]] = arith.negf %[[S]] : tensor<8xf16>
// CHECK-NEXT:    %[[R:.*]] = asctensor.matmul %x, %[[W]] bias %[[B]] transpose_b : tensor<4x16xf16>, tensor<8x16xf16>, tensor<8xf16> -> tensor<4x8xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x8xf16>

// no fold: the convolution's result has another use, the scale varies along H, W is computed
func.func @kept(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32> {asctensor.constant}, %k: tensor<2x4x1xf32> {asctensor.constant}, %v: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = asctensor.full 2.000000e+00 : f32 -> tensor<1x2x4x4xf32>
  %2 = arith.mulf %0, %1 : tensor<1x2x4x4xf32>
  %3 = arith.addf %2, %0 : tensor<1x2x4x4xf32>
  %4 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %5 = asctensor.broadcast %k : tensor<2x4x1xf32> -> tensor<1x2x4x4xf32>
  %6 = arith.mulf %4, %5 : tensor<1x2x4x4xf32>
  %7 = asctensor.conv2d %x, %v stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %8 = arith.mulf %7, %1 : tensor<1x2x4x4xf32>
  func.return %3, %6, %8 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @kept(
// CHECK-NEXT:    %[[C0:.*]] = asctensor.conv2d %x, %w stride
// CHECK-NEXT:    %[[F:.*]] = asctensor.full
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[C0]], %[[F]]
// CHECK-NEXT:    %{{.*}} = arith.addf
// CHECK-NEXT:    %[[C1:.*]] = asctensor.conv2d %x, %w stride
// CHECK-NEXT:    %[[KB:.*]] = asctensor.broadcast %k
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[C1]], %[[KB]]
// CHECK-NEXT:    %[[C2:.*]] = asctensor.conv2d %x, %v stride
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[C2]], %[[F]]

// matmul(x, W) with W as K x N and a bias, a scale of shape 1 x N, a shift subtracted
func.func @matmul(%x: tensor<2x4x16xf32>, %w: tensor<16x8xf32> {asctensor.constant}, %b: tensor<8xf32> {asctensor.constant}, %k: tensor<1x8xf32> {asctensor.constant}, %c: tensor<8xf32> {asctensor.constant}) -> tensor<2x4x8xf32> {
  %0 = asctensor.matmul %x, %w bias %b : tensor<2x4x16xf32>, tensor<16x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  %1 = asctensor.broadcast %k : tensor<1x8xf32> -> tensor<2x4x8xf32>
  %2 = arith.mulf %0, %1 : tensor<2x4x8xf32>
  %3 = asctensor.broadcast %c : tensor<8xf32> -> tensor<2x4x8xf32>
  %4 = arith.subf %2, %3 : tensor<2x4x8xf32>
  func.return %4 : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %[[K:.*]] = asctensor.reshape %k : tensor<1x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[KW:.*]] = asctensor.broadcast %[[K]] : tensor<8xf32> -> tensor<16x8xf32>
// CHECK-NEXT:    %[[W:.*]] = arith.mulf %w, %[[KW]] : tensor<16x8xf32>
// CHECK-NEXT:    %[[BK:.*]] = arith.mulf %b, %[[K]] : tensor<8xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.subf %[[BK]], %c : tensor<8xf32>
// CHECK-NEXT:    %[[R:.*]] = asctensor.matmul %x, %[[W]] bias %[[B]] : tensor<2x4x16xf32>, tensor<16x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<2x4x8xf32>
