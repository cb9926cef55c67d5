// RUN: pyasc-opt %s --split-input-file -p 'tile-elementwise{tile_size=2048 cores=2}' | filecheck %s
// RUN: pyasc-opt %s --split-input-file -p tile-elementwise | filecheck %s --check-prefix=DERIVED

// an elementwise kernel becomes a loop over this core's tiles: load every input window, the body on
// tile values (a splat for the constant), store the output; the host's call now passes GM buffers,
// cast from and to its tensors until host-to-gm moves the host onto GM
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @f_k0(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = arith.mulf %x, %y : tensor<64x256xf32>
    %1 = asctensor.full 1.000000e+00 : f32 -> tensor<64x256xf32>
    %2 = arith.addf %0, %1 : tensor<64x256xf32>
    %3 = math.exp %2 : tensor<64x256xf32>
    func.return %3 : tensor<64x256xf32>
  }
  func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
    %0 = func.call @f_k0(%x, %y) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
    func.return %0 : tensor<64x256xf32>
  }
}

// CHECK:      func.func @f_k0(%x: memref<64x256xf32>, %y: memref<64x256xf32>, %out0: memref<64x256xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
// CHECK:        asctile.block_idx
// CHECK:        scf.for %i =
// CHECK:          %x_1 = asctile.load %x[%[[OFF:.*]]] rows %{{.*}} cols %[[VC:.*]] strides(0, 1) dense : memref<64x256xf32> -> tensor<1x2048xf32>
// CHECK-NEXT:     %y_1 = asctile.load %y[%[[OFF]]] rows %{{.*}} cols %[[VC]] strides(0, 1) dense : memref<64x256xf32> -> tensor<1x2048xf32>
// CHECK-NEXT:     %[[M:.*]] = arith.mulf %x_1, %y_1 : tensor<1x2048xf32>
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     %[[S:.*]] = asctile.splat %[[ONE]] : f32 -> tensor<1x2048xf32>
// CHECK-NEXT:     %[[A:.*]] = arith.addf %[[M]], %[[S]] : tensor<1x2048xf32>
// CHECK-NEXT:     %[[E:.*]] = math.exp %[[A]] : tensor<1x2048xf32>
// CHECK-NEXT:     asctile.store %[[E]], %out0[%[[OFF]]] rows %{{.*}} cols %[[VC]] stride 16384 dense : tensor<1x2048xf32>, memref<64x256xf32>
// CHECK:      func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
// CHECK-NEXT:   %[[XG:.*]] = builtin.unrealized_conversion_cast %x : tensor<64x256xf32> to memref<64x256xf32>
// CHECK-NEXT:   %[[YG:.*]] = builtin.unrealized_conversion_cast %y : tensor<64x256xf32> to memref<64x256xf32>
// CHECK-NEXT:   %[[OG:.*]] = memref.alloc() : memref<64x256xf32>
// CHECK-NEXT:   func.call @f_k0(%[[XG]], %[[YG]], %[[OG]]) : (memref<64x256xf32>, memref<64x256xf32>, memref<64x256xf32>) -> ()
// CHECK-NEXT:   %[[R:.*]] = builtin.unrealized_conversion_cast %[[OG]] : memref<64x256xf32> to tensor<64x256xf32>
// CHECK-NEXT:   func.return %[[R]] : tensor<64x256xf32>
// CHECK-NOT:  asctensor.

// derived from the target: every one of the 48 vector cores gets a share of the 16384 elements
// DERIVED:    asctile.block_dim = 48 : i64
// DERIVED:    asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(0, 1) dense : memref<64x256xf32> -> tensor<1x344xf32>

// -----

// an op on loop-invariant operands is computed once before the loop; a splat it reads is made there
// too (the loop body makes its own), so nothing before the loop reads a value of the loop body
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @g_k0(%x: tensor<4x64xf32>, %b: tensor<64xf32>) -> tensor<4x64xf32> attributes {asctensor.kernel = "elementwise"} {
    %c = asctensor.full 2.000000e+00 : f32 -> tensor<4x64xf32>
    %bb = asctensor.broadcast %b : tensor<64xf32> -> tensor<4x64xf32>
    %m = arith.mulf %bb, %c : tensor<4x64xf32>
    %s = arith.addf %x, %m : tensor<4x64xf32>
    %t = arith.addf %s, %c : tensor<4x64xf32>
    func.return %t : tensor<4x64xf32>
  }
  func.func @g(%x: tensor<4x64xf32>, %b: tensor<64xf32>) -> tensor<4x64xf32> {
    %0 = func.call @g_k0(%x, %b) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
    func.return %0 : tensor<4x64xf32>
  }
}

// CHECK:      func.func @g_k0(
// CHECK:        %[[B:.*]] = asctile.load %b[
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:   %[[S:.*]] = asctile.splat %[[TWO]] : f32 -> tensor<4x64xf32>
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[B]], %[[S]] : tensor<4x64xf32>
// CHECK-NEXT:   scf.for %i =
// CHECK:          %[[X:.*]] = asctile.load %x[
// CHECK:          %[[S2:.*]] = asctile.splat %{{.*}} : f32 -> tensor<4x64xf32>
// CHECK-NEXT:     %[[A:.*]] = arith.addf %[[X]], %[[M]] : tensor<4x64xf32>
// CHECK-NEXT:     arith.addf %[[A]], %[[S2]] : tensor<4x64xf32>
