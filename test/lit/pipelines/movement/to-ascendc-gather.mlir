// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s
// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc -t ascendc | filecheck %s --check-prefix=CPP

// a step of 2 on the last dim: one run of 2 * cols - 1 per tile row, gathered every other element;
// the table is CreateVecIndex, Mins (lanes past the valid columns), Muls and log2(rows) Adds
func.func @s(%x: tensor<4x41xf16>) -> tensor<4x20xf16> {
  %s = asctensor.strided_slice %x offsets [0, 1] strides [1, 2] : tensor<4x41xf16> -> tensor<4x20xf16>
  func.return %s : tensor<4x20xf16>
}

// CHECK:      ascendc.create_vec_index %[[T:.*]], %{{.*}}, %{{.*}} : !ascendc.local_tensor<i32>, i32
// CHECK:      ascendc.pipe_barrier PIPE_V
// CHECK:      ascendc.mins %[[T]], %[[T]]
// CHECK:      ascendc.pipe_barrier PIPE_V
// CHECK:      ascendc.muls %[[T]], %[[T]]
// CHECK:      ascendc.adds
// CHECK:      ascendc.pipe_barrier PIPE_V
// CHECK:      scf.for
// CHECK:        ascendc.data_copy_pad
// CHECK:        %[[U:.*]] = ascendc.reinterpret_cast %{{.*}} : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<ui32>
// CHECK:        ascendc.gather %{{.*}}, %{{.*}}, %[[U]]

// CPP:      AscendC::CreateVecIndex(
// CPP:      AscendC::Gather(
