// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a broadcast joins the kernel of its consumer even though its input has another shape:
// the kernel takes the small tensor and broadcasts inside (loads broadcast for free)
func.func @f(%x: tensor<32x64xf32>, %row: tensor<64xf32>, %col: tensor<32x1xf32>) -> tensor<32x64xf32> {
  %0 = arith.mulf %x, %x : tensor<32x64xf32>
  %b = asctensor.broadcast %row : tensor<64xf32> -> tensor<32x64xf32>
  %1 = arith.addf %0, %b : tensor<32x64xf32>
  %c = asctensor.broadcast %col : tensor<32x1xf32> -> tensor<32x64xf32>
  %2 = arith.divf %1, %c : tensor<32x64xf32>
  func.return %2 : tensor<32x64xf32>
}

// CHECK:       func.func @f_k0(%x: tensor<32x64xf32>, %row: tensor<64xf32>, %col: tensor<32x1xf32>) -> tensor<32x64xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %x
// CHECK-NEXT:    %[[B:.*]] = asctensor.broadcast %row : tensor<64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[M]], %[[B]]
// CHECK-NEXT:    %[[C:.*]] = asctensor.broadcast %col : tensor<32x1xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[D:.*]] = arith.divf %[[A]], %[[C]]
// CHECK-NEXT:    func.return %[[D]]
// CHECK-NOT:   func.func @f_k1
// CHECK:       func.func @f(
// CHECK-NEXT:    func.call @f_k0(%x, %row, %col) : (tensor<32x64xf32>, tensor<64xf32>, tensor<32x1xf32>) -> tensor<32x64xf32>
// CHECK-NOT:     asctensor.broadcast
