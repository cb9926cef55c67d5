// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @movement(%x: tensor<4x8xf16>, %y: tensor<2x8xf16>, %z: tensor<2x3x5xi32>) {
  %t = asctensor.transpose %x permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
  %p = asctensor.transpose %z permutation = [2, 0, 1] : tensor<2x3x5xi32> -> tensor<5x2x3xi32>
  %s = asctensor.strided_slice %x offsets [1, 0] strides [2, 3] : tensor<4x8xf16> -> tensor<2x3xf16>
  %r = asctensor.strided_slice %x offsets [3, 7] strides [-1, -2] : tensor<4x8xf16> -> tensor<4x4xf16>
  %c = asctensor.concat %x, %y, %x dim = 0 : tensor<4x8xf16>, tensor<2x8xf16>, tensor<4x8xf16> -> tensor<10x8xf16>
  func.return
}

// CHECK-LABEL: func.func @movement(
// CHECK-NEXT:    %t = asctensor.transpose %x permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
// CHECK-NEXT:    %p = asctensor.transpose %z permutation = [2, 0, 1] : tensor<2x3x5xi32> -> tensor<5x2x3xi32>
// CHECK-NEXT:    %s = asctensor.strided_slice %x offsets [1, 0] strides [2, 3] : tensor<4x8xf16> -> tensor<2x3xf16>
// CHECK-NEXT:    %r = asctensor.strided_slice %x offsets [3, 7] strides [-1, -2] : tensor<4x8xf16> -> tensor<4x4xf16>
// CHECK-NEXT:    %c = asctensor.concat %x, %y, %x dim = 0 : tensor<4x8xf16>, tensor<2x8xf16>, tensor<4x8xf16> -> tensor<10x8xf16>
