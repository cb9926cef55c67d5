// RUN: pyasc-opt %s -p bufferize | filecheck %s

// an input that is one value for the whole tile (strides 0, 0) is read once as a scalar when every
// use has a scalar form: x + s is Adds(s), x - s is Adds(-s) with -s computed once, x * s is Muls(s);
// an input that is also divided by keeps its duplicated tile (Div has no scalar form)

func.func @k(%x: memref<1024xf32>, %s: memref<1xf32>, %d: memref<1xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  %sv = asctile.load %s[%c0] rows %c1 cols %n strides(0, 0) : memref<1xf32> -> tensor<1x1024xf32>
  %dv = asctile.load %d[%c0] rows %c1 cols %n strides(0, 0) : memref<1xf32> -> tensor<1x1024xf32>
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(0, 1) dense : memref<1024xf32> -> tensor<1x1024xf32>
    %a = arith.addf %t, %sv : tensor<1x1024xf32>
    %b = arith.subf %a, %sv : tensor<1x1024xf32>
    %m = arith.mulf %sv, %b : tensor<1x1024xf32>
    %q = arith.divf %m, %dv : tensor<1x1024xf32>
    %r = arith.addf %q, %dv : tensor<1x1024xf32>
    asctile.store %r, %out0[%c0] rows %c1 cols %n stride 1024 dense : tensor<1x1024xf32>, memref<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK:         %[[DB:.*]] = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK:         %[[S:.*]] = ascbuf.load_scalar %s[%{{.*}}] : memref<1xf32> -> f32
// CHECK-NEXT:    %[[NS:.*]] = arith.negf %[[S]] : f32
// CHECK-NEXT:    ascbuf.copy_in %d[%{{.*}}], %[[DB]] rows %{{.*}} cols %{{.*}} strides(0, 0) : memref<1xf32>, memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NOT:     ascbuf.load_scalar %d
// CHECK:         scf.for
// CHECK:           ascbuf.vscalar adds %{{.*}}, %{{.*}}, %[[S]], %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>, f32
// CHECK-NEXT:      ascbuf.vscalar adds %{{.*}}, %{{.*}}, %[[NS]], %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>, f32
// CHECK-NEXT:      ascbuf.vscalar muls %{{.*}}, %{{.*}}, %[[S]], %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>, f32
// CHECK-NEXT:      ascbuf.vbinary div %{{.*}}, %{{.*}}, %[[DB]], %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>
// CHECK-NEXT:      %[[OUT:.*]] = ascbuf.slot
// CHECK-NEXT:      ascbuf.vbinary add %[[OUT]], %{{.*}}, %[[DB]], %{{.*}} : memref<1x1024xf32, #ascbuf.space<ub>>
