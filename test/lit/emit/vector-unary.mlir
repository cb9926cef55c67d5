// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Unary vector ops: Api(dst, src, count).

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @vector_unary(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %x = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f16>
    %y = ascendc.local_tensor VECOUT address 256 size 64 : !ascendc.local_tensor<f16>
    ascendc.exp %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.ln %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.abs %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.sqrt %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.rsqrt %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.reciprocal %y, %x, %n : !ascendc.local_tensor<f16>
    ascendc.relu %y, %x, %n : !ascendc.local_tensor<f16>
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void vector_unary(GM_ADDR a) {
// CHECK-NEXT: AscendC::LocalTensor<half> x(AscendC::TPosition::VECIN, 0, 64);
// CHECK-NEXT: AscendC::LocalTensor<half> y(AscendC::TPosition::VECOUT, 256, 64);
// CHECK-NEXT: AscendC::Exp(y, x, 64);
// CHECK-NEXT: AscendC::Ln(y, x, 64);
// CHECK-NEXT: AscendC::Abs(y, x, 64);
// CHECK-NEXT: AscendC::Sqrt(y, x, 64);
// CHECK-NEXT: AscendC::Rsqrt(y, x, 64);
// CHECK-NEXT: AscendC::Reciprocal(y, x, 64);
// CHECK-NEXT: AscendC::Relu(y, x, 64);
// CHECK-NEXT: }
