// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// a tensor exponent takes the general form; f16 pow is computed in f32 and rounded once
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
// CHECK-NEXT:    %[[L:.*]] = math.log %x : tensor<64xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[L]], %y : tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<64xf32>
// CHECK-NEXT:    func.return %[[E]]

// CHECK-LABEL: func.func @cube(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<64xf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[SQ:.*]] = arith.mulf %[[W]], %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[CU:.*]] = arith.mulf %[[SQ]], %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = asctensor.cast %[[CU]] : tensor<64xf32> -> tensor<64xf16>
// CHECK-NEXT:    func.return %[[N]] : tensor<64xf16>
// CHECK-NOT:   math.powf
