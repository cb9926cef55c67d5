// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %i = asctensor.iota dimension = 2 : tensor<4x37xi32>
  func.return
}
// CHECK: asctensor.iota: dimension 2 is out of range for tensor<4x37xi32>

// -----

func.func @f() {
  %i = asctensor.iota dimension = 0 : tensor<4xi1>
  func.return
}
// CHECK: asctensor.iota does not support element type i1

// -----

func.func @f(%x: tensor<4x37xf16>) {
  %v, %i = asctensor.topk %x k = 38 dim = 1 : tensor<4x37xf16> -> tensor<4x38xf16>, tensor<4x38xi32>
  func.return
}
// CHECK: asctensor.topk: k = 38 must be in 1..37 (dim 1 of tensor<4x37xf16>)

// -----

func.func @f(%x: tensor<4x37xf16>) {
  %v, %i = asctensor.topk %x k = 3 dim = 1 : tensor<4x37xf16> -> tensor<4x3xf32>, tensor<4x3xi32>
  func.return
}
// CHECK: asctensor.topk: values must be tensor<4x3xf16>, got tensor<4x3xf32>

// -----

func.func @f(%x: tensor<4x37xf16>) {
  %v, %i = asctensor.topk %x k = 3 dim = 1 : tensor<4x37xf16> -> tensor<4x3xf16>, tensor<4x3xf32>
  func.return
}
// CHECK: asctensor.topk: indices must be tensor<4x3xi32>, got tensor<4x3xf32>

// -----

func.func @f(%x: tensor<4x37xi32>) {
  %v, %i = asctensor.topk %x k = 3 dim = 1 : tensor<4x37xi32> -> tensor<4x3xi32>, tensor<4x3xi32>
  func.return
}
// CHECK: asctensor.topk does not support element type i32 (supported: f16, bf16, f32)

// -----

func.func @f(%x: tensor<4x37xf32>) {
  %v, %i = asctensor.topk %x k = 3 dim = 2 : tensor<4x37xf32> -> tensor<4x3xf32>, tensor<4x3xi32>
  func.return
}
// CHECK: asctensor.topk: dim 2 is out of range for tensor<4x37xf32>
