// RUN: pyasc-opt %s -p to-tile | filecheck %s

// The per-element estimate of a float16 layer_norm over rows of 4096 (about 40 B per element with
// the float32 temporaries) allows one row per tile; planning that kernel uses well under 80 % of
// UB, so the tiler grows the tile to two rows, which planning confirms still fits. Each of the 48
// cores keeps 85 or 86 tiles, so copies still overlap compute.
func.func @ln(%x: tensor<8192x4096xf16>, %w: tensor<4096xf16>, %b: tensor<4096xf16>) -> tensor<8192x4096xf16> {
  %n = asctensor.layer_norm %x weight %w : tensor<4096xf16> bias %b : tensor<4096xf16> dims 1 eps 1.0e-05 : tensor<8192x4096xf16>
  func.return %n : tensor<8192x4096xf16>
}

// CHECK:       func.func @ln_k0(
// CHECK-SAME:    asctile.block_dim = 48 : i64
// CHECK:         arith.constant 4096 : index
// CHECK:         scf.for
// CHECK:           asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(4096, 1) dense : memref<8192x4096xf16> -> tensor<2x4096xf16>
// CHECK:           asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 4096 dense : tensor<2x4096xf16>, memref<8192x4096xf16>
