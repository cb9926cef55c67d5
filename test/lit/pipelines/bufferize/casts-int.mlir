// RUN: pyasc-opt %s --disable-verify -p to-tile,bufferize | filecheck %s --check-prefix=INT

// f32 -> i32 and i32 -> f32 come from asctensor.cast (verification is off: see
// test/lit/pipelines/tile/int-cast.mlir for the bug this works around)
func.func @c(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = asctensor.cast %x : tensor<256xf32> -> tensor<256xi32>
  %1 = asctensor.cast %0 : tensor<256xi32> -> tensor<256xf32>
  func.return %1 : tensor<256xf32>
}
// INT-LABEL: func.func @c_k0(
// INT:         ascbuf.vcast %[[I:.*]], %{{.*}}, CAST_TRUNC, %{{.*}} : memref<1x256xi32, #ascbuf.space<ub>>, memref<1x256xf32, #ascbuf.space<ub>>
// INT-NEXT:    %[[O:.*]] = ascbuf.slot
// INT-NEXT:    ascbuf.vcast %[[O]], %[[I]], CAST_NONE, %{{.*}} : memref<1x256xf32, #ascbuf.space<ub>>, memref<1x256xi32, #ascbuf.space<ub>>
