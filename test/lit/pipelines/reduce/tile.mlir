// RUN: pyasc-opt %s -p 'to-tile{cores=2}' | filecheck %s

// 64 rows of 16 on 2 cores: row tiles of 32 x 16; each reduction leaves one 8-wide (32-byte)
// block per row, broadcast back along the row with asctile.row_broadcast
func.func @sm(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %y = asctensor.softmax %x axis 1 : tensor<64x16xf32>
  func.return %y : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @sm_k0(%x: memref<64x16xf32>, %out0: memref<64x16xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
// CHECK:         scf.for %i =
// CHECK:           %[[X:.*]] = asctile.load %x[%{{.*}}] rows %[[R:.*]] cols %[[C:.*]] strides(16, 1) dense : memref<64x16xf32> -> tensor<32x16xf32>
// CHECK-NEXT:      %[[M:.*]] = asctile.reduce max %[[X]] cols %[[C]] : tensor<32x16xf32> -> tensor<32x8xf32>
// CHECK-NEXT:      %[[MB:.*]] = asctile.row_broadcast %[[M]] : tensor<32x8xf32> -> tensor<32x16xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[X]], %[[MB]] : tensor<32x16xf32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[S]] : tensor<32x16xf32>
// CHECK-NEXT:      %[[Z:.*]] = asctile.reduce sum %[[E]] cols %[[C]] : tensor<32x16xf32> -> tensor<32x8xf32>
// CHECK-NEXT:      %[[ZB:.*]] = asctile.row_broadcast %[[Z]] : tensor<32x8xf32> -> tensor<32x16xf32>
// CHECK-NEXT:      %[[Y:.*]] = arith.divf %[[E]], %[[ZB]] : tensor<32x16xf32>
// CHECK:           asctile.store %[[Y]], %out0[%{{.*}}] rows %[[R]] cols %[[C]] stride 16 dense : tensor<32x16xf32>, memref<64x16xf32>
// CHECK-LABEL: func.func @sm(%x: memref<64x16xf32>, %out0: memref<64x16xf32>) {
// CHECK-NEXT:    func.call @sm_k0(%x, %out0) : (memref<64x16xf32>, memref<64x16xf32>) -> ()
