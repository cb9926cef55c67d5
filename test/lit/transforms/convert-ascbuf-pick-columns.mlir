// RUN: pyasc-opt %s -p 'convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// every second column of 300 rows of 48 float16 from column 17: one GatherMask per 255 rows, in counter mode
// with pattern 2 (the odd lanes) from the 32 B block of column 16, 1 + 2 * 15 + 1 = 32 elements a repeat, the
// repeats a row (48 elements: 3 DataBlocks) apart; the second call starts 255 rows further on both sides
func.func @k(%x: memref<14400xf16>, %out0: memref<4800xf16>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 1 : i64} {
  %s = ascbuf.alloc slots 1 offset 0 : memref<300x48xf16, #ascbuf.space<ub>>
  %d = ascbuf.alloc slots 1 offset 28800 : memref<300x16xf16, #ascbuf.space<ub>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 14400 : index
  %m = arith.constant 4800 : index
  ascbuf.copy_in %x[%c0], %s rows %c1 cols %n strides(0, 1) dense : memref<14400xf16>, memref<300x48xf16, #ascbuf.space<ub>>
  ascbuf.set_flag MTE2 -> V, %c0
  ascbuf.wait_flag MTE2 -> V, %c0
  ascbuf.pick_columns %d, %s start 17 stride 2 : memref<300x16xf16, #ascbuf.space<ub>>, memref<300x48xf16, #ascbuf.space<ub>>
  ascbuf.set_flag V -> MTE3, %c0
  ascbuf.wait_flag V -> MTE3, %c0
  ascbuf.copy_out %d, %out0[%c0] rows %c1 cols %m stride 4800 dense : memref<300x16xf16, #ascbuf.space<ub>>, memref<4800xf16>
  func.return
}
func.func @f(%x: memref<14400xf16>, %out0: memref<4800xf16>) {
  func.call @k(%x, %out0) : (memref<14400xf16>, memref<4800xf16>) -> ()
  func.return
}

// CHECK:      ascendc.wait_flag MTE2_V
// CHECK:        %[[S0:.*]] = ascendc.subview %s[%{{.*}}]
// CHECK:        ascendc.gather_mask %d, %[[S0]] pattern 2 reduce_mode 1 mask %[[M:.*]] params(%[[B:.*]], %[[R0:.*]], %[[ST:.*]]) : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK:        %[[D1:.*]] = ascendc.subview %d[%{{.*}}]
// CHECK:        %[[S1:.*]] = ascendc.subview %s[%{{.*}}]
// CHECK:        ascendc.gather_mask %[[D1]], %[[S1]] pattern 2 reduce_mode 1 mask %[[M]] params(%[[B]], %{{.*}}, %[[ST]])
// CHECK-NOT:    ascendc.gather_mask
// CHECK:        ascendc.set_flag V_MTE3
