// RUN: PYASC_ROUNDTRIP

func.func @f(%src: tensor<16x16xf32>) {
  %o = asctile.gather_offsets cols 5 col_bytes 64 row_bytes 4 : tensor<8x8xi32>
  %g = asctile.gather %src, %o : tensor<16x16xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
  %b = asctile.gather_offsets cols 8 col_bytes 12 row_bytes 96 blocks 3 block_bytes 4 : tensor<4x24xi32>
  %w = asctile.gather %src, %o base 8 : tensor<16x16xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
  %l = asctile.gather_offsets cols 4 first -1 col_bytes 8 row_bytes 64 : tensor<8x8xi32>
  func.return
}
// CHECK:      %o = asctile.gather_offsets cols 5 col_bytes 64 row_bytes 4 : tensor<8x8xi32>
// CHECK-NEXT: %g = asctile.gather %src, %o : tensor<16x16xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
// CHECK-NEXT: %b = asctile.gather_offsets cols 8 col_bytes 12 row_bytes 96 blocks 3 block_bytes 4 : tensor<4x24xi32>
// CHECK-NEXT: %w = asctile.gather %src, %o base 8 : tensor<16x16xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
// CHECK-NEXT: %l = asctile.gather_offsets cols 4 first -1 col_bytes 8 row_bytes 64 : tensor<8x8xi32>

func.func @t(%src: tensor<16x40xf32>) {
  %t = asctile.transpose %src : tensor<16x40xf32> -> tensor<40x16xf32>
  func.return
}
// CHECK: %t = asctile.transpose %src : tensor<16x40xf32> -> tensor<40x16xf32>

// every second column from column 1: result[r][c] = src[r][1 + 2 * c]
func.func @p(%src: tensor<6x16xf32>) {
  %p = asctile.pick_columns %src start 1 stride 2 : tensor<6x16xf32> -> tensor<6x8xf32>
  func.return
}
// CHECK: %p = asctile.pick_columns %src start 1 stride 2 : tensor<6x16xf32> -> tensor<6x8xf32>
