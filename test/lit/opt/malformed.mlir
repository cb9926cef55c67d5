// RUN: not pyasc-opt %s 2>&1 | filecheck %s

// a syntax error exits non-zero with a located message (see no-traceback-*.mlir for the traceback)
func.func @f(%x: tensor<64xf32>) {
  %0 = asctensor.sigmoid %x tensor<64xf32>
  func.return
}

// CHECK:     malformed.mlir:5:29
// CHECK:     Expected ':'
