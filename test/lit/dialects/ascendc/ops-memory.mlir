// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @k(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bid = ascendc.get_block_idx : index
  %bnum = ascendc.get_block_num : index
  %xg = ascendc.global_tensor %x size 4096 : !ascendc.global_tensor<f16>
  %yg = ascendc.global_tensor %y size 4096 : !ascendc.global_tensor<f16>
  %xs = ascendc.subview %xg[%c64] : !ascendc.global_tensor<f16>
  %pipe = ascendc.tpipe : !ascendc.tpipe
  %qin = ascendc.tque : !ascendc.tque<VECIN, 2>
  %qout = ascendc.tque : !ascendc.tque<VECOUT, 1>
  %buf = ascendc.tbuf : !ascendc.tbuf<VECCALC>
  ascendc.init_buffer %pipe, %qin num 2 len 128 : !ascendc.tque<VECIN, 2>
  ascendc.init_buffer %pipe, %qout num 1 len 128 : !ascendc.tque<VECOUT, 1>
  ascendc.init_buffer %pipe, %buf num 1 len 256 : !ascendc.tbuf<VECCALC>
  %a = ascendc.alloc_tensor %qin : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
  ascendc.data_copy %a, %xs, %c64 : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
  ascendc.enque %qin, %a : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
  %d = ascendc.deque %qin : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
  %t = ascendc.tbuf_get %buf : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<f16>
  %ts = ascendc.subview %t[%c64] : !ascendc.local_tensor<f16>
  ascendc.data_copy %ts, %d, %c64 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  ascendc.free_tensor %qin, %d : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
  %s = ascendc.local_tensor VECCALC address 1024 size 512 : !ascendc.local_tensor<f32>
  %v = ascendc.get_value %xg[%c1] : !ascendc.global_tensor<f16> -> f16
  ascendc.data_copy_pad %t, %xg, {%c1, %c128, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
  ascendc.data_copy_pad %yg, %t, {%c1, %c128, %c0, %c0} : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}

// CHECK-LABEL: func.func @k(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 8 : i64} {
// CHECK:         %bid = ascendc.get_block_idx : index
// CHECK-NEXT:    %bnum = ascendc.get_block_num : index
// CHECK-NEXT:    %xg = ascendc.global_tensor %x size 4096 : !ascendc.global_tensor<f16>
// CHECK-NEXT:    %yg = ascendc.global_tensor %y size 4096 : !ascendc.global_tensor<f16>
// CHECK-NEXT:    %xs = ascendc.subview %xg[%c64] : !ascendc.global_tensor<f16>
// CHECK-NEXT:    %pipe = ascendc.tpipe : !ascendc.tpipe
// CHECK-NEXT:    %qin = ascendc.tque : !ascendc.tque<VECIN, 2>
// CHECK-NEXT:    %qout = ascendc.tque : !ascendc.tque<VECOUT, 1>
// CHECK-NEXT:    %buf = ascendc.tbuf : !ascendc.tbuf<VECCALC>
// CHECK-NEXT:    ascendc.init_buffer %pipe, %qin num 2 len 128 : !ascendc.tque<VECIN, 2>
// CHECK-NEXT:    ascendc.init_buffer %pipe, %qout num 1 len 128 : !ascendc.tque<VECOUT, 1>
// CHECK-NEXT:    ascendc.init_buffer %pipe, %buf num 1 len 256 : !ascendc.tbuf<VECCALC>
// CHECK-NEXT:    %a = ascendc.alloc_tensor %qin : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.data_copy %a, %xs, %c64 : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
// CHECK-NEXT:    ascendc.enque %qin, %a : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    %d = ascendc.deque %qin : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f16>
// CHECK-NEXT:    %t = ascendc.tbuf_get %buf : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<f16>
// CHECK-NEXT:    %ts = ascendc.subview %t[%c64] : !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.data_copy %ts, %d, %c64 : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.free_tensor %qin, %d : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    %s = ascendc.local_tensor VECCALC address 1024 size 512 : !ascendc.local_tensor<f32>
// CHECK-NEXT:    %v = ascendc.get_value %xg[%c1] : !ascendc.global_tensor<f16> -> f16
// CHECK-NEXT:    ascendc.data_copy_pad %t, %xg, {%c1, %c128, %c0, %c0} : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
// CHECK-NEXT:    ascendc.data_copy_pad %yg, %t, {%c1, %c128, %c0, %c0} : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    func.return

// GENERIC: "ascendc.global_tensor"(%x) <{size = 4096 : i64}> : (!ascendc.gm_addr) -> !ascendc.global_tensor<f16>
// GENERIC: "ascendc.init_buffer"(%pipe, %qin) <{num = 2 : i64, length = 128 : i64}> : (!ascendc.tpipe, !ascendc.tque<VECIN, 2>) -> ()
// GENERIC: "ascendc.local_tensor"() <{position = #ascendc<position VECCALC>, address = 1024 : i64, size = 512 : i64}> : () -> !ascendc.local_tensor<f32>
// GENERIC: "ascendc.data_copy_pad"(%t, %xg, %c1, %c128, %c0, %c0) : (!ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>, index, index, index, index) -> ()
