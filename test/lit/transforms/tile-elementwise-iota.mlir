// RUN: not pyasc-opt %s -p tile-elementwise 2>&1 | filecheck %s

// An index along the rows in an elementwise kernel that tiles the tensor flattened (a tile row holds several rows
// of it): refused, where the column of the flattened tile would be taken for the index.
func.func @k(%unused: tensor<2x3500xi32>) -> tensor<2x2x3500xi32> attributes {asctensor.kernel = "elementwise"} {
  %0 = asctensor.iota dimension = 2 {asc.loc = "topk.py:3"} : tensor<2x2x3500xi32>
  func.return %0 : tensor<2x2x3500xi32>
}

// CHECK: asctensor.iota tensor<2x2x3500xi32> (dimension 2) in kernel @k: only an i32 index along whole rows of a row-wise kernel is supported
