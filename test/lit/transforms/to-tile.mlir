// RUN: pyasc-opt %s -p 'to-tile{cores=2 tile_size=1024}' | filecheck %s

// the tensor-level stage and the tiling stage: the user-defined op is inlined first (as in pyasc.jit),
// decomposed and fused with its neighbours into one kernel, tiled onto two vector cores (tiles of 1024
// elements), and the host moves onto GM buffers
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func private @swish_0(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {pyasc.custom_op = "swish"} {
    %0 = asctensor.sigmoid %x : tensor<64x64xf32>
    %1 = arith.mulf %x, %0 : tensor<64x64xf32>
    func.return %1 : tensor<64x64xf32>
  }
  func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %0 = arith.addf %a, %b : tensor<64x64xf32>
    %1 = func.call @swish_0(%0) {pyasc.custom_op = "swish"} : (tensor<64x64xf32>) -> tensor<64x64xf32>
    func.return %1 : tensor<64x64xf32>
  }
}

// CHECK-NOT:  @swish_0
// CHECK:      func.func @f_k0(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %out0: memref<64x64xf32>) attributes {asctile.kernel, asctile.block_dim = 2 : i64, asctile.buffers = 2 : i64} {
// CHECK:        scf.for %i =
// CHECK:          %a_1 = asctile.load %a
// CHECK-NEXT:     %b_1 = asctile.load %b
// CHECK-NEXT:     %[[S:.*]] = arith.addf %a_1, %b_1
// CHECK-NEXT:     %[[N:.*]] = arith.negf %[[S]]
// CHECK-NEXT:     math.exp %[[N]]
// CHECK:          arith.divf
// CHECK-NEXT:     %[[R:.*]] = arith.mulf %[[S]], %{{.*}}
// CHECK-NEXT:     asctile.store %[[R]], %out0
// CHECK:      func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %out0: memref<64x64xf32>) {
// CHECK-NEXT:   func.call @f_k0(%a, %b, %out0) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
// CHECK-NEXT:   func.return
// CHECK-NOT:  pyasc.custom_op
// CHECK-NOT:  asctensor.
