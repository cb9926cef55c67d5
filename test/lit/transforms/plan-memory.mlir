// RUN: pyasc-opt %s -p plan-memory | filecheck %s

// rotating (2-slot) buffers first, back to back; then one-slot temporaries share 4 KiB slots
// by first fit over their live ranges in the loop body
func.func @k(%x: memref<1024xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %in = ascbuf.alloc slots 2 : memref<1x1024xf32, #ascbuf.space<ub>>
  %a = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
  %b = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
  %c = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
  %h = ascbuf.alloc slots 1 : memref<1x1024xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
  %out = ascbuf.alloc slots 2 : memref<1x1024xf32, #ascbuf.space<ub>>
  %n = arith.constant 1024 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %is = ascbuf.slot %in[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.copy_in %x[%c0], %is rows %c1 cols %n strides(0, 1) dense : memref<1024xf32>, memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vunary exp %a, %is, %n : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vunary abs %b, %a, %n : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vbinary add %c, %a, %b, %n : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vcast %h, %c, CAST_NONE, %n : memref<1x1024xf16, #ascbuf.space<ub>>, memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vcast %d, %h, CAST_NONE, %n : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1x1024xf16, #ascbuf.space<ub>>
    %os = ascbuf.slot %out[%i] : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.vbinary mul %os, %d, %is, %n : memref<1x1024xf32, #ascbuf.space<ub>>
    ascbuf.copy_out %os, %out0[%c0] rows %c1 cols %n stride 1024 dense : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1024xf32>
  }
  func.return
}

// in: 0..8192, out: 8192..16384; temporaries from 16384 in slots of 4096 B (the widest):
// a and b are live together (slots 0, 1); c reuses slot 2 since a and b are read by its op;
// h (f16, 2048 B) takes the first free slot, d the next
// CHECK:      %in = ascbuf.alloc slots 2 offset 0 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT: %a = ascbuf.alloc slots 1 offset 16384 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT: %b = ascbuf.alloc slots 1 offset 20480 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT: %c = ascbuf.alloc slots 1 offset 24576 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT: %h = ascbuf.alloc slots 1 offset 16384 : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT: %d = ascbuf.alloc slots 1 offset 20480 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT: %out = ascbuf.alloc slots 2 offset 8192 : memref<1x1024xf32, #ascbuf.space<ub>>
