// RUN: pyasc-opt %s --split-input-file -p 'convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s
// RUN: pyasc-opt %s --split-input-file -p convert-ascbuf-to-ascendc | filecheck %s --check-prefix=QUEUE

// flags: every buffer is a static LocalTensor at its planned UB address (a rotating buffer holds its
// slots back to back, the slot of tile i at (i mod 2) * 2048), a dense window is one DataCopy, the
// buffer ops become the instructions their kinds name, flags and barriers become SetFlag/WaitFlag and
// PipeBarrier; the host's call of the kernel becomes a launch on the kernel's block_dim cores
func.func @k(%x: memref<4096xf32>, %out0: memref<4096xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
  %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 16384 : memref<1x2048xf32, #ascbuf.space<ub>>
  %n = arith.constant 2048 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  ascbuf.set_flag V -> MTE2, %c0
  ascbuf.set_flag V -> MTE2, %c1
  ascbuf.set_flag MTE3 -> V, %c0
  ascbuf.set_flag MTE3 -> V, %c1
  scf.for %i = %c0 to %c2 step %c1 {
    %id = arith.remui %i, %c2 : index
    %off = arith.muli %i, %n : index
    %xs = ascbuf.slot %x_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.wait_flag V -> MTE2, %id
    ascbuf.copy_in %x[%off], %xs rows %c1 cols %n strides(0, 1) dense : memref<4096xf32>, memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.set_flag MTE2 -> V, %id
    ascbuf.wait_flag MTE2 -> V, %id
    %os = ascbuf.slot %out_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.wait_flag MTE3 -> V, %id
    ascbuf.vunary exp %os, %xs, %n : memref<1x2048xf32, #ascbuf.space<ub>>
    %two = arith.constant 2.000000e+00 : f32
    ascbuf.barrier V
    ascbuf.vscalar muls %os, %os, %two, %n : memref<1x2048xf32, #ascbuf.space<ub>>, f32
    ascbuf.set_flag V -> MTE2, %id
    ascbuf.set_flag V -> MTE3, %id
    ascbuf.wait_flag V -> MTE3, %id
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 4096 dense : memref<1x2048xf32, #ascbuf.space<ub>>, memref<4096xf32>
    ascbuf.set_flag MTE3 -> V, %id
  }
  ascbuf.wait_flag V -> MTE2, %c0
  ascbuf.wait_flag V -> MTE2, %c1
  ascbuf.wait_flag MTE3 -> V, %c0
  ascbuf.wait_flag MTE3 -> V, %c1
  func.return
}
func.func @f(%x: memref<4096xf32>, %out0: memref<4096xf32>) {
  func.call @k(%x, %out0) : (memref<4096xf32>, memref<4096xf32>) -> ()
  func.return
}

// CHECK:      func.func @k(%x: !ascendc.gm_addr, %out0: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64, ascendc.kernel_type = "aiv_only"} {
// CHECK-NEXT:   ascendc.init_soc_state
// CHECK-NEXT:   %xGm = ascendc.global_tensor %x size 4096 : !ascendc.global_tensor<f32>
// CHECK-NEXT:   %out0Gm = ascendc.global_tensor %out0 size 4096 : !ascendc.global_tensor<f32>
// CHECK-NEXT:   %x_buf = ascendc.local_tensor VECIN address 0 size 4096 : !ascendc.local_tensor<f32>
// CHECK-NEXT:   %out_buf = ascendc.local_tensor VECOUT address 16384 size 4096 : !ascendc.local_tensor<f32>
// CHECK:        ascendc.set_flag V_MTE2
// CHECK:        ascendc.set_flag MTE3_V
// CHECK:        scf.for %i =
// CHECK:          ascendc.wait_flag V_MTE2, %[[ID:.*]]
// CHECK:          %[[XS:.*]] = ascendc.subview %x_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK-NEXT:     %[[SRC:.*]] = ascendc.subview %xGm[%off] : !ascendc.global_tensor<f32>
// CHECK-NEXT:     ascendc.data_copy %[[XS]], %[[SRC]], %{{.*}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK-NEXT:     ascendc.set_flag MTE2_V, %[[ID]]
// CHECK-NEXT:     ascendc.wait_flag MTE2_V, %[[ID]]
// CHECK-NEXT:     ascendc.wait_flag MTE3_V, %[[ID]]
// CHECK:          %[[OS:.*]] = ascendc.subview %out_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK-NEXT:     ascendc.exp %[[OS]], %[[XS]], %n : !ascendc.local_tensor<f32>
// CHECK:          ascendc.pipe_barrier PIPE_V
// CHECK-NEXT:     ascendc.muls %[[OS]], %[[OS]], %two, %n : !ascendc.local_tensor<f32>, f32
// CHECK:          ascendc.data_copy %{{.*}}, %[[OS]], %{{.*}} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
// CHECK-NEXT:     ascendc.set_flag MTE3_V, %[[ID]]
// CHECK:          ascendc.pipe_barrier PIPE_ALL
// CHECK-NEXT:     func.return
// CHECK:        func.func @f(%x: memref<4096xf32>, %out0: memref<4096xf32>) {
// CHECK-NEXT:     ascendc.launch @k<<<2>>> (%x, %out0) : memref<4096xf32>, memref<4096xf32>
// CHECK-NOT:    ascbuf.

// -----

// queue: TPipe owns UB; the buffer MTE2 fills is a VECIN TQue, the one MTE3 drains a VECOUT TQue, two
// deep; AllocTensor/EnQue/DeQue/FreeTensor around each phase's first and last use order the pipes
func.func @q(%x: memref<4096xf32>, %out0: memref<4096xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
  %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 2 offset 16384 : memref<1x2048xf32, #ascbuf.space<ub>>
  %n = arith.constant 2048 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %off = arith.muli %i, %n : index
    %xs = ascbuf.slot %x_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_in %x[%off], %xs rows %c1 cols %n strides(0, 1) dense : memref<4096xf32>, memref<1x2048xf32, #ascbuf.space<ub>>
    %os = ascbuf.slot %out_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.vunary exp %os, %xs, %n : memref<1x2048xf32, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%off] rows %c1 cols %n stride 4096 dense : memref<1x2048xf32, #ascbuf.space<ub>>, memref<4096xf32>
  }
  func.return
}

// CHECK:      func.func @q(

// QUEUE:      func.func @q(
// QUEUE:        %pipe = ascendc.tpipe : !ascendc.tpipe
// QUEUE-NEXT:   %xQue = ascendc.tque : !ascendc.tque<VECIN, 1>
// QUEUE-NEXT:   ascendc.init_buffer %pipe, %xQue num 2 len 8192 : !ascendc.tque<VECIN, 1>
// QUEUE-NEXT:   %outQue = ascendc.tque : !ascendc.tque<VECOUT, 1>
// QUEUE-NEXT:   ascendc.init_buffer %pipe, %outQue num 2 len 8192 : !ascendc.tque<VECOUT, 1>
// QUEUE:        scf.for %i =
// QUEUE:          %xLocal = ascendc.alloc_tensor %xQue
// QUEUE:          ascendc.data_copy %xLocal,
// QUEUE-NEXT:     ascendc.enque %xQue, %xLocal
// QUEUE-NEXT:     %[[XL:.*]] = ascendc.deque %xQue
// QUEUE-NEXT:     %[[OL:.*]] = ascendc.alloc_tensor %outQue
// QUEUE-NEXT:     ascendc.exp %[[OL]], %[[XL]], %n : !ascendc.local_tensor<f32>
// QUEUE-NEXT:     ascendc.free_tensor %xQue, %[[XL]]
// QUEUE-NEXT:     ascendc.enque %outQue, %[[OL]]
// QUEUE-NEXT:     %[[OD:.*]] = ascendc.deque %outQue
// QUEUE:          ascendc.data_copy %{{.*}}, %[[OD]],
// QUEUE-NEXT:     ascendc.free_tensor %outQue, %[[OD]]

// -----

// the bitwise instructions take int16/uint16: an int32 buffer is viewed as int16 (ReinterpretCast) with twice
// the count
func.func @bits(%x: memref<64xi32>, %y: memref<64xi32>, %out0: memref<64xi32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 1 : i64} {
  %x_buf = ascbuf.alloc slots 1 offset 0 : memref<1x64xi32, #ascbuf.space<ub>>
  %y_buf = ascbuf.alloc slots 1 offset 256 : memref<1x64xi32, #ascbuf.space<ub>>
  %out_buf = ascbuf.alloc slots 1 offset 512 : memref<1x64xi32, #ascbuf.space<ub>>
  %n = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    ascbuf.copy_in %x[%c0], %x_buf rows %c1 cols %n strides(0, 1) dense : memref<64xi32>, memref<1x64xi32, #ascbuf.space<ub>>
    ascbuf.copy_in %y[%c0], %y_buf rows %c1 cols %n strides(0, 1) dense : memref<64xi32>, memref<1x64xi32, #ascbuf.space<ub>>
    ascbuf.barrier ALL
    ascbuf.vbinary and %out_buf, %x_buf, %y_buf, %n : memref<1x64xi32, #ascbuf.space<ub>>
    ascbuf.vbinary or %out_buf, %out_buf, %y_buf, %n : memref<1x64xi32, #ascbuf.space<ub>>
    ascbuf.barrier ALL
    ascbuf.copy_out %out_buf, %out0[%c0] rows %c1 cols %n stride 64 dense : memref<1x64xi32, #ascbuf.space<ub>>, memref<64xi32>
  }
  func.return
}

// CHECK:      func.func @bits(
// CHECK:        scf.for %i =
// CHECK:          %[[D:.*]] = ascendc.reinterpret_cast %out_buf : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<i16>
// CHECK-NEXT:     %[[A:.*]] = ascendc.reinterpret_cast %x_buf : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<i16>
// CHECK-NEXT:     %[[B:.*]] = ascendc.reinterpret_cast %y_buf : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<i16>
// CHECK:          %[[N2:.*]] = arith.constant 128 : index
// CHECK-NEXT:     ascendc.and %[[D]], %[[A]], %[[B]], %[[N2]] : !ascendc.local_tensor<i16>
// CHECK:          ascendc.or %{{.*}}, %{{.*}}, %{{.*}}, %[[N2]] : !ascendc.local_tensor<i16>

// QUEUE:      func.func @bits(
// QUEUE:          ascendc.and %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !ascendc.local_tensor<i16>

// -----

// a constant tile filled before the loop and stored in it is a TBuf (VECCALC), not a queue: the loop's
// stores read it with no EnQue/DeQue (the prologue's barrier orders them after the fill)
  func.func @pad(%x: memref<64xf32>, %out0: memref<256xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
    %zeros_buf = ascbuf.alloc slots 1 offset 0 : memref<1x64xf32, #ascbuf.space<ub>>
    %0 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %n = arith.constant 64 : index
    %z = arith.constant 0.000000e+00 : f32
    ascbuf.vdup %zeros_buf, %z, %0 : memref<1x64xf32, #ascbuf.space<ub>>, f32
    ascbuf.barrier ALL
    scf.for %i = %c0 to %c4 step %c1 {
      %o = arith.muli %i, %n : index
      ascbuf.copy_out %zeros_buf, %out0[%o] rows %c1 cols %n stride 64 dense : memref<1x64xf32, #ascbuf.space<ub>>, memref<256xf32>
    }
    func.return
  }

// QUEUE-LABEL: func.func @pad(
// QUEUE:         %zerosBuf = ascendc.tbuf : !ascendc.tbuf<VECCALC>
// QUEUE:         ascendc.duplicate
// QUEUE-NEXT:    ascendc.pipe_barrier PIPE_ALL
// QUEUE-NEXT:    scf.for %i =
// QUEUE-NOT:       ascendc.deque
// QUEUE:           ascendc.tbuf_get %zerosBuf
// QUEUE:           ascendc.data_copy

// -----

// a buffer that MTE2 fills and MTE3 drains, with no vector work between, is one TQueBind<VECIN, VECOUT>
// (the copy's tile goes back out of the buffer it came in); flags: a VECIN LocalTensor
  func.func @passthrough(%x: memref<4096xf32>, %out0: memref<4096xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
    %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x2048xf32, #ascbuf.space<ub>>
    %n = arith.constant 2048 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %off = arith.muli %i, %n : index
      %xs = ascbuf.slot %x_buf[%i] : memref<1x2048xf32, #ascbuf.space<ub>>
      ascbuf.copy_in %x[%off], %xs rows %c1 cols %n strides(0, 1) dense : memref<4096xf32>, memref<1x2048xf32, #ascbuf.space<ub>>
      ascbuf.copy_out %xs, %out0[%off] rows %c1 cols %n stride 4096 dense : memref<1x2048xf32, #ascbuf.space<ub>>, memref<4096xf32>
    }
    func.return
  }

// CHECK-LABEL: func.func @passthrough(
// CHECK:         %x_buf = ascendc.local_tensor VECIN address 0 size 4096 : !ascendc.local_tensor<f32>

// QUEUE-LABEL: func.func @passthrough(
// QUEUE:         %xQue = ascendc.tque : !ascendc.tque<VECIN -> VECOUT, 1>
// QUEUE-NEXT:    ascendc.init_buffer %pipe, %xQue num 2 len 8192 : !ascendc.tque<VECIN -> VECOUT, 1>
// QUEUE:         scf.for %i =
// QUEUE:           %xLocal = ascendc.alloc_tensor %xQue
// QUEUE:           ascendc.data_copy %xLocal,
// QUEUE-NEXT:      ascendc.enque %xQue, %xLocal
// QUEUE-NEXT:      %[[XD:.*]] = ascendc.deque %xQue
// QUEUE:           ascendc.data_copy %{{.*}}, %[[XD]],
// QUEUE-NEXT:      ascendc.free_tensor %xQue, %[[XD]]
