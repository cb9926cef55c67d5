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
// B first (fp32): transposed by the DMA, one Nd2Nz of up to 8 one-element rows per column block, then
// its flag; A: one Nd2Nz, then its own flag, which MTE1 waits for (at the first K step of the stage)
// after moving B
// CHECK:      scf.for %j
// CHECK:        ascendc.data_copy_nd2nz
// CHECK:      ascendc.set_flag MTE2_MTE1, %[[SB:.*]]
// CHECK:      ascendc.data_copy_nd2nz
// CHECK-NEXT: ascendc.set_flag MTE2_MTE1, %[[SA:.*]]
// CHECK-NEXT: ascendc.wait_flag MTE2_MTE1, %[[SB]]
// CHECK:      ascendc.load_data
// CHECK-NOT:  transpose
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   ascendc.wait_flag MTE2_MTE1, %[[SA]]
// CHECK-NEXT: }
// CHECK:      ascendc.load_data
// CHECK:      ascendc.mmad
// CHECK:      ascendc.fixpipe %{{.*}}, %c_l0, {{.*}} quant NoQuant : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>

// CPP: AscendC::LocalTensor<float> a_l1(AscendC::TPosition::A1, 0,
// CPP: AscendC::DataCopy({{.*}}, AscendC::Nd2NzParams{1,
// B first (4 N fractals, more K columns): one LoadData per N fractal, repeating over K with srcStride 4
// (the N fractals of one K column are 4 apart in L1) and dstGap 3 (ZN: a K column's 4 N fractals are adjacent)
// CPP: for (int64_t [[J:.*]] = 0; [[J]] < 4; ++[[J]]) {
// CPP: AscendC::LoadData({{.*}}, AscendC::LoadData2DParams{{{.*}}, {{.*}}, 4, 0, 3, false, 0});
// then A, waited for at the first K step only (7 M fractals, fewer K columns): one LoadData per K column,
// repeating over the 7 M fractals
// CPP: if ({{.*}}) {
// CPP-NEXT: AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE1>(
// CPP: AscendC::LoadData({{.*}}, AscendC::LoadData2DParams{static_cast<uint16_t>({{.*}}), 7, 1, 0,
// CPP: AscendC::Mmad(c_l0, {{.*}}, AscendC::MmadParams{
// CPP: AscendC::Fixpipe<float, float, AscendC::CFG_ROW_MAJOR>({{.*}}, c_l0, AscendC::FixpipeParamsV220{{.*}}QuantMode_t::NoQuant
