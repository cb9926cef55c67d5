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

// @s1 differs from @s0 only in the sizes of its slices (their result types): it is another function and stays
func.func @s0(%a: tensor<3x11xf32>) -> tensor<3x11xf32> attributes {asctensor.kernel = "movement"} {
  %0 = asctensor.slice %a offsets [0, 0] : tensor<3x11xf32> -> tensor<3x1xf32>
  %1 = asctensor.slice %a offsets [0, 0] : tensor<3x11xf32> -> tensor<3x10xf32>
  %2 = asctensor.concat %0, %1 dim = 1 : tensor<3x1xf32>, tensor<3x10xf32> -> tensor<3x11xf32>
  func.return %2 : tensor<3x11xf32>
}
func.func @s1(%a: tensor<3x11xf32>) -> tensor<3x11xf32> attributes {asctensor.kernel = "movement"} {
  %0 = asctensor.slice %a offsets [0, 0] : tensor<3x11xf32> -> tensor<3x2xf32>
  %1 = asctensor.slice %a offsets [0, 0] : tensor<3x11xf32> -> tensor<3x9xf32>
  %2 = asctensor.concat %0, %1 dim = 1 : tensor<3x2xf32>, tensor<3x9xf32> -> tensor<3x11xf32>
  func.return %2 : tensor<3x11xf32>
}
func.func @shifts(%a: tensor<3x11xf32>) -> tensor<3x11xf32> {
  %0 = func.call @s0(%a) : (tensor<3x11xf32>) -> tensor<3x11xf32>
  %1 = func.call @s1(%0) : (tensor<3x11xf32>) -> tensor<3x11xf32>
  func.return %1 : tensor<3x11xf32>
}

// CHECK:       func.func @s0(
// CHECK:       func.func @s1(%a: tensor<3x11xf32>)
// CHECK-NEXT:    asctensor.slice %a offsets [0, 0] : tensor<3x11xf32> -> tensor<3x2xf32>
// CHECK:       func.func @shifts(
// CHECK-NEXT:    %[[A:.*]] = func.call @s0(%a)
// CHECK-NEXT:    func.call @s1(%[[A]])
