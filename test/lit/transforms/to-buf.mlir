// RUN: pyasc-opt %s -p 'to-buf{sync_style=flags}' | filecheck %s
// RUN: pyasc-opt %s -p to-buf | filecheck %s --check-prefix=QUEUE

// the buffer stage: bufferize (loaded and stored tiles rotate through two slots, the temporary has
// one and the add computes in place), plan-memory (rotating buffers first, then the temporary) and
// insert-sync (flags, or in the queue style only the barriers)
func.func @k(%x: memref<4096xf32>, %y: memref<4096xf32>, %out0: memref<4096xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.constant 2048 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %off = arith.muli %i, %n : index
    %x_1 = asctile.load %x[%off] rows %c1 cols %n strides(0, 1) dense : memref<4096xf32> -> tensor<1x2048xf32>
    %y_1 = asctile.load %y[%off] rows %c1 cols %n strides(0, 1) dense : memref<4096xf32> -> tensor<1x2048xf32>
    %m = arith.mulf %x_1, %y_1 : tensor<1x2048xf32>
    %one = arith.constant 1.000000e+00 : f32
    %s = asctile.splat %one : f32 -> tensor<1x2048xf32>
    %a = arith.addf %m, %s : tensor<1x2048xf32>
    %e = math.exp %a : tensor<1x2048xf32>
    asctile.store %e, %out0[%off] rows %c1 cols %n stride 4096 dense : tensor<1x2048xf32>, memref<4096xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK-NEXT:    %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %y_buf = ascbuf.alloc slots 2 offset 16384 : memref<1x2048xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %m_buf = ascbuf.alloc slots 1 offset 49152 : memref<1x2048xf32, #ascbuf.space<ub>>
// CHECK:         %e_buf = ascbuf.alloc slots 2 offset 32768 : memref<1x2048xf32, #ascbuf.space<ub>>
// CHECK:         ascbuf.set_flag V -> MTE2
// CHECK:         scf.for %i =
// CHECK:           ascbuf.wait_flag V -> MTE2
// CHECK-NEXT:      ascbuf.copy_in %x
// CHECK:           ascbuf.copy_in %y
// CHECK-NEXT:      ascbuf.set_flag MTE2 -> V
// CHECK-NEXT:      ascbuf.wait_flag MTE2 -> V
// CHECK-NEXT:      ascbuf.vbinary mul %m_buf,
// CHECK:           ascbuf.vscalar adds %m_buf, %m_buf,
// CHECK:           ascbuf.vunary exp %{{.*}}, %m_buf,
// CHECK-NEXT:      ascbuf.set_flag V -> MTE3
// CHECK-NEXT:      ascbuf.wait_flag V -> MTE3
// CHECK-NEXT:      ascbuf.copy_out
// CHECK-NOT:     asctile.load
// CHECK-NOT:     asctile.store

// QUEUE-NOT:   ascbuf.set_flag
// QUEUE:       ascbuf.vbinary mul
// QUEUE:       ascbuf.barrier V
// QUEUE-NEXT:  ascbuf.vscalar adds
// QUEUE-NOT:   ascbuf.set_flag
