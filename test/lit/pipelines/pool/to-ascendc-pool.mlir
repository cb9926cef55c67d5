// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc | filecheck %s
// RUN: pyasc-opt %s -p to-tile,to-buf,to-ascendc -t ascendc | filecheck %s --check-prefix=CPP

// a 3x3 max pool, stride 2, padding 1, as one kernel: the table of kernel column 0 starts at -1 (CreateVecIndex),
// whose lanes below 0 repeat column 0 (Maxs), then Mins and Muls; kernel column 2's starts at 0. In the loop: the
// three clamped row loads, two Max, the Gather of column 0, the GatherMask of column 1 (the even columns: pattern
// 1, every row a repeat), the Gather of column 2, two Max and the store
func.func @p(%x: tensor<2x3x9x9xf16>) -> tensor<2x3x5x5xf16> {
  %0 = asctensor.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16> -> tensor<2x3x5x5xf16>
  func.return %0 : tensor<2x3x5x5xf16>
}

// CHECK:      %[[M1:.*]] = arith.constant -1 : i32
// CHECK-NEXT: ascendc.create_vec_index %[[T:.*]], %[[M1]], %{{.*}} : !ascendc.local_tensor<i32>, i32
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: ascendc.maxs %[[T]], %[[T]], %[[Z]]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK:      ascendc.mins %[[T]], %[[T]]
// CHECK:      scf.for
// CHECK-COUNT-3: ascendc.data_copy_pad
// CHECK:        ascendc.gather
// CHECK:        ascendc.gather_mask %{{.*}}, %{{.*}} pattern 1 reduce_mode 1
// CHECK:        ascendc.gather
// CHECK:        ascendc.data_copy_pad

// CPP:      AscendC::CreateVecIndex({{.*}}, -1, {{.*}});
// CPP:      AscendC::Maxs(
// CPP:      AscendC::Gather(
// CPP:      AscendC::GatherMask<half>({{.*}}, static_cast<uint8_t>(1), true,
// CPP:      AscendC::Gather(
