// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory" | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" -t ascendc | filecheck %s --check-prefix=CPP
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s --check-prefix=ZERO

// an implicit GEMM of float32 (lowering/analysis/conv.py): C0 = 8 channels per block, 16 channels in two blocks,
// K = 2 * 3 * 3 * 8 = 144; the weights times the patches as B^T (in L0B)
func.func @c_mm0(%w: tensor<32x2x3x3x8xf32>, %x: tensor<2x8x8x16xf32>) -> tensor<2x32x8x8xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x2x3x3x8xf32> -> tensor<1x1x32x144xf32>
  %1 = asctensor.broadcast %0 : tensor<1x1x32x144xf32> -> tensor<2x1x32x144xf32>
  %2 = asctensor.reshape %1 : tensor<2x1x32x144xf32> -> tensor<2x32x144xf32>
  %3 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf32> -> tensor<2x64x144xf32>
  %4 = asctensor.matmul %2, %3 transpose_b : tensor<2x32x144xf32>, tensor<2x64x144xf32> -> tensor<2x32x64xf32>
  %5 = asctensor.reshape %4 : tensor<2x32x64xf32> -> tensor<2x32x8x8xf32>
  func.return %5 : tensor<2x32x8x8xf32>
}

// bufferize-cube: the L1 window holds both channel blocks of all 8 input rows ([2][8 * 8][8])
// BUF:      %b_l1 = ascbuf.alloc slots 2 offset {{.*}} : memref<128x8xf32, #ascbuf.space<l1>>
// BUF:      ascbuf.copy_window %x[%{{.*}}], %{{.*}} m0 %{{.*}} rows %{{.*}} k0 %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1]
// BUF:      ascbuf.load_window_l0 {{.*}} : memref<128x8xf32, #ascbuf.space<l1>>, memref<{{.*}}xf32, #ascbuf.space<l0b>>

// the Ascend C: an ND2NZ of the pixels' 16 channels (two 32 B blocks of 8 floats), then Load3Dv2 of float with
// channelSize 16 into L0B
// CPP:      AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{1, 64, {{.*}}, 0, 16, 64, 1, 0});
// CPP:      const uint8_t padList[4] = {1, 1, 1, 1};
// CPP-NEXT: AscendC::LoadData({{.*}}, AscendC::LoadData3DParamsV2<float>(padList, 8, 8, {{.*}}, {{.*}}, 64, {{.*}}, 0, 1, 1, 3, 3, 1, 1, false, false, 0));
// CPP:      AscendC::Mmad(

// 16 channels fill both blocks of their group: nothing to zero
// ZERO-LABEL: func.func @c_mm0
// ZERO-NOT:   ascendc.init_const_value

// 8 channels: the window's one 16-channel group is two blocks of 8, and the ND2NZ of 8 channels writes only the
// first; the second is zeroed on MTE2 before it (64 pixels = 64 blocks of 32 B), where a stage has such a block
func.func @c8_mm0(%w: tensor<32x2x3x3x8xf32>, %x: tensor<2x8x8x8xf32>) -> tensor<2x32x8x8xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x2x3x3x8xf32> -> tensor<1x1x32x144xf32>
  %1 = asctensor.broadcast %0 : tensor<1x1x32x144xf32> -> tensor<2x1x32x144xf32>
  %2 = asctensor.reshape %1 : tensor<2x1x32x144xf32> -> tensor<2x32x144xf32>
  %3 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x8xf32> -> tensor<2x64x144xf32>
  %4 = asctensor.matmul %2, %3 transpose_b : tensor<2x32x144xf32>, tensor<2x64x144xf32> -> tensor<2x32x64xf32>
  %5 = asctensor.reshape %4 : tensor<2x32x64xf32> -> tensor<2x32x8x8xf32>
  func.return %5 : tensor<2x32x8x8xf32>
}
// ZERO-LABEL: func.func @c8_mm0
// ZERO:         scf.if
// ZERO:           ascendc.init_const_value
// ZERO-NEXT:      ascendc.pipe_barrier
// ZERO:         ascendc.data_copy_nd2nz
