// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k(%g: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 2 : i64, ascendc.kernel_type = "mix_aic_1_2"} {
  ascendc.core_section aic {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    ascendc.cross_core_wait_flag %c1
    ascendc.cross_core_set_flag 2, PIPE_FIX, %c0
  }
  ascendc.core_section aiv {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = ascendc.get_sub_block_idx : index
    ascendc.cross_core_wait_flag %c0
    ascendc.cross_core_set_flag 2, PIPE_MTE2, %c1
  }
  func.return
}
// CHECK:      ascendc.kernel_type = "mix_aic_1_2"
// CHECK:      ascendc.core_section aic {
// CHECK:        ascendc.cross_core_wait_flag %c1
// CHECK-NEXT:   ascendc.cross_core_set_flag 2, PIPE_FIX, %c0
// CHECK:      ascendc.core_section aiv {
// CHECK:        %s = ascendc.get_sub_block_idx : index
// CHECK-NEXT:   ascendc.cross_core_wait_flag %{{.*}}
// CHECK-NEXT:   ascendc.cross_core_set_flag 2, PIPE_MTE2, %{{.*}}
