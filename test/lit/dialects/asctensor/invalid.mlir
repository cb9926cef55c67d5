// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<4x8xf16>) {
  %b = asctensor.broadcast %x : tensor<4x8xf16> -> tensor<4x8xf32>
  func.return
}
// CHECK: Operation does not verify: asctensor.broadcast cannot change the element type (tensor<4x8xf16> -> tensor<4x8xf32>)

// -----

func.func @f(%x: tensor<3x8xf16>) {
  %b = asctensor.broadcast %x : tensor<3x8xf16> -> tensor<4x8xf16>
  func.return
}
// CHECK: Operation does not verify: asctensor.broadcast: shape [3, 8] does not broadcast to [4, 8]

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %b = asctensor.broadcast %x : tensor<4x8xf16> -> tensor<8xf16>
  func.return
}
// CHECK: Operation does not verify: asctensor.broadcast: shape [4, 8] does not broadcast to [8]

// -----

func.func @f(%x: tensor<4x8xf16>) {
  %c = asctensor.cast %x : tensor<4x8xf16> -> tensor<8x4xf32>
  func.return
}
// CHECK: Operation does not verify: asctensor.cast cannot change the shape (tensor<4x8xf16> -> tensor<8x4xf32>)

// -----

func.func @f(%x: tensor<4x8xf64>) {
  %c = asctensor.cast %x : tensor<4x8xf64> -> tensor<4x8xf32>
  func.return
}
// CHECK: Operation does not verify: asctensor.cast does not support element type f64 (supported: f16, bf16, f32, i32, i8)

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %c = asctensor.cast %x : tensor<4x8xf32> -> tensor<4x8xi16>
  func.return
}
// CHECK: Operation does not verify: asctensor.cast does not support element type i16 (supported: f16, bf16, f32, i32, i8)

// -----

func.func @f(%x: tensor<4x8xi8>, %y: tensor<4x8xi8>) {
  %c = arith.addi %x, %y : tensor<4x8xi8>
  %r = asctensor.relu %x : tensor<4x8xi8>
  func.return
}
// CHECK: Operation does not verify: asctensor.relu does not support element type i8

// -----

func.func @f(%x: tensor<4x8xi32>) {
  %s = asctensor.sigmoid %x : tensor<4x8xi32>
  func.return
}
// CHECK: Operation does not verify: asctensor.sigmoid does not support element type i32 (supported: f16, bf16, f32)

// -----

func.func @f(%x: tensor<4x8xi32>) {
  %g = asctensor.gelu %x approximate tanh : tensor<4x8xi32>
  func.return
}
// CHECK: Operation does not verify: asctensor.gelu does not support element type i32 (supported: f16, bf16, f32)

// -----

func.func @f(%x: tensor<4x8xi16>) {
  %r = asctensor.relu %x : tensor<4x8xi16>
  func.return
}
// CHECK: Operation does not verify: asctensor.relu does not support element type i16 (supported: f16, bf16, f32, i32)

// -----

func.func @f() {
  %f = asctensor.full 1.5 : f32 -> tensor<4x8xf16>
  func.return
}
// CHECK: Operation does not verify: asctensor.full: value 1.500000e+00 : f32 does not suit element type f16

// -----

func.func @f() {
  %f = asctensor.full 2 : i64 -> tensor<4x8xi64>
  func.return
}
// CHECK: Operation does not verify: asctensor.full does not support element type i64 (supported: f16, bf16, f32, i32)
