// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=1},bufferize,plan-memory,insert-sync{sync_style=flags}' | filecheck %s

// a chain of dependent V ops (the second in place) gets one PIPE_V barrier before each consumer
// and no flag between V ops; independent loads need no barrier
func.func @c(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = math.exp %x : tensor<4096xf32>
  %1 = math.absf %0 : tensor<4096xf32>
  %2 = math.sqrt %1 : tensor<4096xf32>
  func.return %2 : tensor<4096xf32>
}

// CHECK-LABEL: func.func @c_k0(
// CHECK:         ascbuf.wait_flag MTE2 -> V
// CHECK-NEXT:    ascbuf.vunary exp %tmp_buf,
// CHECK-NEXT:    ascbuf.set_flag V -> MTE2
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vunary abs %tmp_buf, %tmp_buf,
// CHECK-NEXT:    %{{.*}} = ascbuf.slot
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vunary sqrt
// CHECK-NEXT:    ascbuf.set_flag V -> MTE3
// CHECK-NOT:     ascbuf.barrier
// CHECK-NOT:     V -> V
// CHECK-NOT:     ALL
