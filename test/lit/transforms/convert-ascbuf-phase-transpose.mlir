// RUN: pyasc-opt %s -p 'convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// Two rows of 32 float16 of each of 3 channels (one result row, stride 2 x 2): their column phases (a GatherMask
// per phase, both from column 0: pattern 1 the even lanes over 63 lanes a repeat, pattern 2 the odd ones over 64, a
// repeat a channel, the second phase's 3 rows of 32 after the first's), then the
// phases as the 12 channels of 16 pixels from pixel 2 of a row of 19: zeros first, then one TransDataTo5HD whose
// block j is pixel 2 + j (16 channels of 2 B: one DataBlock) and whose source block k is channel k = (rh, rw, c)'s
// row (rw * 3 + c) at column rh * 16; the 4 padding channels read channel 0's.
func.func @k(%x: memref<192xf16>, %out0: memref<304xf16>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 1 : i64} {
  %s = ascbuf.alloc slots 1 offset 0 : memref<3x64xf16, #ascbuf.space<ub>>
  %p = ascbuf.alloc slots 1 offset 512 : memref<6x32xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 offset 1024 : memref<19x16xf16, #ascbuf.space<ub>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 192 : index
  %m = arith.constant 304 : index
  ascbuf.copy_in %x[%c0], %s rows %c1 cols %n strides(0, 1) dense : memref<192xf16>, memref<3x64xf16, #ascbuf.space<ub>>
  ascbuf.set_flag MTE2 -> V, %c0
  ascbuf.wait_flag MTE2 -> V, %c0
  ascbuf.pick_columns %p, %s start 0 stride 2 phases 2 : memref<6x32xf16, #ascbuf.space<ub>>, memref<3x64xf16, #ascbuf.space<ub>>
  ascbuf.barrier V
  ascbuf.phase_transpose %d, %p channels 3 stride (2, 2) left 2 pitch 19 : memref<19x16xf16, #ascbuf.space<ub>>, memref<6x32xf16, #ascbuf.space<ub>>
  ascbuf.set_flag V -> MTE3, %c0
  ascbuf.wait_flag V -> MTE3, %c0
  ascbuf.copy_out %d, %out0[%c0] rows %c1 cols %m stride 304 dense : memref<19x16xf16, #ascbuf.space<ub>>, memref<304xf16>
  func.return
}
func.func @f(%x: memref<192xf16>, %out0: memref<304xf16>) {
  func.call @k(%x, %out0) : (memref<192xf16>, memref<304xf16>) -> ()
  func.return
}

// CHECK:      ascendc.wait_flag MTE2_V
// CHECK-NEXT:   %[[M:.*]] = arith.constant 63 : index
// CHECK:        ascendc.gather_mask %p, %s pattern 1 reduce_mode 1 mask %[[M]]
// CHECK-NEXT:   %[[M2:.*]] = arith.constant 64 : index
// CHECK-NEXT:   %[[AT:.*]] = arith.constant 96 : index
// CHECK-NEXT:   %[[P1:.*]] = ascendc.subview %p[%[[AT]]]
// CHECK-NEXT:   ascendc.gather_mask %[[P1]], %s pattern 2 reduce_mode 1 mask %[[M2]]
// CHECK:        ascendc.pipe_barrier PIPE_V
// CHECK:        ascendc.duplicate %d, %{{.*}}, %{{.*}} : !ascendc.local_tensor<f16>, f16
// CHECK-NEXT:   ascendc.pipe_barrier PIPE_V
// CHECK-NEXT:   ascendc.trans_data_to_5hd %d, %p dst_list [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 272] src_list [0, 32, 64, 96, 128, 160, 16, 48, 80, 112, 144, 176, 0, 0, 0, 0] repeat 1 dst_stride 16 src_stride 1
// CHECK-NOT:    ascendc.trans_data_to_5hd
// CHECK:        ascendc.set_flag V_MTE3
