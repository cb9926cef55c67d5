// RUN: pyasc-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @wrong_cotangent(%x: tensor<4x8xf32>, %ct: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = asctensor.vjp of(%x) by(%ct) wrt(%x) {
    asctensor.primal "neg"(%x) -> (%x) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  } : (tensor<4x8xf32>), (tensor<8xf32>), (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %g : tensor<4x8xf32>
}
// CHECK: asctensor.vjp: cotangent tensor<8xf32> for a root of type tensor<4x8xf32>

// -----

func.func @int_input(%x: tensor<8xi32>, %ct: tensor<8xi32>) -> tensor<8xi32> {
  %g = asctensor.vjp of(%x) by(%ct) wrt(%x) {
    asctensor.primal "neg"(%x) -> (%x) attrs "{}" layout "['%']" : (tensor<8xi32>) -> (tensor<8xi32>)
  } : (tensor<8xi32>), (tensor<8xi32>), (tensor<8xi32>) -> (tensor<8xi32>)
  func.return %g : tensor<8xi32>
}
// CHECK: asctensor.vjp does not support element type i32

// -----

func.func @other_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  %g = asctensor.vjp of(%x) by(%x) wrt(%x) {
    %y = math.exp %x : tensor<8xf32>
  } : (tensor<8xf32>), (tensor<8xf32>), (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %g : tensor<8xf32>
}
// CHECK: asctensor.vjp: its body holds asctensor.primal records only, not math.exp
