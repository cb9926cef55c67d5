// RUN: not pyasc-opt %s -p 'asctensor-autodiff{function="no_rule" wrt=0}' 2>&1 | filecheck %s --check-prefix=NORULE
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{function="unknown" wrt=0}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{function="bad_record" wrt=0}' 2>&1 | filecheck %s --check-prefix=RECORD
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{function="nope" wrt=0}' 2>&1 | filecheck %s --check-prefix=NOFUNC
// RUN: not pyasc-opt %s -p 'asctensor-autodiff{wrt=0}' 2>&1 | filecheck %s --check-prefix=WHICH

// asctensor-autodiff names the op it cannot differentiate, and the call's line when recorded
func.func @no_rule(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = arith.mulf %x, %x : tensor<4x8xf32>
  asctensor.primal "leaky_relu"(%x) -> (%p) attrs "{'negative_slope': 0.01}" layout "['%']" {asc.loc = "model.py:12"} : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %p : tensor<4x8xf32>
}
// NORULE: asctensor-autodiff: pyasc.leaky_relu: has no gradient rule (vjp), so it cannot be differentiated{{.*}}[shapes (4, 8); dtypes float32] (at model.py:12)

func.func @unknown(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = arith.mulf %x, %x : tensor<4x8xf32>
  asctensor.primal "frobnicate"(%x) -> (%p) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %p : tensor<4x8xf32>
}
// UNKNOWN: asctensor-autodiff: pyasc.frobnicate: is not an op of the tensor API nor a registered custom op

func.func @bad_record(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %p = asctensor.matmul %x, %x transpose_b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  asctensor.primal "matmul"(%x, %x) -> (%p) attrs "{}" layout "['%', '%']" : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x4xf32>)
  func.return %p : tensor<4x4xf32>
}
// RECORD: asctensor-autodiff: pyasc.matmul: its gradient rule failed on the recorded call (does the record match the op's definition?)

// NOFUNC: asctensor-autodiff: no function named 'nope'
// WHICH: asctensor-autodiff: 3 public functions; name the one to differentiate with function=<name>
