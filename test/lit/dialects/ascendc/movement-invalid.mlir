// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%d: !ascendc.local_tensor<f16>, %o: !ascendc.local_tensor<i32>, %n: index) {
  ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<i32>
  func.return
}
// CHECK: ascendc.gather: srcOffset must be a uint32_t (ui32) tensor

// -----

// Gatherb takes uint16_t or uint32_t on Atlas A2 (Gatherb(ISASI).md): half data goes through a reinterpret cast
func.func @b(%d: !ascendc.local_tensor<f16>, %o: !ascendc.local_tensor<ui32>, %n: index) {
  ascendc.gatherb %d, %d, %o, %n strides(1, 8) : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui32>
  func.return
}
// CHECK: ascendc.gatherb takes uint16 or uint32 dst and src of one type

// -----

func.func @f(%d: !ascendc.local_tensor<ui8>, %n: index, %z: ui8) {
  ascendc.create_vec_index %d, %z, %n : !ascendc.local_tensor<ui8>, ui8
  func.return
}
// CHECK: ascendc.create_vec_index does not support element type ui8

// -----

func.func @f(%d: !ascendc.local_tensor<i8>) {
  ascendc.trans_data_to_5hd %d, %d dst_list [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480] src_list [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480] repeat 1 dst_stride 0 src_stride 0 : !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.trans_data_to_5hd does not support element type i8 on A2 here

// -----

// an address that is not a DataBlock (8 float16 = 16 B)
func.func @f(%d: !ascendc.local_tensor<f16>, %s: !ascendc.local_tensor<f16>) {
  ascendc.trans_data_to_5hd %d, %s dst_list [8, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240] src_list [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240] repeat 1 dst_stride 0 src_stride 0 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: [trans5hd-block-aligned]

// -----

func.func @f(%d: !ascendc.local_tensor<f32>, %s: !ascendc.local_tensor<f32>) {
  ascendc.trans_data_to_5hd %d, %s dst_list [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120] src_list [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120] repeat 256 dst_stride 16 src_stride 1 : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: [trans5hd-repeat-range]

// -----

func.func @f(%d: !ascendc.local_tensor<f16>, %s: !ascendc.local_tensor<f16>) {
  ascendc.trans_data_to_5hd %d, %s dst_list [0, 16] src_list [0, 16] repeat 1 dst_stride 0 src_stride 0 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: dstList and srcList hold 16 addresses each, got 2 and 2

// -----

// the built-in patterns are 1-7
func.func @f(%d: !ascendc.local_tensor<f16>, %n: index) {
  ascendc.gather_mask %d, %d pattern 8 reduce_mode 0 mask %n params(%n, %n, %n) : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.gather_mask: src1Pattern 8 is not a built-in pattern: [gathermask-pattern-range]

// -----

func.func @f(%d: !ascendc.local_tensor<i8>, %n: index) {
  ascendc.gather_mask %d, %d pattern 1 reduce_mode 0 mask %n params(%n, %n, %n) : !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.gather_mask does not support element type i8 on A2
