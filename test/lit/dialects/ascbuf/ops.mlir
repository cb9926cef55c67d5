// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @k(%x: memref<4096xf16>, %out: memref<4096xf32>, %i: index) {
  %a = ascbuf.alloc slots 2 offset 0 : memref<1x1024xf16, #ascbuf.space<ub>>
  %b = ascbuf.alloc slots 1 : memref<1x1024xf16, #ascbuf.space<ub>>
  %c = ascbuf.alloc slots 2 offset 4096 : memref<1x1024xf32, #ascbuf.space<ub>>
  %n = arith.constant 1024 : index
  %one = arith.constant 1 : index
  %s = arith.constant 2.0 : f16
  %as = ascbuf.slot %a[%i] : memref<1x1024xf16, #ascbuf.space<ub>>
  %cs = ascbuf.slot %c[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
  ascbuf.copy_in %x[%i], %as rows %one cols %n strides(0, 1) dense : memref<4096xf16>, memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.copy_in %x[%i], %b rows %one cols %n strides(64, 0) : memref<4096xf16>, memref<1x1024xf16, #ascbuf.space<ub>>
  %v = ascbuf.load_scalar %x[%i] : memref<4096xf16> -> f16
  ascbuf.vscalar adds %b, %b, %v, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vbinary add %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vbinary sub %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vbinary mul %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vbinary div %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vbinary max %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vbinary min %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vscalar adds %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vscalar muls %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vscalar maxs %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vscalar mins %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vunary exp %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary ln %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary abs %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary sqrt %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary rsqrt %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary reciprocal %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vunary relu %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vdup %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
  ascbuf.vcast %cs, %b, CAST_NONE, %n : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1x1024xf16, #ascbuf.space<ub>>
  ascbuf.vcast %b, %cs, CAST_RINT, %n : memref<1x1024xf16, #ascbuf.space<ub>>, memref<1x1024xf32, #ascbuf.space<ub>>
  ascbuf.set_flag MTE2 -> V, %i
  ascbuf.wait_flag V -> MTE3, %i
  ascbuf.barrier V
  ascbuf.barrier MTE2
  ascbuf.copy_out %cs, %out[%i] rows %one cols %n stride 4096 dense : memref<1x1024xf32, #ascbuf.space<ub>>, memref<4096xf32>
  ascbuf.copy_out %cs, %out[%i] rows %one cols %n stride 4096 : memref<1x1024xf32, #ascbuf.space<ub>>, memref<4096xf32>
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK-NEXT:    %a = ascbuf.alloc slots 2 offset 0 : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    %b = ascbuf.alloc slots 1 : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    %c = ascbuf.alloc slots 2 offset 4096 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK:         %as = ascbuf.slot %a[%i] : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    %cs = ascbuf.slot %c[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.copy_in %x[%i], %as rows %one cols %n strides(0, 1) dense : memref<4096xf16>, memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.copy_in %x[%i], %b rows %one cols %n strides(64, 0) : memref<4096xf16>, memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    %v = ascbuf.load_scalar %x[%i] : memref<4096xf16> -> f16
// CHECK-NEXT:    ascbuf.vscalar adds %b, %b, %v, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vbinary add %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vbinary sub %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vbinary mul %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vbinary div %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vbinary max %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vbinary min %b, %as, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vscalar adds %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vscalar muls %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vscalar maxs %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vscalar mins %b, %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vunary exp %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary ln %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary abs %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary sqrt %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary rsqrt %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary reciprocal %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vunary relu %b, %b, %n : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vdup %b, %s, %n : memref<1x1024xf16, #ascbuf.space<ub>>, f16
// CHECK-NEXT:    ascbuf.vcast %cs, %b, CAST_NONE, %n : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vcast %b, %cs, CAST_RINT, %n : memref<1x1024xf16, #ascbuf.space<ub>>, memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.set_flag MTE2 -> V, %i
// CHECK-NEXT:    ascbuf.wait_flag V -> MTE3, %i
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.barrier MTE2
// CHECK-NEXT:    ascbuf.copy_out %cs, %out[%i] rows %one cols %n stride 4096 dense : memref<1x1024xf32, #ascbuf.space<ub>>, memref<4096xf32>
// CHECK-NEXT:    ascbuf.copy_out %cs, %out[%i] rows %one cols %n stride 4096 : memref<1x1024xf32, #ascbuf.space<ub>>, memref<4096xf32>
// CHECK-NEXT:    func.return

// GENERIC: "ascbuf.alloc"() <{slots = 2 : i64, offset = 0 : i64}> : () -> memref<1x1024xf16, #ascbuf.space<ub>>
// GENERIC: "ascbuf.alloc"() <{slots = 1 : i64}> : () -> memref<1x1024xf16, #ascbuf.space<ub>>
// GENERIC: "ascbuf.copy_in"(%x, %i, %b, %one, %n) <{row_stride = 64 : i64, col_stride = 0 : i64}>
// GENERIC: %v = "ascbuf.load_scalar"(%x, %i) : (memref<4096xf16>, index) -> f16
// GENERIC: "ascbuf.vbinary"(%b, %as, %b, %n) <{kind = #ascbuf<vbinary_kind add>}>
// GENERIC: "ascbuf.vscalar"(%b, %b, %s, %n) <{kind = #ascbuf<vscalar_kind adds>}>
// GENERIC: "ascbuf.vunary"(%b, %b, %n) <{kind = #ascbuf<vunary_kind exp>}>
// GENERIC: "ascbuf.vcast"(%cs, %b, %n) <{round_mode = #ascendc<round_mode CAST_NONE>}>
// GENERIC: "ascbuf.set_flag"(%i) <{src_pipe = #ascbuf<pipe MTE2>, dst_pipe = #ascbuf<pipe V>}> : (index) -> ()
// GENERIC: "ascbuf.barrier"() <{pipe = #ascbuf<pipe V>}> : () -> ()
