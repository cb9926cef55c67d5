// RUN: pyasc-opt %s -p tile-matmul | filecheck %s
// RUN: pyasc-opt %s -p 'tile-matmul{cores=2}' | filecheck %s --check-prefix=TWO
// RUN: pyasc-opt %s -p 'tile-matmul{base_m=128 base_n=256}' | filecheck %s --check-prefix=FIXED

// 1000 x 1000 x 1000 fp16 on the 24 AICs: the block with the shortest estimated makespan is 128 x 176
// (8 x 6 = 48 blocks, two rounds, each cube-bound), K in L1 stages of 80 (one L0 step; the shortest
// whose copies reach 16 KB: 128 x 80 fp16 = 20 KB), tails through the valid extents
func.func @f_mm0(%a: tensor<1000x1000xf16>, %b: tensor<1000x1000xf16>) -> tensor<1000x1000xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<1000x1000xf16>, tensor<1000x1000xf16> -> tensor<1000x1000xf16>
  func.return %0 : tensor<1000x1000xf16>
}
// CHECK:      func.func @f_mm0(%a: memref<1000x1000xf16>, %b: memref<1000x1000xf16>, %out: memref<1000x1000xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 24 : i64, asctile.buffers = 2 : i64} {
// CHECK:        asctile.block_idx
// CHECK:        scf.for %i =
// CHECK:          %[[VM:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:          %[[VN:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:          %[[ACC0:.*]] = asctile.acc : tensor<128x176xf32>
// CHECK:          %[[ACC:.*]] = scf.for %kt = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%acc = %[[ACC0]]) -> (tensor<128x176xf32>) {
// CHECK:            %[[VK:.*]] = arith.minui
// CHECK:            %a_l1 = asctile.load_nz %a[%{{.*}}] rows %[[VM]] cols %[[VK]] stride 1000 : memref<1000x1000xf16> -> tensor<128x80xf16>
// CHECK:            %b_l1 = asctile.load_nz %b[%{{.*}}] rows %[[VK]] cols %[[VN]] stride 1000 : memref<1000x1000xf16> -> tensor<80x176xf16>
// CHECK:            asctile.mmad %a_l1, %b_l1, %acc init %{{.*}} k %[[VK]]
// CHECK:          asctile.store_acc %[[ACC]], %out[%{{.*}}] rows %[[VM]] cols %[[VN]] stride 1000 : tensor<128x176xf32>, memref<1000x1000xf16>
// the block fixed by the options: 128 x 256 (the fp32 accumulator fills L0C), L1 stages of 64 (128 x 64 fp16 = 16 KB)
// FIXED:      asctile.acc : tensor<128x256xf32>
// FIXED:      asctile.load_nz %a[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 1000 : memref<1000x1000xf16> -> tensor<128x64xf16>
// FIXED:      asctile.load_nz %b[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 1000 : memref<1000x1000xf16> -> tensor<64x256xf16>
// TWO: asctile.block_dim = 2 : i64

// a batch of A's times one B (2 x 7 x 32 by 32 x 96, f32): the batch folds into M, so the 14 rows of A are one
// 14 x 32 matrix read in place and one block row covers both batches (6 blocks, not 2 x 6 blocks of 7 rows each)
func.func @q_mm0(%x: tensor<2x7x32xf32>, %w: tensor<32x96xf32>) -> tensor<2x7x96xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %x, %w : tensor<2x7x32xf32>, tensor<32x96xf32> -> tensor<2x7x96xf32>
  func.return %0 : tensor<2x7x96xf32>
}
// CHECK:      func.func @q_mm0(%x: memref<2x7x32xf32>, %w: memref<32x96xf32>, %out: memref<2x7x96xf32>) attributes {asctile.kernel = "cube", asctile.block_dim = 6 : i64
// CHECK:        %[[L:.*]] = arith.constant 6 : index
// CHECK:        asctile.load_nz %x[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 32 : memref<2x7x32xf32> -> tensor<16x32xf32>

// both operands batched (2 x 7 x 8 by 2 x 8 x 7): no B is shared, each batch is its own product (2 blocks)
func.func @s_mm0(%x: tensor<2x7x8xf32>, %y: tensor<2x8x7xf32>) -> tensor<2x7x7xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %x, %y : tensor<2x7x8xf32>, tensor<2x8x7xf32> -> tensor<2x7x7xf32>
  func.return %0 : tensor<2x7x7xf32>
}
// CHECK:      func.func @s_mm0(%x: memref<2x7x8xf32>, %y: memref<2x8x7xf32>, %out: memref<2x7x7xf32>) attributes {asctile.kernel = "cube", asctile.block_dim = 2 : i64

// a matmul with a float16 bias (N = 100): each block loads its columns of the bias as a float32 row (BiasTable)
// before its K loop, and the block's first mmad starts from it
func.func @bias_mm0(%a: tensor<64x96xf16>, %b: tensor<96x100xf16>, %c: tensor<100xf16>) -> tensor<64x100xf16> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b bias %c : tensor<64x96xf16>, tensor<96x100xf16>, tensor<100xf16> -> tensor<64x100xf16>
  func.return %0 : tensor<64x100xf16>
}
// CHECK-LABEL: func.func @bias_mm0(%a: memref<64x96xf16>, %b: memref<96x100xf16>, %c: memref<100xf16>, %out: memref<64x100xf16>)
// CHECK:          %bias = asctile.load_bias %c[%{{.*}}] cols %{{.*}} : memref<100xf16> -> tensor<1x[[BN:[0-9]+]]xf32>
// CHECK-NEXT:     %[[ACC0:.*]] = asctile.acc : tensor<[[BM:[0-9]+]]x[[BN]]xf32>
// CHECK:            asctile.mmad %a_l1, %b_l1, %acc init %{{.*}} k %{{.*}} bias %bias : {{.*}}, tensor<1x[[BN]]xf32> -> tensor<[[BM]]x[[BN]]xf32>
