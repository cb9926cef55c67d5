// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: memref<64x40xf16>, %i: index) {
  %at = asctile.load_nz %a[%i] rows %i cols %i stride 40 : memref<64x40xf16> -> tensor<64x40xf16>
  func.return
}
// CHECK: asctile.load_nz: tile tensor<64x40xf16> is not a whole number of 16x16 fractals

// -----

func.func @f(%a: tensor<64x48xf16>, %b: tensor<32x48xf16>, %acc: tensor<64x48xf32>, %f: i1, %i: index) {
  %r = asctile.mmad %a, %b, %acc init %f k %i : tensor<64x48xf16>, tensor<32x48xf16>, tensor<64x48xf32> -> tensor<64x48xf32>
  func.return
}
// CHECK: asctile.mmad: the K extents of the tiles differ (48 vs 32)

// -----

func.func @f(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %acc: tensor<64x64xf32>, %f: i1, %i: index) {
  %r = asctile.mmad %a, %b, %acc init %f k %i : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}
// CHECK: asctile.mmad: i8 tiles accumulate into i32

// -----

func.func @f(%acc: tensor<64x48xi32>, %c: memref<64x48xf16>, %i: index) {
  asctile.store_acc %acc, %c[%i] rows %i cols %i stride 48 : tensor<64x48xi32>, memref<64x48xf16>
  func.return
}
// CHECK: asctile.store_acc: FixPipe converts i32 to i32, not f16

// -----

func.func @f(%x: memref<2x8x8x16xf16>, %i: index) {
  %a = asctile.load_window %x[%i] m0 %i k0 %i rows %i cols %i geometry [8, 8, 16] : memref<2x8x8x16xf16> -> tensor<64x144xf16>
  func.return
}
// CHECK: asctile.load_window: geometry is [H, W, C, KH, KW, SH, SW, PH, PW, DH, DW]

// -----

func.func @f(%c: memref<100xbf16>, %i: index) {
  %row = asctile.load_bias %c[%i] cols %i : memref<100xbf16> -> tensor<1x48xf32>
  func.return
}
// CHECK: asctile.load_bias: a bias row is f32 from f16 or f32, got memref<100xbf16> -> tensor<1x48xf32>

// -----

func.func @f(%a: tensor<64x48xf16>, %b: tensor<48x48xf16>, %acc: tensor<64x48xf32>, %row: tensor<1x32xf32>, %f: i1, %i: index) {
  %r = asctile.mmad %a, %b, %acc init %f k %i bias %row : tensor<64x48xf16>, tensor<48x48xf16>, tensor<64x48xf32>, tensor<1x32xf32> -> tensor<64x48xf32>
  func.return
}
// CHECK: asctile.mmad: the bias row should be 1x48 of f32, got tensor<1x32xf32>
