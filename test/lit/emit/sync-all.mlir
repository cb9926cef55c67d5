// RUN: pyasc-opt %s -t ascendc | filecheck %s
// A kernel that synchronises its cores declares KERNEL_TYPE_MIX_AIV_1_0 and calls SyncAll(); its TPipe gives
// everything back with Reset() (a launch merged by ascendc-merge-launches).

builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @meet(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "mix_aiv_1_0"} {
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %bid = ascendc.get_block_idx : index
    ascendc.tpipe_reset %pipe
    ascendc.sync_all
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }
}

// CHECK:      // launched on 8 blocks
// CHECK-NEXT: extern "C" __global__ __aicore__ void meet(GM_ADDR a) {
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
// CHECK-NEXT: AscendC::TPipe pipe;
// CHECK-NEXT: int64_t bid = AscendC::GetBlockIdx();
// CHECK-NEXT: pipe.Reset();
// CHECK-NEXT: AscendC::SyncAll();
// CHECK-NEXT: AscendC::PipeBarrier<PIPE_ALL>();
// CHECK-NEXT: }
