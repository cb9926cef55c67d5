// RUN: pyasc-opt %s -p to-tile | filecheck %s
// The product runs as a tree kernel; its (6, 1) result is reshaped to (6,) for free inside the
// row-wise kernel of the sum, where it is read as one value per row.

func.func @f(%x: tensor<6x10xf32>) -> tensor<6xf32> {
  %p = asctensor.reduce prod %x axes [1] : tensor<6x10xf32> -> tensor<6xf32>
  %s = asctensor.reduce sum %x axes [1] : tensor<6x10xf32> -> tensor<6xf32>
  %y = arith.addf %p, %s : tensor<6xf32>
  func.return %y : tensor<6xf32>
}

// CHECK: func.func @f_k1(
// CHECK:   asctile.reduce sum
// CHECK: func.func @f(
