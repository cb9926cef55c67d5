// RUN: pyasc-opt %s | pyasc-opt | filecheck %s

// asctensor.primal records a call (op name, attributes, operand layout, values); asctensor.vjp
// holds the records between its roots and its wrt values
func.func @f(%x: tensor<4x8xf32>, %ct: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = math.exp %x : tensor<4x8xf32>
  %g = asctensor.vjp of(%e) by(%ct) wrt(%x) {
    asctensor.primal "exp"(%x) -> (%e) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  } : (tensor<4x8xf32>), (tensor<4x8xf32>), (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %g : tensor<4x8xf32>
}

// CHECK:      %[[G:.*]] = asctensor.vjp of(%e) by(%ct) wrt(%x) {
// CHECK-NEXT:   asctensor.primal "exp"(%x) -> (%e) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
// CHECK-NEXT: } : (tensor<4x8xf32>), (tensor<4x8xf32>), (tensor<4x8xf32>) -> (tensor<4x8xf32>)
