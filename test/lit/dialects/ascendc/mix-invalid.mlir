// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @k() {
  %c0 = arith.constant 0 : index
  ascendc.cross_core_set_flag 3, PIPE_FIX, %c0
  func.return
}
// CHECK: ascendc.cross_core_set_flag: mode 3 is not one of 0, 1, 2

// -----

func.func @k() {
  %c0 = arith.constant 0 : index
  ascendc.cross_core_set_flag 2, PIPE_S, %c0
  func.return
}
// CHECK: ascendc.cross_core_set_flag: CrossCoreSetFlag takes a work pipe, not PIPE_S

// -----

func.func @k() {
  %c12 = arith.constant 12 : index
  ascendc.cross_core_wait_flag %c12
  func.return
}
// CHECK: ascendc.cross_core_wait_flag: flag id 12 is out of range 0..10

// -----

func.func @k() {
  ascendc.core_section aic {
    %s = ascendc.get_sub_block_idx : index
  }
  func.return
}
// CHECK: ascendc.get_sub_block_idx: GetSubBlockIdx is an AIV query, used in an AIC section
