// RUN: pyasc-opt %s -p "tile-matmul{cores=1}" | filecheck %s --check-prefix=TILE
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory" | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" -t ascendc | filecheck %s --check-prefix=CPP

// an implicit GEMM with an NHWC product (lowering/conv_gemm.py): the patches of each NHWC image as A times the
// weights in Load3Dv2's K order as B^T, one matrix for every image; one 3x3 convolution of 16 channels into 32
// over 8x8 images, padding 1
func.func @c_mm0(%w: tensor<32x1x3x3x16xf16>, %x: tensor<2x8x8x16xf16>) -> tensor<2x8x8x32xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<32x1x3x3x16xf16> -> tensor<32x144xf16>
  %1 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x8x8x16xf16> -> tensor<2x64x144xf16>
  %2 = asctensor.matmul %1, %0 transpose_b : tensor<2x64x144xf16>, tensor<32x144xf16> -> tensor<2x64x32xf16>
  %3 = asctensor.reshape %2 : tensor<2x64x32xf16> -> tensor<2x8x8x32xf16>
  func.return %3 : tensor<2x8x8x32xf16>
}

// tile-matmul: the A tile of each block is the window of its image (8 * 8 * 16 = 1024 elements apart); B^T is the
// weights' panel, the same for every image; the batch is not folded into M (a block's positions stay inside one
// image)
// TILE:      asctile.kernel = "cube"
// TILE:      %[[IMG:.*]] = arith.constant 1024 : index
// TILE:      %[[OFF:.*]] = arith.muli %{{.*}}, %[[IMG]] : index
// TILE:      %a_l1 = asctile.load_window %x[%[[OFF]]] m0 %{{.*}} k0 %{{.*}} rows %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16> -> tensor<64x144xf16>
// TILE:      %b_l1 = asctile.load_nz %w[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 144
// TILE:      asctile.mmad %a_l1, %b_l1, %{{.*}} transpose_b : tensor<64x144xf16>, tensor<32x144xf16>, tensor<64x32xf32>
// TILE:      asctile.store_acc %{{.*}}, %out[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 32

// bufferize-cube: the L1 window holds one channel block of all 8 input rows ([1][8 * 8][16]) as A's; the patches
// of each K step reach L0A through load_window_l0, B through load_l0
// BUF:      %a_l1 = ascbuf.alloc slots 2 offset {{.*}} : memref<64x16xf16, #ascbuf.space<l1>>
// BUF:      %a_l0 = ascbuf.alloc slots 2 offset 0 : memref<64x144xf16, #ascbuf.space<l0a>>
// BUF:      ascbuf.copy_nz %w
// BUF:      ascbuf.copy_window %x[%{{.*}}], %{{.*}} m0 %{{.*}} rows %{{.*}} k0 %{{.*}} cols %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1]
// BUF:      ascbuf.load_l0 %{{.*}}, %{{.*}} step %kk
// BUF:      ascbuf.load_window_l0 %{{.*}}, %{{.*}} step %kk k %{{.*}} stage_k %{{.*}} m0 %{{.*}} extent %{{.*}} geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<64x16xf16, #ascbuf.space<l1>>, memref<64x144xf16, #ascbuf.space<l0a>>
// BUF-NEXT: ascbuf.set_flag MTE1 -> M
// BUF:      ascbuf.mmad

// the Ascend C: the window in A1, the patches by Load3Dv2 into L0A (A2), the product's 64 positions by 32
// channels written as rows of the NHWC output (32 channels apart)
// CPP:      AscendC::LocalTensor<half> a_l1(AscendC::TPosition::A1, 0, 2048);
// CPP:      AscendC::LocalTensor<half> a_l0(AscendC::TPosition::A2, 0, 18432);
// CPP:      AscendC::LocalTensor<half> [[A0:v[0-9]+]] = a_l0[
// CPP:      AscendC::LocalTensor<half> [[A1:v[0-9]+]] = a_l1[
// CPP:      AscendC::LoadData([[A0]], [[A1]], AscendC::LoadData3DParamsV2<half>(padList, 8, 8,
// CPP:      AscendC::Mmad({{.*}}, 3, false,
// CPP:      AscendC::LocalTensor<float> [[CF:v[0-9]+]] = c_l0[
// CPP:      AscendC::Fixpipe<half, float, AscendC::CFG_ROW_MAJOR>({{.*}}, [[CF]], AscendC::FixpipeParamsV220{32, 64, 64, 32,
