// RUN: pyasc-opt %s -p to-tile 2>&1 | filecheck %s

// float -> int8 truncates and keeps the value modulo 256: through int32, the wrap in float32, then
// float16, the only type the vector unit converts to int8; int8 -> float goes through float16.

func.func @q(%x: tensor<256xf32>) -> tensor<256xi8> {
  %0 = asctensor.cast %x : tensor<256xf32> -> tensor<256xi8>
  func.return %0 : tensor<256xi8>
}

// CHECK-NOT: Traceback
// CHECK:     func.func @q_k0(%x: memref<256xf32>, %out0: memref<256xi8>)
// CHECK:       %[[X:.*]] = asctile.load %x
// CHECK:       %[[V:.*]] = asctile.cast %[[X]] : tensor<{{.*}}xf32> -> tensor<{{.*}}xi32>
// CHECK:       arith.muli
// CHECK:       %[[R:.*]] = arith.subi %[[V]], %{{.*}} : tensor<{{.*}}xi32>
// CHECK:       arith.addf
// CHECK:       %[[H:.*]] = arith.truncf %{{.*}} : tensor<{{.*}}xf32> to tensor<{{.*}}xf16>
// CHECK:       %[[Q:.*]] = asctile.cast %[[H]] : tensor<{{.*}}xf16> -> tensor<{{.*}}xi8>
// CHECK:       asctile.store %[[Q]], %out0

func.func @dq(%x: tensor<256xi8>) -> tensor<256xf32> {
  %0 = asctensor.cast %x : tensor<256xi8> -> tensor<256xf32>
  func.return %0 : tensor<256xf32>
}

// CHECK:     func.func @dq_k0(%x: memref<256xi8>, %out0: memref<256xf32>)
// CHECK:       %[[X:.*]] = asctile.load %x
// CHECK-NEXT:  %[[H:.*]] = asctile.cast %[[X]] : tensor<{{.*}}xi8> -> tensor<{{.*}}xf16>
// CHECK-NEXT:  %[[F:.*]] = arith.extf %[[H]] : tensor<{{.*}}xf16> to tensor<{{.*}}xf32>
// CHECK-NEXT:  asctile.store %[[F]], %out0
