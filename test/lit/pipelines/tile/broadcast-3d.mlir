// RUN: pyasc-opt %s -p 'to-tile{cores=8}' | filecheck %s

// 4 x 32 x 64 plus a 32 x 1 column: the leading dim stays an outer dim (the column input
// repeats along it), so the tile index splits into an outer index (mod 4, stride 2048 for x
// and the output) and a row tile (2 x 16 rows); the column input ignores the outer index
func.func @d(%x: tensor<4x32x64xf32>, %c: tensor<32x1xf32>) -> tensor<4x32x64xf32> {
  %cb = asctensor.broadcast %c : tensor<32x1xf32> -> tensor<4x32x64xf32>
  %0 = arith.addf %x, %cb : tensor<4x32x64xf32>
  func.return %0 : tensor<4x32x64xf32>
}

// CHECK:       func.func @d_k0(%x: memref<4x32x64xf32>, %c: memref<32x1xf32>, %out0: memref<4x32x64xf32>) attributes {asctile.kernel, asctile.block_dim = 8 : i64, asctile.buffers = 2 : i64} {
// CHECK:         scf.for %i =
// CHECK-NEXT:      %[[T:.*]] = arith.addi %{{.*}}, %i : index
// CHECK:           %[[RT:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[RTI:.*]] = arith.remui %[[T]], %[[RT]] : index
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[T]], %[[RT]] : index
// CHECK-NEXT:      %[[TR:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[R0:.*]] = arith.muli %[[RTI]], %[[TR]] : index
// CHECK:           %[[OUTER:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[O:.*]] = arith.remui %[[Q]], %[[OUTER]] : index
// CHECK-NEXT:      arith.divui %[[Q]], %[[OUTER]] : index
// CHECK-NEXT:      %[[OST:.*]] = arith.constant 2048 : index
// CHECK-NEXT:      %[[OOFF:.*]] = arith.muli %[[O]], %[[OST]] : index
// CHECK-NEXT:      %[[ROFF:.*]] = arith.muli %[[R0]], %{{.*}} : index
// CHECK-NEXT:      %[[XOFF:.*]] = arith.addi %[[OOFF]], %[[ROFF]] : index
// CHECK-NEXT:      %[[X:.*]] = asctile.load %x[%[[XOFF]]] rows %{{.*}} cols %{{.*}} strides(64, 1) dense : memref<4x32x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:      %[[CC:.*]] = asctile.load %c[%[[R0]]] rows %{{.*}} cols %{{.*}} strides(1, 0) : memref<32x1xf32> -> tensor<16x64xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[CC]] : tensor<16x64xf32>
// CHECK:           asctile.store %[[S]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 64 dense : tensor<16x64xf32>, memref<4x32x64xf32>
