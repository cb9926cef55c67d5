// RUN: pyasc-opt %s -p to-tile | filecheck %s

// Same-shape operands collapse to one dimension of 262144 elements. Per element of a tile:
// 2 buffers x (x, y, out) x 2 B = 12 B, plus 2 live f16 temporaries (mul, exp) x 2 B = 16 B;
// 188416 B of usable UB / 16 = 11776 elements, split evenly over 48 cores: 48 tiles of 5472
// (5462 rounded up to 16 elements = 32 B), the last one 4960 elements.
func.func @f(%x: tensor<256x1024xf16>, %y: tensor<256x1024xf16>) -> tensor<256x1024xf16> {
  %0 = arith.mulf %x, %y : tensor<256x1024xf16>
  %1 = math.exp %0 : tensor<256x1024xf16>
  %2 = arith.addf %1, %x : tensor<256x1024xf16>
  func.return %2 : tensor<256x1024xf16>
}

// CHECK:       func.func @f_k0(%x: memref<256x1024xf16>, %y: memref<256x1024xf16>, %out0: memref<256x1024xf16>) attributes {asctile.kernel, asctile.block_dim = 48 : i64, asctile.buffers = 2 : i64} {
// CHECK:         scf.for %i =
// CHECK:           %[[TILE:.*]] = arith.constant 5472 : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %{{.*}}, %[[TILE]] : index
// CHECK-NEXT:      %[[N:.*]] = arith.constant 262144 : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[N]], %[[OFF]] : index
// CHECK-NEXT:      %[[COLS:.*]] = arith.minui %[[REST]], %[[TILE]] : index
// CHECK-NEXT:      %[[X:.*]] = asctile.load %x[%[[OFF]]] rows %{{.*}} cols %[[COLS]] strides(0, 1) dense : memref<256x1024xf16> -> tensor<1x5472xf16>
// CHECK-NEXT:      %[[Y:.*]] = asctile.load %y[%[[OFF]]] rows %{{.*}} cols %[[COLS]] strides(0, 1) dense : memref<256x1024xf16> -> tensor<1x5472xf16>
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : tensor<1x5472xf16>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[M]] : tensor<1x5472xf16>
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[E]], %[[X]] : tensor<1x5472xf16>
// CHECK-NEXT:      asctile.store %[[A]], %out0[%[[OFF]]] rows %{{.*}} cols %[[COLS]] stride 262144 dense : tensor<1x5472xf16>, memref<256x1024xf16>
// CHECK-NEXT:    }
// CHECK:       func.func @f(%x: memref<256x1024xf16>, %y: memref<256x1024xf16>, %out0: memref<256x1024xf16>) {
// CHECK-NEXT:    func.call @f_k0(%x, %y, %out0) : (memref<256x1024xf16>, memref<256x1024xf16>, memref<256x1024xf16>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NOT:   tensor<256x1024xf16>
