// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a shape change starts a new kernel; a value used across kernels becomes a kernel result
func.func @f(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>, %v: tensor<2048xf32>) -> (tensor<32x64xf32>, tensor<2048xf32>) {
  %0 = arith.addf %x, %y : tensor<32x64xf32>
  %1 = math.exp %0 : tensor<32x64xf32>
  %2 = arith.mulf %v, %v : tensor<2048xf32>
  %3 = arith.addf %1, %0 : tensor<32x64xf32>
  func.return %3, %2 : tensor<32x64xf32>, tensor<2048xf32>
}

// CHECK:       func.func @f_k0(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[S:.*]] = arith.addf %x, %y : tensor<32x64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[S]] : tensor<32x64xf32>
// CHECK-NEXT:    func.return %[[S]], %[[E]] : tensor<32x64xf32>, tensor<32x64xf32>
// CHECK:       func.func @f_k1(%v: tensor<2048xf32>) -> tensor<2048xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %v, %v : tensor<2048xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<2048xf32>
// CHECK:       func.func @f_k2(%[[A:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<32x64xf32>) -> tensor<32x64xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[R:.*]] = arith.addf %[[A]], %[[B]] : tensor<32x64xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<32x64xf32>
// CHECK:       func.func @f(
// CHECK-NEXT:    %[[C0:.*]], %[[C1:.*]] = func.call @f_k0(%x, %y)
// CHECK-NEXT:    %[[C2:.*]] = func.call @f_k1(%v) : (tensor<2048xf32>) -> tensor<2048xf32>
// CHECK-NEXT:    %[[C3:.*]] = func.call @f_k2(%[[C1]], %[[C0]])
// CHECK-NEXT:    func.return %[[C3]], %[[C2]] : tensor<32x64xf32>, tensor<2048xf32>
// CHECK-NOT:   arith.
