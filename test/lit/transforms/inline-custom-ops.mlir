// RUN: pyasc-opt %s -p inline-custom-ops | filecheck %s

// a call of a user-defined op (marked pyasc.custom_op) becomes a copy of its decomposition, also
// inside another op's decomposition; the private functions holding them are dropped, other calls stay
func.func private @swish_0(%x: tensor<8xf32>) -> tensor<8xf32> attributes {pyasc.custom_op = "swish"} {
  %0 = asctensor.sigmoid %x : tensor<8xf32>
  %1 = arith.mulf %x, %0 : tensor<8xf32>
  func.return %1 : tensor<8xf32>
}
func.func private @twice_1(%x: tensor<8xf32>) -> tensor<8xf32> attributes {pyasc.custom_op = "twice"} {
  %0 = func.call @swish_0(%x) {pyasc.custom_op = "swish"} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = arith.addf %0, %0 : tensor<8xf32>
  func.return %1 : tensor<8xf32>
}
func.func private @other(tensor<8xf32>) -> tensor<8xf32>
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @twice_1(%a) {pyasc.custom_op = "twice"} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @other(%0) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %1 : tensor<8xf32>
}

// CHECK-NOT:   @swish_0
// CHECK-NOT:   @twice_1
// CHECK-LABEL: func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    %[[S:.*]] = asctensor.sigmoid %a : tensor<8xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %a, %[[S]] : tensor<8xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[M]], %[[M]] : tensor<8xf32>
// CHECK-NEXT:    %[[O:.*]] = func.call @other(%[[T]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[O]] : tensor<8xf32>
// CHECK-NOT:   pyasc.custom_op
