// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %o = asctile.gather_offsets cols 9 col_bytes 64 row_bytes 4 : tensor<8x8xi32>
  func.return
}
// CHECK: asctile.gather_offsets: cols 9 outside 1..8

// -----

// rows of 3 runs of 8 columns make a pitch of 24, not 16
func.func @f() {
  %o = asctile.gather_offsets cols 8 col_bytes 12 row_bytes 64 blocks 3 block_bytes 4 : tensor<4x16xi32>
  func.return
}
// CHECK: asctile.gather_offsets: 3 blocks of 8 columns (counted forwards; narrower than 8 columns: at least 3 blocks) must make the pitch 16, a multiple of 8

// -----

func.func @f(%src: tensor<16x16xf32>, %o: tensor<8x8xf32>) {
  %g = asctile.gather %src, %o : tensor<16x16xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  func.return
}
// CHECK: asctile.gather: offsets tensor<8x8xf32> must be i32 of the result's shape

// -----

func.func @f(%src: tensor<16x16xf32>, %o: tensor<8x8xi32>) {
  %g = asctile.gather %src, %o base -4 : tensor<16x16xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
  func.return
}
// CHECK: asctile.gather: base must be non-negative

// -----

// leading columns that repeat column 0 are a negative count
func.func @f() {
  %o = asctile.gather_offsets cols 4 first 1 col_bytes 8 row_bytes 64 : tensor<8x8xi32>
  func.return
}
// CHECK: asctile.gather_offsets: first 1 must be negative, on a table without blocks whose columns count forwards

// -----

func.func @f(%src: tensor<16x40xf32>) {
  %t = asctile.transpose %src : tensor<16x40xf32> -> tensor<16x40xf32>
  func.return
}
// CHECK: asctile.transpose: tensor<16x40xf32> is not the transpose of tensor<16x40xf32>

// -----

// lane 7 would pick column 1 + 2 * 7 = 15, past a row of 14
func.func @f(%src: tensor<6x14xf32>) {
  %p = asctile.pick_columns %src start 1 stride 2 : tensor<6x14xf32> -> tensor<6x8xf32>
  func.return
}
// CHECK: asctile.pick_columns: columns 1, 1 + 2, ... (8 of them) leave a row of 14

// -----

// column 2 of a 32 B block is not among the first two: no GatherMask pattern starts there
func.func @f(%src: tensor<6x24xf32>) {
  %p = asctile.pick_columns %src start 2 stride 2 : tensor<6x24xf32> -> tensor<6x8xf32>
  func.return
}
// CHECK: asctile.pick_columns: no GatherMask pattern picks columns 2 apart from column 2
