// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// top-2 of float16 rows: a float32 key with -inf clamped to -FLT_MAX, then per round the row max,
// its first index, the value put back from the row minimum when it came out clamped, and a
// masking select of the chosen column (iota != index) before the next round
func.func @top2(%x: tensor<4x37xf16>) -> (tensor<4x2xf16>, tensor<4x2xi32>) {
  %v, %i = asctensor.topk %x k = 2 dim = 1 : tensor<4x37xf16> -> tensor<4x2xf16>, tensor<4x2xi32>
  func.return %v, %i : tensor<4x2xf16>, tensor<4x2xi32>
}

// CHECK-LABEL: func.func @top2(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<4x37xf16> -> tensor<4x37xf32>
// CHECK-NEXT:    %[[LO:.*]] = asctensor.reduce min %[[W]] axes [1] keepdims : tensor<4x37xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[L:.*]] = asctensor.full -3.40282347e+38 : f32 -> tensor<4x37xf32>
// CHECK-NEXT:    %[[K:.*]] = arith.maximumf %[[W]], %[[L]] : tensor<4x37xf32>
// CHECK-NEXT:    %[[IOTA:.*]] = asctensor.iota dimension = 1 : tensor<4x37xi32>
// CHECK-NEXT:    %[[NEG:.*]] = asctensor.full 0xff800000 : f32 -> tensor<4x37xf32>
// CHECK-NEXT:    %[[M0:.*]] = asctensor.reduce max %[[K]] axes [1] keepdims : tensor<4x37xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[I0:.*]] = asctensor.arg_reduce max %[[K]] axis 1 keepdims : tensor<4x37xf32> -> tensor<4x1xi32>
// CHECK:         %[[C0:.*]] = asctensor.compare eq %[[M0]], %{{.*}} : tensor<4x1xf32> -> tensor<4x1xi1>
// CHECK-NEXT:    %[[S0:.*]] = asctensor.select %[[C0]], %[[LO]], %[[M0]] : tensor<4x1xi1>, tensor<4x1xf32>
// CHECK-NEXT:    %[[V0:.*]] = asctensor.cast %[[S0]] : tensor<4x1xf32> -> tensor<4x1xf16>
// CHECK-NEXT:    %[[B0:.*]] = asctensor.broadcast %[[I0]] : tensor<4x1xi32> -> tensor<4x37xi32>
// CHECK-NEXT:    %[[KEEP:.*]] = asctensor.compare eq %[[IOTA]], %[[B0]] : tensor<4x37xi32> -> tensor<4x37xi1>
// CHECK-NEXT:    %[[K1:.*]] = asctensor.select %[[KEEP]], %[[NEG]], %[[K]] : tensor<4x37xi1>, tensor<4x37xf32>
// CHECK-NEXT:    %{{.*}} = asctensor.reduce max %[[K1]] axes [1] keepdims
// CHECK-NEXT:    %[[I1:.*]] = asctensor.arg_reduce max %[[K1]] axis 1 keepdims
// CHECK:         %[[V1:.*]] = asctensor.cast %{{.*}} : tensor<4x1xf32> -> tensor<4x1xf16>
// CHECK-NEXT:    %v = asctensor.concat %[[V0]], %[[V1]] dim = 1 : tensor<4x1xf16>, tensor<4x1xf16> -> tensor<4x2xf16>
// CHECK-NEXT:    %i = asctensor.concat %[[I0]], %[[I1]] dim = 1 : tensor<4x1xi32>, tensor<4x1xi32> -> tensor<4x2xi32>
// CHECK-NEXT:    func.return %v, %i

// the smallest along dim 0: moved last by a transpose, ranked with min/argmin and +inf, moved back
func.func @low(%x: tensor<6x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xi32>) {
  %v, %i = asctensor.topk %x k = 1 dim = 0 smallest : tensor<6x5xf32> -> tensor<1x5xf32>, tensor<1x5xi32>
  func.return %v, %i : tensor<1x5xf32>, tensor<1x5xi32>
}

// CHECK-LABEL: func.func @low(
// CHECK-NEXT:    %[[T:.*]] = asctensor.transpose %x permutation = [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
// CHECK-NEXT:    %{{.*}} = asctensor.reduce max %[[T]] axes [1] keepdims
// CHECK-NEXT:    %{{.*}} = asctensor.full 3.40282347e+38 : f32 -> tensor<5x6xf32>
// CHECK-NEXT:    %[[K:.*]] = arith.minimumf %[[T]], %{{.*}} : tensor<5x6xf32>
// CHECK:         %{{.*}} = asctensor.reduce min %[[K]] axes [1] keepdims
// CHECK-NEXT:    %{{.*}} = asctensor.arg_reduce min %[[K]] axis 1 keepdims
// CHECK-NOT:     asctensor.concat
// CHECK:         %v = asctensor.transpose %{{.*}} permutation = [1, 0] : tensor<5x1xf32> -> tensor<1x5xf32>
// CHECK-NEXT:    %i = asctensor.transpose %{{.*}} permutation = [1, 0] : tensor<5x1xi32> -> tensor<1x5xi32>
