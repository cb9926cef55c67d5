// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// SyncAll.md: a vector kernel that calls the hard SyncAll is declared __mix__(0, 1), not __vector__.

func.func @k() attributes {ascendc.kernel, ascendc.kernel_type = "aiv_only"} {
  ascendc.sync_all
  func.return
}
// CHECK: ascendc.sync_all in kernel @k of kernel type aiv_only (it must be mix_aiv_1_0): [sync-all-kernel-type]

// -----

func.func @k() attributes {ascendc.kernel} {
  ascendc.sync_all
  func.return
}
// CHECK: ascendc.sync_all in kernel @k of kernel type unset (it must be mix_aiv_1_0): [sync-all-kernel-type]
