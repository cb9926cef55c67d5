// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Duplicate and Cast with every round mode.

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @fill_cast(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %h = arith.constant -1.5 : f16
    %i = arith.constant 3 : i32
    %x = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f16>
    %y = ascendc.local_tensor VECCALC address 256 size 64 : !ascendc.local_tensor<f32>
    %z = ascendc.local_tensor VECCALC address 512 size 64 : !ascendc.local_tensor<i32>
    ascendc.duplicate %x, %h, %n : !ascendc.local_tensor<f16>, f16
    ascendc.duplicate %z, %i, %n : !ascendc.local_tensor<i32>, i32
    ascendc.cast %y, %x, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
    ascendc.cast %x, %y, CAST_RINT, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %x, %y, CAST_FLOOR, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %x, %y, CAST_CEIL, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %x, %y, CAST_ROUND, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %x, %y, CAST_TRUNC, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %x, %y, CAST_ODD, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
    ascendc.cast %z, %y, CAST_TRUNC, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<f32>
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void fill_cast(GM_ADDR a) {
// CHECK-NEXT: const half h = -1.5f;
// CHECK-NEXT: AscendC::LocalTensor<half> x(AscendC::TPosition::VECCALC, 0, 64);
// CHECK-NEXT: AscendC::LocalTensor<float> y(AscendC::TPosition::VECCALC, 256, 64);
// CHECK-NEXT: AscendC::LocalTensor<int32_t> z(AscendC::TPosition::VECCALC, 512, 64);
// CHECK-NEXT: AscendC::Duplicate(x, h, 64);
// CHECK-NEXT: AscendC::Duplicate(z, 3, 64);
// CHECK-NEXT: AscendC::Cast(y, x, AscendC::RoundMode::CAST_NONE, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_RINT, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_FLOOR, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_CEIL, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_ROUND, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_TRUNC, 64);
// CHECK-NEXT: AscendC::Cast(x, y, AscendC::RoundMode::CAST_ODD, 64);
// CHECK-NEXT: AscendC::Cast(z, y, AscendC::RoundMode::CAST_TRUNC, 64);
// CHECK-NEXT: }
