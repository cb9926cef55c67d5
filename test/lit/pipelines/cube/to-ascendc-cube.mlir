// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s
// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" -t ascendc | filecheck %s --check-prefix=CPP

func.func @f_mm0(%a: tensor<100x40xf32>, %b: tensor<40x60xf32>) -> tensor<100x60xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<100x40xf32>, tensor<40x60xf32> -> tensor<100x60xf32>
  func.return %0 : tensor<100x60xf32>
}
// static local tensors at their positions: A1/B1 = L1, A2 = L0A, B2 = L0B, CO1 = L0C
// CHECK:      ascendc.local_tensor A1 address 0
// CHECK-NEXT: ascendc.local_tensor B1 address
// CHECK-NEXT: ascendc.local_tensor A2 address 0
// CHECK-NEXT: ascendc.local_tensor B2 address 0
// CHECK-NEXT: ascendc.local_tensor CO1 address 0 size {{.*}} : !ascendc.local_tensor<f32>
// B first (fp32, K x N): 16-row blocks in L1, the 2 whole ones (K = 40) in one Nd2Nz of ndNum blocks, the
// partial one (8 rows, every time: no if) after zeroing its rows past K; then its flag; A: its tail zeroed
// (M = 100 in one block of 112: every time), one Nd2Nz, its flag, which MTE1 waits for (at the first K step of
// the stage) after moving B
// CHECK:      ascendc.data_copy_nd2nz
// CHECK-NOT:  scf.if
// CHECK:      ascendc.init_const_value
// CHECK-NEXT: ascendc.pipe_barrier PIPE_MTE2
// CHECK:      ascendc.data_copy_nd2nz
// CHECK-NEXT: ascendc.set_flag MTE2_MTE1, %[[SB:.*]]
// CHECK:      ascendc.data_copy_nd2nz
// CHECK-NEXT: ascendc.set_flag MTE2_MTE1, %[[SA:.*]]
// CHECK-NEXT: ascendc.wait_flag MTE2_MTE1, %[[SB]]
// B: 16 x 16 squares transposed into L0B by LoadDataWithTranspose: one per N square, repeating over the
// step's K blocks (the tile's width apart), when the step covers the tile's whole width and has more K
// blocks than squares; else one per K block, repeating over its squares. Here every step has 3 K blocks
// (K = 40) and 4 squares (N = 60): one per K block, with no run-time choice
// CHECK:      ascendc.wait_flag M_MTE1
// CHECK-NOT:  scf.if
// CHECK:      scf.for %j
// CHECK:        ascendc.load_data_with_transpose
// CHECK-NOT:  ascendc.load_data_with_transpose
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   ascendc.wait_flag MTE2_MTE1, %[[SA]]
// CHECK-NEXT: }
// CHECK:      ascendc.load_data
// CHECK-NOT:  transpose
// one K step per block: its Mmad is the block's last, with unit flag 3, as the Fixpipe
// CHECK:      ascendc.mmad {{.*}} unit_flag 3 :
// CHECK:      %[[CF:.*]] = ascendc.subview %c_l0[%{{.*}}]
// CHECK:      ascendc.fixpipe %{{.*}}, %[[CF]], {{.*}} quant NoQuant unit_flag 3 : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>

// CPP: AscendC::LocalTensor<float> a_l1(AscendC::TPosition::A1, 0,
// the cube produces each Mmad's results N first, the order in which the Fixpipe (NZ to ND) reads them
// CPP: AscendC::SetMMRowMajor();
// the whole 16-row blocks of B: ndNum of them, 16 rows of 60, 16 GM rows (960 elements) apart, column blocks
// 16 rows apart, blocks 1024 elements (16 rows x 64 columns of the tile) apart
// CPP: AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{static_cast<uint16_t>({{.*}}), 16, 60, 960, 60, 16, 1, 1024});
// the partial block: its rows past K zeroed (8 column blocks, from row 40 % 16, gap: the rows before it)
// CPP: AscendC::InitConstValue({{.*}}, AscendC::InitConstValueParams<float>{8,
// CPP: AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{1, static_cast<uint16_t>({{.*}}), 60, 0, 60, 16, 1, 0});
// then per K block one LoadDataWithTranspose over the 4 N fractals: squares 1 apart, first fractals adjacent,
// the second of each 4 fractals on (dstFracGap 3: the next K column of ZN)
// CPP: for (int64_t [[J:.*]] = 0; [[J]] < {{.*}}; ++[[J]]) {
// CPP: AscendC::LoadDataWithTranspose({{.*}}, AscendC::LoadData2dTransposeParams{static_cast<uint16_t>({{.*}}), 4, 1, 0, 3, false});
// then A, waited for at the first K step only (7 M fractals, fewer K columns): one LoadData per K column,
// repeating over the 7 M fractals
// CPP: if ({{.*}}) {
// CPP-NEXT: AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE1>(
// CPP: AscendC::LoadData({{.*}}, AscendC::LoadData2DParams{static_cast<uint16_t>({{.*}}), 7, 1, 0,
// CPP: AscendC::LocalTensor<float> [[C:v[0-9]+]] = c_l0[
// CPP-NEXT: AscendC::Mmad([[C]], {{.*}}, AscendC::MmadParams{{.*}}, 3, false,
// CPP: AscendC::LocalTensor<float> [[CF:v[0-9]+]] = c_l0[
// CPP: AscendC::Fixpipe<float, float, AscendC::CFG_ROW_MAJOR>({{.*}}, [[CF]], AscendC::FixpipeParamsV220{{.*}}QuantMode_t::NoQuant, 0, 1, 0, 0, 3});

// float32 A^T (K x M): 16-row blocks in L1 like B, one LoadDataWithTranspose per K block into L0A (ZZ: the
// two K fractals of a square adjacent, the M fractals 2 * K blocks apart), and Mmad's K in whole blocks
func.func @g_mm0(%a: tensor<40x100xf32>, %b: tensor<40x60xf32>) -> tensor<100x60xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b transpose_a : tensor<40x100xf32>, tensor<40x60xf32> -> tensor<100x60xf32>
  func.return %0 : tensor<100x60xf32>
}
// CHECK:      func.func @g_mm0
// CHECK:      scf.for %j
// CHECK:        ascendc.load_data_with_transpose
// CHECK:      scf.for %j
// CHECK:        ascendc.load_data_with_transpose
// CHECK-NOT:  ascendc.load_data {{.*}}
// CHECK:      arith.divui
// CHECK:      ascendc.mmad

// RUN: pyasc-opt %s -p "tile-matmul{cores=1 base_n=32},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s --check-prefix=BOTH
// K = 144 in steps whose K blocks are more than a 32-column tile's 2 squares, and a last step with fewer: the
// choice between the two loops of LoadDataWithTranspose is made at run time
func.func @h_mm0(%a: tensor<64x144xf32>, %b: tensor<144x64xf32>) -> tensor<64x64xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<64x144xf32>, tensor<144x64xf32> -> tensor<64x64xf32>
  func.return %0 : tensor<64x64xf32>
}
// BOTH-LABEL: func.func @h_mm0
// BOTH:       ascendc.wait_flag M_MTE1
// BOTH:       %[[ALONG_K:.*]] = arith.andi
// BOTH-NEXT:  scf.if %[[ALONG_K]] {
// BOTH:         scf.for %j
// BOTH:           ascendc.load_data_with_transpose
// BOTH:       } else {
// BOTH:         scf.for %j
// BOTH:           ascendc.load_data_with_transpose
// two K steps per block: the block's last Mmad (unit flag 3) accumulates (init false, as no block starts in its last
// step), the others take unit flag 2; the Fixpipe 3. The tensors both Mmads use are built once, before the if
// BOTH:       %[[LAST:.*]] = arith.cmpi uge,
// BOTH:       %[[CT:.*]] = ascendc.subview %c_l0
// BOTH-NEXT:  scf.if %[[LAST]] {
// BOTH:         %[[NO:.*]] = arith.constant false
// BOTH-NEXT:    ascendc.mmad %[[CT]], %[[AT:.*]], %[[BT:.*]], {{.*}} init %[[NO]] unit_flag 3 :
// BOTH:       } else {
// BOTH-NEXT:    ascendc.mmad %[[CT]], %[[AT]], %[[BT]], {{.*}} unit_flag 2 :
// BOTH:       }
// BOTH:       ascendc.fixpipe {{.*}} unit_flag 3 :
