// RUN: PYASC_ROUNDTRIP

func.func @f(%d: !ascendc.local_tensor<f16>, %o: !ascendc.local_tensor<ui32>, %i: !ascendc.local_tensor<i32>, %n: index, %z: i32) {
  ascendc.create_vec_index %i, %z, %n : !ascendc.local_tensor<i32>, i32
  ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui32>
  func.return
}
// CHECK: ascendc.create_vec_index %i, %z, %n : !ascendc.local_tensor<i32>, i32
// CHECK-NEXT: ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui32>
