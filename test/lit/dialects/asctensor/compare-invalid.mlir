// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = asctensor.compare eq %a, %a : tensor<4xf32> -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
// CHECK: asctensor.compare: the result must have element type i1

// -----

func.func @f(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %r = asctensor.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: asctensor.select: the condition must have element type i1
