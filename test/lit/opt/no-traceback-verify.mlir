// XFAIL: *
// BUG: a verifier error on input IR (without --verify-diagnostics) is printed as a Python
// traceback ending in "xdsl.utils.exceptions.VerifyException: ..." (then the IR), not as a
// diagnostic; see no-traceback-parse.mlir.
// RUN: not pyasc-opt %s 2>&1 | filecheck %s

func.func @f() {
  ascendc.pipe_barrier PIPE_S
  func.return
}

// CHECK-NOT: Traceback
// CHECK:     PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware
