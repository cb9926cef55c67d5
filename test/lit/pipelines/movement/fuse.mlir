// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a transpose is a movement kernel of its own; the elementwise ops before and after it are not
// fused into it (they read and write GM)
func.func @f(%x: tensor<32x64xf32>, %y: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = arith.mulf %x, %x : tensor<32x64xf32>
  %t = asctensor.transpose %0 permutation = [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  %1 = arith.addf %t, %y : tensor<64x32xf32>
  func.return %1 : tensor<64x32xf32>
}

// CHECK:      func.func @f_k0(%x: tensor<32x64xf32>) -> tensor<32x64xf32> attributes {asctensor.kernel = "elementwise"}
// CHECK:      func.func @f_k1(%{{.*}}: tensor<32x64xf32>) -> tensor<64x32xf32> attributes {asctensor.kernel = "movement"}
// CHECK-NEXT:   %[[T:.*]] = asctensor.transpose %{{.*}} permutation = [1, 0]
// CHECK-NEXT:   func.return %[[T]]
// CHECK:      func.func @f_k2(%{{.*}}: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {asctensor.kernel = "elementwise"}
