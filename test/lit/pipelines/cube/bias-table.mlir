// RUN: pyasc-opt %s -p "tile-matmul{cores=2},bufferize-cube,plan-memory,convert-ascbuf-to-ascendc" | filecheck %s

// a float16 bias of 64 columns (four 32 B blocks) through BiasTable: the L1 row (C1) and the BT row (C2) are static
// tensors; in a block's first K step the ND2NZ of one row (its 32 B blocks side by side,
// dstNzC0Stride 1) of the block's columns, whole 64 B units, so nothing is zeroed; then the C1 -> C2 DataCopy of
// ceil(cols * 2 / 64) units; the block's first Mmad is the bias overload (init false), the others accumulate
func.func @f_mm0(%a: tensor<64x96xf16>, %b: tensor<96x64xf16>, %c: tensor<64xf16>) -> tensor<64x64xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b bias %c : tensor<64x96xf16>, tensor<96x64xf16>, tensor<64xf16> -> tensor<64x64xf16>
  func.return %0 : tensor<64x64xf16>
}
// CHECK-LABEL: func.func @f_mm0
// CHECK:      %bias_l1 = ascendc.local_tensor C1 address {{[0-9]+}} size [[L1N:[0-9]+]] : !ascendc.local_tensor<f16>
// CHECK-NEXT: %bias_bt = ascendc.local_tensor C2 address 0 size [[L1N]] : !ascendc.local_tensor<f32>
// CHECK-NOT:  ascendc.init_const_value %bias_l1
// CHECK:      ascendc.subview %cGm
// CHECK:      ascendc.data_copy_nd2nz %bias_l1, %{{.*}}, {%[[ONE:.*]], %[[ONE]], %[[D:.*]], %{{.*}}, %[[D]], %[[ONE]], %[[ONE]], %{{.*}}}
// CHECK:      ascendc.set_flag MTE2_MTE1
// CHECK:      ascendc.data_copy_l1_bt %bias_bt, %bias_l1, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
// (one K step per block: that Mmad is also the block's last, unit flag 3)
// CHECK:        %[[F:.*]] = arith.constant false
// CHECK-NEXT:   ascendc.mmad %{{.*}}, %{{.*}}, %{{.*}} bias %bias_bt, {%{{.*}}, %{{.*}}, %{{.*}}} init %[[F]] unit_flag 3
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[F2:.*]] = arith.constant false
// CHECK-NEXT:   ascendc.mmad %{{.*}}, %{{.*}}, %{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}} init %[[F2]] unit_flag 3
// CHECK-NEXT: }
// CHECK-NEXT: scf.if
// CHECK-NEXT:   ascendc.set_flag M_MTE1

// 40 float16 columns in one block: three 32 B blocks, so the row's second 64 B unit is half written; the row is
// zeroed once at the kernel's start from where the copy ends (element 48: the fourth 32 B block); no copy writes
// there, so no barrier; the bytes the copy writes stay undefined until it does
func.func @g_mm0(%a: tensor<64x96xf16>, %b: tensor<96x40xf16>, %c: tensor<40xf16>) -> tensor<64x40xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b bias %c : tensor<64x96xf16>, tensor<96x40xf16>, tensor<40xf16> -> tensor<64x40xf16>
  func.return %0 : tensor<64x40xf16>
}
// CHECK-LABEL: func.func @g_mm0
// CHECK:      %bias_bt = ascendc.local_tensor C2
// CHECK-NEXT: ascendc.set_mm_row_major
// CHECK-NEXT: %[[AT:.*]] = arith.constant 48 : index
// CHECK-NEXT: %[[TAIL:.*]] = ascendc.subview %bias_l1[%[[AT]]]
// CHECK-NEXT: %[[U1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: ascendc.init_const_value %[[TAIL]], {%[[U1]], %[[U1]], %[[Z]], %[[ZERO]]}
// CHECK-NOT:  ascendc.pipe_barrier PIPE_MTE2
// CHECK:      scf.for

// 70 columns in blocks of 48 (three 32 B blocks) and 22 (two): the row is zeroed from byte 64 (element 32), which
// the 48-column blocks' copies write over, so an MTE2 barrier orders them after the zeroing
func.func @h_mm0(%a: tensor<64x96xf16>, %b: tensor<96x70xf16>, %c: tensor<70xf16>) -> tensor<64x70xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b bias %c : tensor<64x96xf16>, tensor<96x70xf16>, tensor<70xf16> -> tensor<64x70xf16>
  func.return %0 : tensor<64x70xf16>
}
// CHECK-LABEL: func.func @h_mm0
// CHECK:      %bias_bt = ascendc.local_tensor C2
// CHECK-NEXT: ascendc.set_mm_row_major
// CHECK-NEXT: %[[AT2:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[TAIL2:.*]] = ascendc.subview %bias_l1[%[[AT2]]]
// CHECK:      ascendc.init_const_value %[[TAIL2]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_MTE2
