// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s

// a transpose into rows of 3 float16 (an NCHW image made NHWC): the table's runs are 3 columns, narrower than
// 32 B of it; its first 8 runs (24 lanes, whole 32 B) are lane q's q * 512 (its channel's run in the footprint)
// plus floor(q / 3) * (2 - 3 * 512) (its output row), the run index from the lane's float value through Cast
// (CAST_FLOOR), in the two spans of 24 lanes after them; runs [k, 2k) from k = 8 are runs [0, k) plus k * 2 B
func.func @rgb(%x: tensor<2x3x4096xf16>) -> tensor<2x4096x3xf16> {
  %t = asctensor.transpose %x permutation = [0, 2, 1] : tensor<2x3x4096xf16> -> tensor<2x4096x3xf16>
  func.return %t : tensor<2x4096x3xf16>
}

// CHECK:      ascendc.create_vec_index %[[T:.*]], %{{.*}}, %[[N:.*]] : !ascendc.local_tensor<i32>, i32
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %[[W0:.*]] = ascendc.subview %[[T]][%[[N]]] : !ascendc.local_tensor<i32>
// CHECK-NEXT: %[[W:.*]] = ascendc.reinterpret_cast %[[W0]] : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<f32>
// CHECK:      %[[RIX:.*]] = ascendc.subview %[[T]][%{{.*}}] : !ascendc.local_tensor<i32>
// CHECK-NEXT: ascendc.cast %[[W]], %[[T]], CAST_NONE, %[[N]]
// CHECK:      ascendc.adds %[[W]], %[[W]], %{{.*}}, %[[N]] : !ascendc.local_tensor<f32>, f32
// CHECK:      %[[THIRD:.*]] = arith.constant 0.333333343 : f32
// CHECK-NEXT: ascendc.muls %[[W]], %[[W]], %[[THIRD]], %[[N]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.cast %[[RIX]], %[[W]], CAST_FLOOR, %[[N]]
// CHECK-NEXT: %[[C512:.*]] = arith.constant 512 : i32
// CHECK-NEXT: ascendc.muls %[[T]], %[[T]], %[[C512]], %[[N]]
// CHECK:      %[[STEP:.*]] = arith.constant -1534 : i32
// CHECK-NEXT: ascendc.muls %[[RIX]], %[[RIX]], %[[STEP]], %[[N]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.add %[[T]], %[[T]], %[[RIX]], %[[N]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %{{.*}} = ascendc.subview %[[T]][%[[N]]]
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C16]], %[[N]]
// CHECK:      scf.for
// CHECK:        ascendc.gather
