// RUN: pyasc-opt %s -p asctensor-decompose --split-input-file | filecheck %s

// a splat constant becomes asctensor.full; a composite becomes the primitives the vector unit has
func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c = arith.constant dense<2.0> : tensor<64xf32>
  %0 = arith.mulf %x, %c : tensor<64xf32>
  %1 = asctensor.sigmoid %0 : tensor<64xf32>
  func.return %1 : tensor<64xf32>
}

// CHECK-LABEL: func.func @sig(%x: tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT:    %[[C:.*]] = asctensor.full 2.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[X:.*]] = arith.mulf %x, %[[C]] : tensor<64xf32>
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[X]] : tensor<64xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[NEG]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]] : tensor<64xf32>
// CHECK-NEXT:    %[[ONE2:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE2]], %[[DEN]] : tensor<64xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<64xf32>

// -----

// a bf16 primitive whose instruction has no bf16 form computes in f32 between casts; an f16 one stays
func.func @legal(%x: tensor<64xbf16>, %h: tensor<64xf16>) -> (tensor<64xbf16>, tensor<64xf16>) {
  %0 = arith.negf %x : tensor<64xbf16>
  %1 = math.sqrt %h : tensor<64xf16>
  func.return %0, %1 : tensor<64xbf16>, tensor<64xf16>
}

// CHECK-LABEL: func.func @legal(
// CHECK-NEXT:    %[[W:.*]] = asctensor.cast %x : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[W]] : tensor<64xf32>
// CHECK-NEXT:    %[[B:.*]] = asctensor.cast %[[N]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %h : tensor<64xf16>
// CHECK-NEXT:    func.return %[[B]], %[[S]] : tensor<64xbf16>, tensor<64xf16>

// -----

// a depthwise convolution (groups = channels): the patches (rows (kh, kw, c)) and, per kernel position,
// the product of its (N, C, OH, OW) slab with that position's weights, summed in f32 with the bias
// and rounded once; with at most 256 output positions the weights and the bias are written out over their
// channel's positions (a broadcast times one: a tensor of its own)
func.func @depthwise(%x: tensor<1x4x6x6xf16>, %w: tensor<4x1x2x2xf16>, %b: tensor<4xf16>) -> tensor<1x4x5x5xf16> {
  %0 = asctensor.conv2d %x, %w bias %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 4 : tensor<1x4x6x6xf16>, tensor<4x1x2x2xf16>, tensor<4xf16> -> tensor<1x4x5x5xf16>
  func.return %0 : tensor<1x4x5x5xf16>
}

// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT:     asctensor.conv2d
// CHECK:         %[[COL:.*]] = asctensor.im2col %x kernel [2, 2] stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x4x6x6xf16> -> tensor<1x16x25xf16>
// CHECK:         %[[SLABS:.*]] = asctensor.reshape %[[COL]] : tensor<1x16x25xf16> -> tensor<1x4x4x25xf16>
// CHECK:         %[[WT:.*]] = asctensor.transpose %{{.*}} permutation = [1, 0] : tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK:         %[[W:.*]] = asctensor.cast %[[WT]] : tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK:         %[[WB:.*]] = asctensor.broadcast %{{.*}} : tensor<4x4x1xf32> -> tensor<4x4x25xf32>
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<4x4x25xf32>
// CHECK-NEXT:    %[[WS:.*]] = arith.mulf %[[WB]], %[[ONE]] : tensor<4x4x25xf32>
// CHECK:         %[[BB:.*]] = asctensor.broadcast %{{.*}} : tensor<4x1xf16> -> tensor<4x25xf16>
// CHECK:         %[[BS:.*]] = arith.mulf %[[BB]], %{{.*}} : tensor<4x25xf16>
// CHECK-NEXT:    %[[B4:.*]] = asctensor.reshape %[[BS]] : tensor<4x25xf16> -> tensor<1x4x5x5xf16>
// CHECK-NEXT:    %[[BIAS:.*]] = asctensor.cast %[[B4]] : tensor<1x4x5x5xf16> -> tensor<1x4x5x5xf32>
// CHECK-COUNT-4: asctensor.slice %[[WS]] offsets [{{[0-3]}}, 0, 0] : tensor<4x4x25xf32> -> tensor<1x4x25xf32>
// CHECK:         arith.mulf
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf
// CHECK-NEXT:    %[[OUT:.*]] = arith.addf %[[SUM]], %[[BIAS]] : tensor<1x4x5x5xf32>
// CHECK-NEXT:    %[[R:.*]] = asctensor.cast %[[OUT]] : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xf16>
// CHECK-NEXT:    func.return %[[R]]

// -----

// a stride-1 depthwise convolution over rows of 64 outputs: the gather writes the padded input once (an
// im2col of a 1x1 kernel with the padding) and each kernel position's window is a slice of it
func.func @depthwise_wide(%x: tensor<1x4x6x64xf16>, %w: tensor<4x1x3x3xf16>) -> tensor<1x4x6x64xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 4 : tensor<1x4x6x64xf16>, tensor<4x1x3x3xf16> -> tensor<1x4x6x64xf16>
  func.return %0 : tensor<1x4x6x64xf16>
}

// CHECK-LABEL: func.func @depthwise_wide(
// CHECK:         %[[PAD:.*]] = asctensor.im2col %x kernel [1, 1] stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x4x6x64xf16> -> tensor<1x4x528xf16>
// CHECK:         %[[XP:.*]] = asctensor.reshape %[[PAD]] : tensor<1x4x528xf16> -> tensor<1x4x8x66xf16>
// CHECK:         asctensor.slice %[[XP]] offsets [0, 0, 0, 0] : tensor<1x4x8x66xf16> -> tensor<1x4x6x64xf16>
// CHECK:         asctensor.slice %[[XP]] offsets [0, 0, 2, 2] : tensor<1x4x8x66xf16> -> tensor<1x4x6x64xf16>
// CHECK-NOT:     asctensor.im2col

// -----

// a grouped convolution with more than one channel per group stays a convolution (a cube kernel)
func.func @grouped(%x: tensor<1x4x6x6xf16>, %w: tensor<4x2x3x3xf16>) -> tensor<1x4x4x4xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : tensor<1x4x6x6xf16>, tensor<4x2x3x3xf16> -> tensor<1x4x4x4xf16>
  func.return %0 : tensor<1x4x4x4xf16>
}

// CHECK-LABEL: func.func @grouped(
// CHECK-NEXT:    asctensor.conv2d

// -----

// a top-k over rows longer than a row-wise kernel holds (4710 elements on this target): the row padded with -inf
// and cut into two pieces, the top 2 of each piece, then of the 4 candidates; each index is the candidate's index
// in its piece (a one-hot sum) plus its piece's start
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @long_topk(%x: tensor<2x6001xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
    %v, %i = asctensor.topk %x k = 2 dim = 1 : tensor<2x6001xf32> -> tensor<2x2xf32>, tensor<2x2xi32>
    func.return %v, %i : tensor<2x2xf32>, tensor<2x2xi32>
  }
}

// CHECK-LABEL: func.func @long_topk
// CHECK:         %[[PAD:.*]] = asctensor.full 0xff800000 : f32 -> tensor<2x1xf32>
// CHECK-NEXT:    %[[ROW:.*]] = asctensor.concat %x, %[[PAD]] dim = 1 : tensor<2x6001xf32>, tensor<2x1xf32> -> tensor<2x6002xf32>
// CHECK-NEXT:    asctensor.reshape %[[ROW]] : tensor<2x6002xf32> -> tensor<2x2x3001xf32>
// CHECK:         asctensor.reshape %{{.*}} : tensor<2x2x2xf32> -> tensor<2x4xf32>
// CHECK:         asctensor.full 3001 : i32 -> tensor<2x2xi32>
// CHECK:         asctensor.iota dimension = 2 : tensor<2x2x4xi32>
// CHECK:         %i = arith.addi
