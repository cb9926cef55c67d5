// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2 buffers=1},bufferize,plan-memory,insert-sync{sync_style=flags}' | filecheck %s

// single buffering: one event id (0) per pipe pair, one priming set and one draining wait
func.func @s(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = math.exp %x : tensor<8192xf32>
  %1 = arith.mulf %0, %y : tensor<8192xf32>
  func.return %1 : tensor<8192xf32>
}

// CHECK-LABEL: func.func @s_k0(
// CHECK-SAME:    asctile.buffers = 1 : i64
// CHECK:         ascbuf.set_flag V -> MTE2, %[[E0:.*]]
// CHECK-NEXT:    ascbuf.set_flag MTE3 -> V, %[[E0]]
// CHECK-NEXT:    scf.for %i =
// CHECK-NOT:       arith.remui %i
// CHECK:           ascbuf.wait_flag V -> MTE2, %[[EV:[^ ]*]]
// CHECK:           ascbuf.copy_in %x[%{{.*}}], %x_buf
// CHECK-NEXT:      ascbuf.copy_in %y[%{{.*}}], %y_buf
// CHECK-NEXT:      ascbuf.set_flag MTE2 -> V, %[[EV]]
// CHECK-NEXT:      ascbuf.wait_flag MTE2 -> V, %[[EV]]
// CHECK:           ascbuf.set_flag V -> MTE3, %[[EV]]
// CHECK:           ascbuf.copy_out
// CHECK-NEXT:      ascbuf.set_flag MTE3 -> V, %[[EV]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE2, %[[D0]]
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V, %[[D0]]
// CHECK-NEXT:    func.return
// CHECK-NOT:   ascbuf.wait_flag {{.*}}, %{{.*}}1
