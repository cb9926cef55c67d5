// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @k(%x: memref<64x100xf16>, %r: memref<100xf16>, %out: memref<64x100xf16>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
  %bid = asctile.block_idx : index
  %bnum = asctile.block_num : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c100 = arith.constant 100 : index
  %t = asctile.load %x[%c0] rows %c16 cols %c100 strides(100, 1) : memref<64x100xf16> -> tensor<16x112xf16>
  %rt = asctile.load %r[%c0] rows %c16 cols %c100 strides(0, 1) : memref<100xf16> -> tensor<16x112xf16>
  %ct = asctile.load %x[%c0] rows %c16 cols %c100 strides(100, 0) : memref<64x100xf16> -> tensor<16x112xf16>
  %d = asctile.load %x[%c0] rows %c16 cols %c100 strides(0, 1) dense : memref<64x100xf16> -> tensor<16x112xf16>
  %s = arith.constant 2.5 : f16
  %sp = asctile.splat %s : f16 -> tensor<16x112xf16>
  %m = arith.mulf %t, %sp : tensor<16x112xf16>
  asctile.store %m, %out[%c0] rows %c16 cols %c100 stride 100 : tensor<16x112xf16>, memref<64x100xf16>
  asctile.store %m, %out[%c0] rows %c16 cols %c100 stride 100 dense : tensor<16x112xf16>, memref<64x100xf16>
  func.return
}

// CHECK-LABEL: func.func @k(%x: memref<64x100xf16>, %r: memref<100xf16>, %out: memref<64x100xf16>) attributes {asctile.kernel, asctile.block_dim = 4 : i64, asctile.buffers = 2 : i64} {
// CHECK-NEXT:    %bid = asctile.block_idx : index
// CHECK-NEXT:    %bnum = asctile.block_num : index
// CHECK:         %t = asctile.load %x[%c0] rows %c16 cols %c100 strides(100, 1) : memref<64x100xf16> -> tensor<16x112xf16>
// CHECK-NEXT:    %rt = asctile.load %r[%c0] rows %c16 cols %c100 strides(0, 1) : memref<100xf16> -> tensor<16x112xf16>
// CHECK-NEXT:    %ct = asctile.load %x[%c0] rows %c16 cols %c100 strides(100, 0) : memref<64x100xf16> -> tensor<16x112xf16>
// CHECK-NEXT:    %d = asctile.load %x[%c0] rows %c16 cols %c100 strides(0, 1) dense : memref<64x100xf16> -> tensor<16x112xf16>
// CHECK-NEXT:    %s = arith.constant 2.500000e+00 : f16
// CHECK-NEXT:    %sp = asctile.splat %s : f16 -> tensor<16x112xf16>
// CHECK-NEXT:    %m = arith.mulf %t, %sp : tensor<16x112xf16>
// CHECK-NEXT:    asctile.store %m, %out[%c0] rows %c16 cols %c100 stride 100 : tensor<16x112xf16>, memref<64x100xf16>
// CHECK-NEXT:    asctile.store %m, %out[%c0] rows %c16 cols %c100 stride 100 dense : tensor<16x112xf16>, memref<64x100xf16>
// CHECK-NEXT:    func.return

// GENERIC: "asctile.block_idx"() : () -> index
// GENERIC: "asctile.block_num"() : () -> index
// GENERIC: "asctile.load"(%x, %c0, %c16, %c100) <{row_stride = 100 : i64, col_stride = 1 : i64}> : (memref<64x100xf16>, index, index, index) -> tensor<16x112xf16>
// GENERIC: "asctile.load"(%x, %c0, %c16, %c100) <{row_stride = 0 : i64, col_stride = 1 : i64, dense}> : (memref<64x100xf16>, index, index, index) -> tensor<16x112xf16>
// GENERIC: "asctile.splat"(%s) : (f16) -> tensor<16x112xf16>
// GENERIC: "asctile.store"(%m, %out, %c0, %c16, %c100) <{row_stride = 100 : i64}> : (tensor<16x112xf16>, memref<64x100xf16>, index, index, index) -> ()
// GENERIC: "asctile.store"(%m, %out, %c0, %c16, %c100) <{row_stride = 100 : i64, dense}> : (tensor<16x112xf16>, memref<64x100xf16>, index, index, index) -> ()
