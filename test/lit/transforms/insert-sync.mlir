// RUN: pyasc-opt %s -p 'insert-sync{sync_style=flags}' | filecheck %s
// RUN: pyasc-opt %s -p 'insert-sync{sync_style=queue}' | filecheck %s --check-prefix=QUEUE

// x, y (MTE2) -> mul, adds (V, into one temporary) -> exp (V) -> copy_out (MTE3), two slots per
// rotating buffer. Flags: MTE2 -> V before the first vector read, V -> MTE3 before the store; the
// write-after-read flags V -> MTE2 and MTE3 -> V wait for the slot's use two tiles back, so they are
// primed before the loop and drained after it; ids are `i mod 2`. A RAW on one pipe (V: mul then adds
// of the temporary) is a barrier. Queues carry the cross-pipe order: only the barriers are placed.
func.func @f_k0(%x: memref<64x256xf32>, %y: memref<64x256xf32>, %out0: memref<64x256xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
  %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
  %y_buf = ascbuf.alloc slots 2 offset 16384 : memref<1x2048xf32, #ascbuf.space<ub>>
  %tmp_buf = ascbuf.alloc slots 1 offset 49152 : memref<1x2048xf32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 32768 : memref<1x2048xf32, #ascbuf.space<ub>>
  %n = arith.constant 2048 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %n : index
    %xs = ascbuf.slot %x_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_in %x[%off], %xs rows %c1 cols %n strides(0, 1) dense : memref<64x256xf32>, memref<1x2048xf32, #ascbuf.space<ub>>
    %ys = ascbuf.slot %y_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_in %y[%off], %ys rows %c1 cols %n strides(0, 1) dense : memref<64x256xf32>, memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.vbinary mul %tmp_buf, %xs, %ys, %n : memref<1x2048xf32, #ascbuf.space<ub>>
    %one = arith.constant 1.000000e+00 : f32
    ascbuf.vscalar adds %tmp_buf, %tmp_buf, %one, %n : memref<1x2048xf32, #ascbuf.space<ub>>, f32
    %os = ascbuf.slot %out_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.vunary exp %os, %tmp_buf, %n : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 16384 dense : memref<1x2048xf32, #ascbuf.space<ub>>, memref<64x256xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @f_k0(
// CHECK:         ascbuf.set_flag V -> MTE2, %[[P0:.*]]
// CHECK-NEXT:    %[[P1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    ascbuf.set_flag V -> MTE2, %[[P1]]
// CHECK-NEXT:    ascbuf.set_flag MTE3 -> V, %[[P0]]
// CHECK-NEXT:    ascbuf.set_flag MTE3 -> V, %[[P1]]
// CHECK-NEXT:    scf.for %i =
// CHECK:           %[[ID:.*]] = arith.remui %i, %{{.*}} : index
// CHECK:           ascbuf.wait_flag V -> MTE2, %[[ID]]
// CHECK-NEXT:      ascbuf.copy_in %x
// CHECK:           ascbuf.copy_in %y
// CHECK-NEXT:      ascbuf.set_flag MTE2 -> V, %[[ID]]
// CHECK-NEXT:      ascbuf.wait_flag MTE2 -> V, %[[ID]]
// CHECK-NEXT:      ascbuf.vbinary mul
// CHECK-NEXT:      ascbuf.set_flag V -> MTE2, %[[ID]]
// CHECK:           ascbuf.barrier V
// CHECK-NEXT:      ascbuf.vscalar adds
// CHECK:           ascbuf.wait_flag MTE3 -> V, %[[ID]]
// CHECK-NEXT:      ascbuf.barrier V
// CHECK-NEXT:      ascbuf.vunary exp
// CHECK-NEXT:      ascbuf.set_flag V -> MTE3, %[[ID]]
// CHECK-NEXT:      ascbuf.wait_flag V -> MTE3, %[[ID]]
// CHECK-NEXT:      ascbuf.copy_out
// CHECK-NEXT:      ascbuf.set_flag MTE3 -> V, %[[ID]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE2, %[[D0]]
// CHECK-NEXT:    %[[D1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE2, %[[D1]]
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V, %[[D0]]
// CHECK-NEXT:    ascbuf.wait_flag MTE3 -> V, %[[D1]]

// QUEUE-LABEL: func.func @f_k0(
// QUEUE-NOT:     ascbuf.set_flag
// QUEUE-NOT:     ascbuf.wait_flag
// QUEUE:         ascbuf.vbinary mul
// QUEUE-NEXT:    arith.constant
// QUEUE-NEXT:    ascbuf.barrier V
// QUEUE-NEXT:    ascbuf.vscalar adds
// QUEUE:         ascbuf.barrier V
// QUEUE-NEXT:    ascbuf.vunary exp
// QUEUE-NOT:     ascbuf.set_flag
// QUEUE-NOT:     ascbuf.wait_flag

// A loop-invariant prologue (a broadcast operand turned into a mask once): the compare writes the
// mask the select reads, so a V barrier separates them; the duplicate between them writes another
// buffer and needs none. The PIPE_ALL after the load orders the load before the compare.
func.func @g_k0(%y: memref<1x32xi32>, %out0: memref<4x32xf16>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %y_buf = ascbuf.alloc slots 1 offset 0 : memref<1x32xi32, #ascbuf.space<ub>>
  %mask = ascbuf.alloc slots 1 offset 256 : memref<4xui8, #ascbuf.space<ub>>
  %sel = ascbuf.alloc slots 1 offset 512 : memref<1x32xf16, #ascbuf.space<ub>>
  %ones = ascbuf.alloc slots 1 offset 768 : memref<1x32xf16, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 1024 : memref<1x32xf16, #ascbuf.space<ub>>
  %n = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zi = arith.constant 0 : i32
  %zh = arith.constant 0.000000e+00 : f16
  %oh = arith.constant 1.000000e+00 : f16
  ascbuf.copy_in %y[%c0], %y_buf rows %c1 cols %n strides(0, 1) : memref<1x32xi32>, memref<1x32xi32, #ascbuf.space<ub>>
  ascbuf.barrier ALL
  ascbuf.vcompare_scalar eq %mask, %y_buf, %zi, %n : memref<4xui8, #ascbuf.space<ub>>, memref<1x32xi32, #ascbuf.space<ub>>, i32
  ascbuf.vdup %ones, %oh, %n : memref<1x32xf16, #ascbuf.space<ub>>, f16
  ascbuf.vselect_scalar %sel, %mask, %ones, %zh, %n : memref<1x32xf16, #ascbuf.space<ub>>, memref<4xui8, #ascbuf.space<ub>>, f16
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %n : index
    %os = ascbuf.slot %out_buf[%i] : memref<1x32xf16, #ascbuf.space<ub>>
    ascbuf.vunary exp %os, %sel, %n : memref<1x32xf16, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 32 dense : memref<1x32xf16, #ascbuf.space<ub>>, memref<4x32xf16>
  }
  func.return
}

// CHECK-LABEL: func.func @g_k0(
// CHECK:         ascbuf.barrier ALL
// CHECK-NEXT:    ascbuf.vcompare_scalar eq
// CHECK-NEXT:    ascbuf.vdup
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vselect_scalar

// QUEUE-LABEL: func.func @g_k0(
// QUEUE:         ascbuf.vdup
// QUEUE-NEXT:    ascbuf.barrier V
// QUEUE-NEXT:    ascbuf.vselect_scalar


// The loop-invariant prologue (a bias broadcast and its activation, computed once before the loop,
// e.g. a linear layer whose product has K = 0): its vector ops run on one pipe and overlap, so each
// op that reads or rewrites what an earlier prologue op wrote gets a V barrier (the independent
// second vdup does not); bufferize's barrier after the prologue orders the loop's first read.
func.func @prologue_k0(%b: memref<1x2048xf32>, %out0: memref<64x256xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
  %b_buf = ascbuf.alloc slots 1 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
  %g_buf = ascbuf.alloc slots 1 offset 16384 : memref<1x2048xf32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 32768 : memref<1x2048xf32, #ascbuf.space<ub>>
  %h_buf = ascbuf.alloc slots 1 offset 65536 : memref<1x2048xf32, #ascbuf.space<ub>>
  %n = arith.constant 2048 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 5.000000e-01 : f32
  ascbuf.vdup %b_buf, %half, %n : memref<1x2048xf32, #ascbuf.space<ub>>, f32
  ascbuf.vdup %h_buf, %half, %n : memref<1x2048xf32, #ascbuf.space<ub>>, f32
  ascbuf.vscalar muls %g_buf, %b_buf, %half, %n : memref<1x2048xf32, #ascbuf.space<ub>>, f32
  ascbuf.vbinary mul %g_buf, %g_buf, %b_buf, %n : memref<1x2048xf32, #ascbuf.space<ub>>
  ascbuf.barrier V
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %n : index
    %os = ascbuf.slot %out_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.vbinary add %os, %g_buf, %h_buf, %n : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 16384 dense : memref<1x2048xf32, #ascbuf.space<ub>>, memref<64x256xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @prologue_k0(
// CHECK:         ascbuf.vdup %b_buf
// CHECK-NEXT:    ascbuf.vdup %h_buf
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vscalar muls %g_buf, %b_buf
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vbinary mul %g_buf, %g_buf, %b_buf
// CHECK-NEXT:    ascbuf.barrier V
// CHECK:         scf.for

// QUEUE-LABEL: func.func @prologue_k0(
// QUEUE:         ascbuf.vdup %b_buf
// QUEUE-NEXT:    ascbuf.vdup %h_buf
// QUEUE-NEXT:    ascbuf.barrier V
// QUEUE-NEXT:    ascbuf.vscalar muls %g_buf, %b_buf
// QUEUE-NEXT:    ascbuf.barrier V
// QUEUE-NEXT:    ascbuf.vbinary mul %g_buf, %g_buf, %b_buf
// QUEUE-NEXT:    ascbuf.barrier V
// QUEUE-NEXT:    scf.for
