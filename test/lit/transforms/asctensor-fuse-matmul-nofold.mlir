// RUN: pyasc-opt %s -p 'asctensor-fuse-matmul{conv=implicit_gemm}' | filecheck %s

// conv=implicit_gemm takes the convolution as an implicit GEMM as written when it can run as one: the float16 stem
// over its 3 channels padded to a 16-channel block, with no fold
func.func @stem_f16(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16> -> tensor<8x64x112x112xf16>
  func.return %0 : tensor<8x64x112x112xf16>
}
// CHECK:      func.func @stem_f16_mm{{[0-9]+}}(
// CHECK:        asctensor.im2col_nhwc %{{.*}} kernel [7, 7] stride [2, 2] padding [3, 3] dilation [1, 1] : tensor<8x224x224x3xf16> -> tensor<8x12544x784xf16>
// CHECK-NOT:  asctensor.im2col %{{.*}} kernel [1, 7]
