// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ascbuf.cross_wait_flag %c1
  ascbuf.cross_set_flag FIX, %c0
  ascbuf.cross_set_flag MTE2, %c1
  func.return
}
// CHECK:      ascbuf.cross_wait_flag %c1
// CHECK-NEXT: ascbuf.cross_set_flag FIX, %c0
// CHECK-NEXT: ascbuf.cross_set_flag MTE2, %c1

// -----

func.func @r() {
  %row = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  %t = ascbuf.alloc slots 1 : memref<32x64xf16, #ascbuf.space<ub>>
  ascbuf.vrepeat_rows %t, %row : memref<32x64xf16, #ascbuf.space<ub>>, memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.vrepeat_rows %t, %row : memref<32x64xf16, #ascbuf.space<ub>>, memref<1x64xf16, #ascbuf.space<ub>>
