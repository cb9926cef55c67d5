// RUN: pyasc-opt %s -p tile-movement | filecheck %s

// a 2-D transpose: each tile's footprint is loaded as one contiguous run per tile column (rows of the input),
// its columns padded to 16 and its rows to whole 32 B blocks, and transposed whole (TransDataTo5HD): no table.
// Fewer tiles than cores: tiles of 8 output rows, which make 6 (the shortest estimate among one tile per core
// and the halvings)
func.func @t_k0(%x: tensor<37x45xf32>) -> tensor<45x37xf32> attributes {asctensor.kernel = "movement"} {
  %t = asctensor.transpose %x permutation = [1, 0] : tensor<37x45xf32> -> tensor<45x37xf32>
  func.return %t : tensor<45x37xf32>
}

// CHECK:      func.func @t_k0(%x: memref<37x45xf32>, %out0: memref<45x37xf32>) attributes {asctile.kernel, asctile.block_dim = {{[0-9]+}} : i64, asctile.buffers = 2 : i64}
// CHECK-NOT:    asctile.gather_offsets
// CHECK:        scf.for
// CHECK:          %[[FP:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(45, 1) : memref<37x45xf32> -> tensor<48x8xf32>
// CHECK-NEXT:     %[[T:.*]] = asctile.transpose %[[FP]] : tensor<48x8xf32> -> tensor<8x48xf32>
// CHECK-NEXT:     asctile.store %[[T]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 37

// the heads of a 2 x 7 x 32 activation moved apart (2 x 7 x 4 x 8 -> 2 x 4 x 7 x 8): 56 runs of 8 contiguous
// elements. Cut into 56 one-row tiles they would give the 48 cores two rounds of 32 B copies, each costing
// its copies' fixed latency; 28 tiles of two rows take one round, so the balance stops there
func.func @heads_k0(%x: tensor<2x7x4x8xf32>) -> tensor<2x4x7x8xf32> attributes {asctensor.kernel = "movement"} {
  %t = asctensor.transpose %x permutation = [0, 2, 1, 3] : tensor<2x7x4x8xf32> -> tensor<2x4x7x8xf32>
  func.return %t : tensor<2x4x7x8xf32>
}
// CHECK:      func.func @heads_k0(%x: memref<2x7x4x8xf32>, %out0: memref<2x4x7x8xf32>) attributes {asctile.kernel, asctile.block_dim = 28 : i64
// CHECK:          %[[T:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(8, 1) : memref<2x7x4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:     asctile.store %[[T]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 56

// channels last to channels first ([N][HW][C] -> [N][C][HW]): the input rows of one output column are 256
// elements apart. The widest tile (one row of 2576 columns) would load a 32 B block for every 2 B element;
// the tile of least estimated makespan (its input runs counted in whole 512 B L2 lines) holds 208 channels of
// 112 positions: its footprint is one run of 208 channels per position, transposed whole
func.func @nchw_k0(%x: tensor<2x3136x256xf16>) -> tensor<2x256x3136xf16> attributes {asctensor.kernel = "movement"} {
  %t = asctensor.transpose %x permutation = [0, 2, 1] : tensor<2x3136x256xf16> -> tensor<2x256x3136xf16>
  func.return %t : tensor<2x256x3136xf16>
}
// CHECK:      func.func @nchw_k0(%x: memref<2x3136x256xf16>, %out0: memref<2x256x3136xf16>)
// CHECK:        scf.for
// CHECK:          %[[FP:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(256, 1) : memref<2x3136x256xf16> -> tensor<112x208xf16>
// CHECK-NEXT:     %[[T:.*]] = asctile.transpose %[[FP]] : tensor<112x208xf16> -> tensor<208x112xf16>
// CHECK-NEXT:     asctile.store %[[T]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 3136

// a batch of small transposes (3x3 weights in blocks of 16 channels: [256 * 16][16][9] -> [256 * 16][9][16]):
// tiles of whole 144-element blocks, each block a tile row of 9 runs of 16 columns (a run's columns 9 elements
// = 18 B apart in the input, its runs 2 B apart), loaded and stored as contiguous rows
func.func @weights_k0(%w: tensor<4096x16x9xf16>) -> tensor<4096x9x16xf16> attributes {asctensor.kernel = "movement"} {
  %t = asctensor.transpose %w permutation = [0, 2, 1] : tensor<4096x16x9xf16> -> tensor<4096x9x16xf16>
  func.return %t : tensor<4096x9x16xf16>
}
// CHECK:      func.func @weights_k0(%w: memref<4096x16x9xf16>, %out0: memref<4096x9x16xf16>)
// CHECK:        %[[TAB:.*]] = asctile.gather_offsets cols 16 col_bytes 18 row_bytes 288 blocks 9 block_bytes 2 : tensor<{{[0-9]+}}x144xi32>
// CHECK:        scf.for
// CHECK:          %[[FP:.*]] = asctile.load %w[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(144, 1) : memref<4096x16x9xf16> -> tensor<{{[0-9]+}}x144xf16>
// CHECK-NEXT:     %[[G:.*]] = asctile.gather %[[FP]], %[[TAB]]
// CHECK-NEXT:     asctile.store %[[G]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 144

// a transpose into rows narrower than 32 B (3 channels of an NCHW image made NHWC): a tile is one row of whole
// units of output rows side by side (16 rows of 3 float16 are 96 B); its footprint is one run of the tile's
// rows per channel, the table's runs are 3 columns (a channel 512 B further in the footprint, an output row 2 B
// further), and the tile is stored as one run
func.func @rgb_k0(%x: tensor<2x3x4096xf16>) -> tensor<2x4096x3xf16> attributes {asctensor.kernel = "movement"} {
  %t = asctensor.transpose %x permutation = [0, 2, 1] : tensor<2x3x4096xf16> -> tensor<2x4096x3xf16>
  func.return %t : tensor<2x4096x3xf16>
}
// CHECK:      func.func @rgb_k0(%x: memref<2x3x4096xf16>, %out0: memref<2x4096x3xf16>)
// CHECK:        %[[TAB:.*]] = asctile.gather_offsets cols 3 col_bytes 512 row_bytes 1536 blocks 256 block_bytes 2 : tensor<1x768xi32>
// CHECK:        scf.for
// CHECK:          %[[FP:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(4096, 1) : memref<2x3x4096xf16> -> tensor<3x256xf16>
// CHECK-NEXT:     %[[G:.*]] = asctile.gather %[[FP]], %[[TAB]] : tensor<3x256xf16>, tensor<1x768xi32> -> tensor<1x768xf16>
// CHECK:          asctile.store %[[G]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 768 : tensor<1x768xf16>, memref<2x4096x3xf16>
