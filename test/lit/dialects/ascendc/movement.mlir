// RUN: PYASC_ROUNDTRIP

func.func @f(%d: !ascendc.local_tensor<f16>, %o: !ascendc.local_tensor<ui32>, %i: !ascendc.local_tensor<i32>, %n: index, %z: i32) {
  ascendc.create_vec_index %i, %z, %n : !ascendc.local_tensor<i32>, i32
  ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui32>
  func.return
}
// CHECK: ascendc.create_vec_index %i, %z, %n : !ascendc.local_tensor<i32>, i32
// CHECK-NEXT: ascendc.gather %d, %d, %o, %n, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<ui32>

// Gatherb: 32 B DataBlocks by uint32 byte offsets, 8 a repeat; the destination's block and repeat strides
func.func @b(%d: !ascendc.local_tensor<ui16>, %o: !ascendc.local_tensor<ui32>, %n: index) {
  ascendc.gatherb %d, %d, %o, %n strides(2, 16) : !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui32>
  func.return
}
// CHECK: ascendc.gatherb %d, %d, %o, %n strides(2, 16) : !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui32>

func.func @t(%d: !ascendc.local_tensor<f16>, %s: !ascendc.local_tensor<f16>) {
  ascendc.trans_data_to_5hd %d, %s dst_list [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240] src_list [0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960] repeat 4 dst_stride 16 src_stride 1 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.trans_data_to_5hd %d, %s dst_list [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240] src_list [0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960] repeat 4 dst_stride 16 src_stride 1 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>

// GatherMask with a built-in pattern (2: the odd lanes) in counter mode: 77 elements a repeat, 4 repeats 12
// DataBlocks apart, DataBlocks contiguous within a repeat
func.func @m(%d: !ascendc.local_tensor<f16>, %s: !ascendc.local_tensor<f16>, %mask: index, %blk: index, %rep: index, %stride: index) {
  ascendc.gather_mask %d, %s pattern 2 reduce_mode 1 mask %mask params(%blk, %rep, %stride) : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.gather_mask %d, %s pattern 2 reduce_mode 1 mask %mask params(%blk, %rep, %stride) : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
