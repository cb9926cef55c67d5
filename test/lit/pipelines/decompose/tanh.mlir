// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// tanh(x) = 2 / (exp(-2x) + 1) - 1
func.func @tanh(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = math.tanh %x : tensor<8x32xf32>
  func.return %0 : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT:    %[[M2:.*]] = asctensor.full -2.000000e+00 : f32 -> tensor<8x32xf32>
// CHECK-NEXT:    %[[X2:.*]] = arith.mulf %x, %[[M2]] : tensor<8x32xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[X2]] : tensor<8x32xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<8x32xf32>
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]] : tensor<8x32xf32>
// CHECK-NEXT:    %[[TWO:.*]] = asctensor.full 2.000000e+00 : f32 -> tensor<8x32xf32>
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[TWO]], %[[DEN]] : tensor<8x32xf32>
// CHECK-NEXT:    %[[ONE2:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<8x32xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.subf %[[Q]], %[[ONE2]] : tensor<8x32xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<8x32xf32>
// CHECK-NOT:   math.tanh
