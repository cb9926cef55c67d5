// RUN: pyasc-opt %s -p "tile-matmul,bufferize-cube" | filecheck %s

// the ResNet stem as an implicit GEMM with an NHWC product (its output pooled channels-last): 3 channels in one
// 16-channel block, so an L1 stage's K is the 49 kernel positions' 784 columns, whose K steps must divide it (16,
// 112 or 784). Blocks of 256 positions leave L0A room for steps of 64 only: steps of 16, each Mmad 64 cycles of
// multiplying for 32 of fixed cost. Blocks of 144 positions take steps of 112 (Mmads of 9 x 4 x 7 fractals), and
// their L0C (144 x 64 x 4 B) fits twice
func.func @stem_mm0(%w: tensor<64x1x7x7x16xf16>, %x: tensor<8x224x224x3xf16>) -> tensor<8x112x112x64xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.reshape %w : tensor<64x1x7x7x16xf16> -> tensor<64x784xf16>
  %1 = asctensor.im2col_nhwc %x kernel [7, 7] stride [2, 2] padding [3, 3] dilation [1, 1] : tensor<8x224x224x3xf16> -> tensor<8x12544x784xf16>
  %2 = asctensor.matmul %1, %0 transpose_b : tensor<8x12544x784xf16>, tensor<64x784xf16> -> tensor<8x12544x64xf16>
  %3 = asctensor.reshape %2 : tensor<8x12544x64xf16> -> tensor<8x112x112x64xf16>
  func.return %3 : tensor<8x112x112x64xf16>
}
// CHECK:      %a_l0 = ascbuf.alloc slots 2 : memref<144x112xf16, #ascbuf.space<l0a>>
// CHECK-NEXT: %b_l0 = ascbuf.alloc slots 2 : memref<112x64xf16, #ascbuf.space<l0b>>
// CHECK-NEXT: %c_l0 = ascbuf.alloc slots 2 : memref<144x64xf32, #ascbuf.space<l0c>>
