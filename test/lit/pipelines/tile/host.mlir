// RUN: pyasc-opt %s -p to-tile | filecheck %s

// the host function switches to GM memrefs in destination-passing style: results become
// trailing arguments, values passed between kernels become memref.alloc
func.func @h(%x: tensor<512xf32>, %v: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<512xf32>) {
  %0 = math.exp %x : tensor<512xf32>
  %1 = arith.addf %v, %v : tensor<8x64xf32>
  %2 = arith.mulf %1, %1 : tensor<8x64xf32>
  %3 = arith.addf %0, %0 : tensor<512xf32>
  func.return %2, %3 : tensor<8x64xf32>, tensor<512xf32>
}

// CHECK:       func.func @h_k0(%x: memref<512xf32>, %out0: memref<512xf32>) attributes {asctile.kernel
// CHECK:       func.func @h_k1(%v: memref<8x64xf32>, %out0: memref<8x64xf32>) attributes {asctile.kernel
// CHECK:       func.func @h_k2(%{{.*}}: memref<512xf32>, %out0: memref<512xf32>) attributes {asctile.kernel
// CHECK:       func.func @h(%x: memref<512xf32>, %v: memref<8x64xf32>, %out0: memref<8x64xf32>, %out1: memref<512xf32>) {
// CHECK-NEXT:    %[[TMP:.*]] = memref.alloc() : memref<512xf32>
// CHECK-NEXT:    func.call @h_k0(%x, %[[TMP]]) : (memref<512xf32>, memref<512xf32>) -> ()
// CHECK-NEXT:    func.call @h_k1(%v, %out0) : (memref<8x64xf32>, memref<8x64xf32>) -> ()
// CHECK-NEXT:    func.call @h_k2(%[[TMP]], %out1) : (memref<512xf32>, memref<512xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NOT:   tensor<
