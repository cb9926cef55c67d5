// RUN: pyasc-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func @f() {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<hbm>>
  func.return
}
// CHECK: invalid-syntax.mlir:4:62
// CHECK: Expected `gm`, `ub`, `l1`, `l0a`, `l0b`, `l0c`, or `bt`.

// -----

func.func @f(%i: index) {
  %a = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<ub>>
  ascbuf.vbinary pow %a, %a, %a, %i : memref<1x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: Expected `add`, `sub`, `mul`, `div`, `max`, `min`, `and`, or `or`.

// -----

func.func @f(%i: index) {
  ascbuf.set_flag MTE4 -> V, %i
  func.return
}
// CHECK: Expected `S`, `V`, `M`, `MTE1`, `MTE2`, `MTE3`, `FIX`, or `ALL`.
