// RUN: pyasc-opt %s -p 'to-tile{tile_size=2048 cores=4}' | filecheck %s --check-prefix=T2048
// RUN: pyasc-opt %s -p 'to-tile{cores=2}' | filecheck %s --check-prefix=CORES2
// RUN: pyasc-opt %s -p 'to-tile{buffers=1 tile_size=4096}' | filecheck %s --check-prefix=BUF1

// tile_size fixes the elements per tile (no balancing), cores caps the block count
func.func @f(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %0 = math.exp %x : tensor<65536xf32>
  func.return %0 : tensor<65536xf32>
}

// 65536 / 2048 = 32 tiles over 4 cores
// T2048:       func.func @f_k0(%x: memref<65536xf32>, %out0: memref<65536xf32>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// T2048:         arith.constant 32 : index
// T2048:         asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(0, 1) dense : memref<65536xf32> -> tensor<1x2048xf32>
// T2048:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 65536 dense : tensor<1x2048xf32>, memref<65536xf32>

// UB-derived: 2 x (4 + 4) B per element = 16 B -> 11776 elements; 6 tiles rounded to 6 (3 per core)
// of 10928 elements (65536 / 6 rounded up to 8)
// CORES2:      attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64}
// CORES2:        arith.constant 6 : index
// CORES2:        asctile.load %x[%{{.*}}] {{.*}} -> tensor<1x10928xf32>

// BUF1:        attributes {asctile.kernel, asctile.block_dim = 16 : i64, asctile.buffers = 1 : i64}
// BUF1:          asctile.load %x[%{{.*}}] {{.*}} -> tensor<1x4096xf32>
