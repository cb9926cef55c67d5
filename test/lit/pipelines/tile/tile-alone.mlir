// tile-elementwise tiles the kernels; host-to-gm then moves the host function onto GM buffers.
// RUN: pyasc-opt %s -p asctensor-fuse,tile-elementwise,host-to-gm 2>&1 | filecheck %s

func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = math.exp %x : tensor<1024xf32>
  func.return %0 : tensor<1024xf32>
}

// CHECK-NOT: Traceback
// CHECK:     func.func @f_k0(%x: memref<1024xf32>, %out0: memref<1024xf32>) attributes {asctile.kernel
