// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<4x8xf16>) {
  %t = asctensor.transpose %x permutation = [0, 0] : tensor<4x8xf16> -> tensor<4x4xf16>
  func.return
}
// CHECK: asctensor.transpose: [0, 0] is not a permutation of the 2 dims of tensor<4x8xf16>

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %t = asctensor.transpose %x permutation = [1, 0] : tensor<4x8xf16> -> tensor<4x8xf16>
  func.return
}
// CHECK: asctensor.transpose: tensor<4x8xf16> permuted by [1, 0] is not tensor<4x8xf16>

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %s = asctensor.strided_slice %x offsets [1, 0] strides [2, 3] : tensor<4x8xf16> -> tensor<2x4xf16>
  func.return
}
// CHECK: asctensor.strided_slice: dim 1: 4 elements from 0 every 3 leave [0, 8)

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %s = asctensor.strided_slice %x offsets [0, 2] strides [1, -1] : tensor<4x8xf16> -> tensor<4x4xf16>
  func.return
}
// CHECK: asctensor.strided_slice: dim 1: 4 elements from 2 every -1 leave [0, 8)

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %s = asctensor.strided_slice %x offsets [0, 0] strides [0, 1] : tensor<4x8xf16> -> tensor<2x8xf16>
  func.return
}
// CHECK: asctensor.strided_slice: dim 0: stride 0 is not allowed

// -----

func.func @f(%x: tensor<4x8xf16>, %y: tensor<4x7xf16>) {
  %c = asctensor.concat %x, %y dim = 0 : tensor<4x8xf16>, tensor<4x7xf16> -> tensor<8x8xf16>
  func.return
}
// CHECK: asctensor.concat: input tensor<4x7xf16> does not match tensor<8x8xf16> outside dim 0

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %c = asctensor.concat %x, %x dim = 1 : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x17xf16>
  func.return
}
// CHECK: asctensor.concat: the inputs add up to 16 along dim 1, not 17

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %c = asctensor.concat %x dim = 2 : tensor<4x8xf16> -> tensor<4x8xf16>
  func.return
}
// CHECK: asctensor.concat: dim 2 is out of range for tensor<4x8xf16>
