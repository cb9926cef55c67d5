// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// relu is max(x, 0): maximumf (NaN propagating) on floats, maxsi on i32
func.func @relu(%x: tensor<64xf32>, %i: tensor<64xi32>, %h: tensor<64xf16>) -> (tensor<64xf32>, tensor<64xi32>, tensor<64xf16>) {
  %0 = asctensor.relu %x : tensor<64xf32>
  %1 = asctensor.relu %i : tensor<64xi32>
  %2 = asctensor.relu %h : tensor<64xf16>
  func.return %0, %1, %2 : tensor<64xf32>, tensor<64xi32>, tensor<64xf16>
}

// CHECK-LABEL: func.func @relu(
// CHECK-NEXT:    %[[Z:.*]] = asctensor.full 0.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.maximumf %x, %[[Z]] : tensor<64xf32>
// CHECK-NEXT:    %[[ZI:.*]] = asctensor.full 0 : i32 -> tensor<64xi32>
// CHECK-NEXT:    %[[RI:.*]] = arith.maxsi %i, %[[ZI]] : tensor<64xi32>
// relu on f16 is a primitive: no widening to f32
// CHECK-NEXT:    %[[ZH:.*]] = asctensor.full 0.000000e+00 : f16 -> tensor<64xf16>
// CHECK-NEXT:    %[[RH:.*]] = arith.maximumf %h, %[[ZH]] : tensor<64xf16>
// CHECK-NEXT:    func.return %[[R]], %[[RI]], %[[RH]] : tensor<64xf32>, tensor<64xi32>, tensor<64xf16>
// CHECK-NOT:   asctensor.relu
// CHECK-NOT:   asctensor.cast
