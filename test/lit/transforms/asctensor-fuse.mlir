// RUN: pyasc-opt %s -p asctensor-fuse | filecheck %s

// a chain of same-shape elementwise ops becomes one kernel called once from the host
func.func @chain(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> {
  %0 = arith.mulf %x, %y : tensor<1024xf16>
  %1 = math.exp %0 : tensor<1024xf16>
  %2 = arith.addf %1, %x : tensor<1024xf16>
  func.return %2 : tensor<1024xf16>
}

// CHECK:       func.func @chain_k0(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %x, %y : tensor<1024xf16>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<1024xf16>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[E]], %x : tensor<1024xf16>
// CHECK-NEXT:    func.return %[[A]] : tensor<1024xf16>
// CHECK-NEXT:  }
// CHECK-NOT:   func.func @chain_k1
// CHECK:       func.func @chain(%x: tensor<1024xf16>, %y: tensor<1024xf16>) -> tensor<1024xf16> {
// CHECK-NEXT:    %[[R:.*]] = func.call @chain_k0(%x, %y) : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<1024xf16>
// CHECK-NEXT:  }

// a whole-tensor sum of values that read a bias broadcast over part of the row: the elementwise ops
// and the reduction are two kernels (a row-wise kernel reads whole rows or one value per row)
func.func @part_row(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = asctensor.broadcast %b : tensor<8xf32> -> tensor<4x8xf32>
  %1 = arith.addf %x, %0 : tensor<4x8xf32>
  %2 = asctensor.reduce sum %1 axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  func.return %2 : tensor<f32>
}

// CHECK:       func.func @part_row_k0(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK:       func.func @part_row_k1(%{{.*}}: tensor<4x8xf32>) -> tensor<f32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reduce sum

// a whole-tensor sum of the maximum of two windows of a bigger tensor (slices of a max pool's windows): a
// window's elements are not one run along the row, so the maximum and the sum are two kernels
func.func @window_row(%w: tensor<2x2x3x4xf32>) -> tensor<f32> {
  %0 = asctensor.slice %w offsets [0, 0, 0, 0] : tensor<2x2x3x4xf32> -> tensor<2x1x3x4xf32>
  %1 = asctensor.reshape %0 : tensor<2x1x3x4xf32> -> tensor<2x3x4xf32>
  %2 = asctensor.slice %w offsets [0, 1, 0, 0] : tensor<2x2x3x4xf32> -> tensor<2x1x3x4xf32>
  %3 = asctensor.reshape %2 : tensor<2x1x3x4xf32> -> tensor<2x3x4xf32>
  %4 = arith.maximumf %1, %3 : tensor<2x3x4xf32>
  %5 = asctensor.reduce sum %4 axes [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  func.return %5 : tensor<f32>
}

// CHECK:       func.func @window_row_k0(%w: tensor<2x2x3x4xf32>) -> tensor<2x3x4xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK:         arith.maximumf
// CHECK:       func.func @window_row_k1(%{{.*}}: tensor<2x3x4xf32>) -> tensor<f32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reduce sum

// the same sum over each window's rows (the last axis): a row of a window is one run, so one kernel
func.func @window_rows(%w: tensor<2x2x3x4xf32>) -> tensor<2x3xf32> {
  %0 = asctensor.slice %w offsets [0, 0, 0, 0] : tensor<2x2x3x4xf32> -> tensor<2x1x3x4xf32>
  %1 = asctensor.reshape %0 : tensor<2x1x3x4xf32> -> tensor<2x3x4xf32>
  %2 = asctensor.slice %w offsets [0, 1, 0, 0] : tensor<2x2x3x4xf32> -> tensor<2x1x3x4xf32>
  %3 = asctensor.reshape %2 : tensor<2x1x3x4xf32> -> tensor<2x3x4xf32>
  %4 = arith.maximumf %1, %3 : tensor<2x3x4xf32>
  %5 = asctensor.reduce sum %4 axes [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  func.return %5 : tensor<2x3xf32>
}

// CHECK:       func.func @window_rows_k0(%w: tensor<2x2x3x4xf32>) -> tensor<2x3xf32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NOT:   func.func @window_rows_k1

// a whole-tensor sum of a column slice reads an exact copy of it: the copy's kernel reads the slice element by
// element, the row-wise kernel whole rows
func.func @sliced_sum(%x: tensor<8x16xf32>) -> tensor<f32> {
  %0 = asctensor.slice %x offsets [0, 0] : tensor<8x16xf32> -> tensor<8x4xf32>
  %1 = asctensor.reduce sum %0 axes [0, 1] : tensor<8x4xf32> -> tensor<f32>
  func.return %1 : tensor<f32>
}

// CHECK:       func.func @sliced_sum_k0(%x: tensor<8x16xf32>) -> tensor<8x4xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.slice %x offsets [0, 0] : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK:         arith.mulf
// CHECK:       func.func @sliced_sum_k1(%{{.*}}: tensor<8x4xf32>) -> tensor<f32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reduce sum %{{.*}} axes [0, 1]

// a row sum of the same slice reads it in place: one kernel
func.func @sliced_row_sum(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %0 = asctensor.slice %x offsets [0, 0] : tensor<8x16xf32> -> tensor<8x4xf32>
  %1 = asctensor.reduce sum %0 axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  func.return %1 : tensor<8xf32>
}

// CHECK:       func.func @sliced_row_sum_k0(%x: tensor<8x16xf32>) -> tensor<8xf32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NOT:   func.func @sliced_row_sum_k1

// a concat of a splat and an argument: the splat is written out by a kernel of its own, the concat moves both
func.func @splat_concat(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = asctensor.full 1.5 : f32 -> tensor<2x3xf32>
  %1 = asctensor.concat %0, %x dim = 1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  func.return %1 : tensor<2x6xf32>
}

// CHECK:       func.func @splat_concat_k0() -> tensor<2x3xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK:       func.func @splat_concat_k1(%{{.*}}: tensor<2x3xf32>, %x: tensor<2x3xf32>) -> tensor<2x6xf32> attributes {asctensor.kernel = "movement"} {
// CHECK-NEXT:    %{{.*}} = asctensor.concat

// a concat of a slice of a splat: the kernel that writes it out makes the splat of the slice's shape (an
// elementwise kernel holds no slice)
func.func @sliced_splat_concat(%x: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = asctensor.full 0.0 : f32 -> tensor<3x4xf32>
  %1 = asctensor.slice %0 offsets [1, 0] : tensor<3x4xf32> -> tensor<2x4xf32>
  %2 = asctensor.concat %x, %1 dim = 0 : tensor<1x4xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  func.return %2 : tensor<3x4xf32>
}

// CHECK:       func.func @sliced_splat_concat_k0() -> tensor<2x4xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.full 0.000000e+00 : f32 -> tensor<2x4xf32>
// CHECK-NOT:     asctensor.slice
// CHECK:         func.return
// CHECK:       func.func @sliced_splat_concat_k1(%x: tensor<1x4xf32>, %{{.*}}: tensor<2x4xf32>) -> tensor<3x4xf32> attributes {asctensor.kernel = "movement"} {
// CHECK-NEXT:    %{{.*}} = asctensor.concat

// a flattened column slice is not one run: the slice is written out by an exact copy first, and the kernel that
// reshapes reads the copy
func.func @column_flatten(%x: tensor<3x4xf32>) -> tensor<6xf32> {
  %0 = asctensor.slice %x offsets [0, 0] : tensor<3x4xf32> -> tensor<3x2xf32>
  %1 = asctensor.reshape %0 : tensor<3x2xf32> -> tensor<6xf32>
  %2 = math.exp %1 : tensor<6xf32>
  func.return %2 : tensor<6xf32>
}

// CHECK:       func.func @column_flatten_k0(%x: tensor<3x4xf32>) -> tensor<3x2xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.slice %x offsets [0, 0]
// CHECK:         arith.mulf
// CHECK:       func.func @column_flatten_k1(%{{.*}}: tensor<3x2xf32>) -> tensor<6xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reshape %{{.*}} : tensor<3x2xf32> -> tensor<6xf32>

// A whole-tensor sum over a long row and elementwise work that does not read it: two kernels, so that the
// row-wise kernel holds only what its rows need; the same work reading the sum stays with it.
func.func @loss_and_gradient(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %0 = asctensor.reduce sum %x axes [0, 1] : tensor<64x64xf32> -> tensor<f32>
  %1 = math.exp %y : tensor<64x64xf32>
  %2 = arith.mulf %1, %y : tensor<64x64xf32>
  func.return %0, %2 : tensor<f32>, tensor<64x64xf32>
}
// CHECK:       func.func @loss_and_gradient_k0(%x: tensor<64x64xf32>) -> tensor<f32> attributes {asctensor.kernel = "rowwise"} {
// CHECK-NEXT:    %{{.*}} = asctensor.reduce sum %x axes [0, 1]
// CHECK-NEXT:    func.return
// CHECK:       func.func @loss_and_gradient_k1(%y: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %{{.*}} = math.exp %y

func.func @gradient_then_loss(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<f32>) {
  %0 = math.exp %y : tensor<64x64xf32>
  %1 = asctensor.reduce sum %x axes [0, 1] : tensor<64x64xf32> -> tensor<f32>
  func.return %0, %1 : tensor<64x64xf32>, tensor<f32>
}
// CHECK:       func.func @gradient_then_loss_k0(%y: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK:       func.func @gradient_then_loss_k1(%x: tensor<64x64xf32>) -> tensor<f32> attributes {asctensor.kernel = "rowwise"} {

func.func @short_rows(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64x64xf32>) {
  %0 = asctensor.reduce sum %x axes [1] : tensor<64x64xf32> -> tensor<64xf32>
  %1 = math.exp %y : tensor<64x64xf32>
  func.return %0, %1 : tensor<64xf32>, tensor<64x64xf32>
}
// CHECK:       func.func @short_rows_k0(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64x64xf32>) attributes {asctensor.kernel = "rowwise"} {
// CHECK-NOT:   func.func @short_rows_k1

// a reshape of a kernel's result that nothing else reads, returned: no copy kernel (host-to-gm has the kernel
// write the output viewed with its own shape); returned next to the value itself, it is copied
func.func @ret_mm(%a: tensor<6x8xf32>, %b: tensor<8x6xf32>) -> tensor<6x6xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<6x8xf32>, tensor<8x6xf32> -> tensor<6x6xf32>
  func.return %0 : tensor<6x6xf32>
}
func.func @returned_reshape(%a: tensor<6x8xf32>, %b: tensor<8x6xf32>) -> tensor<36xf32> {
  %0 = func.call @ret_mm(%a, %b) : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %1 = asctensor.reshape %0 : tensor<6x6xf32> -> tensor<36xf32>
  func.return %1 : tensor<36xf32>
}
// CHECK-NOT:   func.func @returned_reshape_k0
// CHECK:       func.func @returned_reshape(
// CHECK-NEXT:    %[[M:.*]] = func.call @ret_mm(%a, %b)
// CHECK-NEXT:    %[[R:.*]] = asctensor.reshape %[[M]] : tensor<6x6xf32> -> tensor<36xf32>
// CHECK-NEXT:    func.return %[[R]]

func.func @returned_twice(%a: tensor<6x8xf32>, %b: tensor<8x6xf32>) -> (tensor<6x6xf32>, tensor<36xf32>) {
  %0 = func.call @ret_mm(%a, %b) : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %1 = asctensor.reshape %0 : tensor<6x6xf32> -> tensor<36xf32>
  func.return %0, %1 : tensor<6x6xf32>, tensor<36xf32>
}
// CHECK:       func.func @returned_twice_k0(
// CHECK-SAME:    asctensor.kernel = "elementwise"
// CHECK:       func.func @returned_twice(
// CHECK:         func.call @returned_twice_k0(

// a max pool of a slice of an input: the slice is copied by a kernel first, and the pool kernel reads the copy
func.func @pool_of_slice(%x: tensor<3x4x10xf32>) -> tensor<1x4x5xf32> {
  %0 = asctensor.slice %x offsets [1, 0, 0] : tensor<3x4x10xf32> -> tensor<1x4x10xf32>
  %1 = asctensor.reshape %0 : tensor<1x4x10xf32> -> tensor<1x1x4x10xf32>
  %2 = asctensor.max_pool2d %1 kernel [1, 2] stride [1, 2] padding [0, 0] : tensor<1x1x4x10xf32> -> tensor<1x1x4x5xf32>
  %3 = asctensor.reshape %2 : tensor<1x1x4x5xf32> -> tensor<1x4x5xf32>
  func.return %3 : tensor<1x4x5xf32>
}

// CHECK:       func.func @pool_of_slice_k0(%x: tensor<3x4x10xf32>) -> tensor<1x4x10xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[S:.*]] = asctensor.slice %x offsets [1, 0, 0]
// CHECK-NEXT:    %[[ONE:.*]] = asctensor.full 1.000000e+00 : f32 -> tensor<1x4x10xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.mulf %[[S]], %[[ONE]] : tensor<1x4x10xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x4x10xf32>
// CHECK:       func.func @pool_of_slice_k1(%0: tensor<1x4x10xf32>) -> tensor<1x1x4x5xf32> attributes {asctensor.kernel = "pool"} {
// CHECK-NEXT:    %[[R:.*]] = asctensor.reshape %0 : tensor<1x4x10xf32> -> tensor<1x1x4x10xf32>
// CHECK-NEXT:    asctensor.max_pool2d %[[R]] kernel [1, 2]

// a slice passed to a kernel outlined before (a matmul): copied by an elementwise kernel, whose result the call takes
func.func @call_view_k0(%a: tensor<2x16xf32>, %b: tensor<16x16xf32>) -> tensor<2x16xf32> attributes {asctensor.kernel = "matmul"} {
  %0 = asctensor.matmul %a, %b : tensor<2x16xf32>, tensor<16x16xf32> -> tensor<2x16xf32>
  func.return %0 : tensor<2x16xf32>
}
func.func @call_view(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<2x16xf32> {
  %0 = asctensor.slice %x offsets [1, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
  %1 = func.call @call_view_k0(%0, %w) : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  func.return %1 : tensor<2x16xf32>
}

// CHECK:       func.func @call_view_k0_1(%x: tensor<4x16xf32>) -> tensor<2x16xf32> attributes {asctensor.kernel = "elementwise"} {
// CHECK-NEXT:    %[[S:.*]] = asctensor.slice %x offsets [1, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK:         arith.mulf %[[S]]
// CHECK:       func.func @call_view(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<2x16xf32> {
// CHECK-NEXT:    %[[C:.*]] = func.call @call_view_k0_1(%x) : (tensor<4x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:    func.call @call_view_k0(%[[C]], %w)
