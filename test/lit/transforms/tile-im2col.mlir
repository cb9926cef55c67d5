// RUN: pyasc-opt %s -p 'tile-im2col{cores=2}' | filecheck %s

// 2x2 patches with stride 2 of a (1, 2, 6, 6) input: each channel's 6 input rows are twice its 3 output
// rows, so one work item (n, g, kh, channel chunk) takes both channels (6 tile rows) and both kernel columns
// (every kernel column reads the input: one window of whole input rows for both); the stride makes the patch
// columns every other element of a row, picked from column 0 and from column 1 (GatherMask patterns), in a
// window of 16 columns so that the picks of all 8 lanes stay in their row; the stores of the padding (rows above
// and below each channel's rectangle, columns left and right of it) are empty here
func.func @f_im2col0(%x: tensor<1x2x6x6xf32>) -> tensor<1x8x9xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x2x6x6xf32> -> tensor<1x8x9xf32>
  func.return %0 : tensor<1x8x9xf32>
}

// CHECK:      func.func @f_im2col0(%x: memref<1x2x6x6xf32>, %col: memref<1x8x9xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
// CHECK:        %side_pad = asctile.splat %{{.*}} : f32 -> tensor<6x8xf32>
// CHECK:        %edge_pad = asctile.splat %{{.*}} : f32 -> tensor<2x8xf32>
// CHECK-NOT:    asctile.gather_offsets
// CHECK:        scf.for %i =
// CHECK-NOT:      asctile.splat
// CHECK:          %window = asctile.load %x[%{{.*}}] rows %[[R:.*]] cols %{{.*}} strides(12, 1) : memref<1x2x6x6xf32> -> tensor<6x16xf32>
// CHECK-NEXT:     %patch = asctile.pick_columns %window start 0 stride 2 : tensor<6x16xf32> -> tensor<6x8xf32>
// CHECK:          asctile.store %patch, %col[%{{.*}}] rows %[[R]] cols %{{.*}} stride 3
// CHECK-COUNT-2:  asctile.store %edge_pad, %col[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 9
// CHECK-COUNT-2:  asctile.store %side_pad, %col[%{{.*}}] rows %[[R]] cols %{{.*}} stride 3
// CHECK:          %patch_1 = asctile.pick_columns %window start 1 stride 2 : tensor<6x16xf32> -> tensor<6x8xf32>
// CHECK-NOT:    asctensor.

// stride 3: no GatherMask pattern picks every third column, so a Gather through an offset table (three columns
// apart) built once before the loop picks them
func.func @s_im2col0(%x: tensor<1x2x9x9xf32>) -> tensor<1x2x9xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [1, 1] stride [3, 3] padding [0, 0] dilation [1, 1] groups 1 : tensor<1x2x9x9xf32> -> tensor<1x2x9xf32>
  func.return %0 : tensor<1x2x9xf32>
}

// CHECK:      func.func @s_im2col0(
// CHECK:        %offsets = asctile.gather_offsets cols 3 col_bytes 12 row_bytes 32 : tensor<{{[0-9]+}}x8xi32>
// CHECK:          %patch = asctile.gather %window, %offsets : tensor<{{[0-9]+}}x8xf32>, tensor<{{[0-9]+}}x8xi32> -> tensor<{{[0-9]+}}x8xf32>

// 112-column rows of float32, one channel of 100 rows: the data tiles (the patch and its copy for the
// store, each double-buffered) and the side padding take 182,400 B and the edge padding (one row above or
// below: 112 elements) 448 B of the 188,416 B of usable UB, so a work item is the whole channel
func.func @g_im2col0(%x: tensor<1x1x100x112xf32>) -> tensor<1x9x11200xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x1x100x112xf32> -> tensor<1x9x11200xf32>
  func.return %0 : tensor<1x9x11200xf32>
}

// CHECK:      func.func @g_im2col0(%x: memref<1x1x100x112xf32>, %col: memref<1x9x11200xf32>)
// CHECK:        %side_pad = asctile.splat %{{.*}} : f32 -> tensor<100x8xf32>
// CHECK:        %edge_pad = asctile.splat %{{.*}} : f32 -> tensor<1x112xf32>
// CHECK:          %patch = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(112, 1) : memref<1x1x100x112xf32> -> tensor<100x112xf32>

// 224 rows of 150 float32 columns: one channel does not fit UB, so work items are chunks of a
// channel's output rows: the loaded tile (double-buffered, stored from where it came in) and the side
// padding take 1,248 B per row, 150 rows
func.func @h_im2col0(%x: tensor<1x1x224x150xf32>) -> tensor<1x9x33600xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x1x224x150xf32> -> tensor<1x9x33600xf32>
  func.return %0 : tensor<1x9x33600xf32>
}

// CHECK:      func.func @h_im2col0(
// CHECK:        %side_pad = asctile.splat %{{.*}} : f32 -> tensor<150x8xf32>
// CHECK:        %edge_pad = asctile.splat %{{.*}} : f32 -> tensor<1x152xf32>
// CHECK:          %patch = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(150, 1) : memref<1x1x224x150xf32> -> tensor<150x152xf32>

// 7 input rows and 4 output rows at stride 2 (7 != 2 * 4): the channels' input rows are not evenly
// spaced like their output rows, so each work item is one channel (a 1-row edge tile)
func.func @o_im2col0(%x: tensor<1x8x7x7xf16>) -> tensor<1x72x16xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : tensor<1x8x7x7xf16> -> tensor<1x72x16xf16>
  func.return %0 : tensor<1x72x16xf16>
}

// CHECK:      func.func @o_im2col0(
// CHECK:        %side_pad = asctile.splat %{{.*}} : f16 -> tensor<4x16xf16>
// CHECK:        %edge_pad = asctile.splat %{{.*}} : f16 -> tensor<1x16xf16>

// a max pool's windows (pad_value -inf): the padding tiles are splats of -inf
func.func @m_im2col0(%x: tensor<1x2x6x6xf16>) -> tensor<1x18x9xf16> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 pad_value 0xFC00 : f16 : tensor<1x2x6x6xf16> -> tensor<1x18x9xf16>
  func.return %0 : tensor<1x18x9xf16>
}

// CHECK:      func.func @m_im2col0(
// CHECK:        %[[FILL:.*]] = arith.constant 0xfc00 : f16
// CHECK:        %side_pad = asctile.splat %[[FILL]] : f16 -> tensor<{{.*}}xf16>
// CHECK:        %edge_pad = asctile.splat %[[FILL]] : f16 -> tensor<{{.*}}xf16>
