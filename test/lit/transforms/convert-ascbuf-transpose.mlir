// RUN: pyasc-opt %s -p 'convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// a 32 x 48 float16 transpose of a 48 x 32 tile: one TransDataTo5HD per 16 destination columns. Source block i
// is row c0 + i of the source, destination block j row j at column c0; the repeats walk the 32 rows 16 at a
// time (srcRepStride 1 block, dstRepStride 48 blocks: 16 rows of 48 elements). A barrier orders the
// instructions, which write interleaved blocks of the same rows
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
// CHECK-NEXT: ascendc.trans_data_to_5hd %d, %s dst_list [0, 48, 96, 144, 192, 240, 288, 336, 384, 432, 480, 528, 576, 624, 672, 720] src_list [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480] repeat 2 dst_stride 48 src_stride 1 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.trans_data_to_5hd %d, %s dst_list [16, 64, 112, 160, 208, 256, 304, 352, 400, 448, 496, 544, 592, 640, 688, 736] src_list [512, 544, 576, 608, 640, 672, 704, 736, 768, 800, 832, 864, 896, 928, 960, 992] repeat 2 dst_stride 48 src_stride 1 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.trans_data_to_5hd %d, %s dst_list [32, 80, {{.*}}] src_list [1024, 1056, {{.*}}] repeat 2 dst_stride 48 src_stride 1
// CHECK-NEXT: ascendc.set_flag V_MTE3
