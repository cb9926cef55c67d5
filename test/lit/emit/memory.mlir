// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Global tensors, subviews, static local tensors, DataCopy both ways, DataCopyPad, GetValue.

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @memory(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %g = ascendc.global_tensor %a size 4096 : !ascendc.global_tensor<f16>
    %x = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f16>
    %x2 = ascendc.subview %x[%n] : !ascendc.local_tensor<f16>
    %bid = ascendc.get_block_idx : index
    %off = arith.muli %bid, %n : index
    %gs = ascendc.subview %g[%off] : !ascendc.global_tensor<f16>
    %v = ascendc.get_value %gs[%c1] : !ascendc.global_tensor<f16> -> f16
    ascendc.data_copy %x, %gs, %n : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
    ascendc.data_copy %gs, %x, %n : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
    %bytes = arith.constant 100 : index
    ascendc.data_copy_pad %x, %gs, {%c1, %bytes, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
    ascendc.data_copy_pad %gs, %x, {%c1, %bytes, %c0, %c0} : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
    ascendc.duplicate %x2, %v, %n : !ascendc.local_tensor<f16>, f16
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void memory(GM_ADDR a) {
// CHECK-NEXT: AscendC::GlobalTensor<half> g;
// CHECK-NEXT: g.SetGlobalBuffer((__gm__ half*)a, 4096);
// CHECK-NEXT: AscendC::LocalTensor<half> x(AscendC::TPosition::VECIN, 0, 64);
// CHECK-NEXT: AscendC::LocalTensor<half> x2 = x[64];
// CHECK-NEXT: int64_t bid = AscendC::GetBlockIdx();
// CHECK-NEXT: int64_t off = bid * 64;
// CHECK-NEXT: AscendC::GlobalTensor<half> gs = g[off];
// CHECK-NEXT: half v = gs.GetValue(1);
// CHECK-NEXT: AscendC::DataCopy(x, gs, 64);
// CHECK-NEXT: AscendC::DataCopy(gs, x, 64);
// CHECK-NEXT: AscendC::DataCopyPad(x, gs, AscendC::DataCopyExtParams{1, 100, 0, 0, 0}, AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});
// CHECK-NEXT: AscendC::DataCopyPad(gs, x, AscendC::DataCopyExtParams{1, 100, 0, 0, 0});
// CHECK-NEXT: AscendC::Duplicate(x2, v, 64);
// CHECK-NEXT: }
