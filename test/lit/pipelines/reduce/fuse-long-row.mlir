// RUN: pyasc-opt %s --split-input-file -p asctensor-decompose,asctensor-fuse | filecheck %s

// a softmax over rows of 2^20 floats is two kernels: the pieces' max and sum (row-wise over the
// pieces), then one elementwise kernel whose row prologue combines the pieces of each row (short
// rows of 256 statistics) before it normalises the row
func.func @sm(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<2x1048576xf32>
  func.return %y : tensor<2x1048576xf32>
}

// CHECK-LABEL: func.func @sm_k0(%x: tensor<2x1048576xf32>) -> (tensor<2x256x1xf32>, tensor<2x256x1xf32>) attributes {asctensor.kernel = "rowwise"} {
// CHECK:         asctensor.reduce max %{{.*}} axes [2] keepdims : tensor<2x256x4096xf32> -> tensor<2x256x1xf32>
// CHECK:         asctensor.reduce sum %{{.*}} axes [2] keepdims : tensor<2x256x4096xf32> -> tensor<2x256x1xf32>
// CHECK-LABEL: func.func @sm_k1(
// CHECK-SAME:    attributes {asctensor.kernel = "elementwise"} {
// CHECK:         asctensor.reduce max %{{.*}} axes [1] keepdims : tensor<2x256xf32> -> tensor<2x1xf32>
// CHECK:         asctensor.reduce sum %{{.*}} axes [1] keepdims : tensor<2x256xf32> -> tensor<2x1xf32>
// CHECK:         asctensor.broadcast %{{.*}} : tensor<2x1xf32> -> tensor<2x1048576xf32>
// CHECK:         func.return %{{.*}} : tensor<2x1048576xf32>
// CHECK-NOT:   func.func @sm_k2
// CHECK-LABEL: func.func @sm(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
// CHECK-NEXT:    %{{.*}}, %{{.*}} = func.call @sm_k0(%x)
// CHECK-NEXT:    %[[Y:.*]] = func.call @sm_k1(
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x1048576xf32>

// -----

// a row-wise result used elsewhere than as a broadcast of the next kernel (here also returned) keeps
// its own kernel
func.func @kept(%x: tensor<2x64xf32>, %z: tensor<2x65536xf32>) -> (tensor<2x65536xf32>, tensor<2x1xf32>) {
  %s = asctensor.reduce sum %x axes [1] keepdims : tensor<2x64xf32> -> tensor<2x1xf32>
  %b = asctensor.broadcast %s : tensor<2x1xf32> -> tensor<2x65536xf32>
  %y = arith.mulf %z, %b : tensor<2x65536xf32>
  func.return %y, %s : tensor<2x65536xf32>, tensor<2x1xf32>
}

// CHECK-LABEL: func.func @kept_k0(%x: tensor<2x64xf32>) -> tensor<2x1xf32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-LABEL: func.func @kept_k1(
// CHECK-SAME:    attributes {asctensor.kernel = "elementwise"} {
// CHECK-NOT:     asctensor.reduce

// -----

// rows of 64 beside rows of 4096 are too long a prologue (every tile would recompute it): two kernels
func.func @short(%x: tensor<2x64xf32>, %z: tensor<2x4096xf32>) -> tensor<2x4096xf32> {
  %s = asctensor.reduce sum %x axes [1] keepdims : tensor<2x64xf32> -> tensor<2x1xf32>
  %b = asctensor.broadcast %s : tensor<2x1xf32> -> tensor<2x4096xf32>
  %y = arith.mulf %z, %b : tensor<2x4096xf32>
  func.return %y : tensor<2x4096xf32>
}

// CHECK-LABEL: func.func @short_k0(%x: tensor<2x64xf32>) -> tensor<2x1xf32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-LABEL: func.func @short_k1(
// CHECK-SAME:    attributes {asctensor.kernel = "elementwise"} {
// CHECK-NOT:     asctensor.reduce

// -----

// the same over rows of 65536: the sum of each short row is the prologue of the one kernel
func.func @joined(%x: tensor<2x64xf32>, %z: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  %s = asctensor.reduce sum %x axes [1] keepdims : tensor<2x64xf32> -> tensor<2x1xf32>
  %b = asctensor.broadcast %s : tensor<2x1xf32> -> tensor<2x65536xf32>
  %y = arith.mulf %z, %b : tensor<2x65536xf32>
  func.return %y : tensor<2x65536xf32>
}

// CHECK-LABEL: func.func @joined_k0(%x: tensor<2x64xf32>, %z: tensor<2x65536xf32>) -> tensor<2x65536xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %x axes [1] keepdims : tensor<2x64xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[B:.*]] = asctensor.broadcast %[[S]] : tensor<2x1xf32> -> tensor<2x65536xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %z, %[[B]] : tensor<2x65536xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x65536xf32>
// CHECK-NOT:   func.func @joined_k1
