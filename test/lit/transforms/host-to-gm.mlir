// RUN: pyasc-opt %s -p host-to-gm --split-input-file | filecheck %s

// the host moves onto GM buffers: its results become trailing arguments the last kernel writes, an
// intermediate between two kernels stays a memref.alloc, and the casts a tiling pass put around the
// calls disappear
func.func private @f_k0(memref<1024xf32>, memref<1024xf32>)
func.func private @f_k1(memref<1024xf32>, memref<1024xf32>, memref<1024xf32>)
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<1024xf32> to memref<1024xf32>
  %1 = memref.alloc() : memref<1024xf32>
  func.call @f_k0(%0, %1) {asc.loc = "f.py:3"} : (memref<1024xf32>, memref<1024xf32>) -> ()
  %e = builtin.unrealized_conversion_cast %1 : memref<1024xf32> to tensor<1024xf32>
  %2 = builtin.unrealized_conversion_cast %e : tensor<1024xf32> to memref<1024xf32>
  %3 = builtin.unrealized_conversion_cast %x : tensor<1024xf32> to memref<1024xf32>
  %4 = memref.alloc() : memref<1024xf32>
  func.call @f_k1(%2, %3, %4) : (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
  %r = builtin.unrealized_conversion_cast %4 : memref<1024xf32> to tensor<1024xf32>
  func.return %r : tensor<1024xf32>
}

// CHECK-LABEL: func.func @f(%x: memref<1024xf32>, %out0: memref<1024xf32>) {
// CHECK-NEXT:    %[[E:.*]] = memref.alloc() : memref<1024xf32>
// CHECK-NEXT:    func.call @f_k0(%x, %[[E]]) {asc.loc = "f.py:3"} : (memref<1024xf32>, memref<1024xf32>) -> ()
// CHECK-NEXT:    func.call @f_k1(%[[E]], %x, %out0) : (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NOT:   unrealized_conversion_cast

// a host without tensor inputs (its inputs were all empty, or it has none) still gets its outputs
func.func private @g_k0(memref<8xf32>)
func.func @g() -> tensor<8xf32> {
  %0 = memref.alloc() : memref<8xf32>
  func.call @g_k0(%0) : (memref<8xf32>) -> ()
  %r = builtin.unrealized_conversion_cast %0 : memref<8xf32> to tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// CHECK-LABEL: func.func @g(%out0: memref<8xf32>) {
// CHECK-NEXT:    func.call @g_k0(%out0) : (memref<8xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

// a reshape between kernels: the same contiguous buffer, passed to the next kernel through a
// memref.reinterpret_cast to the shape that kernel takes (so the call verifies)
func.func private @r_k0(memref<2x12xf32>, memref<2x12xf32>)
func.func private @r_k1(memref<2x3x4xf32>, memref<2x3x4xf32>)
func.func @r(%x: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<2x12xf32> to memref<2x12xf32>
  %1 = memref.alloc() : memref<2x12xf32>
  func.call @r_k0(%0, %1) : (memref<2x12xf32>, memref<2x12xf32>) -> ()
  %e = builtin.unrealized_conversion_cast %1 : memref<2x12xf32> to tensor<2x12xf32>
  %v = asctensor.reshape %e : tensor<2x12xf32> -> tensor<2x3x4xf32>
  %2 = builtin.unrealized_conversion_cast %v : tensor<2x3x4xf32> to memref<2x3x4xf32>
  %3 = memref.alloc() : memref<2x3x4xf32>
  func.call @r_k1(%2, %3) : (memref<2x3x4xf32>, memref<2x3x4xf32>) -> ()
  %r = builtin.unrealized_conversion_cast %3 : memref<2x3x4xf32> to tensor<2x3x4xf32>
  func.return %r : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @r(%x: memref<2x12xf32>, %out0: memref<2x3x4xf32>) {
// CHECK-NEXT:    %[[E:.*]] = memref.alloc() : memref<2x12xf32>
// CHECK-NEXT:    func.call @r_k0(%x, %[[E]])
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %[[E]] to offset: [0], sizes: [2, 3, 4], strides: [12, 4, 1] : memref<2x12xf32> to memref<2x3x4xf32>
// CHECK-NEXT:    func.call @r_k1(%[[V]], %out0) : (memref<2x3x4xf32>, memref<2x3x4xf32>) -> ()

// -----

// a result that is a reshape of a tiled call's result (nothing else reads it): the call writes the output
// argument, viewed with the kernel's shape
func.func private @h_k0(memref<6x8xf32>, memref<6x8xf32>)
func.func @h(%x: tensor<6x8xf32>) -> tensor<4x12xf32> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<6x8xf32> to memref<6x8xf32>
  %1 = memref.alloc() : memref<6x8xf32>
  func.call @h_k0(%0, %1) : (memref<6x8xf32>, memref<6x8xf32>) -> ()
  %e = builtin.unrealized_conversion_cast %1 : memref<6x8xf32> to tensor<6x8xf32>
  %r = asctensor.reshape %e : tensor<6x8xf32> -> tensor<4x12xf32>
  func.return %r : tensor<4x12xf32>
}

// CHECK-LABEL: func.func @h(%x: memref<6x8xf32>, %out0: memref<4x12xf32>) {
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %out0 to offset: [0], sizes: [6, 8], strides: [8, 1] : memref<4x12xf32> to memref<6x8xf32>
// CHECK-NEXT:    func.call @h_k0(%x, %[[V]]) : (memref<6x8xf32>, memref<6x8xf32>) -> ()
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
