// RUN: pyasc-opt %s -p "tile-matmul{cores=1},bufferize-cube" | filecheck %s

// float32 B stored K x N: its L1 tile stays K x N (the DMA does not transpose it; LoadDataWithTranspose
// does on the way into L0B), and the loads of B into L0B are not transposed at this level either
func.func @f_mm0(%a: tensor<100x40xf32>, %b: tensor<40x60xf32>) -> tensor<100x60xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<100x40xf32>, tensor<40x60xf32> -> tensor<100x60xf32>
  func.return %0 : tensor<100x60xf32>
}
// CHECK:      %a_l1 = ascbuf.alloc slots 2 : memref<112x48xf32, #ascbuf.space<l1>>
// CHECK-NEXT: %b_l1 = ascbuf.alloc slots 2 : memref<48x64xf32, #ascbuf.space<l1>>
// CHECK:      ascbuf.copy_nz %b[%{{.*}}], %{{.*}} rows %{{.*}} cols %{{.*}} stride 60 :
// CHECK-NOT:  transposed
// CHECK:      ascbuf.load_l0 %{{.*}}, %{{.*}} step %kk k %{{.*}} extent %{{.*}} : memref<48x64xf32, #ascbuf.space<l1>>, memref<48x64xf32, #ascbuf.space<l0b>>

// float32 A^T (K x M) next to it: its L1 tile stays K x M as well, loaded into L0A transposed
func.func @g_mm0(%a: tensor<40x100xf32>, %b: tensor<40x60xf32>) -> tensor<100x60xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b transpose_a : tensor<40x100xf32>, tensor<40x60xf32> -> tensor<100x60xf32>
  func.return %0 : tensor<100x60xf32>
}
// CHECK:      func.func @g_mm0
// CHECK:      %a_l1 = ascbuf.alloc slots 2 : memref<48x112xf32, #ascbuf.space<l1>>
// CHECK:      ascbuf.copy_nz %a[%{{.*}}], %{{.*}} rows %{{.*}} cols %{{.*}} stride 100 :
// CHECK-NOT:  copy_nz {{.*}} transposed
// CHECK:      ascbuf.load_l0 %{{.*}}, %{{.*}} step %kk k %{{.*}} extent %{{.*}} transposed : memref<48x112xf32, #ascbuf.space<l1>>, memref<112x48xf32, #ascbuf.space<l0a>>
