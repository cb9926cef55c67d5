// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// softmax = exp(x - max) / sum(exp(x - max)): the row max and sum are keepdims reductions over
// the softmax axis, broadcast back to the row shape
func.func @sm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sm(
// CHECK-NEXT:    %[[M:.*]] = asctensor.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[MB:.*]] = asctensor.broadcast %[[M]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.subf %x, %[[MB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[S]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.*]] = asctensor.reduce sum %[[E]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[ZB:.*]] = asctensor.broadcast %[[Z]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.divf %[[E]], %[[ZB]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x8xf32>

// log_softmax = (x - max) - log(sum(exp(x - max)))
func.func @lsm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = asctensor.log_softmax %x axis 1 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @lsm(
// CHECK-NEXT:    %[[M:.*]] = asctensor.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[MB:.*]] = asctensor.broadcast %[[M]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.subf %x, %[[MB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[S]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.*]] = asctensor.reduce sum %[[E]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[L:.*]] = math.log %[[Z]] : tensor<4x1xf32>
// CHECK-NEXT:    %[[LB:.*]] = asctensor.broadcast %[[L]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.subf %[[S]], %[[LB]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x8xf32>

// float16 softmax is computed in float32 and rounded once
func.func @h(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %y = asctensor.softmax %x axis 1 : tensor<4x8xf16>
  func.return %y : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @h(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT:    asctensor.reduce max %[[W]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK:         asctensor.reduce sum %{{.*}} axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK:         %[[D:.*]] = arith.divf %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = asctensor.cast %[[D]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x8xf16>
// CHECK-NOT:   asctensor.softmax
