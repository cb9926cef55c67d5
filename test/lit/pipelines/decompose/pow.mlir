// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// pow by a splat constant: x*x, sqrt, 1/x, 1, and exp(log|x| * y) otherwise, NaN for a finite
// negative base (y = 2.5 is not an integer)
func.func @pow(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %c2 = asctensor.full 2.0 : f32 -> tensor<64xf32>
  %ch = asctensor.full 0.5 : f32 -> tensor<64xf32>
  %cm = asctensor.full -1.0 : f32 -> tensor<64xf32>
  %c0 = asctensor.full 0.0 : f32 -> tensor<64xf32>
  %cg = asctensor.full 2.5 : f32 -> tensor<64xf32>
  %0 = math.powf %x, %c2 : tensor<64xf32>
  %1 = math.powf %x, %ch : tensor<64xf32>
  %2 = math.powf %x, %cm : tensor<64xf32>
  %3 = math.powf %x, %c0 : tensor<64xf32>
  %4 = math.powf %x, %cg : tensor<64xf32>
  func.return %0, %1, %2, %3, %4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// the special exponents are folded away; only the general one stays
// CHECK-LABEL: func.func @pow(
// CHECK-NEXT:    %[[SQ:.*]] = arith.mulf %x, %x : tensor<64xf32>
// CHECK-NEXT:    %[[RT:.*]] = math.sqrt %x : tensor<64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %x : tensor<64xf32>
// CHECK-NEXT:    %[[P0:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x : tensor<64xf32>
// CHECK-NEXT:    %[[L:.*]] = math.log %[[AX]] : tensor<64xf32>
// CHECK-NEXT:    %[[C:.*]] = asctensor.full 2.500000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[LY:.*]] = arith.mulf %[[L]], %[[C]] : tensor<64xf32>
// CHECK-NEXT:    %[[G:.*]] = math.exp %[[LY]] : tensor<64xf32>
// CHECK-NEXT:    %[[Z:.*]] = asctensor.full 0.000000e+00 : f32
// CHECK-NEXT:    %[[NEG:.*]] = asctensor.compare lt %x, %[[Z]]
// CHECK-NEXT:    %[[MINF:.*]] = asctensor.full 0xff800000 : f32
// CHECK-NEXT:    %[[FIN:.*]] = asctensor.compare gt %x, %[[MINF]]
// CHECK-NEXT:    %[[NAN:.*]] = asctensor.full 0x7fc00000 : f32
// CHECK-NEXT:    %[[NI:.*]] = asctensor.select %[[FIN]], %[[NAN]], %[[G]]
// CHECK-NEXT:    %[[R:.*]] = asctensor.select %[[NEG]], %[[NI]], %[[G]]
// CHECK-NEXT:    func.return %[[SQ]], %[[RT]], %[[INV]], %[[P0]], %[[R]] :
// CHECK-NOT:   math.powf
// CHECK-NOT:   asctensor.full 2.000000e+00
// CHECK-NOT:   asctensor.full 5.000000e-01
