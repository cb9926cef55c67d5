// RUN: not pyasc-opt %s -p 'tile-mix{cores=2}' 2>&1 | filecheck %s

// a MIX kernel returns its product first: one that returns the epilogue's result first is an input
// error, not a failure inside the pass
func.func @f_mm0(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>, %bias: tensor<128xf16>) -> (tensor<256x128xf16>, tensor<256x128xf16>) attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %a, %b : tensor<256x64xf16>, tensor<64x128xf16> -> tensor<256x128xf16>
  %1 = asctensor.broadcast %bias : tensor<128xf16> -> tensor<256x128xf16>
  %2 = arith.addf %0, %1 : tensor<256x128xf16>
  func.return %2, %0 : tensor<256x128xf16>, tensor<256x128xf16>
}

// CHECK: pyasc-opt: error: kernel @f_mm0: a MIX kernel returns its product (the asctensor.matmul and the ops before the epilogue) first, then results of the epilogue
// CHECK-NOT: internal error
