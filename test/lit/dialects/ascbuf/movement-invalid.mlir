// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %t = ascbuf.alloc slots 1 : memref<8x8xf32, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 3 col_bytes 32 row_bytes 2 : memref<8x8xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.gather_offsets: the table is a 2-D i32 buffer

// -----

// runs of 4 columns (16 B of the table) are built two at a time, in three times that room: 2 runs are too few
func.func @f() {
  %t = ascbuf.alloc slots 1 : memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 4 col_bytes 2 row_bytes 16 blocks 2 block_bytes 8 : memref<8x8xi32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.gather_offsets: 2 blocks of 4 columns (counted forwards; narrower than 8 columns: at least 6 blocks) must make the pitch 8, a multiple of 8

// -----

func.func @f(%n: index) {
  %t = ascbuf.alloc slots 1 : memref<8x8xi32, #ascbuf.space<ub>>
  %s = ascbuf.alloc slots 1 : memref<16x16xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<8x16xf32, #ascbuf.space<ub>>
  ascbuf.gather %d, %s, %t, %n : memref<8x16xf32, #ascbuf.space<ub>>, memref<16x16xf16, #ascbuf.space<ub>>, memref<8x8xi32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.gather: dst and src element types differ

// -----

// a table whose first columns repeat column 0 counts its columns forwards
func.func @f() {
  %t = ascbuf.alloc slots 1 : memref<8x8xi32, #ascbuf.space<ub>>
  ascbuf.gather_offsets %t cols 4 first -1 col_bytes -8 row_bytes 64 : memref<8x8xi32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.gather_offsets: first -1 must be negative, on a table without blocks whose columns count forwards

// -----

// 40 rows of float16 are not whole blocks of 16 rows
func.func @f() {
  %s = ascbuf.alloc slots 1 : memref<16x40xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<40x16xf16, #ascbuf.space<ub>>
  ascbuf.transpose %d, %s : memref<40x16xf16, #ascbuf.space<ub>>, memref<16x40xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.transpose: memref<40x16xf16, #ascbuf.space<ub>> needs rows in multiples of 16, at most 4080 (repeatTimes <= 255), and columns in multiples of 16

// -----

func.func @f() {
  %s = ascbuf.alloc slots 1 : memref<16x32xbf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<32x16xbf16, #ascbuf.space<ub>>
  ascbuf.transpose %d, %s : memref<32x16xbf16, #ascbuf.space<ub>>, memref<16x32xbf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.transpose: element type bf16 (supported: i16, ui16, f16, i32, ui32, f32)

// -----

// no GatherMask pattern takes every third column
func.func @f() {
  %s = ascbuf.alloc slots 1 : memref<6x32xf32, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 : memref<6x8xf32, #ascbuf.space<ub>>
  ascbuf.pick_columns %d, %s start 0 stride 3 : memref<6x8xf32, #ascbuf.space<ub>>, memref<6x32xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.pick_columns: no GatherMask pattern picks columns 3 apart from column 0
