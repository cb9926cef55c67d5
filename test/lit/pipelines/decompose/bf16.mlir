// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// the vector unit has no bf16 arithmetic: every bf16 primitive runs in f32 between casts,
// and a bf16 composite is widened once and rounded once
func.func @chain(%x: tensor<64xbf16>, %y: tensor<64xbf16>) -> tensor<64xbf16> {
  %0 = arith.addf %x, %y : tensor<64xbf16>
  %1 = math.exp %0 : tensor<64xbf16>
  func.return %1 : tensor<64xbf16>
}
func.func @sig(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  %0 = asctensor.sigmoid %x : tensor<64xbf16>
  func.return %0 : tensor<64xbf16>
}

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %[[X:.*]] = asctensor.cast %x : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[Y:.*]] = asctensor.cast %y : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[X]], %[[Y]] : tensor<64xf32>
// CHECK-NEXT:    %[[SB:.*]] = asctensor.cast %[[S]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    %[[SW:.*]] = asctensor.cast %[[SB]] : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[SW]] : tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = asctensor.cast %[[E]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<64xbf16>

// CHECK-LABEL: func.func @sig(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    arith.negf %[[W]] : tensor<64xf32>
// CHECK-NEXT:    math.exp %{{.*}} : tensor<64xf32>
// CHECK-NOT:     bf16
// CHECK:         %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = asctensor.cast %[[Q]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    func.return %[[N]] : tensor<64xbf16>
