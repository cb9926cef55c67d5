// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// sigmoid(x) = 1 / (exp(-x) + 1), computed in f32 directly
func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = asctensor.sigmoid %x : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// CHECK-LABEL: func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %x : tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[NEG]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE2:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE2]], %[[DEN]] : tensor<64xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<64xf32>
// CHECK-NOT:   asctensor.sigmoid
// CHECK-NOT:   asctensor.cast
