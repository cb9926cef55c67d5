// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// SyncAll in a vector kernel that synchronises its cores (KERNEL_TYPE_MIX_AIV_1_0).

func.func @k(%g: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64, ascendc.kernel_type = "mix_aiv_1_0"} {
  %c0 = arith.constant 0 : index
  ascendc.set_flag MTE2_V, %c0
  ascendc.wait_flag MTE2_V, %c0
  ascendc.sync_all
  ascendc.pipe_barrier PIPE_ALL
  func.return
}
// CHECK:      ascendc.kernel_type = "mix_aiv_1_0"
// CHECK:      ascendc.wait_flag MTE2_V, %c0
// CHECK-NEXT: ascendc.sync_all
// CHECK-NEXT: ascendc.pipe_barrier PIPE_ALL
