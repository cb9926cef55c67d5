// RUN: pyasc-opt %s -p 'tile-elementwise{tile_size=2048 cores=2},to-buf{sync_style=flags}' | filecheck %s

// a row prologue computed once before the loop: the vector pipe reduces the loaded maxima only after
// the copy (a barrier), and the scalar unit reads the row max (GetValue, to spread it over a tile)
// only after the vector pipe wrote it (a V -> S flag pair)
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
// CHECK:         ascbuf.copy_in %mp
// CHECK-NEXT:    ascbuf.barrier ALL
// CHECK:         ascbuf.vreduce max
// CHECK:         ascbuf.set_flag V -> S
// CHECK-NEXT:    ascbuf.wait_flag V -> S
// CHECK:         scf.for
