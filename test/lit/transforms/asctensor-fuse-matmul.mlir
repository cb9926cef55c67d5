// RUN: pyasc-opt %s -p asctensor-fuse-matmul | filecheck %s

// a matmul with a following ReLU becomes one cube kernel (FixPipe applies it); a matmul whose epilogue
// (a residual add) FixPipe cannot do becomes one MIX kernel that also returns the product (the workspace);
// a float16 bias stays on the matmul (the cube starts each block from it in BiasTable)
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %bias: tensor<48xf16>) -> tensor<64x48xf16> {
  %0 = asctensor.matmul %a, %b bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<48xf16> -> tensor<64x48xf16>
  %z = asctensor.full 0.0 : f16 -> tensor<64x48xf16>
  %1 = asctensor.matmul %a, %b : tensor<64x32xf16>, tensor<32x48xf16> -> tensor<64x48xf16>
  %2 = arith.maximumf %1, %z : tensor<64x48xf16>
  %3 = arith.addf %0, %2 : tensor<64x48xf16>
  func.return %3 : tensor<64x48xf16>
}
// CHECK:      func.func @f_mm0(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %bias: tensor<48xf16>, %0: tensor<64x48xf16>) -> (tensor<64x48xf16>, tensor<64x48xf16>) attributes {asctensor.kernel = "mix"} {
// CHECK-NEXT:   %[[M:.*]] = asctensor.matmul %a, %b bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<48xf16> -> tensor<64x48xf16>
// CHECK-NEXT:   %[[R:.*]] = arith.addf %[[M]], %0
// CHECK-NEXT:   func.return %[[M]], %[[R]]
// CHECK:      func.func @f_mm1(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   %[[M1:.*]] = asctensor.matmul %a, %b
// CHECK-NEXT:   asctensor.full
// CHECK-NEXT:   %[[R1:.*]] = arith.maximumf %[[M1]]
// CHECK-NEXT:   func.return %[[R1]]
// CHECK:      func.func @f(
// CHECK-NEXT:   %[[C1:.*]] = func.call @f_mm1(%a, %b)
// CHECK-NEXT:   %workspace, %[[C0:.*]] = func.call @f_mm0(%a, %b, %bias, %[[C1]])
// CHECK-NEXT:   func.return %[[C0]]

// a module that already defines the names the pass would pick (an input that holds kernels outlined
// before, next to a host still to outline) gets fresh names, never a second definition
func.func @g_im2col0(%x: tensor<1x1x4x4xf16>) -> tensor<1x4x9xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [2, 2] stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x1x4x4xf16> -> tensor<1x4x9xf16>
  func.return %0 : tensor<1x4x9xf16>
}
func.func @g_mm1(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %0 = asctensor.matmul %a, %b : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  func.return %0 : tensor<16x16xf16>
}
func.func @g(%x: tensor<2x4x8x8xf16>, %w: tensor<6x2x3x3xf16>) -> tensor<2x6x4x4xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x8x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x6x4x4xf16>
  func.return %0 : tensor<2x6x4x4xf16>
}
// CHECK:     func.func @g_im2col0(%{{.*}}: tensor<1x1x4x4xf16>) -> tensor<1x4x9xf16> attributes {asctensor.kernel = "im2col"}
// CHECK:     func.func @g_im2col0_1(%{{.*}}: tensor<2x4x8x8xf16>) -> tensor<2x36x16xf16> attributes {asctensor.kernel = "im2col"}
// CHECK:     func.func @g_mm1_1(
// CHECK:     func.func @g(
// CHECK:       func.call @g_im2col0_1
// CHECK:       func.call @g_mm1_1

// a bf16 convolution with a bias: the product leaves the cube in f32 (the accumulator) and the bias
// is added in f32 before the one rounding to bf16
func.func @conv_bf16_bias(%x: tensor<1x4x6x6xbf16>, %w: tensor<8x1x1x1xbf16>, %b: tensor<8xbf16>) -> tensor<1x8x6x6xbf16> {
  %0 = asctensor.conv2d %x, %w bias %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 4 : tensor<1x4x6x6xbf16>, tensor<8x1x1x1xbf16>, tensor<8xbf16> -> tensor<1x8x6x6xbf16>
  func.return %0 : tensor<1x8x6x6xbf16>
}

// CHECK:      func.func @conv_bf16_bias_mm{{[0-9]+}}(
// CHECK:        asctensor.matmul %{{.*}}, %{{.*}} : tensor<4x2x1xbf16>, tensor<4x1x36xbf16> -> tensor<4x2x36xf32>
// CHECK:      func.func @conv_bf16_bias(
// CHECK:        %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<1x8x6x6xf32>
// CHECK-NEXT:   asctensor.cast %[[SUM]] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xbf16>

// a pointwise convolution (1x1 kernel, stride 1, no padding): its patches are the input itself, so the
// matmul kernel reads the input through a view and no im2col kernel runs
func.func @pointwise(%x: tensor<2x32x7x7xf16>, %w: tensor<64x32x1x1xf16>) -> tensor<2x64x7x7xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x32x7x7xf16>, tensor<64x32x1x1xf16> -> tensor<2x64x7x7xf16>
  func.return %0 : tensor<2x64x7x7xf16>
}

// CHECK-NOT:  @pointwise_im2col
// CHECK:      func.func @pointwise_mm{{[0-9]+}}(%w: tensor<64x32x1x1xf16>, %x: tensor<2x32x7x7xf16>) -> tensor<2x64x7x7xf16> attributes {asctensor.kernel = "matmul"}
// CHECK:        %[[B:.*]] = asctensor.reshape %x : tensor<2x32x7x7xf16> -> tensor<2x32x49xf16>
// CHECK-NEXT:   asctensor.matmul %{{.*}}, %[[B]] : tensor<2x64x32xf16>, tensor<2x32x49xf16> -> tensor<2x64x49xf16>
// CHECK:      func.func @pointwise(
// CHECK-NEXT:   func.call @pointwise_mm{{[0-9]+}}(%w, %x)
// CHECK-NEXT:   func.return

// float32: B stored K x N (K = 37, not a multiple of 16) is read as it is, and so is A^T next to it
// (LoadDataWithTranspose moves them into L0); A^T next to B^T is transposed by a kernel of its own first
func.func @h(%a: tensor<20x37xf32>, %b: tensor<37x30xf32>, %at: tensor<37x20xf32>, %bt: tensor<30x37xf32>) -> (tensor<20x30xf32>, tensor<20x30xf32>, tensor<20x30xf32>) {
  %0 = asctensor.matmul %a, %b : tensor<20x37xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
  %1 = asctensor.matmul %at, %b transpose_a : tensor<37x20xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
  %2 = asctensor.matmul %at, %bt transpose_a transpose_b : tensor<37x20xf32>, tensor<30x37xf32> -> tensor<20x30xf32>
  func.return %0, %1, %2 : tensor<20x30xf32>, tensor<20x30xf32>, tensor<20x30xf32>
}
// CHECK:      func.func @h_mm0(%a: tensor<20x37xf32>, %b: tensor<37x30xf32>) -> tensor<20x30xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   asctensor.matmul %a, %b : tensor<20x37xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
// CHECK:      func.func @h_mm1(%at: tensor<37x20xf32>, %b: tensor<37x30xf32>) -> tensor<20x30xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   asctensor.matmul %at, %b transpose_a : tensor<37x20xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
// CHECK:      func.func @h_mm2(%{{.*}}: tensor<20x37xf32>, %bt: tensor<30x37xf32>) -> tensor<20x30xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   asctensor.matmul %{{.*}}, %bt transpose_b : tensor<20x37xf32>, tensor<30x37xf32> -> tensor<20x30xf32>
// CHECK:      func.func @h(
// CHECK-NOT:    asctensor.transpose %b
// CHECK:        asctensor.transpose %at
// CHECK-NOT:    asctensor.transpose %b
// CHECK:        func.return

// float32 a @ y^T and x^T @ b: the transposes fold into transpose_b and transpose_a (the cube reads y as
// B^T and x as A^T in place)
func.func @t(%a: tensor<20x37xf32>, %y: tensor<30x37xf32>, %x: tensor<37x20xf32>, %b: tensor<37x30xf32>) -> (tensor<20x30xf32>, tensor<20x30xf32>) {
  %yt = asctensor.transpose %y permutation = [1, 0] : tensor<30x37xf32> -> tensor<37x30xf32>
  %0 = asctensor.matmul %a, %yt : tensor<20x37xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
  %xt = asctensor.transpose %x permutation = [1, 0] : tensor<37x20xf32> -> tensor<20x37xf32>
  %1 = asctensor.matmul %xt, %b : tensor<20x37xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
  func.return %0, %1 : tensor<20x30xf32>, tensor<20x30xf32>
}
// CHECK:      func.func @t_mm0(%a: tensor<20x37xf32>, %y: tensor<30x37xf32>) -> tensor<20x30xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   asctensor.matmul %a, %y transpose_b : tensor<20x37xf32>, tensor<30x37xf32> -> tensor<20x30xf32>
// CHECK:      func.func @t_mm1(%x: tensor<37x20xf32>, %b: tensor<37x30xf32>) -> tensor<20x30xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   asctensor.matmul %x, %b transpose_a : tensor<37x20xf32>, tensor<37x30xf32> -> tensor<20x30xf32>
// CHECK:      func.func @t(
// CHECK-NOT:    asctensor.transpose
// CHECK:        func.return

// 2-byte operands whose K (7) is not whole fractals stay as given: B as K x N (its rows past K are zeroed in
// L1), A^T as K x M; a transposed operand is read in place (x @ y^T -> transpose_b, x^T @ b -> transpose_a)
func.func @k7(%a: tensor<5x7xf16>, %b: tensor<7x9xf16>, %y: tensor<9x7xf16>, %x: tensor<7x5xf16>) -> (tensor<5x9xf16>, tensor<5x9xf16>, tensor<5x9xf16>) {
  %0 = asctensor.matmul %a, %b : tensor<5x7xf16>, tensor<7x9xf16> -> tensor<5x9xf16>
  %yt = asctensor.transpose %y permutation = [1, 0] : tensor<9x7xf16> -> tensor<7x9xf16>
  %1 = asctensor.matmul %a, %yt : tensor<5x7xf16>, tensor<7x9xf16> -> tensor<5x9xf16>
  %xt = asctensor.transpose %x permutation = [1, 0] : tensor<7x5xf16> -> tensor<5x7xf16>
  %2 = asctensor.matmul %xt, %b : tensor<5x7xf16>, tensor<7x9xf16> -> tensor<5x9xf16>
  func.return %0, %1, %2 : tensor<5x9xf16>, tensor<5x9xf16>, tensor<5x9xf16>
}
// CHECK:      func.func @k7_mm0(%a: tensor<5x7xf16>, %b: tensor<7x9xf16>)
// CHECK-NEXT:   asctensor.matmul %a, %b : tensor<5x7xf16>, tensor<7x9xf16> -> tensor<5x9xf16>
// CHECK:      func.func @k7_mm1(%a: tensor<5x7xf16>, %y: tensor<9x7xf16>)
// CHECK-NEXT:   asctensor.matmul %a, %y transpose_b : tensor<5x7xf16>, tensor<9x7xf16> -> tensor<5x9xf16>
// CHECK:      func.func @k7_mm2(%x: tensor<7x5xf16>, %b: tensor<7x9xf16>)
// CHECK-NEXT:   asctensor.matmul %x, %b transpose_a : tensor<7x5xf16>, tensor<7x9xf16> -> tensor<5x9xf16>
// CHECK:      func.func @k7(
// CHECK-NOT:    asctensor.transpose
// CHECK:        func.return

// q @ k.transpose(-2, -1) on 4-D operands, the batch flattened: the cube reads k flattened as B^T in place, and
// the transpose nothing reads any more leaves the host
func.func @scores(%q: tensor<2x2x33x21xf32>, %k: tensor<2x2x33x21xf32>) -> tensor<2x2x33x33xf32> {
  %0 = asctensor.transpose %k permutation = [0, 1, 3, 2] : tensor<2x2x33x21xf32> -> tensor<2x2x21x33xf32>
  %1 = asctensor.reshape %q : tensor<2x2x33x21xf32> -> tensor<4x33x21xf32>
  %2 = asctensor.reshape %0 : tensor<2x2x21x33xf32> -> tensor<4x21x33xf32>
  %3 = asctensor.matmul %1, %2 : tensor<4x33x21xf32>, tensor<4x21x33xf32> -> tensor<4x33x33xf32>
  %4 = asctensor.reshape %3 : tensor<4x33x33xf32> -> tensor<2x2x33x33xf32>
  func.return %4 : tensor<2x2x33x33xf32>
}
// CHECK:      func.func @scores_mm0(%q: tensor<2x2x33x21xf32>, %k: tensor<2x2x33x21xf32>)
// CHECK-NEXT:   %[[A:.*]] = asctensor.reshape %q : tensor<2x2x33x21xf32> -> tensor<4x33x21xf32>
// CHECK-NEXT:   %[[B:.*]] = asctensor.reshape %k : tensor<2x2x33x21xf32> -> tensor<4x33x21xf32>
// CHECK-NEXT:   asctensor.matmul %[[A]], %[[B]] transpose_b : tensor<4x33x21xf32>, tensor<4x33x21xf32> -> tensor<4x33x33xf32>
// CHECK:      func.func @scores(
// CHECK-NEXT:   %[[P:.*]] = func.call @scores_mm0(%q, %k)
// CHECK-NEXT:   asctensor.reshape %[[P]]
// CHECK-NEXT:   func.return

// a convolution through im2col followed by a batch norm's per-channel affine, a residual add and a ReLU: the
// epilogue runs on the product's (N, OC, OH*OW) shape in one MIX kernel (the per-channel factors broadcast from
// (1, OC, 1), the residual read reshaped), and its result is reshaped back to NCHW for the op after it
func.func @conv_bn(%x: tensor<2x8x9x9xf16>, %w: tensor<8x8x3x3xf16>, %k: tensor<8x1x1xf16>, %r: tensor<2x8x9x9xf16>) -> tensor<2x8x9x9xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x8x9x9xf16>, tensor<8x8x3x3xf16> -> tensor<2x8x9x9xf16>
  %1 = asctensor.broadcast %k : tensor<8x1x1xf16> -> tensor<2x8x9x9xf16>
  %2 = arith.mulf %0, %1 : tensor<2x8x9x9xf16>
  %3 = arith.addf %2, %r : tensor<2x8x9x9xf16>
  %z = asctensor.full 0.0 : f16 -> tensor<2x8x9x9xf16>
  %4 = arith.maximumf %3, %z : tensor<2x8x9x9xf16>
  %5 = asctensor.transpose %4 permutation = [0, 1, 3, 2] : tensor<2x8x9x9xf16> -> tensor<2x8x9x9xf16>
  func.return %5 : tensor<2x8x9x9xf16>
}
// CHECK:      func.func @conv_bn_mm{{[0-9]+}}(
// CHECK-SAME:   attributes {asctensor.kernel = "mix"}
// CHECK:        %[[P:.*]] = asctensor.matmul %{{.*}}, %{{.*}} : tensor<2x8x72xf16>, tensor<2x72x81xf16> -> tensor<2x8x81xf16>
// CHECK:        %[[K:.*]] = asctensor.reshape %k : tensor<8x1x1xf16> -> tensor<1x8x1xf16>
// CHECK-NEXT:   %[[KB:.*]] = asctensor.broadcast %[[K]] : tensor<1x8x1xf16> -> tensor<2x8x81xf16>
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[P]], %[[KB]] : tensor<2x8x81xf16>
// CHECK-NEXT:   %[[R:.*]] = asctensor.reshape %r : tensor<2x8x9x9xf16> -> tensor<2x8x81xf16>
// CHECK-NEXT:   %[[A:.*]] = arith.addf %[[M]], %[[R]] : tensor<2x8x81xf16>
// CHECK:        %[[Y:.*]] = arith.maximumf %[[A]], %{{.*}} : tensor<2x8x81xf16>
// CHECK-NEXT:   func.return %[[P]], %[[Y]]
// CHECK:      func.func @conv_bn(
// CHECK:        %workspace, %[[OUT:.*]] = func.call @conv_bn_mm{{[0-9]+}}(
// CHECK-NEXT:   %[[NCHW:.*]] = asctensor.reshape %[[OUT]] : tensor<2x8x81xf16> -> tensor<2x8x9x9xf16>
// CHECK-NEXT:   asctensor.transpose %[[NCHW]]

// an epilogue whose last value the host returns joins the matmul too: the host returns the reshape of the MIX
// kernel's result (host-to-gm has the kernel write the output viewed with its shape)
func.func @conv_bn_out(%x: tensor<2x8x9x9xf16>, %w: tensor<8x8x3x3xf16>, %k: tensor<8x1x1xf16>) -> tensor<2x8x9x9xf16> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x8x9x9xf16>, tensor<8x8x3x3xf16> -> tensor<2x8x9x9xf16>
  %1 = asctensor.broadcast %k : tensor<8x1x1xf16> -> tensor<2x8x9x9xf16>
  %2 = arith.mulf %0, %1 : tensor<2x8x9x9xf16>
  %z = asctensor.full 0.0 : f16 -> tensor<2x8x9x9xf16>
  %3 = arith.maximumf %2, %z : tensor<2x8x9x9xf16>
  func.return %3 : tensor<2x8x9x9xf16>
}
// CHECK:      func.func @conv_bn_out_mm{{[0-9]+}}(
// CHECK-SAME:   attributes {asctensor.kernel = "mix"}
// CHECK:        arith.mulf %{{.*}}, %{{.*}} : tensor<2x8x81xf16>
// CHECK:        %[[Y:.*]] = arith.maximumf %{{.*}}, %{{.*}} : tensor<2x8x81xf16>
// CHECK-NEXT:   func.return %{{.*}}, %[[Y]]
// CHECK:      func.func @conv_bn_out(
// CHECK:        %workspace, %[[C:.*]] = func.call @conv_bn_out_mm{{[0-9]+}}(
// CHECK-NEXT:   %[[R:.*]] = asctensor.reshape %[[C]] : tensor<2x8x81xf16> -> tensor<2x8x9x9xf16>
// CHECK-NEXT:   func.return %[[R]]

// a row added to a float16/float32 matmul (``a @ b + c``, a bias of shape [1, N]) becomes the matmul's bias: with
// the ReLU after it, one cube kernel; a bfloat16 bias (BiasTable takes none from L1) and a column broadcast (a
// bias per row) stay vector epilogues of a MIX kernel
func.func @rows(%a: tensor<40x32xf32>, %b: tensor<32x24xf32>, %c: tensor<1x24xf32>, %d: tensor<40x1xf32>) -> (tensor<40x24xf32>, tensor<40x24xf32>) {
  %0 = asctensor.matmul %a, %b : tensor<40x32xf32>, tensor<32x24xf32> -> tensor<40x24xf32>
  %1 = asctensor.broadcast %c : tensor<1x24xf32> -> tensor<40x24xf32>
  %2 = arith.addf %1, %0 : tensor<40x24xf32>
  %z = asctensor.full 0.0 : f32 -> tensor<40x24xf32>
  %3 = arith.maximumf %2, %z : tensor<40x24xf32>
  %4 = asctensor.matmul %a, %b : tensor<40x32xf32>, tensor<32x24xf32> -> tensor<40x24xf32>
  %5 = asctensor.broadcast %d : tensor<40x1xf32> -> tensor<40x24xf32>
  %6 = arith.addf %4, %5 : tensor<40x24xf32>
  func.return %3, %6 : tensor<40x24xf32>, tensor<40x24xf32>
}
// CHECK:      func.func @rows_mm0(%a: tensor<40x32xf32>, %b: tensor<32x24xf32>, %{{.*}}: tensor<24xf32>) -> tensor<40x24xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   %[[M:.*]] = asctensor.matmul %a, %b bias %{{.*}} : tensor<40x32xf32>, tensor<32x24xf32>, tensor<24xf32> -> tensor<40x24xf32>
// CHECK-NEXT:   asctensor.full
// CHECK-NEXT:   %[[R:.*]] = arith.maximumf %[[M]]
// CHECK-NEXT:   func.return %[[R]]
// CHECK:      func.func @rows_mm1(%a: tensor<40x32xf32>, %b: tensor<32x24xf32>, %d: tensor<40x1xf32>) -> (tensor<40x24xf32>, tensor<40x24xf32>) attributes {asctensor.kernel = "mix"} {
// CHECK-NEXT:   %[[M2:.*]] = asctensor.matmul %a, %b : tensor<40x32xf32>, tensor<32x24xf32> -> tensor<40x24xf32>
// CHECK-NEXT:   asctensor.broadcast %d
// CHECK:      func.func @rows(
// CHECK-NEXT:   %[[V:.*]] = asctensor.reshape %c : tensor<1x24xf32> -> tensor<24xf32>
// CHECK-NEXT:   func.call @rows_mm0(%a, %b, %[[V]])

func.func @bf16(%a: tensor<40x32xbf16>, %b: tensor<32x24xbf16>, %c: tensor<24xbf16>) -> tensor<40x24xbf16> {
  %0 = asctensor.matmul %a, %b bias %c : tensor<40x32xbf16>, tensor<32x24xbf16>, tensor<24xbf16> -> tensor<40x24xbf16>
  func.return %0 : tensor<40x24xbf16>
}
// CHECK:      func.func @bf16_mm0({{.*}} attributes {asctensor.kernel = "mix"} {
// CHECK-NEXT:   asctensor.matmul %a, %b : tensor<40x32xbf16>, tensor<32x24xbf16> -> tensor<40x24xf32>

// the transpose of a slice is not read in place as A^T: the slice is not in GM as it is, so the transpose
// (a movement kernel later) writes it out and the cube reads its result
func.func @slice_t(%x: tensor<8x16xf32>, %w: tensor<4x4xf32>) -> tensor<16x4xf32> {
  %0 = asctensor.slice %x offsets [1, 0] : tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = asctensor.transpose %0 permutation = [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  %2 = asctensor.matmul %1, %w : tensor<16x4xf32>, tensor<4x4xf32> -> tensor<16x4xf32>
  func.return %2 : tensor<16x4xf32>
}

// CHECK:       func.func @slice_t_mm0(%{{.*}}: tensor<16x4xf32>, %w: tensor<4x4xf32>) -> tensor<16x4xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:    %{{.*}} = asctensor.matmul %{{.*}}, %w : tensor<16x4xf32>, tensor<4x4xf32> -> tensor<16x4xf32>
// CHECK:       func.func @slice_t(
// CHECK:         %[[T:.*]] = asctensor.transpose
// CHECK-NEXT:    func.call @slice_t_mm0(%[[T]], %w)

// a reshape the cube reads and another op reads too: cloned into the cube kernel, kept for the other reader
func.func @shared_reshape(%x: tensor<8x16xf32>, %w: tensor<8x4xf32>) -> (tensor<16x4xf32>, tensor<16x8xf32>) {
  %0 = asctensor.reshape %x : tensor<8x16xf32> -> tensor<16x8xf32>
  %1 = asctensor.matmul %0, %w : tensor<16x8xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %2 = math.exp %0 : tensor<16x8xf32>
  func.return %1, %2 : tensor<16x4xf32>, tensor<16x8xf32>
}

// CHECK:       func.func @shared_reshape_mm0(%x: tensor<8x16xf32>, %w: tensor<8x4xf32>) -> tensor<16x4xf32> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reshape %x : tensor<8x16xf32> -> tensor<16x8xf32>
// CHECK:       func.func @shared_reshape(
// CHECK-NEXT:    %[[R:.*]] = asctensor.reshape %x
// CHECK-NEXT:    func.call @shared_reshape_mm0(%x, %w)
// CHECK-NEXT:    math.exp %[[R]]

// a convolution's product also read through another reshape (a flatten feeding a linear layer): that reshape reads
// the convolution kernel's result reshaped back, so the product stays in its kernel only
func.func @conv_flatten(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>, %v: tensor<5x8xf32>) -> tensor<1x5xf32> {
  %0 = asctensor.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x2x2xf32>
  %1 = asctensor.reshape %0 : tensor<1x2x2x2xf32> -> tensor<1x8xf32>
  %2 = asctensor.matmul %1, %v transpose_b : tensor<1x8xf32>, tensor<5x8xf32> -> tensor<1x5xf32>
  func.return %2 : tensor<1x5xf32>
}

// CHECK:       func.func @conv_flatten(
// CHECK-NOT:     asctensor.matmul
// CHECK:         %[[C:.*]] = func.call @conv_flatten_mm{{[0-9]+}}(
// CHECK-NOT:     asctensor.matmul
// CHECK:         func.call @conv_flatten_mm{{[0-9]+}}(%[[C]]
