// RUN: pyasc-opt %s -p 'tile-im2col{cores=4}' | filecheck %s
// RUN: pyasc-opt %s -p 'asctensor-fuse-matmul' --split-input-file | filecheck %s --check-prefix=FUSE

// 3x3 patches of a (2, 3, 9, 9) input, padding 1: work items (n, g, kh, kw, channel chunk), here all
// 3 channels of 9 output rows each: one evenly strided copy of the 3 rectangles, then stores of the
// zero rows above and below each channel's rectangle and the zero columns left and right of it, from
// two zero tiles made before the loop
func.func @f_im2col0(%x: tensor<2x3x9x9xf16>) -> tensor<2x27x81xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<2x3x9x9xf16> -> tensor<2x27x81xf16>
  func.return %0 : tensor<2x27x81xf16>
}
// CHECK:      func.func @f_im2col0(%x: memref<2x3x9x9xf16>, %col: memref<2x27x81xf16>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// CHECK:        %side_pad = asctile.splat %{{.*}} : f16 -> tensor<27x16xf16>
// CHECK:        %edge_pad = asctile.splat %{{.*}} : f16 -> tensor<3x16xf16>
// CHECK:        scf.for %i =
// CHECK:          %patch = asctile.load %x[%{{.*}}] rows %[[R:.*]] cols %{{.*}} strides(9, 1) : memref<2x3x9x9xf16> -> tensor<27x16xf16>
// CHECK:          asctile.store %patch, %col[%{{.*}}] rows %[[R]] cols %{{.*}} stride 9
// CHECK-COUNT-2:  asctile.store %edge_pad, %col[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 81
// CHECK-COUNT-2:  asctile.store %side_pad, %col[%{{.*}}] rows %[[R]] cols %{{.*}} stride 9

// -----

// a grouped, strided convolution: im2col, the weight transposed to the patches' (kh, kw, c) order,
// and one batched matmul whose operands are views
func.func @f(%x: tensor<2x4x8x8xf16>, %w: tensor<6x2x3x3xf16>) -> tensor<2x6x4x4xf16> {
  %0 = asctensor.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : tensor<2x4x8x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x6x4x4xf16>
  func.return %0 : tensor<2x6x4x4xf16>
}
// FUSE: func.func @f_im2col0(%{{.*}}: tensor<2x4x8x8xf16>) -> tensor<2x36x16xf16> attributes {asctensor.kernel = "im2col"}
// FUSE: func.func @f_mm1(%{{.*}}: tensor<6x3x3x2xf16>,
// FUSE:   asctensor.broadcast %{{.*}} : tensor<1x2x3x18xf16> -> tensor<2x2x3x18xf16>
// FUSE:   asctensor.matmul %{{.*}}, %{{.*}} : tensor<4x3x18xf16>, tensor<4x18x16xf16> -> tensor<4x3x16xf16>
// FUSE:   asctensor.reshape %{{.*}} : tensor<4x3x16xf16> -> tensor<2x6x4x4xf16>
// FUSE: func.func @f(
// FUSE:   func.call @f_im2col0
// FUSE:   asctensor.transpose %w permutation = [0, 2, 3, 1] : tensor<6x2x3x3xf16> -> tensor<6x3x3x2xf16>
// FUSE:   func.call @f_mm1

// -----

// stride 2 along the width: a work item takes a whole kernel row. The span of input columns its 7 kernel
// columns read is loaded once (a 32-column tile), and each kernel column's Gather picks every second
// element of it through one byte-offset table (4 B apart, rows of 64 B) built before the loop, from that
// column's first input column (the Gather's base, in bytes: kernel columns 0 and 2 start at input column 1)
func.func @s_im2col0(%x: tensor<2x3x20x18xf16>) -> tensor<2x147x90xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [7, 7] stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : tensor<2x3x20x18xf16> -> tensor<2x147x90xf16>
  func.return %0 : tensor<2x147x90xf16>
}
// CHECK:      func.func @s_im2col0(
// CHECK:        %side_pad = asctile.splat
// CHECK:        %edge_pad = asctile.splat
// CHECK:        %offsets = asctile.gather_offsets cols 9 col_bytes 4 row_bytes 64 : tensor<30x16xi32>
// CHECK-NEXT:   scf.for %i =
// CHECK:          %window = asctile.load %x[%{{.*}}] rows %[[R:.*]] cols %{{.*}} strides(36, 1) : memref<2x3x20x18xf16> -> tensor<30x32xf16>
// CHECK-NEXT:     %patch = asctile.gather %window, %offsets base 2 : tensor<30x32xf16>, tensor<30x16xi32> -> tensor<30x16xf16>
// CHECK:          asctile.store %patch, %col[%{{.*}}] rows %[[R]] cols %{{.*}} stride 9
// CHECK-COUNT-2:  asctile.store %edge_pad, %col
// CHECK-COUNT-2:  asctile.store %side_pad, %col
// CHECK:          %patch_1 = asctile.gather %window, %offsets : tensor<30x32xf16>, tensor<30x16xi32> -> tensor<30x16xf16>
// CHECK:          %patch_6 = asctile.gather %window, %offsets base 6 :
// CHECK-NOT:      asctile.load
