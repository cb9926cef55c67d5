// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},bufferize,plan-memory,insert-sync{sync_style=queue}' | filecheck %s
// RUN: pyasc-opt %s -p 'to-tile{tile_size=1024 cores=2},bufferize,plan-memory,insert-sync' | filecheck %s

// queue style (the default): TQue EnQue/DeQue carry the cross-pipe order, so only the
// same-pipe barrier between the dependent vector ops is placed
func.func @s(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = math.exp %x : tensor<8192xf32>
  %1 = arith.mulf %0, %y : tensor<8192xf32>
  func.return %1 : tensor<8192xf32>
}

// CHECK-LABEL: func.func @s_k0(
// CHECK-NOT:     ascbuf.set_flag
// CHECK-NOT:     ascbuf.wait_flag
// CHECK:         ascbuf.vunary exp %tmp_buf
// CHECK-NEXT:    %[[OS:.*]] = ascbuf.slot %out_buf[%i]
// CHECK-NEXT:    ascbuf.barrier V
// CHECK-NEXT:    ascbuf.vbinary mul %[[OS]], %tmp_buf
// CHECK-NOT:     ascbuf.set_flag
// CHECK-NOT:     ascbuf.wait_flag
// CHECK-NOT:     ascbuf.barrier
// CHECK:       func.func @s(
