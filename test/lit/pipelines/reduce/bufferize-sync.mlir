// RUN: pyasc-opt %s -p 'to-tile{cores=2},to-buf{sync_style=flags}' | filecheck %s

// the reductions become ascbuf.vreduce (with a work buffer), the row broadcasts ascbuf.vrow of
// the consuming op's kind. A vrow reads the reduced values as scalars: the scalar unit waits for
// the vector unit (V -> S) first.
func.func @sm(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<64x16xf32>
  func.return %y : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @sm_k0(
// CHECK:         %x_buf = ascbuf.alloc slots 2 offset 0 : memref<32x16xf32, #ascbuf.space<ub>>
// CHECK:         %out_buf = ascbuf.alloc slots 2 offset {{[0-9]+}} : memref<32x16xf32, #ascbuf.space<ub>>
// CHECK:         scf.for %i =
// CHECK:           %[[XS:.*]] = ascbuf.slot %x_buf[%i] : memref<32x16xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.copy_in %x[%{{.*}}], %[[XS]] rows %{{.*}} cols %[[C:.*]] strides(16, 1) dense
// CHECK-NEXT:      ascbuf.set_flag MTE2 -> V, %[[EV:.*]]
// CHECK-NEXT:      ascbuf.wait_flag MTE2 -> V, %[[EV]]
// CHECK-NEXT:      ascbuf.vreduce max %[[M:.*]], %[[XS]], %{{.*}} cols %[[C]] : memref<32x8xf32, #ascbuf.space<ub>>, memref<32x16xf32, #ascbuf.space<ub>>, memref<32x8xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.set_flag V -> S, %[[E0:.*]]
// CHECK-NEXT:      ascbuf.wait_flag V -> S, %[[E0]]
// CHECK-NEXT:      ascbuf.vrow sub %[[D:.*]], %[[XS]], %[[M]] : memref<32x16xf32, #ascbuf.space<ub>>, memref<32x8xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.barrier V
// CHECK-NEXT:      ascbuf.vunary exp %[[E:.*]], %[[D]], %{{.*}} : memref<32x16xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.barrier V
// CHECK-NEXT:      ascbuf.vreduce sum %[[Z:.*]], %[[E]], %{{.*}} cols %[[C]]
// CHECK-NEXT:      ascbuf.set_flag V -> S, %[[E0]]
// CHECK:           ascbuf.wait_flag V -> S, %[[E0]]
// CHECK:           ascbuf.vrow div %[[OS:.*]], %[[E]], %[[Z]] : memref<32x16xf32, #ascbuf.space<ub>>, memref<32x8xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.set_flag V -> MTE3, %[[EV]]
// CHECK:           ascbuf.wait_flag V -> MTE3, %[[EV]]
// CHECK-NEXT:      ascbuf.copy_out %[[OS]], %out0[%{{.*}}] rows %{{.*}} cols %[[C]] stride 16 dense
