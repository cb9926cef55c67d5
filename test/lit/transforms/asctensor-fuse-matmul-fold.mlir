// RUN: pyasc-opt %s -p asctensor-fuse-matmul | filecheck %s

// The float32 ResNet stem at batch 8 would go through its column matrix (49 times the input: the implicit GEMM's
// 8-channel blocks over 3 channels lose to it). Space to depth instead: the 2x2 phases of its stride are the patches
// of 2x2 windows at stride 2 (im2col) of the image padded by 3 + 1, 12 channels of 116 x 116, of which an output
// reads 115 x 115; the weights' phases are those of the weights padded by 1 (the kernel shifted by one, so that 4
// windows cover its 7 taps). The convolution is a 4x4 one with stride 1 and no padding, an implicit GEMM over the
// 12 channels as NHWC
func.func @stem_f32(%x: tensor<8x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<8x64x112x112xf32> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf32>, tensor<64x3x7x7xf32> -> tensor<8x64x112x112xf32>
  func.return %0 : tensor<8x64x112x112xf32>
}
// CHECK:      func.func @stem_f32_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [2, 2] stride [2, 2] padding [4, 4] dilation [1, 1] groups 1 : tensor<8x3x224x224xf32> -> tensor<8x12x13456xf32>
// CHECK:      func.func @stem_f32_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<64x3x7x7xf32> -> tensor<64x12x16xf32>
// CHECK:      func.func @stem_f32_mm{{[0-9]+}}(%{{.*}}: tensor<64x2x4x4x8xf32>, %{{.*}}: tensor<8x115x115x12xf32>) -> tensor<8x64x112x112xf32>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [4, 4] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<8x115x115x12xf32> -> tensor<8x12544x256xf32>
// CHECK:      func.func @stem_f32(
// CHECK:        asctensor.slice %{{.*}} offsets [0, 0, 0, 0] : tensor<8x12x116x116xf32> -> tensor<8x12x115x115xf32>
// CHECK:        asctensor.transpose %{{.*}} permutation = [0, 2, 3, 1] : tensor<8x12x115x115xf32> -> tensor<8x115x115x12xf32>

// In float16 too: the cube computes 16 x 16 products per output, against 16 x 49 over the 3 channels padded to a
// 16-channel block
func.func @stem_f16(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16> -> tensor<8x64x112x112xf16>
  func.return %0 : tensor<8x64x112x112xf16>
}
// CHECK:      func.func @stem_f16_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [2, 2] stride [2, 2] padding [4, 4] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16> -> tensor<8x12x13456xf16>
// CHECK:      func.func @stem_f16_mm{{[0-9]+}}(%{{.*}}: tensor<64x1x4x4x16xf16>, %{{.*}}: tensor<8x115x115x12xf16>) -> tensor<8x64x112x112xf16>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [4, 4] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<8x115x115x12xf16> -> tensor<8x12544x256xf16>

// With stride 1 there are no phases: the kernel columns fold into the channels instead. The patches of its kernel
// rows (im2col with kernel (1, 7), padding (0, 3)) are a 21-channel input, NHWC for the cube, and the weights
// (oc, kw, c, kh) a (7, 1) kernel: 32 x 7 products per output against 16 x 49
func.func @wide_f16(%x: tensor<8x3x64x64xf16>, %w: tensor<32x3x7x7xf16>) -> tensor<8x32x64x64xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x64x64xf16>, tensor<32x3x7x7xf16> -> tensor<8x32x64x64xf16>
  func.return %0 : tensor<8x32x64x64xf16>
}
// CHECK:      func.func @wide_f16_im2col{{[0-9]+}}(
// CHECK-NEXT:   asctensor.im2col %{{.*}} kernel [1, 7] stride [1, 1] padding [0, 3] dilation [1, 1] groups 1 : tensor<8x3x64x64xf16> -> tensor<8x21x4096xf16>
// CHECK:      func.func @wide_f16_mm{{[0-9]+}}(%{{.*}}: tensor<32x2x7x1x16xf16>, %{{.*}}: tensor<8x64x64x21xf16>) -> tensor<8x32x64x64xf16>
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [7, 1] stride [1, 1] padding [3, 0] dilation [1, 1] : tensor<8x64x64x21xf16> -> tensor<8x4096x224xf16>
// CHECK:      func.func @wide_f16(
// CHECK:        asctensor.transpose %{{.*}} permutation = [0, 3, 1, 2] : tensor<32x3x7x7xf16> -> tensor<32x7x3x7xf16>
// CHECK:        asctensor.transpose %{{.*}} permutation = [0, 2, 3, 1] : tensor<8x21x64x64xf16> -> tensor<8x64x64x21xf16>
