// RUN: pyasc-opt %s -p 'tile-conv-prologue{cores=1}' | filecheck %s

// A convolution of an NCHW input (2 images of 32 channels, 12 x 10) on one AI Core: one MIX kernel. Its AIC runs
// tile-matmul's cube loop on the NHWC workspace, its blocks along the output channels first; each L1 stage waits
// `staged` and signals `credit` (15 credits first). Each AIV, per block and stage, waits `credit`, loads the
// stage's 32 channels of its half of the window's new pixels from NCHW (a tile of 32 x 64), transposes it
// (TransDataTo5HD), stores it to the workspace as NHWC rows of the stage's channels and signals `staged`; it
// takes the 15 credits left over after its loop.
func.func @f_mm0(%w: tensor<24x2x3x3x16xf16>, %x: tensor<2x32x12x10xf16>) -> (tensor<2x12x10x32xf16>, tensor<2x24x12x10xf16>) attributes {asctensor.kernel = "conv_prologue"} {
  %0 = asctensor.transpose %x permutation = [0, 2, 3, 1] : tensor<2x32x12x10xf16> -> tensor<2x12x10x32xf16>
  %1 = asctensor.reshape %w : tensor<24x2x3x3x16xf16> -> tensor<1x1x24x288xf16>
  %2 = asctensor.broadcast %1 : tensor<1x1x24x288xf16> -> tensor<2x1x24x288xf16>
  %3 = asctensor.reshape %2 : tensor<2x1x24x288xf16> -> tensor<2x24x288xf16>
  %4 = asctensor.im2col_nhwc %0 kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x12x10x32xf16> -> tensor<2x120x288xf16>
  %5 = asctensor.matmul %3, %4 transpose_b : tensor<2x24x288xf16>, tensor<2x120x288xf16> -> tensor<2x24x120xf16>
  %6 = asctensor.reshape %5 : tensor<2x24x120xf16> -> tensor<2x24x12x10xf16>
  func.return %0, %6 : tensor<2x12x10x32xf16>, tensor<2x24x12x10xf16>
}

// CHECK:      func.func @f_mm0(%w: memref<24x2x3x3x16xf16>, %x: memref<2x32x12x10xf16>, %workspace: memref<2x12x10x32xf16>, %out: memref<2x24x12x10xf16>) attributes {asctile.kernel = "mix", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
// CHECK-NEXT:   asctile.core_section aic {
// CHECK:          scf.for
// CHECK-NEXT:       asctile.cross_signal credit
// CHECK-NEXT:     }
// CHECK:          scf.for %i =
// CHECK:            scf.for %kt =
// CHECK-NEXT:         asctile.cross_wait staged
// CHECK-NEXT:         asctile.cross_signal credit
// CHECK:              asctile.load_nz %w
// CHECK:              asctile.load_window %workspace[%{{.*}}] m0 %{{.*}} k0 %{{.*}} rows %{{.*}} cols %{{.*}} geometry [12, 10, 32, 3, 3, 1, 1, 1, 1, 1, 1]
// CHECK:              asctile.mmad
// CHECK:            asctile.store_acc %{{.*}}, %out[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 120 : tensor<32x128xf32>, memref<2x24x12x10xf16>
// CHECK:        asctile.core_section aiv {
// CHECK:          asctile.sub_block_idx : index
// CHECK:          scf.for %i_1 =
// CHECK-NEXT:       asctile.cross_wait credit
// CHECK:            %nchw = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(120, 1) : memref<2x32x12x10xf16> -> tensor<32x64xf16>
// CHECK-NEXT:       %nhwc = asctile.transpose %nchw : tensor<32x64xf16> -> tensor<64x32xf16>
// CHECK:            asctile.store %nhwc, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 32 : tensor<64x32xf16>, memref<2x12x10x32xf16>
// CHECK-NEXT:       asctile.cross_signal staged
// CHECK-NEXT:     }
// CHECK:          scf.for
// CHECK-NEXT:       asctile.cross_wait credit

// A convolution rewritten space to depth (2 images of 3 channels, 32 x 64, 7 x 7 at stride 2 as 4 x 4 over 12 phase
// channels) on one AI Core: the AIC as above; each AIV, at a block's first stage, loads its rows of the window from
// all 3 channels (a tile of 3 channels x rows x 2 input rows x 64), picks the 2 column phases (6 rows), lays the
// phases out as the 16 channels of 35 pixels a row (pixels 2 to 33 from the image), stores them with 12 channels,
// and stores the rows of padding above and below from a tile of zeros made before its loop.
func.func @g_mm0(%w: tensor<16x1x4x4x16xf16>, %x: tensor<2x3x32x64xf16>) -> (tensor<2x19x35x12xf16>, tensor<2x16x16x32xf16>) attributes {asctensor.kernel = "conv_prologue"} {
  %0 = asctensor.im2col %x kernel [2, 2] stride [2, 2] padding [4, 4] dilation [1, 1] groups 1 : tensor<2x3x32x64xf16> -> tensor<2x12x720xf16>
  %1 = asctensor.reshape %0 : tensor<2x12x720xf16> -> tensor<2x12x20x36xf16>
  %2 = asctensor.slice %1 offsets [0, 0, 0, 0] : tensor<2x12x20x36xf16> -> tensor<2x12x19x35xf16>
  %3 = asctensor.transpose %2 permutation = [0, 2, 3, 1] : tensor<2x12x19x35xf16> -> tensor<2x19x35x12xf16>
  %4 = asctensor.reshape %w : tensor<16x1x4x4x16xf16> -> tensor<1x1x16x256xf16>
  %5 = asctensor.broadcast %4 : tensor<1x1x16x256xf16> -> tensor<2x1x16x256xf16>
  %6 = asctensor.reshape %5 : tensor<2x1x16x256xf16> -> tensor<2x16x256xf16>
  %7 = asctensor.im2col_nhwc %3 kernel [4, 4] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<2x19x35x12xf16> -> tensor<2x512x256xf16>
  %8 = asctensor.matmul %6, %7 transpose_b : tensor<2x16x256xf16>, tensor<2x512x256xf16> -> tensor<2x16x512xf16>
  %9 = asctensor.reshape %8 : tensor<2x16x512xf16> -> tensor<2x16x16x32xf16>
  func.return %3, %9 : tensor<2x19x35x12xf16>, tensor<2x16x16x32xf16>
}

// CHECK:      func.func @g_mm0(%w: memref<16x1x4x4x16xf16>, %x: memref<2x3x32x64xf16>, %workspace: memref<2x19x35x12xf16>, %out: memref<2x16x16x32xf16>) attributes {asctile.kernel = "mix", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
// CHECK:          asctile.load_window %workspace[%{{.*}}] m0 %{{.*}} k0 %{{.*}} rows %{{.*}} cols %{{.*}} geometry [19, 35, 12, 4, 4, 1, 1, 0, 0, 1, 1]
// CHECK:        asctile.core_section aiv {
// CHECK:          %zero_rows = asctile.splat %{{.*}} : f16 -> tensor<[[R:[0-9]+]]x16xf16>
// CHECK:          scf.for %i{{.*}} =
// CHECK-NEXT:       asctile.cross_wait credit
// CHECK:            %image_rows = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(2048, 1) : memref<2x3x32x64xf16> -> tensor<3x[[S:[0-9]+]]xf16>
// CHECK-NEXT:       %phases = asctile.pick_columns %image_rows start 0 stride 2 phases 2 : tensor<3x[[S]]xf16> -> tensor<6x{{[0-9]+}}xf16>
// CHECK-NEXT:       %pixels = asctile.phase_transpose %phases channels 3 stride(2, 2) left 2 pitch 35 : tensor<6x{{[0-9]+}}xf16> -> tensor<[[R]]x16xf16>
// CHECK:            asctile.store %pixels, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 12
// CHECK:            asctile.store %zero_rows, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 12
// CHECK:            asctile.store %zero_rows, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 12
// CHECK-NEXT:       asctile.cross_signal staged
