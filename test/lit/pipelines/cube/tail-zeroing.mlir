// RUN: pyasc-opt %s -p "tile-matmul{cores=2 base_m=112},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s

// 200 rows in blocks of 112 and K = 40 in one L1 stage of 48: the copies of A (rows past M) and B (K
// rows past 40) may leave part of a 16-row fractal unwritten. Only that part is zeroed (repeat: the
// column blocks written, blockNum: the pad to 16 rows, gap: the rest of the column block), followed by an
// MTE2 barrier; no column block is zeroed. B (copied first) always has its 40 rows, so its zeroing runs
// unconditionally; A's rows are 112 (whole fractals) or 88, so its zeroing runs only when the pad is not 0,
// with the barrier inside the same if.
func.func @f_mm0(%a: tensor<200x40xf16>, %b: tensor<40x60xf16>) -> tensor<200x60xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<200x40xf16>, tensor<40x60xf16> -> tensor<200x60xf16>
  func.return %0 : tensor<200x60xf16>
}
// CHECK-LABEL: func.func @f_mm0
// CHECK-NOT:  scf.if
// CHECK:      ascendc.init_const_value
// CHECK-NEXT: ascendc.pipe_barrier PIPE_MTE2
// CHECK-NOT:  init_const_value
// CHECK:      ascendc.data_copy_nd2nz
// CHECK:      %[[NE:.*]] = arith.cmpi ne, %[[PAD:.*]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[NE]] {
// CHECK:        %[[GAP:.*]] = arith.subi %{{.*}}, %[[PAD]] : index
// CHECK:        ascendc.init_const_value %{{.*}}, {%{{.*}}, %[[PAD]], %[[GAP]], %{{.*}}}
// CHECK-NEXT:   ascendc.pipe_barrier PIPE_MTE2
// CHECK-NEXT: }
// CHECK-NOT:  init_const_value
// CHECK:      ascendc.data_copy_nd2nz
// CHECK-NOT:  init_const_value
// CHECK:      ascendc.mmad

// whole tiles: nothing is zeroed
// RUN: pyasc-opt %s -p "tile-matmul{cores=2 base_m=112},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s --check-prefix=WHOLE
// WHOLE-LABEL: func.func @g_mm0
// WHOLE-NOT:   init_const_value
// WHOLE:       func.return
func.func @g_mm0(%a: tensor<224x64xf16>, %b: tensor<64x64xf16>) -> tensor<224x64xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<224x64xf16>, tensor<64x64xf16> -> tensor<224x64xf16>
  func.return %0 : tensor<224x64xf16>
}
