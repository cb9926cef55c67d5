// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %c8 = arith.constant 8 : index
  ascendc.set_flag MTE2_V, %c8
  func.return
}
// CHECK: Operation does not verify: ascendc.set_flag event id 8 is out of range 0..7

// -----

func.func @f() {
  %m = arith.constant -1 : index
  ascendc.wait_flag V_MTE3, %m
  func.return
}
// CHECK: Operation does not verify: ascendc.wait_flag event id -1 is out of range 0..7

// -----

func.func @f() {
  ascendc.pipe_barrier PIPE_S
  func.return
}
// CHECK: Operation does not verify: PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware

// -----

func.func @f(%a: memref<64xf32>) {
  ascendc.launch @k<<<0>>>(%a) : memref<64xf32>
  func.return
}
// CHECK: Operation does not verify: block_dim must be in 1..65535, got 0

// -----

func.func @f(%a: memref<64xf32>) {
  ascendc.launch @k<<<65536>>>(%a) : memref<64xf32>
  func.return
}
// CHECK: Operation does not verify: block_dim must be in 1..65535, got 65536
