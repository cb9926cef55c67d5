// RUN: pyasc-opt %s -p 'to-tile{tile_size=1000 cores=4}' | filecheck %s

// 8191 (prime) f32 elements in tiles of at most 1000: 9 tiles of 912 (8191 / 9 rounded up to
// 8 elements = 32 B); the last tile holds 8191 - 8 x 912 = 895 valid elements, so no tile is
// a whole number of 32 B blocks in GM and no copy is marked dense
func.func @p(%x: tensor<8191xf32>) -> tensor<8191xf32> {
  %0 = math.exp %x : tensor<8191xf32>
  func.return %0 : tensor<8191xf32>
}

// CHECK:       func.func @p_k0(%x: memref<8191xf32>, %out0: memref<8191xf32>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// CHECK-NEXT:    %[[BID:.*]] = asctile.block_idx : index
// CHECK-NEXT:    %[[CORES:.*]] = asctile.block_num : index
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.constant 9 : index
// CHECK-NEXT:    %[[A:.*]] = arith.muli %[[BID]], %[[TOTAL]] : index
// CHECK-NEXT:    %[[LO:.*]] = arith.divui %[[A]], %[[CORES]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[B1:.*]] = arith.addi %[[BID]], %[[ONE]] : index
// CHECK-NEXT:    %[[B2:.*]] = arith.muli %[[B1]], %[[TOTAL]] : index
// CHECK-NEXT:    %[[HI:.*]] = arith.divui %[[B2]], %[[CORES]] : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    scf.for %i = %[[ZERO]] to %[[COUNT]] step %[[ONE]] {
// CHECK-NEXT:      %[[T:.*]] = arith.addi %[[LO]], %i : index
// CHECK:           %[[TILE:.*]] = arith.constant 912 : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %{{.*}}, %[[TILE]] : index
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8191 : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[N]], %[[OFF]] : index
// CHECK-NEXT:      %[[VALID:.*]] = arith.minui %[[REST]], %[[TILE]] : index
// CHECK-NEXT:      %[[X:.*]] = asctile.load %x[%[[OFF]]] rows %{{.*}} cols %[[VALID]] strides(0, 1) : memref<8191xf32> -> tensor<1x912xf32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X]] : tensor<1x912xf32>
// CHECK-NEXT:      asctile.store %[[E]], %out0[%[[OFF]]] rows %{{.*}} cols %[[VALID]] stride 8191 : tensor<1x912xf32>, memref<8191xf32>
// CHECK-NEXT:    }
// CHECK-NOT:   dense
