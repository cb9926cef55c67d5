// RUN: pyasc-opt %s -p bufferize | filecheck %s

// a row broadcast is materialised from its input's buffer where it is used, so the input stays live until the
// broadcast's last use: `hi - lo` may not compute in place over lo or hi, whose broadcasts are read after it
// (computing over lo made `t + broadcast(lo)` read `hi - lo`)

func.func @k(%x: memref<32xf32>, %out0: memref<32xf32>, %out1: memref<32xf32>, %out2: memref<32xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 32 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %t = asctile.load %x[%c0] rows %c1 cols %n strides(0, 1) : memref<32xf32> -> tensor<1x32xf32>
    %lo = asctile.reduce min %t cols %n : tensor<1x32xf32> -> tensor<1x32xf32>
    %hi = asctile.reduce max %t cols %n : tensor<1x32xf32> -> tensor<1x32xf32>
    %b = asctile.row_broadcast %lo : tensor<1x32xf32> -> tensor<1x32xf32>
    %hb = asctile.row_broadcast %hi : tensor<1x32xf32> -> tensor<1x32xf32>
    %s = arith.subf %t, %b : tensor<1x32xf32>
    %r = arith.subf %hi, %lo : tensor<1x32xf32>
    %rb = asctile.row_broadcast %r : tensor<1x32xf32> -> tensor<1x32xf32>
    %d = arith.divf %s, %rb : tensor<1x32xf32>
    %u = arith.addf %t, %b : tensor<1x32xf32>
    %w = arith.addf %t, %hb : tensor<1x32xf32>
    asctile.store %d, %out0[%c0] rows %c1 cols %n stride 32 : tensor<1x32xf32>, memref<32xf32>
    asctile.store %u, %out1[%c0] rows %c1 cols %n stride 32 : tensor<1x32xf32>, memref<32xf32>
    asctile.store %w, %out2[%c0] rows %c1 cols %n stride 32 : tensor<1x32xf32>, memref<32xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @k(
// CHECK:         ascbuf.vreduce min %[[LO:lo_buf]], %[[T:.*]], %{{.*}} cols
// CHECK:         ascbuf.vreduce max %[[HI:hi_buf]], %[[T]], %{{.*}} cols
// CHECK:         ascbuf.vrow sub %{{.*}}, %[[T]], %[[LO]] :
// CHECK:         ascbuf.vbinary sub %[[R:r_buf]], %[[HI]], %[[LO]], %{{.*}} :
// CHECK:         ascbuf.vrow add %{{.*}}, %[[T]], %[[LO]] :
// CHECK:         ascbuf.vrow add %{{.*}}, %[[T]], %[[HI]] :
