// RUN: pyasc-opt %s -p ascendc-alloc-event-ids --split-input-file | filecheck %s

// A TPipe kernel with a double-buffered MTE2 -> V flag (id `i mod 2`, primed and drained with the
// constants 0 and 1) and a V -> S flag on id 0. Each id gets an AllocEventID right after the TPipe and a
// ReleaseEventID before the return; the computed id becomes a select over the two allocated ids.
func.func @k(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aiv_only"} {
  %pipe = ascendc.tpipe : !ascendc.tpipe
  %x_gm = ascendc.global_tensor %x size 1024 : !ascendc.global_tensor<f32>
  %a = ascendc.local_tensor VECIN address 0 size 512 : !ascendc.local_tensor<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 256 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %s = arith.remui %i, %c2 : index
    %ev = arith.addi %s, %c0 : index
    ascendc.set_flag MTE2_V, %ev
    ascendc.wait_flag MTE2_V, %ev
    ascendc.set_flag V_S, %c0
    ascendc.wait_flag V_S, %c0
  }
  ascendc.set_flag MTE2_V, %c0
  ascendc.wait_flag MTE2_V, %c0
  ascendc.set_flag MTE2_V, %c1
  ascendc.wait_flag MTE2_V, %c1
  func.return
}

// CHECK:      %pipe = ascendc.tpipe : !ascendc.tpipe
// CHECK-NEXT: %mte2VId0 = ascendc.alloc_event_id %pipe, MTE2_V : index
// CHECK-NEXT: %mte2VId1 = ascendc.alloc_event_id %pipe, MTE2_V : index
// CHECK-NEXT: %vSId0 = ascendc.alloc_event_id %pipe, V_S : index
// CHECK:      scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:   %s = arith.remui %i, %c2 : index
// CHECK-NEXT:   %ev = arith.addi %s, %c0 : index
// CHECK-NEXT:   %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %[[EQ:.*]] = arith.cmpi eq, %ev, %{{.*}} : index
// CHECK-NEXT:   %[[SEL:.*]] = arith.select %[[EQ]], %mte2VId0, %mte2VId1 : index
// CHECK-NEXT:   ascendc.set_flag MTE2_V, %[[SEL]]
// CHECK-NEXT:   ascendc.wait_flag MTE2_V, %[[SEL]]
// CHECK-NEXT:   ascendc.set_flag V_S, %vSId0
// CHECK-NEXT:   ascendc.wait_flag V_S, %vSId0
// CHECK-NEXT: }
// CHECK-NEXT: ascendc.set_flag MTE2_V, %mte2VId0
// CHECK-NEXT: ascendc.wait_flag MTE2_V, %mte2VId0
// CHECK-NEXT: ascendc.set_flag MTE2_V, %mte2VId1
// CHECK-NEXT: ascendc.wait_flag MTE2_V, %mte2VId1
// CHECK-NEXT: ascendc.release_event_id %pipe, MTE2_V, %mte2VId0
// CHECK-NEXT: ascendc.release_event_id %pipe, MTE2_V, %mte2VId1
// CHECK-NEXT: ascendc.release_event_id %pipe, V_S, %vSId0
// CHECK-NEXT: func.return

// -----

// Without a TPipe (static tensors) the documented fixed ids stay.
func.func @static(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aiv_only"} {
  ascendc.init_soc_state
  %c0 = arith.constant 0 : index
  ascendc.set_flag MTE2_V, %c0
  ascendc.wait_flag MTE2_V, %c0
  ascendc.pipe_barrier PIPE_ALL
  func.return
}

// CHECK-LABEL: func.func @static
// CHECK-NOT:   alloc_event_id
// CHECK:       ascendc.set_flag MTE2_V, %c0
// CHECK-NOT:   alloc_event_id

// -----

// An id the pass cannot evaluate (here the block index) leaves the core as it is.
func.func @unknown(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aiv_only"} {
  %pipe = ascendc.tpipe : !ascendc.tpipe
  %c0 = arith.constant 0 : index
  %id = ascendc.get_block_idx : index
  ascendc.set_flag MTE2_V, %id
  ascendc.wait_flag MTE2_V, %id
  func.return
}

// CHECK-LABEL: func.func @unknown
// CHECK-NOT:   alloc_event_id
// CHECK:       ascendc.set_flag MTE2_V, %id
