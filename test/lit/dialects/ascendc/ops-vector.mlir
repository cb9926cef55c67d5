// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @vec(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  %b = ascendc.local_tensor VECIN address 256 size 64 : !ascendc.local_tensor<f32>
  %c = ascendc.local_tensor VECIN address 512 size 64 : !ascendc.local_tensor<f32>
  %h = ascendc.local_tensor VECOUT address 768 size 64 : !ascendc.local_tensor<f16>
  %bf = ascendc.local_tensor VECCALC address 1024 size 64 : !ascendc.local_tensor<bf16>
  %i0 = ascendc.local_tensor VECCALC address 1280 size 64 : !ascendc.local_tensor<i32>
  %i1 = ascendc.local_tensor VECCALC address 1536 size 64 : !ascendc.local_tensor<i32>
  %q = ascendc.local_tensor VECCALC address 1792 size 64 : !ascendc.local_tensor<i8>
  %s = arith.constant 0.5 : f32
  %sh = arith.constant -1.0 : f16
  %si = arith.constant 7 : i32
  ascendc.add %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.sub %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.mul %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.div %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.max %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.min %a, %b, %c, %n : !ascendc.local_tensor<f32>
  ascendc.exp %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.ln %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.abs %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.sqrt %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.rsqrt %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.reciprocal %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.relu %a, %b, %n : !ascendc.local_tensor<f32>
  ascendc.adds %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
  ascendc.muls %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
  ascendc.maxs %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
  ascendc.mins %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
  ascendc.add %i0, %i1, %i1, %n : !ascendc.local_tensor<i32>
  ascendc.relu %i0, %i1, %n : !ascendc.local_tensor<i32>
  ascendc.muls %h, %h, %sh, %n : !ascendc.local_tensor<f16>, f16
  ascendc.duplicate %a, %s, %n : !ascendc.local_tensor<f32>, f32
  ascendc.duplicate %i0, %si, %n : !ascendc.local_tensor<i32>, i32
  ascendc.cast %a, %h, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
  ascendc.cast %h, %a, CAST_RINT, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
  ascendc.cast %i0, %a, CAST_TRUNC, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<f32>
  ascendc.cast %a, %i0, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<i32>
  ascendc.cast %a, %bf, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<bf16>
  ascendc.cast %bf, %a, CAST_RINT, %n : !ascendc.local_tensor<bf16>, !ascendc.local_tensor<f32>
  ascendc.cast %h, %i0, CAST_ROUND, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<i32>
  ascendc.cast %i0, %h, CAST_FLOOR, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<f16>
  ascendc.cast %q, %h, CAST_TRUNC, %n : !ascendc.local_tensor<i8>, !ascendc.local_tensor<f16>
  ascendc.cast %h, %q, CAST_NONE, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<i8>
  func.return
}

// CHECK-LABEL: func.func @vec(%n: index) {
// CHECK:         %si = arith.constant 7 : i32
// CHECK-NEXT:    ascendc.add %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.sub %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.mul %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.div %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.max %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.min %a, %b, %c, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.exp %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.ln %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.abs %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.sqrt %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.rsqrt %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.reciprocal %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.relu %a, %b, %n : !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.adds %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    ascendc.muls %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    ascendc.maxs %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    ascendc.mins %a, %b, %s, %n : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    ascendc.add %i0, %i1, %i1, %n : !ascendc.local_tensor<i32>
// CHECK-NEXT:    ascendc.relu %i0, %i1, %n : !ascendc.local_tensor<i32>
// CHECK-NEXT:    ascendc.muls %h, %h, %sh, %n : !ascendc.local_tensor<f16>, f16
// CHECK-NEXT:    ascendc.duplicate %a, %s, %n : !ascendc.local_tensor<f32>, f32
// CHECK-NEXT:    ascendc.duplicate %i0, %si, %n : !ascendc.local_tensor<i32>, i32
// CHECK-NEXT:    ascendc.cast %a, %h, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.cast %h, %a, CAST_RINT, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.cast %i0, %a, CAST_TRUNC, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.cast %a, %i0, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<i32>
// CHECK-NEXT:    ascendc.cast %a, %bf, CAST_NONE, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<bf16>
// CHECK-NEXT:    ascendc.cast %bf, %a, CAST_RINT, %n : !ascendc.local_tensor<bf16>, !ascendc.local_tensor<f32>
// CHECK-NEXT:    ascendc.cast %h, %i0, CAST_ROUND, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<i32>
// CHECK-NEXT:    ascendc.cast %i0, %h, CAST_FLOOR, %n : !ascendc.local_tensor<i32>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.cast %q, %h, CAST_TRUNC, %n : !ascendc.local_tensor<i8>, !ascendc.local_tensor<f16>
// CHECK-NEXT:    ascendc.cast %h, %q, CAST_NONE, %n : !ascendc.local_tensor<f16>, !ascendc.local_tensor<i8>
// CHECK-NEXT:    func.return

// GENERIC: "ascendc.add"(%a, %b, %c, %n) : (!ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>, index) -> ()
// GENERIC: "ascendc.adds"(%a, %b, %s, %n) : (!ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>, f32, index) -> ()
// GENERIC: "ascendc.duplicate"(%a, %s, %n) : (!ascendc.local_tensor<f32>, f32, index) -> ()
// GENERIC: "ascendc.cast"(%a, %h, %n) <{round_mode = #ascendc<round_mode CAST_NONE>}> : (!ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, index) -> ()
// GENERIC: "ascendc.cast"(%i0, %a, %n) <{round_mode = #ascendc<round_mode CAST_TRUNC>}>
