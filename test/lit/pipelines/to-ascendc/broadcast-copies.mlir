// RUN: pyasc-opt %s -p 'to-tile{cores=8},to-buf{sync_style=flags},convert-ascbuf-to-ascendc{sync_style=flags}' | filecheck %s

// a repeated row is one DataCopyPad per tile row (row i at i * pitch, pitch 104), once before the loop;
// a column broadcast is the column, one 32 B block per row (one DataCopyPad on MTE2), whose values the per-row
// Muls read from UB with GetValue after an MTE2_S flag (in place: the product reuses the sum's buffer);
// a scalar broadcast that is only subtracted is one GetValue before the loop, negated once, the
// scalar of an Adds (no buffer, no Duplicate)
func.func @b(%x: tensor<64x100xf32>, %r: tensor<100xf32>, %c: tensor<64x1xf32>, %s: tensor<1xf32>) -> tensor<64x100xf32> {
  %rb = asctensor.broadcast %r : tensor<100xf32> -> tensor<64x100xf32>
  %0 = arith.addf %x, %rb : tensor<64x100xf32>
  %cb = asctensor.broadcast %c : tensor<64x1xf32> -> tensor<64x100xf32>
  %1 = arith.mulf %0, %cb : tensor<64x100xf32>
  %sb = asctensor.broadcast %s : tensor<1xf32> -> tensor<64x100xf32>
  %2 = arith.subf %1, %sb : tensor<64x100xf32>
  func.return %2 : tensor<64x100xf32>
}

// CHECK-LABEL: func.func @b_k0(
// the repeated row is the same for every tile: loaded once, before the tile loop, one copy per row
// CHECK:         %[[RG:.*]] = ascendc.subview %rGm[%{{.*}}] : !ascendc.global_tensor<f32>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[P:.*]] = arith.constant 104 : index
// CHECK-NEXT:      %[[RO:.*]] = arith.muli %[[J]], %[[P]] : index
// CHECK-NEXT:      %[[ROW:.*]] = ascendc.subview %r_buf[%[[RO]]] : !ascendc.local_tensor<f32>
// CHECK-NEXT:      %[[N1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      ascendc.data_copy_pad %[[ROW]], %[[RG]], {%[[N1]], %{{.*}}, %[[Z]], %[[Z]]} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SV:.*]] = ascendc.get_value %sGm[%{{.*}}] : !ascendc.global_tensor<f32> -> f32
// CHECK-NEXT:    %[[NS:.*]] = arith.negf %[[SV]] : f32
// CHECK-NOT:     ascendc.duplicate %s_buf
// CHECK:         scf.for %i =
// CHECK:           %[[ROWS:.*]] = arith.minui
// CHECK:         %[[CL:.*]] = ascendc.subview %c_col_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK-NEXT:    %[[CG:.*]] = ascendc.subview %cGm[%{{.*}}] : !ascendc.global_tensor<f32>
// CHECK:         ascendc.data_copy_pad %[[CL]], %[[CG]], {%[[ROWS]], %{{.*}}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
// CHECK-NEXT:    ascendc.set_flag MTE2_S, %[[ES:.*]]
// CHECK:         ascendc.wait_flag MTE2_S, %[[ES]]
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[V:.*]] = ascendc.get_value %[[CL]][%{{.*}}] : !ascendc.local_tensor<f32> -> f32
// CHECK:           %[[TR:.*]] = ascendc.subview %tmp_buf[%{{.*}}] : !ascendc.local_tensor<f32>
// CHECK:           ascendc.muls %[[TR]], %{{.*}}, %[[V]], %{{.*}} : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    }
// CHECK:         ascendc.adds %{{.*}}, %tmp_buf, %[[NS]], %{{.*}} : !ascendc.local_tensor<f32>, f32
