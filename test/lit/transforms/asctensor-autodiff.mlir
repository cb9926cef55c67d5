// RUN: pyasc-opt %s -p 'asctensor-autodiff{wrt=0,1}' --split-input-file | filecheck %s
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{wrt=0,2}' --split-input-file 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{wrt=1,1}' --split-input-file 2>&1 | filecheck %s --check-prefix=TWICE

// Each asctensor.primal records one call of an op of the tensor API; with wrt, the function also
// returns the gradients of those arguments, for a cotangent argument per output (a one-element
// output is seeded with 1). The backward is the VJP rules' ops, reading the forward's values.

// d(exp(x) * y): dx = ct * y * exp(x), dy = ct * exp(x); the rules reuse the forward's exp
func.func @exp_mul(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = math.exp %x : tensor<4x8xf32>
  asctensor.primal "exp"(%x) -> (%e) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  %p = arith.mulf %e, %y : tensor<4x8xf32>
  asctensor.primal "mul"(%e, %y) -> (%p) attrs "{}" layout "['%', '%']" : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %p : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @exp_mul(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %ct: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:    %[[E:.*]] = math.exp %x
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[E]], %y
// CHECK-NEXT:    %[[CY:.*]] = arith.mulf %ct, %y
// CHECK-NEXT:    %[[DY:.*]] = arith.mulf %ct, %[[E]]
// CHECK-NEXT:    %[[DX:.*]] = arith.mulf %[[CY]], %[[E]]
// CHECK-NEXT:    func.return %[[P]], %[[DX]], %[[DY]]
// CHECK-NOT:     asctensor.primal

// -----

// sum(tanh(x + b)) with b broadcast over rows: a scalar output, seeded with 1; the gradient of b
// is the row gradient summed over the broadcast dimension
func.func @bias_sum(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %bb = asctensor.broadcast %b : tensor<8xf32> -> tensor<4x8xf32>
  %s = arith.addf %x, %bb : tensor<4x8xf32>
  asctensor.primal "add"(%x, %b) -> (%s) attrs "{}" layout "['%', '%']" : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>)
  %t = math.tanh %s : tensor<4x8xf32>
  asctensor.primal "tanh"(%s) -> (%t) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  %r = asctensor.reduce sum %t axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  asctensor.primal "sum"(%t) -> (%r) attrs "{'dims': (0, 1), 'keepdim': False}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<f32>)
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @bias_sum(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<f32>, tensor<4x8xf32>, tensor<8xf32>) {
// CHECK:         %[[T:.*]] = math.tanh
// CHECK:         %[[R:.*]] = asctensor.reduce sum %[[T]] axes [0, 1]
// CHECK:         %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<1x1xf32>
// CHECK:         %[[G:.*]] = asctensor.broadcast %[[ONE]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK:         %[[SQ:.*]] = arith.mulf %[[T]], %[[T]]
// CHECK:         %[[D:.*]] = arith.subf %{{.*}}, %[[SQ]]
// CHECK:         %[[DX:.*]] = arith.mulf %{{.*}}, %[[D]]
// CHECK-NEXT:    %[[DB:.*]] = asctensor.reduce sum %[[DX]] axes [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[R]], %[[DX]], %[[DB]]

// -----

// a product: the gradients are products with a transposed operand
func.func @product(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = asctensor.matmul %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  asctensor.primal "matmul"(%a, %b) -> (%c) attrs "{'transpose_a': False, 'transpose_b': False, 'out_dtype': None}" layout "['%', '%', None]" : (tensor<16x32xf32>, tensor<32x8xf32>) -> (tensor<16x8xf32>)
  func.return %c : tensor<16x8xf32>
}

// CHECK-LABEL: func.func @product(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %ct: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x32xf32>, tensor<32x8xf32>) {
// CHECK-NEXT:    %[[C:.*]] = asctensor.matmul %a, %b :
// CHECK-NEXT:    %[[DA:.*]] = asctensor.matmul %ct, %b transpose_b : tensor<16x8xf32>, tensor<32x8xf32> -> tensor<16x32xf32>
// CHECK-NEXT:    %[[DB:.*]] = asctensor.matmul %a, %ct transpose_a : tensor<16x32xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
// CHECK-NEXT:    func.return %[[C]], %[[DA]], %[[DB]]

// -----

// an argument the output does not depend on gets a zero gradient; a Python number operand is
// part of the record's layout
func.func @unused(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %c = asctensor.full 3.000000e+00 : f32 -> tensor<8xf32>
  %p = arith.mulf %x, %c : tensor<8xf32>
  asctensor.primal "mul"(%x) -> (%p) attrs "{}" layout "['%', 3.0]" : (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %p : tensor<8xf32>
}

// CHECK-LABEL: func.func @unused(%x: tensor<8xf32>, %y: tensor<8xf32>, %ct: tensor<8xf32>)
// CHECK:         %[[P:.*]] = arith.mulf %x, %c
// CHECK-NEXT:    %[[THREE:.*]] = asctensor.full 3.000000e+00 : f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[DX:.*]] = arith.mulf %ct, %[[THREE]]
// CHECK-NEXT:    %[[DY:.*]] = asctensor.full 0.000000e+00 : f32 -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[P]], %[[DX]], %[[DY]]

// RANGE: asctensor-autodiff: option 'wrt' must list argument positions in 0..1; got 2
// TWICE: asctensor-autodiff: option 'wrt' names an argument twice: [1, 1]
