// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=1024 cores=2}' | filecheck %s
// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=1024 cores=2},bufferize' | filecheck %s --check-prefix=BUF

// windows of a float16 input that lie whole rows apart (a depthwise convolution's kernel rows), each cast to
// float32 before its product: their load is cast once, 18 rows for the three 16-row windows, and each window's
// cast is a row window of it
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @s_k0(%x: tensor<2x34x66xf16>) -> tensor<2x32x64xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = asctensor.slice %x offsets [0, 0, 0] : tensor<2x34x66xf16> -> tensor<2x32x64xf16>
    %1 = asctensor.slice %x offsets [0, 1, 0] : tensor<2x34x66xf16> -> tensor<2x32x64xf16>
    %2 = asctensor.slice %x offsets [0, 2, 0] : tensor<2x34x66xf16> -> tensor<2x32x64xf16>
    %3 = asctensor.cast %0 : tensor<2x32x64xf16> -> tensor<2x32x64xf32>
    %4 = asctensor.cast %1 : tensor<2x32x64xf16> -> tensor<2x32x64xf32>
    %5 = asctensor.cast %2 : tensor<2x32x64xf16> -> tensor<2x32x64xf32>
    %6 = arith.addf %3, %4 : tensor<2x32x64xf32>
    %7 = arith.addf %6, %5 : tensor<2x32x64xf32>
    func.return %7 : tensor<2x32x64xf32>
  }
  func.func @s(%x: tensor<2x34x66xf16>) -> tensor<2x32x64xf32> {
    %0 = func.call @s_k0(%x) : (tensor<2x34x66xf16>) -> tensor<2x32x64xf32>
    func.return %0 : tensor<2x32x64xf32>
  }
}

// CHECK:      func.func @s_k0(%x: memref<2x34x66xf16>, %out0: memref<2x32x64xf32>)
// CHECK:          %[[TALL:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(66, 1) : memref<2x34x66xf16> -> tensor<18x64xf16>
// CHECK:          %[[WIDE:.*]] = arith.extf %[[TALL]] : tensor<18x64xf16> to tensor<18x64xf32>
// CHECK-NEXT:     %[[W0:.*]] = asctile.row_window %[[WIDE]] rows from 0 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[W1:.*]] = asctile.row_window %[[WIDE]] rows from 1 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[W2:.*]] = asctile.row_window %[[WIDE]] rows from 2 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[A:.*]] = arith.addf %[[W0]], %[[W1]] : tensor<16x64xf32>
// CHECK-NEXT:     %[[B:.*]] = arith.addf %[[A]], %[[W2]] : tensor<16x64xf32>
// CHECK-NOT:      arith.extf
// CHECK:          asctile.store %[[B]], %out0

// bufferize: one cast of the 18 x 64 = 1152 elements of the load, its windows views of the float32 buffer
// BUF:        %[[N:.*]] = arith.constant 1152 : index
// BUF:        ascbuf.vcast %[[WIDE:.*]], %{{.*}}, CAST_NONE, %[[N]] : memref<18x64xf32, #ascbuf.space<ub>>, memref<18x64xf16, #ascbuf.space<ub>>
// BUF-NEXT:   %[[R0:.*]] = ascbuf.rows %[[WIDE]] from 0 : memref<18x64xf32, #ascbuf.space<ub>> -> memref<16x64xf32, #ascbuf.space<ub>>
// BUF-NEXT:   %[[R1:.*]] = ascbuf.rows %[[WIDE]] from 1 : memref<18x64xf32, #ascbuf.space<ub>> -> memref<16x64xf32, #ascbuf.space<ub>>
// BUF-NOT:    ascbuf.vcast
