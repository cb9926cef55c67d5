// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},bufferize,plan-memory,insert-sync{sync_style=flags}' | filecheck %s

// z = exp(x) * y, double-buffered. Flags order MTE2 -> V (loaded tiles), V -> MTE3 (the
// stored tile); the slot reuse two iterations later needs V -> MTE2 (x and y slots read by
// V before MTE2 refills them) and MTE3 -> V (out slot drained before V writes it again):
// those are primed before the loop and drained after it. Event ids are i mod 2. The two V
// ops touching the temporary need a PIPE_V barrier. Never PIPE_ALL.
func.func @s(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = math.exp %x : tensor<8192xf32>
  %1 = arith.mulf %0, %y : tensor<8192xf32>
  func.return %1 : tensor<8192xf32>
}

// CHECK-LABEL: func.func @s_k0(
// CHECK:         ascbuf.set_flag V -> MTE2, %[[E0:.*]]
// CHECK-NEXT:    %[[E1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    ascbuf.set_flag V -> MTE2, %[[E1]]
// CHECK-NEXT:    ascbuf.set_flag MTE3 -> V, %[[E0]]
// CHECK-NEXT:    ascbuf.set_flag MTE3 -> V, %[[E1]]
// CHECK-NEXT:    scf.for %i =
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[EV:.*]] = arith.remui %i, %[[TWO]] : index
// CHECK:           %[[XS:.*]] = ascbuf.slot %x_buf[%i]
// CHECK-NEXT:      ascbuf.wait_flag V -> MTE2, %[[EV]]
// CHECK-NEXT:      ascbuf.copy_in %x[%{{.*}}], %[[XS]]
// CHECK-NEXT:      %[[YS:.*]] = ascbuf.slot %y_buf[%i]
// CHECK-NEXT:      ascbuf.copy_in %y[%{{.*}}], %[[YS]]
// CHECK-NEXT:      ascbuf.set_flag MTE2 -> V, %[[EV]]
// CHECK-NEXT:      ascbuf.wait_flag MTE2 -> V, %[[EV]]
// CHECK-NEXT:      ascbuf.vunary exp %tmp_buf, %[[XS]], %{{.*}}
// CHECK-NEXT:      %[[OS:.*]] = ascbuf.slot %out_buf[%i]
// CHECK-NEXT:      ascbuf.wait_flag MTE3 -> V, %[[EV]]
// CHECK-NEXT:      ascbuf.barrier V
// CHECK-NEXT:      ascbuf.vbinary mul %[[OS]], %tmp_buf, %[[YS]], %{{.*}}
// CHECK-NEXT:      ascbuf.set_flag V -> MTE3, %[[EV]]
// CHECK-NEXT:      ascbuf.set_flag V -> MTE2, %[[EV]]
// CHECK-NEXT:      ascbuf.wait_flag V -> MTE3, %[[EV]]
// CHECK-NEXT:      ascbuf.copy_out %[[OS]], %out0[%{{.*}}]
// CHECK-NEXT:      ascbuf.set_flag MTE3 -> V, %[[EV]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE2, %[[D0]]
// CHECK-NEXT:    %[[D1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE2, %[[D1]]
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V, %[[D0]]
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V, %[[D1]]
// CHECK-NEXT:    func.return
// CHECK-NOT:   ALL
