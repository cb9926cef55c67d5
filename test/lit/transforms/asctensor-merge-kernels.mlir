// RUN: pyasc-opt %s -p asctensor-merge-kernels | filecheck %s

// @p1 repeats @p0 (its name aside): its call calls @p0 and it is erased. @p2 differs in its source location,
// @p3 in its body and @p4 in its kind: they stay, and so do their calls
func.func @p0(%a: tensor<17x11xi8>, %b: tensor<17x11xi8>) -> tensor<17x17xi32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b transpose_b {asc.loc = "f.py:3"} : tensor<17x11xi8>, tensor<17x11xi8> -> tensor<17x17xi32>
  func.return %0 : tensor<17x17xi32>
}
func.func @p1(%x: tensor<17x11xi8>, %y: tensor<17x11xi8>) -> tensor<17x17xi32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %x, %y transpose_b {asc.loc = "f.py:3"} : tensor<17x11xi8>, tensor<17x11xi8> -> tensor<17x17xi32>
  func.return %0 : tensor<17x17xi32>
}
func.func @p2(%a: tensor<17x11xi8>, %b: tensor<17x11xi8>) -> tensor<17x17xi32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b transpose_b {asc.loc = "f.py:4"} : tensor<17x11xi8>, tensor<17x11xi8> -> tensor<17x17xi32>
  func.return %0 : tensor<17x17xi32>
}
func.func @p3(%a: tensor<17x11xi8>, %b: tensor<17x11xi8>) -> tensor<17x17xi32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %b, %a transpose_b {asc.loc = "f.py:3"} : tensor<17x11xi8>, tensor<17x11xi8> -> tensor<17x17xi32>
  func.return %0 : tensor<17x17xi32>
}
func.func @p4(%a: tensor<17x11xi8>, %b: tensor<17x11xi8>) -> tensor<17x17xi32> attributes {asctensor.kernel = "mix"} {
  %0 = asctensor.matmul %a, %b transpose_b {asc.loc = "f.py:3"} : tensor<17x11xi8>, tensor<17x11xi8> -> tensor<17x17xi32>
  func.return %0 : tensor<17x17xi32>
}
func.func @host(%a: tensor<17x11xi8>, %b: tensor<17x11xi8>) -> tensor<17x17xi32> {
  %0 = func.call @p0(%a, %b) : (tensor<17x11xi8>, tensor<17x11xi8>) -> tensor<17x17xi32>
  %1 = func.call @p1(%b, %a) : (tensor<17x11xi8>, tensor<17x11xi8>) -> tensor<17x17xi32>
  %2 = func.call @p2(%a, %b) : (tensor<17x11xi8>, tensor<17x11xi8>) -> tensor<17x17xi32>
  %3 = func.call @p3(%a, %b) : (tensor<17x11xi8>, tensor<17x11xi8>) -> tensor<17x17xi32>
  %4 = func.call @p4(%a, %b) : (tensor<17x11xi8>, tensor<17x11xi8>) -> tensor<17x17xi32>
  %5 = arith.addi %0, %1 : tensor<17x17xi32>
  %6 = arith.addi %5, %2 : tensor<17x17xi32>
  %7 = arith.addi %6, %3 : tensor<17x17xi32>
  %8 = arith.addi %7, %4 : tensor<17x17xi32>
  func.return %8 : tensor<17x17xi32>
}
// CHECK:       func.func @p0(
// CHECK-NOT:   func.func @p1(
// CHECK:       func.func @p2(
// CHECK:       func.func @p3(
// CHECK:       func.func @p4(
// CHECK:       func.func @host(
// CHECK-NEXT:    %{{.*}} = func.call @p0(%a, %b)
// CHECK-NEXT:    %{{.*}} = func.call @p0(%b, %a)
// CHECK-NEXT:    %{{.*}} = func.call @p2(%a, %b)
// CHECK-NEXT:    %{{.*}} = func.call @p3(%a, %b)
// CHECK-NEXT:    %{{.*}} = func.call @p4(%a, %b)
