// RUN: pyasc-opt %s -p asctensor-decompose,asctensor-fuse | filecheck %s

// the whole softmax is one row-wise kernel; the host calls it once
func.func @sm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sm_k0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NEXT:    asctensor.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK:         math.exp
// CHECK:         asctensor.reduce sum %{{.*}} axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK:         %[[Y:.*]] = arith.divf
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x8xf32>
// CHECK-NOT:   func.func @sm_k1
// CHECK-LABEL: func.func @sm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[R:.*]] = func.call @sm_k0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x8xf32>

// a column sum followed by a division: the slice tree is one elementwise kernel, the
// broadcast of its result over the rows another
func.func @col(%x: tensor<5x8xf32>) -> tensor<5x8xf32> {
  %s = asctensor.reduce sum %x axes [0] keepdims : tensor<5x8xf32> -> tensor<1x8xf32>
  %b = asctensor.broadcast %s : tensor<1x8xf32> -> tensor<5x8xf32>
  %y = arith.divf %x, %b : tensor<5x8xf32>
  func.return %y : tensor<5x8xf32>
}

// CHECK-LABEL: func.func @col_k0(%x: tensor<5x8xf32>) -> tensor<1x8xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-COUNT-4: arith.addf %{{.*}}, %{{.*}} : tensor<1x8xf32>
// CHECK-NOT:     asctensor.reduce
// CHECK:       func.func @col_k1(%[[S:.*]]: tensor<1x8xf32>, %x: tensor<5x8xf32>) -> tensor<5x8xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[B:.*]] = asctensor.broadcast %[[S]] : tensor<1x8xf32> -> tensor<5x8xf32>
// CHECK-NEXT:    arith.divf %x, %[[B]] : tensor<5x8xf32>
// CHECK-LABEL: func.func @col(%x: tensor<5x8xf32>) -> tensor<5x8xf32> {
// CHECK-NEXT:    %[[P:.*]] = func.call @col_k0(%x) : (tensor<5x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.call @col_k1(%[[P]], %x) : (tensor<1x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
