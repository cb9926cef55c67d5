// RUN: pyasc-opt %s -p 'tile-pool{cores=4}' --split-input-file | filecheck %s
// RUN: pyasc-opt %s -p 'asctensor-fuse' --split-input-file | filecheck %s --check-prefix=FUSE

// a 3x3 pool, stride 2, padding 1, of (2, 3, 9, 9): work items (image, channel chunk, output row), all 3
// channels per tile; each kernel row loads its input row clamped to the image (max(2 * oh + i, 1) - 1, at most
// 8), one row per channel 81 elements apart, and their maximum is gathered once per kernel column. Kernel
// column 0 reads column 2 * ow - 1: its first output column repeats input column 1 (a Gather: first -1, base
// 2 B); column 2 reads 2 * ow + 1: its last output column repeats input column 7 (a Gather of 4 valid columns,
// base 2 B); column 1 reads 2 * ow, inside the input for every output column: the even columns, picked by a
// GatherMask, in rows of 32 columns so that the picks of all 16 lanes stay in their row
func.func @f_k0(%x: tensor<2x3x9x9xf16>) -> tensor<2x3x5x5xf16> attributes {asctensor.kernel = "pool"} {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16> -> tensor<2x3x5x5xf16>
  func.return %0 : tensor<2x3x5x5xf16>
}
// CHECK:      func.func @f_k0(%x: memref<2x3x9x9xf16>, %out: memref<2x3x5x5xf16>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// CHECK:        %offsets0 = asctile.gather_offsets cols 4 first -1 col_bytes 4 row_bytes 64 : tensor<3x16xi32>
// CHECK-NEXT:   %offsets1 = asctile.gather_offsets cols 4 col_bytes 4 row_bytes 64 : tensor<3x16xi32>
// CHECK:        scf.for %i =
// CHECK:          %[[UP:.*]] = arith.maxui %{{.*}}, %[[ONE:.*]] : index
// CHECK-NEXT:     %[[R0:.*]] = arith.subi %[[UP]], %[[ONE]] : index
// CHECK:          arith.minui %[[R0]], %{{.*}} : index
// CHECK:          %row0 = asctile.load %x[%{{.*}}] rows %[[NC:.*]] cols %{{.*}} strides(81, 1) : memref<2x3x9x9xf16> -> tensor<3x32xf16>
// CHECK:          %row1 = asctile.load %x[%{{.*}}] rows %[[NC]] cols %{{.*}} strides(81, 1)
// CHECK-NEXT:     %[[M1:.*]] = arith.maximumf %row0, %row1 : tensor<3x32xf16>
// CHECK:          %row2 = asctile.load %x[%{{.*}}] rows %[[NC]] cols %{{.*}} strides(81, 1)
// CHECK-NEXT:     %[[M2:.*]] = arith.maximumf %[[M1]], %row2 : tensor<3x32xf16>
// CHECK-NEXT:     %tap0 = asctile.gather %[[M2]], %offsets0 base 2 : tensor<3x32xf16>, tensor<3x16xi32> -> tensor<3x16xf16>
// CHECK-NEXT:     %tap1 = asctile.pick_columns %[[M2]] start 0 stride 2 : tensor<3x32xf16> -> tensor<3x16xf16>
// CHECK-NEXT:     %[[T1:.*]] = arith.maximumf %tap0, %tap1 : tensor<3x16xf16>
// CHECK-NEXT:     %tap2 = asctile.gather %[[M2]], %offsets1 base 2 : tensor<3x32xf16>, tensor<3x16xi32> -> tensor<3x16xf16>
// CHECK-NEXT:     %[[T2:.*]] = arith.maximumf %[[T1]], %tap2 : tensor<3x16xf16>
// CHECK:          asctile.store %[[T2]], %out[%{{.*}}] rows %[[NC]] cols %{{.*}} stride 25

// -----

// a max pool is a kernel of its own: the elementwise ops before and after it are kernels of theirs
func.func @g(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = math.exp %x : tensor<1x2x4x4xf32>
  %1 = asctensor.max_pool2d %0 kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %2 = math.exp %1 : tensor<1x2x2x2xf32>
  func.return %2 : tensor<1x2x2x2xf32>
}
// FUSE:      func.func @g_k0(%{{.*}}: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> attributes {asctensor.kernel = "elementwise"}
// FUSE:      func.func @g_k1(%{{.*}}: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> attributes {asctensor.kernel = "pool"}
// FUSE-NEXT:   asctensor.max_pool2d
// FUSE:      func.func @g_k2(%{{.*}}: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> attributes {asctensor.kernel = "elementwise"}

// -----

// channels last: a 3x3 pool, stride 2, padding 1, of (2, 9, 9, 16): a work item is an output row of an image;
// its kernel rows are whole input rows (9 pixels x 16 channels, contiguous; clamped to the image as above) and
// their maximum; each kernel column gathers the 16 channels of its pixel 2 * ow - 1 + j for the 5 output pixels
// (runs of 16 columns, 64 B = two pixels apart). Column 1 reads inside the input: the runs as they are. Column 0
// reads pixel -1 for ow = 0: its offsets (the runs less a pixel) are clamped up to each channel's first byte
// (runs 0 B apart); column 2 reads pixel 9 for ow = 4: clamped down to the last pixel's (8 pixels on)
func.func @cl_k0(%x: tensor<2x9x9x16xf16>) -> tensor<2x5x5x16xf16> attributes {asctensor.kernel = "pool"} {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] channels_last : tensor<2x9x9x16xf16> -> tensor<2x5x5x16xf16>
  func.return %0 : tensor<2x5x5x16xf16>
}
// CHECK:      func.func @cl_k0(%x: memref<2x9x9x16xf16>, %out: memref<2x5x5x16xf16>)
// CHECK:        %[[RUNS:.*]] = asctile.gather_offsets cols 16 col_bytes 2 row_bytes 0 blocks 5 block_bytes 64 : tensor<1x80xi32>
// CHECK-NEXT:   %[[LOW:.*]] = asctile.gather_offsets cols 16 col_bytes 2 row_bytes 0 blocks 5 block_bytes 0 : tensor<1x80xi32>
// CHECK-NEXT:   %[[M32:.*]] = arith.constant -32 : i32
// CHECK-NEXT:   %[[S0:.*]] = asctile.splat %[[M32]] : i32 -> tensor<1x80xi32>
// CHECK-NEXT:   %[[L0:.*]] = arith.addi %[[RUNS]], %[[S0]] : tensor<1x80xi32>
// CHECK-NEXT:   %[[T0:.*]] = arith.maxsi %[[L0]], %[[LOW]] : tensor<1x80xi32>
// CHECK:        %[[L2:.*]] = arith.addi %[[RUNS]], %{{.*}} : tensor<1x80xi32>
// CHECK:        %[[C256:.*]] = arith.constant 256 : i32
// CHECK-NEXT:   %[[S256:.*]] = asctile.splat %[[C256]]
// CHECK-NEXT:   %[[HIGH:.*]] = arith.addi %[[LOW]], %[[S256]] : tensor<1x80xi32>
// CHECK-NEXT:   %[[T2:.*]] = arith.minsi %[[L2]], %[[HIGH]] : tensor<1x80xi32>
// CHECK:        scf.for %i =
// CHECK:          %row0 = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(144, 1) : memref<2x9x9x16xf16> -> tensor<1x144xf16>
// CHECK:          %row1 = asctile.load %x
// CHECK-NEXT:     %[[M1:.*]] = arith.maximumf %row0, %row1 : tensor<1x144xf16>
// CHECK:          %row2 = asctile.load %x
// CHECK-NEXT:     %[[M2:.*]] = arith.maximumf %[[M1]], %row2 : tensor<1x144xf16>
// CHECK-NEXT:     %tap0 = asctile.gather %[[M2]], %[[T0]] : tensor<1x144xf16>, tensor<1x80xi32> -> tensor<1x80xf16>
// CHECK-NEXT:     %tap1 = asctile.gather %[[M2]], %[[RUNS]] : tensor<1x144xf16>, tensor<1x80xi32> -> tensor<1x80xf16>
// CHECK-NEXT:     %[[X1:.*]] = arith.maximumf %tap0, %tap1 : tensor<1x80xf16>
// CHECK-NEXT:     %tap2 = asctile.gather %[[M2]], %[[T2]] : tensor<1x144xf16>, tensor<1x80xi32> -> tensor<1x80xf16>
// CHECK-NEXT:     %[[X2:.*]] = arith.maximumf %[[X1]], %tap2 : tensor<1x80xf16>
// CHECK:          asctile.store %[[X2]], %out[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 80 : tensor<1x80xf16>, memref<2x5x5x16xf16>
