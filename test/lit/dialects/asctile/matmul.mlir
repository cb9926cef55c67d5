// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP

func.func @k(%a: memref<64x40xf16>, %b: memref<40x48xf16>, %c: memref<64x48xf16>, %i: index, %first: i1) {
  %at = asctile.load_nz %a[%i] rows %i cols %i stride 40 : memref<64x40xf16> -> tensor<64x48xf16>
  %bt = asctile.load_nz %b[%i] rows %i cols %i stride 48 : memref<40x48xf16> -> tensor<48x48xf16>
  %acc = asctile.acc : tensor<64x48xf32>
  %r = asctile.mmad %at, %bt, %acc init %first k %i : tensor<64x48xf16>, tensor<48x48xf16>, tensor<64x48xf32> -> tensor<64x48xf32>
  %acc2 = asctile.acc : tensor<48x48xf32>
  %t = asctile.mmad %bt, %bt, %acc2 init %first k %i transpose_a transpose_b : tensor<48x48xf16>, tensor<48x48xf16>, tensor<48x48xf32> -> tensor<48x48xf32>
  asctile.store_acc %r, %c[%i] rows %i cols %i stride 48 relu : tensor<64x48xf32>, memref<64x48xf16>
  func.return
}
// CHECK: %at = asctile.load_nz %a[%i] rows %i cols %i stride 40 : memref<64x40xf16> -> tensor<64x48xf16>
// CHECK: %acc = asctile.acc : tensor<64x48xf32>
// CHECK: %r = asctile.mmad %at, %bt, %acc init %first k %i : tensor<64x48xf16>, tensor<48x48xf16>, tensor<64x48xf32> -> tensor<64x48xf32>
// CHECK: asctile.mmad %bt, %bt, %acc2 init %first k %i transpose_a transpose_b
// CHECK: asctile.store_acc %r, %c[%i] rows %i cols %i stride 48 relu : tensor<64x48xf32>, memref<64x48xf16>

func.func @window(%x: memref<2x8x8x16xf16>, %i: index) {
  %a = asctile.load_window %x[%i] m0 %i k0 %i rows %i cols %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16> -> tensor<64x144xf16>
  func.return
}
// CHECK: asctile.load_window %x[%i] m0 %i k0 %i rows %i cols %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<2x8x8x16xf16> -> tensor<64x144xf16>

func.func @bias(%a: tensor<64x48xf16>, %b: tensor<48x48xf16>, %c: memref<100xf16>, %i: index, %first: i1) {
  %row = asctile.load_bias %c[%i] cols %i : memref<100xf16> -> tensor<1x48xf32>
  %acc = asctile.acc : tensor<64x48xf32>
  %r = asctile.mmad %a, %b, %acc init %first k %i bias %row : tensor<64x48xf16>, tensor<48x48xf16>, tensor<64x48xf32>, tensor<1x48xf32> -> tensor<64x48xf32>
  func.return
}
// CHECK: %row = asctile.load_bias %c[%i] cols %i : memref<100xf16> -> tensor<1x48xf32>
// CHECK: asctile.mmad %a, %b, %acc init %first k %i bias %row : tensor<64x48xf16>, tensor<48x48xf16>, tensor<64x48xf32>, tensor<1x48xf32> -> tensor<64x48xf32>
