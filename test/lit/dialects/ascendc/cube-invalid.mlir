// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data %a, %l1, {%i, %i, %i, %i, %i} transpose : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data: ifTranspose transposes 16x16 fractals of 2-byte types, not f32

// -----

func.func @f(%i: index, %f: i1) {
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<i8>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<i8>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f : !ascendc.local_tensor<f32>, !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.mmad: i8 operands accumulate into i32

// -----

func.func @f(%g: !ascendc.gm_addr, %i: index) {
  %out = ascendc.global_tensor %g size 4096 : !ascendc.global_tensor<bf16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 : !ascendc.global_tensor<bf16>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.fixpipe: quantPre F322F16 does not convert f32 to bf16

// -----

func.func @f(%i: index) {
  %r = arith.constant 300 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data %a, %l1, {%i, %r, %i, %i, %i} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data: repeatTimes must be in 0..255, got 300

// -----

// LoadDataWithTranspose writes L0A/L0B (A2/B2) from L1 (A1/B1)
func.func @f(%i: index) {
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data_with_transpose %c, %l1, {%i, %i, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: dst must be in A2 or B2, got CO1 (L0C)

// -----

func.func @f(%i: index) {
  %r = arith.constant 256 : index
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data_with_transpose %b, %l1, {%i, %r, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: repeatTimes must be in 0..255, got 256

// -----

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f64>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f64>
  ascendc.load_data_with_transpose %b, %l1, {%i, %i, %i, %i, %i} : !ascendc.local_tensor<f64>, !ascendc.local_tensor<f64>
  func.return
}
// CHECK: ascendc.load_data_with_transpose: f64 is not one of

// -----

// Load3Dv2 into L0B is documented but not modelled
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c144, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: dst must be in A2 (L0A) or B2 (L0B), got CO1

// -----

// channelSize N*16+4 is documented for half but not modelled
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c20, %c144, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: channelSize 20 (documented for 2-byte types) is not modelled

// -----

// channelSize 18 is not a documented value
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c18, %c144, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: channelSize 18 is not one of 4, 8, N*16, N*16+4, N*16+8: [load3dv2-channel-size-a2]

// -----

// strideW lies in [0, 63]
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c144, %c16, %c0, %c0, %c64, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: strideW = 64 is outside [0, 63]: [load3dv2-field-range]

// -----

// kStartPt is a multiple of C0
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c16, %c16, %c8, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: kStartPt 8 is not a multiple of 16: [load3dv2-kstart-c0]

// -----

// the columns loaded lie in the img2col matrix: 3 * 3 * 16 = 144
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c144, %c16, %c16, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: columns [16, 160) pass the img2col matrix's filterH * filterW * channelSize = 144: [load3dv2-inside-img2col]

// -----

// kExtension short of the last fractal is a multiple of C0
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f16>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c18, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.load_data_3dv2: kExtension 18 is not a multiple of 16 and does not reach the last fractal column (k_total = 144): [load3dv2-extension-multiple]

// -----

// a 3x3 filter does not fit an unpadded 1-wide map
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<f32>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.load_data_3dv2 %a, %l1, {[%c0, %c0, %c0, %c0], %c4, %c1, %c8, %c8, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.load_data_3dv2: the dilated filter does not fit the padded 4 x 1 feature map: Ho = 2, Wo = 0: [load3dv2-inside-img2col]

// -----

// int8 is documented but not modelled
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c144 = arith.constant 144 : index
  %c160 = arith.constant 160 : index
  %l1 = ascendc.local_tensor A1 address 0 size 4096 : !ascendc.local_tensor<i8>
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<i8>
  ascendc.load_data_3dv2 %a, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c16, %c144, %c16, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.load_data_3dv2: i8 is not modelled (modelled: f16, bf16, f32)

// -----

// Load3D.md (A2/A3): the L1 -> L0B path takes no 1-byte type
func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c288 = arith.constant 288 : index
  %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<i8>
  %b = ascendc.local_tensor B2 address 0 size 4096 : !ascendc.local_tensor<i8>
  ascendc.load_data_3dv2 %b, %l1, {[%c1, %c1, %c1, %c1], %c4, %c4, %c32, %c288, %c32, %c0, %c0, %c1, %c1, %c3, %c3, %c1, %c1} : !ascendc.local_tensor<i8>, !ascendc.local_tensor<i8>
  func.return
}
// CHECK: ascendc.load_data_3dv2: i8 is not a type Load3Dv2 moves into L0B (B2): Load3D.md lists half, bfloat16_t, int32_t, uint32_t and float there

// -----

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor C1 address 0 size 64 : !ascendc.local_tensor<bf16>
  %bt = ascendc.local_tensor C2 address 0 size 64 : !ascendc.local_tensor<f32>
  ascendc.data_copy_l1_bt %bt, %l1, {%i, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<bf16>
  func.return
}
// CHECK: ascendc.data_copy_l1_bt: DataCopy C1 -> C2 copies f32, i32 or f16 -> f32, not bf16 -> f32

// -----

func.func @f(%i: index) {
  %l1 = ascendc.local_tensor C1 address 0 size 64 : !ascendc.local_tensor<f32>
  %ub = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  ascendc.data_copy_l1_bt %ub, %l1, {%i, %i, %i, %i} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.data_copy_l1_bt: dst must be in C2, got VECCALC (UB)

// -----

func.func @f(%i: index) {
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  %bt = ascendc.local_tensor C2 address 0 size 64 : !ascendc.local_tensor<f32>
  %yes = arith.constant true
  ascendc.mmad %c, %a, %b bias %bt, {%i, %i, %i} init %yes : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.mmad: with a bias C starts from BiasTable; init must be false

// -----

// unitFlag 1 is reserved (UnitFlag.md: 2 and 3 enable it, 0 leaves it off)
func.func @f(%i: index, %f: i1) {
  %a = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %b = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.mmad %c, %a, %b, {%i, %i, %i} init %f unit_flag 1 : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>
  func.return
}
// CHECK: ascendc.mmad: unitFlag 1 is not one of 2 and 3

// -----

func.func @f(%g: !ascendc.gm_addr, %i: index) {
  %out = ascendc.global_tensor %g size 4096 : !ascendc.global_tensor<f16>
  %c = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
  ascendc.fixpipe %out, %c, {%i, %i, %i, %i} quant F322F16 unit_flag 4 : !ascendc.global_tensor<f16>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: ascendc.fixpipe: unitFlag 4 is not one of 2 and 3
