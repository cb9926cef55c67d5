// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// a tensor exponent takes the general form, C's pow: |x| ** y = exp(log|x| * y), 1 where y == 0,
// x == 1 or |x| == 1 with y infinite; for x < 0 the sign of an odd integer y (trunc(y) == y,
// trunc(y / 2) != y / 2) and NaN for a non-integer y unless x is -inf.
// f16 pow is computed in f32 and rounded once
func.func @pow(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = math.powf %x, %y : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}
func.func @cube(%x: tensor<64xf16>) -> tensor<64xf16> {
  %c = asctensor.full 3.0 : f16 -> tensor<64xf16>
  %0 = math.powf %x, %c : tensor<64xf16>
  func.return %0 : tensor<64xf16>
}

// CHECK-LABEL: func.func @pow(
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x : tensor<64xf32>
// CHECK-NEXT:    %[[L:.*]] = math.log %[[AX]] : tensor<64xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[L]], %y : tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<64xf32>
// CHECK:         %[[Y0:.*]] = asctensor.compare eq %y, %{{.*}}
// CHECK:         %[[R0:.*]] = asctensor.select %[[Y0]], %{{.*}}, %[[E]]
// CHECK:         %[[X1:.*]] = asctensor.compare eq %x, %{{.*}}
// CHECK:         %[[R1:.*]] = asctensor.select %[[X1]], %{{.*}}, %[[R0]]
// CHECK:         %[[U:.*]] = asctensor.compare eq %[[AX]], %{{.*}}
// CHECK:         %[[INF:.*]] = asctensor.full 0x7f800000 : f32
// CHECK-NEXT:    %[[YI:.*]] = asctensor.compare eq %{{.*}}, %[[INF]]
// CHECK:         %[[R:.*]] = asctensor.select %[[U]], %{{.*}}, %[[R1]]
// CHECK:         asctensor.cast %y : tensor<64xf32> -> tensor<64xi32>
// CHECK:         %[[INT:.*]] = asctensor.compare eq %{{.*}}, %y
// CHECK:         %[[ODD:.*]] = asctensor.compare ne
// CHECK-NEXT:    %[[NR:.*]] = arith.negf %[[R]]
// CHECK-NEXT:    %[[SR:.*]] = asctensor.select %[[ODD]], %[[NR]], %[[R]]
// CHECK-NEXT:    %[[MINF:.*]] = asctensor.full 0xff800000 : f32
// CHECK-NEXT:    %[[FIN:.*]] = asctensor.compare gt %x, %[[MINF]]
// CHECK-NEXT:    %[[NAN:.*]] = asctensor.full 0x7fc00000 : f32
// CHECK-NEXT:    %[[NI:.*]] = asctensor.select %[[FIN]], %[[NAN]], %[[R]]
// CHECK-NEXT:    %[[Z:.*]] = asctensor.full 0.000000e+00 : f32
// CHECK-NEXT:    %[[NEG:.*]] = asctensor.compare lt %x, %[[Z]]
// CHECK-NEXT:    %[[NEGR:.*]] = asctensor.select %[[INT]], %[[SR]], %[[NI]]
// CHECK-NEXT:    %[[OUT:.*]] = asctensor.select %[[NEG]], %[[NEGR]], %[[R]]
// CHECK-NEXT:    func.return %[[OUT]]

// CHECK-LABEL: func.func @cube(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<64xf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[SQ:.*]] = arith.mulf %[[W]], %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[CU:.*]] = arith.mulf %[[SQ]], %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = asctensor.cast %[[CU]] : tensor<64xf32> -> tensor<64xf16>
// CHECK-NEXT:    func.return %[[N]] : tensor<64xf16>
// CHECK-NOT:   math.powf
