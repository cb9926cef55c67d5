// RUN: pyasc-opt %s -p 'tile-im2col{cores=2}' | filecheck %s

// 2x2 patches with stride 2 of a (1, 2, 6, 6) input: work items (n, c, kh, kw) of 3 output rows; the
// stride makes the patch columns every other element of a row, so each item loads a window of whole
// input rows and gathers with an offset table (two columns apart) built once before the loop; the
// four stores of zeros around the rectangle cover the padding (none here: empty extents)
func.func @f_im2col0(%x: tensor<1x2x6x6xf32>) -> tensor<1x8x9xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] channels 2 group 0 : tensor<1x2x6x6xf32> -> tensor<1x8x9xf32>
  func.return %0 : tensor<1x8x9xf32>
}

// CHECK:      func.func @f_im2col0(%x: memref<1x2x6x6xf32>, %col: memref<1x8x9xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
// CHECK:        %zeros = asctile.splat %{{.*}} : f32 -> tensor<3x8xf32>
// CHECK:        %offsets = asctile.gather_offsets cols 3 col_bytes 8 row_bytes 32 : tensor<3x8xi32>
// CHECK:        scf.for %i =
// CHECK-NOT:      asctile.splat
// CHECK:          %window = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(12, 1) : memref<1x2x6x6xf32> -> tensor<3x8xf32>
// CHECK-NEXT:     %patch = asctile.gather %window, %offsets : tensor<3x8xf32>, tensor<3x8xi32> -> tensor<3x8xf32>
// CHECK:          asctile.store %patch, %col[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 3
// CHECK-COUNT-4:  asctile.store %zeros, %col
// CHECK-NOT:    asctensor.

// 112-column rows of float32: five tiles (the patch and its copy for the store, each double-buffered,
// and the zero tile made once) of 84 rows take 188,160 B of the 188,416 B of usable UB; 85 rows would not fit
func.func @g_im2col0(%x: tensor<1x1x100x112xf32>) -> tensor<1x9x11200xf32> attributes {asctensor.kernel = "im2col"} {
  %0 = asctensor.im2col %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] channels 1 group 0 : tensor<1x1x100x112xf32> -> tensor<1x9x11200xf32>
  func.return %0 : tensor<1x9x11200xf32>
}

// CHECK:      func.func @g_im2col0(%x: memref<1x1x100x112xf32>, %col: memref<1x9x11200xf32>)
// CHECK:        %zeros = asctile.splat %{{.*}} : f32 -> tensor<84x112xf32>
