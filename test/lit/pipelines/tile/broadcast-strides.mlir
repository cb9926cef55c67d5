// RUN: pyasc-opt %s -p 'to-tile{cores=8}' | filecheck %s

// every broadcast is a load stride: a row (0, 1), a column (1, 0), a scalar (0, 0);
// the row and scalar windows start at 0 and are the same for every tile (loaded once, before the
// loop), the column window starts at the tile's first row
func.func @b(%x: tensor<64x100xf32>, %r: tensor<100xf32>, %c: tensor<64x1xf32>, %s: tensor<1xf32>) -> tensor<64x100xf32> {
  %rb = asctensor.broadcast %r : tensor<100xf32> -> tensor<64x100xf32>
  %0 = arith.addf %x, %rb : tensor<64x100xf32>
  %cb = asctensor.broadcast %c : tensor<64x1xf32> -> tensor<64x100xf32>
  %1 = arith.mulf %0, %cb : tensor<64x100xf32>
  %sb = asctensor.broadcast %s : tensor<1xf32> -> tensor<64x100xf32>
  %2 = arith.subf %1, %sb : tensor<64x100xf32>
  func.return %2 : tensor<64x100xf32>
}

// CHECK:       func.func @b_k0(%x: memref<64x100xf32>, %r: memref<100xf32>, %c: memref<64x1xf32>, %s: memref<1xf32>, %out0: memref<64x100xf32>) attributes {asctile.kernel, asctile.block_dim = 8 : i64, asctile.buffers = 2 : i64} {
// the row vector is the same for every tile: loaded once, before the loop, for a whole tile of rows
// CHECK:         arith.constant 0 : index
// CHECK-NEXT:    %[[RZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[RROWS:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[RC:.*]] = arith.constant 100 : index
// CHECK-NEXT:    %[[R:.*]] = asctile.load %r[%[[RZERO]]] rows %[[RROWS]] cols %[[RC]] strides(0, 1) : memref<100xf32> -> tensor<8x104xf32>
// CHECK-NEXT:    %[[S:.*]] = asctile.load %s[%[[RZERO]]] rows %[[RROWS]] cols %[[RC]] strides(0, 0) : memref<1xf32> -> tensor<8x104xf32>
// CHECK-NEXT:    scf.for %i =
// CHECK:           %[[TR:.*]] = arith.constant 8 : index
// CHECK:           %[[R0:.*]] = arith.muli %{{.*}}, %[[TR]] : index
// CHECK-NEXT:      %[[C:.*]] = arith.constant 100 : index
// CHECK:           %[[ROWS:.*]] = arith.minui %{{.*}}, %[[TR]] : index
// CHECK-NEXT:      %[[XOFF:.*]] = arith.muli %[[R0]], %[[C]] : index
// CHECK-NEXT:      %[[X:.*]] = asctile.load %x[%[[XOFF]]] rows %[[ROWS]] cols %[[C]] strides(100, 1) : memref<64x100xf32> -> tensor<8x104xf32>
// CHECK-NEXT:      %[[CC:.*]] = asctile.load %c[%[[R0]]] rows %[[ROWS]] cols %[[C]] strides(1, 0) : memref<64x1xf32> -> tensor<8x104xf32>
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[X]], %[[R]] : tensor<8x104xf32>
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[CC]] : tensor<8x104xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[M]], %[[S]] : tensor<8x104xf32>
// CHECK:           asctile.store %[[D]], %out0[%{{.*}}] rows %[[ROWS]] cols %[[C]] stride 100 : tensor<8x104xf32>, memref<64x100xf32>
// CHECK-NOT:     asctensor.broadcast
