// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: memref<64xf16>, %i: index) {
  %t = asctile.load %x[%i] rows %i cols %i strides(0, 1) : memref<64xf16> -> tensor<64xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.load: a tile is a 2-D tensor (rows x pitch), got tensor<64xf16>

// -----

func.func @f(%x: memref<64xf16>, %i: index) {
  %t = asctile.load %x[%i] rows %i cols %i strides(0, 1) : memref<64xf16> -> tensor<1x64xf32>
  func.return
}
// CHECK: Operation does not verify: asctile.load: element types differ (memref<64xf16> -> tensor<1x64xf32>)

// -----

func.func @f(%x: memref<64xf16>, %i: index) {
  %t = asctile.load %x[%i] rows %i cols %i strides(0, 2) : memref<64xf16> -> tensor<1x64xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.load: col_stride must be 0 or 1, got 2

// -----

func.func @f(%x: memref<64xf16>, %i: index) {
  %t = asctile.load %x[%i] rows %i cols %i strides(-16, 1) : memref<64xf16> -> tensor<4x16xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.load: row_stride must be non-negative

// -----

func.func @f(%x: memref<64xf16>, %i: index, %t: tensor<4x16xf16>) {
  asctile.store %t, %x[%i] rows %i cols %i stride 0 : tensor<4x16xf16>, memref<64xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.store: row_stride must be positive

// -----

func.func @f(%x: memref<64xf32>, %i: index, %t: tensor<4x16xf16>) {
  asctile.store %t, %x[%i] rows %i cols %i stride 16 : tensor<4x16xf16>, memref<64xf32>
  func.return
}
// CHECK: Operation does not verify: asctile.store: element types differ (tensor<4x16xf16> -> memref<64xf32>)

// -----

func.func @f(%x: memref<64xf16>, %i: index, %t: tensor<2x4x16xf16>) {
  asctile.store %t, %x[%i] rows %i cols %i stride 16 : tensor<2x4x16xf16>, memref<64xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.store: a tile is a 2-D tensor (rows x pitch), got tensor<2x4x16xf16>

// -----

func.func @f() {
  %s = arith.constant 1.0 : f32
  %t = asctile.splat %s : f32 -> tensor<4x16xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.splat: scalar type f32 differs from the tile's element type f16

// -----

func.func @f() {
  %s = arith.constant 1.0 : f16
  %t = asctile.splat %s : f16 -> tensor<64xf16>
  func.return
}
// CHECK: Operation does not verify: asctile.splat: a tile is a 2-D tensor (rows x pitch), got tensor<64xf16>
