// RUN: pyasc-opt %s -p to-tile | filecheck %s

// A row broadcast keeps two dims (4096 x 100 f32). Per element: 2 x (x, r, out) x 4 B = 24 B,
// so 7850 elements fit: 75 rows of 104 (100 padded to 32 B). 55 row tiles are rounded up to
// 96 = 2 x 48 cores: 43-row tiles, 96 of them, two per core.
func.func @r(%x: tensor<4096x100xf32>, %r: tensor<100xf32>) -> tensor<4096x100xf32> {
  %rb = asctensor.broadcast %r : tensor<100xf32> -> tensor<4096x100xf32>
  %0 = arith.addf %x, %rb : tensor<4096x100xf32>
  func.return %0 : tensor<4096x100xf32>
}

// CHECK:       func.func @r_k0(%x: memref<4096x100xf32>, %r: memref<100xf32>, %out0: memref<4096x100xf32>) attributes {asctile.kernel, asctile.block_dim = 48 : i64, asctile.buffers = 2 : i64} {
// CHECK-NEXT:    %[[BID:.*]] = asctile.block_idx : index
// CHECK-NEXT:    %[[CORES:.*]] = asctile.block_num : index
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.constant 96 : index
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[BID]], %[[TOTAL]] : index
// CHECK-NEXT:    %[[LO:.*]] = arith.divui %[[T]], %[[CORES]] : index
// the row vector is the same for every tile: one load of a whole tile of rows, before the loop
// CHECK:         %[[RROWS:.*]] = arith.constant 43 : index
// CHECK-NEXT:    %[[RC:.*]] = arith.constant 100 : index
// CHECK-NEXT:    %[[R:.*]] = asctile.load %r[%{{.*}}] rows %[[RROWS]] cols %[[RC]] strides(0, 1) : memref<100xf32> -> tensor<43x104xf32>
// CHECK-NEXT:    scf.for %i =
// CHECK:           %[[TR:.*]] = arith.constant 43 : index
// CHECK:           %[[X:.*]] = asctile.load %x[%{{.*}}] rows %[[ROWS:.*]] cols %[[C:.*]] strides(100, 1) : memref<4096x100xf32> -> tensor<43x104xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[R]] : tensor<43x104xf32>
// CHECK:           asctile.store %[[S]], %out0[%{{.*}}] rows %[[ROWS]] cols %[[C]] stride 100 : tensor<43x104xf32>, memref<4096x100xf32>
// CHECK-NOT:     dense
