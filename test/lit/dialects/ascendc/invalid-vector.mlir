// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<i32>
  ascendc.div %a, %a, %a, %n : !ascendc.local_tensor<i32>
  func.return
}
// CHECK: Operation does not verify: ascendc.div does not support element type i32 (supported: f16, f32)

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<bf16>
  ascendc.add %a, %a, %a, %n : !ascendc.local_tensor<bf16>
  func.return
}
// CHECK: Operation does not verify: ascendc.add does not support element type bf16 (supported: f16, f32, i32, i16)

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<i32>
  ascendc.exp %a, %a, %n : !ascendc.local_tensor<i32>
  func.return
}
// CHECK: Operation does not verify: ascendc.exp does not support element type i32 (supported: f16, f32)

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<i16>
  ascendc.relu %a, %a, %n : !ascendc.local_tensor<i16>
  func.return
}
// CHECK: Operation does not verify: ascendc.relu does not support element type i16 (supported: f16, f32, i32)

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f16>
  %s = arith.constant 2.0 : f32
  ascendc.muls %a, %a, %s, %n : !ascendc.local_tensor<f16>, f32
  func.return
}
// CHECK: Operation does not verify: ascendc.muls scalar type f32 does not match the tensor element type f16

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<bf16>
  %s = arith.constant 2.0 : bf16
  ascendc.adds %a, %a, %s, %n : !ascendc.local_tensor<bf16>, bf16
  func.return
}
// CHECK: Operation does not verify: ascendc.adds does not support element type bf16 (supported: f16, f32, i32, i16)

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  %s = arith.constant 1 : i32
  ascendc.duplicate %a, %s, %n : !ascendc.local_tensor<f32>, i32
  func.return
}
// CHECK: Operation does not verify: ascendc.duplicate scalar type i32 does not match the tensor element type f32

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f16>
  %b = ascendc.local_tensor VECCALC address 256 size 64 : !ascendc.local_tensor<bf16>
  ascendc.cast %b, %a, CAST_RINT, %n : !ascendc.local_tensor<bf16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: ascendc.cast from f16 to bf16 is not supported

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor VECCALC address 256 size 64 : !ascendc.local_tensor<f32>
  ascendc.cast %b, %a, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: ascendc.cast from f32 to f32 is not supported

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<i32>
  %b = ascendc.local_tensor VECCALC address 256 size 64 : !ascendc.local_tensor<bf16>
  ascendc.cast %b, %a, CAST_NONE, %n : !ascendc.local_tensor<bf16>, !ascendc.local_tensor<i32>
  func.return
}
// CHECK: Operation does not verify: ascendc.cast from i32 to bf16 is not supported


// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor VECCALC address 256 size 64 : !ascendc.local_tensor<i8>
  ascendc.cast %b, %a, CAST_TRUNC, %n : !ascendc.local_tensor<i8>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: ascendc.cast from f32 to i8 is not supported
