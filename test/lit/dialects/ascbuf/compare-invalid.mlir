// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%n: index) {
  %a = ascbuf.alloc slots 1 : memref<2x64xf32, #ascbuf.space<ub>>
  %m = ascbuf.alloc slots 1 : memref<8xui8, #ascbuf.space<ub>>
  ascbuf.vcompare eq %m, %a, %a, %n : memref<8xui8, #ascbuf.space<ub>>, memref<2x64xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: has fewer bits than

// -----

func.func @f(%n: index) {
  %a = ascbuf.alloc slots 1 : memref<2x64xf32, #ascbuf.space<ub>>
  %m = ascbuf.alloc slots 1 : memref<16xi8, #ascbuf.space<ub>>
  ascbuf.vselect %a, %m, %a, %a, %n : memref<2x64xf32, #ascbuf.space<ub>>, memref<16xi8, #ascbuf.space<ub>>
  func.return
}
// CHECK: a mask is a ui8 buffer
