// RUN: pyasc-opt %s -p tile-mix | filecheck %s

// x @ w + bias on a batch of A's (2 x 7 x 32 by 32 x 96): the bias row runs on across the batch as the
// product's rows do, so the batch folds into M on both sides: 6 blocks of 16 x 16, the epilogue reading
// rows 0..13 of the workspace as one 14 x 96 matrix
func.func @q_mm0(%x: tensor<2x7x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>) -> (tensor<2x7x96xf32>, tensor<2x7x96xf32>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %x, %w : tensor<2x7x32xf32>, tensor<32x96xf32> -> tensor<2x7x96xf32>
  %1 = asctensor.broadcast %b : tensor<96xf32> -> tensor<2x7x96xf32>
  %2 = arith.addf %0, %1 : tensor<2x7x96xf32>
  func.return %0, %2 : tensor<2x7x96xf32>, tensor<2x7x96xf32>
}
// CHECK:      func.func @q_mm0(
// CHECK-SAME:   asctile.block_dim = 6 : i64
// CHECK:        asctile.core_section aic {
// CHECK:          asctile.load_nz %x[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 32 : memref<2x7x32xf32> -> tensor<16x32xf32>
// CHECK:        asctile.core_section aiv {
// CHECK:          asctile.load %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(96, 1) : memref<2x7x96xf32>

// the same product with a row per batch added (2 x 1 x 96): that input's rows do not run on across the
// batch, so each batch keeps its own blocks (12)
func.func @r_mm0(%x: tensor<2x7x32xf32>, %w: tensor<32x96xf32>, %r: tensor<2x1x96xf32>) -> (tensor<2x7x96xf32>, tensor<2x7x96xf32>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %x, %w : tensor<2x7x32xf32>, tensor<32x96xf32> -> tensor<2x7x96xf32>
  %1 = asctensor.broadcast %r : tensor<2x1x96xf32> -> tensor<2x7x96xf32>
  %2 = arith.addf %0, %1 : tensor<2x7x96xf32>
  func.return %0, %2 : tensor<2x7x96xf32>, tensor<2x7x96xf32>
}
// CHECK:      func.func @r_mm0(
// CHECK-SAME:   asctile.block_dim = 12 : i64
