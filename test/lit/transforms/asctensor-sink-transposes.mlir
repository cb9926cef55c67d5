// RUN: pyasc-opt %s -p asctensor-sink-transposes | filecheck %s

// a ResNet basic block after asctensor-fuse-matmul{conv=implicit_gemm}: each convolution's input made NHWC and
// its product transposed back. The bias add and ReLU run below the first product's transpose, which then
// cancels the second convolution's; the residual add reads the block input's NHWC copy; one transpose is left
// on each side of the block
func.func private @mm0(tensor<16x144xf16>, tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
func.func private @mm1(tensor<16x144xf16>, tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
func.func @block(%x: tensor<2x16x8x8xf16>, %w1: tensor<16x144xf16>, %b1: tensor<2x16x8x8xf16>, %w2: tensor<16x144xf16>) -> tensor<2x16x8x8xf16> {
  %z = asctensor.full 0.0 : f16 -> tensor<2x16x8x8xf16>
  %xt = asctensor.transpose %x permutation = [0, 2, 3, 1] : tensor<2x16x8x8xf16> -> tensor<2x8x8x16xf16>
  %p1 = func.call @mm0(%w1, %xt) : (tensor<16x144xf16>, tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
  %y1 = asctensor.transpose %p1 permutation = [0, 3, 1, 2] : tensor<2x8x8x16xf16> -> tensor<2x16x8x8xf16>
  %r1 = arith.maximumf %y1, %z : tensor<2x16x8x8xf16>
  %rt = asctensor.transpose %r1 permutation = [0, 2, 3, 1] : tensor<2x16x8x8xf16> -> tensor<2x8x8x16xf16>
  %p2 = func.call @mm1(%w2, %rt) : (tensor<16x144xf16>, tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
  %y2 = asctensor.transpose %p2 permutation = [0, 3, 1, 2] : tensor<2x8x8x16xf16> -> tensor<2x16x8x8xf16>
  %s = arith.addf %y2, %x : tensor<2x16x8x8xf16>
  %r2 = arith.maximumf %s, %z : tensor<2x16x8x8xf16>
  func.return %r2 : tensor<2x16x8x8xf16>
}
// CHECK-LABEL: func.func @block(
// CHECK-NEXT:    %[[XT:.*]] = asctensor.transpose %x permutation = [0, 2, 3, 1]
// CHECK-NEXT:    %[[P1:.*]] = func.call @mm0(%w1, %[[XT]])
// CHECK-NEXT:    %[[Z1:.*]] = asctensor.full 0.000000e+00 : f16 -> tensor<2x8x8x16xf16>
// CHECK-NEXT:    %[[R1:.*]] = arith.maximumf %[[P1]], %[[Z1]] : tensor<2x8x8x16xf16>
// CHECK-NEXT:    %[[P2:.*]] = func.call @mm1(%w2, %[[R1]])
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[P2]], %[[XT]] : tensor<2x8x8x16xf16>
// CHECK-NEXT:    %[[Z2:.*]] = asctensor.full 0.000000e+00 : f16 -> tensor<2x8x8x16xf16>
// CHECK-NEXT:    %[[R2:.*]] = arith.maximumf %[[S]], %[[Z2]] : tensor<2x8x8x16xf16>
// CHECK-NEXT:    %[[OUT:.*]] = asctensor.transpose %[[R2]] permutation = [0, 3, 1, 2]
// CHECK-NEXT:    func.return %[[OUT]]

// a transpose feeding an elementwise op next to a value the program never transposes stays where it is; a
// transpose that has another user stays too (sinking it would add one)
func.func @stays(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<8x4xf16>, tensor<8x4xf16>, tensor<8x4xf16>) {
  %t = asctensor.transpose %a permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
  %0 = arith.addf %t, %b : tensor<8x4xf16>
  %u = asctensor.transpose %a permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
  %1 = math.exp %u : tensor<8x4xf16>
  func.return %0, %1, %u : tensor<8x4xf16>, tensor<8x4xf16>, tensor<8x4xf16>
}
// CHECK-LABEL: func.func @stays(
// CHECK-NEXT:    %t = asctensor.transpose %a
// CHECK-NEXT:    arith.addf %t, %b
// CHECK-NEXT:    %u = asctensor.transpose %a
// CHECK-NEXT:    math.exp %u

// a transpose of a transpose that undoes it is its input; an op whose only tensor operand is a transposed
// value runs before the transpose (the count stays one)
func.func @cancel(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %t = asctensor.transpose %a permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %e = math.exp %t : tensor<4x2x3xf32>
  %b = asctensor.transpose %e permutation = [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  func.return %b : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @cancel(
// CHECK-NEXT:    %[[E:.*]] = math.exp %a : tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %[[E]]

// a compare of transposed values stays below them: the transpose after it would move i1 elements, which the
// transposes before it did not
func.func @compare(%a: tensor<4x8xf16>, %b: tensor<4x8xf16>) -> tensor<8x4xi1> {
  %t = asctensor.transpose %a permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
  %u = asctensor.transpose %b permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
  %0 = asctensor.compare lt %t, %u : tensor<8x4xf16> -> tensor<8x4xi1>
  func.return %0 : tensor<8x4xi1>
}
// CHECK-LABEL: func.func @compare(
// CHECK-NEXT:    %t = asctensor.transpose %a
// CHECK-NEXT:    %u = asctensor.transpose %b
// CHECK-NEXT:    asctensor.compare lt %t, %u
