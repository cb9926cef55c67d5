// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// f16 composites are computed in f32 and rounded once; f16 primitives stay f16
func.func @h(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %0 = asctensor.sigmoid %x : tensor<4x64xf16>
  %1 = arith.mulf %0, %x : tensor<4x64xf16>
  %2 = asctensor.gelu %1 approximate tanh : tensor<4x64xf16>
  func.return %2 : tensor<4x64xf16>
}

// CHECK-LABEL: func.func @h(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<4x64xf16> -> tensor<4x64xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[W]] : tensor<4x64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[N]] : tensor<4x64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<4x64xf32>
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[E]], %[[ONE]] : tensor<4x64xf32>
// CHECK-NEXT:    %[[ONE2:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<4x64xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.divf %[[ONE2]], %[[D]] : tensor<4x64xf32>
// CHECK-NEXT:    %[[SH:.*]] = asctensor.cast %[[S]] : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[SH]], %x : tensor<4x64xf16>
// CHECK-NEXT:    %[[MW:.*]] = asctensor.cast %[[M]] : tensor<4x64xf16> -> tensor<4x64xf32>
// CHECK-NEXT:    arith.mulf %[[MW]], %[[MW]] : tensor<4x64xf32>
// CHECK:         %[[G:.*]] = arith.divf %[[MW]], %{{.*}} : tensor<4x64xf32>
// CHECK-NEXT:    %[[GH:.*]] = asctensor.cast %[[G]] : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK-NEXT:    func.return %[[GH]] : tensor<4x64xf16>
// CHECK-NOT:   asctensor.sigmoid
// CHECK-NOT:   asctensor.gelu
