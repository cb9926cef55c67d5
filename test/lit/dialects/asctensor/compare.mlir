// RUN: pyasc-opt %s | pyasc-opt | filecheck %s

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = asctensor.compare lt %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %r = asctensor.select %c, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK: asctensor.compare lt %{{.*}}, %{{.*}} : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: asctensor.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
