// RUN: pyasc-opt %s -p 'convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// a 32 x 48 float16 transpose of a 48 x 32 tile, wider than tall: one TransDataTo5HD per 16 destination rows.
// Destination block j is row r0 + j, source block i row i at column r0; the repeats walk the 3 column blocks
// (dstRepStride 1 block, srcRepStride 32 blocks: 16 source rows of 32 elements). A barrier orders the
// instructions, which read interleaved blocks of the same rows
func.func @k(%x: memref<1536xf16>, %out0: memref<1536xf16>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 1 : i64} {
  %s = ascbuf.alloc slots 1 offset 0 : memref<48x32xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 offset 4096 : memref<32x48xf16, #ascbuf.space<ub>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %n = arith.constant 1536 : index
  ascbuf.copy_in %x[%c0], %s rows %c1 cols %n strides(0, 1) dense : memref<1536xf16>, memref<48x32xf16, #ascbuf.space<ub>>
  ascbuf.set_flag MTE2 -> V, %c0
  ascbuf.wait_flag MTE2 -> V, %c0
  ascbuf.transpose %d, %s : memref<32x48xf16, #ascbuf.space<ub>>, memref<48x32xf16, #ascbuf.space<ub>>
  ascbuf.set_flag V -> MTE3, %c0
  ascbuf.wait_flag V -> MTE3, %c0
  ascbuf.copy_out %d, %out0[%c0] rows %c1 cols %n stride 1536 dense : memref<32x48xf16, #ascbuf.space<ub>>, memref<1536xf16>
  func.return
}
func.func @f(%x: memref<1536xf16>, %out0: memref<1536xf16>) {
  func.call @k(%x, %out0) : (memref<1536xf16>, memref<1536xf16>) -> ()
  func.return
}

// CHECK:      ascendc.wait_flag MTE2_V
// CHECK-NEXT: ascendc.trans_data_to_5hd %d, %s dst_list [0, 48, 96, 144, 192, 240, 288, 336, 384, 432, 480, 528, 576, 624, 672, 720] src_list [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480] repeat 3 dst_stride 1 src_stride 32 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.trans_data_to_5hd %d, %s dst_list [768, 816, 864, 912, 960, 1008, 1056, 1104, 1152, 1200, 1248, 1296, 1344, 1392, 1440, 1488] src_list [16, 48, 80, 112, 144, 176, 208, 240, 272, 304, 336, 368, 400, 432, 464, 496] repeat 3 dst_stride 1 src_stride 32 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT: ascendc.set_flag V_MTE3
