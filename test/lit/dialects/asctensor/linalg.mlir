// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @mm(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %bias: tensor<48xf32>, %w: tensor<48x32xf16>) {
  %0 = asctensor.matmul %a, %b bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<48xf32> -> tensor<64x48xf16>
  %1 = asctensor.matmul %a, %w transpose_b : tensor<64x32xf16>, tensor<48x32xf16> -> tensor<64x48xf32>
  %2 = asctensor.matmul %a, %a transpose_a : tensor<64x32xf16>, tensor<64x32xf16> -> tensor<32x32xbf16>
  func.return
}
// CHECK-LABEL: func.func @mm
// CHECK: asctensor.matmul %a, %b bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<48xf32> -> tensor<64x48xf16>
// CHECK: asctensor.matmul %a, %w transpose_b : tensor<64x32xf16>, tensor<48x32xf16> -> tensor<64x48xf32>
// CHECK: asctensor.matmul %a, %a transpose_a : tensor<64x32xf16>, tensor<64x32xf16> -> tensor<32x32xbf16>

func.func @batched(%a: tensor<3x8x16xi8>, %b: tensor<16x24xi8>) {
  %0 = asctensor.matmul %a, %b : tensor<3x8x16xi8>, tensor<16x24xi8> -> tensor<3x8x24xi32>
  func.return
}
// CHECK-LABEL: func.func @batched
// CHECK: asctensor.matmul %a, %b : tensor<3x8x16xi8>, tensor<16x24xi8> -> tensor<3x8x24xi32>

func.func @conv(%x: tensor<2x4x9x9xf16>, %w: tensor<6x2x3x3xf16>, %bias: tensor<6xf16>) {
  %0 = asctensor.conv2d %x, %w bias %bias stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>, tensor<6xf16> -> tensor<2x6x5x5xf16>
  %1 = asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x9x9xf16> -> tensor<2x36x25xf16>
  func.return
}
// CHECK-LABEL: func.func @conv
// CHECK: asctensor.conv2d %x, %w bias %bias stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x9x9xf16>, tensor<6x2x3x3xf16>, tensor<6xf16> -> tensor<2x6x5x5xf16>
// CHECK: asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x9x9xf16> -> tensor<2x36x25xf16>

func.func @patches(%x: tensor<2x9x9x20xf16>) {
  %0 = asctensor.im2col_nhwc %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x9x9x20xf16> -> tensor<2x25x288xf16>
  func.return
}
// CHECK-LABEL: func.func @patches
// CHECK: asctensor.im2col_nhwc %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x9x9x20xf16> -> tensor<2x25x288xf16>

// a max pool's windows read -inf in the padding
func.func @pool_windows(%x: tensor<2x3x8x8xf16>) {
  %0 = asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 pad_value 0xFC00 : f16 : tensor<2x3x8x8xf16> -> tensor<2x27x16xf16>
  func.return
}
// CHECK-LABEL: func.func @pool_windows
// CHECK: asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 pad_value 0xfc00 : f16 : tensor<2x3x8x8xf16> -> tensor<2x27x16xf16>

// the maximum of each 3x3 window, stride 2, padding 1 (a kernel of its own)
func.func @max_pool(%x: tensor<2x3x9x9xf32>) {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  func.return
}
// CHECK-LABEL: func.func @max_pool
// CHECK: asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
