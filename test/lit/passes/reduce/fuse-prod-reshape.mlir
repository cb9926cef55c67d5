// RUN: pyasc-opt %s -p to-tile | filecheck %s
// XFAIL: *
// Compiler bug: asctensor-fuse moves the reshape of the product tree's result (a kernel input)
// into the row-wise kernel of the sum; tile-elementwise then fails with "row-wise kernel @f_k1
// reads a slice or reshape of an input: not supported".

func.func @f(%x: tensor<6x10xf32>) -> tensor<6xf32> {
  %p = asctensor.reduce prod %x axes [1] : tensor<6x10xf32> -> tensor<6xf32>
  %s = asctensor.reduce sum %x axes [1] : tensor<6x10xf32> -> tensor<6xf32>
  %y = arith.addf %p, %s : tensor<6xf32>
  func.return %y : tensor<6xf32>
}

// CHECK: func.func @f_k1(
// CHECK:   asctile.reduce sum
// CHECK: func.func @f(
