// RUN: pyasc-opt %s | pyasc-opt | filecheck %s

func.func @f(%n: index, %s: f32) {
  %a = ascbuf.alloc slots 1 : memref<2x64xf32, #ascbuf.space<ub>>
  %m = ascbuf.alloc slots 1 : memref<16xui8, #ascbuf.space<ub>>
  %b = ascbuf.alloc slots 1 : memref<2x64xi1, #ascbuf.space<ub>>
  %w = ascbuf.alloc slots 1 : memref<2x64xf16, #ascbuf.space<ub>>
  ascbuf.vcompare ge %m, %a, %a, %n : memref<16xui8, #ascbuf.space<ub>>, memref<2x64xf32, #ascbuf.space<ub>>
  ascbuf.vcompare_scalar lt %m, %a, %s, %n : memref<16xui8, #ascbuf.space<ub>>, memref<2x64xf32, #ascbuf.space<ub>>, f32
  ascbuf.vselect %a, %m, %a, %a, %n : memref<2x64xf32, #ascbuf.space<ub>>, memref<16xui8, #ascbuf.space<ub>>
  ascbuf.vselect_scalar %a, %m, %a, %s, %n : memref<2x64xf32, #ascbuf.space<ub>>, memref<16xui8, #ascbuf.space<ub>>, f32
  ascbuf.mask_to_bool %b, %m, %w, %n : memref<2x64xi1, #ascbuf.space<ub>>, memref<16xui8, #ascbuf.space<ub>>, memref<2x64xf16, #ascbuf.space<ub>>
  ascbuf.bool_to_mask %m, %b, %w, %n : memref<16xui8, #ascbuf.space<ub>>, memref<2x64xi1, #ascbuf.space<ub>>, memref<2x64xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.vcompare ge
// CHECK: ascbuf.vcompare_scalar lt
// CHECK: ascbuf.vselect
// CHECK: ascbuf.vselect_scalar
// CHECK: ascbuf.mask_to_bool
// CHECK: ascbuf.bool_to_mask
