// RUN: pyasc-opt %s -p ascendc-insert-sync | filecheck %s

// A double-buffered load (MTE2) -> exp, relu (V, one output buffer) -> store (MTE3) loop with no
// synchronisation. The pass adds, right before the op that must wait: MTE2 -> V before exp (RAW on the
// input slot), a V barrier before relu (RAW on the output inside the vector pipe), V -> MTE3 before the
// store, MTE3 -> V before the next exp (WAR on the single output buffer) and V -> MTE2 before a load into
// a slot the vector unit read two iterations earlier.
func.func @k(%x: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aiv_only"} {
  %x_gm = ascendc.global_tensor %x size 1024 : !ascendc.global_tensor<f32>
  %z_gm = ascendc.global_tensor %z size 1024 : !ascendc.global_tensor<f32>
  %a = ascendc.local_tensor VECIN address 0 size 512 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor VECOUT address 2048 size 256 : !ascendc.local_tensor<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 256 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %s = arith.remsi %i, %c2 : index
    %off = arith.muli %s, %n : index
    %slot = ascendc.subview %a[%off] : !ascendc.local_tensor<f32>
    %goff = arith.muli %i, %n : index
    %src = ascendc.subview %x_gm[%goff] : !ascendc.global_tensor<f32>
    ascendc.data_copy %slot, %src, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.exp %b, %slot, %n : !ascendc.local_tensor<f32>
    ascendc.relu %b, %b, %n : !ascendc.local_tensor<f32>
    %dst = ascendc.subview %z_gm[%goff] : !ascendc.global_tensor<f32>
    ascendc.data_copy %dst, %b, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
  }
  func.return
}

// CHECK:      scf.for
// CHECK:        ascendc.set_flag V_MTE2, %[[ID0:.*]]
// CHECK-NEXT:   ascendc.wait_flag V_MTE2, %[[ID0]]
// CHECK-NEXT:   ascendc.data_copy %slot, %src
// CHECK:        ascendc.set_flag MTE2_V, %[[ID1:.*]]
// CHECK-NEXT:   ascendc.wait_flag MTE2_V, %[[ID1]]
// CHECK:        ascendc.set_flag MTE3_V, %[[ID2:.*]]
// CHECK-NEXT:   ascendc.wait_flag MTE3_V, %[[ID2]]
// CHECK-NEXT:   ascendc.exp %b, %slot
// CHECK-NEXT:   ascendc.pipe_barrier PIPE_V
// CHECK-NEXT:   ascendc.relu %b, %b
// CHECK:        ascendc.set_flag V_MTE3, %[[ID3:.*]]
// CHECK-NEXT:   ascendc.wait_flag V_MTE3, %[[ID3]]
// CHECK-NEXT:   ascendc.data_copy %dst, %b
// CHECK-NOT:    ascendc.set_flag
// CHECK:      func.return
