// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=1024 cores=2}' | filecheck %s
// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=1024 cores=2},bufferize' | filecheck %s --check-prefix=BUF
// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=1024 cores=2},bufferize,plan-memory,insert-sync,convert-ascbuf-to-ascendc' | filecheck %s --check-prefix=ASC

// windows of one input that lie whole rows apart (a stencil's taps: here rows 0, 1 and 2 of each column
// offset) share one load of the rows they span; each is a row window of it. The windows one column apart
// are loads of their own (a column shift is not a whole row)
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @s_k0(%x: tensor<2x34x66xf32>) -> tensor<2x32x64xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = asctensor.slice %x offsets [0, 0, 0] : tensor<2x34x66xf32> -> tensor<2x32x64xf32>
    %1 = asctensor.slice %x offsets [0, 1, 0] : tensor<2x34x66xf32> -> tensor<2x32x64xf32>
    %2 = asctensor.slice %x offsets [0, 2, 0] : tensor<2x34x66xf32> -> tensor<2x32x64xf32>
    %3 = asctensor.slice %x offsets [0, 1, 2] : tensor<2x34x66xf32> -> tensor<2x32x64xf32>
    %4 = arith.addf %0, %1 : tensor<2x32x64xf32>
    %5 = arith.addf %4, %2 : tensor<2x32x64xf32>
    %6 = arith.addf %5, %3 : tensor<2x32x64xf32>
    func.return %6 : tensor<2x32x64xf32>
  }
  func.func @s(%x: tensor<2x34x66xf32>) -> tensor<2x32x64xf32> {
    %0 = func.call @s_k0(%x) : (tensor<2x34x66xf32>) -> tensor<2x32x64xf32>
    func.return %0 : tensor<2x32x64xf32>
  }
}

// CHECK:      func.func @s_k0(%x: memref<2x34x66xf32>, %out0: memref<2x32x64xf32>)
// CHECK:        scf.for %i =
// CHECK:          %[[TALL:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(66, 1) : memref<2x34x66xf32> -> tensor<18x64xf32>
// CHECK-NEXT:     %[[W0:.*]] = asctile.row_window %[[TALL]] rows from 0 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[W1:.*]] = asctile.row_window %[[TALL]] rows from 1 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[W2:.*]] = asctile.row_window %[[TALL]] rows from 2 : tensor<18x64xf32> -> tensor<16x64xf32>
// CHECK:          %[[SHIFTED:.*]] = asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(66, 1) : memref<2x34x66xf32> -> tensor<16x64xf32>
// CHECK-NEXT:     %[[A:.*]] = arith.addf %[[W0]], %[[W1]] : tensor<16x64xf32>
// CHECK-NEXT:     %[[B:.*]] = arith.addf %[[A]], %[[W2]] : tensor<16x64xf32>
// CHECK-NEXT:     %[[C:.*]] = arith.addf %[[B]], %[[SHIFTED]] : tensor<16x64xf32>
// CHECK:          asctile.store %[[C]], %out0

// bufferize: a row window is a view of its load's buffer (rows of the slot the load fills)
// BUF:        ascbuf.copy_in %x[%{{.*}}], %[[SLOT:.*]] rows %{{.*}} cols %{{.*}} strides(66, 1) : memref<2x34x66xf32>, memref<18x64xf32, #ascbuf.space<ub>>
// BUF-NEXT:   %[[R0:.*]] = ascbuf.rows %[[SLOT]] from 0 : memref<18x64xf32, #ascbuf.space<ub>> -> memref<16x64xf32, #ascbuf.space<ub>>
// BUF-NEXT:   %[[R1:.*]] = ascbuf.rows %[[SLOT]] from 1 : memref<18x64xf32, #ascbuf.space<ub>> -> memref<16x64xf32, #ascbuf.space<ub>>
// BUF:        ascbuf.vbinary add %{{.*}}, %[[R0]], %[[R1]]

// convert-ascbuf-to-ascendc: rows of a buffer are its LocalTensor from the first row's element (row 1: 64)
// ASC:        %[[LOCAL:.*]] = ascendc.deque %xQue
// ASC:        %[[ONE:.*]] = arith.constant 64 : index
// ASC-NEXT:   %[[R1:.*]] = ascendc.subview %[[LOCAL]][%[[ONE]]] : !ascendc.local_tensor<f32>
// ASC-NEXT:   ascendc.add %{{.*}}, %{{.*}}, %[[R1]]
