// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @ops(%x: tensor<4x8xf16>, %row: tensor<8xf16>, %col: tensor<4x1xf32>, %i: tensor<4x8xi32>) {
  %b = asctensor.broadcast %row : tensor<8xf16> -> tensor<4x8xf16>
  %bc = asctensor.broadcast %col : tensor<4x1xf32> -> tensor<2x4x8xf32>
  %c = asctensor.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
  %ci = asctensor.cast %i : tensor<4x8xi32> -> tensor<4x8xbf16>
  %q = asctensor.cast %c : tensor<4x8xf32> -> tensor<4x8xi8>
  %dq = asctensor.cast %q : tensor<4x8xi8> -> tensor<4x8xf16>
  %r = asctensor.relu %x : tensor<4x8xf16>
  %ri = asctensor.relu %i : tensor<4x8xi32>
  %s = asctensor.sigmoid %c : tensor<4x8xf32>
  %g0 = asctensor.gelu %x approximate none : tensor<4x8xf16>
  %g1 = asctensor.gelu %ci approximate tanh : tensor<4x8xbf16>
  %f = asctensor.full 1.5 : f16 -> tensor<4x8xf16>
  %fi = asctensor.full -3 : i32 -> tensor<4x8xi32>
  %fb = asctensor.full 2.0 : bf16 -> tensor<16xbf16>
  func.return
}

// CHECK-LABEL: func.func @ops(%x: tensor<4x8xf16>, %row: tensor<8xf16>, %col: tensor<4x1xf32>, %i: tensor<4x8xi32>) {
// CHECK-NEXT:    %b = asctensor.broadcast %row : tensor<8xf16> -> tensor<4x8xf16>
// CHECK-NEXT:    %bc = asctensor.broadcast %col : tensor<4x1xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %c = asctensor.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT:    %ci = asctensor.cast %i : tensor<4x8xi32> -> tensor<4x8xbf16>
// CHECK-NEXT:    %q = asctensor.cast %c : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK-NEXT:    %dq = asctensor.cast %q : tensor<4x8xi8> -> tensor<4x8xf16>
// CHECK-NEXT:    %r = asctensor.relu %x : tensor<4x8xf16>
// CHECK-NEXT:    %ri = asctensor.relu %i : tensor<4x8xi32>
// CHECK-NEXT:    %s = asctensor.sigmoid %c : tensor<4x8xf32>
// CHECK-NEXT:    %g0 = asctensor.gelu %x approximate none : tensor<4x8xf16>
// CHECK-NEXT:    %g1 = asctensor.gelu %ci approximate tanh : tensor<4x8xbf16>
// CHECK-NEXT:    %f = asctensor.full 1.500000e+00 : f16 -> tensor<4x8xf16>
// CHECK-NEXT:    %fi = asctensor.full -3 : i32 -> tensor<4x8xi32>
// CHECK-NEXT:    %fb = asctensor.full 2.000000e+00 : bf16 -> tensor<16xbf16>
// CHECK-NEXT:    func.return

// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// GENERIC: "asctensor.gelu"(%x) <{approximate = #asctensor<gelu_approximation none>}> : (tensor<4x8xf16>) -> tensor<4x8xf16>
// GENERIC: "asctensor.gelu"(%ci) <{approximate = #asctensor<gelu_approximation tanh>}> : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
// GENERIC: "asctensor.full"() <{value = 1.500000e+00 : f16}> : () -> tensor<4x8xf16>
// GENERIC: "asctensor.full"() <{value = -3 : i32}> : () -> tensor<4x8xi32>
