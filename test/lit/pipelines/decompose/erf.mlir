// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// erf(x) = erf(|x|) * x / max(|x|, 1e-30) on x clamped to [-10, 10] (erf(+-inf) = +-1, NaN stays):
// the sign restored without a select
func.func @erf(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = math.erf %x : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// CHECK-LABEL: func.func @erf(
// CHECK-NEXT:    %[[LO:.*]] = asctensor.full -1.000000e+01 : f32
// CHECK-NEXT:    %[[XL:.*]] = arith.maximumf %x, %[[LO]]
// CHECK-NEXT:    %[[HI:.*]] = asctensor.full 1.000000e+01 : f32
// CHECK-NEXT:    %[[XC:.*]] = arith.minimumf %[[XL]], %[[HI]]
// CHECK-NEXT:    %[[AX:.*]] = math.absf %[[XC]] : tensor<64xf32>
// CHECK-NEXT:    %[[P:.*]] = asctensor.full 0.327591091 : f32
// CHECK-NEXT:    arith.mulf %[[AX]], %[[P]]
// CHECK:         %[[AA:.*]] = arith.mulf %[[AX]], %[[AX]]
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[AA]]
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[N]]
// CHECK-NEXT:    %[[QE:.*]] = arith.mulf %{{.*}}, %[[E]]
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32
// CHECK-NEXT:    %[[EP:.*]] = arith.subf %[[ONE]], %[[QE]]
// CHECK-NEXT:    %[[TINY:.*]] = asctensor.full 1.000000e-30 : f32
// CHECK-NEXT:    %[[DEN:.*]] = arith.maximumf %[[AX]], %[[TINY]]
// CHECK-NEXT:    %[[SGN:.*]] = arith.divf %[[XC]], %[[DEN]]
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[EP]], %[[SGN]]
// CHECK-NEXT:    func.return %[[R]] : tensor<64xf32>
// CHECK-NOT:   math.erf
