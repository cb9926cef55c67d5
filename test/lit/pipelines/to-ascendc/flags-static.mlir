// RUN: pyasc-opt %s -p 'to-tile{cores=8},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// flags style: every buffer is a static LocalTensor at its planned UB address (2 slots of
// 8 x 104 f32 = 832 elements for rotating buffers), ascbuf flags become SetFlag/WaitFlag,
// barriers PipeBarrier; no TPipe or TQue
func.func @b(%x: tensor<64x100xf32>, %r: tensor<100xf32>, %c: tensor<64x1xf32>, %s: tensor<1xf32>) -> tensor<64x100xf32> {
  %rb = asctensor.broadcast %r : tensor<100xf32> -> tensor<64x100xf32>
  %0 = arith.addf %x, %rb : tensor<64x100xf32>
  %cb = asctensor.broadcast %c : tensor<64x1xf32> -> tensor<64x100xf32>
  %1 = arith.mulf %0, %cb : tensor<64x100xf32>
  %sb = asctensor.broadcast %s : tensor<1xf32> -> tensor<64x100xf32>
  %2 = arith.subf %1, %sb : tensor<64x100xf32>
  func.return %2 : tensor<64x100xf32>
}

// CHECK-LABEL: func.func @b_k0(%x: !ascendc.gm_addr, %r: !ascendc.gm_addr, %c: !ascendc.gm_addr, %s: !ascendc.gm_addr, %out0: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "aiv_only"} {
// CHECK-NEXT:    ascendc.init_soc_state
// CHECK-NEXT:    %xGm = ascendc.global_tensor %x size 6400 : !ascendc.global_tensor<f32>
// CHECK-NEXT:    %rGm = ascendc.global_tensor %r size 100 : !ascendc.global_tensor<f32>
// CHECK-NEXT:    %cGm = ascendc.global_tensor %c size 64 : !ascendc.global_tensor<f32>
// CHECK-NEXT:    %sGm = ascendc.global_tensor %s size 1 : !ascendc.global_tensor<f32>
// CHECK-NEXT:    %out0Gm = ascendc.global_tensor %out0 size 6400 : !ascendc.global_tensor<f32>
// the row vector r is loaded once for every tile (one slot, before the loop); the scalar s needs
// no buffer (one GetValue, the scalar of an Adds)
// CHECK-NEXT:    %r_buf = ascendc.local_tensor VECCALC address 0 size 832 : !ascendc.local_tensor<f32>
// CHECK-NEXT:    %x_buf = ascendc.local_tensor VECIN address 3328 size 1664 : !ascendc.local_tensor<f32>
// the column c, one 32 B block per row of a tile (2 slots of 8 x 8)
// CHECK-NEXT:    %c_col_buf = ascendc.local_tensor VECIN address 9984 size 128 : !ascendc.local_tensor<f32>
// x + r and its product with c share one temporary (the product is computed in place)
// CHECK-NEXT:    %tmp_buf = ascendc.local_tensor VECCALC address 17152 size 832 : !ascendc.local_tensor<f32>
// CHECK-NEXT:    %out_buf = ascendc.local_tensor VECOUT address 10496 size 1664 : !ascendc.local_tensor<f32>
// CHECK:         %blockIdx = ascendc.get_block_idx : index
// CHECK:         scf.for
// CHECK:           ascendc.data_copy_pad %{{.*}}, %{{.*}}, {%{{.*}}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK-NOT:     pipe_barrier PIPE_ALL
// CHECK:         ascendc.set_flag V_MTE2, %[[E0:.*]]
// CHECK:         ascendc.set_flag V_MTE2, %[[E1:.*]]
// CHECK-NEXT:    ascendc.set_flag MTE3_V, %[[E0]]
// CHECK-NEXT:    ascendc.set_flag MTE3_V, %[[E1]]
// CHECK-NEXT:    scf.for %i =
// CHECK:           ascendc.wait_flag V_MTE2, %[[EV:.*]]
// the rotating slot: x_buf[(i mod 2) * 832]
// CHECK:           %[[SLOT:.*]] = arith.remui %i, %{{.*}} : index
// CHECK-NEXT:      %[[SE:.*]] = arith.constant 832 : index
// CHECK-NEXT:      %[[SOFF:.*]] = arith.muli %[[SLOT]], %[[SE]] : index
// CHECK-NEXT:      %[[XL:.*]] = ascendc.subview %x_buf[%[[SOFF]]] : !ascendc.local_tensor<f32>
// CHECK-NEXT:      %[[XG:.*]] = ascendc.subview %xGm[%{{.*}}] : !ascendc.global_tensor<f32>
// rows of 100 f32 (400 B) are not whole 32 B blocks: DataCopyPad, one block per row, no gaps
// CHECK:           %[[LEN:.*]] = arith.constant 400 : index
// CHECK:           ascendc.data_copy_pad %[[XL]], %[[XG]], {%[[ROWS:.*]], %[[LEN]], %[[Z:.*]], %[[Z]]} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK:           ascendc.set_flag MTE2_V, %[[EV]]
// CHECK:           ascendc.wait_flag MTE2_V, %[[EV]]
// CHECK-NEXT:      ascendc.add %tmp_buf, %[[XL]], %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>
// CHECK-NEXT:      ascendc.set_flag V_MTE2, %[[EV]]
// the column's values, read by the scalar unit once MTE2 wrote them, scale the rows in place
// CHECK-NEXT:      ascendc.wait_flag MTE2_S, %{{.*}}
// CHECK-NEXT:      ascendc.pipe_barrier PIPE_V
// CHECK:           ascendc.muls %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>, f32
// CHECK:           ascendc.wait_flag MTE3_V, %[[EV]]
// CHECK-NEXT:      ascendc.pipe_barrier PIPE_V
// CHECK:           %[[OL:.*]] = ascendc.subview %out_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK-NEXT:      ascendc.adds %[[OL]], %tmp_buf, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:      ascendc.set_flag V_MTE3, %[[EV]]
// CHECK:           ascendc.wait_flag V_MTE3, %[[EV]]
// CHECK-NEXT:      %[[OG:.*]] = ascendc.subview %out0Gm[%{{.*}}] : !ascendc.global_tensor<f32>
// CHECK-NEXT:      ascendc.data_copy_pad %[[OG]], %[[OL]], {%[[ROWS]], %[[LEN]], %[[Z]], %[[Z]]} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
// CHECK-NEXT:      ascendc.set_flag MTE3_V, %[[EV]]
// CHECK-NEXT:    }
// CHECK:         ascendc.wait_flag V_MTE2,
// CHECK:         func.return
// CHECK-NOT:     ascendc.tpipe
// CHECK-NOT:     ascendc.tque
// CHECK-NOT:     PIPE_ALL
// CHECK-LABEL: func.func @b(%x: memref<64x100xf32>, %r: memref<100xf32>, %c: memref<64x1xf32>, %s: memref<1xf32>, %out0: memref<64x100xf32>) {
// CHECK-NEXT:    ascendc.launch @b_k0<<<8>>> (%x, %r, %c, %s, %out0) : memref<64x100xf32>, memref<100xf32>, memref<64x1xf32>, memref<1xf32>, memref<64x100xf32>
// CHECK-NEXT:    func.return
// CHECK-NOT:   func.call
