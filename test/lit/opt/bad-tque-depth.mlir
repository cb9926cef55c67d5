// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f() {
  %q = ascendc.tque : !ascendc.tque<VECIN, 0>
  func.return
}

// CHECK-NOT: Traceback
// CHECK:     TQue depth must be in 1..8 (QUE_MAX_EVENT), got 0
