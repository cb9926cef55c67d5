// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// a row of 2^20 floats does not fit in UB: it is viewed as 256 pieces of 4096 (a free reshape);
// every piece gets its max and its sum of exp (one row-wise kernel), the pieces' statistics are
// combined online (m = max(m_p), s = sum(s_p * exp(m_p - m))), 1/s computed next to them (the row
// prologue of the elementwise kernel, see fuse-long-row.mlir), and the row is scaled by it
func.func @softmax(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<2x1048576xf32>
  func.return %y : tensor<2x1048576xf32>
}

// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %[[P:.*]] = asctensor.reshape %x : tensor<2x1048576xf32> -> tensor<2x256x4096xf32>
// CHECK-NEXT:    %[[MP:.*]] = asctensor.reduce max %[[P]] axes [2] keepdims : tensor<2x256x4096xf32> -> tensor<2x256x1xf32>
// CHECK:         %[[E:.*]] = math.exp %{{.*}} : tensor<2x256x4096xf32>
// CHECK-NEXT:    %[[SP:.*]] = asctensor.reduce sum %[[E]] axes [2] keepdims : tensor<2x256x4096xf32> -> tensor<2x256x1xf32>
// CHECK:         %[[M:.*]] = asctensor.reduce max %{{.*}} axes [1] keepdims : tensor<2x256xf32> -> tensor<2x1xf32>
// CHECK:         %[[W:.*]] = math.exp %{{.*}} : tensor<2x256xf32>
// CHECK-NEXT:    %[[SW:.*]] = arith.mulf %{{.*}}, %[[W]] : tensor<2x256xf32>
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %[[SW]] axes [1] keepdims : tensor<2x256xf32> -> tensor<2x1xf32>
// CHECK:         %[[R:.*]] = arith.divf %{{.*}}, %[[S]] : tensor<2x1xf32>
// CHECK:         %[[RB:.*]] = asctensor.broadcast %[[R]] : tensor<2x1xf32> -> tensor<2x1048576xf32>
// CHECK-NEXT:    arith.mulf %{{.*}}, %[[RB]] : tensor<2x1048576xf32>
// CHECK-NOT:     arith.divf

// a sum over a row of 300007 floats (no divisor near the UB row): pieces of the aligned maximum
// plus a tail reduced on its own, the two partial sums added
func.func @sum(%x: tensor<3x300007xf32>) -> tensor<3xf32> {
  %y = asctensor.reduce sum %x axes [1] : tensor<3x300007xf32> -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK-LABEL: func.func @sum(
// CHECK-NEXT:    %[[MAIN:.*]] = asctensor.slice %x offsets [0, 0] : tensor<3x300007xf32> -> tensor<3x[[N:[0-9]+]]xf32>
// CHECK-NEXT:    %[[P:.*]] = asctensor.reshape %[[MAIN]] : tensor<3x[[N]]xf32> -> tensor<3x[[PC:[0-9]+]]x[[L:[0-9]+]]xf32>
// CHECK-NEXT:    %[[R:.*]] = asctensor.reduce sum %[[P]] axes [2] : tensor<3x[[PC]]x[[L]]xf32> -> tensor<3x[[PC]]xf32>
// CHECK-NEXT:    %[[R2:.*]] = asctensor.reduce sum %[[R]] axes [1] keepdims : tensor<3x[[PC]]xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %[[T:.*]] = asctensor.slice %x offsets [0, [[N]]] : tensor<3x300007xf32> -> tensor<3x{{[0-9]+}}xf32>
// CHECK-NEXT:    %[[RT:.*]] = asctensor.reduce sum %[[T]] axes [1] keepdims : tensor<3x{{[0-9]+}}xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[R2]], %[[RT]] : tensor<3x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = asctensor.reshape %[[S]] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3xf32>
