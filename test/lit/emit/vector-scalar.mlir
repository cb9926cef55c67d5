// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Vector-scalar ops: Api(dst, src, scalar, count); float constants become const variables.

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @vector_scalar(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %s = arith.constant 0.25 : f32
    %x = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>
    %y = ascendc.local_tensor VECOUT address 256 size 64 : !ascendc.local_tensor<f32>
    ascendc.adds %y, %x, %s, %n : !ascendc.local_tensor<f32>, f32
    ascendc.muls %y, %x, %s, %n : !ascendc.local_tensor<f32>, f32
    ascendc.maxs %y, %x, %s, %n : !ascendc.local_tensor<f32>, f32
    ascendc.mins %y, %x, %s, %n : !ascendc.local_tensor<f32>, f32
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void vector_scalar(GM_ADDR a) {
// CHECK-NEXT: const float s = 0.25f;
// CHECK-NEXT: AscendC::LocalTensor<float> x(AscendC::TPosition::VECIN, 0, 64);
// CHECK-NEXT: AscendC::LocalTensor<float> y(AscendC::TPosition::VECOUT, 256, 64);
// CHECK-NEXT: AscendC::Adds(y, x, s, 64);
// CHECK-NEXT: AscendC::Muls(y, x, s, 64);
// CHECK-NEXT: AscendC::Maxs(y, x, s, 64);
// CHECK-NEXT: AscendC::Mins(y, x, s, 64);
// CHECK-NEXT: }
