// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<8x5xf16>, %b: tensor<6x7xf16>) {
  %0 = asctensor.matmul %a, %b : tensor<8x5xf16>, tensor<6x7xf16> -> tensor<8x7xf16>
  func.return
}
// CHECK: asctensor.matmul: inner dimensions do not match: [8, 5] x [6, 7] (K = 5 vs 6)

// -----

func.func @f(%a: tensor<8x6xi8>, %b: tensor<6x7xi8>) {
  %0 = asctensor.matmul %a, %b : tensor<8x6xi8>, tensor<6x7xi8> -> tensor<8x7xf16>
  func.return
}
// CHECK: asctensor.matmul of i8 gives i32, not f16

// -----

func.func @f(%a: tensor<8x6xi8>, %b: tensor<6x7xi8>, %bias: tensor<7xf32>) {
  %0 = asctensor.matmul %a, %b bias %bias : tensor<8x6xi8>, tensor<6x7xi8>, tensor<7xf32> -> tensor<8x7xi32>
  func.return
}
// CHECK: asctensor.matmul: bias element type f32 should be i32 or i32

// -----

func.func @f(%a: tensor<8x6xf16>, %b: tensor<6x7xf16>) {
  %0 = asctensor.matmul %a, %b : tensor<8x6xf16>, tensor<6x7xf16> -> tensor<7x8xf16>
  func.return
}
// CHECK: asctensor.matmul: result shape [7, 8] should be [8, 7]

// -----

func.func @f(%x: tensor<2x4x9x9xf16>, %w: tensor<6x3x3x3xf16>) {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : tensor<2x4x9x9xf16>, tensor<6x3x3x3xf16> -> tensor<2x6x7x7xf16>
  func.return
}
// CHECK: asctensor.conv2d: weight [6, 3, 3, 3] has 3 input channels per group, input [2, 4, 9, 9] with groups = 2 has 2

// -----

func.func @f(%x: tensor<2x4x9x9xf16>, %w: tensor<6x4x3x3xf16>) {
  %0 = asctensor.conv2d %x, %w stride [0, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x4x9x9xf16>, tensor<6x4x3x3xf16> -> tensor<2x6x7x7xf16>
  func.return
}
// CHECK: asctensor.conv2d: stride must be two integers >= 1, got [0, 1]

// -----

// 20 channels are two 16-channel blocks: K = 2 * 3 * 3 * 16 = 288
func.func @f(%x: tensor<2x9x9x20xf16>) {
  %0 = asctensor.im2col_nhwc %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x9x9x20xf16> -> tensor<2x25x180xf16>
  func.return
}
// CHECK: asctensor.im2col_nhwc: result shape [2, 25, 180] should be [2, 25, 288]

// -----

// the padding value has the patches' element type
func.func @pad_value_type(%x: tensor<2x3x8x8xf16>) {
  %0 = asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 pad_value -1.0 : f32 : tensor<2x3x8x8xf16> -> tensor<2x27x16xf16>
  func.return
}
// CHECK: asctensor.im2col: pad_value of f32 for patches of f16

// -----

// a max pool's padding is at most half its kernel (so every window holds part of the input)
func.func @pool_padding(%x: tensor<2x3x9x9xf16>) {
  %0 = asctensor.max_pool2d %x kernel [2, 2] stride [2, 2] padding [2, 0] : tensor<2x3x9x9xf16> -> tensor<2x3x6x4xf16>
  func.return
}
// CHECK: asctensor.max_pool2d: padding [2, 0] exceeds half the kernel [2, 2]

// -----

func.func @pool_shape(%x: tensor<2x3x9x9xf16>) {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16> -> tensor<2x3x4x5xf16>
  func.return
}
// CHECK: asctensor.max_pool2d: result shape [2, 3, 4, 5] should be [2, 3, 5, 5]

// -----

func.func @pool_type(%x: tensor<2x3x9x9xi32>) {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xi32> -> tensor<2x3x5x5xi32>
  func.return
}
// CHECK: asctensor.max_pool2d: pools f16 or f32, got i32
