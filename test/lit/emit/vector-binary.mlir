// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Binary vector ops, count form: Api(dst, src0, src1, count).

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @vector_binary(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %x = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>
    %y = ascendc.local_tensor VECOUT address 256 size 64 : !ascendc.local_tensor<f32>
    ascendc.add %y, %x, %y, %n : !ascendc.local_tensor<f32>
    ascendc.sub %y, %x, %y, %n : !ascendc.local_tensor<f32>
    ascendc.mul %y, %x, %y, %n : !ascendc.local_tensor<f32>
    ascendc.div %y, %x, %y, %n : !ascendc.local_tensor<f32>
    ascendc.max %y, %x, %y, %n : !ascendc.local_tensor<f32>
    ascendc.min %y, %x, %y, %n : !ascendc.local_tensor<f32>
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void vector_binary(GM_ADDR a) {
// CHECK-NEXT: AscendC::LocalTensor<float> x(AscendC::TPosition::VECIN, 0, 64);
// CHECK-NEXT: AscendC::LocalTensor<float> y(AscendC::TPosition::VECOUT, 256, 64);
// CHECK-NEXT: AscendC::Add(y, x, y, 64);
// CHECK-NEXT: AscendC::Sub(y, x, y, 64);
// CHECK-NEXT: AscendC::Mul(y, x, y, 64);
// CHECK-NEXT: AscendC::Div(y, x, y, 64);
// CHECK-NEXT: AscendC::Max(y, x, y, 64);
// CHECK-NEXT: AscendC::Min(y, x, y, 64);
// CHECK-NEXT: }
