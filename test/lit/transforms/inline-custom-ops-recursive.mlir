// RUN: not pyasc-opt %s -p inline-custom-ops 2>&1 | filecheck %s

// a decomposition that calls itself through another custom op would be inlined forever: refused, with the cycle
func.func private @ping_0(%x: tensor<8xf32>) -> tensor<8xf32> attributes {pyasc.custom_op = "ping"} {
  %0 = func.call @pong_1(%x) {pyasc.custom_op = "pong"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
func.func private @pong_1(%x: tensor<8xf32>) -> tensor<8xf32> attributes {pyasc.custom_op = "pong"} {
  %0 = asctensor.sigmoid %x : tensor<8xf32>
  %1 = func.call @ping_0(%0) {pyasc.custom_op = "ping"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %1 : tensor<8xf32>
}
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @ping_0(%a) {pyasc.custom_op = "ping"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// CHECK: inline-custom-ops: the decomposition of custom op "ping" (@ping_0) calls itself (@ping_0 -> @pong_1 -> @ping_0): it cannot be inlined
// CHECK-NOT: Traceback
