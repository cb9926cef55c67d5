// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %o = asctile.gather_offsets cols 9 col_bytes 64 row_bytes 4 : tensor<8x8xi32>
  func.return
}
// CHECK: asctile.gather_offsets: cols 9 outside 1..8

// -----

func.func @f(%src: tensor<16x16xf32>, %o: tensor<8x8xf32>) {
  %g = asctile.gather %src, %o : tensor<16x16xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  func.return
}
// CHECK: asctile.gather: offsets tensor<8x8xf32> must be i32 of the result's shape
