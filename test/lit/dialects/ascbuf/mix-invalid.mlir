// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @k() {
  %c0 = arith.constant 0 : index
  ascbuf.cross_set_flag S, %c0
  func.return
}
// CHECK: ascbuf.cross_set_flag: a cross-core set is issued on a work pipe, not S

// -----

func.func @k() {
  %c11 = arith.constant 11 : index
  ascbuf.cross_wait_flag %c11
  func.return
}
// CHECK: ascbuf.cross_wait_flag: cross-core flag id 11 is out of range 0..10

// -----

func.func @k() {
  %c0 = arith.constant 0 : index
  ascbuf.cross_set_flag ALL, %c0
  func.return
}
// CHECK: ascbuf.cross_set_flag: a cross-core set is issued on a work pipe, not ALL

// -----

func.func @r() {
  %row = ascbuf.alloc slots 1 : memref<1x64xf32, #ascbuf.space<ub>>
  %t = ascbuf.alloc slots 1 : memref<32x64xf16, #ascbuf.space<ub>>
  ascbuf.vrepeat_rows %t, %row : memref<32x64xf16, #ascbuf.space<ub>>, memref<1x64xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.vrepeat_rows: repeats a 1 x P buffer into an R x P buffer of its element type
