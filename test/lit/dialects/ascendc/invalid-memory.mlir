// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: !ascendc.gm_addr) {
  %g = ascendc.global_tensor %x size 0 : !ascendc.global_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: global tensor size must be positive, got 0

// -----

func.func @f(%x: !ascendc.gm_addr) {
  %c = arith.constant -4 : index
  %g = ascendc.global_tensor %x size 64 : !ascendc.global_tensor<f32>
  %s = ascendc.subview %g[%c] : !ascendc.global_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: subview offset must be non-negative, got -4

// -----

func.func @f() {
  %p = ascendc.tpipe : !ascendc.tpipe
  %q = ascendc.tque : !ascendc.tque<VECIN, 2>
  ascendc.init_buffer %p, %q num 2 len 100 : !ascendc.tque<VECIN, 2>
  func.return
}
// CHECK: Operation does not verify: InitBuffer length must be a positive multiple of 32 B, got 100

// -----

func.func @f() {
  %p = ascendc.tpipe : !ascendc.tpipe
  %b = ascendc.tbuf : !ascendc.tbuf<VECCALC>
  ascendc.init_buffer %p, %b num 1 len 0 : !ascendc.tbuf<VECCALC>
  func.return
}
// CHECK: Operation does not verify: InitBuffer length must be a positive multiple of 32 B, got 0

// -----

func.func @f() {
  %p = ascendc.tpipe : !ascendc.tpipe
  %q = ascendc.tque : !ascendc.tque<VECIN, 1>
  ascendc.init_buffer %p, %q num 9 len 128 : !ascendc.tque<VECIN, 1>
  func.return
}
// CHECK: Operation does not verify: InitBuffer num 9 must be in 1..8

// -----

func.func @f() {
  %p = ascendc.tpipe : !ascendc.tpipe
  %b = ascendc.tbuf : !ascendc.tbuf<VECCALC>
  ascendc.init_buffer %p, %b num 2 len 128 : !ascendc.tbuf<VECCALC>
  func.return
}
// CHECK: Operation does not verify: InitBuffer of a TBuf takes num = 1

// -----

func.func @f() {
  %t = ascendc.local_tensor VECIN address 48 size 64 : !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: local tensor address 48 is not 32 B aligned

// -----

func.func @f() {
  %t = ascendc.local_tensor VECIN address -32 size 64 : !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: local tensor address -32 is not 32 B aligned

// -----

func.func @f() {
  %t = ascendc.local_tensor VECCALC address 0 size 0 : !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: local tensor size must be positive, got 0

// -----

func.func @f(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr, %n: index) {
  %a = ascendc.global_tensor %x size 64 : !ascendc.global_tensor<f32>
  %b = ascendc.global_tensor %y size 64 : !ascendc.global_tensor<f32>
  ascendc.data_copy %a, %b, %n : !ascendc.global_tensor<f32>, !ascendc.global_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: ascendc.data_copy cannot copy from global memory to global memory

// -----

func.func @f(%x: !ascendc.gm_addr, %n: index) {
  %g = ascendc.global_tensor %x size 64 : !ascendc.global_tensor<f32>
  %t = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f16>
  ascendc.data_copy %t, %g, %n : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f32>
  func.return
}
// CHECK: Operation does not verify: ascendc.data_copy needs one element type, got !ascendc.local_tensor<f16> and !ascendc.global_tensor<f32>

// -----

func.func @f(%x: !ascendc.gm_addr) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c4096 = arith.constant 4096 : index
  %g = ascendc.global_tensor %x size 1000000 : !ascendc.global_tensor<f16>
  %t = ascendc.local_tensor VECIN address 0 size 65536 : !ascendc.local_tensor<f16>
  ascendc.data_copy_pad %t, %g, {%c4096, %c32, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: DataCopyPad blockCount must be in 0..4095, got 4096

// -----

func.func @f(%x: !ascendc.gm_addr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 2097152 : index
  %g = ascendc.global_tensor %x size 1000000 : !ascendc.global_tensor<f16>
  %t = ascendc.local_tensor VECIN address 0 size 65536 : !ascendc.local_tensor<f16>
  ascendc.data_copy_pad %g, %t, {%c1, %big, %c0, %c0} : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: DataCopyPad blockLen must be in 0..2097151 bytes, got 2097152

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f16>
  %b = ascendc.local_tensor VECOUT address 128 size 64 : !ascendc.local_tensor<f16>
  ascendc.data_copy_pad %b, %a, {%n, %n, %n, %n} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Operation does not verify: ascendc.data_copy_pad copies between global and local memory

// -----

func.func @f(%x: !ascendc.gm_addr, %i: index) {
  %g = ascendc.global_tensor %x size 64 : !ascendc.global_tensor<f16>
  %v = ascendc.get_value %g[%i] : !ascendc.global_tensor<f16> -> f32
  func.return
}
// CHECK: Operation does not verify: ascendc.get_value result type f32 does not match the tensor element type f16
