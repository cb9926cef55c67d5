// RUN: pyasc-opt %s -p 'to-tile{cores=2},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// per row of the 32-row tile: ReduceMax/ReduceSum into an 8-wide block of a local tensor, then
// the scalar unit reads the value back (GetValue) and applies it with Adds (of -max) / Muls
func.func @sm(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<64x16xf32>
  func.return %y : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @sm_k0(%x: !ascendc.gm_addr, %out0: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64, ascendc.kernel_type = "aiv_only"} {
// CHECK:         scf.for %i =
// CHECK:           ascendc.set_flag MTE2_V, %[[EV:.*]]
// CHECK-NEXT:      ascendc.wait_flag MTE2_V, %[[EV]]
// CHECK:           scf.for %r =
// CHECK:             %[[MAX:.*]] = ascendc.subview %tmp_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK:             ascendc.reduce_max %[[MAX]], %{{.*}}, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      ascendc.set_flag V_S, %[[E0:.*]]
// CHECK-NEXT:      ascendc.wait_flag V_S, %[[E0]]
// CHECK-NEXT:      scf.for %r_1 =
// CHECK:             %[[V:.*]] = ascendc.get_value %tmp_buf[%{{.*}}] : !ascendc.local_tensor<f32> -> f32
// CHECK:             %[[NEG:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT:        ascendc.adds %{{.*}}, %{{.*}}, %[[NEG]], %{{.*}} : !ascendc.local_tensor<f32>, f32
// CHECK:           ascendc.exp
// CHECK:           scf.for %r_2 =
// CHECK:             ascendc.reduce_sum %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>
// CHECK:           ascendc.set_flag V_S, %[[E0]]
// CHECK-NEXT:      ascendc.wait_flag V_S, %[[E0]]
// CHECK:           scf.for %r_3 =
// CHECK:             ascendc.get_value %tmp_buf_{{[0-9]+}}[%{{.*}}] : !ascendc.local_tensor<f32> -> f32
// CHECK:             ascendc.muls %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>, f32
// CHECK:           ascendc.set_flag V_MTE3, %[[EV]]
