// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a chain of same-shape elementwise ops becomes one kernel called once from the host
func.func @chain(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> {
  %0 = arith.mulf %x, %y : tensor<1024xf16>
  %1 = math.exp %0 : tensor<1024xf16>
  %2 = arith.addf %1, %x : tensor<1024xf16>
  func.return %2 : tensor<1024xf16>
}

// CHECK:       func.func @chain_k0(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %y : tensor<1024xf16>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<1024xf16>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[E]], %x : tensor<1024xf16>
// CHECK-NEXT:    func.return %[[A]] : tensor<1024xf16>
// CHECK-NEXT:  }
// CHECK-NOT:   func.func @chain_k1
// CHECK:       func.func @chain(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> {
// CHECK-NEXT:    %[[R:.*]] = func.call @chain_k0(%x, %y) : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<1024xf16>
// CHECK-NEXT:  }
