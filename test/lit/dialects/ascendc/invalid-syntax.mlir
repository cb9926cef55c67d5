// RUN: pyasc-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func @f(%i: index) {
  ascendc.set_flag MTE2_MTE2, %i
  func.return
}
// CHECK: invalid-syntax.mlir:4:20
// CHECK: Expected `MTE2_MTE1`,

// -----

func.func @f() {
  ascendc.pipe_barrier PIPE_X
  func.return
}
// CHECK: Expected `PIPE_S`, `PIPE_V`, `PIPE_M`, `PIPE_MTE1`, `PIPE_MTE2`, `PIPE_MTE3`, `PIPE_FIX`, or `PIPE_ALL`.

// -----

func.func @f() {
  %t = ascendc.local_tensor UB address 0 size 64 : !ascendc.local_tensor<f16>
  func.return
}
// CHECK: Expected `GM`, `VECIN`, `VECOUT`, `VECCALC`, `A1`, `A2`, `B1`, `B2`, `CO1`, `CO2`, `C1`, or `C2`.

// -----

func.func @f(%n: index) {
  %a = ascendc.local_tensor VECCALC address 0 size 64 : !ascendc.local_tensor<f32>
  ascendc.cast %a, %a, CAST_UP, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
  func.return
}
// CHECK: Expected `CAST_NONE`, `CAST_RINT`, `CAST_FLOOR`, `CAST_CEIL`, `CAST_ROUND`, `CAST_TRUNC`, or `CAST_ODD`.
