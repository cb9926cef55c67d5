// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECIN, 0>
  func.return
}
// CHECK: TQue depth must be in 1..8 (QUE_MAX_EVENT), got 0

// -----

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECOUT, 9>
  func.return
}
// CHECK: TQue depth must be in 1..8 (QUE_MAX_EVENT), got 9

// -----

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECCALC, 2>
  func.return
}
// CHECK: TQue position VECCALC is not a queue position

// -----

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<GM, 1>
  func.return
}
// CHECK: TQue position GM is not a queue position

// -----

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECIN, 8>
  func.return
}
// CHECK-NOT: TQue depth
// CHECK: %q = ascendc.tque : !ascendc.tque<VECIN, 8>

// -----

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECOUT -> VECIN, 1>
  func.return
}
// CHECK: TQueBind<VECOUT, VECIN> is not supported (supported: <VECIN, VECOUT>)
