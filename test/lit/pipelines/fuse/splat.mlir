// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a splat constant is cloned into every kernel that uses it and never passed as an argument
func.func @f(%x: tensor<256xf32>, %y: tensor<8x32xf32>) -> (tensor<256xf32>, tensor<8x32xf32>) {
  %c = asctensor.full 3.0 : f32 -> tensor<256xf32>
  %d = asctensor.full 3.0 : f32 -> tensor<8x32xf32>
  %0 = arith.mulf %x, %c : tensor<256xf32>
  %1 = arith.addf %0, %c : tensor<256xf32>
  %2 = arith.mulf %y, %d : tensor<8x32xf32>
  func.return %1, %2 : tensor<256xf32>, tensor<8x32xf32>
}

// CHECK:       func.func @f_k0(%x: tensor<256xf32>) -> tensor<256xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[C:.*]] = asctensor.full 3.000000e+00 : f32 -> tensor<256xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %[[C]] : tensor<256xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[M]], %[[C]] : tensor<256xf32>
// CHECK-NEXT:    func.return %[[A]]
// CHECK:       func.func @f_k1(%y: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[D:.*]] = asctensor.full 3.000000e+00 : f32 -> tensor<8x32xf32>
// CHECK-NEXT:    arith.mulf %y, %[[D]] : tensor<8x32xf32>
// the host keeps no constant
// CHECK:       func.func @f(%x: tensor<256xf32>, %y: tensor<8x32xf32>)
// CHECK-NOT:     asctensor.full
// CHECK:         func.call @f_k0(%x) : (tensor<256xf32>) -> tensor<256xf32>
// CHECK-NEXT:    func.call @f_k1(%y) : (tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK-NOT:     asctensor.full
