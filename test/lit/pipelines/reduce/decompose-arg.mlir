// RUN: pyasc-opt %s -p asctensor-decompose | filecheck %s

// argmax over a leading axis: the axis is viewed as groups of eight consecutive entries; each step
// keeps the running (value, index) unless the next entry is strictly greater, so ties keep the
// first index; the offsets inside a group are constants. A NaN wins over every number and the
// first NaN over a later one (PyTorch), chosen by two more selects where the next entry is NaN
func.func @lead(%x: tensor<16x3xf32>) -> tensor<3xi32> {
  %y = asctensor.arg_reduce max %x axis 0 : tensor<16x3xf32> -> tensor<3xi32>
  func.return %y : tensor<3xi32>
}

// CHECK-LABEL: func.func @lead(
// CHECK:         %[[G:.*]] = asctensor.reshape %x : tensor<16x3xf32> -> tensor<2x8x3xf32>
// CHECK-NEXT:    %[[V0:.*]] = asctensor.slice %[[G]] offsets [0, 0, 0] : tensor<2x8x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT:    %[[I0:.*]] = asctensor.full 0 : i32 -> tensor<2x1x3xi32>
// CHECK-NEXT:    %[[V1:.*]] = asctensor.slice %[[G]] offsets [0, 1, 0] : tensor<2x8x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT:    %[[I1:.*]] = asctensor.full 1 : i32 -> tensor<2x1x3xi32>
// CHECK-NEXT:    %[[T:.*]] = asctensor.compare gt %[[V1]], %[[V0]] : tensor<2x1x3xf32> -> tensor<2x1x3xi1>
// CHECK-NEXT:    %[[W:.*]] = asctensor.select %[[T]], %[[V1]], %[[V0]] : tensor<2x1x3xi1>, tensor<2x1x3xf32>
// CHECK-NEXT:    %[[J:.*]] = asctensor.select %[[T]], %[[I1]], %[[I0]] : tensor<2x1x3xi1>, tensor<2x1x3xi32>
// CHECK-NEXT:    %[[N1:.*]] = asctensor.compare ne %[[V1]], %[[V1]] : tensor<2x1x3xf32> -> tensor<2x1x3xi1>
// CHECK-NEXT:    %[[N0:.*]] = asctensor.compare ne %[[V0]], %[[V0]] : tensor<2x1x3xf32> -> tensor<2x1x3xi1>
// CHECK-NEXT:    %[[FN:.*]] = asctensor.select %[[N0]], %[[I0]], %[[I1]] : tensor<2x1x3xi1>, tensor<2x1x3xi32>
// CHECK-NEXT:    %{{.*}} = asctensor.select %[[N1]], %[[V1]], %[[W]] : tensor<2x1x3xi1>, tensor<2x1x3xf32>
// CHECK-NEXT:    %{{.*}} = asctensor.select %[[N1]], %[[FN]], %[[J]] : tensor<2x1x3xi1>, tensor<2x1x3xi32>
// the second level adds the group's offset (8) to the carried index
// CHECK:         %[[C8:.*]] = asctensor.full 8 : i32 -> tensor<1x1x3xi32>
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %[[C8]] : tensor<1x1x3xi32>
// CHECK:         %[[Y:.*]] = asctensor.reshape %{{.*}} : tensor<1x3xi32> -> tensor<3xi32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3xi32>

// a last axis longer than UB: pieces of 4096 reduced with their index, then combined by the tree
// with offsets in units of the piece length
func.func @long(%x: tensor<2x65536xf32>) -> tensor<2xi32> {
  %y = asctensor.arg_reduce min %x axis 1 : tensor<2x65536xf32> -> tensor<2xi32>
  func.return %y : tensor<2xi32>
}

// CHECK-LABEL: func.func @long(
// CHECK-NEXT:    %[[P:.*]] = asctensor.reshape %x : tensor<2x65536xf32> -> tensor<2x16x4096xf32>
// CHECK-NEXT:    %[[V:.*]] = asctensor.reduce min %[[P]] axes [2] : tensor<2x16x4096xf32> -> tensor<2x16xf32>
// CHECK-NEXT:    %[[I:.*]] = asctensor.arg_reduce min %[[P]] axis 2 : tensor<2x16x4096xf32> -> tensor<2x16xi32>
// CHECK:         asctensor.full 4096 : i32
// CHECK:         asctensor.compare lt
// CHECK:         asctensor.full 32768 : i32
// CHECK:         func.return %{{.*}} : tensor<2xi32>
