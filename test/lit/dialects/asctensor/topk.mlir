// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @topk(%x: tensor<4x37xf16>, %y: tensor<6x5xf32>) {
  %i = asctensor.iota dimension = 1 : tensor<4x37xi32>
  %f = asctensor.iota dimension = 0 : tensor<4x37xf32>
  %v, %ix = asctensor.topk %x k = 3 dim = 1 : tensor<4x37xf16> -> tensor<4x3xf16>, tensor<4x3xi32>
  %w, %jx = asctensor.topk %y k = 2 dim = 0 smallest : tensor<6x5xf32> -> tensor<2x5xf32>, tensor<2x5xi32>
  func.return
}

// CHECK-LABEL: func.func @topk(
// CHECK-NEXT:    %i = asctensor.iota dimension = 1 : tensor<4x37xi32>
// CHECK-NEXT:    %f = asctensor.iota dimension = 0 : tensor<4x37xf32>
// CHECK-NEXT:    %v, %ix = asctensor.topk %x k = 3 dim = 1 : tensor<4x37xf16> -> tensor<4x3xf16>, tensor<4x3xi32>
// CHECK-NEXT:    %w, %jx = asctensor.topk %y k = 2 dim = 0 smallest : tensor<6x5xf32> -> tensor<2x5xf32>, tensor<2x5xi32>
