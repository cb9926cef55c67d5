// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s

// a batch of small transposes (64 blocks [16][9] -> [9][16]): the table's first row is one block, 9 runs of 16
// columns; CreateVecIndex, Mins and Muls give the first run (a column 18 B further), runs [k, 2k) are runs
// [0, k) plus k * 2 B (Adds of 2, 4, 8 and, for the ninth run, 16 B), then the rows by doubling (a row is
// one block, 288 B further)
func.func @w(%w: tensor<64x16x9xf16>) -> tensor<64x9x16xf16> {
  %t = asctensor.transpose %w permutation = [0, 2, 1] : tensor<64x16x9xf16> -> tensor<64x9x16xf16>
  func.return %t : tensor<64x9x16xf16>
}

// CHECK:      ascendc.create_vec_index %[[T:.*]], %{{.*}}, %[[N:.*]] : !ascendc.local_tensor<i32>, i32
// CHECK:      %[[C18:.*]] = arith.constant 18 : i32
// CHECK-NEXT: ascendc.muls %[[T]], %[[T]], %[[C18]], %[[N]]
// CHECK:      %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C2]], %[[N]]
// CHECK:      %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C4]]
// CHECK:      %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C8]]
// CHECK:      %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C16]], %[[N]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK:      %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT: ascendc.adds %{{.*}}, %[[T]], %[[C288]]
// CHECK:      scf.for
// CHECK:        ascendc.gather
