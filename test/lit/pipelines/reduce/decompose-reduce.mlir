// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// mean = sum * 1/N (here 1/8)
func.func @mean(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = asctensor.reduce mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @mean(
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[INV:.*]] = asctensor.full 1.250000e-01 : f32 -> tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[S]], %[[INV]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<4xf32>

// a product has no row-wise instruction: column slices multiplied elementwise
func.func @prod(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
  %s = asctensor.reduce prod %x axes [1] keepdims : tensor<4x3xf32> -> tensor<4x1xf32>
  func.return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @prod(
// CHECK-NEXT:    %[[C0:.*]] = asctensor.slice %x offsets [0, 0] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = asctensor.slice %x offsets [0, 1] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[C2:.*]] = asctensor.slice %x offsets [0, 2] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[C0]], %[[C1]] : tensor<4x1xf32>
// CHECK-NEXT:    %[[Q:.*]] = arith.mulf %[[P]], %[[C2]] : tensor<4x1xf32>
// CHECK-NEXT:    func.return %[[Q]] : tensor<4x1xf32>
// CHECK-NOT:     asctensor.reduce

// a sum over the leading axis: row slices added elementwise, then reshaped (keepdims dropped)
func.func @col(%x: tensor<3x8xf32>) -> tensor<8xf32> {
  %s = asctensor.reduce sum %x axes [0] : tensor<3x8xf32> -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @col(
// CHECK-NEXT:    %[[R0:.*]] = asctensor.slice %x offsets [0, 0] : tensor<3x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[R1:.*]] = asctensor.slice %x offsets [1, 0] : tensor<3x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[R2:.*]] = asctensor.slice %x offsets [2, 0] : tensor<3x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[R0]], %[[R1]] : tensor<1x8xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.addf %[[A]], %[[R2]] : tensor<1x8xf32>
// CHECK-NEXT:    %[[S:.*]] = asctensor.reshape %[[B]] : tensor<1x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<8xf32>

// float16 sums accumulate in float32
func.func @hsum(%x: tensor<4x8xf16>) -> tensor<4x1xf16> {
  %s = asctensor.reduce sum %x axes [1] keepdims : tensor<4x8xf16> -> tensor<4x1xf16>
  func.return %s : tensor<4x1xf16>
}

// CHECK-LABEL: func.func @hsum(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %[[W]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[H:.*]] = asctensor.cast %[[S]] : tensor<4x1xf32> -> tensor<4x1xf16>
// CHECK-NEXT:    func.return %[[H]] : tensor<4x1xf16>

// a float32 row-wise sum is already primitive
func.func @row(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = asctensor.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @row(
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<4xf32>
