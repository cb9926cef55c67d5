// RUN: not pyasc-opt %s 2>&1 | filecheck %s

// a verifier error without --verify-diagnostics still exits non-zero with the message
func.func @f() {
  ascendc.pipe_barrier PIPE_S
  func.return
}

// CHECK:     PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware
