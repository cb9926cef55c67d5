// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=4096 cores=2},bufferize' | filecheck %s
// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=4096 cores=2},bufferize,plan-memory,insert-sync,convert-ascbuf-to-ascendc' | filecheck %s --check-prefix=ASC

// one value per tile row (a channel's bias over rows of channels): the column is copied in, one 32 B block per
// row on MTE2, and the add reads each row's value from UB (a per-row op), rather than reading GM row by row
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @c_k0(%x: tensor<2x64x256xf32>, %b: tensor<64xf32>) -> tensor<2x64x256xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = asctensor.reshape %b : tensor<64xf32> -> tensor<1x64x1xf32>
    %1 = asctensor.broadcast %0 : tensor<1x64x1xf32> -> tensor<2x64x256xf32>
    %2 = arith.addf %x, %1 : tensor<2x64x256xf32>
    func.return %2 : tensor<2x64x256xf32>
  }
  func.func @c(%x: tensor<2x64x256xf32>, %b: tensor<64xf32>) -> tensor<2x64x256xf32> {
    %0 = func.call @c_k0(%x, %b) : (tensor<2x64x256xf32>, tensor<64xf32>) -> tensor<2x64x256xf32>
    func.return %0 : tensor<2x64x256xf32>
  }
}

// CHECK:      %b_col_buf = ascbuf.alloc slots 2 : memref<16x8xf32, #ascbuf.space<ub>>
// CHECK:      scf.for
// CHECK:        ascbuf.copy_in %b[%{{.*}}], %[[COL:.*]] rows %{{.*}} cols %{{.*}} strides(1, 1) : memref<64xf32>, memref<16x8xf32, #ascbuf.space<ub>>
// CHECK:        ascbuf.vrow add %{{.*}}, %{{.*}}, %[[COL]] : memref<16x256xf32, #ascbuf.space<ub>>, memref<16x8xf32, #ascbuf.space<ub>>

// convert-ascbuf-to-ascendc: the column is a queue's tensor, dequeued before the per-row op reads it (on the
// scalar unit) and freed after
// ASC:        scf.for
// ASC:          %[[COL:.*]] = ascendc.alloc_tensor %b_colQue
// ASC:          ascendc.data_copy_pad %[[COL]], %{{.*}}
// ASC-NEXT:     ascendc.enque %b_colQue, %[[COL]]
// ASC:          %[[COLT:.*]] = ascendc.deque %b_colQue
// ASC:          scf.for %r =
// ASC:            ascendc.get_value %[[COLT]]
// ASC:            ascendc.adds
// ASC:          ascendc.free_tensor %b_colQue, %[[COLT]]
