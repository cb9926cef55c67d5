// RUN: pyasc-opt %s -p to-tile 2>&1 | filecheck %s

func.func @h(%x: tensor<512xf32>, %v: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = math.exp %x : tensor<512xf32>
  %1 = arith.addf %v, %v : tensor<8x64xf32>
  func.return %1 : tensor<8x64xf32>
}

// CHECK-NOT: error
// CHECK:     func.func @h(%x: memref<512xf32>, %v: memref<8x64xf32>, %out0: memref<8x64xf32>)
