// RUN: pyasc-opt %s -p asctensor-fuse-conv-weights | filecheck %s

// A stem whose weights are an argument: kernels of their own lay them out for the cube (the im2col over the
// stride's phases, zero channels, a transpose). The chain becomes a row_gather at the start of the conv_prologue
// kernel, which takes the weights and a lifted table (one row: the position each of the 256 columns takes in a
// row of 160 elements, 147 weights and their zeros) and returns the laid-out weights after its workspace; the
// layout kernels go.
func.func @lambda_im2col1(%w: tensor<32x3x7x7xf16>) -> tensor<32x12x16xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %w kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<32x3x7x7xf16> -> tensor<32x12x16xf16>
  func.return %0 : tensor<32x12x16xf16>
}
func.func @lambda_mm2(%0: tensor<32x1x4x4x16xf16>, %1: tensor<1x3x64x64xf16>) -> (tensor<1x35x35x12xf16>, tensor<1x32x32x32xf16>) attributes {asctensor.kernel = "conv_prologue"} {
  %2 = asctensor.im2col %1 kernel [2, 2] stride [2, 2] padding [4, 4] dilation [1, 1] groups 1 : tensor<1x3x64x64xf16> -> tensor<1x12x1296xf16>
  %3 = asctensor.reshape %2 : tensor<1x12x1296xf16> -> tensor<1x12x36x36xf16>
  %4 = asctensor.slice %3 offsets [0, 0, 0, 0] : tensor<1x12x36x36xf16> -> tensor<1x12x35x35xf16>
  %5 = asctensor.transpose %4 permutation = [0, 2, 3, 1] : tensor<1x12x35x35xf16> -> tensor<1x35x35x12xf16>
  %6 = asctensor.reshape %0 : tensor<32x1x4x4x16xf16> -> tensor<1x1x32x256xf16>
  %7 = asctensor.broadcast %6 : tensor<1x1x32x256xf16> -> tensor<1x1x32x256xf16>
  %8 = asctensor.reshape %7 : tensor<1x1x32x256xf16> -> tensor<1x32x256xf16>
  %9 = asctensor.im2col_nhwc %5 kernel [4, 4] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x35x35x12xf16> -> tensor<1x1024x256xf16>
  %10 = asctensor.matmul %8, %9 transpose_b : tensor<1x32x256xf16>, tensor<1x1024x256xf16> -> tensor<1x32x1024xf16>
  %11 = asctensor.reshape %10 : tensor<1x32x1024xf16> -> tensor<1x32x32x32xf16>
  func.return %5, %11 : tensor<1x35x35x12xf16>, tensor<1x32x32x32xf16>
}
func.func @lambda_k1() -> tensor<32x4x4x4xf16> attributes {asctensor.kernel = "elementwise"} {
  %0 = asctensor.full 0.000000e+00 : f16 -> tensor<32x4x4x4xf16>
  %1 = asctensor.full 1.000000e+00 : f16 -> tensor<32x4x4x4xf16>
  %2 = arith.mulf %0, %1 : tensor<32x4x4x4xf16>
  func.return %2 : tensor<32x4x4x4xf16>
}
func.func @lambda_k2(%0: tensor<32x12x16xf16>, %1: tensor<32x4x4x4xf16>) -> tensor<32x16x4x4xf16> attributes {asctensor.kernel = "movement"} {
  %2 = asctensor.reshape %0 : tensor<32x12x16xf16> -> tensor<32x12x4x4xf16>
  %3 = asctensor.concat %2, %1 dim = 1 : tensor<32x12x4x4xf16>, tensor<32x4x4x4xf16> -> tensor<32x16x4x4xf16>
  func.return %3 : tensor<32x16x4x4xf16>
}
func.func @lambda_k3(%0: tensor<32x16x4x4xf16>) -> tensor<32x1x4x4x16xf16> attributes {asctensor.kernel = "movement"} {
  %1 = asctensor.reshape %0 : tensor<32x16x4x4xf16> -> tensor<32x1x16x4x4xf16>
  %2 = asctensor.transpose %1 permutation = [0, 1, 3, 4, 2] : tensor<32x1x16x4x4xf16> -> tensor<32x1x4x4x16xf16>
  func.return %2 : tensor<32x1x4x4x16xf16>
}
func.func @lambda(%x: tensor<1x3x64x64xf16>, %w: tensor<32x3x7x7xf16>) -> tensor<1x32x32x32xf16> {
  %0 = func.call @lambda_im2col1(%w) : (tensor<32x3x7x7xf16>) -> tensor<32x12x16xf16>
  %1 = func.call @lambda_k1() : () -> tensor<32x4x4x4xf16>
  %2 = func.call @lambda_k2(%0, %1) : (tensor<32x12x16xf16>, tensor<32x4x4x4xf16>) -> tensor<32x16x4x4xf16>
  %3 = func.call @lambda_k3(%2) : (tensor<32x16x4x4xf16>) -> tensor<32x1x4x4x16xf16>
  %workspace, %4 = func.call @lambda_mm2(%3, %x) : (tensor<32x1x4x4x16xf16>, tensor<1x3x64x64xf16>) -> (tensor<1x35x35x12xf16>, tensor<1x32x32x32xf16>)
  func.return %4 : tensor<1x32x32x32xf16>
}

// CHECK:      func.func @lambda_mm2(%weights: tensor<32x3x7x7xf16>, %0: tensor<1x3x64x64xf16>, %weight_table: tensor<1x256xi32>) -> (tensor<1x35x35x12xf16>, tensor<32x1x4x4x16xf16>, tensor<1x32x32x32xf16>) attributes {asctensor.kernel = "conv_prologue"} {
// CHECK:        %[[T:.*]] = asctensor.transpose
// CHECK-NEXT:   %[[W:.*]] = asctensor.reshape %weights : tensor<32x3x7x7xf16> -> tensor<32x147xf16>
// CHECK-NEXT:   %[[G:.*]] = asctensor.row_gather %[[W]], %weight_table pitch 160 : tensor<32x147xf16>, tensor<1x256xi32> -> tensor<32x256xf16>
// CHECK-NEXT:   %[[L:.*]] = asctensor.reshape %[[G]] : tensor<32x256xf16> -> tensor<32x1x4x4x16xf16>
// CHECK:        func.return %[[T]], %[[L]], %{{.*}} : tensor<1x35x35x12xf16>, tensor<32x1x4x4x16xf16>, tensor<1x32x32x32xf16>
// CHECK-NOT:  @lambda_im2col1
// CHECK-NOT:  @lambda_k
// CHECK:      func.func @lambda(%x: tensor<1x3x64x64xf16>, %w: tensor<32x3x7x7xf16>, %weight_table: tensor<1x256xi32> {asctensor.lifted = dense<{{.*}}> : tensor<1x256xi32>})
// CHECK-NEXT:   %workspace, %laid_weights, %{{.*}} = func.call @lambda_mm2(%w, %x, %weight_table)
