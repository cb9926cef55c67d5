// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16>
  func.return
}
// CHECK: Operation does not verify: ascbuf.alloc reserves on-chip memory (ub, l1, l0a, l0b, l0c), got memref<1x64xf16>

// -----

func.func @f() {
  %a = ascbuf.alloc slots 0 : memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.alloc: slots must be in 1..8, got 0

// -----

func.func @f() {
  %a = ascbuf.alloc slots 9 : memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.alloc: slots must be in 1..8, got 9

// -----

func.func @f() {
  %a = ascbuf.alloc slots 2 offset 48 : memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.alloc: offset 48 is not 32 B aligned

// -----

func.func @f(%m: memref<1x64xf16, #ascbuf.space<ub>>, %i: index) {
  %s = ascbuf.slot %m[%i] : memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.slot takes the result of an ascbuf.alloc

// -----

func.func @f(%x: memref<64xf32>, %i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  ascbuf.copy_in %x[%i], %a rows %i cols %i strides(0, 1) : memref<64xf32>, memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.copy_in: element types differ

// -----

func.func @f(%x: memref<64xf16>, %i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  ascbuf.copy_in %x[%i], %a rows %i cols %i strides(0, 3) : memref<64xf16>, memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Operation does not verify: ascbuf.copy_in: col_stride must be 0 or 1

// -----

func.func @f(%x: memref<64xf16>, %y: memref<1x64xf16>, %i: index) {
  ascbuf.copy_in %x[%i], %y rows %i cols %i strides(0, 1) : memref<64xf16>, memref<1x64xf16>
  func.return
}
// CHECK: Operation does not verify: ascbuf.copy_in works on UB buffers (memref in #ascbuf.space<ub>), got memref<1x64xf16>

// -----

func.func @f(%x: memref<64xf32>, %i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  ascbuf.copy_out %a, %x[%i] rows %i cols %i stride 64 : memref<1x64xf16, #ascbuf.space<ub>>, memref<64xf32>
  func.return
}
// CHECK: Operation does not verify: ascbuf.copy_out: element types differ

// -----

func.func @f(%a: memref<1x64xf16>, %i: index) {
  ascbuf.vbinary add %a, %a, %a, %i : memref<1x64xf16>
  func.return
}
// CHECK: Operation does not verify: ascbuf.vbinary works on UB buffers (memref in #ascbuf.space<ub>), got memref<1x64xf16>

// -----

func.func @f(%i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  %s = arith.constant 1.0 : f32
  ascbuf.vscalar muls %a, %a, %s, %i : memref<1x64xf16, #ascbuf.space<ub>>, f32
  func.return
}
// CHECK: Operation does not verify: ascbuf.vscalar: scalar type f32 differs from the buffer's element type f16

// -----

func.func @f(%i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  %s = arith.constant 1 : i32
  ascbuf.vdup %a, %s, %i : memref<1x64xf16, #ascbuf.space<ub>>, i32
  func.return
}
// CHECK: Operation does not verify: ascbuf.vdup: scalar type differs from the buffer's element type

// -----

func.func @f(%a: memref<1x64xf16>, %i: index) {
  ascbuf.vunary exp %a, %a, %i : memref<1x64xf16>
  func.return
}
// CHECK: Operation does not verify: ascbuf.vunary works on UB buffers (memref in #ascbuf.space<ub>), got memref<1x64xf16>

// -----

func.func @f(%x: memref<1x64xf32>, %i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  ascbuf.vcast %a, %x, CAST_NONE, %i : memref<1x64xf16, #ascbuf.space<ub>>, memref<1x64xf32>
  func.return
}
// CHECK: Operation does not verify: ascbuf.vcast works on UB buffers (memref in #ascbuf.space<ub>), got memref<1x64xf32>

// -----

func.func @f(%i: index) {
  ascbuf.set_flag V -> V, %i
  func.return
}
// CHECK: Operation does not verify: ascbuf.set_flag: needs two different pipes, got V -> V

// -----

func.func @f(%i: index) {
  ascbuf.wait_flag ALL -> MTE2, %i
  func.return
}
// CHECK: Operation does not verify: ascbuf.wait_flag: needs two different pipes, got ALL -> MTE2

// -----

func.func @f() {
  ascbuf.barrier S
  func.return
}
// CHECK: Operation does not verify: ascbuf.barrier: the scalar pipe is ordered by hardware

// -----

func.func @f(%x: memref<64xf16>, %i: index) {
  %v = ascbuf.load_scalar %x[%i] : memref<64xf16> -> f32
  func.return
}
// CHECK: Operation does not verify: ascbuf.load_scalar: result type f32 differs from the buffer's element type f16

// -----

func.func @f(%i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  %v = ascbuf.load_scalar %a[%i] : memref<1x64xf16, #ascbuf.space<ub>> -> f16
  func.return
}
// CHECK: Operation does not verify: ascbuf.load_scalar reads GM, got memref<1x64xf16, #ascbuf.space<ub>>
