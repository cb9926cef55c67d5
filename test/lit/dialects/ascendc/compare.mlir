// RUN: pyasc-opt %s | pyasc-opt | filecheck %s

func.func @f(%m: !ascendc.local_tensor<ui8>, %a: !ascendc.local_tensor<f16>, %n: index, %s: f16) {
  ascendc.compare %m, %a, %a, LE, %n : !ascendc.local_tensor<ui8>, !ascendc.local_tensor<f16>
  ascendc.compares %m, %a, %s, NE, %n : !ascendc.local_tensor<ui8>, !ascendc.local_tensor<f16>, f16
  ascendc.select %a, %m, %a, %a, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui8>
  ascendc.select_scalar %a, %m, %a, %s, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui8>, f16
  func.return
}
// CHECK: ascendc.compare %{{.*}}, LE,
// CHECK: ascendc.compares %{{.*}}, NE,
// CHECK: ascendc.select %
// CHECK: ascendc.select_scalar %
