// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// layer_norm: mean = sum * 1/N, centred, variance = sum(c*c) * 1/N, rsqrt(var + eps), then the
// weight and bias broadcast over the rows
func.func @ln(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %n = asctensor.layer_norm %x weight %w : tensor<8xf32> bias %b : tensor<8xf32> dims 1 eps 1.0e-05 : tensor<4x8xf32>
  func.return %n : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @ln(
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[INV:.*]] = asctensor.full 1.250000e-01 : f32 -> tensor<4x1xf32>
// CHECK-NEXT:    %[[MU:.*]] = arith.mulf %[[S]], %[[INV]] : tensor<4x1xf32>
// CHECK-NEXT:    %[[MUB:.*]] = asctensor.broadcast %[[MU]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.subf %x, %[[MUB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[C2:.*]] = arith.mulf %[[C]], %[[C]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[V:.*]] = asctensor.reduce sum %[[C2]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK:         %[[VAR:.*]] = arith.mulf %[[V]], %{{.*}} : tensor<4x1xf32>
// CHECK-NEXT:    %[[EPS:.*]] = asctensor.full 1.000000e-05 : f32 -> tensor<4x1xf32>
// CHECK-NEXT:    %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : tensor<4x1xf32>
// CHECK-NEXT:    %[[R:.*]] = math.rsqrt %[[VE]] : tensor<4x1xf32>
// CHECK-NEXT:    %[[RB:.*]] = asctensor.broadcast %[[R]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[C]], %[[RB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[WB:.*]] = asctensor.broadcast %w : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[YW:.*]] = arith.mulf %[[Y]], %[[WB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[BB:.*]] = asctensor.broadcast %b : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.addf %[[YW]], %[[BB]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[N]] : tensor<4x8xf32>

// rms_norm: x * rsqrt(sum(x*x) * 1/N + eps), no centring
func.func @rms(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %n = asctensor.rms_norm %x dims 1 eps 1.0e-06 : tensor<4x8xf32>
  func.return %n : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @rms(
// CHECK-NEXT:    %[[SQ:.*]] = arith.mulf %x, %x : tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = asctensor.reduce sum %[[SQ]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    asctensor.full 1.250000e-01 : f32 -> tensor<4x1xf32>
// CHECK-NEXT:    arith.mulf %[[S]], %{{.*}} : tensor<4x1xf32>
// CHECK-NEXT:    asctensor.full 1.000000e-06 : f32 -> tensor<4x1xf32>
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    %[[R:.*]] = math.rsqrt %{{.*}} : tensor<4x1xf32>
// CHECK-NEXT:    %[[RB:.*]] = asctensor.broadcast %[[R]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.mulf %x, %[[RB]] : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[N]] : tensor<4x8xf32>
// CHECK-NOT:   asctensor.layer_norm
// CHECK-NOT:   asctensor.rms_norm
