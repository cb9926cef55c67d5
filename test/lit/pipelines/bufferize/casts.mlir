// RUN: pyasc-opt %s -p bufferize | filecheck %s

// rounding modes: widening is exact (CAST_NONE), narrowing to f16 rounds to nearest
// (CAST_NONE), to bf16 uses CAST_RINT, float to i32 truncates (CAST_TRUNC)
func.func @k(%x: memref<256xf32>, %out0: memref<256xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(0, 1) dense : memref<256xf32> -> tensor<1x256xf32>
    %b = arith.truncf %t : tensor<1x256xf32> to tensor<1x256xbf16>
    %bw = arith.extf %b : tensor<1x256xbf16> to tensor<1x256xf32>
    %h = arith.truncf %bw : tensor<1x256xf32> to tensor<1x256xf16>
    %hw = arith.extf %h : tensor<1x256xf16> to tensor<1x256xf32>
    asctile.store %hw, %out0[%c0] rows %c1 cols %n stride 256 dense : tensor<1x256xf32>, memref<256xf32>
  }
  func.return
}

// CHECK:         %[[T:.*]] = ascbuf.slot %{{.*}}[%i] : memref<1x256xf32, #ascbuf.space<ub>>
// CHECK:         ascbuf.vcast %[[B:.*]], %[[T]], CAST_RINT, %{{.*}} : memref<1x256xbf16, #ascbuf.space<ub>>, memref<1x256xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vcast %[[BW:.*]], %[[B]], CAST_NONE, %{{.*}} : memref<1x256xf32, #ascbuf.space<ub>>, memref<1x256xbf16, #ascbuf.space<ub>>
// CHECK-NEXT:    ascbuf.vcast %[[H:.*]], %[[BW]], CAST_NONE, %{{.*}} : memref<1x256xf16, #ascbuf.space<ub>>, memref<1x256xf32, #ascbuf.space<ub>>
// CHECK-NEXT:    %[[O:.*]] = ascbuf.slot
// CHECK-NEXT:    ascbuf.vcast %[[O]], %[[H]], CAST_NONE, %{{.*}} : memref<1x256xf32, #ascbuf.space<ub>>, memref<1x256xf16, #ascbuf.space<ub>>

