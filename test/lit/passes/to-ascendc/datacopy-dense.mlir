// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s --check-prefix=DENSE
// RUN: pyasc-opt %s -p 'to-tile{tile_size=1000 cores=2},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s --check-prefix=PAD

// whole 32 B blocks contiguous in GM and UB: one DataCopy of rows x cols elements;
// with tiles of 1000 -> 1000 + 8192 % 1000 tails the copies must pad: DataCopyPad
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

// PAD-LABEL: func.func @e_k0(
// PAD:         ascendc.data_copy_pad %{{.*}}, %{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// PAD:         ascendc.exp
// PAD:         ascendc.data_copy_pad %{{.*}}, %{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
// PAD-NOT:     ascendc.data_copy %
