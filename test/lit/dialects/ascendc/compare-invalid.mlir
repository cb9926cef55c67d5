// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%m: !ascendc.local_tensor<f16>, %a: !ascendc.local_tensor<f16>, %n: index) {
  ascendc.compare %m, %a, %a, LT, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: the mask tensor must be uint8_t

// -----

func.func @f(%m: !ascendc.local_tensor<ui8>, %a: !ascendc.local_tensor<i32>, %n: index) {
  ascendc.select %a, %m, %a, %a, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<ui8>
  func.return
}
// CHECK: ascendc.select does not support element type i32
