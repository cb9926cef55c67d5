// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// exact gelu: 0.5 * (x + |x| * erf(|x| / sqrt(2))), erf by Abramowitz & Stegun 7.1.26
func.func @gelu_none(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = asctensor.gelu %x approximate none : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}
// tanh gelu: x / (1 + exp(-2 * sqrt(2/pi) * (x + 0.044715 x^3)))
func.func @gelu_tanh(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = asctensor.gelu %x approximate tanh : tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// CHECK-LABEL: func.func @gelu_none(
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x : tensor<64xf32>
// CHECK-NEXT:    %[[RS2:.*]] = asctensor.full 0.707106769 : f32
// CHECK-NEXT:    %[[U:.*]] = arith.mulf %[[AX]], %[[RS2]]
// CHECK-NEXT:    %[[P:.*]] = asctensor.full 0.327591091 : f32
// CHECK-NEXT:    %[[PU:.*]] = arith.mulf %[[U]], %[[P]]
// CHECK:         %[[T:.*]] = arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK-NEXT:    %[[A5:.*]] = asctensor.full 1.06140542 : f32
// CHECK-NEXT:    arith.mulf %[[T]], %[[A5]]
// CHECK:         asctensor.full -1.45315206 : f32
// CHECK:         asctensor.full 1.42141378 : f32
// CHECK:         asctensor.full -0.284496725 : f32
// CHECK:         asctensor.full 0.254829586 : f32
// CHECK:         %[[UU:.*]] = arith.mulf %[[U]], %[[U]]
// CHECK-NEXT:    %[[NUU:.*]] = arith.negf %[[UU]]
// CHECK-NEXT:    math.exp %[[NUU]]
// CHECK:         %[[ERF:.*]] = arith.subf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK-NEXT:    %[[AXERF:.*]] = arith.mulf %[[AX]], %[[ERF]]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[AXERF]], %x
// CHECK-NEXT:    %[[HALF:.*]] = asctensor.full 5.000000e-01 : f32
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[S]], %[[HALF]]
// CHECK-NEXT:    func.return %[[R]] : tensor<64xf32>
// CHECK-NOT:   asctensor.gelu

// CHECK-LABEL: func.func @gelu_tanh(
// CHECK-NEXT:    %[[X2:.*]] = arith.mulf %x, %x
// CHECK-NEXT:    %[[X3:.*]] = arith.mulf %[[X2]], %x
// CHECK-NEXT:    %[[K:.*]] = asctensor.full 4.471500e-02 : f32
// CHECK-NEXT:    %[[KX3:.*]] = arith.mulf %[[X3]], %[[K]]
// CHECK-NEXT:    %[[IN:.*]] = arith.addf %[[KX3]], %x
// CHECK-NEXT:    %[[C:.*]] = asctensor.full -1.59576917 : f32
// CHECK-NEXT:    %[[Z:.*]] = arith.mulf %[[IN]], %[[C]]
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[Z]]
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]]
// CHECK-NEXT:    %[[R2:.*]] = arith.divf %x, %[[DEN]] : tensor<64xf32>
// CHECK-NEXT:    func.return %[[R2]]
// CHECK-NOT:   asctensor.gelu
// CHECK-NOT:   math.tanh
