// RUN: PYASC_ROUNDTRIP

func.func @f(%n: index) {
  %t = ascbuf.alloc slots 1 : memref<8x8xi32, #ascbuf.space<ub>>
  %s = ascbuf.alloc slots 1 : memref<16x16xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 2 : memref<8x16xf16, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 3 col_bytes 32 row_bytes 2 : memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 8 col_bytes 2 row_bytes 16 blocks 1 block_bytes 0 : memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 6 first -2 col_bytes 4 row_bytes 32 : memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather %d, %s, %t, %n : memref<8x16xf16, #ascbuf.space<ub>>, memref<16x16xf16, #ascbuf.space<ub>>, memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather %d, %s, %t, %n base 32 : memref<8x16xf16, #ascbuf.space<ub>>, memref<16x16xf16, #ascbuf.space<ub>>, memref<8x8xi32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.gather_offsets %t cols 3 col_bytes 32 row_bytes 2 : memref<8x8xi32, #ascbuf.space<ub>>
// CHECK-NEXT: ascbuf.gather_offsets %t cols 8 col_bytes 2 row_bytes 16 blocks 1 block_bytes 0 : memref<8x8xi32, #ascbuf.space<ub>>
// CHECK-NEXT: ascbuf.gather_offsets %t cols 6 first -2 col_bytes 4 row_bytes 32 : memref<8x8xi32, #ascbuf.space<ub>>
// CHECK-NEXT: ascbuf.gather %d, %s, %t, %n : memref<8x16xf16, #ascbuf.space<ub>>, memref<16x16xf16, #ascbuf.space<ub>>, memref<8x8xi32, #ascbuf.space<ub>>
// CHECK-NEXT: ascbuf.gather %d, %s, %t, %n base 32 : memref<8x16xf16, #ascbuf.space<ub>>, memref<16x16xf16, #ascbuf.space<ub>>, memref<8x8xi32, #ascbuf.space<ub>>

func.func @t() {
  %s = ascbuf.alloc slots 1 : memref<16x40xf32, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<40x16xf32, #ascbuf.space<ub>>
  ascbuf.transpose %d, %s : memref<40x16xf32, #ascbuf.space<ub>>, memref<16x40xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.transpose %d, %s : memref<40x16xf32, #ascbuf.space<ub>>, memref<16x40xf32, #ascbuf.space<ub>>

func.func @p() {
  %s = ascbuf.alloc slots 1 : memref<6x16xf32, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<6x8xf32, #ascbuf.space<ub>>
  ascbuf.pick_columns %d, %s start 8 stride 1 : memref<6x8xf32, #ascbuf.space<ub>>, memref<6x16xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.pick_columns %d, %s start 8 stride 1 : memref<6x8xf32, #ascbuf.space<ub>>, memref<6x16xf32, #ascbuf.space<ub>>
