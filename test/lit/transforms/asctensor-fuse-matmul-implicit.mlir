// RUN: pyasc-opt %s -p 'asctensor-fuse-matmul{conv=implicit_gemm}' | filecheck %s
// RUN: pyasc-opt %s -p asctensor-fuse-matmul | filecheck %s --check-prefix=AUTO

// an implicit GEMM (2- or 4-byte elements, one group; lowering/analysis/conv.py): the input made NHWC, the weights
// as (OC, K) in Load3Dv2's K order (channel block, kh, kw, channel) broadcast over the batch and read in place, times
// the patches (im2col_nhwc, read by the cube kernel in place) as B^T: the product is NCHW, no transpose back
func.func @implicit(%x: tensor<2x16x8x8xf16>, %w: tensor<32x16x3x3xf16>) -> tensor<2x32x8x8xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<32x16x3x3xf16> -> tensor<2x32x8x8xf16>
  func.return %0 : tensor<2x32x8x8xf16>
}
// CHECK:      func.func @implicit_mm{{[0-9]+}}(%{{.*}}: tensor<32x1x3x3x16xf16>, %{{.*}}: tensor<2x8x8x16xf16>) -> tensor<2x32x8x8xf16> attributes {asctensor.kernel = "matmul"}
// CHECK-NEXT:   %[[W:.*]] = asctensor.reshape %{{.*}} : tensor<32x1x3x3x16xf16> -> tensor<1x1x32x144xf16>
// CHECK-NEXT:   %[[WB:.*]] = asctensor.broadcast %[[W]] : tensor<1x1x32x144xf16> -> tensor<2x1x32x144xf16>
// CHECK-NEXT:   %[[A:.*]] = asctensor.reshape %[[WB]] : tensor<2x1x32x144xf16> -> tensor<2x32x144xf16>
// CHECK-NEXT:   %[[B:.*]] = asctensor.im2col_nhwc %{{.*}} kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf16> -> tensor<2x64x144xf16>
// CHECK-NEXT:   %[[P:.*]] = asctensor.matmul %[[A]], %[[B]] transpose_b : tensor<2x32x144xf16>, tensor<2x64x144xf16> -> tensor<2x32x64xf16>
// CHECK-NEXT:   asctensor.reshape %[[P]] : tensor<2x32x64xf16> -> tensor<2x32x8x8xf16>
// CHECK:      func.func @implicit(
// CHECK-NEXT:   asctensor.transpose %x permutation = [0, 2, 3, 1]
// CHECK-NEXT:   asctensor.reshape %w : tensor<32x16x3x3xf16> -> tensor<32x1x16x3x3xf16>
// CHECK-NEXT:   asctensor.transpose %{{.*}} permutation = [0, 1, 3, 4, 2]
// CHECK-NEXT:   %[[R:.*]] = func.call @implicit_mm
// CHECK-NEXT:   func.return %[[R]] : tensor<2x32x8x8xf16>

// 3 input channels: the weights' channels are padded with zeros to one 16-channel block (written out, then
// joined by a concat); the patches' channels past 3 are the zeros ND2NZ pads each pixel's row with in L1
func.func @implicit_c3(%x: tensor<1x3x10x10xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x5x5xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x3x10x10xf16>, tensor<4x3x3x3xf16> -> tensor<1x4x5x5xf16>
  func.return %0 : tensor<1x4x5x5xf16>
}
// CHECK:      func.func @implicit_c3_mm{{[0-9]+}}(
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<1x10x10x3xf16> -> tensor<1x25x144xf16>
// CHECK:      func.func @implicit_c3(
// CHECK:        %[[Z:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<4x13x3x3xf16>
// CHECK-NEXT:   asctensor.concat %w, %[[Z]] dim = 1 : tensor<4x3x3x3xf16>, tensor<4x13x3x3xf16> -> tensor<4x16x3x3xf16>

// float32: C0 = 8 channels per block (32 B), the channels still padded to 16-channel groups (a K step of the cube
// is 16 columns): 28 channels become 4 blocks of 8, K = 4 * 9 * 8 = 288
func.func @implicit_f32(%x: tensor<1x28x6x6xf32>, %w: tensor<8x28x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x28x6x6xf32>, tensor<8x28x3x3xf32> -> tensor<1x8x6x6xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}
// CHECK:      func.func @implicit_f32_mm{{[0-9]+}}(%{{.*}}: tensor<8x4x3x3x8xf32>, %{{.*}}: tensor<1x6x6x28xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:   asctensor.reshape %{{.*}} : tensor<8x4x3x3x8xf32> -> tensor<1x1x8x288xf32>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<1x6x6x28xf32> -> tensor<1x36x288xf32>
// CHECK:      func.func @implicit_f32(
// CHECK:        asctensor.concat %w, %{{.*}} dim = 1 : tensor<8x28x3x3xf32>, tensor<8x4x3x3xf32> -> tensor<8x32x3x3xf32>
// CHECK-NEXT:   asctensor.reshape %{{.*}} : tensor<8x32x3x3xf32> -> tensor<8x4x8x3x3xf32>

// float32 with 8 channels: one 16-channel group, of which the second block of 8 holds no channel (the kernel
// zeroes it in L1, see pipelines/cube/implicit-gemm-f32.mlir); the weights are padded to 16 channels
func.func @implicit_f32_c8(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}
// CHECK:      func.func @implicit_f32_c8_mm{{[0-9]+}}(%{{.*}}: tensor<8x2x3x3x8xf32>, %{{.*}}: tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
// CHECK:        asctensor.im2col_nhwc %{{.*}} : tensor<1x6x6x8xf32> -> tensor<1x36x144xf32>

// conv=auto takes the implicit GEMM where its input transpose (and, when C is not whole 16-channel groups, the
// channels the cube multiplies by zero weights and the two launches that write them) is estimated to cost less
// than the im2col path's column matrix (lowering/analysis/conv.py): for @implicit (its column matrix is 9 times
// the input) and a 3x3, 256-channel convolution over a batch of 8 56x56 images, not for the 3-channel one
func.func @large(%x: tensor<8x256x56x56xf16>, %w: tensor<256x256x3x3xf16>) -> tensor<8x256x56x56xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<8x256x56x56xf16>, tensor<256x256x3x3xf16> -> tensor<8x256x56x56xf16>
  func.return %0 : tensor<8x256x56x56xf16>
}
// AUTO:     func.func @implicit_mm{{[0-9]+}}(
// AUTO:       asctensor.im2col_nhwc
// AUTO:     func.func @implicit_c3_im2col{{[0-9]+}}(
// AUTO-NOT: @large_im2col
// AUTO:     func.func @large_mm{{[0-9]+}}(
// AUTO:       asctensor.im2col_nhwc
// CHECK:    func.func @large_mm{{[0-9]+}}(
// CHECK:      asctensor.im2col_nhwc

// a convolution whose output reaches another one (here through a bias and a ReLU) has an NHWC product: the patches
// are A (formed in L0A), times the weights as B^T, one (OC, K) matrix for every image; the product (N, OH*OW, OC)
// is transposed back to NCHW for its users, and its epilogue, rewritten onto (N, OH*OW, OC) with the bias per
// column, joins it in a MIX kernel. The second convolution keeps the NCHW product (its output is returned)
func.func @chain(%x: tensor<2x16x8x8xf16>, %w1: tensor<16x16x3x3xf16>, %b: tensor<16xf16>, %w2: tensor<16x16x3x3xf16>) -> tensor<2x16x8x8xf16> {
  %0 = asctensor.conv2d %x, %w1 bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x3x3xf16>, tensor<16xf16> -> tensor<2x16x8x8xf16>
  %z = asctensor.full 0.0 : f16 -> tensor<2x16x8x8xf16>
  %1 = arith.maximumf %0, %z : tensor<2x16x8x8xf16>
  %2 = asctensor.conv2d %1, %w2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x3x3xf16> -> tensor<2x16x8x8xf16>
  func.return %2 : tensor<2x16x8x8xf16>
}
// CHECK:      func.func @chain_mm{{[0-9]+}}(%{{.*}}: tensor<16x1x3x3x16xf16>, %{{.*}}: tensor<2x8x8x16xf16>, %{{.*}}: tensor<16xf16>) -> (tensor<2x64x16xf16>, tensor<2x64x16xf16>) attributes {asctensor.kernel = "mix"}
// CHECK-NEXT:   %[[W:.*]] = asctensor.reshape %{{.*}} : tensor<16x1x3x3x16xf16> -> tensor<16x144xf16>
// CHECK-NEXT:   %[[A:.*]] = asctensor.im2col_nhwc %{{.*}} kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf16> -> tensor<2x64x144xf16>
// CHECK-NEXT:   %[[P:.*]] = asctensor.matmul %[[A]], %[[W]] transpose_b : tensor<2x64x144xf16>, tensor<16x144xf16> -> tensor<2x64x16xf16>
// CHECK:        asctensor.reshape %{{.*}} : tensor<16x1x1xf16> -> tensor<1x1x16xf16>
// CHECK-NEXT:   asctensor.broadcast %{{.*}} : tensor<1x1x16xf16> -> tensor<2x64x16xf16>
// CHECK-NEXT:   arith.addf %[[P]], %{{.*}} : tensor<2x64x16xf16>
// CHECK:        arith.maximumf %{{.*}}, %{{.*}} : tensor<2x64x16xf16>
// CHECK:      func.func @chain_mm{{[0-9]+}}(%{{.*}}: tensor<16x1x3x3x16xf16>, %{{.*}}: tensor<2x8x8x16xf16>) -> tensor<2x16x8x8xf16> attributes {asctensor.kernel = "matmul"}
// CHECK:        asctensor.matmul %{{.*}}, %{{.*}} transpose_b : tensor<2x16x144xf16>, tensor<2x64x144xf16> -> tensor<2x16x64xf16>
// CHECK:      func.func @chain(
// CHECK:        %[[WS:.*]], %[[Y:.*]] = func.call @chain_mm
// CHECK-NEXT:   %[[Y4:.*]] = asctensor.reshape %[[Y]] : tensor<2x64x16xf16> -> tensor<2x8x8x16xf16>
// CHECK-NEXT:   %[[YT:.*]] = asctensor.transpose %[[Y4]] permutation = [0, 3, 1, 2]
// CHECK:        asctensor.transpose %[[YT]] permutation = [0, 2, 3, 1]
