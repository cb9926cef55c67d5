// XFAIL: *
// BUG: pyasc-opt reports malformed IR as a Python traceback ending in
// "xdsl.utils.exceptions.ParseError: ..." (the located message follows it); pyasc/opt.py only
// turns ValueError and NotImplementedError into a one-line "pyasc-opt: error:" diagnostic.
// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f(%x: tensor<64xf32>) {
  %0 = asctensor.sigmoid %x tensor<64xf32>
  func.return
}

// CHECK-NOT: Traceback
// CHECK:     no-traceback-parse.mlir:8:29
// CHECK:     Expected ':'
