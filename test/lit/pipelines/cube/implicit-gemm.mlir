// RUN: pyasc-opt %s -p "tile-matmul{cores=1}" | filecheck %s --check-prefix=TILE
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory" | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" -t ascendc | filecheck %s --check-prefix=CPP

// an implicit GEMM (lowering/analysis/conv.py): the weights in Load3Dv2's K order times the patches of each NHWC
// image as B^T, the product NCHW; one 3x3 convolution of 16 channels over 8x8 images, padding 1
func.func @c_mm0(%w: tensor<32x1x3x3x16xf16>, %x: tensor<2x8x8x16xf16>) -> tensor<2x32x8x8xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x1x3x3x16xf16> -> tensor<1x1x32x144xf16>
  %1 = asctensor.broadcast %0 : tensor<1x1x32x144xf16> -> tensor<2x1x32x144xf16>
  %2 = asctensor.reshape %1 : tensor<2x1x32x144xf16> -> tensor<2x32x144xf16>
  %3 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf16> -> tensor<2x64x144xf16>
  %4 = asctensor.matmul %2, %3 transpose_b : tensor<2x32x144xf16>, tensor<2x64x144xf16> -> tensor<2x32x64xf16>
  %5 = asctensor.reshape %4 : tensor<2x32x64xf16> -> tensor<2x32x8x8xf16>
  func.return %5 : tensor<2x32x8x8xf16>
}

// tile-matmul: the B^T tile of each block is the window of its image (8 * 8 * 16 = 1024 elements apart); A is the
// weights' panel; the batch is not folded into M (a block's positions stay inside one image)
// TILE:      asctile.kernel = "cube"
// TILE:      %a_l1 = asctile.load_nz %w[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 144
// TILE:      %[[IMG:.*]] = arith.constant 1024 : index
// TILE:      %[[OFF:.*]] = arith.muli %{{.*}}, %[[IMG]] : index
// TILE:      %b_l1 = asctile.load_window %x[%[[OFF]]] m0 %{{.*}} k0 %{{.*}} rows %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16> -> tensor<64x144xf16>
// TILE:      asctile.mmad %a_l1, %b_l1, %{{.*}} transpose_b : tensor<32x144xf16>, tensor<64x144xf16>, tensor<32x64xf32>

// bufferize-cube: the L1 window holds one channel block of all 8 input rows ([1][8 * 8][16]); the patches of
// each K step reach L0B through load_window_l0 (the first load of a step, as B's always is), A through load_l0
// BUF:      %b_l1 = ascbuf.alloc slots 2 offset {{.*}} : memref<64x16xf16, #ascbuf.space<l1>>
// BUF:      %b_l0 = ascbuf.alloc slots 2 offset 0 : memref<144x64xf16, #ascbuf.space<l0b>>
// BUF:      ascbuf.copy_window %x[%{{.*}}], %{{.*}} m0 %{{.*}} rows %{{.*}} k0 %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1]
// BUF-NEXT: ascbuf.set_flag MTE2 -> MTE1
// BUF:      ascbuf.copy_nz %w
// BUF:      ascbuf.load_window_l0 %{{.*}}, %{{.*}} step %kk k %{{.*}} stage_k %{{.*}} m0 %{{.*}} extent %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<64x16xf16, #ascbuf.space<l1>>, memref<144x64xf16, #ascbuf.space<l0b>>
// BUF:      ascbuf.load_l0 %{{.*}}, %{{.*}} step %kk
// BUF-NEXT: ascbuf.set_flag MTE1 -> M
// BUF:      ascbuf.mmad

// the Ascend C: the window's rows by an ND2NZ whose rows are pixels (srcDValue = C = 16, the C1 blocks l1H * W
// = 64 rows apart), the patches by Load3Dv2 into L0B (the whole image is one window: 8 rows, padding 1 all
// round), the product's 32 channels by 64 positions written as rows of the NCHW output (64 positions apart)
// CPP:      AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{1, 64, {{.*}}, 0, 16, 64, 1, 0});
// CPP:      const uint8_t padList[4] = {1, 1, 1, 1};
// CPP-NEXT: AscendC::LoadData({{.*}}, AscendC::LoadData3DParamsV2<half>(padList, 8, 8, {{.*}}, {{.*}}, 64, {{.*}}, 0, 1, 1, 3, 3, 1, 1, false, false, 0));
// the product in slot i % 2 of L0C (two 8 KB slots: FixPipe drains a block while the cube multiplies the next),
// handed to FixPipe by unit flags (the block's one Mmad and the Fixpipe: 3)
// CPP:      AscendC::LocalTensor<float> [[C:v[0-9]+]] = c_l0[
// CPP-NEXT: AscendC::Mmad([[C]], {{.*}}, AscendC::MmadParams{32, 64, {{.*}}, 3, false, {{.*}}});
// CPP:      AscendC::LocalTensor<float> [[CF:v[0-9]+]] = c_l0[
// CPP:      AscendC::Fixpipe<half, float, AscendC::CFG_ROW_MAJOR>({{.*}}, [[CF]], AscendC::FixpipeParamsV220{64, 32, 32, 64, false, QuantMode_t::F322F16, 0, 1, 0, 0, 3});
