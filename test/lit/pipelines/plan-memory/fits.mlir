// RUN: pyasc-opt %s -p 'to-tile{tile_size=9000 cores=1},bufferize,plan-memory' | filecheck %s

// a plan that fits: 112 tiles of 8936 f32 (35744 B, 35840 B in whole 256 B repeats); x and out in 2
// slots each (4 x 35840 = 143360 B) plus one temporary = 179200 B <= 188416 B
func.func @f(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %0 = math.exp %x : tensor<1000000xf32>
  %1 = arith.addf %0, %x : tensor<1000000xf32>
  func.return %1 : tensor<1000000xf32>
}

// CHECK:      %x_buf = ascbuf.alloc slots 2 offset 0 : memref<1x8936xf32, #ascbuf.space<ub>>
// CHECK:      %tmp_buf = ascbuf.alloc slots 1 offset 143360 : memref<1x8936xf32, #ascbuf.space<ub>>
// CHECK:      %out_buf = ascbuf.alloc slots 2 offset 71680 : memref<1x8936xf32, #ascbuf.space<ub>>
// CHECK-NOT:  pyasc-opt: error
