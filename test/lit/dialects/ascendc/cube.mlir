// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k(%g: !ascendc.gm_addr, %i: index, %f: i1) {
  %gm = ascendc.global_tensor %g size 4096 : !ascendc.global_tensor<f16>
  %out = ascendc.global_tensor %g size 4096 : !ascendc.global_tensor<f16>
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  ascendc.data_copy_nd2nz %l1, %gm, {%c1, %i, %i, %c0, %i, %i, %c1, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
  ascendc.load_data %a, %l1, {%i, %i, %c1, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data %b, %l1, {%i, %i, %i, %c0, %c0} transpose : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data_with_transpose %b, %l1, {%i, %i, %c1, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data_with_transpose %b, %l1, {%i, %i, %c1, %c0, %i} decrement : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %i, %i, %i, %i, %i, %c0, %c0, %c1, %c1, %i, %i, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c0, %c0, %c0, %c0], %i, %i, %i, %i, %i, %i, %i, %c1, %c1, %c1, %c1, %c1, %c1} pad -1.500000e+00 : f16 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %b, %l1, {[%c1, %c1, %c1, %c1], %i, %i, %i, %i, %i, %c0, %c0, %c1, %c1, %i, %i, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 relu : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f32>
  %c1b = ascendc.local_tensor C1 address 8192 size 64 : !ascendc.local_tensor<f16>
  %bt = ascendc.local_tensor C2 address 0 size 64 : !ascendc.local_tensor<f32>
  %no = arith.constant false
  ascendc.data_copy_l1_bt %bt, %c1b, {%c1, %i, %c0, %c0} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
  ascendc.mmad %c, %a, %b bias %bt, {%i, %i, %i} init %no : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f unit_flag 2 : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f unit_flag 3 : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 relu unit_flag 3 : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f32>
  ascendc.set_mm_row_major
  ascendc.set_mm_column_major
  func.return
}
// CHECK: ascendc.data_copy_nd2nz %l1, %gm, {%c1, %i, %i, %c0, %i, %i, %c1, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
// CHECK: ascendc.load_data %a, %l1, {%i, %i, %c1, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK: ascendc.load_data %b, %l1, {%i, %i, %i, %c0, %c0} transpose
// CHECK: ascendc.load_data_with_transpose %b, %l1, {%i, %i, %c1, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK: ascendc.load_data_with_transpose %b, %l1, {%i, %i, %c1, %c0, %i} decrement
// CHECK: ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %i, %i, %i, %i, %i, %c0, %c0, %c1, %c1, %i, %i, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK: ascendc.load_data_3dv2 %a, %l1, {[%c0, %c0, %c0, %c0], %i, %i, %i, %i, %i, %i, %i, %c1, %c1, %c1, %c1, %c1, %c1} pad -1.500000e+00 : f16 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK: ascendc.load_data_3dv2 %b, %l1, {[%c1, %c1, %c1, %c1], %i, %i, %i, %i, %i, %c0, %c0, %c1, %c1, %i, %i, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK: ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f
// CHECK: ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 relu
// CHECK: ascendc.data_copy_l1_bt %bt, %c1b, {%c1, %i, %c0, %c0} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
// CHECK: ascendc.mmad %c, %a, %b bias %bt, {%i, %i, %i} init %no : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
// CHECK: ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f unit_flag 2 :
// CHECK: ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f unit_flag 3 :
// CHECK: ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 relu unit_flag 3 :
// CHECK: ascendc.set_mm_row_major
// CHECK: ascendc.set_mm_column_major
