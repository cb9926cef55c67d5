// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// 8190 f32 = 32760 B is not whole 32 B blocks: every copy is a DataCopyPad of one block of
// cols x 4 bytes (the tail tile's 1022 valid elements too), no DataCopy
func.func @p(%x: tensor<8190xf32>) -> tensor<8190xf32> {
  %0 = math.exp %x : tensor<8190xf32>
  func.return %0 : tensor<8190xf32>
}

// CHECK-LABEL: func.func @p_k0(
// CHECK:         %[[VALID:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         %[[XG:.*]] = ascendc.subview %xGm[%{{.*}}] : !ascendc.global_tensor<f32>
// CHECK-NEXT:    %[[ES:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[BYTES:.*]] = arith.muli %[[VALID]], %[[ES]] : index
// CHECK:         ascendc.data_copy_pad %{{.*}}, %[[XG]], {%[[ONE:.*]], %[[BYTES]], %[[Z:.*]], %{{.*}}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK:         ascendc.exp
// CHECK:         ascendc.data_copy_pad %{{.*}}, %{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
// CHECK-NOT:     ascendc.data_copy %
