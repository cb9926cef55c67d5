// RUN: pyasc-opt %s -p asctensor-sink-transposes | filecheck %s

// a ResNet basic block of two kernels whose products are NHWC: each convolution's input made NHWC and its product
// transposed back. The bias add and ReLU run below the first product's transpose, which then
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

// q @ k.transpose(-2, -1) after asctensor-fuse-matmul: the user's transpose, the batch flattened, and the
// cube's transpose back to B as N x K. The reshape only merges leading dims, so the last transpose moves above
// it, meets the user's, and both vanish: the product reads k flattened
func.func private @mm(tensor<8x7x8xf16>, tensor<8x7x8xf16>) -> tensor<8x7x7xf16>
func.func @scores(%q: tensor<8x7x8xf16>, %k: tensor<2x4x7x8xf16>) -> tensor<8x7x7xf16> {
  %kt = asctensor.transpose %k permutation = [0, 1, 3, 2] : tensor<2x4x7x8xf16> -> tensor<2x4x8x7xf16>
  %flat = asctensor.reshape %kt : tensor<2x4x8x7xf16> -> tensor<8x8x7xf16>
  %b = asctensor.transpose %flat permutation = [0, 2, 1] : tensor<8x8x7xf16> -> tensor<8x7x8xf16>
  %s = func.call @mm(%q, %b) : (tensor<8x7x8xf16>, tensor<8x7x8xf16>) -> tensor<8x7x7xf16>
  func.return %s : tensor<8x7x7xf16>
}
// CHECK-LABEL: func.func @scores(
// CHECK-NEXT:    %[[B:.*]] = asctensor.reshape %k : tensor<2x4x7x8xf16> -> tensor<8x7x8xf16>
// CHECK-NEXT:    %[[S:.*]] = func.call @mm(%q, %[[B]])
// CHECK-NEXT:    func.return %[[S]]

// two transposes that do not undo each other become one: (b, s, h, d) -> (b, h, s, d) -> flattened ->
// (b*h, d, s) is (b, s, h, d) -> (b, h, d, s) flattened
func.func @values(%v: tensor<2x7x4x8xf16>) -> tensor<8x8x7xf16> {
  %t = asctensor.transpose %v permutation = [0, 2, 1, 3] : tensor<2x7x4x8xf16> -> tensor<2x4x7x8xf16>
  %flat = asctensor.reshape %t : tensor<2x4x7x8xf16> -> tensor<8x7x8xf16>
  %b = asctensor.transpose %flat permutation = [0, 2, 1] : tensor<8x7x8xf16> -> tensor<8x8x7xf16>
  func.return %b : tensor<8x8x7xf16>
}
// CHECK-LABEL: func.func @values(
// CHECK-NEXT:    %[[T:.*]] = asctensor.transpose %v permutation = [0, 2, 3, 1] : tensor<2x7x4x8xf16> -> tensor<2x4x8x7xf16>
// CHECK-NEXT:    %[[B:.*]] = asctensor.reshape %[[T]] : tensor<2x4x8x7xf16> -> tensor<8x8x7xf16>
// CHECK-NEXT:    func.return %[[B]]

// a transpose that moves a merged dim composes too, through the dims both shapes are made of ((4, 2, 8) merged
// to (8, 8) and transposed is (2, 4, 8) reversed, merged); a reshape with another user keeps its transposes
func.func @kept(%a: tensor<2x4x8xf16>) -> (tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>) {
  %t = asctensor.transpose %a permutation = [1, 0, 2] : tensor<2x4x8xf16> -> tensor<4x2x8xf16>
  %r = asctensor.reshape %t : tensor<4x2x8xf16> -> tensor<8x8xf16>
  %u = asctensor.transpose %r permutation = [1, 0] : tensor<8x8xf16> -> tensor<8x8xf16>
  %w = asctensor.transpose %a permutation = [0, 2, 1] : tensor<2x4x8xf16> -> tensor<2x8x4xf16>
  %x = asctensor.reshape %w : tensor<2x8x4xf16> -> tensor<2x32xf16>
  %y = asctensor.reshape %x : tensor<2x32xf16> -> tensor<8x8xf16>
  %z = asctensor.transpose %y permutation = [1, 0] : tensor<8x8xf16> -> tensor<8x8xf16>
  func.return %u, %z, %y : tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>
}
// CHECK-LABEL: func.func @kept(
// CHECK-NEXT:    %[[T:.*]] = asctensor.transpose %a permutation = [2, 1, 0] : tensor<2x4x8xf16> -> tensor<8x4x2xf16>
// CHECK-NEXT:    %u = asctensor.reshape %[[T]] : tensor<8x4x2xf16> -> tensor<8x8xf16>
// CHECK-NEXT:    %w = asctensor.transpose %a permutation = [0, 2, 1]
// CHECK-NEXT:    %x = asctensor.reshape %w
// CHECK-NEXT:    %y = asctensor.reshape %x
// CHECK-NEXT:    %z = asctensor.transpose %y permutation = [1, 0]

// a convolution's weights stored OHWI, permuted to OIHW, their 32 channels split into groups of 16 and laid out as
// [OC][C1][KH][KW][C0]: one transpose of the OHWI weights that keeps each group's 16 channels together
func.func @weights(%w: tensor<8x3x3x32xf16>) -> tensor<8x2x3x3x16xf16> {
  %oihw = asctensor.transpose %w permutation = [0, 3, 1, 2] : tensor<8x3x3x32xf16> -> tensor<8x32x3x3xf16>
  %split = asctensor.reshape %oihw : tensor<8x32x3x3xf16> -> tensor<8x2x16x3x3xf16>
  %laid = asctensor.transpose %split permutation = [0, 1, 3, 4, 2] : tensor<8x2x16x3x3xf16> -> tensor<8x2x3x3x16xf16>
  func.return %laid : tensor<8x2x3x3x16xf16>
}
// CHECK-LABEL: func.func @weights(
// CHECK-NEXT:    %[[S:.*]] = asctensor.reshape %w : tensor<8x3x3x32xf16> -> tensor<8x3x3x2x16xf16>
// CHECK-NEXT:    %laid = asctensor.transpose %[[S]] permutation = [0, 3, 1, 2, 4] : tensor<8x3x3x2x16xf16> -> tensor<8x2x3x3x16xf16>
// CHECK-NEXT:    func.return %laid

// a cast that widens a transposed value stays below its transpose, unless the transpose after it undoes it: then
// both transposes go (a bfloat16 residual widened to float32 for an NHWC epilogue)
func.func @widened(%a: tensor<2x4x4x8xbf16>) -> tensor<2x4x4x8xf32> {
  %t = asctensor.transpose %a permutation = [0, 3, 1, 2] : tensor<2x4x4x8xbf16> -> tensor<2x8x4x4xbf16>
  %c = asctensor.cast %t : tensor<2x8x4x4xbf16> -> tensor<2x8x4x4xf32>
  %b = asctensor.transpose %c permutation = [0, 2, 3, 1] : tensor<2x8x4x4xf32> -> tensor<2x4x4x8xf32>
  func.return %b : tensor<2x4x4x8xf32>
}
// CHECK-LABEL: func.func @widened(
// CHECK-NEXT:    %[[C:.*]] = asctensor.cast %a : tensor<2x4x4x8xbf16> -> tensor<2x4x4x8xf32>
// CHECK-NEXT:    func.return %[[C]]

// a max pool of an NHWC value transposed to NCHW pools it channels-last (tile-pool's NHWC form) with one transpose
// to NCHW after it, which cancels against the transpose back to NHWC (a ResNet stem's product, pooled, then read by
// the first block's convolutions)
func.func @pool(%y: tensor<2x16x16x64xf16>) -> tensor<2x8x8x64xf16> {
  %t = asctensor.transpose %y permutation = [0, 3, 1, 2] : tensor<2x16x16x64xf16> -> tensor<2x64x16x16xf16>
  %p = asctensor.max_pool2d %t kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x64x16x16xf16> -> tensor<2x64x8x8xf16>
  %b = asctensor.transpose %p permutation = [0, 2, 3, 1] : tensor<2x64x8x8xf16> -> tensor<2x8x8x64xf16>
  func.return %b : tensor<2x8x8x64xf16>
}
// CHECK-LABEL: func.func @pool(
// CHECK-NEXT:    %[[P:.*]] = asctensor.max_pool2d %y kernel [3, 3] stride [2, 2] padding [1, 1] channels_last : tensor<2x16x16x64xf16> -> tensor<2x8x8x64xf16>
// CHECK-NEXT:    func.return %[[P]]

// 3 channels are no run of 32 B for the channels-last gather: the pool stays NCHW
func.func @narrow_pool(%y: tensor<2x16x16x3xf16>) -> tensor<2x3x8x8xf16> {
  %t = asctensor.transpose %y permutation = [0, 3, 1, 2] : tensor<2x16x16x3xf16> -> tensor<2x3x16x16xf16>
  %p = asctensor.max_pool2d %t kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x16x16xf16> -> tensor<2x3x8x8xf16>
  func.return %p : tensor<2x3x8x8xf16>
}
// CHECK-LABEL: func.func @narrow_pool(
// CHECK-NEXT:    %t = asctensor.transpose %y
// CHECK-NEXT:    %p = asctensor.max_pool2d %t kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x16x16xf16> -> tensor<2x3x8x8xf16>

// a value plus its own transpose (``x + x.t()``): the only transpose undoing the sunk one is that one, so the add
// stays where it is (sinking would make the same add again, without end)
func.func @symmetrized(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = asctensor.transpose %x permutation = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %s = arith.addf %x, %t : tensor<4x4xf32>
  func.return %s : tensor<4x4xf32>
}
// CHECK-LABEL: func.func @symmetrized(
// CHECK-NEXT:    %[[T:.*]] = asctensor.transpose %x permutation = [1, 0]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %x, %[[T]] : tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[S]]
