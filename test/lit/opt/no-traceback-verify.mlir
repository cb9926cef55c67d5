// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f() {
  ascendc.pipe_barrier PIPE_S
  func.return
}

// CHECK-NOT: Traceback
// CHECK:     PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware
