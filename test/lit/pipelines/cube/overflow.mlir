// RUN: not pyasc-opt %s -p plan-memory 2>&1 | filecheck %s

// a tile plan that does not fit L1 is a compile-time error naming the memory and the kernel
func.func @k(%a: memref<512x512xf16>) attributes {asctile.kernel = "cube", asctile.block_dim = 1 : i64, asctile.buffers = 2 : i64} {
  %l1 = ascbuf.alloc slots 2 : memref<272x512xf16, #ascbuf.space<l1>>
  %l0 = ascbuf.alloc slots 2 : memref<128x128xf16, #ascbuf.space<l0a>>
  func.return
}
// CHECK: L1 overflow in kernel @k: its buffers need 557056 bytes
