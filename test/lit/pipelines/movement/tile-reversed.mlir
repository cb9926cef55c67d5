// RUN: pyasc-opt %s -p to-tile | filecheck %s
// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s --check-prefix=ASC

// x[:, ::-1]: each tile row loads the row's run from its last column on; the gather table counts
// the columns backwards (a negative col_bytes)
func.func @r(%x: tensor<4x41xf16>) -> tensor<4x41xf16> {
  %s = asctensor.strided_slice %x offsets [0, 40] strides [1, -1] : tensor<4x41xf16> -> tensor<4x41xf16>
  func.return %s : tensor<4x41xf16>
}

// CHECK:      asctile.gather_offsets cols 41 col_bytes -2 row_bytes 96 : tensor<{{.*}}xi32>
// CHECK:      scf.for
// CHECK:        asctile.load %x[%{{.*}}] rows %{{.*}} cols %{{.*}} strides(41, 1)
// CHECK:        asctile.gather

// ASC:      ascendc.muls %[[T:.*]], %[[T]], %{{.*}} :
// ASC-NEXT: ascendc.pipe_barrier PIPE_V
// ASC-NEXT: %[[LAST:.*]] = arith.constant 80 : i32
// ASC-NEXT: ascendc.adds %[[T]], %[[T]], %[[LAST]], %{{.*}} :
