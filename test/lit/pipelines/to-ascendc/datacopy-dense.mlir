// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s --check-prefix=DENSE

// every window is whole 32 B blocks, contiguous in GM and UB (tiles of 1024 f32, and 8192 is a
// multiple of 8 elements): one DataCopy of rows x cols elements each way
func.func @e(%x: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = math.exp %x : tensor<8192xf32>
  func.return %0 : tensor<8192xf32>
}

// DENSE-LABEL: func.func @e_k0(
// DENSE:         %[[XG:.*]] = ascendc.subview %xGm[%[[OFF:.*]]] : !ascendc.global_tensor<f32>
// DENSE-NEXT:    ascendc.data_copy %{{.*}}, %[[XG]], %[[N:.*]] : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// DENSE:         ascendc.exp
// DENSE:         %[[OG:.*]] = ascendc.subview %out0Gm[%{{.*}}] : !ascendc.global_tensor<f32>
// DENSE-NEXT:    ascendc.data_copy %[[OG]], %{{.*}}, %[[N]] : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
// DENSE-NOT:     ascendc.data_copy_pad
