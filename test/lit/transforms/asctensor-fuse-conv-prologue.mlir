// RUN: pyasc-opt %s -p asctensor-fuse-conv-prologue | filecheck %s

// A convolution (an implicit GEMM) whose NHWC input is the transpose of an NCHW tensor by a kernel of its own:
// the transpose joins the convolution's kernel, which takes the NCHW tensor, starts with the transpose and
// returns it first (the workspace its vector cores fill); the transpose kernel goes.
func.func @f_mm0(%w: tensor<24x2x3x3x16xf16>, %x: tensor<2x12x10x32xf16>) -> tensor<2x24x12x10xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<24x2x3x3x16xf16> -> tensor<1x1x24x288xf16>
  %1 = asctensor.broadcast %0 : tensor<1x1x24x288xf16> -> tensor<2x1x24x288xf16>
  %2 = asctensor.reshape %1 : tensor<2x1x24x288xf16> -> tensor<2x24x288xf16>
  %3 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x12x10x32xf16> -> tensor<2x120x288xf16>
  %4 = asctensor.matmul %2, %3 transpose_b : tensor<2x24x288xf16>, tensor<2x120x288xf16> -> tensor<2x24x120xf16>
  %5 = asctensor.reshape %4 : tensor<2x24x120xf16> -> tensor<2x24x12x10xf16>
  func.return %5 : tensor<2x24x12x10xf16>
}
func.func @f_k0(%x: tensor<2x32x12x10xf16>) -> tensor<2x12x10x32xf16> attributes {asctensor.kernel = "movement"} {
  %0 = asctensor.transpose %x permutation = [0, 2, 3, 1] : tensor<2x32x12x10xf16> -> tensor<2x12x10x32xf16>
  func.return %0 : tensor<2x12x10x32xf16>
}
func.func @f(%x: tensor<2x32x12x10xf16>, %w: tensor<24x2x3x3x16xf16>) -> tensor<2x24x12x10xf16> {
  %0 = func.call @f_k0(%x) : (tensor<2x32x12x10xf16>) -> tensor<2x12x10x32xf16>
  %1 = func.call @f_mm0(%w, %0) : (tensor<24x2x3x3x16xf16>, tensor<2x12x10x32xf16>) -> tensor<2x24x12x10xf16>
  func.return %1 : tensor<2x24x12x10xf16>
}

// CHECK:      func.func @f_mm0(%w: tensor<24x2x3x3x16xf16>, %x: tensor<2x32x12x10xf16>) -> (tensor<2x12x10x32xf16>, tensor<2x24x12x10xf16>) attributes {asctensor.kernel = "conv_prologue"} {
// CHECK-NEXT:   %[[T:.*]] = asctensor.transpose %x permutation = [0, 2, 3, 1] : tensor<2x32x12x10xf16> -> tensor<2x12x10x32xf16>
// CHECK:        asctensor.im2col_nhwc %[[T]] kernel [3, 3]
// CHECK:        func.return %[[T]], %{{.*}} : tensor<2x12x10x32xf16>, tensor<2x24x12x10xf16>
// CHECK-NOT:  @f_k0
// CHECK:      func.func @f(%x: tensor<2x32x12x10xf16>, %w: tensor<24x2x3x3x16xf16>)
// CHECK-NEXT:   %workspace, %[[Y:.*]] = func.call @f_mm0(%w, %x) : (tensor<24x2x3x3x16xf16>, tensor<2x32x12x10xf16>) -> (tensor<2x12x10x32xf16>, tensor<2x24x12x10xf16>)
// CHECK-NEXT:   func.return %[[Y]]

// Three input channels (padded to 16 on the cube, which TransDataTo5HD does not fill): unchanged.
func.func @g_mm0(%w: tensor<8x1x3x3x16xf16>, %x: tensor<1x12x10x3xf16>) -> tensor<1x8x12x10xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<8x1x3x3x16xf16> -> tensor<1x1x8x144xf16>
  %1 = asctensor.reshape %0 : tensor<1x1x8x144xf16> -> tensor<1x8x144xf16>
  %2 = asctensor.im2col_nhwc %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<1x12x10x3xf16> -> tensor<1x120x144xf16>
  %3 = asctensor.matmul %1, %2 transpose_b : tensor<1x8x144xf16>, tensor<1x120x144xf16> -> tensor<1x8x120xf16>
  %4 = asctensor.reshape %3 : tensor<1x8x120xf16> -> tensor<1x8x12x10xf16>
  func.return %4 : tensor<1x8x12x10xf16>
}
func.func @g_k0(%x: tensor<1x3x12x10xf16>) -> tensor<1x12x10x3xf16> attributes {asctensor.kernel = "movement"} {
  %0 = asctensor.transpose %x permutation = [0, 2, 3, 1] : tensor<1x3x12x10xf16> -> tensor<1x12x10x3xf16>
  func.return %0 : tensor<1x12x10x3xf16>
}
func.func @g(%x: tensor<1x3x12x10xf16>, %w: tensor<8x1x3x3x16xf16>) -> tensor<1x8x12x10xf16> {
  %0 = func.call @g_k0(%x) : (tensor<1x3x12x10xf16>) -> tensor<1x12x10x3xf16>
  %1 = func.call @g_mm0(%w, %0) : (tensor<8x1x3x3x16xf16>, tensor<1x12x10x3xf16>) -> tensor<1x8x12x10xf16>
  func.return %1 : tensor<1x8x12x10xf16>
}

// CHECK:      func.func @g_mm0(%w: tensor<8x1x3x3x16xf16>, %x: tensor<1x12x10x3xf16>) -> tensor<1x8x12x10xf16> attributes {asctensor.kernel = "matmul"}
// CHECK:      func.func @g_k0(
// CHECK:      func.func @g(
// CHECK-NEXT:   func.call @g_k0(%x)

// A convolution rewritten space to depth (the ResNet stem): its NHWC input is an im2col kernel's phases of the
// image, reshaped, sliced and transposed by a second kernel. Both join the convolution's kernel, which takes the
// image and starts with those four ops; both kernels go.
func.func @h_col0(%x: tensor<8x3x224x224xf16>) -> tensor<8x12x13456xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [2, 2] stride [2, 2] padding [4, 4] dilation [1, 1] groups 1 : tensor<8x3x224x224xf16> -> tensor<8x12x13456xf16>
  func.return %0 : tensor<8x12x13456xf16>
}
func.func @h_k0(%0: tensor<8x12x13456xf16>) -> tensor<8x115x115x12xf16> attributes {asctensor.kernel = "movement"} {
  %1 = asctensor.reshape %0 : tensor<8x12x13456xf16> -> tensor<8x12x116x116xf16>
  %2 = asctensor.slice %1 offsets [0, 0, 0, 0] : tensor<8x12x116x116xf16> -> tensor<8x12x115x115xf16>
  %3 = asctensor.transpose %2 permutation = [0, 2, 3, 1] : tensor<8x12x115x115xf16> -> tensor<8x115x115x12xf16>
  func.return %3 : tensor<8x115x115x12xf16>
}
func.func @h_mm0(%w: tensor<64x1x4x4x16xf16>, %x: tensor<8x115x115x12xf16>) -> tensor<8x64x112x112xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<64x1x4x4x16xf16> -> tensor<1x1x64x256xf16>
  %1 = asctensor.broadcast %0 : tensor<1x1x64x256xf16> -> tensor<8x1x64x256xf16>
  %2 = asctensor.reshape %1 : tensor<8x1x64x256xf16> -> tensor<8x64x256xf16>
  %3 = asctensor.im2col_nhwc %x kernel [4, 4] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<8x115x115x12xf16> -> tensor<8x12544x256xf16>
  %4 = asctensor.matmul %2, %3 transpose_b : tensor<8x64x256xf16>, tensor<8x12544x256xf16> -> tensor<8x64x12544xf16>
  %5 = asctensor.reshape %4 : tensor<8x64x12544xf16> -> tensor<8x64x112x112xf16>
  func.return %5 : tensor<8x64x112x112xf16>
}
func.func @h(%x: tensor<8x3x224x224xf16>, %w: tensor<64x1x4x4x16xf16>) -> tensor<8x64x112x112xf16> {
  %0 = func.call @h_col0(%x) : (tensor<8x3x224x224xf16>) -> tensor<8x12x13456xf16>
  %1 = func.call @h_k0(%0) : (tensor<8x12x13456xf16>) -> tensor<8x115x115x12xf16>
  %2 = func.call @h_mm0(%w, %1) : (tensor<64x1x4x4x16xf16>, tensor<8x115x115x12xf16>) -> tensor<8x64x112x112xf16>
  func.return %2 : tensor<8x64x112x112xf16>
}

// CHECK-NOT:  @h_col0
// CHECK:      func.func @h_mm0(%w: tensor<64x1x4x4x16xf16>, %x: tensor<8x3x224x224xf16>) -> (tensor<8x115x115x12xf16>, tensor<8x64x112x112xf16>) attributes {asctensor.kernel = "conv_prologue"} {
// CHECK-NEXT:   %[[C:.*]] = asctensor.im2col %x kernel [2, 2] stride [2, 2] padding [4, 4]
// CHECK-NEXT:   %[[R:.*]] = asctensor.reshape %[[C]] : tensor<8x12x13456xf16> -> tensor<8x12x116x116xf16>
// CHECK-NEXT:   %[[S:.*]] = asctensor.slice %[[R]] offsets [0, 0, 0, 0]
// CHECK-NEXT:   %[[T:.*]] = asctensor.transpose %[[S]] permutation = [0, 2, 3, 1] : tensor<8x12x115x115xf16> -> tensor<8x115x115x12xf16>
// CHECK:        asctensor.im2col_nhwc %[[T]] kernel [4, 4]
// CHECK:        func.return %[[T]], %{{.*}} : tensor<8x115x115x12xf16>, tensor<8x64x112x112xf16>
// CHECK-NOT:  @h_k0
// CHECK:      func.func @h(%x: tensor<8x3x224x224xf16>, %w: tensor<64x1x4x4x16xf16>)
// CHECK-NEXT:   %workspace, %[[Y:.*]] = func.call @h_mm0(%w, %x)
// CHECK-NEXT:   func.return %[[Y]]
