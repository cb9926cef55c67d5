// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%d: !ascendc.local_tensor<f16>, %o: !ascendc.local_tensor<i32>, %n: index) {
  ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<i32>
  func.return
}
// CHECK: ascendc.gather: srcOffset must be a uint32_t (ui32) tensor

// -----

func.func @f(%d: !ascendc.local_tensor<ui8>, %n: index, %z: ui8) {
  ascendc.create_vec_index %d, %z, %n : !ascendc.local_tensor<ui8>, ui8
  func.return
}
// CHECK: ascendc.create_vec_index does not support element type ui8
