// RUN: pyasc-opt %s -p tile-movement | filecheck %s

// a concat along the last dim: every input is a slab copied with the input's row stride into
// the output with the output's row stride, all in one loop; a strided slice on an outer dim is
// a row stride too (no gather)
func.func @c_k0(%a: tensor<6x5xf16>, %b: tensor<6x13xf16>) -> tensor<6x18xf16> attributes {asctensor.kernel = "movement"} {
  %c = asctensor.concat %a, %b dim = 1 : tensor<6x5xf16>, tensor<6x13xf16> -> tensor<6x18xf16>
  func.return %c : tensor<6x18xf16>
}
func.func @s_k0(%x: tensor<30x16xf32>) -> tensor<10x16xf32> attributes {asctensor.kernel = "movement"} {
  %s = asctensor.strided_slice %x offsets [0, 0] strides [3, 1] : tensor<30x16xf32> -> tensor<10x16xf32>
  func.return %s : tensor<10x16xf32>
}

// CHECK-LABEL: func.func @c_k0(%a: memref<6x5xf16>, %b: memref<6x13xf16>, %out0: memref<6x18xf16>)
// CHECK-NOT:     asctile.gather
// CHECK:         %[[A:.*]] = asctile.load %a[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(5, 1)
// CHECK:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 18
// CHECK:         %[[B:.*]] = asctile.load %b[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(13, 1)
// CHECK:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 18
// CHECK-LABEL: func.func @s_k0(%x: memref<30x16xf32>, %out0: memref<10x16xf32>)
// CHECK-NOT:     asctile.gather
// CHECK:         asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(48, 1)
// CHECK:         asctile.store %{{.*}}, %out0[%{{.*}}] rows %{{.*}} cols %{{.*}} stride 16
