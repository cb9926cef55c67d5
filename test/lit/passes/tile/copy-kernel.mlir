// RUN: not pyasc-opt %s -p asctensor-fuse,tile-elementwise 2>&1 | filecheck %s

// returning an argument unchanged needs a copy kernel: a clear error, not a crash
func.func @i(%x: tensor<64xf32>) -> tensor<64xf32> {
  func.return %x : tensor<64xf32>
}

// CHECK: pyasc-opt: error: @i: returning an input, or one value twice, needs a copy kernel, which is not supported; return a computed value
// CHECK-NOT: Traceback
