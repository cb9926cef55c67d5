// RUN: not pyasc-opt %s -p 'to-tile{tile_size=20000 cores=1},bufferize,plan-memory' 2>&1 | filecheck %s

// a tile_size too big for UB is a compile-time error naming the kernel and the sizes:
// 2 slots x 80000 B for x and for the output, plus one 80000 B temporary (exp)
func.func @f(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %0 = math.exp %x : tensor<1000000xf32>
  %1 = arith.addf %0, %x : tensor<1000000xf32>
  func.return %1 : tensor<1000000xf32>
}

// CHECK-NOT: Traceback
// CHECK:     pyasc-opt: error: UB overflow in kernel @f_k0: its buffers need 400640 bytes (320512 B of rotating and staged tiles, temporaries: 1 of 80128 B) but the target has 188416 B of UB; use a smaller tile_size
