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
// CHECK:        %[[F:.*]] = arith.constant false
// CHECK-NEXT:   ascendc.mmad %{{.*}}, %{{.*}}, %{{.*}} bias %bias_bt, {%{{.*}}, %{{.*}}, %{{.*}}} init %[[F]]
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[F2:.*]] = arith.constant false
// CHECK-NEXT:   ascendc.mmad %{{.*}}, %{{.*}}, %{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}} init %[[F2]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.if
// CHECK-NEXT:   ascendc.set_flag M_MTE1

// 40 float16 columns in one block: three 32 B blocks, so the row's second 64 B unit is half written; the row (four
// 32 B blocks) is zeroed once at the kernel's start, before any copy (an MTE2 barrier orders the ND2NZs after it)
func.func @g_mm0(%a: tensor<64x96xf16>, %b: tensor<96x40xf16>, %c: tensor<40xf16>) -> tensor<64x40xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b bias %c : tensor<64x96xf16>, tensor<96x40xf16>, tensor<40xf16> -> tensor<64x40xf16>
  func.return %0 : tensor<64x40xf16>
}
// CHECK-LABEL: func.func @g_mm0
// CHECK:      %bias_bt = ascendc.local_tensor C2
// CHECK-NEXT: %[[U1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[UNITS:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: ascendc.init_const_value %bias_l1, {%[[U1]], %[[UNITS]], %[[Z]], %[[ZERO]]}
// CHECK-NEXT: ascendc.pipe_barrier PIPE_MTE2
// CHECK:      scf.for
