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
