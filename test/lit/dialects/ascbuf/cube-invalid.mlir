// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: memref<64x40xf16>, %i: index) {
  %ub = ascbuf.alloc slots 1 : memref<64x48xf16, #ascbuf.space<ub>>
  ascbuf.copy_nz %a[%i], %ub rows %i cols %i stride 40 : memref<64x40xf16>, memref<64x48xf16, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.copy_nz: expected a buffer in l1, got memref<64x48xf16, #ascbuf.space<ub>>

// -----

func.func @f(%i: index, %f: i1) {
  %a = ascbuf.alloc slots 1 : memref<16x16xf16, #ascbuf.space<l0a>>
  %b = ascbuf.alloc slots 1 : memref<16x16xf16, #ascbuf.space<l0b>>
  %c = ascbuf.alloc slots 1 : memref<16x16xf16, #ascbuf.space<l0c>>
  ascbuf.mmad %c, %a, %b m %i n %i k %i init %f : memref<16x16xf16, #ascbuf.space<l0c>>, memref<16x16xf16, #ascbuf.space<l0a>>, memref<16x16xf16, #ascbuf.space<l0b>>
  func.return
}
// CHECK: ascbuf.mmad: f16 operands accumulate into f32

// -----

func.func @f(%i: index, %c: memref<16x16xf16>) {
  %a = ascbuf.alloc slots 1 : memref<16x16xf32, #ascbuf.space<l1>>
  ascbuf.fixpipe %a, %c[%i] rows %i cols %i stride 16 : memref<16x16xf32, #ascbuf.space<l1>>, memref<16x16xf16>
  func.return
}
// CHECK: ascbuf.fixpipe: expected a buffer in l0c

// -----

func.func @f(%x: memref<2x8x8x16xf16>, %i: index) {
  %l1 = ascbuf.alloc slots 2 : memref<64x16xf16, #ascbuf.space<l1>>
  %l0c = ascbuf.alloc slots 1 : memref<64x144xf16, #ascbuf.space<l0c>>
  ascbuf.load_window_l0 %l1, %l0c step %i k %i stage_k %i m0 %i extent %i geometry [8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1] : memref<64x16xf16, #ascbuf.space<l1>>, memref<64x144xf16, #ascbuf.space<l0c>>
  func.return
}
// CHECK: ascbuf.load_window_l0: expected a buffer in l0a or l0b, got memref<64x144xf16, #ascbuf.space<l0c>>

// -----

func.func @f(%i: index) {
  %l1 = ascbuf.alloc slots 1 : memref<1x64xf16, #ascbuf.space<l1>>
  %ub = ascbuf.alloc slots 1 : memref<1x64xf32, #ascbuf.space<ub>>
  ascbuf.load_bias %l1, %ub cols %i : memref<1x64xf16, #ascbuf.space<l1>>, memref<1x64xf32, #ascbuf.space<ub>>
  func.return
}
// CHECK: ascbuf.load_bias: expected a buffer in bt, got memref<1x64xf32, #ascbuf.space<ub>>
