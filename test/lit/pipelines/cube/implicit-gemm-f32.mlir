// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory" | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" -t ascendc | filecheck %s --check-prefix=CPP
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s --check-prefix=ZERO

// an implicit GEMM of float32 (lowering/analysis/conv.py): C0 = 8 channels per block, 16 channels in two blocks,
// K = 2 * 3 * 3 * 8 = 144
func.func @c_mm0(%w: tensor<32x2x3x3x8xf32>, %x: tensor<2x8x8x16xf32>) -> tensor<2x8x8x32xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x2x3x3x8xf32> -> tensor<32x144xf32>
  %1 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf32> -> tensor<2x64x144xf32>
  %2 = asctensor.matmul %1, %0 transpose_b : tensor<2x64x144xf32>, tensor<32x144xf32> -> tensor<2x64x32xf32>
  %3 = asctensor.reshape %2 : tensor<2x64x32xf32> -> tensor<2x8x8x32xf32>
  func.return %3 : tensor<2x8x8x32xf32>
}

// bufferize-cube: the L1 window holds both channel blocks of all 8 input rows ([2][8 * 8][8])
// BUF:      %a_l1 = ascbuf.alloc slots 2 offset 0 : memref<128x8xf32, #ascbuf.space<l1>>
// BUF:      ascbuf.copy_window %x[%{{.*}}], %{{.*}} m0 %{{.*}} rows %{{.*}} k0 %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1]
// BUF:      ascbuf.load_window_l0

// the Ascend C: an ND2NZ of the pixels' 16 channels (two 32 B blocks of 8 floats), then Load3Dv2 of float with
// channelSize 16
// CPP:      AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{1, 64, {{.*}}, 0, 16, 64, 1, 0});
// CPP:      const uint8_t padList[4] = {1, 1, 1, 1};
// CPP-NEXT: AscendC::LoadData({{.*}}, AscendC::LoadData3DParamsV2<float>(padList, 8, 8, {{.*}}, {{.*}}, 64, {{.*}}, 0, 1, 1, 3, 3, 1, 1, false, false, 0));
// CPP:      AscendC::Mmad(

// 16 channels fill both blocks of their group: nothing to zero
// ZERO-LABEL: func.func @c_mm0
// ZERO-NOT:   ascendc.init_const_value

// 8 channels: the window's one 16-channel group is two blocks of 8, and the ND2NZ of 8 channels writes only the
// first; the second is zeroed on MTE2 before it (64 pixels = 64 blocks of 32 B), where a stage has such a block
func.func @c8_mm0(%w: tensor<32x2x3x3x8xf32>, %x: tensor<2x8x8x8xf32>) -> tensor<2x8x8x32xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x2x3x3x8xf32> -> tensor<32x144xf32>
  %1 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x8xf32> -> tensor<2x64x144xf32>
  %2 = asctensor.matmul %1, %0 transpose_b : tensor<2x64x144xf32>, tensor<32x144xf32> -> tensor<2x64x32xf32>
  %3 = asctensor.reshape %2 : tensor<2x64x32xf32> -> tensor<2x8x8x32xf32>
  func.return %3 : tensor<2x8x8x32xf32>
}
// ZERO-LABEL: func.func @c8_mm0
// ZERO:         scf.if
// ZERO:           ascendc.init_const_value
// ZERO-NEXT:      ascendc.pipe_barrier
// ZERO:         ascendc.data_copy_nd2nz
