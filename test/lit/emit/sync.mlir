// RUN: pyasc-opt %s -t ascendc | filecheck %s
// Flags, barriers and the system variables.

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @sync(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %bid = ascendc.get_block_idx : index
    %nb = ascendc.get_block_num : index
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.set_flag V_MTE3, %c1
    ascendc.wait_flag V_MTE3, %c1
    ascendc.set_flag MTE3_MTE2, %bid
    ascendc.wait_flag MTE3_MTE2, %bid
    ascendc.pipe_barrier PIPE_V
    ascendc.pipe_barrier PIPE_MTE2
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }
}

// CHECK:      extern "C" __global__ __aicore__ void sync(GM_ADDR a) {
// CHECK-NEXT: int64_t bid = AscendC::GetBlockIdx();
// CHECK-NEXT: int64_t nb = AscendC::GetBlockNum();
// CHECK-NEXT: AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
// CHECK-NEXT: AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
// CHECK-NEXT: AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(1);
// CHECK-NEXT: AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(1);
// CHECK-NEXT: AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(bid);
// CHECK-NEXT: AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(bid);
// CHECK-NEXT: AscendC::PipeBarrier<PIPE_V>();
// CHECK-NEXT: AscendC::PipeBarrier<PIPE_MTE2>();
// CHECK-NEXT: AscendC::PipeBarrier<PIPE_ALL>();
// CHECK-NEXT: }
