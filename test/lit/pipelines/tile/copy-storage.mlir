// RUN: pyasc-opt %s -p to-tile,bufferize | filecheck %s

// returned arguments of storage types are copied exactly without arithmetic on them:
// int8 through float16 and back, bool as a select of 1.0 or 0.0 compared with 0
func.func @i8(%x: tensor<64xi8>) -> tensor<64xi8> {
  func.return %x : tensor<64xi8>
}

// CHECK-LABEL: func.func @i8_k0(
// CHECK:         ascbuf.vcast %[[H:.*]], %{{.*}}, CAST_NONE, %{{.*}} : memref<1x64xf16, #ascbuf.space<ub>>, memref<1x64xi8, #ascbuf.space<ub>>
// CHECK:         ascbuf.vcast %{{.*}}, %[[H]], CAST_TRUNC, %{{.*}} : memref<1x64xi8, #ascbuf.space<ub>>, memref<1x64xf16, #ascbuf.space<ub>>
// CHECK-NOT:     ascbuf.vscalar

func.func @b(%x: tensor<64xi1>) -> tensor<64xi1> {
  func.return %x : tensor<64xi1>
}

// CHECK-LABEL: func.func @b_k0(
// CHECK:         ascbuf.vselect
// CHECK:         ascbuf.vcompare{{.*}}ne
// CHECK-NOT:     pyasc-opt: error
