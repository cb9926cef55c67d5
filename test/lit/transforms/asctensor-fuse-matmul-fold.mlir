// RUN: pyasc-opt %s -p asctensor-fuse-matmul | filecheck %s

// The float32 ResNet stem at batch 8 would go through its column matrix (49 times the input: the implicit GEMM's
// 8-channel blocks over 3 channels lose to it): its kernel columns fold into its channels instead. The patches of
// its kernel rows (im2col with kernel (1, 7), stride (1, 2), padding (0, 3)) are a 21-channel input, NHWC for
// the cube, and the weights (oc, kw, c, kh) a (7, 1) kernel; the folded convolution is an implicit GEMM with
// stride (2, 1) and padding (3, 0)
func.func @stem_f32(%x: tensor<8x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<8x64x112x112xf32> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf32>, tensor<64x3x7x7xf32> -> tensor<8x64x112x112xf32>
  func.return %0 : tensor<8x64x112x112xf32>
}
// CHECK:      func.func @stem_f32_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [1, 7] stride [1, 2] padding [0, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf32> -> tensor<8x21x25088xf32>
// CHECK:      func.func @stem_f32_mm{{[0-9]+}}(%{{.*}}: tensor<64x4x7x1x8xf32>, %{{.*}}: tensor<8x224x112x21xf32>) -> tensor<8x64x112x112xf32>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [7, 1] stride [2, 1] padding [3, 0] dilation [1, 1] : tensor<8x224x112x21xf32> -> tensor<8x12544x224xf32>
// CHECK:      func.func @stem_f32(
// CHECK:        asctensor.transpose %{{.*}} permutation = [0, 3, 1, 2] : tensor<64x3x7x7xf32> -> tensor<64x7x3x7xf32>
// CHECK:        asctensor.transpose %{{.*}} permutation = [0, 2, 3, 1] : tensor<8x21x224x112xf32> -> tensor<8x224x112x21xf32>

// In float16 the stem folds too: an implicit GEMM over its 3 channels padded to a 16-channel block computes 16 x 49
// products per output, the folded one 32 x 7 (21 channels in two blocks)
func.func @stem_f16(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16> -> tensor<8x64x112x112xf16>
  func.return %0 : tensor<8x64x112x112xf16>
}
// CHECK:      func.func @stem_f16_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [1, 7] stride [1, 2] padding [0, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16> -> tensor<8x21x25088xf16>
// CHECK:      func.func @stem_f16_mm{{[0-9]+}}(%{{.*}}: tensor<64x2x7x1x16xf16>, %{{.*}}: tensor<8x224x112x21xf16>) -> tensor<8x64x112x112xf16>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [7, 1] stride [2, 1] padding [3, 0] dilation [1, 1] : tensor<8x224x112x21xf16> -> tensor<8x12544x224xf16>
