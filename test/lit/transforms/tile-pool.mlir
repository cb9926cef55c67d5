// RUN: pyasc-opt %s -p 'tile-pool{cores=4}' --split-input-file | filecheck %s
// RUN: pyasc-opt %s -p 'asctensor-fuse' --split-input-file | filecheck %s --check-prefix=FUSE

// a 3x3 pool, stride 2, padding 1, of (2, 3, 9, 9): work items (image, channel chunk, output row), all 3
// channels per tile; each kernel row loads its input row clamped to the image (max(2 * oh + i, 1) - 1, at most
// 8), one row per channel 81 elements apart, and their maximum is gathered once per kernel column. Kernel
// column 0 reads column 2 * ow - 1: its first output column repeats input column 1 (first -1, base 2 B);
// column 2 reads 2 * ow + 1: its last output column repeats input column 7 (4 valid columns, base 2 B)
func.func @f_k0(%x: tensor<2x3x9x9xf16>) -> tensor<2x3x5x5xf16> attributes {asctensor.kernel = "pool"} {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16> -> tensor<2x3x5x5xf16>
  func.return %0 : tensor<2x3x5x5xf16>
}
// CHECK:      func.func @f_k0(%x: memref<2x3x9x9xf16>, %out: memref<2x3x5x5xf16>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// CHECK:        %offsets0 = asctile.gather_offsets cols 4 first -1 col_bytes 4 row_bytes 32 : tensor<3x16xi32>
// CHECK-NEXT:   %offsets1 = asctile.gather_offsets cols 5 col_bytes 4 row_bytes 32 : tensor<3x16xi32>
// CHECK-NEXT:   %offsets2 = asctile.gather_offsets cols 4 col_bytes 4 row_bytes 32 : tensor<3x16xi32>
// CHECK:        scf.for %i =
// CHECK:          %[[UP:.*]] = arith.maxui %{{.*}}, %[[ONE:.*]] : index
// CHECK-NEXT:     %[[R0:.*]] = arith.subi %[[UP]], %[[ONE]] : index
// CHECK:          arith.minui %[[R0]], %{{.*}} : index
// CHECK:          %row0 = asctile.load %x[%{{.*}}] rows %[[NC:.*]] cols %{{.*}} strides(81, 1) : memref<2x3x9x9xf16> -> tensor<3x16xf16>
// CHECK:          %row1 = asctile.load %x[%{{.*}}] rows %[[NC]] cols %{{.*}} strides(81, 1)
// CHECK-NEXT:     %[[M1:.*]] = arith.maximumf %row0, %row1 : tensor<3x16xf16>
// CHECK:          %row2 = asctile.load %x[%{{.*}}] rows %[[NC]] cols %{{.*}} strides(81, 1)
// CHECK-NEXT:     %[[M2:.*]] = arith.maximumf %[[M1]], %row2 : tensor<3x16xf16>
// CHECK-NEXT:     %tap0 = asctile.gather %[[M2]], %offsets0 base 2 : tensor<3x16xf16>, tensor<3x16xi32> -> tensor<3x16xf16>
// CHECK-NEXT:     %tap1 = asctile.gather %[[M2]], %offsets1 : tensor<3x16xf16>, tensor<3x16xi32> -> tensor<3x16xf16>
// CHECK-NEXT:     %[[T1:.*]] = arith.maximumf %tap0, %tap1 : tensor<3x16xf16>
// CHECK-NEXT:     %tap2 = asctile.gather %[[M2]], %offsets2 base 2 : tensor<3x16xf16>, tensor<3x16xi32> -> tensor<3x16xf16>
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
