// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f(%x: tensor<64xf32>) {
  %0 = asctensor.sigmoid %x tensor<64xf32>
  func.return
}

// CHECK-NOT: Traceback
// CHECK:     no-traceback-parse.mlir:4:29
// CHECK:     Expected ':'
