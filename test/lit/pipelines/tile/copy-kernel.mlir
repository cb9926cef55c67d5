// RUN: pyasc-opt %s -p to-tile | filecheck %s

// returning an argument unchanged gets a copy kernel (x * 1) writing the output buffer
func.func @i(%x: tensor<64xf32>) -> tensor<64xf32> {
  func.return %x : tensor<64xf32>
}

// CHECK:       func.func @i_k0(%x: memref<64xf32>, %out0: memref<64xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
// CHECK:         %[[X:.*]] = asctile.load %x[%[[O:.*]]] rows %[[R:.*]] cols %[[C:.*]] strides(0, 1) dense : memref<64xf32> -> tensor<1x64xf32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = asctile.splat %[[ONE]] : f32 -> tensor<1x64xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[X]], %[[S]] : tensor<1x64xf32>
// CHECK-NEXT:    asctile.store %[[M]], %out0[%[[O]]] rows %[[R]] cols %[[C]] stride 64 dense : tensor<1x64xf32>, memref<64xf32>
// CHECK:       func.func @i(%x: memref<64xf32>, %out0: memref<64xf32>) {
// CHECK-NEXT:    func.call @i_k0(%x, %out0) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NOT:   pyasc-opt: error
