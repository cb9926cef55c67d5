// RUN: pyasc-opt %s -p to-tile 2>&1 | filecheck %s

func.func @c(%x: tensor<256xf32>) -> tensor<256xi32> {
  %0 = asctensor.cast %x : tensor<256xf32> -> tensor<256xi32>
  func.return %0 : tensor<256xi32>
}

// CHECK-NOT: Traceback
// CHECK:     func.func @c_k0(%x: memref<256xf32>, %out0: memref<256xi32>)
// CHECK:       asctile.load %x
// CHECK:       asctile.store %{{.*}}, %out0
