// RUN: pyasc-opt %s -p 'tile-mix{cores=1}' | filecheck %s

// a matmul with a residual add as its epilogue, on one AI Core: one MIX kernel whose AIC section is
// tile-matmul's cube loop storing each block to the workspace (the product) between a `free` credit
// and a `ready` signal; each AIV waits `ready`, loads its half of the block's rows from the workspace,
// signals `free`, adds its rows of the residual and stores them. The AIVs hand out 4 credits first;
// the AIC drains the ones left after its loop.
func.func @f_mm0(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>, %r: tensor<128x64xf16>) -> (tensor<128x64xf16>, tensor<128x64xf16>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %a, %b : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf16>
  %1 = arith.addf %0, %r : tensor<128x64xf16>
  func.return %0, %1 : tensor<128x64xf16>, tensor<128x64xf16>
}

// CHECK:      func.func @f_mm0(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %r: memref<128x64xf16>, %workspace: memref<128x64xf16>, %out0: memref<128x64xf16>) attributes {asctile.kernel = "mix", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64, asctile.mix_credits = 4 : i64} {
// CHECK-NEXT:   asctile.core_section aic {
// CHECK:          scf.for %i =
// CHECK:            asctile.mmad %a_l1, %b_l1, %acc
// CHECK:            asctile.cross_wait free
// CHECK-NEXT:       asctile.store_acc %{{.*}}, %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 64 : tensor<128x64xf32>, memref<128x64xf16>
// CHECK-NEXT:       asctile.cross_signal ready
// CHECK-NEXT:     }
// CHECK:          scf.for
// CHECK-NEXT:       asctile.cross_wait free
// CHECK:        asctile.core_section aiv {
// CHECK-COUNT-4:  asctile.cross_signal free
// CHECK:          asctile.sub_block_idx : index
// CHECK:          scf.for
// CHECK-NEXT:       asctile.cross_wait ready
// CHECK:            %[[P:.*]] = asctile.load %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(64, 1) : memref<128x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT:       asctile.cross_signal free
// CHECK:            %[[R:.*]] = asctile.load %r[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(64, 1) : memref<128x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT:       %[[S:.*]] = arith.addf %[[P]], %[[R]] : tensor<64x64xf16>
// CHECK:            asctile.store %[[S]], %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 64 : tensor<64x64xf16>, memref<128x64xf16>
// CHECK-NOT:    asctensor.

// an epilogue that reads a bool mask: the tiles are as wide as 32 B of the narrowest element the
// kernel loads (32 columns of i1), not of the product's f16
func.func @g_mm0(%a: tensor<32x16xf16>, %b: tensor<16x9xf16>, %m: tensor<32x9xi1>, %r: tensor<32x9xf16>) -> (tensor<32x9xf16>, tensor<32x9xf16>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %a, %b : tensor<32x16xf16>, tensor<16x9xf16> -> tensor<32x9xf16>
  %1 = asctensor.select %m, %0, %r : tensor<32x9xi1>, tensor<32x9xf16>
  func.return %0, %1 : tensor<32x9xf16>, tensor<32x9xf16>
}

// CHECK:      func.func @g_mm0(
// CHECK:        asctile.core_section aiv {
// CHECK:          asctile.load %workspace[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(9, 1) : memref<32x9xf16> -> tensor<16x32xf16>
// CHECK:          asctile.load %m[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(9, 1) : memref<32x9xi1> -> tensor<16x32xi1>
// CHECK:          asctensor.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi1>, tensor<16x32xf16>
