// RUN: pyasc-opt %s -p 'asctensor-fuse-matmul{conv=implicit_gemm},cse' | filecheck %s

// Two 1x1 convolutions read the same NCHW value (not a convolution's product: a ResNet's max pool): 16 channels
// into 16 that reach a 3x3 implicit GEMM, and into 64 that join a residual sum with an NHWC product. One transpose
// of the 16 input channels to NHWC, shared, costs less than transposing the 16 + 64 product channels: both take
// NHWC products, the patches (the input itself) times the weights as B^T
func.func @bottleneck(%x: tensor<2x16x8x8xf16>, %w1: tensor<16x16x1x1xf16>, %w2: tensor<64x16x1x1xf16>, %w3: tensor<16x16x3x3xf16>, %w5: tensor<64x16x1x1xf16>, %w6: tensor<16x64x1x1xf16>) -> tensor<2x16x8x8xf16> {
  %p = math.exp %x : tensor<2x16x8x8xf16>
  %0 = asctensor.conv2d %p, %w1 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x1x1xf16> -> tensor<2x16x8x8xf16>
  %1 = asctensor.conv2d %p, %w2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<64x16x1x1xf16> -> tensor<2x64x8x8xf16>
  %2 = asctensor.conv2d %0, %w3 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x3x3xf16> -> tensor<2x16x8x8xf16>
  %3 = asctensor.conv2d %2, %w5 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<64x16x1x1xf16> -> tensor<2x64x8x8xf16>
  %4 = arith.addf %3, %1 : tensor<2x64x8x8xf16>
  %5 = asctensor.conv2d %4, %w6 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x64x8x8xf16>, tensor<16x64x1x1xf16> -> tensor<2x16x8x8xf16>
  func.return %5 : tensor<2x16x8x8xf16>
}
// CHECK:      func.func @bottleneck_mm0(%[[X:.*]]: tensor<2x8x8x16xf16>, %{{.*}}: tensor<64x16x1x1xf16>, %{{.*}}: tensor<2x8x8x64xf16>) -> (tensor<2x64x64xf16>, tensor<2x64x64xf16>) attributes {asctensor.kernel = "mix"}
// CHECK:        asctensor.matmul %{{.*}}, %{{.*}} transpose_b : tensor<2x64x16xf16>, tensor<64x16xf16> -> tensor<2x64x64xf16>
// CHECK:      func.func @bottleneck_mm1(%{{.*}}: tensor<2x8x8x16xf16>, %{{.*}}: tensor<16x16x1x1xf16>) -> tensor<2x8x8x16xf16>
// CHECK:        asctensor.matmul %{{.*}}, %{{.*}} transpose_b : tensor<2x64x16xf16>, tensor<16x16xf16> -> tensor<2x64x16xf16>
// CHECK:      func.func @bottleneck(
// CHECK:        %[[P:.*]] = math.exp
// CHECK-NEXT:   %[[T:.*]] = asctensor.transpose %[[P]] permutation = [0, 2, 3, 1] : tensor<2x16x8x8xf16> -> tensor<2x8x8x16xf16>
// CHECK-NEXT:   func.call @bottleneck_mm1(%[[T]], %{{.*}})
// CHECK-NOT:    asctensor.transpose %[[P]]
// CHECK:        func.call @bottleneck_mm0(%[[T]], %{{.*}}, %{{.*}})

// Alone, the 16-channel convolution keeps its NCHW product (per image the weights times the input as B^T): its
// input's transpose would move as much as its product's
func.func @single(%x: tensor<2x16x8x8xf16>, %w1: tensor<16x16x1x1xf16>, %w3: tensor<16x16x3x3xf16>) -> tensor<2x16x8x8xf16> {
  %p = math.exp %x : tensor<2x16x8x8xf16>
  %0 = asctensor.conv2d %p, %w1 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x1x1xf16> -> tensor<2x16x8x8xf16>
  %1 = asctensor.conv2d %0, %w3 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x16x8x8xf16>, tensor<16x16x3x3xf16> -> tensor<2x16x8x8xf16>
  func.return %1 : tensor<2x16x8x8xf16>
}
// CHECK:      func.func @single_mm{{[0-9]+}}(%{{.*}}: tensor<16x16x1x1xf16>, %{{.*}}: tensor<2x16x8x8xf16>) -> tensor<2x16x8x8xf16>
// CHECK:        asctensor.matmul %{{.*}}, %{{.*}} : tensor<2x16x16xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
