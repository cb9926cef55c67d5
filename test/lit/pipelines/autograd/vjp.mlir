// RUN: python %S/Inputs/vjp_programs.py > %t
// RUN: filecheck %s --check-prefix=TRACED < %t
// RUN: pyasc-opt --split-input-file -p asctensor-autodiff < %t | filecheck %s
// RUN: pyasc-opt --split-input-file -p asctensor-autodiff,asctensor-fuse < %t | filecheck %s --check-prefix=FUSED

// pyasc.vjp inside pyasc.jit traces the forward and an asctensor.vjp op holding a record of each
// differentiated call; asctensor-autodiff replaces it with the VJP rules' ops, after the forward,
// and the fusion passes then treat the backward as any program.

// TRACED-LABEL: func.func @vjp_exp_mul(
// TRACED:         %[[E:.*]] = math.exp %args
// TRACED:         %[[P:.*]] = arith.mulf %[[E]], %arg1
// TRACED:         %[[GX:.*]], %[[GY:.*]] = asctensor.vjp of(%[[P]]) by(%arg2) wrt(%args, %arg1) {
// TRACED-NEXT:      asctensor.primal "exp"(%args) -> (%[[E]]) attrs "{}" layout "['%']"
// TRACED-NEXT:      asctensor.primal "mul"(%[[E]], %arg1) -> (%[[P]]) attrs "{}" layout "['%', '%']"
// TRACED-NEXT:    }
// TRACED:         func.return {{.*}}%[[GX]], %[[GY]]

// d(exp(x) * y): dx = ct * y * exp(x), dy = ct * exp(x); the backward reuses the forward's exp
// CHECK-LABEL: func.func @vjp_exp_mul(%args: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x8xf32>)
// CHECK:         %[[E:.*]] = math.exp %args
// CHECK:         %[[CY:.*]] = arith.mulf %arg2, %arg1
// CHECK:         %[[DY:.*]] = arith.mulf %arg2, %[[E]]
// CHECK:         %[[DX:.*]] = arith.mulf %[[CY]], %[[E]]
// CHECK:         func.return {{.*}}%[[DX]], %[[DY]]
// FUSED-LABEL: func.func @vjp_exp_mul_k0
// FUSED-SAME:    asctensor.kernel = "elementwise"
// FUSED:         math.exp
// FUSED-LABEL: func.func @vjp_exp_mul(
// FUSED-NEXT:    func.call @vjp_exp_mul_k0
// FUSED-NEXT:    func.return

// a broadcast operand's gradient is summed over the broadcast dimension
// CHECK-LABEL: func.func @vjp_bias_add(
// CHECK:         %[[T:.*]] = math.tanh
// CHECK:         %[[SQ:.*]] = arith.mulf %[[T]], %[[T]]
// CHECK:         %[[D:.*]] = arith.subf %{{.*}}, %[[SQ]]
// CHECK:         %[[G:.*]] = arith.mulf %arg2, %[[D]]
// CHECK:         %[[B:.*]] = asctensor.reduce sum %[[G]] axes [0] {{.*}}-> tensor<8xf32>
// CHECK:         func.return {{.*}}%[[G]], %[[B]]
// FUSED-LABEL: func.func @vjp_bias_add_k1
// FUSED-SAME:    asctensor.kernel = "colreduce"

// the gradients of a product are products with a transposed operand
// CHECK-LABEL: func.func @vjp_product(
// CHECK:         %[[DA:.*]] = asctensor.matmul %arg2, %arg1 transpose_b {{.*}}-> tensor<16x32xf32>
// CHECK:         %[[DB:.*]] = asctensor.matmul %args, %arg2 transpose_a {{.*}}-> tensor<32x8xf32>
// CHECK:         func.return {{.*}}%[[DA]], %[[DB]]

// softmax: y * (ct - sum(ct * y)); forward and backward are one row-wise kernel
// CHECK-LABEL: func.func @vjp_row_softmax(
// CHECK:         %[[Y:.*]] = asctensor.softmax %args axis 1
// CHECK:         %[[P:.*]] = arith.mulf %arg1, %[[Y]]
// CHECK:         asctensor.reduce sum %[[P]] axes [1] keepdims
// CHECK:         %[[DX:.*]] = arith.mulf %[[Y]], %{{.*}}
// CHECK:         func.return {{.*}}%[[DX]]
// FUSED-LABEL: func.func @vjp_row_softmax_k0
// FUSED-SAME:    asctensor.kernel = "rowwise"
// FUSED:         asctensor.softmax
// FUSED:         asctensor.reduce sum
// FUSED-LABEL: func.func @vjp_row_softmax(
// FUSED-NEXT:    func.call @vjp_row_softmax_k0
// FUSED-NEXT:    func.return
