// RUN: pyasc-opt %s -p asctensor-fuse-matmul | filecheck %s

// a matmul with a following ReLU becomes one cube kernel; the bias is split off as a vector epilogue
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %bias: tensor<48xf16>) -> tensor<64x48xf16> {
  %0 = asctensor.matmul %a, %b bias %bias : tensor<64x32xf16>, tensor<32x48xf16>, tensor<48xf16> -> tensor<64x48xf16>
  %z = asctensor.full 0.0 : f16 -> tensor<64x48xf16>
  %1 = asctensor.matmul %a, %b : tensor<64x32xf16>, tensor<32x48xf16> -> tensor<64x48xf16>
  %2 = arith.maximumf %1, %z : tensor<64x48xf16>
  %3 = arith.addf %0, %2 : tensor<64x48xf16>
  func.return %3 : tensor<64x48xf16>
}
// CHECK:      func.func @f_mm0(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   %{{.*}} = asctensor.matmul %a, %b : tensor<64x32xf16>, tensor<32x48xf16> -> tensor<64x48xf16>
// CHECK-NEXT:   func.return
// CHECK:      func.func @f_mm1(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> attributes {asctensor.kernel = "matmul"} {
// CHECK-NEXT:   %[[M:.*]] = asctensor.matmul %a, %b
// CHECK-NEXT:   asctensor.full
// CHECK-NEXT:   %[[R:.*]] = arith.maximumf %[[M]]
// CHECK-NEXT:   func.return %[[R]]
// CHECK:      func.func @f(
// CHECK:        %[[C0:.*]] = func.call @f_mm0(%a, %b)
// CHECK-NEXT:   %[[B:.*]] = asctensor.broadcast %bias : tensor<48xf16> -> tensor<64x48xf16>
// CHECK-NEXT:   %[[A:.*]] = arith.addf %[[C0]], %[[B]]
// CHECK:        %[[C1:.*]] = func.call @f_mm1(%a, %b)
// CHECK-NEXT:   arith.addf %[[A]], %[[C1]]
