// RUN: pyasc-opt %s -p asctensor-decompose --split-input-file | filecheck %s

// a splat constant becomes asctensor.full; a composite becomes the primitives the vector unit has
func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c = arith.constant dense<2.0> : tensor<64xf32>
  %0 = arith.mulf %x, %c : tensor<64xf32>
  %1 = asctensor.sigmoid %0 : tensor<64xf32>
  func.return %1 : tensor<64xf32>
}

// CHECK-LABEL: func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT:    %[[C:.*]] = asctensor.full 2.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[X:.*]] = arith.mulf %x, %[[C]] : tensor<64xf32>
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[X]] : tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[NEG]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE2:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE2]], %[[DEN]] : tensor<64xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<64xf32>

// -----

// a bf16 primitive whose instruction has no bf16 form computes in f32 between casts; an f16 one stays
func.func @legal(%x: tensor<64xbf16>, %h: tensor<64xf16>) -> (tensor<64xbf16>, tensor<64xf16>) {
  %0 = arith.negf %x : tensor<64xbf16>
  %1 = math.sqrt %h : tensor<64xf16>
  func.return %0, %1 : tensor<64xbf16>, tensor<64xf16>
}

// CHECK-LABEL: func.func @legal(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[B:.*]] = asctensor.cast %[[N]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %h : tensor<64xf16>
// CHECK-NEXT:    func.return %[[B]], %[[S]] : tensor<64xbf16>, tensor<64xf16>
