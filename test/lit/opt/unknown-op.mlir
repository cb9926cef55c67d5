// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f(%x: tensor<64xf32>) {
  %0 = asctensor.softplus %x : tensor<64xf32>
  func.return
}

// CHECK:     unknown-op.mlir:4:27
// CHECK:     Operation asctensor.softplus is not registered
