// RUN: pyasc-opt %s -p compile | filecheck %s
// RUN: not pyasc-opt %s -p asctensor-hoist-constants,compile 2>&1 | filecheck %s --check-prefix=HOISTED

// weights (parameters marked asctensor.constant) with no caller to evaluate their computations once:
// `compile` keeps the scaled weight in the program, whose host takes the weights as they are
func.func @scaled(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {asctensor.constant}) -> tensor<64x64xf32> {
  %two = asctensor.full 2.000000e+00 : f32 -> tensor<64x64xf32>
  %w2 = arith.mulf %w, %two : tensor<64x64xf32>
  %y = arith.addf %x, %w2 : tensor<64x64xf32>
  func.return %y : tensor<64x64xf32>
}

// CHECK-NOT:   @scaled_constants
// CHECK:       func.func @scaled_k0(
// CHECK:         ascendc.muls
// CHECK:         ascendc.add
// CHECK:       func.func @scaled(%x: memref<64x64xf32>, %w: memref<64x64xf32>, %out0: memref<64x64xf32>)
// CHECK:         ascendc.launch

// a hoisted constants function left for the device is an error, not a program that reads what no
// caller gives
// HOISTED: error: @scaled_constants computes the constants of @scaled, which pyasc.jit evaluates on the host
