// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k(%a: memref<64x40xf16>, %c: memref<64x48xf16>, %i: index, %f: i1) {
  %l1 = ascbuf.alloc slots 2 offset 0 : memref<64x48xf16, #ascbuf.space<l1>>
  %l1b = ascbuf.alloc slots 2 offset 16384 : memref<48x48xf16, #ascbuf.space<l1>>
  %l0a = ascbuf.alloc slots 2 offset 0 : memref<64x48xf16, #ascbuf.space<l0a>>
  %l0b = ascbuf.alloc slots 2 offset 0 : memref<48x48xf16, #ascbuf.space<l0b>>
  %l0c = ascbuf.alloc slots 1 offset 0 : memref<64x48xf32, #ascbuf.space<l0c>>
  ascbuf.copy_nz %a[%i], %l1 rows %i cols %i stride 40 : memref<64x40xf16>, memref<64x48xf16, #ascbuf.space<l1>>
  ascbuf.copy_nz %a[%i], %l1b rows %i cols %i stride 40 transposed : memref<64x40xf16>, memref<48x48xf16, #ascbuf.space<l1>>
  ascbuf.load_l0 %l1, %l0a step %i k %i extent %i : memref<64x48xf16, #ascbuf.space<l1>>, memref<64x48xf16, #ascbuf.space<l0a>>
  ascbuf.load_l0 %l1b, %l0b step %i k %i extent %i transposed : memref<48x48xf16, #ascbuf.space<l1>>, memref<48x48xf16, #ascbuf.space<l0b>>
  ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f : memref<64x48xf32, #ascbuf.space<l0c>>, memref<64x48xf16, #ascbuf.space<l0a>>, memref<48x48xf16, #ascbuf.space<l0b>>
  ascbuf.fixpipe %l0c, %c[%i] rows %i cols %i stride 48 relu : memref<64x48xf32, #ascbuf.space<l0c>>, memref<64x48xf16>
  ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f unit_flag 3 : memref<64x48xf32, #ascbuf.space<l0c>>, memref<64x48xf16, #ascbuf.space<l0a>>, memref<48x48xf16, #ascbuf.space<l0b>>
  ascbuf.fixpipe %l0c, %c[%i] rows %i cols %i stride 48 relu unit_flag 3 : memref<64x48xf32, #ascbuf.space<l0c>>, memref<64x48xf16>
  func.return
}
// CHECK: ascbuf.copy_nz %a[%i], %l1 rows %i cols %i stride 40 : memref<64x40xf16>, memref<64x48xf16, #ascbuf.space<l1>>
// CHECK: ascbuf.copy_nz %a[%i], %l1b rows %i cols %i stride 40 transposed
// CHECK: ascbuf.load_l0 %l1, %l0a step %i k %i extent %i : memref<64x48xf16, #ascbuf.space<l1>>, memref<64x48xf16, #ascbuf.space<l0a>>
// CHECK: ascbuf.load_l0 %l1b, %l0b step %i k %i extent %i transposed
// CHECK: ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f
// CHECK: ascbuf.fixpipe %l0c, %c[%i] rows %i cols %i stride 48 relu :
// CHECK: ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f unit_flag 3 :
// CHECK: ascbuf.fixpipe %l0c, %c[%i] rows %i cols %i stride 48 relu unit_flag 3 :

func.func @window(%x: memref<2x8x8x16xf16>, %i: index) {
  %l1 = ascbuf.alloc slots 2 : memref<64x16xf16, #ascbuf.space<l1>>
  %l0b = ascbuf.alloc slots 2 : memref<144x64xf16, #ascbuf.space<l0b>>
  ascbuf.copy_window %x[%i], %l1 m0 %i rows %i k0 %i cols %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16>, memref<64x16xf16, #ascbuf.space<l1>>
  ascbuf.load_window_l0 %l1, %l0b step %i k %i stage_k %i m0 %i extent %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<64x16xf16, #ascbuf.space<l1>>, memref<144x64xf16, #ascbuf.space<l0b>>
  func.return
}
// CHECK: ascbuf.copy_window %x[%i], %l1 m0 %i rows %i k0 %i cols %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16>, memref<64x16xf16, #ascbuf.space<l1>>
// CHECK: ascbuf.load_window_l0 %l1, %l0b step %i k %i stage_k %i m0 %i extent %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1]

func.func @bias(%c: memref<100xf16>, %i: index, %f: i1) {
  %l1 = ascbuf.alloc slots 1 offset 0 : memref<1x64xf16, #ascbuf.space<l1>>
  %bt = ascbuf.alloc slots 1 offset 0 : memref<1x64xf32, #ascbuf.space<bt>>
  %l0a = ascbuf.alloc slots 1 offset 0 : memref<16x16xf16, #ascbuf.space<l0a>>
  %l0b = ascbuf.alloc slots 1 offset 0 : memref<16x64xf16, #ascbuf.space<l0b>>
  %l0c = ascbuf.alloc slots 1 offset 0 : memref<16x64xf32, #ascbuf.space<l0c>>
  ascbuf.copy_bias %c[%i], %l1 cols %i : memref<100xf16>, memref<1x64xf16, #ascbuf.space<l1>>
  ascbuf.load_bias %l1, %bt cols %i : memref<1x64xf16, #ascbuf.space<l1>>, memref<1x64xf32, #ascbuf.space<bt>>
  ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f bias %bt : memref<16x64xf32, #ascbuf.space<l0c>>, memref<16x16xf16, #ascbuf.space<l0a>>, memref<16x64xf16, #ascbuf.space<l0b>>, memref<1x64xf32, #ascbuf.space<bt>>
  func.return
}
// CHECK: ascbuf.copy_bias %c[%i], %l1 cols %i : memref<100xf16>, memref<1x64xf16, #ascbuf.space<l1>>
// CHECK: ascbuf.load_bias %l1, %bt cols %i : memref<1x64xf16, #ascbuf.space<l1>>, memref<1x64xf32, #ascbuf.space<bt>>
// CHECK: ascbuf.mmad %l0c, %l0a, %l0b m %i n %i k %i init %f bias %bt
