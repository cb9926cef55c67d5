// RUN: pyasc-opt %s --split-input-file -p 'tile-elementwise{tile_size=2048 cores=2}' | filecheck %s

// a row prologue over one row: the pieces' maxima are loaded and reduced once, before the loop, and
// the row max is spread over a whole tile there; the loop only loads x
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @one_k0(%mp: tensor<1x64x1xf32>, %x: tensor<1x65536xf32>) -> tensor<1x65536xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = asctensor.reshape %mp : tensor<1x64x1xf32> -> tensor<1x64xf32>
    %1 = asctensor.reduce max %0 axes [1] keepdims : tensor<1x64xf32> -> tensor<1x1xf32>
    %2 = asctensor.broadcast %1 : tensor<1x1xf32> -> tensor<1x65536xf32>
    %3 = arith.subf %x, %2 : tensor<1x65536xf32>
    func.return %3 : tensor<1x65536xf32>
  }
  func.func @one(%mp: tensor<1x64x1xf32>, %x: tensor<1x65536xf32>) -> tensor<1x65536xf32> {
    %0 = func.call @one_k0(%mp, %x) : (tensor<1x64x1xf32>, tensor<1x65536xf32>) -> tensor<1x65536xf32>
    func.return %0 : tensor<1x65536xf32>
  }
}

// CHECK-LABEL: func.func @one_k0(
// CHECK:         %[[W:.*]] = arith.constant 64 : index
// CHECK:         %[[P:.*]] = asctile.load %mp[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(0, 1) : memref<1x64x1xf32> -> tensor<1x64xf32>
// CHECK-NEXT:    %[[M:.*]] = asctile.reduce max %[[P]] cols %[[W]] : tensor<1x64xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[B:.*]] = asctile.row_broadcast %[[M]] : tensor<1x8xf32> -> tensor<1x2048xf32>
// CHECK-NEXT:    scf.for %i =
// CHECK:           %[[X:.*]] = asctile.load %x[
// CHECK-NEXT:      arith.subf %[[X]], %[[B]] : tensor<1x2048xf32>
// CHECK-NOT:       asctile.reduce

// -----

// over several rows the prologue runs for the rows of each tile: the tile's row of the pieces'
// maxima (row stride 64) is loaded and reduced in the loop
builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @rows_k0(%mp: tensor<4x64x1xf32>, %x: tensor<4x65536xf32>) -> tensor<4x65536xf32> attributes {asctensor.kernel = "elementwise"} {
    %0 = asctensor.reshape %mp : tensor<4x64x1xf32> -> tensor<4x64xf32>
    %1 = asctensor.reduce max %0 axes [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
    %2 = asctensor.broadcast %1 : tensor<4x1xf32> -> tensor<4x65536xf32>
    %3 = arith.subf %x, %2 : tensor<4x65536xf32>
    func.return %3 : tensor<4x65536xf32>
  }
  func.func @rows(%mp: tensor<4x64x1xf32>, %x: tensor<4x65536xf32>) -> tensor<4x65536xf32> {
    %0 = func.call @rows_k0(%mp, %x) : (tensor<4x64x1xf32>, tensor<4x65536xf32>) -> tensor<4x65536xf32>
    func.return %0 : tensor<4x65536xf32>
  }
}

// CHECK-LABEL: func.func @rows_k0(
// CHECK:         scf.for %i =
// CHECK:           %[[P:.*]] = asctile.load %mp[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(64, 1) : memref<4x64x1xf32> -> tensor<1x64xf32>
// CHECK:           %[[M:.*]] = asctile.reduce max %[[P]] cols %{{.*}} : tensor<1x64xf32> -> tensor<1x8xf32>
// CHECK-NEXT:      %[[B:.*]] = asctile.row_broadcast %[[M]] : tensor<1x8xf32> -> tensor<1x2048xf32>
// CHECK-NEXT:      arith.subf %{{.*}}, %[[B]] : tensor<1x2048xf32>
