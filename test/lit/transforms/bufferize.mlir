// RUN: pyasc-opt %s -p bufferize | filecheck %s

// splat operands become the scalar of Adds/Muls/Maxs; max with 0 is Relu; s - x is
// Muls(-1) then Adds(s); x - c is Adds(-c); x / s has no scalar form and duplicates s;
// loaded and stored tiles get `buffers` slots, temporaries one; an op whose operand's temporary is
// read by no later op computes in place (the chain from x + 2 to -exp(...) lives in one buffer, the
// f16 cast and its way back need buffers of their own)

func.func @k(%x: memref<1024xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(0, 1) dense : memref<1024xf32> -> tensor<1x1024xf32>
    %s2 = arith.constant 2.0 : f32
    %sp2 = asctile.splat %s2 : f32 -> tensor<1x1024xf32>
    %z = arith.constant 0.0 : f32
    %spz = asctile.splat %z : f32 -> tensor<1x1024xf32>
    %a = arith.addf %t, %sp2 : tensor<1x1024xf32>
    %m = arith.mulf %sp2, %a : tensor<1x1024xf32>
    %mx = arith.maximumf %m, %sp2 : tensor<1x1024xf32>
    %r = arith.maximumf %mx, %spz : tensor<1x1024xf32>
    %sx = arith.subf %sp2, %r : tensor<1x1024xf32>
    %xs = arith.subf %sx, %sp2 : tensor<1x1024xf32>
    %d = arith.divf %xs, %sp2 : tensor<1x1024xf32>
    %e = math.exp %d : tensor<1x1024xf32>
    %ng = arith.negf %e : tensor<1x1024xf32>
    %h = arith.truncf %ng : tensor<1x1024xf32> to tensor<1x1024xf16>
    %w = arith.extf %h : tensor<1x1024xf16> to tensor<1x1024xf32>
    %fv = arith.addf %w, %w : tensor<1x1024xf32>
    %sum = arith.addf %fv, %t : tensor<1x1024xf32>
    asctile.store %sum, %out0[%c0] rows %c1 cols %n stride 1024 dense : tensor<1x1024xf32>, memref<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK-NEXT:    %[[T:.*]] = ascbuf.alloc slots 2 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[A:.*]] = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[SP:.*]] = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[H:.*]] = ascbuf.alloc slots 1 : memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[W:.*]] = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[SUM:.*]] = ascbuf.alloc slots 2 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NOT:     offset
// CHECK:         scf.for %i =
// CHECK-NEXT:      %[[TS:.*]] = ascbuf.slot %[[T]][%i] : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.copy_in %x[%c0], %[[TS]] rows %c1 cols %n strides(0, 1) dense : memref<1024xf32>, memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      %s2 = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      ascbuf.vscalar adds %[[A]], %[[TS]], %s2, %[[N]] : memref<1x1024xf32, #ascbuf.space<ub>>, f32
// CHECK-NEXT:      ascbuf.vscalar muls %[[A]], %[[A]], %s2, %[[N]]
// CHECK-NEXT:      ascbuf.vscalar maxs %[[A]], %[[A]], %s2, %[[N]]
// CHECK-NEXT:      ascbuf.vunary relu %[[A]], %[[A]], %[[N]] : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      %[[M1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      ascbuf.vscalar muls %[[A]], %[[A]], %[[M1]], %[[N]]
// CHECK-NEXT:      ascbuf.vscalar adds %[[A]], %[[A]], %s2, %[[N]]
// CHECK-NEXT:      %[[M2:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-NEXT:      ascbuf.vscalar adds %[[A]], %[[A]], %[[M2]], %[[N]]
// CHECK-NEXT:      ascbuf.vdup %[[SP]], %s2, %[[N]] : memref<1x1024xf32, #ascbuf.space<ub>>, f32
// CHECK-NEXT:      ascbuf.vbinary div %[[A]], %[[A]], %[[SP]], %[[N]]
// CHECK-NEXT:      ascbuf.vunary exp %[[A]], %[[A]], %[[N]]
// CHECK-NEXT:      %[[M3:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      ascbuf.vscalar muls %[[A]], %[[A]], %[[M3]], %[[N]]
// CHECK-NEXT:      ascbuf.vcast %[[H]], %[[A]], CAST_NONE, %[[N]] : memref<1x1024xf16, #ascbuf.space<ub>>, memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.vcast %[[W]], %[[H]], CAST_NONE, %[[N]] : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1x1024xf16, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.vbinary add %[[W]], %[[W]], %[[W]], %[[N]]
// CHECK-NEXT:      %[[SS:.*]] = ascbuf.slot %[[SUM]][%i]
// CHECK-NEXT:      ascbuf.vbinary add %[[SS]], %[[W]], %[[TS]], %[[N]]
// CHECK-NEXT:      ascbuf.copy_out %[[SS]], %out0[%c0] rows %c1 cols %n stride 1024 dense : memref<1x1024xf32, #ascbuf.space<ub>>, memref<1024xf32>
// CHECK-NEXT:    }
// CHECK-NOT:   asctile.
// CHECK-NOT:   tensor<

// a math-library routine (Sin) gets a scratch buffer of its documented size for the tile (3 live
// temporaries of 1024 f32 = 12288 B), never computes in place (dst, src and scratch must not overlap),
// and two routines of one size share the kernel's scratch

func.func @trig(%x: memref<1024xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(0, 1) dense : memref<1024xf32> -> tensor<1x1024xf32>
    %e = math.exp %t : tensor<1x1024xf32>
    %s = math.sin %e : tensor<1x1024xf32>
    %c = math.cos %s : tensor<1x1024xf32>
    asctile.store %c, %out0[%c0] rows %c1 cols %n stride 1024 dense : tensor<1x1024xf32>, memref<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @trig(
// CHECK:         %[[SCRATCH:.*]] = ascbuf.alloc slots 1 : memref<12288xui8, #ascbuf.space<ub>>
// CHECK-NOT:     memref<12288xui8
// CHECK:         scf.for
// CHECK:           ascbuf.vunary exp %e_buf, %{{.*}}, %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      ascbuf.vunary sin %s_buf, %e_buf, %{{.*}} scratch %[[SCRATCH]] : memref<12288xui8, #ascbuf.space<ub>> : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK:           ascbuf.vunary cos %{{[^,]*}}, %s_buf, %{{.*}} scratch %[[SCRATCH]] : memref<12288xui8, #ascbuf.space<ub>>

// a copy-in that writes less than the ops over its buffer read (150 f32 of a 160-element tile: the
// DataCopyPad writes 608 B): the lanes past it are computed but never stored, so nothing fills them

func.func @tail(%x: memref<150xf32>, %out0: memref<150xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 150 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(150, 1) : memref<150xf32> -> tensor<1x160xf32>
    %a = arith.addf %t, %t : tensor<1x160xf32>
    asctile.store %a, %out0[%c0] rows %c1 cols %n stride 150 : tensor<1x160xf32>, memref<150xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @tail(
// CHECK:         ascbuf.copy_in %x[%c0], %[[T:.*]] rows %c1 cols %n strides(150, 1)
// CHECK-NEXT:      ascbuf.vbinary add %{{.*}}, %[[T]], %[[T]]

// a constant tile made before the loop and stored in it (the padding of an im2col): one buffer, filled
// once before the loop, every pipe drained before the loop (MTE3 reads what the vector unit wrote), and
// each store copies out of that buffer
func.func @pad(%x: memref<64xf32>, %out0: memref<256xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %zeros = asctile.splat %z : f32 -> tensor<1x64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %n : index
    asctile.store %zeros, %out0[%o] rows %c1 cols %n stride 64 dense : tensor<1x64xf32>, memref<256xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @pad(
// CHECK:         %[[Z:.*]] = ascbuf.alloc slots 1 : memref<1x64xf32, #ascbuf.space<ub>>
// CHECK:         ascbuf.vdup %[[Z]], %z
// CHECK-NEXT:    ascbuf.barrier ALL
// CHECK-NEXT:    scf.for %i =
// CHECK-NOT:       ascbuf.vdup
// CHECK:           ascbuf.copy_out %[[Z]], %out0[%{{.*}}]
