// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data %a, %l1, {%i, %i, %i, %i, %i} transpose : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data: ifTranspose transposes 16x16 fractals of 2-byte types, not f32

// -----

func.func @f(%i: index, %f: i1) {
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<i8>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<i8>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f : !ascendc.local_tensor<f32>, !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.mmad: i8 operands accumulate into i32

// -----

func.func @f(%g: !ascendc.gm_addr, %i: index) {
  %out = ascendc.global_tensor %g size 4096 : !ascendc.global_tensor<bf16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 : !ascendc.global_tensor<bf16>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.fixpipe: quantPre F322F16 does not convert f32 to bf16

// -----

func.func @f(%i: index) {
  %r = arith.constant 300 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data %a, %l1, {%i, %r, %i, %i, %i} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data: repeatTimes must be in 0..255, got 300

// -----

// LoadDataWithTranspose writes L0A/L0B (A2/B2) from L1 (A1/B1)
func.func @f(%i: index) {
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data_with_transpose %c, %l1, {%i, %i, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: dst must be in A2 or B2, got CO1 (L0C)

// -----

func.func @f(%i: index) {
  %r = arith.constant 256 : index
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data_with_transpose %b, %l1, {%i, %r, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: repeatTimes must be in 0..255, got 256

// -----

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f64>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f64>
  ascendc.load_data_with_transpose %b, %l1, {%i, %i, %i, %i, %i} : !ascendc.local_tensor<f64>, !ascendc.local_tensor<f64>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: f64 is not one of
