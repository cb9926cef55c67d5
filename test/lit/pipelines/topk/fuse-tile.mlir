// RUN: pyasc-opt %s -p asctensor-decompose,cse,asctensor-fuse | filecheck %s --check-prefix=FUSE
// RUN: pyasc-opt %s -p to-tile | filecheck %s --check-prefix=TILE

// top-2 is ONE row-wise kernel: the concats of the per-row results join it
func.func @top2(%x: tensor<4x37xf16>) -> (tensor<4x2xf16>, tensor<4x2xi32>) {
  %v, %i = asctensor.topk %x k = 2 dim = 1 : tensor<4x37xf16> -> tensor<4x2xf16>, tensor<4x2xi32>
  func.return %v, %i : tensor<4x2xf16>, tensor<4x2xi32>
}

// FUSE-LABEL: func.func @top2_k0(%x: tensor<4x37xf16>) -> (tensor<4x2xf16>, tensor<4x2xi32>) attributes {asctensor.kernel = "rowwise"} {
// FUSE:         asctensor.iota dimension = 1 : tensor<4x37xi32>
// FUSE:         %v = asctensor.concat
// FUSE-NEXT:    %i = asctensor.concat
// FUSE-NEXT:    func.return %v, %i
// FUSE-NOT:   func.func @top2_k1
// FUSE-LABEL: func.func @top2(
// FUSE-NEXT:    %v, %i = func.call @top2_k0(%x)

// the iota is the column-index table (CreateVecIndex), built once before the loop; each per-row
// result is stored as one column of its output (rows `k` elements apart)
// TILE-LABEL: func.func @top2_k0(
// TILE:         %{{.*}} = asctile.gather_offsets cols 64 col_bytes 1 row_bytes 0 : tensor<1x64xi32>
// TILE-NEXT:    scf.for
// TILE:         asctile.arg_reduce max
// TILE:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 2 : tensor<1x32xf16>, memref<4x2xf16>
// TILE:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 2 : tensor<1x32xf16>, memref<4x2xf16>
// TILE:         asctile.store %{{.*}}, %out1[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 2 : tensor<1x32xi32>, memref<4x2xi32>
// TILE:         asctile.store %{{.*}}, %out1[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 2 : tensor<1x32xi32>, memref<4x2xi32>
